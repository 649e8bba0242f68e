package main

// compile --environment-from-facts: each node is compiled against the
// environment its facts' source recorded (PuppetDB's, a replace facts
// payload's), found in an r10k-style folder of environments, in one run.
// Such a run is always a full one: the state of incremental compiles
// describes one environment.

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/signal"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/hieracc/hieracc/compiler"
	"github.com/hieracc/hieracc/compiler/facts"
	"github.com/hieracc/hieracc/format"
)

// validEnvName is Puppet's rule for environment names: it also keeps a
// recorded name from leaving --env-root.
var validEnvName = regexp.MustCompile(`^[a-z0-9_]+$`)

func runCompileEnvs(c *cmdEnv, f *compileFlags, ovs []facts.Override) int {
	start := time.Now()
	set, factProbs, err := gatherFacts(f.facts, f.puppetdb, ovs, nil)
	if err != nil {
		c.errorf("%v", err)
		return exitFail
	}
	envOf := map[string]facts.Node{}
	for _, n := range set.nodes {
		envOf[n.Certname] = n
	}
	nodes, more := set.compile(func(string) bool { return true })
	factProbs = append(factProbs, more...)

	// Nodes by environment; those without one, or of one that is not
	// there, are errors naming them.
	groups := map[string][]compiler.Node{}
	for _, n := range nodes {
		src := envOf[n.Name]
		env := src.Environment
		switch {
		case env == "":
			factProbs = append(factProbs, facts.Problem{File: src.Source, Line: src.Line, Column: src.Column, Node: n.Name,
				Message: fmt.Sprintf("no environment recorded with these facts (%s): --environment-from-facts needs one for every node", src.Format)})
		case !validEnvName.MatchString(env):
			factProbs = append(factProbs, facts.Problem{File: src.Source, Line: src.Line, Column: src.Column, Node: n.Name,
				Message: fmt.Sprintf("recorded environment %q is not an environment name (lower case letters, digits, _)", env)})
		default:
			groups[env] = append(groups[env], n)
		}
	}
	envs := slices.Sorted(func(yield func(string) bool) {
		for e := range groups {
			if !yield(e) {
				return
			}
		}
	})
	for _, env := range slices.Clone(envs) {
		if !isDir(filepath.Join(f.envRoot, env)) {
			var names []string
			for _, n := range groups[env] {
				names = append(names, n.Name)
			}
			factProbs = append(factProbs, facts.Problem{File: filepath.Join(f.envRoot, env), Message: fmt.Sprintf(
				"environment %s does not exist in --env-root, for %s: %s", env, plural(len(names), "node"), strings.Join(names, ", "))})
			envs = slices.DeleteFunc(envs, func(e string) bool { return e == env })
		}
	}

	removeStaleTemps(f.out)
	w := &bundleWriter{out: f.out}
	defer w.discard()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	keys, compiled := 0, 0
	var keysMu sync.Mutex
	var diags []string
	errs, warns, promoted := 0, 0, 0
	count := func(isErr bool) {
		switch {
		case isErr:
			errs++
		case f.strict:
			errs++
			promoted++
		default:
			warns++
		}
	}
	for _, p := range factProbs {
		count(!p.Warning)
		diags = append(diags, p.String())
	}
	for _, env := range envs {
		ef := *f
		ef.env, ef.environment, ef.modules = filepath.Join(f.envRoot, env), env, ""
		in, fsys, err := ef.input()
		if err != nil {
			c.errorf("%v", err)
			return exitFail
		}
		in.Nodes = groups[env]
		compiled += len(in.Nodes)
		in.Emit = func(b *format.Bundle) error {
			keysMu.Lock()
			keys += len(b.Keys)
			keysMu.Unlock()
			return w.stage(b)
		}
		res, err := compiler.Compile(ctx, in)
		if err != nil {
			c.errorf("%v", err)
			return exitFail
		}
		for _, d := range res.Diagnostics {
			count(d.Severity == compiler.Error)
			d.File = fsys.display(d.File)
			diags = append(diags, d.String())
		}
	}
	for _, d := range diags {
		fmt.Fprintln(c.stderr, d)
	}
	errText := plural(errs, "error")
	if promoted > 0 {
		errText += fmt.Sprintf(" (%d from warnings, --strict)", promoted)
	}
	summary := fmt.Sprintf("%s in %s, %s, %s, %s", plural(compiled, "node"), plural(len(envs), "environment"),
		plural(keys, "key"), errText, plural(warns, "warning"))
	if errs > 0 && !f.keepGoing {
		fmt.Fprintf(c.stdout, "hieracc compile: %s in %s; nothing written (--keep-going writes bundles anyway)\n", summary, since(start))
		return exitFail
	}
	// The state describes one environment's compile: none is kept, and
	// the next compile into OUT is a full one.
	if err := os.Remove(filepath.Join(f.out, stateFile)); err != nil && !errors.Is(err, fs.ErrNotExist) {
		c.errorf("%v", err)
		return exitFail
	}
	n, err := w.commit()
	if err != nil {
		c.errorf("%v", err)
		return exitFail
	}
	fmt.Fprintf(c.stdout, "hieracc compile: %s in %s; wrote %s to %s\n", summary, since(start), plural(n, "bundle"), f.out)
	if errs > 0 {
		return exitFail
	}
	return exitOK
}
