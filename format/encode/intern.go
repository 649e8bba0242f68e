package encode

import (
	"encoding/binary"
	"fmt"
	"math"
	"math/bits"

	"github.com/hieracc/hieracc/format"
	"github.com/hieracc/hieracc/format/internal/wire"
)

// Interning. Every distinct value an Encoder meets gets a node id; equal
// values get the same id (exactly: candidates are compared in full, hashes
// only find them), so a bundle's value table, which holds each distinct
// value once, follows from the ids alone: entry adds a node and its
// children to it, in the order the walk of the old encoder met them.
//
// Ids live in two tables. The global table lasts across bundles and holds
// the values of the key variants seen in more than one bundle: what the
// compiler shares, so that the next bundle holding them finds them at the
// cost of a lookup. The local table lasts one bundle and holds everything
// else, above all the values only one node has (those that interpolate its
// facts): remembering them would only make the global table bigger and
// slower. A value is never in both tables at once (each addition checks the
// other table first), so ids stay exact within a bundle.

// interner gives values their ids (intern, internLike) and writes the
// value table of the bundle being encoded from them (entry): it holds the
// two tables, and the table being written. The encoder of an Encoder's
// shared files shares its global table, its cache of strings and its
// count of generations (see newSub).
type interner struct {
	glob, loc *table    // the global and the local table
	stack     []int32   // children being interned
	strCache  []strSlot // global strings by their memory (see internString); nil for Encode

	// The bundle's value table: a node is in it if its table.marks[i]>>32
	// is gen (see entry).
	gen       uint32
	vals      []byte // the value table's entries, in order
	nVals     int
	capture   []int32 // the ids of the entries added, while capturing (buildView)
	capturing bool

	weakHash bool // for tests: container hashes collide
}

// reset forgets every value (keeping the scratch memory).
func (in *interner) reset() {
	in.glob.reset()
	in.loc.reset()
	clear(in.strCache)
	clear(in.stack)
	in.stack = in.stack[:0]
}

// localBit marks the ids of the local table.
const localBit = 1 << 30

// table is one of the two intern tables.
type table struct {
	nodes   []node
	marks   []uint64 // by node: where it is in the bundle's value table (see entry)
	kids    []int32  // children of containers (ids)
	scalars []byte   // msgpack encodings of scalars
	cons    map[uint64]int32
	// By identity or by value; they hold ids (either table's, for the
	// identity caches of the local table).
	hashes  map[*format.Hash]int32
	slices  map[sliceID]int32
	seen    addrFilter // the addresses hashes and slices hold
	strs    map[string]int32
	ints    map[int64]int32
	floats  map[uint64]int32 // by bits: -0.0 is not 0.0, and NaNs are kept as they are
	nilID   int32
	trueID  int32
	falseID int32
	bit     int32 // 0, or localBit
}

func newTable(bit int32) *table {
	t := &table{
		cons:   map[uint64]int32{},
		hashes: map[*format.Hash]int32{},
		slices: map[sliceID]int32{},
		strs:   map[string]int32{},
		ints:   map[int64]int32{},
		floats: map[uint64]int32{},
		bit:    bit,
	}
	t.reset()
	return t
}

func (t *table) reset() {
	t.nodes = t.nodes[:0]
	t.marks = t.marks[:0]
	t.kids = t.kids[:0]
	t.scalars = t.scalars[:0]
	clear(t.cons)
	clear(t.hashes)
	clear(t.slices)
	t.seen.reset()
	clear(t.strs)
	clear(t.ints)
	clear(t.floats)
	t.nilID, t.trueID, t.falseID = -1, -1, -1
}

// size is how much the table holds, for the Encoder's bound.
func (t *table) size() int { return len(t.nodes) + len(t.hashes) + len(t.slices) }

// hashID returns the id the identity cache holds for h, if any.
func (t *table) hashID(h *format.Hash) (int32, bool) {
	if !t.seen.has(addr(h)) {
		return 0, false
	}
	id, ok := t.hashes[h]
	return id, ok
}

func (t *table) setHashID(h *format.Hash, id int32) {
	t.hashes[h] = id
	t.remember(addr(h))
}

// sliceID returns the id the identity cache holds for the slice s, if any.
func (t *table) sliceID(s sliceID) (int32, bool) {
	if !t.seen.has(addr(s.first)) {
		return 0, false
	}
	id, ok := t.slices[s]
	return id, ok
}

