// Package build compiles a control repo and node facts on disk into a
// folder of bundles: what `hieracc compile` does, less the command line.
//
// Run goes, in order:
//
//	inputs.go  map the folders given into the compiler's file system
//	state.go   digest the inputs; with an earlier build's state in Out,
//	           find the nodes whose inputs changed (incremental builds)
//	facts.go   find every node: the facts files (package facts), unparsed
//	           when the state says which nodes an unchanged one holds, and
//	           PuppetDB (package puppetdb)
//	check.go   compile again the nodes whose bundles are missing or damaged
//	facts.go   parse the facts of the nodes to compile, apply the overrides
//	build.go   compile (compiler.Compile), staging each bundle as it comes;
//	           count what was reported; commit the staged bundles, then the
//	           new state, or nothing when there were errors
//
// With EnvRoot, envs.go compiles each node in the environment its facts
// recorded, always in full.
//
// Run returns a Report and prints nothing: the caller (hieracc compile,
// hieracc diff --git) prints it. Writing is atomic (internal/stage): a run
// that fails or is killed leaves every bundle whole, the old one or the
// new one.
package build

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/hieracc/hieracc/compiler"
	"github.com/hieracc/hieracc/compiler/build/internal/inputfs"
	"github.com/hieracc/hieracc/compiler/build/internal/stage"
	"github.com/hieracc/hieracc/compiler/diagnostics"
	"github.com/hieracc/hieracc/compiler/facts"
	"github.com/hieracc/hieracc/compiler/facts/puppetdb"
	"github.com/hieracc/hieracc/format"
)

// Config is one build: the flags of `hieracc compile`.
type Config struct {
	Env     string // the environment folder (hiera.yaml, data/, modules/)
	Modules string // the modules folder; "" = Env/modules when it exists
	Global  string // Puppet's confdir, or its hiera.yaml; "" = no global layer
	// Mounts supply folders of the Puppet server's disk that hierarchies
	// name by absolute paths: "ABS=DIR", ABS on the server, DIR a local
	// folder. Without one, such a location is absent (with a warning).
	Mounts      []string
	Environment string   // the environment's name; "" = "production"
	Facts       []string // facts files, or folders of them (package facts reads every shape)
	Out         string   // where the bundles go; created when missing

	// PuppetDB, when its URL is set, is asked for nodes too (as well as
	// Facts): a certname from both is an error.
	PuppetDB puppetdb.Config
	// FactOverrides are set on every node's facts, in order
	// (--fact-override).
	FactOverrides []facts.Override
	// EnvRoot, when set, is a folder of environments (r10k's): each node
	// is compiled against EnvRoot/<the environment its facts recorded>,
	// that name as $environment, instead of Env, Modules and Environment.
	// Such a build is always a full one, and keeps no state.
	EnvRoot string

	KeepGoing bool // write the bundles even when there are errors
	Strict    bool // count warnings as errors
	Full      bool // compile every node, even when Out could be updated incrementally
	Jobs      int  // nodes compiled in parallel; 0 = one per CPU
	// NoSharing compiles every node on its own (compiler.Input.NoSharing,
	// --no-share): the same bundles, slower; a debugging switch.
	NoSharing bool

	// PKCS7PrivateKey and PKCS7PublicKey, when set, are the key files of
	// every eyaml level (eyaml's --pkcs7-private-key, --pkcs7-public-key),
	// whatever the levels' options name.
	PKCS7PrivateKey, PKCS7PublicKey string

	// SignKey, when set, is the PEM file of the key every bundle is
	// signed with (Ed25519, ECDSA P-256 or RSA; PKCS#8, or PKCS#1 and
	// SEC1 as Puppet writes them); the certificates that follow the key
	// in the file, or those of SignCert, go with the signature.
	SignKey, SignCert string
	// SealTo, when set, is a folder of node certificates, Puppet's
	// ssl/certs (<certname>.pem, RSA or EC P-256): each node's secret and
	// sensitive keys are sealed to its certificate. A node without one is
	// an error, unless SealMissing is SealMissingPlain.
	SealTo, SealMissing string

	// Shard, when set, limits the build to the nodes of one shard of the
	// fleet (see shard.go); the zero Shard is the whole fleet.
	Shard Shard

	// Revision, when set, is recorded in every bundle instead of the
	// digest of its own inputs (`diff --git` records the commit).
	Revision string

	// Relocated says that Out is a copy of an earlier build's output,
	// whose folders may have been read at other places (another checkout
	// of the same repository, as `diff --git --base-out` compiles): the
	// build is incremental all the same, when the folders hold the same
	// files but for a few. Every input is then read again (the stats the
	// state recorded are other files'), and a file's digest says whether
	// it changed.
	Relocated bool

	// SourceRevision names the source compiled (a git commit) in every
	// bundle compiled; not an input: an incremental compile keeps the
	// bundles whose inputs did not change, with the source revision they
	// were compiled from.
	SourceRevision string

	// RubyBackends says what becomes of the levels whose function is Ruby
	// code (a custom data_hash, lookup_key or data_dig): RubyBackendsFail
	// (or "") fails their lookups as Puppet does when it cannot find the
	// function; RubyBackendsPuppet runs them with the installed Puppet
	// (ruby.go), in a build that is always a full one. Keys, when set, is
	// a file of keys (one a line) that lookup_key and data_dig functions
	// are asked besides those the data files name.
	RubyBackends, Keys string

	// Progress, when set, is called with (0, total) once the build knows
	// how many nodes it compiles, then with the count done after each
	// node, one call at a time.
	Progress func(done, total int)
}

