package build

// Environments from facts (Config.EnvRoot): each node is compiled against
// the environment its facts' source recorded (PuppetDB's, a replace facts
// payload's), found in an r10k-style folder of environments, in one run
// into one Out (of one shard, with Config.Shard). Such a build is always
// a full one and keeps no state: the state of incremental builds
// describes one environment.

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sync"

	"github.com/hieracc/hieracc/compiler"
	"github.com/hieracc/hieracc/compiler/build/internal/stage"
	"github.com/hieracc/hieracc/compiler/diagnostics"
	"github.com/hieracc/hieracc/format"
)

// validEnvName is Puppet's rule for environment names: it also keeps a
// recorded name from leaving EnvRoot.
var validEnvName = regexp.MustCompile(`^[a-z0-9_]+$`)

// runEnvs is Run with cfg.EnvRoot.
func runEnvs(ctx context.Context, cfg Config) (*Report, error) {
	if _, err := dirArg("--env-root", cfg.EnvRoot); err != nil {
		return nil, err
	}
	lock, err := stage.LockDir(cfg.Out)
	if err != nil {
		return nil, err
	}
	committed := false
	defer func() { lock.Release(committed) }()

	set, probs, err := gatherFacts(ctx, cfg.Facts, cfg.PuppetDB, cfg.FactOverrides, nil, nil, cfg.Out)
	if err != nil {
		return nil, err
	}
	set, probs = cfg.Shard.keep(set, probs)
	nodes, src, more, _ := set.compile(func(string) bool { return true }) // every file parsed: none from a state
	probs = append(probs, more...)

	// Nodes by environment; those without one, or of one that is not
	// there, are errors for each.
	groups := map[string][]compiler.Node{}
	for _, n := range nodes {
		f := src[n.Name]
		switch env := f.Environment; {
		case env == "":
			probs = append(probs, diagnostics.Diagnostic{Pos: f.Pos, Node: n.Name,
				Message: fmt.Sprintf("no environment recorded with these facts (%s): --environment-from-facts needs one for every node", f.Format)})
		case !validEnvName.MatchString(env):
			probs = append(probs, diagnostics.Diagnostic{Pos: f.Pos, Node: n.Name,
				Message: fmt.Sprintf("recorded environment %q is not an environment name (lower case letters, digits, _)", env)})
		case !isDir(filepath.Join(cfg.EnvRoot, env)):
			probs = append(probs, diagnostics.Diagnostic{Pos: format.Pos{File: filepath.Join(cfg.EnvRoot, env)}, Node: n.Name,
				Message: fmt.Sprintf("environment %s does not exist in --env-root", env)})
		default:
			groups[env] = append(groups[env], n)
		}
	}
	envs := make([]string, 0, len(groups))
	for env := range groups {
		envs = append(envs, env)
	}
	slices.Sort(envs)

	prot, err := cfg.protector()
	if err != nil {
		return nil, err
	}
	stage.RemoveStale(cfg.Out)
	w := stage.NewWriter(cfg.Out)
	defer w.Discard()
	r := &Report{Environments: len(envs)}
	r.addFacts(probs, cfg.Strict)
	for _, env := range envs {
		r.Nodes += len(groups[env])
		for _, d := range prot.check(nodeNames(groups[env])) {
			r.add(d, cfg.Strict)
		}
	}
	var mu sync.Mutex
	done := 0
	if cfg.Progress != nil {
		cfg.Progress(0, r.Nodes)
	}
	for _, env := range envs {
		ecfg := cfg
		ecfg.Env, ecfg.Environment, ecfg.Modules = filepath.Join(cfg.EnvRoot, env), env, ""
		in, fsys, _, err := ecfg.input()
		if err != nil {
			return nil, err
		}
		in.Nodes = groups[env]
		in.Emit = func(lane int, b *format.Bundle) error {
			mu.Lock()
			r.Keys += len(b.Keys)
			done++
			if cfg.Progress != nil {
				cfg.Progress(done, r.Nodes)
			}
			mu.Unlock()
			p, ok := prot.of(b.Node)
			if !ok {
				return nil // no certificate to seal to: reported
			}
			_, err := w.Stage(lane, b, p)
			return err
		}
		res, err := compiler.Compile(ctx, in)
		if err != nil {
			return nil, err
		}
		r.addStages(res.Stages)
		// No state is kept: the recorder only collects.
		r.collect(res.Diagnostics, fsys, newStateRecorder(&buildState{}), cfg.Strict)
	}
	if r.Errors > 0 && !cfg.KeepGoing {
		return r, nil
	}
	// The state describes one environment's build: none is kept, and the
	// next build into Out is a full one.
	if err := os.Remove(filepath.Join(cfg.Out, StateFileOf(cfg.Shard))); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return r, err
	}
	err = r.commit(w, cfg.Shard.cleanup(set, probs, nil))
	committed = r.wrote()
	if err != nil {
		return r, err
	}
	r.Committed, committed = true, true
	return r, nil
}

func isDir(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.IsDir()
}
