package build

// Facts for a build (package facts reads them, in every shape; package
// puppetdb fetches them). Every node must be known by name (to find those
// to compile again, and certnames given twice), but an incremental build
// must not parse the facts of a fleet to recompile a node: a facts file
// whose path and bytes are those of the last build gives the nodes it
// gave then (the state records them), and is parsed only when one of
// them is compiled again. A facts file whose size and modification time
// are those the last build recorded is not even read: its digest is the
// recorded one, as scanInputs trusts the data's.

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"slices"

	"github.com/hieracc/hieracc/compiler"
	"github.com/hieracc/hieracc/compiler/build/internal/inputfs"
	"github.com/hieracc/hieracc/compiler/diagnostics"
	"github.com/hieracc/hieracc/compiler/facts"
	"github.com/hieracc/hieracc/compiler/facts/puppetdb"
	"github.com/hieracc/hieracc/format"
)

// factsSet is every node of a build, each with the digest of its facts.
type factsSet struct {
	nodes []facts.Node      // every node; Facts is nil for those not parsed yet
	sums  map[string]string // certname -> digest of the file holding its facts ("": none, compiled every time)
	files map[string][]string
	stats map[string]factsStat // facts file path -> its size, time and digest, for the next build
	ovs   []facts.Override
}

// factsStat is what a build recorded of a facts file: when its size,
// modification time and inode are unchanged, so is its digest.
type factsStat struct {
	Size  int64  `json:"s"`
	MTime int64  `json:"m"`           // nanoseconds since 1970
	Ino   uint64 `json:"i,omitempty"` // 0 where unknown
	Sum   string `json:"d"`
}

// factsKeys names the facts files paths as the state does: each by its
// real path (links resolved), relative to out's, so that the same file
// by another spelling (relative, absolute, through a link) is the same,
// a file of another folder under the same spelling (a link switched,
// another working directory) is another, and a workspace moved whole
// keeps its names.
func factsKeys(paths []string, out string) []string {
	base := realPath(out)
	dirs := map[string]string{} // a folder as given -> real
	keys := make([]string, len(paths))
	for i, p := range paths {
		real := ""
		if st, err := os.Lstat(p); err == nil && st.Mode()&os.ModeSymlink != 0 {
			real = realPath(p)
		} else {
			d := filepath.Dir(p)
			rd, ok := dirs[d]
			if !ok {
				rd = realPath(d)
				dirs[d] = rd
			}
			real = filepath.Join(rd, filepath.Base(p))
		}
		keys[i] = real
		if rel, err := filepath.Rel(base, real); err == nil {
			keys[i] = filepath.ToSlash(rel)
		}
	}
	return keys
}

// gatherFacts finds the nodes that cfg's facts paths and PuppetDB (when
// cfg names one) hold. known maps the digest of a facts file to the
// certnames it held at the last build (buildState.FactsFiles): such a
// file is not parsed now; stats are the facts files that build digested
// (buildState.FactsStats, by factsKeys relative to out). err is set when
// PuppetDB cannot be asked.
func gatherFacts(ctx context.Context, args []string, pdb puppetdb.Config, ovs []facts.Override, known map[string][]string, stats map[string]factsStat, out string) (*factsSet, []diagnostics.Diagnostic, error) {
	s := &factsSet{sums: map[string]string{}, files: map[string][]string{}, stats: map[string]factsStat{}, ovs: ovs}
	var probs []diagnostics.Diagnostic
	var paths []string
	if len(args) > 0 {
		paths, probs = facts.Find(args)
	}
	sums := make([]string, len(paths))
	fstats := make([]factsStat, len(paths))
	keys := factsKeys(paths, out)
	forEach(len(paths), func(i int) { fstats[i] = factsSum(paths[i], stats[keys[i]]) })
	for i, st := range fstats {
		sums[i] = st.Sum
		if st.Sum != "" {
			s.stats[keys[i]] = st
		}
	}
	parse := make([]bool, len(paths))
	parsed := make([][]facts.Node, len(paths))
	fprobs := make([][]diagnostics.Diagnostic, len(paths))
	forEach(len(paths), func(i int) {
		if parse[i] = sums[i] == "" || len(known[sums[i]]) == 0; parse[i] {
			parsed[i], fprobs[i] = facts.ReadFile(paths[i])
		}
	})
	var all []facts.Node
	fileOf := map[string]string{} // certname -> digest of its file
	for i, p := range paths {
		probs = append(probs, fprobs[i]...)
		var names []string
		switch {
		case diagnostics.HasErrors(fprobs[i]):
			continue
		case parse[i]:
			for _, n := range parsed[i] {
				names = append(names, n.Certname)
				all = append(all, n)
			}
		default:
			names = known[sums[i]]
			for _, name := range names {
				all = append(all, facts.Node{Certname: name, Pos: format.Pos{File: p}})
			}
		}
		s.files[sums[i]] = names
		for _, name := range names {
			if _, dup := fileOf[name]; !dup {
				fileOf[name] = sums[i]
			}
		}
	}
	isFile := map[string]bool{}
	for _, p := range paths {
		isFile[p] = true
	}
	if pdb.URL != "" {
		fetched, more, err := puppetdb.Fetch(ctx, pdb)
		if err != nil {
			return nil, nil, err
		}
		probs = append(probs, more...)
		all = append(all, fetched...)
	}
	all, more := facts.Unique(all)
	probs = append(probs, more...)
	for _, n := range all {
		if isFile[n.File] {
			s.sums[n.Certname] = fileOf[n.Certname]
		} else {
			s.sums[n.Certname] = "" // from PuppetDB: compiled every time
		}
	}
	s.nodes = all
	return s, probs, nil
}