func (t *table) setSliceID(s sliceID, id int32) {
	t.slices[s] = id
	t.remember(addr(s.first))
}

// remember adds p, an address just added to an identity cache, to
// t.seen, which grows with the caches: then every address is added again.
func (t *table) remember(p uintptr) {
	f := &t.seen
	if n := len(t.hashes) + len(t.slices); n <= len(f.bits)*64/addrFilterLoad {
		f.add(p)
		return
	}
	f.grow(len(f.bits) * 2)
	for h := range t.hashes {
		f.add(addr(h))
	}
	for s := range t.slices {
		f.add(addr(s.first))
	}
}

// addrFilter is a Bloom filter with one hash function: a set of addresses
// that may say an address is in it when it is not, never the reverse.
// Most containers an Encoder meets in a compile are built anew for one
// node (merged, interpolated), met once: the identity caches do not hold
// their addresses, and a clear bit says so faster than a lookup in those
// maps. (A 10,000-node compile: internLike looks up 2.6 M containers in
// each table, finding 0.06 M in the global one, 0.03 M in the local one;
// the global caches hold 16,000 addresses at most.)
type addrFilter struct {
	bits  []uint64
	shift uint // 64 - log2(the number of bits)
}

// addrFilterLoad is the bits an addrFilter has at least for each address
// it holds: about one address in 8 not held finds its bit set.
const addrFilterLoad = 8

// minAddrFilter is the bits an addrFilter starts with (4 KiB, cleared for
// each bundle in the local table's).
const minAddrFilter = 1 << 15

func (f *addrFilter) reset() {
	if f.bits == nil {
		f.grow(minAddrFilter / 64)
	}
	clear(f.bits)
}

// grow makes f hold words words, empty.
func (f *addrFilter) grow(words int) {
	f.bits = make([]uint64, words)
	f.shift = uint(64 - bits.TrailingZeros(uint(words*64)))
}

func (f *addrFilter) at(p uintptr) (word int, bit uint64) {
	x := uint64(p) * fibonacci >> f.shift
	return int(x / 64), 1 << (x % 64)
}

func (f *addrFilter) add(p uintptr) {
	w, b := f.at(p)
	f.bits[w] |= b
}

// has reports whether p may be in f: false if it certainly is not.
func (f *addrFilter) has(p uintptr) bool {
	w, b := f.at(p)
	return f.bits[w]&b != 0
}

// node is one distinct value (its entry in the value table of the bundle
// being encoded is in table.marks).
type node struct {
	off   uint32 // scalars: offset of the encoding in table.scalars; containers: of the children in table.kids
	n     uint32 // scalars: length of the encoding; containers: number of children (2 per hash entry)
	next  int32  // the index of the next node with the same structure hash, or -1
	size  int32  // nodes once expanded, at most MaxNodes+1
	depth uint16 // at most MaxDepth+1
	kind  uint8
}

const (
	kindScalar = iota
	kindArray
	kindHash
)

// sliceID identifies a slice by its memory, to add a shared one only once.
// It keeps the slice's array reachable, so its address is never reused for
// another slice while the Encoder remembers it.
type sliceID struct {
	first *any
	len   int
}

// tableOf returns the table of id and its index there.
func (in *interner) tableOf(id int32) (*table, int32) {
	if id&localBit != 0 {
		return in.loc, id &^ localBit
	}
	return in.glob, id
}

func (in *interner) node(id int32) *node {
	t, i := in.tableOf(id)
	return &t.nodes[i]
}

// entry returns the index of node id in the bundle's value table, adding
// it and its children (children first, in order) if they are not there
// yet. A node's mark (table.marks) is gen<<32 | its index there, current
// if gen is interner.gen: kept apart from the nodes, so that asking this of
// every node a bundle holds reads 8 bytes of a dense array, not a node.
func (in *interner) entry(id int32) int32 {
	t, i := in.tableOf(id)
	if m := t.marks[i]; uint32(m>>32) == in.gen {
		return int32(m)
	}
	return in.addEntry(t, i)
}

// nextGen starts a new generation of marks: no node is in the value
// table.
func (in *interner) nextGen() {
	in.gen++
	if in.gen == 0 { // wrapped: old entries could look current
		clear(in.glob.marks)
		clear(in.loc.marks)
		in.gen = 1
	}
}

