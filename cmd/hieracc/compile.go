package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"os/signal"
	"path"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strings"
	"sync"
	"time"

	"github.com/hieracc/hieracc/compiler"
	"github.com/hieracc/hieracc/compiler/facts"
	"github.com/hieracc/hieracc/compiler/facts/puppetdb"
	"github.com/hieracc/hieracc/format"
	"golang.org/x/sync/errgroup"
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
	keepGoing, strict, full, envFromFacts  bool
	envRoot                                string
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
	fl.Var(&f.factOverrides, "fact-override", "")
	fl.StringVar(&f.puppetdb.URL, "puppetdb", "", "")
	fl.StringVar(&f.puppetdb.Cert, "puppetdb-cert", "", "")
	fl.StringVar(&f.puppetdb.Key, "puppetdb-key", "", "")
	fl.StringVar(&f.puppetdb.CACert, "puppetdb-cacert", "", "")
	fl.StringVar(&f.puppetdb.Query, "puppetdb-query", "", "")
	fl.StringVar(&f.out, "out", "", "")
	fl.BoolVar(&f.keepGoing, "keep-going", false, "")
	fl.BoolVar(&f.strict, "strict", false, "")
	fl.BoolVar(&f.full, "full", false, "")
	fl.IntVar(&f.jobs, "jobs", 0, "")
	fl.BoolVar(&f.envFromFacts, "environment-from-facts", false, "")
	fl.StringVar(&f.envRoot, "env-root", "", "")
	rest, code, ok := parseFlags(c, fl, args)
	if !ok {
		return code
	}
	// Arguments that are not flags are facts paths too, so that
	// `--facts nodes/*.yaml` works after the shell expands it.
	f.facts = append(f.facts, rest...)
	switch {
	case f.envFromFacts && (f.env != "" || f.modules != "" || f.envRoot == ""):
		return c.usageError("--environment-from-facts takes --env-root DIR (a folder of environments), instead of --env and --modules")
	case !f.envFromFacts && f.envRoot != "":
		return c.usageError("--env-root goes with --environment-from-facts")
	case !f.envFromFacts && f.env == "":
		return c.usageError("--env is required: the environment folder (with hiera.yaml, data/, modules/)")
	case len(f.facts) == 0 && f.puppetdb.URL == "":
		return c.usageError("--facts or --puppetdb is required: where the nodes' facts are")
	case f.puppetdb.URL == "" && (f.puppetdb.Query != "" || f.puppetdb.Cert != "" || f.puppetdb.Key != "" || f.puppetdb.CACert != ""):
		return c.usageError("--puppetdb-query, --puppetdb-cert, --puppetdb-key and --puppetdb-cacert need --puppetdb URL")
	case f.out == "":
		return c.usageError("--out is required: the folder the bundles are written to")
	case f.jobs < 0:
		return c.usageError("--jobs must be 0 (one per CPU) or more, not %d", f.jobs)
	case f.environment == "":
		return c.usageError("--environment must not be empty")
	}
	overrides, err := parseOverrides(f.factOverrides)
	if err != nil {
		return c.usageError("%v", err)
	}
	if f.envFromFacts {
		if _, err := dirArg("--env-root", f.envRoot); err != nil {
			return c.usageError("%v", err)
		}
	}

	// A compile allocates much and keeps little (each node's results are
	// written and dropped): collecting half as often as Go's default saves
	// ~10% of a fleet's compile for ~30% more peak memory (reference
	// fleet: 1.2 GB). GOGC, when set, still rules.
	if _, set := os.LookupEnv("GOGC"); !set {
		debug.SetGCPercent(200)
	}
	if f.envFromFacts {
		return runCompileEnvs(c, &f, overrides)
	}

	start := time.Now()
	in, fsys, err := f.input()
	if err != nil {
		c.errorf("%v", err)
		return exitFail
	}
	// Incremental: when OUT holds an earlier compile of the same inputs but
	// for a few files, recompile only the nodes those files (or their
	// facts) reach (see incremental.go).
	var prev *buildState
	if !f.full {
		prev = loadState(f.out)
	}
	files, stats, err := scanInputs(fsys, prev)
	if err != nil {
		c.errorf("%v", err)
		return exitFail
	}
	cur := &buildState{Version: stateVersion, Binary: binaryDigest(), Files: files, Stats: stats,
		Settings: fmt.Sprintf("environment=%s;modules=%s;global=%s", f.environment, in.ModulesDir, in.GlobalDir)}
	if len(f.factOverrides) > 0 {
		cur.Settings += ";fact-override=" + strings.Join(f.factOverrides, "\x00")
	}
	// Facts: every node by name; a facts file unchanged since the last
	// compile (by the same hieracc) is parsed only if one of its nodes is
	// compiled again.
	var known map[string][]string
	if prev != nil && prev.Binary == cur.Binary {
		known = prev.FactsFiles
	}
	set, factProbs, err := gatherFacts(f.facts, f.puppetdb, overrides, known)
	if err != nil {
		c.errorf("%v", err)
		return exitFail
	}
	cur.FactsFiles = set.files
	certnames, factSums := set.certnames(), set.sums
	dirty, full := prev.changedNodes(cur, certnames, factSums)
	var unchanged []string
	if !full {
		intact := make([]bool, len(certnames))
		forEach(len(certnames), func(i int) {
			intact[i] = !dirty[certnames[i]] && bundleIntact(f.out, certnames[i])
		})
		for i, name := range certnames {
			if !dirty[name] && !intact[i] {
				dirty[name] = true // missing or damaged: compile it again
			}
			if !dirty[name] {
				unchanged = append(unchanged, name)
			}
		}
	}
	nodes, moreProbs := set.compile(func(name string) bool { return full || dirty[name] })
	factProbs = append(factProbs, moreProbs...)
	in.Nodes = nodes
	rec := newStateRecorder(cur)

	// Temporary files of runs that were killed go first.
	removeStaleTemps(f.out)

	// Bundles are written as they are produced, so a fleet never has to
	// fit in memory; each records the revision of its own inputs.
	w := &bundleWriter{out: f.out}
	defer w.discard() // whatever was not committed
	keys := 0
	var keysMu sync.Mutex
	in.Emit = func(b *format.Bundle) error {
		keysMu.Lock()
		keys += len(b.Keys)
		keysMu.Unlock()
		rec.record(b, factSums[b.Node])
		return w.stage(b)
	}

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	res, err := compiler.Compile(ctx, in)
	if err != nil {
		c.errorf("%v", err)
		return exitFail
	}

	// Report. Every message names files the way the user typed them.
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
		fmt.Fprintln(c.stderr, p.String())
	}
	for _, d := range res.Diagnostics {
		count(d.Severity == compiler.Error)
		file := d.File
		d.File = fsys.display(d.File)
		fmt.Fprintln(c.stderr, d.String())
		rec.diag(d.Node, diagLine{Error: d.Severity == compiler.Error, File: file, Text: d.String()})
	}
	if !full {
		// What the nodes not recompiled reported last time still holds.
		for _, d := range rec.keep(prev, unchanged) {
			count(d.Error)
			fmt.Fprintln(c.stderr, d.Text)
		}
	}
	errText := plural(errs, "error")
	if promoted > 0 {
		errText += fmt.Sprintf(" (%d from warnings, --strict)", promoted)
	}
	summary := fmt.Sprintf("%s, %s, %s, %s", plural(len(in.Nodes), "node"), plural(keys, "key"), errText, plural(warns, "warning"))
	if !full {
		summary = fmt.Sprintf("%s compiled (incremental: %d unchanged), %s, %s, %s",
			plural(len(in.Nodes), "node"), len(unchanged), plural(keys, "key"), errText, plural(warns, "warning"))
	}
	if errs > 0 && !f.keepGoing {
		fmt.Fprintf(c.stdout, "hieracc compile: %s in %s; nothing written (--keep-going writes bundles anyway)\n", summary, since(start))
		return exitFail
	}

	// From the first rename until the new state is written, the old state
	// does not describe the bundles in OUT: a run killed in between must
	// leave none, so that the next run compiles every node again.
	if err := os.Remove(filepath.Join(f.out, stateFile)); err != nil && !errors.Is(err, fs.ErrNotExist) {
		c.errorf("%v", err)
		return exitFail
	}
	n, err := w.commit()
	if err != nil {
		c.errorf("%v", err)
		return exitFail
	}
	if err := rec.write(f.out); err != nil {
		c.errorf("%v", err)
		return exitFail
	}
	fmt.Fprintf(c.stdout, "hieracc compile: %s in %s; wrote %s to %s\n", summary, since(start), plural(n, "bundle"), f.out)
	if errs > 0 {
		return exitFail
	}
	return exitOK
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

