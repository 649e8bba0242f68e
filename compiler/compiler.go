package compiler

import (
	"context"
	"io/fs"
	"path"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/hieracc/hieracc/compiler/diagnostics"
	"github.com/hieracc/hieracc/compiler/internal/share"
	"github.com/hieracc/hieracc/format"
	"golang.org/x/sync/errgroup"
)

// Input is one compile: a control repo and the nodes to compile for.
type Input struct {
	// FS holds the inputs; all paths below are slash-separated paths
	// inside it. A data file it cannot read because a symbolic link leads
	// out of it (fs.ReadLinkFS shows where) is read as the server path the
	// link names (outside.go). An FS that follows such links (os.DirFS)
	// is read where they lead: compiler/build gives one that does not.
	FS         fs.FS
	EnvDir     string // environment folder: hiera.yaml, data/, modules/
	ModulesDir string // "" = EnvDir/modules
	// GlobalDir is Puppet's $confdir: GlobalDir/hiera.yaml, or Puppet's
	// default global config when that file is absent. "" = no global layer.
	GlobalDir   string
	Environment string // "" = "production"
	// Mounts supply folders of the Puppet server's disk that hierarchies
	// name by absolute paths (outside.go); other such paths are absent.
	Mounts []Mount
	// Revision, when set, is recorded in every bundle; when empty (the
	// usual case) each bundle records a digest of exactly its own inputs.
	Revision string
	// SourceRevision, when set, names the source compiled (a git commit)
	// in every bundle, for people; it changes no value.
	SourceRevision string
	Nodes          []Node
	Jobs           int // nodes compiled in parallel; 0 = GOMAXPROCS

	// Emit, when set, receives each node's bundle as soon as it is
	// compiled, and Result.Bundles stays nil: a fleet's bundles need not
	// fit in memory. It is called from every worker concurrently, in no
	// particular order, so encoding and writing run in parallel too. lane
	// is the worker that compiled b, from 0 to the number of workers less
	// one: a worker's bundles come one after the other, each sharing most
	// of what the last held, so a caller that keeps what it needs per lane
	// (an encoder) saves most, and needs no identity of memory for it. The
	// bundle is Emit's only during the call: its Keys' memory is reused
	// for the next node (values are never modified, and may be kept), and
	// Emit must not write in it (the next node finds there the keys it
	// shares with this one). Once Emit returns, the Bundle is emptied, so
	// that a caller that kept it finds no keys rather than another node's. An error from Emit stops the compile and is
	// returned by Compile.
	Emit func(lane int, b *format.Bundle) error

	// PKCS7PrivateKey and PKCS7PublicKey, when set, are the keys of every
	// eyaml level (as eyaml's --pkcs7-private-key and --pkcs7-public-key),
	// whatever its options name.
	PKCS7PrivateKey, PKCS7PublicKey *KeyFile
	// ReadKeyFile reads a key file an eyaml level's options name by an
	// absolute path; nil means os.ReadFile.
	ReadKeyFile func(path string) ([]byte, error)

	// RubyBackends, when set, runs the levels whose function is Ruby code
	// (a custom data_hash, lookup_key or data_dig; rubybackends.go); nil
	// fails their lookups with Puppet's "Unable to find" (backends.go).
	// RubyKeys are keys a lookup_key or data_dig function is asked besides
	// those the data files name (--keys FILE).
	RubyBackends RubyBackend
	RubyKeys     []string

	// NoSharing compiles every node on its own: no result, hierarchy
	// expansion or lookup_options of one node is reused for another
	// (package compiler/internal/share). The bundles are
	// byte-identical, the compile slower: a debugging switch, to tell a
	// bug of Hiera's rules from one of the sharing (share_test.go proves
	// the two equal).
	NoSharing bool

	// workerDone, a test switch (share_test.go), when set, sees each
	// worker when its compile is done.
	workerDone func(*worker)
}

// Node is one node to compile.
type Node struct {
	Name   string       // certname
	Facts  *format.Hash // the node's facts
	Source string       // facts file, for messages
	// Trusted is $trusted as the facts' source recorded it (PuppetDB's,
	// with certificate extensions); nil derives it from the certname, as
	// for a node without extensions.
	Trusted *format.Hash
}