// addEntry adds node i of table t, not in the bundle's value table yet,
// and its children, and returns its index there.
func (in *interner) addEntry(t *table, i int32) int32 {
	nd := &t.nodes[i] // stays valid: no node is added meanwhile
	if nd.kind == kindScalar {
		in.vals = append(in.vals, t.scalars[nd.off:nd.off+nd.n]...)
	} else {
		// The children's indexes, on in.stack (free: intern is done with
		// it) while their entries are added.
		start := len(in.stack)
		for _, k := range t.kids[nd.off : nd.off+nd.n] {
			kt, ki := in.tableOf(k)
			m := kt.marks[ki]
			x := int32(m)
			if uint32(m>>32) != in.gen {
				x = in.addEntry(kt, ki)
			}
			in.stack = append(in.stack, x)
		}
		idx := in.stack[start:]
		v := in.vals
		if nd.kind == kindArray {
			v = appendArrayLen(v, len(idx))
		} else {
			v = appendMapLen(v, len(idx)/2)
		}
		own := in.nVals
		for _, k := range idx {
			v = binary.AppendUvarint(v, wire.KidRef(own, int(k)))
		}
		in.vals = v
		in.stack = in.stack[:start]
	}
	x := int32(in.nVals)
	t.marks[i] = uint64(in.gen)<<32 | uint64(uint32(x))
	in.nVals++
	if in.capturing {
		in.capture = append(in.capture, t.bit|i)
	}
	return x
}

// intern returns the node id of v, adding v and its children if they are
// not there yet: to the global table if global is set and v's children are
// all there, else to the local one. depth is v's nesting in the value
// being walked.
func (in *interner) intern(v any, depth int, global bool) (int32, error) {
	if depth > format.MaxDepth {
		return 0, fmt.Errorf("value nested deeper than %d", format.MaxDepth)
	}
	g, l := in.glob, in.loc
	add := l
	if global {
		add = g
	}
	switch v := v.(type) {
	case nil:
		return in.oneByte(&g.nilID, &l.nilID, global, wire.Nil), nil
	case bool:
		if v {
			return in.oneByte(&g.trueID, &l.trueID, global, wire.True), nil
		}
		return in.oneByte(&g.falseID, &l.falseID, global, wire.False), nil
	case int64:
		return internScalar(g.ints, l.ints, add.ints, add, v, v, appendInt), nil
	case float64:
		return internScalar(g.floats, l.floats, add.floats, add, math.Float64bits(v), v, appendFloat), nil
	case string:
		return in.internString(v, add), nil
	case []any:
		var key sliceID
		if len(v) > 0 {
			key = sliceID{&v[0], len(v)}
			if id, ok := g.sliceID(key); ok {
				return id, nil
			}
			if id, ok := l.sliceID(key); ok {
				return id, nil
			}
		}
		start := len(in.stack)
		for _, x := range v {
			k, err := in.intern(x, depth+1, global)
			if err != nil {
				in.stack = in.stack[:start]
				return 0, err
			}
			in.stack = append(in.stack, k)
		}
		id, err := in.container(kindArray, start, global)
		if err == nil && len(v) > 0 {
			in.tableFor(global && id&localBit == 0).setSliceID(key, id)
		}
		return id, err
	case *format.Hash:
		if v == nil {
			return 0, fmt.Errorf("nil *Hash")
		}
		if id, ok := g.hashID(v); ok {
			return id, nil
		}
		if id, ok := l.hashID(v); ok {
			return id, nil
		}
		start := len(in.stack)
		for i, k := range v.Keys() {
			ki, err := in.intern(k, depth+1, global)
			if err != nil {
				in.stack = in.stack[:start]
				return 0, err
			}
			vi, err := in.intern(v.Value(i), depth+1, global)
			if err != nil {
				in.stack = in.stack[:start]
				return 0, err
			}
			in.stack = append(in.stack, ki, vi)
		}
		id, err := in.container(kindHash, start, global)
		if err == nil {
			in.tableFor(global && id&localBit == 0).setHashID(v, id)
		}
		return id, err
	}
	return 0, fmt.Errorf("unsupported value type %T", v)
}

