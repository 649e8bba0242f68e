package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"slices"
	"strings"
	"time"

	"github.com/hieracc/hieracc/cmd/hieracc/internal/progress"
	"github.com/hieracc/hieracc/compiler/build"
	"github.com/hieracc/hieracc/compiler/diagnostics"
	"github.com/hieracc/hieracc/compiler/facts"
	"github.com/hieracc/hieracc/compiler/facts/puppetdb"
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
	puppetdb                               puppetdb.Config
	facts, factOverrides                   stringList
	mounts                                 stringList       // --mount ABS=DIR
	overrides                              []facts.Override // --fact-override, parsed
	keepGoing, strict, full, envFromFacts  bool
	envRoot                                string
	jobs                                   int
	noShare                                bool   // --no-share: every node compiled on its own
	diagFormat                             string // --format: how errors and warnings are printed
	verbose                                bool   // --verbose: every node of a shared error, the time per stage
	progress                               string // --progress: auto, always or never
	pkcs7Private, pkcs7Public              string // eyaml keys
	shard                                  string // --shard K/N
	signKey, signCert, sealTo, sealMissing string // signing and sealing (format version 4)
	sourceRevision                         sourceRevisionFlag
	rubyBackends, keys                     string // --ruby-backends fail|puppet, --keys FILE
}

// rubyFlags registers --ruby-backends and --keys (compile, and diff --git).
func (f *compileFlags) rubyFlags(fl *flag.FlagSet) {
	fl.StringVar(&f.rubyBackends, "ruby-backends", build.RubyBackendsFail, "")
	fl.StringVar(&f.keys, "keys", "", "")
}

// checkRuby checks --ruby-backends and --keys; a message when bad.
func (f *compileFlags) checkRuby() string {
	switch {
	case f.rubyBackends != build.RubyBackendsFail && f.rubyBackends != build.RubyBackendsPuppet:
		return fmt.Sprintf("--ruby-backends must be %s or %s, not %q", build.RubyBackendsFail, build.RubyBackendsPuppet, f.rubyBackends)
	case f.keys != "" && f.rubyBackends != build.RubyBackendsPuppet:
		return "--keys goes with --ruby-backends=puppet"
	case f.envFromFacts && f.rubyBackends == build.RubyBackendsPuppet:
		return "--ruby-backends=puppet does not work with --environment-from-facts yet"
	}
	return ""
}

// eyamlFlags registers the eyaml key flags (compile, and diff --git).
func (f *compileFlags) eyamlFlags(fl *flag.FlagSet) {
	fl.StringVar(&f.pkcs7Private, "pkcs7-private-key", "", "")
	fl.StringVar(&f.pkcs7Public, "pkcs7-public-key", "", "")
}

func runCompile(c *cmdEnv, args []string) int {
	var f compileFlags
	fl := f.flagSet()
	rest, code, ok := parseFlags(c, fl, args)
	if !ok {
		return code
	}
	// Arguments that are not flags are facts paths too, so that
	// `--facts nodes/*.yaml` works after the shell expands it.
	f.facts = append(f.facts, rest...)
	v, msg := f.check(fl)
	if msg != "" {
		return c.usageError("%s", msg)
	}

	// Garbage collection as a compile wants it (GOGC, GOMEMLIMIT, when
	// set, still rule).
	defer build.TuneGC()()

	start := time.Now()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	cfg := f.config()
	cfg.Shard = v.shard
	var stopMeter func()
	cfg.Progress, stopMeter = meter(f.progress, c.term, "compile")
	r, err := build.Run(ctx, cfg)
	stopMeter()
	// An error or warning that many nodes share is printed once.
	errs, warns, promoted := 0, 0, 0
	if r != nil {
		groups := diagnostics.GroupAll(append(slices.Clip(r.Facts), r.Diagnostics...))
		errs, warns, promoted = countGroups(groups, f.strict)
		diagnostics.Write(c.stderr, groups, v.diagFormat, diagnostics.Options{Verbose: f.verbose})
		if f.verbose && v.diagFormat != diagnostics.JSON { // JSON Lines' stderr holds only JSON
			writeStages(c.stderr, r.Stages)
		}
		if r.StateDamaged != "" {
			c.errorf("warning: %s: not used, every node compiled", r.StateDamaged)
		}
	}
	if err != nil {
		c.errorf("%v", err)
		return exitFail
	}

	errText := plural(errs, "error")
	if promoted > 0 {
		errText += fmt.Sprintf(" (%d from warnings, --strict)", promoted)
	}
	part := ""
	if v.shard.N > 0 {
		part = fmt.Sprintf("shard %v: ", v.shard)
	}
	summary := fmt.Sprintf("%s%s, %s, %s, %s", part, plural(r.Nodes, "node"), plural(r.Keys, "key"), errText, plural(warns, "warning"))
	switch {
	case f.envFromFacts:
		summary = fmt.Sprintf("%s%s in %s, %s, %s, %s", part, plural(r.Nodes, "node"), plural(r.Environments, "environment"),
			plural(r.Keys, "key"), errText, plural(warns, "warning"))
	case r.Incremental:
		summary = fmt.Sprintf("%s%s compiled (incremental: %d unchanged), %s, %s, %s",
			part, plural(r.Nodes, "node"), r.Unchanged, plural(r.Keys, "key"), errText, plural(warns, "warning"))
	}
	if !r.Committed {
		fmt.Fprintf(c.stdout, "hieracc compile: %s in %s; nothing written (--keep-going writes bundles anyway)\n", summary, since(start))
		return exitFail
	}
	var removed []string
	switch {
	case r.Removed > 0 && v.shard.N > 0:
		removed = append(removed, fmt.Sprintf("%s of the shard's nodes whose facts were not given", plural(r.Removed, "bundle")))
	case r.Removed > 0:
		removed = append(removed, fmt.Sprintf("%s of nodes whose facts were not given", plural(r.Removed, "bundle")))
	}
	if r.SharedRemoved > 0 {
		removed = append(removed, plural(r.SharedRemoved, "shared details file")+" no bundle refers to")
	}
	removedText := ""
	if len(removed) > 0 {
		removedText = ", removed " + strings.Join(removed, " and ")
	}
	fmt.Fprintf(c.stdout, "hieracc compile: %s in %s; wrote %s and %s to %s%s\n", summary, since(start),
		plural(r.Written, "bundle"), plural(r.SharedWritten, "shared details file"), f.out, removedText)
	if r.Errors > 0 {
		return exitFail
	}
	return exitOK
}