// input maps the folders named on the command line into one inputFS and
// builds the compiler's Input over it.
func (f *compileFlags) input() (compiler.Input, *inputFS, error) {
	in := compiler.Input{EnvDir: "env", Environment: f.environment, Jobs: f.jobs}
	envAbs, err := dirArg("--env", f.env)
	if err != nil {
		return in, nil, err
	}
	mounts := []mount{{name: "env", real: f.env, fsys: dirFS(f.env), display: filepath.Clean(f.env)}}

	// place gives a folder its name inside the FS: under env/ when it lies
	// inside the environment, else its own mount.
	place := func(flagName, dir, abs string) string {
		if rel, err := filepath.Rel(envAbs, abs); err == nil && filepath.IsLocal(rel) {
			return path.Join("env", filepath.ToSlash(rel))
		}
		mounts = append(mounts, mount{name: flagName, real: dir, fsys: dirFS(dir), display: filepath.Clean(dir)})
		return flagName
	}

	if f.modules != "" {
		abs, err := dirArg("--modules", f.modules)
		if err != nil {
			return in, nil, err
		}
		in.ModulesDir = place("modules", f.modules, abs)
	} // else the compiler uses env/modules when present

	if f.global != "" {
		st, err := os.Stat(f.global)
		if err != nil {
			return in, nil, fmt.Errorf("--global: %w", cleanPathErr(err))
		}
		confdir, file := f.global, ""
		if !st.IsDir() {
			confdir, file = filepath.Dir(f.global), f.global
		}
		abs, err := filepath.Abs(confdir)
		if err != nil {
			return in, nil, fmt.Errorf("--global: %w", err)
		}
		in.GlobalDir = place("global", confdir, abs)
		// The compiler reads CONFDIR/hiera.yaml; a config file with
		// another name (Puppet's hiera_config) is shown there.
		if file != "" && filepath.Base(file) != "hiera.yaml" {
			mounts = append(mounts, mount{name: path.Join(in.GlobalDir, "hiera.yaml"), real: file, isFile: true, display: filepath.Clean(file)})
		}
	}
	fsys := newInputFS(mounts)
	in.FS = fsys
	return in, fsys, nil
}

