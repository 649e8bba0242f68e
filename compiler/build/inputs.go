package build

import (
	"crypto/sha256"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"runtime"
	"strings"

	"github.com/hieracc/hieracc/compiler"
	"github.com/hieracc/hieracc/compiler/build/internal/inputfs"
	"golang.org/x/sync/errgroup"
)

// input maps the folders of cfg into one inputfs.FS and builds the
// compiler's Input over it. roots names the real folders (and file) that
// the FS shows, absolute and with symbolic links resolved.
func (cfg *Config) input() (in compiler.Input, fsys *inputfs.FS, roots []string, err error) {
	in = compiler.Input{EnvDir: "env", Environment: cfg.Environment, Jobs: cfg.Jobs, NoSharing: cfg.NoSharing, Revision: cfg.Revision, SourceRevision: cfg.SourceRevision}
	envAbs, err := dirArg("--env", cfg.Env)
	if err != nil {
		return in, nil, nil, err
	}
	mounts := []inputfs.Mount{{Name: "env", Real: cfg.Env, FS: inputfs.DirFS(cfg.Env), Display: filepath.Clean(cfg.Env)}}

	// place gives a folder its name inside the FS: under env/ when it lies
	// inside the environment, else its own mount.
	place := func(flagName, dir, abs string) string {
		if rel, err := filepath.Rel(envAbs, abs); err == nil && filepath.IsLocal(rel) {
			return path.Join("env", filepath.ToSlash(rel))
		}
		mounts = append(mounts, inputfs.Mount{Name: flagName, Real: dir, FS: inputfs.DirFS(dir), Display: filepath.Clean(dir)})
		return flagName
	}

	if cfg.Modules != "" {
		abs, err := dirArg("--modules", cfg.Modules)
		if err != nil {
			return in, nil, nil, err
		}
		in.ModulesDir = place("modules", cfg.Modules, abs)
	} // else the compiler uses env/modules when present

	if cfg.Global != "" {
		st, err := os.Stat(cfg.Global)
		if err != nil {
			return in, nil, nil, fmt.Errorf("--global: %w", inputfs.CleanPathErr(err))
		}
		confdir, file := cfg.Global, ""
		if !st.IsDir() {
			confdir, file = filepath.Dir(cfg.Global), cfg.Global
		}
		abs, err := filepath.Abs(confdir)
		if err != nil {
			return in, nil, nil, fmt.Errorf("--global: %w", err)
		}
		in.GlobalDir = place("global", confdir, abs)
		// The compiler reads CONFDIR/hiera.yaml; a config file with
		// another name (Puppet's hiera_config) is shown there.
		if file != "" && filepath.Base(file) != "hiera.yaml" {
			mounts = append(mounts, inputfs.Mount{Name: path.Join(in.GlobalDir, "hiera.yaml"), Real: file, IsFile: true, Display: filepath.Clean(file)})
		}
	}
	for _, arg := range cfg.Mounts {
		server, dir, ok := strings.Cut(arg, "=")
		if !ok || !path.IsAbs(server) || dir == "" {
			return in, nil, nil, fmt.Errorf("--mount %s: want ABS=DIR, ABS an absolute path on the Puppet server and DIR a local folder", arg)
		}
		server = path.Clean(server)
		if _, err := dirArg("--mount", dir); err != nil {
			return in, nil, nil, err
		}
		name := path.Join("mount", server) // "mount/etc/puppetlabs/puppet"
		for _, m := range in.Mounts {
			if m.Server == server {
				return in, nil, nil, fmt.Errorf("--mount %s: %s is mounted twice", arg, server)
			}
		}
		mounts = append(mounts, inputfs.Mount{Name: name, Real: dir, FS: inputfs.DirFS(dir), Display: filepath.Clean(dir)})
		in.Mounts = append(in.Mounts, compiler.Mount{Server: server, Dir: name})
	}
	// What the state compares: the real folders read (mounts included).
	for _, m := range mounts {
		roots = append(roots, m.Name+"="+realPath(m.Real))
	}
	fsys = inputfs.New(mounts)
	in.FS = fsys
	// eyaml's keys: the files given, else those an eyaml level's options
	// name by an absolute path (the only files read outside the inputs).
	in.ReadKeyFile = func(p string) ([]byte, error) { return inputfs.ReadCapped(inputfs.FileFS(p), ".") }
	for _, k := range []struct {
		flag, file string
		dst        **compiler.KeyFile
	}{{"--pkcs7-private-key", cfg.PKCS7PrivateKey, &in.PKCS7PrivateKey}, {"--pkcs7-public-key", cfg.PKCS7PublicKey, &in.PKCS7PublicKey}} {
		if k.file == "" {
			continue
		}
		data, err := inputfs.ReadPath(k.file)
		if err != nil {
			return in, nil, nil, fmt.Errorf("%s: %w", k.flag, inputfs.CleanPathErr(err))
		}
		*k.dst = &compiler.KeyFile{Name: k.file, Data: data}
		// Other keys, other bundles: an incremental build with other keys
		// compiles every node.
		roots = append(roots, fmt.Sprintf("%s=%x", k.flag, sha256.Sum256(data)))
	}
	return in, fsys, roots, nil
}

// relativeRoots is roots (input's: "name=REAL" for the folders read,
// REAL absolute, and "flag=digest" for the keys) with each REAL made
// relative to the real folder out: what an incremental build's state
// names, so that a folder switched (a link to another checkout) is never
// taken for the one an earlier build read, while a workspace moved whole
// (a CI cache restored at another path) is the same. With no relative
// path (another volume), REAL stays absolute.
func relativeRoots(roots []string, out string) []string {
	base := realPath(out)
	rel := make([]string, len(roots))
	for i, r := range roots {
		rel[i] = r
		name, real, ok := strings.Cut(r, "=")
		if !ok || !filepath.IsAbs(real) {
			continue
		}
		if p, err := filepath.Rel(base, real); err == nil {
			rel[i] = name + "=" + filepath.ToSlash(p)
		}
	}
	return rel
}

// realPath is p, absolute and with symbolic links resolved: the folder an
// incremental build's state names (relative to OUT's, relativeRoots), so
// that another checkout is never taken for the one an earlier build read.
func realPath(p string) string {
	abs, err := filepath.Abs(p)
	if err != nil {
		return p
	}
	if r, err := filepath.EvalSymlinks(abs); err == nil {
		return r
	}
	return abs
}

// dirArg checks that a flag names a folder and returns its absolute path.
func dirArg(flagName, dir string) (string, error) {
	st, err := os.Stat(dir)
	if err != nil {
		return "", fmt.Errorf("%s: %w", flagName, inputfs.CleanPathErr(err))
	}
	if !st.IsDir() {
		return "", fmt.Errorf("%s %s: not a folder", flagName, dir)
	}
	return filepath.Abs(dir)
}

// forEach calls f(0), ..., f(n-1), on every CPU at once: reading and
// parsing thousands of small files is work for all of them.
func forEach(n int, f func(i int)) {
	var g errgroup.Group
	g.SetLimit(runtime.GOMAXPROCS(0))
	for i := range n {
		g.Go(func() error { f(i); return nil })
	}
	_ = g.Wait()
}
