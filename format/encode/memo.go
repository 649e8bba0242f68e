package encode

import (
	"github.com/hieracc/hieracc/format"
)

// The memo of the last bundle's keys. A compile hands an Encoder the nodes
// of one hierarchy slice one after the other, and the compiler shares a
// key's result between the nodes that resolve it alike: most keys of a
// bundle are the very Key of the bundle before (the same name, value,
// contributions, by identity). So an Encoder remembers, for each key of
// the last bundle, what identifies the key and what it found for it: its
// value's node id (or its children's), its keyRec, whether it has bound
// contributions, its record in the shared file, its name in the key
// table. A key identical to the last bundle's (identical) costs
// a few compares in memory read in order, instead of the lookups in big
// tables (findRec, intern) and the reads of its contributions (anyBound)
// it would cost otherwise; what depends on the bundle (its value table,
// its errors) is still built for each. A key that is not identical, its
// value or a bound contribution's built anew for the node (interpolating
// its name), finds the ids of the children it shares with the last
// bundle's value of the key of the same name (likeOf, likeBound: the
// children's ids, nested where they were the last node's own containers,
// appendKids), and looks up only what the node changed.
//
// The memo holds what identifies the keys (most of them plain: their name,
// value and contributions say it all), so what they point to stays
// reachable (its memory never holds another value while remembered), and
// as the Encoder's doc says, it must not be modified meanwhile. It is
// read and written once a key, in order: it is kept small.

// priorKey is what an Encoder found for a key of the last bundle it
// encoded. remember writes its pointers one by one: one added here must
// be written there (TestRememberOverwrites).
type priorKey struct {
	name       string
	value      any
	contribs   *format.Contribution // the key's Contributions (their array, or nil), nc of them
	priorFound                      // the rest: no pointer, so written at once without write barriers
}

// priorFound is the part of a priorKey that holds no pointer.
type priorFound struct {
	nc      int32
	more    int32 // a key that is not plain: its copy in memo.lastMore; -1 for a plain key
	valueID int32 // node id of its value in the global table, or -1
	rec     int32 // its keyRec in Encoder.recs, or -1
	record  int32 // the index of its record in sharing.prev, or -1
	bound   uint8 // what planKey found (boundKnown and the rest), or 0
	usable  bool  // false for a sealed key: its details were not looked at
	// Where the key's name is in its key table (memo.lastTab): its
	// shared bytes with the name before it, its length and the rest.
	nameAt, nameLen uint32
	// Where the ids of its value's children are in memo.lastKids, when
	// its value is a container of the local table (see keepKids).
	kidsAt, kidsN uint32
	// Where the ids of the children of its bound Contributions' values
	// are in memo.lastBound (see boundRefs).
	boundAt, boundN uint32
}

// Bits of priorKey.bound.
const (
	boundKnown = 1 << iota // planKey looked at the key: the others say what it found
	boundWhole             // no contribution is bound: all its details are in the shared file
	boundRest              // some are, others are not: its record holds those
)

// freshFound is a priorKey's priorFound before the passes over its key
// fill it in (remember).
var freshFound = priorFound{more: -1, valueID: -1, rec: -1, record: -1}

// plain reports whether k has nothing but a name, a value and
// contributions: no error, defaults, merge, convert_to, asked, nor flag.
func plain(k *format.Key) bool {
	return k.Err == nil && k.Defaults == nil && k.MergeFrom == nil && k.ConvertTo == nil && k.Asked == nil &&
		!k.Secret && !k.Sealed && isDefault(&k.Merge) && isDefault(&k.DefaultMerge)
}

// identical reports whether a and b are the same key: the same name and
// flags, and the same value, error, contributions, defaults, convert_to
// and asked by identity. Everything an Encoder derives from a key
// follows from these (Ciphertext is not written; a Sealed key is
// refused).
func identical(a, b *format.Key) bool {
	return sameString(a.Name, b.Name) && sameIface(a.Value, b.Value) && a.Err == b.Err &&
		sameSlice(a.Contributions, b.Contributions) && sameSlice(a.Defaults, b.Defaults) &&
		a.Merge == b.Merge && a.DefaultMerge == b.DefaultMerge && a.MergeFrom == b.MergeFrom &&
		a.Secret == b.Secret && sameSlice(a.ConvertTo, b.ConvertTo) && sameSlice(a.Asked, b.Asked) &&
		!a.Sealed && !b.Sealed
}

