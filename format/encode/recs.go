package encode

import (
	"encoding/binary"
	"math"
	"math/bits"
	"slices"

	"github.com/hieracc/hieracc/format"
)

// The variants of keys' contributions met before (recTable). A compiler
// shares a key's result between the nodes that resolve it alike: it hands
// the same Contributions and Defaults slices to many bundles. Met in two
// bundles, such a variant is remembered with the ids of its values and
// the encoding of its contributions (appendTmpl), so that the next
// bundle's key that has it costs a lookup (findRec). A compiler that
// does not share contributions makes every key a new variant: then the
// table stops remembering them for a while (judge).

// keyRec is a variant of a key's contributions and defaults met before,
// identified by its slices (their first elements and lengths). Met in two
// bundles or more, it has the node ids of their values and the encoding of
// everything but the value and error indexes. Only variants without errors
// are remembered so.
type keyRec struct {
	contribs, defaults *format.Contribution
	nc, nd             int32
	data               uint32 // offset in recTable.data; metOnce for a variant met in one bundle
	value              any    // the key's value when the variant was met
	valueID            int32  // its node id, -1 if the key had an error
}

// metOnce is the keyRec.data of a variant met in one bundle only (yet).
const metOnce = math.MaxUint32

// first is the variant's first contribution, or default if it has none:
// what a recTable finds it by.
func (rec *keyRec) first() *format.Contribution {
	if rec.contribs != nil {
		return rec.contribs
	}
	return rec.defaults
}

// recTable holds the keyRecs of an Encoder, found by their first
// contribution (keyRec.first): most often among the variants the key at
// the same position had in the last bundles (hints, read in order, as the
// keys are), else through an index small enough to stay in the
// processor's caches: open addressing with linear probing over 8-byte
// slots, each the position of a keyRec and a part of its hash (the tag),
// so that a probe reads a keyRec only when the tags agree. It holds one
// variant per first contribution (the first met twice); variants that
// share one are rare.
type recTable struct {
	recs  []keyRec
	hints []hintSet // by key position: variants met twice the key had in the last bundles
	index []uint64  // a power of two long, at most half full: tag<<32 | position+1, 0 if free
	shift uint8     // 64 - log2(len(index))
	twice int       // recs met in two bundles or more; the others were met once
	// Forget the variants met once beyond this many (and as many as
	// the others): most were a single node's.
	maxOnce int
	data    []byte // per variant met twice: its values' ids (4 bytes each), then its encodings (see appendTmpl)
	// Whether remembering contributions pays: a compiler that does not
	// share them makes every key a new variant (see judge).
	hits, misses int
	pause        int // bundles to encode before trying again
}

// find returns the position in t.recs of the keyRec whose first
// contribution is p, or -1 and the index slot where it goes.
func (t *recTable) find(p *format.Contribution) (rec int32, slot int) {
	h := uint64(addr(p)) * fibonacci
	mask := len(t.index) - 1
	tag := h << 32 // the low bits: the slot is the high ones
	for i := int(h >> t.shift); ; i = (i + 1) & mask {
		x := t.index[i]
		if x == 0 {
			return -1, i
		}
		if x&(math.MaxUint32<<32) == tag {
			if r := int32(uint32(x)) - 1; t.recs[r].first() == p {
				return r, i
			}
		}
	}
}

// add appends rec, whose first contribution has no keyRec yet; slot is
// where find said it goes.
func (t *recTable) add(rec keyRec, slot int) {
	h := uint64(addr(rec.first())) * fibonacci
	t.recs = append(t.recs, rec)
	t.index[slot] = h<<32 | uint64(len(t.recs))
}

// reserve makes room for n new variants (a bundle's keys), forgetting
// the variants met once if there are too many, and reports whether it did.
// The positions of keyRecs change only then.
func (t *recTable) reserve(n int) (moved bool) {
	if once := len(t.recs) - t.twice; once > max(t.maxOnce, t.twice) {
		t.recs = slices.DeleteFunc(t.recs, func(r keyRec) bool { return r.data == metOnce })
		clear(t.hints) // the positions changed
		t.reindex(len(t.index))
		moved = true
	}
	size := max(len(t.index), 1024)
	for 2*(len(t.recs)+n) > size {
		size *= 2
	}
	if size != len(t.index) {
		t.reindex(size)
	}
	return moved
}

// reindex builds an index of the given size over t.recs.
func (t *recTable) reindex(size int) {
	if size == len(t.index) {
		clear(t.index)
	} else {
		t.index = make([]uint64, size)
		t.shift = uint8(64 - bits.Len(uint(size-1)))
	}
	recs := t.recs
	t.recs = t.recs[:0]
	for _, r := range recs {
		_, slot := t.find(r.first())
		t.add(r, slot)
	}
}

// reset forgets every variant (keeping the scratch memory).
func (t *recTable) reset() {
	clear(t.recs) // their values
	t.recs = t.recs[:0]
	clear(t.hints)
	t.hints = t.hints[:0]
	t.index = nil // its size was for what it held
	t.twice = 0
	t.data = t.data[:0]
	t.hits, t.misses, t.pause = 0, 0, 0
}

func first(cs []format.Contribution) *format.Contribution {
	if len(cs) == 0 {
		return nil
	}
	return &cs[0]
}

