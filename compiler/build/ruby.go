package build

// --ruby-backends=puppet: the levels whose function is Ruby code are run
// with the installed Puppet (compiler/internal/rubybackend), one Ruby
// process for the build. Their answers may change while no input file
// does (a Vault's content), so such a build is always a full one.

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"sync"

	"github.com/hieracc/hieracc/compiler"
	"github.com/hieracc/hieracc/compiler/build/internal/inputfs"
	"github.com/hieracc/hieracc/compiler/internal/rubybackend"
)

// The values of Config.RubyBackends.
const (
	RubyBackendsFail   = "fail"
	RubyBackendsPuppet = "puppet"
)

// startRuby starts the Ruby backend cfg asks for, for the input in over
// the folders roots (input's "name=real folder" list), and reads the keys
// file; stop ends it. With none asked, it does nothing.
func (cfg *Config) startRuby(ctx context.Context, in *compiler.Input, roots []string) (stop func(), err error) {
	stop = func() {}
	switch cfg.RubyBackends {
	case "", RubyBackendsFail:
		if cfg.Keys != "" {
			return stop, fmt.Errorf("--keys goes with --ruby-backends=%s", RubyBackendsPuppet)
		}
		return stop, nil
	case RubyBackendsPuppet:
	default:
		return stop, fmt.Errorf("--ruby-backends must be %s or %s, not %q", RubyBackendsFail, RubyBackendsPuppet, cfg.RubyBackends)
	}
	if cfg.Keys != "" {
		data, err := inputfs.ReadCapped(inputfs.FileFS(cfg.Keys), ".")
		if err != nil {
			return stop, fmt.Errorf("--keys: %w", inputfs.CleanPathErr(err))
		}
		for _, line := range strings.Split(string(data), "\n") {
			if k := strings.TrimSpace(line); k != "" && !strings.HasPrefix(k, "#") {
				in.RubyKeys = append(in.RubyKeys, k)
			}
		}
	}
	rc := rubybackend.Config{Environment: in.Environment}
	for _, r := range roots {
		name, real, ok := strings.Cut(r, "=")
		if !ok || strings.HasPrefix(name, "-") {
			continue // an eyaml key's digest
		}
		rc.Roots = append(rc.Roots, rubybackend.Root{FS: name, Disk: real})
		if name == in.EnvDir {
			rc.EnvDir = real
		}
	}
	modules := in.ModulesDir
	if modules == "" {
		modules = in.EnvDir + "/modules"
	}
	for _, r := range rc.Roots {
		if modules == r.FS {
			rc.ModulePath = []string{r.Disk}
		} else if rest, ok := strings.CutPrefix(modules, r.FS+"/"); ok {
			rc.ModulePath = []string{filepath.Join(r.Disk, filepath.FromSlash(rest))}
		}
	}
	// Puppet's Ruby is found now, and started when a level first needs
	// it: a repository without such a level never waits for Puppet.
	if rc.Ruby, err = rubybackend.FindRuby(); err != nil {
		return stop, err
	}
	l := &lazyRuby{ctx: ctx, cfg: rc}
	in.RubyBackends = l
	return l.close, nil
}

// lazyRuby starts the helper at its first call.
type lazyRuby struct {
	ctx  context.Context
	cfg  rubybackend.Config
	once sync.Once
	p    *rubybackend.Process
	err  error
}

func (l *lazyRuby) Call(ctx context.Context, req rubybackend.Request) (rubybackend.Answer, error) {
	l.once.Do(func() { l.p, l.err = rubybackend.Start(l.ctx, l.cfg) })
	if l.err != nil {
		return rubybackend.Answer{}, l.err
	}
	return l.p.Call(ctx, req)
}

func (l *lazyRuby) close() {
	l.once.Do(func() {}) // no start after this
	if l.p != nil {
		l.p.Close()
	}
}