// memo is the memo of the last bundle's keys (prior), with the buffers
// its entries point into, and the memo being written for the bundle
// being encoded (cur): keepPrior makes it the last bundle's.
type memo struct {
	prior, cur []priorKey // by key position
	priorHits  int        // the keys of the last bundle found identical (keyMemo.prior)
	// The key table of the bundle being encoded (see appendKeyTable), and
	// the last bundle's (priorKey.nameAt).
	keyTab, lastTab []byte
	// The ids of the children of the keys' local values (priorKey.kidsAt),
	// and the last bundle's.
	kids, lastKids []int32
	// The ids of the children of the keys' bound values
	// (priorKey.boundAt), and the last bundle's.
	boundKids, lastBound []int32
	// Copies of the keys that are not plain (priorKey.more), and the last
	// bundle's.
	more, lastMore []format.Key
}

// remember appends the memo entry of k to cur, with a copy of k in mem.more
// unless k is plain; same is the last bundle's key identical to k (then
// plain if it was), or -1.
func (mem *memo) remember(cur []priorKey, k *format.Key, same int32) []priorKey {
	n := len(cur)
	if n < cap(cur) {
		cur = cur[:n+1] // the old entry, overwritten
	} else {
		cur = append(cur, priorKey{})
	}
	// Field by field, and a pointer only if it changed: the entry it
	// overwrites, two bundles old (see keepPrior), is most often the same
	// key's, and a pointer written costs a write barrier while the garbage
	// collector runs (a priorKey written at once, one for its every word).
	c := &cur[n]
	if !sameString(c.name, k.Name) {
		c.name = k.Name
	}
	if !sameIface(c.value, k.Value) {
		c.value = k.Value
	}
	if p := sliceData(k.Contributions); c.contribs != p {
		c.contribs = p
	}
	// The rest from a template, then nc: a literal with nc built on the
	// stack would be stored there in parts and read back whole, which
	// the processor cannot forward from its store buffer (a stall of
	// ~10 ns a key).
	c.priorFound = freshFound
	c.nc = int32(len(k.Contributions))
	if same >= 0 && mem.prior[same].more < 0 || plain(k) {
		return cur
	}
	c.more = int32(len(mem.more))
	if m := len(mem.more); m < cap(mem.more) {
		mem.more = mem.more[:m+1]
		if x := &mem.more[m]; !sameBits(x, k) { // likewise
			*x = *k
		}
	} else {
		mem.more = append(mem.more, *k)
	}
	return cur
}

// is reports whether k is the key p remembers (identical).
func (mem *memo) is(p *priorKey, k *format.Key) bool {
	if !sameString(p.name, k.Name) || !sameIface(p.value, k.Value) ||
		p.contribs != sliceData(k.Contributions) || int(p.nc) != len(k.Contributions) {
		return false
	}
	if p.more < 0 {
		return plain(k)
	}
	return identical(&mem.lastMore[p.more], k)
}

// priorOf returns the index in mem.prior of the last bundle's key identical
// to k, or -1, and that of the last bundle's key of the same name, or -1;
// *j is where the search starts, keys being sorted by name, and moves
// past the last bundle's keys that sort before k, and past the one it
// found (the next key sorts after it): the next key, most often the next
// of the last bundle's, is then found without comparing names.
func (mem *memo) priorOf(k *format.Key, j *int) (same, named int32) {
	prior := mem.prior
	for *j < len(prior) && !sameString(prior[*j].name, k.Name) && prior[*j].name < k.Name {
		*j++
	}
	p := *j
	if p >= len(prior) || !prior[p].usable {
		return -1, -1
	}
	if mem.is(&prior[p], k) {
		*j = p + 1
		return int32(p), int32(p)
	}
	if prior[p].name == k.Name {
		*j = p + 1
		return -1, int32(p)
	}
	return -1, -1
}

// likeOf returns the value of the last bundle's key prior[n], whose name
// is that of a key whose value is to be interned, the ids of its
// children, and the tree their ids may refer to, for internLike; nil ids
// if there are none.
func (mem *memo) likeOf(n int32, glob *table) (like any, kids, tree []int32) {
	p := &mem.prior[n]
	if p.valueID >= 0 {
		nd := &glob.nodes[p.valueID]
		if nd.kind == kindScalar {
			return nil, nil, nil
		}
		return p.value, glob.kids[nd.off : nd.off+nd.n], nil
	}
	if p.kidsN == 0 {
		return nil, nil, nil
	}
	return p.value, mem.lastKids[p.kidsAt : p.kidsAt+p.kidsN], mem.lastKids
}

// keepValue records in c, the memo entry of a key, its value's node id
// id: the id of a global node, for the next bundle's identical key; for a
// local one, the ids of its children (keepKids), for the next bundle's key
// of the same name.
func (mem *memo) keepValue(c *priorKey, id int32, in *interner) {
	if id&localBit == 0 {
		c.valueID = id
	} else {
		mem.keepKids(c, id, in)
	}
}