// Result is a compile's outcome.
type Result struct {
	Bundles     []*format.Bundle         // one per node, in Input.Nodes order
	Diagnostics []diagnostics.Diagnostic // every error and warning, sorted
	// Stages says where the compile's time went: reading the
	// configurations, then each stage of the per-node pipeline (node.go's
	// nodeStages), in order, summed over the nodes (and so over workers
	// running in parallel).
	Stages []StageTime
}

// StageTime is the time a compile spent in one stage.
type StageTime struct {
	Name string
	Time time.Duration
}

// Errors counts the error diagnostics.
func (r *Result) Errors() int {
	n := 0
	for _, d := range r.Diagnostics {
		if d.Severity == diagnostics.Error {
			n++
		}
	}
	return n
}

// compilation is what every node of one compile shares.
type compilation struct {
	fsys        fs.FS
	envDir      string
	mounts      []Mount
	environment string
	revision    string
	sourceRev   string // Input.SourceRevision
	global, env *config
	modules     map[string]*config // by module name
	moduleNames []string           // sorted
	files       fileCache
	keys        *keyring                 // eyaml levels' keys
	diags       []diagnostics.Diagnostic // config-level diagnostics
	// inputs are the folders of the layers (EnvDir, ModulesDir, GlobalDir):
	// a layer reads only inside the one it comes from (see layerTop).
	inputs []string
	// entries caches entryPos, which parses a file again: explanations
	// ask it for every key that has lookup_options.
	entries sync.Map // path → *entryPositions
	// fileIDs numbers the compile's data files (dataFile.id).
	fileIDs atomic.Uint32

	// Ruby levels (rubybackends.go): the backend, the keys asked of
	// lookup_key and data_dig functions, and the compile's context.
	ruby      RubyBackend
	rubyKeys  rubyKeys
	extraKeys []string
	ctx       context.Context

	// links caches linkOutOf: FS path → *linkOut (nil: none).
	links sync.Map
}

// validModuleName is Puppet's rule for module folder names.
var validModuleName = regexp.MustCompile(`^[a-z][a-z0-9_]*$`)

// Compile compiles every node of in. Failures of individual keys, files or
// layers are recorded in the bundles and reported as diagnostics; Compile
// itself fails only when the context is cancelled.
func Compile(ctx context.Context, in Input) (*Result, error) {
	t0 := time.Now()
	c := prepare(in)
	c.ctx = ctx
	res := &Result{Stages: []StageTime{{Name: "configs", Time: time.Since(t0)}}}
	for _, st := range nodeStages {
		res.Stages = append(res.Stages, StageTime{Name: st.name})
	}
	var stagesMu sync.Mutex
	if in.Emit == nil {
		res.Bundles = make([]*format.Bundle, len(in.Nodes))
	}
	nodeDiags := make([][]diagnostics.Diagnostic, len(in.Nodes))

	jobs := in.Jobs
	if jobs <= 0 {
		jobs = runtime.GOMAXPROCS(0)
	}
	jobs = min(jobs, max(len(in.Nodes), 1))
	// Each worker takes the next run of nodes (the nodes of one slice,
	// share.Runs) and keeps its own caches, so nodes share work without
	// locks (package compiler/internal/share).
	runs := c.compileRuns(in.Nodes, jobs)
	var next atomic.Int64
	g, gctx := errgroup.WithContext(ctx)
	for lane := range jobs {
		g.Go(func() error {
			w := newWorker()
			w.share.ReuseKeys = in.Emit != nil
			w.share.Off = in.NoSharing
			var order []int // the run being compiled, in the order sortRun gives
			for {
				r := int(next.Add(1) - 1)
				if r >= len(runs) {
					stagesMu.Lock()
					for i, d := range w.stageTime {
						res.Stages[1+i].Time += d
					}
					stagesMu.Unlock()
					if in.workerDone != nil {
						in.workerDone(w)
					}
					return nil
				}
				order = append(order[:0], runs[r]...)
				w.share.StartRun()
				for k, i := range order {
					if share.ResortAt(k) {
						// Before the run's first node, and again after a
						// few: a worker learns its variables, and which
						// are per-node, from the nodes it compiles.
						w.sortRun(in.Nodes, order[k:])
						i = order[k]
					}
					if err := gctx.Err(); err != nil {
						return err
					}
					b, ds := c.compileNode(w, in.Nodes[i])
					nodeDiags[i] = ds
					if in.Emit == nil {
						res.Bundles[i] = b
						continue
					}
					if err := in.Emit(lane, b); err != nil {
						return err
					}
					w.share.KeepKeys(b.Keys)
					// The bundle was Emit's during the call only: a caller
					// that kept it finds it empty, rather than keys the next
					// node writes over.
					*b = format.Bundle{}
				}
			}
		})
	}
	if err := g.Wait(); err != nil {
		return nil, err
	}

	ds := slices.Clone(c.diags)
	for _, nd := range nodeDiags {
		ds = append(ds, nd...)
	}
	for _, e := range c.files.entries {
		if e.df != nil {
			ds = append(ds, e.df.diags...)
		}
	}
	ds = append(ds, c.files.released...)
	res.Diagnostics = diagnostics.Sort(ds)
	return res, nil
}