// dirArg checks that a flag names a folder and returns its absolute path.
func dirArg(flagName, dir string) (string, error) {
	st, err := os.Stat(dir)
	if err != nil {
		return "", fmt.Errorf("%s: %w", flagName, cleanPathErr(err))
	}
	if !st.IsDir() {
		return "", fmt.Errorf("%s %s: not a folder", flagName, dir)
	}
	return filepath.Abs(dir)
}

func isDir(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.IsDir()
}

// cleanPathErr keeps "stat x: no such file or directory" readable.
func cleanPathErr(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return fmt.Errorf("%s: %w", pe.Path, pe.Err)
	}
	return err
}

// parseOverrides reads the --fact-override flags.
func parseOverrides(args []string) ([]facts.Override, error) {
	var ovs []facts.Override
	for _, a := range args {
		o, err := facts.ParseOverride(a)
		if err != nil {
			return nil, err
		}
		ovs = append(ovs, o)
	}
	return ovs, nil
}

// writeBundles writes OUT/<node>.bundle for every bundle, each whole or not
// at all (see bundleWriter).
func writeBundles(out string, bundles []*format.Bundle) error {
	w := &bundleWriter{out: out}
	defer w.discard()
	for _, b := range bundles {
		if err := w.stage(b); err != nil {
			return err
		}
	}
	_, err := w.commit()
	return err
}

// bundleWriter writes bundles so that each appears whole or not at all, and
// a failed run changes nothing: stage encodes a bundle into a temporary
// file as soon as it is compiled (safe for concurrent use); commit makes
// them all durable at once, then renames them over the old ones; discard
// removes what was not committed.
//
// The temporary files go to staging folders in OUT, one per concurrent
// writer: creating thousands of files in one folder from several threads
// makes them wait on the folder and search the same inode tables (on
// ext4, about a third of a full compile's system time); ext4 places a new
// folder in another block group, and its writer has it to itself.
type bundleWriter struct {
	out      string
	mu       sync.Mutex
	staged   []staged
	dirs     []string // staging folders
	dirOnce  sync.Once
	dirErr   error
	created  bool      // OUT did not exist: discard removes it again
	encoders sync.Pool // of *encoderBuf
}

type staged struct{ tmp, dst string }

// encoderBuf is an encoder with the buffer it reuses, and the staging
// folder of the writer that holds it.
type encoderBuf struct {
	enc *format.Encoder
	buf []byte
	dir string
}

// mkdir creates OUT when the first bundle is staged, so a run that fails
// before leaves no trace.
func (w *bundleWriter) mkdir() error {
	w.dirOnce.Do(func() {
		if _, err := os.Stat(w.out); os.IsNotExist(err) {
			w.created = true
		}
		if err := os.MkdirAll(w.out, 0o750); err != nil {
			w.dirErr = fmt.Errorf("--out: %v", cleanPathErr(err))
		}
	})
	return w.dirErr
}