// Report is what a build did, for the caller to print.
type Report struct {
	// Facts are the problems with the nodes' facts, to print before
	// Diagnostics: errors (a file that could not be read or parsed, a
	// certname given twice or that cannot be one; their nodes were not
	// compiled) and warnings (a file in a facts folder that was not read).
	Facts []diagnostics.Diagnostic
	// Diagnostics are the compile's errors and warnings, each file named
	// the way the user named its folder, in the order to print them; those
	// an incremental build replays for the nodes it did not compile again
	// come last. A diagnostic the compiler gave for no node and again for
	// each node it failed is given for those nodes only.
	Diagnostics []diagnostics.Diagnostic

	Nodes        int  // nodes compiled
	Environments int  // with EnvRoot: the environments compiled
	Incremental  bool // an incremental build: only the nodes whose inputs changed were compiled
	Unchanged    int  // nodes an incremental build left as they were
	Keys         int  // keys in the bundles compiled
	Errors       int  // every error (facts included), warnings counted as errors under Strict included
	Promoted     int  // warnings counted as errors (Strict)
	Warnings     int  // warnings that are not errors

	Written int // bundles written into Out; 0 when nothing was
	Removed int // bundles removed from Out: those of nodes (of the shard) whose facts were not given
	// SharedWritten counts the shared details files written into
	// Out/details/ (those Out held already, whole, are kept);
	// SharedRemoved, those removed, which no bundle in Out referred to.
	SharedWritten, SharedRemoved int
	// Committed says whether Out was updated: false when there were
	// errors and not KeepGoing.
	Committed bool
	// Stages says where the compile's time went: compiler.Result.Stages,
	// each stage's time summed over the workers (and over the
	// environments' compiles, with EnvRoot). Empty when nothing was
	// compiled.
	Stages []compiler.StageTime
	// StateDamaged, when set, says that Out's state file was damaged, and
	// how ("out/.hieracc-state.json does not parse: ..."): the build was a
	// full one, and writes a new state. Not a warning counted (--strict
	// would make it a dead end): the caller prints it.
	StateDamaged string
}

// StateFile is the name of the file in Out that records what every bundle
// was built from, for the next incremental build (a shard's is
// StateFileOf(shard)).
const StateFile = ".hieracc-state.json"

// IsTemp reports whether name, in Out, is a temporary file or staging
// folder of a build, which the next build removes once its run is over.
func IsTemp(name string) bool { return stage.IsTemp(name) }