// layerTop is the folder a layer rooted at root may read in: the outermost
// input folder holding root. A path that leaves it would, in the input FS,
// reach another input (the environment's "../global" is the --global
// folder there), which is not what the same path names on disk.
func (c *compilation) layerTop(root string) string {
	top := ""
	for _, dir := range c.inputs {
		if inside(root, dir) && (top == "" || len(dir) < len(top)) {
			top = dir
		}
	}
	if top == "" {
		return root
	}
	return top
}

// inside reports whether the slash path p is dir or lies below it.
func inside(p, dir string) bool {
	return dir == "." || p == dir || strings.HasPrefix(p, dir+"/")
}

// prepare reads every layer's configuration once.
func prepare(in Input) *compilation {
	c := &compilation{
		fsys:        in.FS,
		envDir:      in.EnvDir,
		mounts:      cleanMounts(in.Mounts),
		environment: in.Environment,
		revision:    in.Revision,
		sourceRev:   in.SourceRevision,
		modules:     map[string]*config{},
		files:       fileCache{entries: map[fileKey]*fileEntry{}},
		ruby:        in.RubyBackends,
		extraKeys:   in.RubyKeys,
		ctx:         context.Background(),
	}
	if c.environment == "" {
		c.environment = "production"
	}
	var ds []diagnostics.Diagnostic
	if in.GlobalDir != "" {
		c.global, ds = loadConfig(in.FS, in.GlobalDir, format.LayerGlobal, "")
		c.diags = append(c.diags, ds...)
	}
	c.env, ds = loadConfig(in.FS, in.EnvDir, format.LayerEnvironment, "")
	c.diags = append(c.diags, ds...)

	modDir := in.ModulesDir
	if modDir == "" {
		modDir = path.Join(in.EnvDir, "modules")
	}
	for _, dir := range []string{in.EnvDir, modDir, in.GlobalDir} {
		if dir != "" {
			c.inputs = append(c.inputs, path.Clean(dir))
		}
	}
	entries, _ := fs.ReadDir(in.FS, modDir)
	for _, e := range entries {
		if !e.IsDir() || !validModuleName.MatchString(e.Name()) {
			continue // Puppet ignores folders that are not valid module names
		}
		mc, ds := loadConfig(in.FS, path.Join(modDir, e.Name()), format.LayerModule, e.Name())
		c.diags = append(c.diags, ds...)
		c.modules[e.Name()] = mc
		c.moduleNames = append(c.moduleNames, e.Name())
	}
	slices.Sort(c.moduleNames)
	configs := []*config{c.global, c.env}
	for _, name := range c.moduleNames {
		configs = append(configs, c.modules[name])
	}
	c.keys = newKeyring(in, configs)
	return c
}