// certnames lists every node, in order.
func (s *factsSet) certnames() []string {
	names := make([]string, len(s.nodes))
	for i, n := range s.nodes {
		names[i] = n.Certname
	}
	return names
}

// compile returns the nodes want accepts, ready to compile: their files
// parsed if they were not, the overrides applied. src maps each node
// returned to its facts as read.
//
// A file parsed now that does not hold the nodes the last build's state
// said it held, though its bytes are those the state recorded, means the
// state lied (it is damaged): stale is then true, and nothing else
// counts; the caller builds again without the state.
func (s *factsSet) compile(want func(certname string) bool) (nodes []compiler.Node, src map[string]facts.Node, probs []diagnostics.Diagnostic, stale bool) {
	// The files to parse now: those of wanted nodes not parsed yet.
	var todo []string
	seen := map[string]bool{}
	for _, n := range s.nodes {
		if n.Facts == nil && want(n.Certname) && !seen[n.File] {
			seen[n.File] = true
			todo = append(todo, n.File)
		}
	}
	sumOf := map[string]string{} // file -> its digest, as the state gave its nodes
	for _, n := range s.nodes {
		if n.Facts == nil && seen[n.File] {
			sumOf[n.File] = s.sums[n.Certname]
		}
	}
	read := map[string]facts.Node{}
	parsed := make([][]facts.Node, len(todo))
	fprobs := make([][]diagnostics.Diagnostic, len(todo))
	forEach(len(todo), func(i int) { parsed[i], fprobs[i] = facts.ReadFile(todo[i]) })
	for i, file := range todo {
		probs = append(probs, fprobs[i]...)
		var names []string
		for _, n := range parsed[i] {
			read[n.File+"\x00"+n.Certname] = n
			names = append(names, n.Certname)
		}
		if sum := sumOf[file]; sum != "" && !sameNames(names, s.files[sum]) && factsDigest(file) == sum {
			return nil, nil, nil, true
		}
	}
	src = map[string]facts.Node{}
	for _, n := range s.nodes {
		if !want(n.Certname) {
			continue
		}
		if n.Facts == nil {
			var ok bool
			if n, ok = read[n.File+"\x00"+n.Certname]; !ok {
				if !diagnostics.HasErrors(probs) {
					probs = append(probs, diagnostics.Diagnostic{Pos: format.Pos{File: n.File}, Node: n.Certname, Message: "facts file changed during the compile, and no longer holds this node: compile again"})
				}
				continue
			}
		}
		fs, err := facts.Apply(n.Facts, s.ovs)
		if err != nil {
			probs = append(probs, diagnostics.Diagnostic{Pos: n.Pos, Node: n.Certname, Message: err.Error()})
			continue
		}
		src[n.Certname] = n
		n.Facts = fs
		nodes = append(nodes, compiler.NodeOf(n))
	}
	return nodes, src, probs, false
}

// sameNames reports whether a and b hold the same certnames.
func sameNames(a, b []string) bool {
	a, b = slices.Clone(a), slices.Clone(b)
	slices.Sort(a)
	slices.Sort(b)
	return slices.Equal(slices.Compact(a), slices.Compact(b))
}

// factsDigest identifies a facts file by its name and its bytes: the same
// bytes under another name may be another node's facts (a facts hash
// names its node by its file's name), while the folder, however it is
// spelled, does not change them. "" when it cannot be read (it is then
// parsed, and reading it reports why); only a regular file is read.
func factsDigest(p string) string {
	data, err := inputfs.ReadPath(p)
	if err != nil {
		return ""
	}
	h := sha256.New()
	h.Write([]byte(filepath.Base(p)))
	h.Write([]byte{0})
	h.Write(data)
	return hex.EncodeToString(h.Sum(nil))
}

// factsSum digests the facts file p, or gives the digest prev recorded for
// it when its size, modification time (to the nanosecond) and inode are
// prev's: an incremental build of a large fleet then reads none of its
// unchanged facts files. The file is looked at before it is read, so a
// write in between is seen by the next build.
func factsSum(p string, prev factsStat) factsStat {
	st, err := os.Stat(p)
	if err != nil || !st.Mode().IsRegular() {
		return factsStat{Sum: factsDigest(p)} // reading it says why
	}
	fst := statOf(st)
	now := factsStat{Size: fst.Size, MTime: fst.MTime, Ino: fst.Ino}
	if prev.Sum != "" && prev.Size == now.Size && prev.MTime == now.MTime && prev.Ino == now.Ino {
		return prev
	}
	now.Sum = factsDigest(p)
	return now
}
