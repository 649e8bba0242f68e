package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"slices"
	"time"

	"github.com/hieracc/hieracc/compiler/build"
	"github.com/hieracc/hieracc/compiler/diagnostics"
)

var checkCmd = &command{
	name:     "check",
	synopsis: "lint a control repo: every data file, whether or not a node reaches it",
	usage:    checkUsage,
	run:      runCheck,
}

func runCheck(c *cmdEnv, args []string) int {
	var f compileFlags
	fl := flag.NewFlagSet("check", flag.ContinueOnError)
	fl.StringVar(&f.env, "env", "", "")
	fl.StringVar(&f.modules, "modules", "", "")
	fl.StringVar(&f.global, "global", "", "")
	fl.Var(&f.mounts, "mount", "")
	fl.Var(&f.facts, "facts", "")
	fl.BoolVar(&f.strict, "strict", false, "")
	fl.StringVar(&f.diagFormat, "format", "text", "")
	fl.BoolVar(&f.verbose, "verbose", false, "")
	f.eyamlFlags(fl)
	rest, code, ok := parseFlags(c, fl, args)
	if !ok {
		return code
	}
	f.facts = append(f.facts, rest...)
	if f.env == "" {
		return c.usageError("--env is required: the environment folder (with hiera.yaml, data/, modules/)")
	}
	diagFormat, err := diagnostics.ParseFormat(f.diagFormat)
	if err != nil {
		return c.usageError("--format %v", err)
	}
	start := time.Now()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	r, err := build.Check(ctx, build.Config{Env: f.env, Modules: f.modules, Global: f.global, Mounts: f.mounts,
		Facts: f.facts, Strict: f.strict,
		PKCS7PrivateKey: f.pkcs7Private, PKCS7PublicKey: f.pkcs7Public})
	if err != nil {
		c.errorf("%v", err)
		return exitFail
	}
	groups := diagnostics.GroupAll(append(slices.Clip(r.Facts), r.Diagnostics...))
	errs, warns, promoted := countGroups(groups, f.strict)
	diagnostics.Write(c.stderr, groups, diagFormat, diagnostics.Options{Verbose: f.verbose})
	errText := plural(errs, "error")
	if promoted > 0 {
		errText += fmt.Sprintf(" (%d from warnings, --strict)", promoted)
	}
	nodes := ""
	if r.Nodes > 0 {
		nodes = ", with the facts of " + plural(r.Nodes, "node")
	}
	fmt.Fprintf(c.stdout, "hieracc check: %s, %s%s in %s\n", errText, plural(warns, "warning"), nodes, since(start))
	if errs > 0 {
		return exitFail
	}
	return exitOK
}
