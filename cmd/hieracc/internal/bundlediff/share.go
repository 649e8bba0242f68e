package bundlediff

// Stage: compare a node's two bundles at the cost of what is its own.
//
// Nodes of one slice (role, datacenter, OS...) name the same shared
// details file, and their bundles hold the same view: almost every key's
// value and details are the same for all of them. A node's bundles are
// decoded without their details, the view decoded once for all the
// bundles that hold it (bulk.ViewCache), so that the values the nodes
// share are the same Go values; the keys are compared by value, the
// containers met before looked up in a memo of pairs. Only the keys that
// differ have their details decoded (format.Index.PartialBundle), the
// shared details files decoded once each and only those keys' records
// kept (bulk.SharedCache), and are diffed as before (keyChanges). A node or module error, a failing
// lookup_options entry or anything the fast path cannot read is left to
// the slow path: the node's whole bundles, as before, which also names
// what cannot be read.

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"

	"github.com/hieracc/hieracc/format"
	"github.com/hieracc/hieracc/format/bulk"
)

// maxViews bounds the views kept decoded, maxShared the shared details
// files (the least recently used forgotten first; a role's nodes, which
// sort together, use a few dozen of each), maxMemo a worker's memo of
// values.
const (
	maxViews  = 128
	maxShared = 128
	maxMemo   = 1 << 16
)

// fastPath is off in tests that compare the fast path with the slow.
var fastPath = true

// readHook, when set, sees each bundle file the fast path reads (tests).
var readHook func(file string)

// comparer holds what the nodes of a comparison share.
type comparer struct {
	f      *Filter
	views  *bulk.ViewCache
	shared *bulk.SharedCache
	revs   revisions // each side's source revision
}

func newComparer(f *Filter) *comparer {
	return &comparer{f: f, views: bulk.NewViewCache(maxViews), shared: bulk.NewSharedCache(maxShared)}
}

// records returns the records of the keys named of the shared details
// file that the bundle file x was read from names, beside it (details/),
// decoded; nil when it cannot be read, or x names none.
func (c *comparer) records(file string, x *format.Index, names []string) *format.SharedRecords {
	d, ok := x.SharedDigest()
	if !ok {
		return nil
	}
	p := filepath.Join(filepath.Dir(file), filepath.FromSlash(format.SharedDetailsName(d)))
	recs, err := c.shared.Records(p, d, names)
	if err != nil {
		return nil
	}
	return recs
}

// worker is one goroutine's comparer.
type worker struct {
	*comparer
	memo  map[memoKey]bool // pairs of containers: no difference?
	pairs map[[2]uint64][]slot
	obuf  []byte // the last bundle read of OLD
	nbuf  []byte // of NEW
}

// slot says whether the value at an index of one view (OLD's) is the same
// as the value at index n of another (NEW's): state 1 same, 2 not, 0
// unknown.
type slot struct {
	n     int32
	state uint8
}

// maxPairs bounds the pairs of views a worker remembers.
const maxPairs = 512

// slots are the slots of the pair of views of ox and nx, indexed by ox's
// value indexes; nil when either was read without a view.
func (w *worker) slots(ox, nx *format.Index) []slot {
	oid, olen := w.views.View(ox)
	nid, _ := w.views.View(nx)
	if oid == 0 || nid == 0 {
		return nil
	}
	k := [2]uint64{oid, nid}
	s, ok := w.pairs[k]
	if !ok {
		if len(w.pairs) >= maxPairs {
			clear(w.pairs)
		}
		s = make([]slot, olen)
		w.pairs[k] = s
	}
	return s
}

type memoKey struct {
	sa, sb *any         // two arrays' first elements
	la, lb int          // and their lengths
	ha, hb *format.Hash // or two hashes
}

// firstOf is the address of s's first element, which names its array;
// nil for an empty s.
func firstOf(s []any) *any {
	if len(s) == 0 {
		return nil
	}
	return &s[0]
}

func (c *comparer) worker() *worker {
	return &worker{comparer: c, memo: map[memoKey]bool{}, pairs: map[[2]uint64][]slot{}}
}