// findRec returns the slot of the variant of k's contributions met in two
// bundles before, or -1; else it reports whether a variant with the same
// first contribution was met in a bundle before (k's values are then
// worth remembering), and remembers that k's was met now. k is the i-th
// key of its bundle, whose keys have room in t (reserve).
func (t *recTable) findRec(i int, k *format.Key) (rec int32, metBefore bool) {
	c, d := first(k.Contributions), first(k.Defaults)
	if c == nil && d == nil {
		return -1, false
	}
	p := c
	if p == nil {
		p = d
	}
	if i < len(t.hints) {
		for _, h := range &t.hints[i] {
			if h.p == p && t.recs[h.rec].is(k, c, d) {
				return h.rec, false
			}
		}
	}
	r, slot := t.find(p)
	if r < 0 {
		t.add(keyRec{contribs: c, defaults: d, nc: int32(len(k.Contributions)), nd: int32(len(k.Defaults)), data: metOnce, valueID: -1}, slot)
		return -1, false
	}
	if rec := &t.recs[r]; rec.data != metOnce && rec.is(k, c, d) {
		t.hint(i, p, r)
		return r, false
	}
	return -1, true
}

// hintSet is the variants met twice a key position had in the last
// bundles, the latest first; p is the variant's first contribution (or
// default).
type hintSet [4]struct {
	p   *format.Contribution
	rec int32
}

// hint records that the i-th key of a bundle has variant r, met twice,
// whose first contribution (or default) is p.
func (t *recTable) hint(i int, p *format.Contribution, r int32) {
	for len(t.hints) <= i {
		t.hints = append(t.hints, hintSet{})
	}
	h := &t.hints[i]
	copy(h[1:], h[:len(h)-1])
	h[0].p, h[0].rec = p, r
}

// is reports whether rec is the variant of k, whose contributions and
// defaults start at c and d.
func (rec *keyRec) is(k *format.Key, c, d *format.Contribution) bool {
	return rec.contribs == c && rec.defaults == d && int(rec.nc) == len(k.Contributions) && int(rec.nd) == len(k.Defaults)
}

// addRec remembers k's contributions and defaults (which have no error),
// with their values' ids, and k's value with its id (-1 if k has an error).
// If another variant met twice has their first contribution, that one
// stays (this bundle's keys may be using it). k is the i-th key of its
// bundle, which findRec met (their first contribution has a slot) or which
// the last bundle had (it has room, see reserve). cur is the memo of the
// bundle's keys (empty for Encode's), whose entry of k it completes.
func (t *recTable) addRec(cur []priorKey, i int, k *format.Key, valueID int32, ids []int32) {
	rec := keyRec{
		contribs: first(k.Contributions), defaults: first(k.Defaults),
		nc: int32(len(k.Contributions)), nd: int32(len(k.Defaults)),
		data:  uint32(len(t.data)),
		value: k.Value, valueID: valueID,
	}
	ri, slot := t.find(rec.first())
	if ri < 0 {
		// Not met by findRec: the key was the last bundle's.
		t.add(keyRec{contribs: rec.contribs, defaults: rec.defaults, nc: rec.nc, nd: rec.nd, data: metOnce, valueID: -1}, slot)
		ri = int32(len(t.recs) - 1)
	}
	r := &t.recs[ri]
	if r.data != metOnce {
		if r.is(k, rec.contribs, rec.defaults) && i < len(cur) {
			cur[i].rec = ri // k's variant, met twice by another key: the next bundle's
		}
		return
	}
	d := t.data
	for _, id := range ids {
		d = binary.LittleEndian.AppendUint32(d, uint32(id))
	}
	for _, cs := range [2][]format.Contribution{k.Contributions, k.Defaults} {
		for i := range cs {
			c := &cs[i]
			n := len(d)
			d = appendPlace(append(d, 0), c) // length, then the place
			d[n] = byte(len(d) - n - 1)      // at most 32
		}
	}
	t.data = d
	*r = rec
	t.twice++
	t.hint(i, rec.first(), ri)
	if i < len(cur) {
		cur[i].rec = ri
	}
}

// appendTmpl appends the contributions and defaults (if any) of a key
// whose contributions are rec, as appendContributions4 does, with value
// indexes from refs (two per contribution: value, error) and own, the
// index of the key's value.
func (t *recTable) appendTmpl(w []byte, rec *keyRec, own int32, refs []int32) []byte {
	d := t.data[rec.data+4*uint32(rec.nc+rec.nd):]
	w = appendArrayLen(w, 5*int(rec.nc))
	for i := range int(rec.nc) + int(rec.nd) {
		if i == int(rec.nc) {
			w = appendArrayLen(w, 5*int(rec.nd))
		}
		n := int(d[0])
		w = append(w, d[1:1+n]...)
		d = d[1+n:]
		w = appendUint(w, contribRef(refs[2*i], -1, own))
	}
	return w
}

// judge stops remembering contributions for a while when a bundle
// found few of its keys' contributions among those remembered: the
// compiler does not share them, and remembering costs for nothing.
func (t *recTable) judge(hits, misses int) {
	t.hits += hits
	t.misses += misses
	if t.hits+t.misses < 8000 {
		return // judge over a few bundles
	}
	if t.hits < t.misses/8 {
		t.pause = 32
	}
	t.hits, t.misses = 0, 0
}