// keepKids records, for the next bundle's likeOf, the children of the
// local container id, the value of the key whose memo entry is c.
func (mem *memo) keepKids(c *priorKey, id int32, in *interner) {
	nd := &in.loc.nodes[id&^localBit]
	if nd.kind == kindScalar || nd.n == 0 {
		return
	}
	c.kidsAt, c.kidsN = uint32(len(mem.kids)), nd.n
	mem.kids = in.appendKids(mem.kids, id)
}

// keepPrior makes the keys of the bundle just encoded (mem.cur) the memo.
// The old memo's entries are overwritten as the next bundle is encoded,
// not cleared: clearing them costs as much as writing them, and what they
// keep reachable is a bundle's keys at most.
func (mem *memo) keepPrior() {
	mem.prior, mem.cur = mem.cur, mem.prior[:0]
	mem.lastTab, mem.keyTab = mem.keyTab, mem.lastTab
	mem.lastKids, mem.kids = mem.kids, mem.lastKids[:0]
	mem.lastBound, mem.boundKids = mem.boundKids, mem.lastBound[:0]
	mem.lastMore, mem.more = mem.more, mem.lastMore[:0]
}

// namedValue returns the node id of v, the value of a key that is not
// the last bundle's, if v is the value of the last bundle's key of the
// same name, prior[n] (certainly: the same container, or an equal
// scalar), and the memo holds its id (a global one); else -1. Ids are
// exact by content, so it is the id intern would find. A key whose
// contributions are one node's (bound, or built anew for it) is never
// the last bundle's, yet its value most often is the last node's: then
// it costs no lookup (a 1,000-node genrepo fleet: 116,000 of the 363,000
// values the values pass interned, all but 1,900 of them containers).
func (mem *memo) namedValue(n int32, v any) int32 {
	if n < 0 || !same(mem.prior[n].value, v) {
		return -1
	}
	return mem.prior[n].valueID // -1 if not global
}

// likeBound walks the bound Contributions of a key of the last bundle,
// with the ids of their values' children.
type likeBound struct {
	cs []format.Contribution // the key's Contributions, from the next bound one on
	// By bound contribution, its record (see keepBoundKids).
	kids []int32
}

// next returns the value of the next bound contribution and its
// children's ids; ok is false when there is none.
func (l *likeBound) next() (v any, kids []int32, ok bool) {
	for len(l.cs) > 0 && !l.cs[0].Bound {
		l.cs = l.cs[1:]
	}
	if len(l.cs) == 0 || len(l.kids) < 2 {
		*l = likeBound{}
		return nil, nil, false
	}
	n, m := int(l.kids[0]), int(l.kids[1])
	if n < 1 || n >= len(l.kids) || m < 0 || m >= n {
		*l = likeBound{}
		return nil, nil, false
	}
	v = l.cs[0].Value
	kids, l.cs, l.kids = l.kids[2:2+m], l.cs[1:], l.kids[1+n:]
	return v, kids, true
}

// likeBound returns the bound Contributions of mem.prior[n] (none if n is
// -1, or if they were not kept).
func (mem *memo) likeBound(n int32) likeBound {
	if n < 0 {
		return likeBound{}
	}
	p := &mem.prior[n]
	if p.boundN == 0 || p.nc == 0 {
		return likeBound{}
	}
	return likeBound{cs: sliceOf(p.contribs, int(p.nc)), kids: mem.lastBound[p.boundAt : p.boundAt+p.boundN]}
}

// keepBoundKids appends to mem.boundKids the record of node id (-1 for
// none: an error) for likeBound.next: the number of ids that follow it,
// then the number of the node's children and their ids (see appendKids:
// the lists of its local children follow).
func (mem *memo) keepBoundKids(id int32, in *interner) {
	at := len(mem.boundKids)
	mem.boundKids = append(mem.boundKids, 1, 0)
	if id < 0 {
		return
	}
	if t, x := in.tableOf(id); t.nodes[x].kind != kindScalar {
		mem.boundKids[at+1] = int32(t.nodes[x].n)
		mem.boundKids = in.appendKids(mem.boundKids, id)
		mem.boundKids[at] = int32(len(mem.boundKids) - at - 1)
	}
}

// forget drops the memo of the last bundle's keys, and what its buffers
// still point to.
func (mem *memo) forget() {
	clear(mem.prior[:cap(mem.prior)])
	clear(mem.cur[:cap(mem.cur)])
	mem.prior, mem.cur = mem.prior[:0], mem.cur[:0]
	clear(mem.more[:cap(mem.more)])
	clear(mem.lastMore[:cap(mem.lastMore)])
	mem.more, mem.lastMore = mem.more[:0], mem.lastMore[:0]
	mem.kids = mem.kids[:0]
	mem.boundKids, mem.lastBound = mem.boundKids[:0], mem.lastBound[:0]
}

// forgetPrior drops the memo of the last bundle's keys, and the records
// of its shared file.
func (e *Encoder) forgetPrior() {
	e.mem.forget()
	e.share.forgetPrior()
}