// compareNode diffs one node's two bundles; nil when they hold the same
// data (or differ only in keys the filter leaves out). ids are the
// changes' changeIDs.
func (w *worker) compareNode(node, oldFile, newFile string) (cs []Change, ids [][32]byte, err error) {
	if fastPath {
		if cs, ok := w.fast(node, oldFile, newFile); ok {
			return cs, changeIDs(cs), nil
		}
	}
	// The slow path, which also says what is wrong with a bundle.
	oh, err := verify(oldFile, node)
	if err != nil {
		return nil, nil, err
	}
	nh, err := verify(newFile, node)
	if err != nil {
		return nil, nil, err
	}
	w.revs.note(true, oh.SourceRevision)
	w.revs.note(false, nh.SourceRevision)
	if oh.Digest == nh.Digest {
		return nil, nil, nil
	}
	od, err := details(oldFile)
	if err != nil {
		return nil, nil, err
	}
	nd, err := details(newFile)
	if err != nil {
		return nil, nil, err
	}
	cs = diffBundles(od, nd, w.f)
	return cs, changeIDs(cs), nil
}

func changeIDs(cs []Change) [][32]byte {
	ids := make([][32]byte, len(cs))
	for i, c := range cs {
		ids[i] = changeID(c)
	}
	return ids
}

// read reads a bundle file whole into buf, reused from file to file
// (DecodeIndex keeps no reference to it), as format.ReadFileInfo does: a
// file that is not a regular one (a named pipe would block) or that
// changes while it is read is left to the slow path. The file read is st.
func read(file string, buf *[]byte) (data []byte, st os.FileInfo, err error) {
	if readHook != nil {
		readHook(file)
	}
	data, st, err = format.ReadFileInfo(file, *buf)
	if err == nil {
		*buf = data
	}
	return data, st, err
}

// fast compares a node's bundles from their fast parts, and the details
// of the keys that differ. ok is false when it cannot: the slow path then
// does.
//
// Each bundle is read once: equal digests (headers) are then verified on
// the bytes read, different ones decoded, which verifies them too.
func (w *worker) fast(node, oldFile, newFile string) (cs []Change, ok bool) {
	odata, ost, err := read(oldFile, &w.obuf)
	if err != nil {
		return nil, false
	}
	// One file under both names (diff --git --base-out links the bundles
	// a compile kept) is read and verified once.
	files := [][]byte{odata}
	ndata := odata
	if nst, err := os.Stat(newFile); err != nil || !os.SameFile(ost, nst) {
		if ndata, _, err = read(newFile, &w.nbuf); err != nil {
			return nil, false
		}
		files = append(files, ndata)
	}
	oh, oerr := format.ReadHeader(bytes.NewReader(odata))
	nh, nerr := format.ReadHeader(bytes.NewReader(ndata))
	if oerr != nil || nerr != nil || oh.Node != node || nh.Node != node {
		return nil, false
	}
	if oh.Digest == nh.Digest {
		for _, data := range files {
			if _, err := format.Verify(bytes.NewReader(data)); err != nil {
				return nil, false
			}
		}
		w.revs.note(true, oh.SourceRevision)
		w.revs.note(false, nh.SourceRevision)
		return nil, true
	}
	ox, err := bulk.DecodeIndex(odata, w.views)
	if err != nil {
		return nil, false
	}
	nx, err := bulk.DecodeIndex(ndata, w.views)
	if err != nil {
		return nil, false
	}
	w.revs.note(true, oh.SourceRevision)
	w.revs.note(false, nh.SourceRevision)
	if ox.NodeError != nil || nx.NodeError != nil || len(ox.ModuleErrors) > 0 || len(nx.ModuleErrors) > 0 {
		return nil, false
	}
	if w.f.wantsKey("lookup_options") && len(diffOptionErrors(optionErrorsOf(ox.Options), optionErrorsOf(nx.Options))) > 0 {
		return nil, false
	}
	opos, npos, differ := w.differingKeys(ox, nx)
	orecs, nrecs := w.records(oldFile, ox, namesAt(ox, opos)), w.records(newFile, nx, namesAt(nx, npos))
	for _, side := range []struct {
		x    *format.Index
		recs *format.SharedRecords
	}{{ox, orecs}, {nx, nrecs}} {
		if _, ok := side.x.SharedDigest(); ok && side.recs == nil {
			return nil, false // missing or damaged: the slow path says so
		}
	}
	if len(differ) == 0 {
		return nil, true
	}
	ob, err := ox.PartialBundle(opos, orecs)
	if err != nil {
		return nil, false
	}
	nb, err := nx.PartialBundle(npos, nrecs)
	if err != nil {
		return nil, false
	}
	for _, p := range differ {
		var o, n *format.Key
		if p.o >= 0 {
			o = &ob.Keys[p.o]
		}
		if p.n >= 0 {
			n = &nb.Keys[p.n]
		}
		cs = append(cs, keyChanges(keyName(o, n), ob, o, nb, n, w.f)...)
	}
	return cs, true
}