// Run builds cfg. An error means the build could not run or could not
// write Out (what it reported until then is in the Report, when not nil);
// errors in the data are counted in the Report, and leave Out as it was
// unless KeepGoing.
//
// Out is the build's: Run holds a lock on it throughout (another build
// into it fails at once), and removes the bundles of nodes whose facts it
// was not given; a shard's build, only those of nodes of its shard.
func Run(ctx context.Context, cfg Config) (*Report, error) {
	if cfg.EnvRoot != "" {
		if cfg.RubyBackends == RubyBackendsPuppet {
			return nil, fmt.Errorf("--ruby-backends=%s does not work with --environment-from-facts yet", RubyBackendsPuppet)
		}
		return runEnvs(ctx, cfg)
	}
	in, fsys, roots, err := cfg.input()
	if err != nil {
		return nil, err
	}
	stopRuby, err := cfg.startRuby(ctx, &in, roots)
	if err != nil {
		return nil, err
	}
	defer stopRuby()
	if in.RubyBackends != nil {
		cfg.Full = true // answers may change while the inputs do not
	}
	prot, err := cfg.protector()
	if err != nil {
		return nil, err
	}
	stateFile := StateFileOf(cfg.Shard)

	// One build at a time writes into Out, from reading its state to
	// writing the new one.
	lock, err := stage.LockDir(cfg.Out)
	if err != nil {
		return nil, err
	}
	committed := false
	defer func() { lock.Release(committed) }()

	// Incremental: when Out holds an earlier build of the same inputs but
	// for a few files, compile only the nodes those files (or their facts)
	// reach (see state.go).
	var prev *buildState
	var damaged string
	if !cfg.Full {
		prev, damaged = loadState(cfg.Out, stateFile)
	}
	if cfg.Relocated && prev != nil {
		// The files' stats, and the facts files', are those of other
		// copies: every input is read again, and compared by its digest.
		prev.Stats, prev.FactsStats = nil, nil
	}
	roots = relativeRoots(roots, cfg.Out)
	var (
		cur       *buildState
		set       *factsSet
		factProbs []diagnostics.Diagnostic
		sums      map[string]string
		dirty     map[string]bool
		full      bool
		unchanged []string
		kept      map[string]keptBundle
		nodes     []compiler.Node
	)
	for {
		files, stats, err := scanInputs(fsys, prev)
		if err != nil {
			return nil, err
		}
		cur = &buildState{Version: stateVersion, Binary: binaryDigest(), Files: files, Stats: stats,
			Settings: fmt.Sprintf("environment=%s;modules=%s;global=%s;revision=%s",
				cfg.Environment, in.ModulesDir, in.GlobalDir, cfg.Revision) + prot.settings,
			Read: strings.Join(roots, ";"), relocated: cfg.Relocated}
		if in.RubyBackends != nil {
			cur.Settings += ";ruby-backends=" + cfg.RubyBackends
		}
		if len(cfg.FactOverrides) > 0 {
			var texts []string
			for _, o := range cfg.FactOverrides {
				texts = append(texts, o.Text)
			}
			cur.Settings += ";fact-override=" + strings.Join(texts, "\x00")
		}
		// Facts: every node by name; a facts file unchanged since the last
		// build (by the same hieracc) is parsed only if one of its nodes is
		// compiled again.
		var known map[string][]string
		var factsStats map[string]factsStat
		if prev != nil && prev.Binary == cur.Binary {
			known, factsStats = prev.FactsFiles, prev.FactsStats
		}
		set, factProbs, err = gatherFacts(ctx, cfg.Facts, cfg.PuppetDB, cfg.FactOverrides, known, factsStats, cfg.Out)
		if err != nil {
			return nil, err
		}
		cur.FactsFiles, cur.FactsStats = set.files, set.stats
		// A shard compiles its own nodes, and reports the facts problems of
		// its nodes and those whose nodes are not known (they may be its).
		set, factProbs = cfg.Shard.keep(set, factProbs)
		sums = set.sums
		prot.certSums(sums)
		dirty, full, unchanged, kept = plan(cfg.Out, prev, cur, set.certnames(), sums)
		var more []diagnostics.Diagnostic
		var stale bool
		nodes, _, more, stale = set.compile(func(name string) bool { return full || dirty[name] })
		if stale && prev != nil {
			// The state named a facts file's nodes wrongly: it is damaged,
			// and nothing it says is trusted.
			prev, damaged = nil, "names the nodes of a facts file wrongly"
			continue
		}
		factProbs = append(factProbs, more...)
		break
	}
	in.Nodes = nodes
	rec := newStateRecorder(cur)

	// Temporary files of runs that were killed go first.
	stage.RemoveStale(cfg.Out)

	// Bundles are written as they are produced, so a fleet never has to
	// fit in memory; each records the revision of its own inputs.
	w := stage.NewWriter(cfg.Out)
	defer w.Discard() // whatever was not committed
	r := &Report{Nodes: len(in.Nodes), Incremental: !full, Unchanged: len(unchanged)}
	if damaged != "" {
		r.StateDamaged = fmt.Sprintf("%s %s", filepath.Join(cfg.Out, stateFile), damaged)
	}
	r.addFacts(factProbs, cfg.Strict)
	for _, d := range prot.check(nodeNames(in.Nodes)) {
		r.add(d, cfg.Strict)
	}
	var keysMu sync.Mutex
	done := 0
	if cfg.Progress != nil {
		cfg.Progress(0, len(in.Nodes))
	}
	in.Emit = func(lane int, b *format.Bundle) error {
		keysMu.Lock()
		r.Keys += len(b.Keys)
		done++
		if cfg.Progress != nil {
			cfg.Progress(done, len(in.Nodes))
		}
		keysMu.Unlock()
		rec.record(b, sums[b.Node])
		p, ok := prot.of(b.Node)
		if !ok {
			return nil // no certificate to seal to: reported
		}
		st, err := w.Stage(lane, b, p)
		if err != nil {
			return err
		}
		rec.stagedBundle(b.Node, st)
		return nil
	}
	res, err := compiler.Compile(ctx, in)
	if err != nil {
		return nil, err
	}
	r.addStages(res.Stages)

	r.collect(res.Diagnostics, fsys, rec, cfg.Strict)
	if !full {
		// What the nodes not recompiled reported last time still holds.
		r.replay(rec.keep(prev, unchanged, kept, fsys.Display), cfg.Strict)
	}
	if r.Errors > 0 && !cfg.KeepGoing {
		return r, nil
	}

	// From the first rename until the new state is written, the old state
	// does not describe the bundles in Out: a run killed in between must
	// leave none, so that the next run compiles every node again.
	if err := os.Remove(filepath.Join(cfg.Out, stateFile)); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return r, err
	}
	err = r.commit(w, cfg.Shard.cleanup(set, factProbs, refs(kept)))
	committed = r.wrote()
	if err != nil {
		return r, err
	}
	rec.written(cfg.Out)
	if err := rec.write(cfg.Out, stateFile); err != nil {
		return r, err
	}
	if cfg.Shard.N == 0 {
		removeShardStates(cfg.Out)
	}
	r.Committed, committed = true, true
	return r, nil
}

