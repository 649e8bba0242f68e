package build

// Incremental builds. After each successful compile, OUT holds a state
// file recording what every bundle was built from. The next compile into
// the same OUT recompiles only the nodes whose inputs changed and rewrites
// only their bundles; the result is byte-identical to a full compile,
// because each bundle depends on nothing but its recorded inputs.
//
// The rules are deliberately conservative: anything that could change
// which files a hierarchy names (an added or removed file, a changed
// hiera.yaml), a different hieracc binary or other settings mean a full
// compile. What a run reported is kept too, and printed again for the nodes
// it did not recompile, so an incremental run reports what a full one would.

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"sync"

	"github.com/hieracc/hieracc/compiler/build/internal/inputfs"
	"github.com/hieracc/hieracc/compiler/build/internal/stage"
	"github.com/hieracc/hieracc/compiler/diagnostics"
	"github.com/hieracc/hieracc/compiler/facts"
	"github.com/hieracc/hieracc/format"
)

// stateVersion changes whenever the state's meaning does.
const stateVersion = 9 // 2: facts digested from their files' bytes; 3: file stats; 4: real folders in Settings, bundles' stats; 5: facts files' nodes; 6: facts files' stats; 7: shared details files, bundles' digests; 8: files' inodes, folders relative to OUT, facts files by their real paths and digested with their base names; 9: the folders read apart from Settings

type buildState struct {
	Version  int                  `json:"version"`
	Binary   string               `json:"binary"`   // SHA-256 of the hieracc executable
	Settings string               `json:"settings"` // flags that change every bundle
	Read     string               `json:"read"`     // the real folders read (relative to OUT's)
	Files    map[string]string    `json:"files"`    // input path -> SHA-256
	Stats    map[string]fileStat  `json:"stats"`    // input path -> size and time when hashed
	Paths    []string             `json:"paths"`    // interned dependency paths
	Nodes    map[string]nodeState `json:"nodes"`
	Diags    []diagLine           `json:"diags,omitempty"` // reported for no single node

	// FactsFiles maps the digest of a facts file (its path and bytes) to
	// the certnames it held, so that an unchanged one is not parsed.
	FactsFiles map[string][]string `json:"facts_files,omitempty"`
	// FactsStats records each facts file's size, time and inode with
	// its digest, so that an unchanged one is not even read; by its real
	// path, relative to OUT's (see factsKeys).
	FactsStats map[string]factsStat `json:"facts_stats,omitempty"`
	// Shared are the shared details files the bundles refer to, as
	// written, so that an incremental build knows what the bundles it
	// keeps refer to without reading them, and trusts those files by
	// their stats as it trusts the bundles.
	Shared []sharedState `json:"shared,omitempty"`

	changed map[string]bool // files changed since this state, once compared
	// relocated (of the current build's state) says that Read is not
	// compared: Config.Relocated.
	relocated bool
}

// sharedState is a shared details file in OUT.
type sharedState struct {
	Digest string      `json:"d"` // hex, as in its name
	File   *bundleStat `json:"f,omitempty"`
}

type nodeState struct {
	Facts  string      `json:"facts"` // SHA-256 of the node's facts file, path and bytes; "" from PuppetDB
	Deps   []int       `json:"deps"`  // indexes into Paths: every location its hierarchies name
	Diags  []diagLine  `json:"diags,omitempty"`
	Bundle *bundleStat `json:"bundle,omitempty"` // the bundle file as written
	// Digest is the bundle's (its header's, in hex): a bundle file whose
	// stats changed but that verifies with this digest is the one written.
	Digest string `json:"digest,omitempty"`
	// Shared is 1 + the index in the state's Shared of the shared
	// details file the bundle refers to; 0 when it refers to none.
	Shared int `json:"shared,omitempty"`
}

// sharedRef is the shared details file that ns, of the state s, says its
// bundle refers to; ok is false when s does not say (a damaged state).
func (ns nodeState) sharedRef(s *buildState) (ref stage.Ref, ok bool) {
	if ns.Shared == 0 {
		return stage.Ref{}, true
	}
	if i := ns.Shared - 1; i >= 0 && i < len(s.Shared) {
		if d, ok := parseDigest(s.Shared[i].Digest); ok {
			return stage.Ref{Digest: d, Has: true}, true
		}
	}
	return stage.Ref{}, false
}

// diagLine is a diagnostic as it was printed.
type diagLine struct {
	Error bool   `json:"error,omitempty"`
	File  string `json:"file,omitempty"` // input path, to drop it when the file changes
	Text  string `json:"text"`
	// Diag is the diagnostic as printed (its file named for display), so
	// that a replay groups it with other nodes' like a fresh one.
	Diag *diagnostics.Diagnostic `json:"diag,omitempty"`
}