// flagSet is compile's flags, read into f.
func (f *compileFlags) flagSet() *flag.FlagSet {
	fl := flag.NewFlagSet("compile", flag.ContinueOnError)
	fl.StringVar(&f.env, "env", "", "")
	fl.StringVar(&f.modules, "modules", "", "")
	fl.StringVar(&f.global, "global", "", "")
	fl.Var(&f.mounts, "mount", "")
	fl.StringVar(&f.environment, "environment", "production", "")
	fl.Var(&f.facts, "facts", "")
	fl.Var(&f.factOverrides, "fact-override", "")
	fl.StringVar(&f.puppetdb.URL, "puppetdb", "", "")
	fl.StringVar(&f.puppetdb.Cert, "puppetdb-cert", "", "")
	fl.StringVar(&f.puppetdb.Key, "puppetdb-key", "", "")
	fl.StringVar(&f.puppetdb.CACert, "puppetdb-cacert", "", "")
	fl.StringVar(&f.puppetdb.Query, "puppetdb-query", "", "")
	fl.BoolVar(&f.envFromFacts, "environment-from-facts", false, "")
	fl.StringVar(&f.envRoot, "env-root", "", "")
	fl.StringVar(&f.out, "out", "", "")
	fl.BoolVar(&f.keepGoing, "keep-going", false, "")
	fl.BoolVar(&f.strict, "strict", false, "")
	fl.BoolVar(&f.full, "full", false, "")
	fl.IntVar(&f.jobs, "jobs", 0, "")
	fl.BoolVar(&f.noShare, "no-share", false, "")
	fl.StringVar(&f.diagFormat, "format", "text", "")
	fl.BoolVar(&f.verbose, "verbose", false, "")
	fl.StringVar(&f.progress, "progress", "auto", "")
	f.eyamlFlags(fl)
	f.rubyFlags(fl)
	fl.StringVar(&f.shard, "shard", "", "")
	fl.StringVar(&f.signKey, "sign-key", "", "")
	fl.StringVar(&f.signCert, "sign-cert", "", "")
	fl.StringVar(&f.sealTo, "seal-to", "", "")
	fl.StringVar(&f.sealMissing, "seal-missing", "", "")
	fl.Var(&f.sourceRevision, "source-revision", "")
	return fl
}

// checkedCompile is what check makes of flags that are not plain values.
type checkedCompile struct {
	diagFormat diagnostics.Format
	shard      build.Shard
}