// plan chooses, when prev (the state of the build in out) allows an
// incremental build, the nodes to compile again: those whose facts (sums,
// the digests of their facts files) or data changed, or whose bundle, or
// the shared details file it refers to, is missing or damaged. full says
// every node is to be compiled; kept are the bundles of the others.
func plan(out string, prev, cur *buildState, certnames []string, sums map[string]string) (dirty map[string]bool, full bool, unchanged []string, kept map[string]keptBundle) {
	dirty, full = prev.changedNodes(cur, certnames, sums)
	if full {
		return nil, true, nil, nil
	}
	intact := make([]bool, len(certnames))
	bundles := make([]keptBundle, len(certnames))
	forEach(len(certnames), func(i int) {
		if name := certnames[i]; !dirty[name] {
			bundles[i], intact[i] = checkBundle(out, name, prev.Nodes[name], prev)
		}
	})
	// Each shared details file the bundles kept refer to, checked once.
	recorded := map[[32]byte]*bundleStat{}
	for _, sh := range prev.Shared {
		if d, ok := parseDigest(sh.Digest); ok {
			recorded[d] = sh.File
		}
	}
	var digests [][32]byte
	seen := map[[32]byte]bool{}
	for i, b := range bundles {
		if intact[i] && b.ref.Has && !seen[b.ref.Digest] {
			seen[b.ref.Digest] = true
			digests = append(digests, b.ref.Digest)
		}
	}
	there := make([]bool, len(digests))
	forEach(len(digests), func(i int) { there[i] = sharedKept(out, digests[i], recorded[digests[i]]) })
	for i, d := range digests {
		seen[d] = there[i]
	}
	kept = map[string]keptBundle{}
	for i, name := range certnames {
		if !dirty[name] && (!intact[i] || bundles[i].ref.Has && !seen[bundles[i].ref.Digest]) {
			dirty[name] = true // missing or damaged: compile it again
		}
		if !dirty[name] {
			unchanged = append(unchanged, name)
			kept[name] = bundles[i]
		}
	}
	return dirty, false, unchanged, kept
}