// internLike is intern for a key's value v, when like, the value of the
// key of the same name in the last bundle, is a container whose children
// have the ids kids (-1 for those unknown): a value built anew for each
// node (merged, interpolated) holds most of the children of the last
// node's, the very same ones, whose ids it takes without a lookup. Such a
// child met in two bundles goes to the global table, whatever global
// says, so that the next bundle finds its id. A child of like that was a
// container of the last bundle's local table (one node's: it holds what
// that node interpolated) has its own children listed in tree (see
// appendKids): a child of v built anew from them is interned the same
// way. depth is v's nesting in the value being walked.
//
// A container interned here is remembered by its address (as intern
// does) only in the global table: one the local table holds is the
// node's, built anew for it and met once, almost always (a 10,000-node
// compile: 2.6 M of them, 0.03 M met again), and finding it again by
// its content costs less than remembering them all. Its walk stays
// linear: it follows like's tree (each list in it is one child's), and
// intern remembers what it walks.
func (in *interner) internLike(v, like any, kids, tree []int32, global bool, depth int) (int32, error) {
	if depth > format.MaxDepth {
		return 0, fmt.Errorf("value nested deeper than %d", format.MaxDepth)
	}
	switch x := v.(type) {
	case *format.Hash:
		y, ok := like.(*format.Hash)
		if !ok || x == nil || y == nil || x.Len() != y.Len() || len(kids) != 2*x.Len() {
			break
		}
		if id, ok := in.glob.hashID(x); ok { // met before: as intern does
			return id, nil
		}
		if id, ok := in.loc.hashID(x); ok {
			return id, nil
		}
		start := len(in.stack)
		for i := range x.Len() {
			ki, err := in.internKid(x.Key(i), y.Key(i), kids[2*i], tree, global, depth+1)
			var vi int32
			if err == nil {
				vi, err = in.internKid(x.Value(i), y.Value(i), kids[2*i+1], tree, global, depth+1)
			}
			if err != nil {
				in.stack = in.stack[:start]
				return 0, err
			}
			in.stack = append(in.stack, ki, vi)
		}
		id, err := in.container(kindHash, start, global)
		if err == nil && global && id&localBit == 0 {
			in.glob.setHashID(x, id)
		}
		return id, err
	case []any:
		y, ok := like.([]any)
		if !ok || len(x) == 0 || len(x) != len(y) || len(kids) != len(x) {
			break
		}
		key := sliceID{&x[0], len(x)}
		if id, ok := in.glob.sliceID(key); ok { // met before: as intern does
			return id, nil
		}
		if id, ok := in.loc.sliceID(key); ok {
			return id, nil
		}
		start := len(in.stack)
		for i := range x {
			k, err := in.internKid(x[i], y[i], kids[i], tree, global, depth+1)
			if err != nil {
				in.stack = in.stack[:start]
				return 0, err
			}
			in.stack = append(in.stack, k)
		}
		id, err := in.container(kindArray, start, global)
		if err == nil && global && id&localBit == 0 {
			in.glob.setSliceID(key, id)
		}
		return id, err
	}
	return in.intern(v, depth, global)
}

// internKid is intern for the child v, at the given depth, of a value
// given to internLike, whose child at the same place in like is w, with
// the id id: -1 if unknown, or the place of w's children in tree (see
// appendKids).
func (in *interner) internKid(v, w any, id int32, tree []int32, global bool, depth int) (int32, error) {
	if sameIface(v, w) {
		if id >= 0 {
			return id, nil
		}
		return in.intern(v, depth, true)
	}
	if kids := subList(tree, id); kids != nil {
		return in.internLike(v, w, kids, tree, global, depth)
	}
	if s, ok := v.(string); ok && depth <= format.MaxDepth {
		// Not the last bundle's string at this place: built anew for the
		// node (interpolating its facts).
		return in.internNodeString(s, in.tableFor(global)), nil
	}
	return in.intern(v, depth, global)
}

// maxKidsTree bounds the ids appendKids writes for one bundle (they
// expand the local values it lists as trees).
const maxKidsTree = 1 << 18

// appendKids appends to buf the ids of the children of container id, for
// the next bundle's internLike: a global child's id, -1 for a local
// scalar, and for a local container -2-at, at being the place in buf
// where the number of its own children is, followed by their ids,
// likewise (appended after the list, while buf has room).
func (in *interner) appendKids(buf []int32, id int32) []int32 {
	t, i := in.tableOf(id)
	nd := &t.nodes[i]
	at := len(buf)
	buf = append(buf, t.kids[nd.off:nd.off+nd.n]...)
	if t != in.loc {
		return buf // a global container's children are global
	}
	for j := at; j < at+int(nd.n); j++ {
		k := buf[j]
		if k&localBit == 0 {
			continue
		}
		buf[j] = -1
		if knd := &in.loc.nodes[k&^localBit]; knd.kind != kindScalar && knd.n > 0 && len(buf) < maxKidsTree {
			buf[j] = -2 - int32(len(buf))
			buf = append(buf, int32(knd.n))
			buf = in.appendKids(buf, k)
		}
	}
	return buf
}