// namesAt returns the names of x's keys at the positions given.
func namesAt(x *format.Index, pos []int) []string {
	names := make([]string, len(pos))
	for i, p := range pos {
		names[i] = x.Keys[p].Name
	}
	return names
}

// keyPair is a key that differs between two bundles: its index in the
// positions of each side's differing keys, -1 where it is absent.
type keyPair struct{ o, n int }

// differingKeys walks two bundles' keys in name order and returns the
// positions of the keys that differ on each side, and the pairs they
// make, as the filter wants them.
func (w *worker) differingKeys(ox, nx *format.Index) (opos, npos []int, differ []keyPair) {
	slots := w.slots(ox, nx)
	oks, nks := ox.Keys, nx.Keys
	for i, j := 0, 0; i < len(oks) || j < len(nks); {
		var o, n *format.IndexKey
		oi, ni := -1, -1
		c := 0 // the names compared once: most are equal
		if i < len(oks) && j < len(nks) {
			c = strings.Compare(oks[i].Name, nks[j].Name)
		}
		switch {
		case j == len(nks) || (i < len(oks) && c < 0):
			o, oi = &oks[i], i
			i++
		case i == len(oks) || c > 0:
			n, ni = &nks[j], j
			j++
		default:
			o, n, oi, ni = &oks[i], &nks[j], i, j
			i, j = i+1, j+1
		}
		name := indexKeyName(o, n)
		if !w.f.wantsKey(name) {
			continue
		}
		if o != nil && n != nil && slots != nil && ox.InView(o) && nx.InView(n) && !o.Sealed && !n.Sealed && o.Err == nil && n.Err == nil {
			// Both values in the views: the same for every node of
			// the pair of views, compared once.
			s, ni := &slots[ox.ValueIndex(o)], int32(nx.ValueIndex(n))
			if s.state == 0 || s.n != ni {
				s.n, s.state = ni, 1
				if !w.sameValues(o.Value, n.Value, false) {
					s.state = 2
				}
			}
			if s.state == 1 {
				continue
			}
		} else if !w.keyDiffers(o, n, o != nil && n != nil && ox.InView(o) && nx.InView(n)) {
			continue
		}
		p := keyPair{-1, -1}
		if o != nil {
			p.o = len(opos)
			opos = append(opos, oi)
		}
		if n != nil {
			p.n = len(npos)
			npos = append(npos, ni)
		}
		differ = append(differ, p)
	}
	return opos, npos, differ
}

// keyDiffers reports whether a key's lookups give another answer, as
// diffKey finds it, without its details.
func (w *worker) keyDiffers(o, n *format.IndexKey, views bool) bool {
	switch {
	case o == nil || n == nil:
		return true
	case o.Sealed || n.Sealed:
		return !(o.Sealed && n.Sealed && o.Ciphertext == n.Ciphertext)
	case o.Err != nil || n.Err != nil:
		return !sameError(o.Err, n.Err)
	}
	return !w.sameValues(o.Value, n.Value, views)
}

// sameValues reports whether diffValues finds no difference between a
// and b. Values of views (memo) are looked up in the memo of pairs of
// containers met before: only they come back, and the memo keeps what it
// holds from being collected.
func (w *worker) sameValues(a, b any, memo bool) bool {
	var k memoKey
	switch a := a.(type) {
	case []any:
		bs, ok := b.([]any)
		if !ok {
			return false
		}
		if len(a) == len(bs) && firstOf(a) == firstOf(bs) {
			return true
		}
		k = memoKey{sa: firstOf(a), sb: firstOf(bs), la: len(a), lb: len(bs)}
	case *format.Hash:
		bh, ok := b.(*format.Hash)
		if !ok {
			return false
		}
		if a == bh {
			return true
		}
		k = memoKey{ha: a, hb: bh}
	default:
		var vds []valueDiff
		diffValues(nil, a, b, &vds)
		return len(vds) == 0
	}
	if memo {
		if same, ok := w.memo[k]; ok {
			return same
		}
	}
	same := format.Identical(a, b) // implies no difference, allocates nothing
	if !same {
		var vds []valueDiff
		diffValues(nil, a, b, &vds)
		same = len(vds) == 0
	}
	if !memo {
		return same
	}
	if len(w.memo) >= maxMemo {
		clear(w.memo)
	}
	w.memo[k] = same
	return same
}

func indexKeyName(o, n *format.IndexKey) string {
	if o != nil {
		return o.Name
	}
	return n.Name
}
