package format

// Reading one key of a bundle without decoding the others (hieracc serve
// answers a key of any node of a fleet): the key table is read in name
// order up to the key, no name built but the one before, and only the
// entries of the key's value are decoded.

import (
	"slices"
	"strings"
	"sync"

	"github.com/hieracc/hieracc/format/trust"
)

// KeyReader is a bundle verified as DecodeIndex verifies it (magic,
// version, checksums, digest), whose keys Key reads one at a time
// without decoding the others. It keeps the bundle's bytes (one copy).
// It checks what it reads, not what it skips: a bundle whose digest holds
// but which its writer made wrong elsewhere still answers the keys it
// reads right. Bundles before format version 5 are decoded whole.
type KeyReader struct {
	Header
	NodeError    *Error
	ModuleErrors []ModuleError
	Signature    *trust.Signature
	x            *Index
	first        []int // the first entry of each value table section, then their number

	views *ViewOffsets

	mu    sync.Mutex
	offs  []int32 // where the value table's first entries start
	marks []mark  // where scans of the key table can start
}

// ViewOffsets remembers where the entries of views start, for the
// KeyReaders of bundles that share a view (a fleet's): a view is skipped
// through once, not once a bundle. It keeps the first views it is given
// up to maxViewBytes (their bytes and 4 an entry): a fleet has a few
// hundred views of tens of KB. Safe for concurrent use.
type ViewOffsets struct {
	mu   sync.Mutex
	m    map[string][]int32
	size int
}

const maxViewBytes = 16 << 20

func (v *ViewOffsets) load(b string) []int32 {
	v.mu.Lock()
	defer v.mu.Unlock()
	return v.m[b]
}

func (v *ViewOffsets) store(b string, offs []int32) {
	v.mu.Lock()
	defer v.mu.Unlock()
	if n := len(b) + 4*len(offs); v.size+n <= maxViewBytes && v.m[b] == nil {
		if v.m == nil {
			v.m = map[string][]int32{}
		}
		v.m[strings.Clone(b)], v.size = offs, v.size+n
	}
}

// NewKeyReader verifies data and returns its KeyReader. hashed, when not
// nil, reports whether the caller has seen bytes whose header gives the
// digest hash to it, and has these bytes again (the same file, unchanged):
// then the body is not hashed again. views, when not nil, shares where
// the entries of the bundle's view start with other KeyReaders.
func NewKeyReader(data []byte, hashed func(digest [32]byte) bool, views *ViewOffsets) (*KeyReader, error) {
	x, err := decodeIndexAs(data, nil, true, hashed)
	if err != nil {
		return nil, err
	}
	kr := &KeyReader{Header: x.Header, NodeError: x.NodeError, ModuleErrors: x.ModuleErrors, Signature: x.Signature, x: x, first: []int{0}}
	if has(x.Version, fView) {
		kr.views = views
	}
	for i := range x.values.secs {
		s := &x.values.secs[i]
		n, off, ok := uvarint(s.s, 0)
		if !ok || n > uint64(len(s.s)-off) {
			return nil, s.errorf("value table: bad count")
		}
		s.off = off
		kr.first = append(kr.first, kr.first[i]+int(n))
	}
	return kr, nil
}

// VerifySignature is Index.VerifySignature.
func (kr *KeyReader) VerifySignature(v *trust.Verifier) error { return kr.x.VerifySignature(v) }

// Key returns the entry of key name as DecodeIndex's Keys hold it (but
// Name, which is name), its value decoded; found is false when the bundle
// has no such key.
func (kr *KeyReader) Key(name string) (k IndexKey, found bool, err error) {
	x := kr.x
	if !has(x.Version, fKeyTable) { // decoded whole
		if i := x.Find(name); i >= 0 {
			return x.Keys[i], true, nil
		}
		return k, false, nil
	}
	t := &keyScan{reader: x.keyTable, x: x, nvals: int64(kr.first[len(kr.first)-1]), lasts: [2]int64{-1, -1}}
	n, err := t.next("the key count")
	if err != nil {
		return k, false, err
	}
	var b [128]byte
	prev, m, i := b[:0], 0, 0 // the name before, and the bytes it shares with name
	kr.mu.Lock()
	marks := kr.marks
	kr.mu.Unlock()
	if j, _ := slices.BinarySearchFunc(marks, name, func(c mark, name string) int { return strings.Compare(c.prev, name) }); j > 0 {
		c := &marks[j-1] // the last before name: start there
		t.off, t.lasts, i, prev = c.off, c.lasts, c.i, append(prev, c.prev...)
		for m < len(prev) && m < len(name) && prev[m] == name[m] {
			m++
		}
	}
	for ; uint64(i) < n; i++ {
		if i%markEvery == 0 && i > 0 {
			kr.mark(mark{t.off, i, t.lasts, string(prev)})
		}
		shared, suffix, err := t.name(i, prev)
		if err != nil {
			return k, false, err
		}
		prev = append(prev[:shared], suffix...)
		if shared <= m { // else it differs from name where prev did: before it
			m = shared
			for m < len(prev) && m < len(name) && prev[m] == name[m] {
				m++
			}
		}
		if shared > m || m < len(name) && (m == len(prev) || prev[m] < name[m]) {
			if err := t.skip(); err != nil {
				return k, false, err
			}
			continue
		}
		if m < len(prev) {
			break // after name
		}
		if err := t.entry(&k, prev); err != nil {
			return k, false, err
		}
		if k.shared && !x.hasShared {
			return k, false, t.errorf("key %q: details in a shared file the bundle does not name", name)
		}
		k.Name = name
		if k.valueAt >= 0 {
			k.Value, err = kr.value(int(k.valueAt))
		}
		return k, err == nil, err
	}
	return IndexKey{}, false, nil
}