// subList returns the ids of the children that the id -2-at refers to in
// tree (see appendKids), or nil.
func subList(tree []int32, id int32) []int32 {
	at := -2 - int(id)
	if at < 0 || at >= len(tree) {
		return nil
	}
	n := int(tree[at])
	if n <= 0 || n > len(tree)-at-1 {
		return nil
	}
	return tree[at+1 : at+1+n]
}

// internString is intern for a string: add is the table to add it to.
//
// A fleet's strings are mostly the same strings of the same parsed data
// files, met again and again in values built anew for each node (those
// that interpolate facts). So in front of the global table's strs, a
// cache finds them by their memory (address and length: the same bytes,
// certainly the same content), without hashing and comparing them. It
// holds each string it names, so that memory is never reused for another
// while it is there.
func (in *interner) internString(s string, add *table) int32 {
	var slot *strSlot
	// "" may have any address, nil too, like an empty slot; a string of
	// 4 GiB or more has no slot (its length does not fit one).
	if in.strCache != nil && len(s) > 0 && uint64(len(s)) <= math.MaxUint32 {
		p := stringData(s)
		slot = &in.strCache[uint64(addr(p))*fibonacci>>(64-strCacheBits)]
		if slot.p == p && slot.n == uint32(len(s)) {
			return slot.id
		}
	}
	id := internScalar(in.glob.strs, in.loc.strs, add.strs, add, s, s, appendString)
	if slot != nil && id&localBit == 0 {
		slot.p, slot.n, slot.id = stringData(s), uint32(len(s)), id
	}
	return id
}

// internNodeString is internString for a string built for the node being
// encoded (interpolating its facts), in new memory: the cache, which finds
// strings of the global table by their memory, would be read in vain, and
// the local table is asked first, holding the node's strings met before
// in its bundle (its name, again and again), which the global table
// hardly ever does (a 10,000-node compile: 646,000 of 1.43 M such strings
// in the local table, 90,000 in the global one). A string is in one table
// at most, so the order changes nothing but the time.
func (in *interner) internNodeString(s string, add *table) int32 {
	return internScalar(in.loc.strs, in.glob.strs, add.strs, add, s, s, appendString)
}

// strSlot is an entry of interner.strCache: the memory of a string of the
// global table (its address, which keeps it, and its length) and its id,
// in 16 bytes, so that four share a cache line.
type strSlot struct {
	p  *byte
	n  uint32
	id int32
}

// strCacheBits is the size of interner.strCache: 1<<16 entries of 16 bytes.
const strCacheBits = 16

// fibonacci spreads an address over a cache's slots: multiplied by it,
// the address's varying bits reach the product's top bits, which index.
const fibonacci = 0x9e3779b97f4a7c15

// oneByte returns the id of the scalar whose encoding is the byte c, whose
// ids in the tables are *gid and *lid (-1 for none), adding it if needed.
func (in *interner) oneByte(gid, lid *int32, global bool, c byte) int32 {
	switch {
	case *gid >= 0:
		return *gid
	case *lid >= 0:
		return *lid
	case global:
		*gid = in.glob.scalar(c)
		return *gid
	}
	*lid = in.loc.scalar(c)
	return *lid
}

func (in *interner) tableFor(global bool) *table {
	if global {
		return in.glob
	}
	return in.loc
}

// scalar adds a scalar encoded as one byte and returns its id.
func (t *table) scalar(c byte) int32 {
	start := len(t.scalars)
	t.scalars = append(t.scalars, c)
	return t.addScalar(start)
}

// internScalar finds a scalar by key in a and b, the two tables' maps (in
// either order: one holds it at most), or encodes it into add.
func internScalar[K comparable, V any](a, b, added map[K]int32, add *table, key K, v V, appendV func([]byte, V) []byte) int32 {
	if id, ok := a[key]; ok {
		return id
	}
	if id, ok := b[key]; ok {
		return id
	}
	start := len(add.scalars)
	add.scalars = appendV(add.scalars, v)
	id := add.addScalar(start)
	added[key] = id
	return id
}