func (w *bundleWriter) stage(b *format.Bundle) error {
	if err := w.mkdir(); err != nil {
		return err
	}
	// Encoders remember what earlier bundles shared (values, whole keys),
	// so each concurrent caller takes one from the pool with its buffer.
	enc, _ := w.encoders.Get().(*encoderBuf)
	if enc == nil {
		enc = &encoderBuf{enc: format.NewEncoder()}
	}
	defer w.encoders.Put(enc)
	var err error
	enc.buf, err = enc.enc.Append(enc.buf[:0], b)
	if err != nil {
		return fmt.Errorf("encoding the bundle of %s: %v; nothing written", b.Node, err)
	}
	if enc.dir == "" {
		dir, err := os.MkdirTemp(w.out, ".stage"+tempSuffix())
		if err != nil {
			return fmt.Errorf("--out: %v", cleanPathErr(err))
		}
		w.mu.Lock()
		w.dirs = append(w.dirs, dir)
		w.mu.Unlock()
		enc.dir = dir
	}
	name := b.Node + ".bundle"
	tmp := filepath.Join(enc.dir, name)
	// Not synced one by one: a sync per file costs a disk flush each
	// (18 s of a 57 s compile of 10,000 nodes); commit syncs them together.
	f, err := os.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o640)
	if err == nil {
		err = fill(f, enc.buf, false)
	}
	if err != nil {
		os.Remove(tmp)
		return err
	}
	w.mu.Lock()
	w.staged = append(w.staged, staged{tmp, filepath.Join(w.out, name)})
	w.mu.Unlock()
	return nil
}

func (w *bundleWriter) commit() (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	// Every bundle's bytes are on disk before any rename: after a power
	// failure OUT holds old bundles or new ones, never an empty one.
	if len(w.staged) > 0 {
		tmps := make([]string, len(w.staged))
		for i, s := range w.staged {
			tmps[i] = s.tmp
		}
		if err := syncFiles(w.out, tmps); err != nil {
			return 0, fmt.Errorf("--out: syncing the new bundles: %v; nothing written", cleanPathErr(err))
		}
	}
	for i, s := range w.staged {
		if err := os.Rename(s.tmp, s.dst); err != nil {
			w.staged = w.staged[i:]
			return i, fmt.Errorf("%v (%d of %d bundles written)", err, i, i+len(w.staged))
		}
	}
	n := len(w.staged)
	w.staged = nil
	for _, dir := range w.dirs {
		os.Remove(dir) // empty now
	}
	w.dirs = nil
	// Make the renames durable too.
	if d, err := os.Open(w.out); err == nil {
		_ = d.Sync() // not supported everywhere; the files themselves are synced
		d.Close()
	}
	return n, nil
}

func (w *bundleWriter) discard() {
	w.mu.Lock()
	defer w.mu.Unlock()
	for _, s := range w.staged {
		os.Remove(s.tmp)
	}
	for _, dir := range w.dirs {
		os.Remove(dir)
	}
	if w.created && (len(w.staged) > 0 || len(w.dirs) > 0) {
		os.Remove(w.out) // only if empty: never a bundle of an earlier run
	}
	w.staged, w.dirs = nil, nil
}

// writeAtomic writes data to dst through a synced temporary file.
func writeAtomic(dst string, data []byte) error {
	tmp, err := writeTemp(dst, data, true)
	if err != nil {
		return err
	}
	if err := os.Rename(tmp, dst); err != nil {
		os.Remove(tmp)
		return err
	}
	return nil
}

// writeTemp writes data to a temporary file beside dst, mode 0640, synced
// if asked, and returns its name.
func writeTemp(dst string, data []byte, sync bool) (name string, err error) {
	tmp, err := os.CreateTemp(filepath.Dir(dst), tempPattern(dst))
	if err != nil {
		return "", err
	}
	if err := fill(tmp, data, sync); err != nil {
		os.Remove(tmp.Name())
		return "", err
	}
	return tmp.Name(), nil
}

// fill writes data to a new file, mode 0640, and closes it: synced if
// asked, else with its writeback started.
func fill(f *os.File, data []byte, sync bool) error {
	// Bundles carry whatever secrets the data holds: owner and group only.
	err := f.Chmod(0o640)
	if err == nil {
		_, err = f.Write(data)
	}
	if err == nil && sync {
		err = f.Sync()
	} else if err == nil {
		startWriteback(f)
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// fsyncEach syncs each file to disk.
func fsyncEach(files []string) error {
	for _, name := range files {
		f, err := os.Open(name)
		if err != nil {
			return err
		}
		err = f.Sync()
		f.Close()
		if err != nil {
			return err
		}
	}
	return nil
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