// scanInputs digests every file of the input tree. A file whose size,
// modification time (to the nanosecond) and inode are those prev recorded
// keeps its recorded digest without being read again, as make and ninja
// trust timestamps: writing a file changes its modification time, and
// another file (another checkout's, a link switched) is another inode,
// whatever its size and time.
//
// A file or folder that cannot be read is no reason to stop: a hierarchy
// may never name it, and when one does, the compiler reports the error for
// the nodes and keys it concerns. Such a file is recorded as unreadable,
// a digest never reused.
func scanInputs(fsys fs.FS, prev *buildState) (files map[string]string, stats map[string]fileStat, err error) {
	files, stats = map[string]string{}, map[string]fileStat{}
	var toHash []string
	err = fs.WalkDir(fsys, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if d == nil || p == "." {
				return inputfs.CleanPathErr(err) // the tree itself
			}
			files[p] = unreadable
			return nil // and, for a folder, not what it holds
		}
		if d.IsDir() {
			if d.Name() == ".git" {
				return fs.SkipDir
			}
			return nil
		}
		var st fs.FileInfo
		switch {
		case d.Type()&fs.ModeSymlink != 0:
			if st, err = fs.Stat(fsys, p); err != nil || !st.Mode().IsRegular() {
				return nil // a link out of the tree, or to a folder: not read
			}
		case d.Type().IsRegular():
			// As listed: os.Root lists a folder with an lstat of each
			// entry relative to it, so asking again would walk the path
			// from the root (an open per folder) for the same answer.
			st, err = d.Info()
		default:
			return nil
		}
		if err != nil {
			files[p] = unreadable
			return nil
		}
		fst := statOf(st)
		stats[p] = fst
		if prev != nil {
			if old, ok := prev.Stats[p]; ok && old == fst && prev.Files[p] != "" && prev.Files[p] != unreadable {
				files[p] = prev.Files[p]
				return nil
			}
		}
		toHash = append(toHash, p)
		return nil
	})
	if err != nil {
		return nil, nil, err
	}
	sums := make([]string, len(toHash))
	errs := make([]error, len(toHash))
	forEach(len(toHash), func(i int) { sums[i], errs[i] = inputfs.HashFile(fsys, toHash[i]) })
	for i, p := range toHash {
		files[p] = sums[i]
		if errs[i] != nil {
			files[p] = unreadable
		}
	}
	return files, stats, nil
}

// unreadable is the digest of a file that could not be read.
const unreadable = "unreadable"

// fileStat is what says a file may have changed since it was hashed.
type fileStat struct {
	Size  int64  `json:"s"`
	MTime int64  `json:"m"`           // nanoseconds since 1970
	Ino   uint64 `json:"i,omitempty"` // 0 where unknown
}

// statOf is the fileStat of st.
func statOf(st fs.FileInfo) fileStat {
	_, ino, _ := changeTime(st)
	return fileStat{Size: st.Size(), MTime: st.ModTime().UnixNano(), Ino: ino}
}

// binaryDigest identifies the running hieracc: another build may compile
// differently, so its bundles are not reused.
func binaryDigest() string {
	exe, err := os.Executable()
	if err != nil {
		return ""
	}
	f, err := os.Open(exe)
	if err != nil {
		return ""
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return ""
	}
	return hex.EncodeToString(h.Sum(nil))
}

// loadState reads the state an earlier build left in out, in the file
// name, or nil: when there is none, or one of another version; and when it
// is damaged (it cannot be read, it does not parse, or it does not hold
// together), with damaged saying why. A damaged state is no dead end: the
// build is a full one, and writes a new state.
func loadState(out, name string) (s *buildState, damaged string) {
	data, err := inputfs.ReadCapped(inputfs.FileFS(filepath.Join(out, name)), ".")
	if errors.Is(err, fs.ErrNotExist) {
		return nil, ""
	}
	if err != nil {
		return nil, "cannot be read: " + inputfs.CleanPathErr(err).Error()
	}
	var v struct {
		Version int `json:"version"`
	}
	if json.Unmarshal(data, &v) == nil && v.Version != stateVersion {
		return nil, "" // another hieracc's: not this one's to judge
	}
	s = new(buildState)
	if err := json.Unmarshal(data, s); err != nil {
		return nil, "does not parse: " + err.Error()
	}
	if why := s.check(); why != "" {
		return nil, why
	}
	return s, ""
}