// check validates compile's flags once parsed (fl, read into f), and reads
// those that need it; a message for the usage error when one is bad.
func (f *compileFlags) check(fl *flag.FlagSet) (v checkedCompile, msg string) {
	fail := func(format string, args ...any) (checkedCompile, string) {
		return checkedCompile{}, fmt.Sprintf(format, args...)
	}
	envSet := false
	fl.Visit(func(fl *flag.Flag) { envSet = envSet || fl.Name == "environment" })
	switch {
	case f.envFromFacts && envSet:
		return fail("--environment and --environment-from-facts do not go together: with --environment-from-facts each node is compiled in the environment its facts recorded")
	case f.envFromFacts && (f.env != "" || f.modules != "" || f.envRoot == ""):
		return fail("--environment-from-facts takes --env-root DIR (a folder of environments), instead of --env and --modules")
	case !f.envFromFacts && f.envRoot != "":
		return fail("--env-root goes with --environment-from-facts")
	case !f.envFromFacts && f.env == "":
		return fail("--env is required: the environment folder (with hiera.yaml, data/, modules/)")
	case len(f.facts) == 0 && f.puppetdb.URL == "":
		return fail("--facts or --puppetdb is required: where the nodes' facts are")
	case f.puppetdb.URL == "" && (f.puppetdb.Query != "" || f.puppetdb.Cert != "" || f.puppetdb.Key != "" || f.puppetdb.CACert != ""):
		return fail("--puppetdb-query, --puppetdb-cert, --puppetdb-key and --puppetdb-cacert need --puppetdb URL")
	case f.out == "":
		return fail("--out is required: the folder the bundles are written to")
	case f.jobs < 0:
		return fail("--jobs must be 0 (one per CPU) or more, not %d", f.jobs)
	case f.environment == "":
		return fail("--environment must not be empty")
	case f.sealMissing != "" && f.sealMissing != build.SealMissingError && f.sealMissing != build.SealMissingPlain:
		return fail("--seal-missing must be %s or %s, not %q", build.SealMissingError, build.SealMissingPlain, f.sealMissing)
	case f.sealMissing != "" && f.sealTo == "":
		return fail("--seal-missing goes with --seal-to CERTDIR")
	case f.signCert != "" && f.signKey == "":
		return fail("--sign-cert goes with --sign-key KEY")
	}
	if msg := f.parseOverrides(); msg != "" {
		return fail("%s", msg)
	}
	if msg := f.checkRuby(); msg != "" {
		return fail("%s", msg)
	}
	if f.envFromFacts && !isDir(f.envRoot) {
		_, err := os.Stat(f.envRoot)
		if err == nil {
			return fail("--env-root %s: not a folder", f.envRoot)
		}
		return fail("--env-root: %v", cleanPathErr(err))
	}
	var err error
	if v.diagFormat, err = diagnostics.ParseFormat(f.diagFormat); err != nil {
		return fail("--format %v", err)
	}
	if !slices.Contains(progress.Modes, f.progress) {
		return fail("--progress must be %s, not %q", strings.Join(progress.Modes, ", "), f.progress)
	}
	// --shard "" (a CI variable that is not set) is an error too, not the
	// whole fleet compiled on every machine.
	shardSet := false
	fl.Visit(func(fl *flag.Flag) { shardSet = shardSet || fl.Name == "shard" })
	if shardSet {
		if v.shard, err = build.ParseShard(f.shard); err != nil {
			return fail("--shard %v", err)
		}
	}
	return v, ""
}

// config is the build the flags ask for.
func (f *compileFlags) config() build.Config {
	cfg := build.Config{Env: f.env, Modules: f.modules, Global: f.global, Environment: f.environment,
		Facts: f.facts, Out: f.out, KeepGoing: f.keepGoing, Strict: f.strict, Full: f.full, Jobs: f.jobs, NoSharing: f.noShare,
		PKCS7PrivateKey: f.pkcs7Private, PKCS7PublicKey: f.pkcs7Public, Mounts: f.mounts,
		PuppetDB: f.puppetdb, FactOverrides: f.overrides,
		SignKey: f.signKey, SignCert: f.signCert, SealTo: f.sealTo, SealMissing: f.sealMissing,
		RubyBackends: f.rubyBackends, Keys: f.keys}
	if f.envFromFacts {
		cfg.EnvRoot = f.envRoot
		cfg.SourceRevision = f.sourceRevision.resolve(f.envRoot)
	} else {
		cfg.SourceRevision = f.sourceRevision.resolve(f.env)
	}
	return cfg
}

// parseOverrides reads the --fact-override flags into f.overrides; a
// message when one is bad.
func (f *compileFlags) parseOverrides() string {
	f.overrides = nil
	for _, a := range f.factOverrides {
		o, err := facts.ParseOverride(a)
		if err != nil {
			return err.Error()
		}
		f.overrides = append(f.overrides, o)
	}
	return ""
}

// meter shows a build's progress on w as --progress mode says: the
// function for build.Config.Progress (nil when nothing is shown), and the
// one that ends the display.
func meter(mode string, w io.Writer, what string) (func(done, total int), func()) {
	if !progress.Wanted(mode, w) {
		return nil, func() {}
	}
	var m *progress.Meter
	return func(done, total int) {
			if m == nil {
				m = progress.Start(w, what, total, 200*time.Millisecond)
			}
			if done > 0 {
				m.Add(1)
			}
		}, func() {
			m.Stop()
		}
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

// countGroups counts the errors and warnings of grouped diagnostics (a
// group counts once, however many nodes share it); with strict, warnings
// count as errors, promoted of them.
func countGroups(groups []diagnostics.Group, strict bool) (errs, warns, promoted int) {
	for _, g := range groups {
		switch {
		case g.Severity == diagnostics.Error:
			errs++
		case strict:
			errs++
			promoted++
		default:
			warns++
		}
	}
	return errs, warns, promoted
}