// refs are the shared details files the bundles kept refer to.
func refs(kept map[string]keptBundle) map[string]stage.Ref {
	if kept == nil {
		return nil
	}
	m := make(map[string]stage.Ref, len(kept))
	for name, k := range kept {
		m[name] = k.ref
	}
	return m
}

// commit commits w with c, and counts what it wrote and removed.
func (r *Report) commit(w *stage.Writer, c stage.Cleanup) error {
	res, err := w.Commit(c)
	r.Written, r.Removed, r.SharedWritten, r.SharedRemoved = res.Written, res.Removed, res.SharedWritten, res.SharedRemoved
	return err
}

// wrote reports whether the build changed anything in Out.
func (r *Report) wrote() bool {
	return r.Written > 0 || r.Removed > 0 || r.SharedWritten > 0 || r.SharedRemoved > 0
}

// collect counts and records the compile's diagnostics, every file named
// the way the user typed it.
func (r *Report) collect(ds []diagnostics.Diagnostic, fsys *inputfs.FS, rec *stateRecorder, strict bool) {
	// A diagnostic that the compiler gives for no node in particular (a
	// broken hiera.yaml, a data file that does not parse) and again for
	// each node it fails is printed for those nodes only, not twice.
	perNode := map[diagnostics.Diagnostic]bool{}
	for _, d := range ds {
		if d.Node != "" {
			d.Node = ""
			perNode[d] = true
		}
	}
	for _, d := range ds {
		if d.Node == "" && perNode[d] {
			continue
		}
		file := d.File
		d.File = fsys.Display(d.File)
		if file != "" && d.File != file {
			// Puppet's messages name the file too ("Unable to parse
			// (env/data/x.yaml)"): as the user gave it there as well.
			d.Message = strings.ReplaceAll(d.Message, file, d.File)
		}
		r.add(d, strict)
		shown := d
		rec.diag(d.Node, diagLine{Error: d.Severity == diagnostics.Error, File: file, Text: d.String(), Diag: &shown})
	}
}

// replay reports again what an earlier build reported for what this one
// did not compile again.
func (r *Report) replay(ds []diagLine, strict bool) {
	for _, d := range ds {
		if d.Diag != nil {
			r.add(*d.Diag, strict)
			continue
		}
		// A state written before diagnostics were recorded whole: the
		// message as it was printed.
		sev := diagnostics.Warning
		if d.Error {
			sev = diagnostics.Error
		}
		r.add(diagnostics.Diagnostic{Severity: sev, Message: d.Text}, strict)
	}
}

// addFacts reports the problems with facts.
func (r *Report) addFacts(ps []diagnostics.Diagnostic, strict bool) {
	for _, d := range ps {
		// Its file in Go's quotes when its name holds anything but
		// printable characters (messages never echo raw bytes).
		d.File = facts.QuoteName(d.File)
		r.Facts = append(r.Facts, d)
		r.count(d, strict)
	}
}

// addStages adds a compile's stage times to r.Stages, stage by stage.
func (r *Report) addStages(stages []compiler.StageTime) {
	for _, st := range stages {
		i := slices.IndexFunc(r.Stages, func(s compiler.StageTime) bool { return s.Name == st.Name })
		if i < 0 {
			r.Stages = append(r.Stages, st)
			continue
		}
		r.Stages[i].Time += st.Time
	}
}

// add reports d, a warning counted as an error under strict.
func (r *Report) add(d diagnostics.Diagnostic, strict bool) {
	r.Diagnostics = append(r.Diagnostics, d)
	r.count(d, strict)
}

// count counts d, a warning as an error under strict.
func (r *Report) count(d diagnostics.Diagnostic, strict bool) {
	switch {
	case d.Severity == diagnostics.Error:
		r.Errors++
	case strict:
		r.Errors++
		r.Promoted++
	default:
		r.Warnings++
	}
}