// check says how the state does not hold together, or "": what
// changedNodes and sharedRef would otherwise take for a node to compile
// again, as if the state were whole.
func (s *buildState) check() string {
	for name, ns := range s.Nodes {
		for _, d := range ns.Deps {
			if d < 0 || d >= len(s.Paths) {
				return fmt.Sprintf("node %s depends on path %d of %d", facts.QuoteName(name), d, len(s.Paths))
			}
		}
		if _, ok := ns.sharedRef(s); !ok {
			return fmt.Sprintf("node %s refers to shared details file %d of %d", facts.QuoteName(name), ns.Shared, len(s.Shared))
		}
	}
	// What facts_files says of a facts file is checked when the file is
	// parsed (factsSet.compile): a node's recorded facts digest folds in
	// its certificate's under --seal-to, so it need not be its file's.
	return ""
}

// changedNodes returns the names of the nodes to recompile, or all=true
// when nothing may be reused.
func (s *buildState) changedNodes(cur *buildState, certnames []string, facts map[string]string) (dirty map[string]bool, all bool) {
	if s == nil || s.Binary == "" || s.Binary != cur.Binary || s.Settings != cur.Settings || s.Read != cur.Read && !cur.relocated || len(s.Files) != len(cur.Files) {
		return nil, true
	}
	changed := map[string]bool{}
	s.changed = changed
	for p, sum := range cur.Files {
		old, ok := s.Files[p]
		if !ok {
			return nil, true // a new file may match a glob or a node's path
		}
		if old != sum {
			if path.Base(p) == "hiera.yaml" {
				return nil, true
			}
			changed[p] = true
		}
	}
	dirty = map[string]bool{}
	for _, name := range certnames {
		prev, ok := s.Nodes[name]
		if !ok || facts[name] == "" || prev.Facts != facts[name] {
			dirty[name] = true
			continue
		}
		for _, d := range prev.Deps {
			if d < 0 || d >= len(s.Paths) {
				return nil, true // a damaged state file
			}
			if changed[s.Paths[d]] {
				dirty[name] = true
				break
			}
		}
	}
	return dirty, false
}

// stateRecorder collects the dependencies of the bundles a run emits.
type stateRecorder struct {
	mu     sync.Mutex
	paths  map[string]int
	shared map[[32]byte]int // index in st.Shared
	staged []string         // the nodes whose bundles were staged
	st     *buildState
}

func newStateRecorder(cur *buildState) *stateRecorder {
	cur.Nodes = map[string]nodeState{}
	return &stateRecorder{paths: map[string]int{}, shared: map[[32]byte]int{}, st: cur}
}

// internShared is nodeState.Shared for ref.
func (r *stateRecorder) internShared(ref stage.Ref) int {
	if !ref.Has {
		return 0
	}
	if i, ok := r.shared[ref.Digest]; ok {
		return i + 1
	}
	r.shared[ref.Digest] = len(r.st.Shared)
	r.st.Shared = append(r.st.Shared, sharedState{Digest: hex.EncodeToString(ref.Digest[:])})
	return len(r.st.Shared)
}

// stagedBundle notes that node's bundle, which record noted, was staged:
// its digest, and which shared details file it refers to.
func (r *stateRecorder) stagedBundle(node string, st stage.Staged) {
	r.mu.Lock()
	defer r.mu.Unlock()
	ns := r.st.Nodes[node]
	ns.Digest = hex.EncodeToString(st.Digest[:])
	ns.Shared = r.internShared(st.Shared)
	r.st.Nodes[node] = ns
	r.staged = append(r.staged, node)
}

func (r *stateRecorder) intern(p string) int {
	if i, ok := r.paths[p]; ok {
		return i
	}
	r.paths[p] = len(r.st.Paths)
	r.st.Paths = append(r.st.Paths, p)
	return r.paths[p]
}

// record notes what a bundle depends on: every location its hierarchies
// name, found or not.
func (r *stateRecorder) record(b *format.Bundle, factsSum string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	var deps []int
	add := func(h *format.Hierarchy) {
		if h == nil {
			return
		}
		for _, l := range h.Levels {
			for _, loc := range l.Locations {
				deps = append(deps, r.intern(loc.Path))
			}
		}
	}
	add(&b.Global)
	add(&b.Env)
	for i := range b.Modules {
		add(&b.Modules[i].Hierarchy)
		add(b.Modules[i].Default)
	}
	slices.Sort(deps)
	r.st.Nodes[b.Node] = nodeState{Facts: factsSum, Deps: slices.Compact(deps)}
}

