package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"runtime/debug"
	"strings"
	"time"

	"github.com/hieracc/hieracc/compiler/build"
)

var compileCmd = &command{
	name:     "compile",
	synopsis: "compile a control repo and node facts into one bundle per node",
	usage:    compileUsage,
	run:      runCompile,
}

// stringList is a repeatable string flag.
type stringList []string

func (l *stringList) String() string     { return strings.Join(*l, ",") }
func (l *stringList) Set(s string) error { *l = append(*l, s); return nil }

type compileFlags struct {
	env, modules, global, environment, out string
	facts                                  stringList
	keepGoing, strict, full                bool
	jobs                                   int
}

func runCompile(c *cmdEnv, args []string) int {
	var f compileFlags
	fl := flag.NewFlagSet("compile", flag.ContinueOnError)
	fl.StringVar(&f.env, "env", "", "")
	fl.StringVar(&f.modules, "modules", "", "")
	fl.StringVar(&f.global, "global", "", "")
	fl.StringVar(&f.environment, "environment", "production", "")
	fl.Var(&f.facts, "facts", "")
	fl.StringVar(&f.out, "out", "", "")
	fl.BoolVar(&f.keepGoing, "keep-going", false, "")
	fl.BoolVar(&f.strict, "strict", false, "")
	fl.BoolVar(&f.full, "full", false, "")
	fl.IntVar(&f.jobs, "jobs", 0, "")
	rest, code, ok := parseFlags(c, fl, args)
	if !ok {
		return code
	}
	// Arguments that are not flags are facts paths too, so that
	// `--facts nodes/*.yaml` works after the shell expands it.
	f.facts = append(f.facts, rest...)
	switch {
	case f.env == "":
		return c.usageError("--env is required: the environment folder (with hiera.yaml, data/, modules/)")
	case len(f.facts) == 0:
		return c.usageError("--facts is required: facts files or folders of them")
	case f.out == "":
		return c.usageError("--out is required: the folder the bundles are written to")
	case f.jobs < 0:
		return c.usageError("--jobs must be 0 (one per CPU) or more, not %d", f.jobs)
	case f.environment == "":
		return c.usageError("--environment must not be empty")
	}

	// A compile allocates much and keeps little (each node's results are
	// written and dropped): collecting half as often as Go's default saves
	// ~10% of a fleet's compile for ~30% more peak memory (reference
	// fleet: 1.2 GB). GOGC, when set, still rules.
	if _, set := os.LookupEnv("GOGC"); !set {
		debug.SetGCPercent(200)
	}

	start := time.Now()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	r, err := build.Run(ctx, f.config())
	if r != nil {
		for _, msg := range r.FactErrors {
			fmt.Fprintln(c.stderr, msg)
		}
		for _, m := range r.Messages {
			fmt.Fprintln(c.stderr, m.Text)
		}
	}
	if err != nil {
		c.errorf("%v", err)
		return exitFail
	}

	errText := plural(r.Errors, "error")
	if r.Promoted > 0 {
		errText += fmt.Sprintf(" (%d from warnings, --strict)", r.Promoted)
	}
	summary := fmt.Sprintf("%s, %s, %s, %s", plural(r.Nodes, "node"), plural(r.Keys, "key"), errText, plural(r.Warnings, "warning"))
	if r.Incremental {
		summary = fmt.Sprintf("%s compiled (incremental: %d unchanged), %s, %s, %s",
			plural(r.Nodes, "node"), r.Unchanged, plural(r.Keys, "key"), errText, plural(r.Warnings, "warning"))
	}
	if !r.Committed {
		fmt.Fprintf(c.stdout, "hieracc compile: %s in %s; nothing written (--keep-going writes bundles anyway)\n", summary, since(start))
		return exitFail
	}
	removed := ""
	if r.Removed > 0 {
		removed = fmt.Sprintf(", removed %s of nodes whose facts were not given", plural(r.Removed, "bundle"))
	}
	fmt.Fprintf(c.stdout, "hieracc compile: %s in %s; wrote %s to %s%s\n", summary, since(start), plural(r.Written, "bundle"), f.out, removed)
	if r.Errors > 0 {
		return exitFail
	}
	return exitOK
}

// config is the build the flags ask for.
func (f *compileFlags) config() build.Config {
	return build.Config{Env: f.env, Modules: f.modules, Global: f.global, Environment: f.environment,
		Facts: f.facts, Out: f.out, KeepGoing: f.keepGoing, Strict: f.strict, Full: f.full, Jobs: f.jobs}
}

func plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return fmt.Sprintf("%d %ss", n, word)
}

func since(t time.Time) time.Duration {
	d := time.Since(t)
	if d > time.Second {
		return d.Round(10 * time.Millisecond)
	}
	return d.Round(100 * time.Microsecond)
}