// mark is where a scan of the key table can start: before key i, after
// the name before it (prev), every markEvery keys.
type mark struct {
	off   int
	i     int
	lasts [2]int64
	prev  string
}

const markEvery = 64

// mark keeps c, the next mark, when no scan kept it before.
func (kr *KeyReader) mark(c mark) {
	kr.mu.Lock()
	if c.i == markEvery*(len(kr.marks)+1) {
		kr.marks = append(kr.marks, c) // appended to, never changed
	}
	kr.mu.Unlock()
}

// peekLimit bounds the entries of a value Key decodes: a larger one
// (DecodeIndex holds values to MaxDepth and MaxNodes) fails it.
const peekLimit = 4096

// value decodes the value table's entry j and those it refers to.
func (kr *KeyReader) value(j int) (any, error) {
	kr.mu.Lock()
	offs, want, view := kr.offs, j, ""
	if len(offs) == 0 && kr.views != nil { // the view's: shared
		if offs = slices.Clip(kr.views.load(kr.x.values.secs[0].s)); offs == nil {
			want, view = max(j, kr.first[1]-1), kr.x.values.secs[0].s
		}
	}
	for len(offs) <= want { // where entries start, up to want
		s, e := 0, len(offs)
		for e >= kr.first[s+1] {
			s++
		}
		r := kr.x.values.secs[s] // r.off: the section's first entry
		if e > kr.first[s] {
			r.off = int(offs[e-1])
			if err := skipEntry(&r); err != nil {
				kr.mu.Unlock()
				return nil, err
			}
		}
		for offs = append(offs, int32(r.off)); len(offs) <= want && len(offs) < kr.first[s+1]; offs = append(offs, int32(r.off)) {
			if err := skipEntry(&r); err != nil {
				kr.mu.Unlock()
				return nil, err
			}
		}
	}
	if view != "" {
		kr.views.store(view, offs[:kr.first[1]:kr.first[1]])
	}
	kr.offs = offs // appended to, never changed: read without the lock
	kr.mu.Unlock()
	budget := peekLimit
	v, err := kr.entry(j, offs, &budget)
	if err == nil && budget < 0 {
		err = kr.x.keyTable.errorf("key table: a value of more than %d entries", peekLimit)
	}
	return v, err
}

// entry decodes entry j, its kids recursively; each entry decoded takes
// one from budget, which going below zero ends the decoding.
func (kr *KeyReader) entry(j int, offs []int32, budget *int) (any, error) {
	if *budget--; *budget < 0 {
		return nil, nil
	}
	s := 0
	for j >= kr.first[s+1] {
		s++
	}
	r := kr.x.values.secs[s]
	r.off = int(offs[j])
	c, err := r.peek()
	if err != nil {
		return nil, err
	}
	var m int
	isMap := c >= 0x80 && c <= 0x8f || c == mMap16 || c == mMap32
	switch {
	case c >= 0x90 && c <= 0x9f || c == mArray16 || c == mArray32:
		m, err = r.arrayLen()
	case isMap:
		m, err = r.mapLen()
	default:
		return scalar(&r, c)
	}
	if err != nil {
		return nil, err
	}
	n := m
	if isMap {
		n *= 2
	}
	kids := make([]any, 0, n)
	t := valueTable{varints: true}
	for range n {
		k, err := t.kid(&r, j)
		if err != nil {
			return nil, err
		}
		v, err := kr.entry(k, offs, budget)
		if err != nil || *budget < 0 {
			return nil, err
		}
		kids = append(kids, v)
	}
	if !isMap {
		return kids, nil
	}
	h := NewHash(m)
	for i := 0; i < len(kids); i += 2 {
		if !validKey(kids[i]) {
			return nil, r.errorf("hash key of entry %d is not a scalar (or is NaN)", j)
		}
		if h.Has(kids[i]) {
			return nil, r.errorf("duplicate hash key in entry %d", j)
		}
		h.Set(kids[i], kids[i+1])
	}
	return h, nil
}

// skipEntry moves r past one entry of a value table section.
func skipEntry(r *reader) error {
	c, err := r.peek()
	if err != nil {
		return err
	}
	n := 0 // varints after the entry's first bytes
	switch {
	case c <= 0x7f || c >= 0xe0 || c == mNil || c == mFalse || c == mTrue:
		r.off++
	case c >= 0xa0 && c <= 0xbf || c >= mStr8 && c <= mStr32:
		_, err = r.str()
	case c >= 0x90 && c <= 0x9f || c == mArray16 || c == mArray32:
		n, err = r.arrayLen()
	case c >= 0x80 && c <= 0x8f || c == mMap16 || c == mMap32:
		n, err = r.mapLen()
		n *= 2
	case c >= mFloat32 && c <= mInt64:
		_, err = r.be(1 + skipWidth[c-mFloat32])
	default:
		return r.errorf("value of unsupported %s", codeName(c))
	}
	for ; err == nil && n > 0; r.off++ { // n varints: their last bytes
		if r.off >= len(r.s) {
			return r.errorf("truncated")
		}
		if r.s[r.off] < 0x80 {
			n--
		}
	}
	return err
}

// skipWidth is the bytes after the code of floats and ints, from mFloat32
// (0xca) to mInt64 (0xd3).
var skipWidth = [...]int{4, 8, 1, 2, 4, 8, 1, 2, 4, 8}