// diag records a diagnostic this run printed.
func (r *stateRecorder) diag(node string, d diagLine) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if node == "" {
		r.st.Diags = append(r.st.Diags, d)
		return
	}
	ns := r.st.Nodes[node]
	ns.Diags = append(ns.Diags, d)
	r.st.Nodes[node] = ns
}

// keep carries over the entries of nodes this run did not recompile, with
// their bundles as plan found them, and returns the diagnostics to report
// again for them: theirs, and those of unchanged files that this run did
// not read again. display names a file of the input FS as this run's
// flags do (inputfs.FS.Display): a diagnostic is replayed, and recorded,
// naming its file as a fresh one would, however the flags spelled the
// folders when it was first reported.
func (r *stateRecorder) keep(prev *buildState, names []string, kept map[string]keptBundle, display func(string) string) []diagLine {
	var replay []diagLine
	for _, name := range names {
		ns, ok := prev.Nodes[name]
		if !ok {
			continue
		}
		var deps []int
		for _, d := range ns.Deps {
			deps = append(deps, r.intern(prev.Paths[d]))
		}
		k := kept[name]
		diags := redisplay(ns.Diags, display)
		r.st.Nodes[name] = nodeState{Facts: ns.Facts, Deps: deps, Diags: diags, Bundle: k.file, Digest: k.digest, Shared: r.internShared(k.ref)}
		replay = append(replay, diags...)
	}
	seen := map[string]bool{}
	for _, d := range r.st.Diags {
		seen[d.Text] = true
	}
	for _, d := range redisplay(prev.Diags, display) {
		if !seen[d.Text] && !prev.changed[d.File] {
			seen[d.Text] = true
			r.st.Diags = append(r.st.Diags, d)
			replay = append(replay, d)
		}
	}
	return replay
}

// redisplay is ds with each diagnostic's file named by display.
func redisplay(ds []diagLine, display func(string) string) []diagLine {
	if display == nil || len(ds) == 0 {
		return ds
	}
	out := make([]diagLine, len(ds))
	for i, d := range ds {
		if d.Diag != nil && d.File != "" {
			shown := *d.Diag
			shown.File = display(d.File)
			d.Diag, d.Text = &shown, shown.String()
		}
		out[i] = d
	}
	return out
}

// written notes how the bundles staged, and the shared details files the
// bundles refer to, were left in out, so that the next build need not
// read them again to know them intact. A node compiled but not staged
// (no certificate to seal to) has no record: its bundle, if any, is read.
func (r *stateRecorder) written(out string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	stats := make([]*bundleStat, len(r.staged))
	forEach(len(r.staged), func(i int) { stats[i], _ = statBundle(filepath.Join(out, r.staged[i]+".bundle")) })
	for i, name := range r.staged {
		if ns, ok := r.st.Nodes[name]; ok {
			ns.Bundle = stats[i]
			r.st.Nodes[name] = ns
		}
	}
	forEach(len(r.st.Shared), func(i int) {
		if d, ok := parseDigest(r.st.Shared[i].Digest); ok {
			r.st.Shared[i].File, _ = statBundle(sharedPath(out, d))
		}
	})
}

// sharedPath is the path of the shared details file of digest d in out.
func sharedPath(out string, d [32]byte) string {
	return filepath.Join(out, filepath.FromSlash(format.SharedDetailsName(d)))
}

// parseDigest reads a digest in hex, as the state records it.
func parseDigest(hx string) (d [32]byte, ok bool) {
	if len(hx) != 2*len(d) {
		return d, false
	}
	_, err := hex.Decode(d[:], []byte(hx))
	return d, err == nil
}

// write stores the state in OUT, in the file name, atomically.
func (r *stateRecorder) write(out, name string) error {
	data, err := json.Marshal(r.st)
	if err != nil {
		return err
	}
	if err := stage.WriteAtomic(filepath.Join(out, name), data); err != nil {
		return fmt.Errorf("writing %s: %v", name, err)
	}
	return nil
}

// BundlesOfState lists the nodes whose bundles the state file p says its
// build left in the state's folder, sorted; ok is false when p is not a
// state this hieracc reads (damaged, or of another version), which then
// says nothing. A reader of a shard's folder tells with it a folder that
// lost its bundles from one whose shard holds no node.
func BundlesOfState(p string) (nodes []string, ok bool) {
	s, _ := loadState(filepath.Dir(p), filepath.Base(p))
	if s == nil {
		return nil, false
	}
	for name, ns := range s.Nodes {
		if ns.Digest != "" {
			nodes = append(nodes, name)
		}
	}
	slices.Sort(nodes)
	return nodes, true
}