// addScalar adds the scalar encoded in t.scalars[start:] and returns its id.
func (t *table) addScalar(start int) int32 {
	i := int32(len(t.nodes))
	t.nodes = append(t.nodes, node{off: uint32(start), n: uint32(len(t.scalars) - start), next: -1, size: 1, kind: kindScalar})
	t.marks = append(t.marks, 0)
	return i | t.bit
}

// find returns the id of the container with the given structure hash, kind
// and children, or -1, and the first node of the table with that hash (-1
// for none), which a container added with it links to.
func (t *table) find(h uint64, kind uint8, kids []int32) (id, head int32) {
	head, ok := t.cons[h]
	if !ok {
		return -1, -1
	}
	for i := head; i >= 0; i = t.nodes[i].next {
		nd := &t.nodes[i]
		if nd.kind == kind && int(nd.n) == len(kids) && equalIDs(t.kids[nd.off:nd.off+nd.n], kids) {
			return i | t.bit, head
		}
	}
	return -1, head
}

// container returns the id of the container of the given kind whose
// children are in.stack[start:], adding it if it is new (to the global
// table if global is set and its children are all there), and pops them.
func (in *interner) container(kind uint8, start int, global bool) (int32, error) {
	kids := in.stack[start:]
	in.stack = in.stack[:start] // kids stays valid: nothing is pushed before it is read
	h := consHash(kind, kids)
	if in.weakHash {
		h &= 7
	}
	local := false // a child is local: so is the container
	for _, k := range kids {
		local = local || k&localBit != 0
	}
	globHead := int32(-1)
	if !local {
		var id int32
		if id, globHead = in.glob.find(h, kind, kids); id >= 0 {
			return id, nil
		}
	}
	id, head := in.loc.find(h, kind, kids)
	if id >= 0 {
		return id, nil
	}
	var d int32 = 1
	var n int64 = 1
	for _, k := range kids {
		nd := in.node(k)
		d = max(d, int32(nd.depth)+1)
		n = min(n+int64(nd.size), format.MaxNodes+1)
	}
	if d > format.MaxDepth {
		return 0, fmt.Errorf("value nested deeper than %d", format.MaxDepth)
	}
	if n > format.MaxNodes {
		return 0, fmt.Errorf("value has more than %d nodes", format.MaxNodes)
	}
	t := in.tableFor(global && !local)
	if t == in.glob {
		head = globHead
	}
	i := int32(len(t.nodes))
	off := len(t.kids)
	t.kids = append(t.kids, kids...)
	t.nodes = append(t.nodes, node{off: uint32(off), n: uint32(len(kids)), next: head, size: int32(n), depth: uint16(d), kind: kind})
	t.marks = append(t.marks, 0)
	t.cons[h] = i
	return i | t.bit, nil
}

// consHash hashes a container's structure: any well-mixed function does,
// since candidates are compared in full.
func consHash(kind uint8, kids []int32) uint64 {
	h := uint64(len(kids))<<8 ^ uint64(kind) ^ wire.HashP0
	for len(kids) >= 2 {
		h = wire.Mix(uint64(uint32(kids[0]))|uint64(kids[1])<<32^wire.HashP1, h^wire.HashP2)
		kids = kids[2:]
	}
	if len(kids) == 1 {
		h = wire.Mix(uint64(uint32(kids[0]))^wire.HashP1, h^wire.HashP2)
	}
	return h
}

func equalIDs(a, b []int32) bool {
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// same reports whether a and b are certainly the same value: equal
// scalars, or the same container (by identity).
func same(a, b any) bool {
	switch x := a.(type) {
	case string:
		y, ok := b.(string)
		return ok && x == y
	case *format.Hash:
		y, ok := b.(*format.Hash)
		return ok && x == y
	case []any:
		y, ok := b.([]any)
		return ok && len(x) == len(y) && (len(x) == 0 || &x[0] == &y[0])
	case int64:
		y, ok := b.(int64)
		return ok && x == y
	case bool:
		y, ok := b.(bool)
		return ok && x == y
	case float64:
		y, ok := b.(float64)
		return ok && math.Float64bits(x) == math.Float64bits(y)
	case nil:
		return b == nil
	}
	return false
}
