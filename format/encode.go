package format

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"math"

	"github.com/vmihailenco/msgpack/v5"
)

// Encode writes b in the newest format version. The output depends only on
// b: the same bundle always gives the same bytes.
//
// Encode rejects bundles that break the invariants documented on Bundle
// (Keys and Modules sorted and unique, values of the Value types only) and
// values beyond MaxDepth or MaxNodes.
func Encode(b *Bundle) ([]byte, error) {
	e := &encoder{
		vals:   map[string]int{},
		errs:   map[Error]int{},
		hashes: map[*Hash]int{},
		slices: map[sliceID]int{},
	}
	e.sw = newWriter(&e.scratch)
	body, err := e.body(b)
	if err != nil {
		return nil, err
	}
	digest := sha256.Sum256(body)

	var buf bytes.Buffer
	buf.Grow(len(body) + 128 + len(b.Node) + len(b.Environment) + len(b.Revision))
	w := newWriter(&buf)
	w.string(magic[1:])
	w.uint(Version)
	w.array(6)
	w.bytes(digest[:])
	w.uint(uint64(len(body)))
	w.string(b.Node)
	w.string(b.Environment)
	w.string(b.Revision)
	w.fixed32(crc32.Checksum(buf.Bytes(), castagnoli))
	if buf.Len() > maxHeader {
		return nil, fmt.Errorf("format: header of %d bytes exceeds %d: node, environment or revision too long", buf.Len(), maxHeader)
	}
	buf.Write(body)
	return buf.Bytes(), w.err
}

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// writer wraps msgpack's encoder, keeping its first error.
type writer struct {
	enc *msgpack.Encoder
	buf *bytes.Buffer
	err error
}

func newWriter(buf *bytes.Buffer) *writer {
	return &writer{enc: msgpack.NewEncoder(buf), buf: buf}
}

func (w *writer) keep(err error) {
	if w.err == nil {
		w.err = err
	}
}

func (w *writer) array(n int)      { w.keep(w.enc.EncodeArrayLen(n)) }
func (w *writer) mapLen(n int)     { w.keep(w.enc.EncodeMapLen(n)) }
func (w *writer) string(s string)  { w.keep(w.enc.EncodeString(s)) }
func (w *writer) bytes(b []byte)   { w.keep(w.enc.EncodeBytes(b)) }
func (w *writer) uint(n uint64)    { w.keep(w.enc.EncodeUint(n)) }
func (w *writer) int(n int64)      { w.keep(w.enc.EncodeInt(n)) }
func (w *writer) bool(b bool)      { w.keep(w.enc.EncodeBool(b)) }
func (w *writer) nil()             { w.keep(w.enc.EncodeNil()) }
func (w *writer) float(f float64)  { w.keep(w.enc.EncodeFloat64(f)) }
func (w *writer) fixed32(n uint32) { w.keep(w.enc.EncodeUint32(n)) }

// ref writes a reference, or nil for -1.
func (w *writer) ref(i int) {
	if i < 0 {
		w.nil()
		return
	}
	w.uint(uint64(i))
}

// raw appends bytes that are already msgpack.
func (w *writer) raw(b []byte) { w.buf.Write(b) }

type encoder struct {
	// The value table: each distinct value once, children before parents.
	entries [][]byte // msgpack of each entry, references as indexes
	depth   []int32
	nodes   []int64
	vals    map[string]int // entry bytes -> index
	hashes  map[*Hash]int  // a hash already added (shared subtrees)
	slices  map[sliceID]int
	scratch bytes.Buffer
	sw      *writer // writes to scratch

	errList []Error
	errs    map[Error]int
}

// value adds v and its children to the table and returns its index.
func (e *encoder) value(v any, depth int) (int, error) {
	if depth > MaxDepth {
		return 0, fmt.Errorf("value nested deeper than %d", MaxDepth)
	}
	var kids []int
	container := false
	switch v := v.(type) {
	case nil, bool, int64, float64, string:
	case []any:
		if len(v) > 0 {
			if i, ok := e.slices[sliceID{&v[0], len(v)}]; ok {
				return i, nil
			}
		}
		container = true
		kids = make([]int, len(v))
		for i, x := range v {
			k, err := e.value(x, depth+1)
			if err != nil {
				return 0, err
			}
			kids[i] = k
		}
	case *Hash:
		if v == nil {
			return 0, fmt.Errorf("nil *Hash")
		}
		if i, ok := e.hashes[v]; ok {
			return i, nil
		}
		container = true
		kids = make([]int, 0, 2*v.Len())
		for k, x := range v.All() {
			ki, err := e.value(k, depth+1)
			if err != nil {
				return 0, err
			}
			vi, err := e.value(x, depth+1)
			if err != nil {
				return 0, err
			}
			kids = append(kids, ki, vi)
		}
	default:
		return 0, fmt.Errorf("unsupported value type %T", v)
	}

	e.scratch.Reset()
	w := e.sw
	switch v := v.(type) {
	case nil:
		w.nil()
	case bool:
		w.bool(v)
	case int64:
		w.int(v)
	case float64:
		w.float(v)
	case string:
		w.string(v)
	case []any:
		w.array(len(kids))
	case *Hash:
		w.mapLen(len(kids) / 2)
	}
	for _, k := range kids {
		w.uint(uint64(k))
	}
	if w.err != nil {
		return 0, w.err
	}
	i, ok := e.vals[string(e.scratch.Bytes())]
	if !ok {
		var d int32
		var n int64 = 1
		if container {
			d = 1
		}
		for _, k := range kids {
			d = max(d, e.depth[k]+1)
			n = min(n+e.nodes[k], MaxNodes+1)
		}
		if d > MaxDepth {
			return 0, fmt.Errorf("value nested deeper than %d", MaxDepth)
		}
		if n > MaxNodes {
			return 0, fmt.Errorf("value has more than %d nodes", MaxNodes)
		}
		i = len(e.entries)
		entry := bytes.Clone(e.scratch.Bytes())
		e.entries = append(e.entries, entry)
		e.depth = append(e.depth, d)
		e.nodes = append(e.nodes, n)
		e.vals[string(entry)] = i
	}
	switch v := v.(type) {
	case *Hash:
		e.hashes[v] = i
	case []any:
		if len(v) > 0 {
			e.slices[sliceID{&v[0], len(v)}] = i
		}
	}
	return i, nil
}

// sliceID identifies a slice by its memory, to add a shared one only once.
type sliceID struct {
	first *any
	len   int
}

// err adds an error to the error table; -1 for nil.
func (e *encoder) err(x *Error) int {
	if x == nil {
		return -1
	}
	if i, ok := e.errs[*x]; ok {
		return i
	}
	i := len(e.errList)
	e.errList = append(e.errList, *x)
	e.errs[*x] = i
	return i
}

// contribution is a Contribution with its value and error as table indexes.
type contribution struct {
	c        *Contribution
	val, err int
}

func (e *encoder) contributions(cs []Contribution) ([]contribution, error) {
	out := make([]contribution, len(cs))
	for i := range cs {
		c := &cs[i]
		if c.Layer > LayerModule {
			return nil, fmt.Errorf("contribution %d: unknown layer %d", i, c.Layer)
		}
		if c.Level < 0 || c.Location < 0 || c.Level > math.MaxInt32 || c.Location > math.MaxInt32 {
			return nil, fmt.Errorf("contribution %d: level %d, location %d out of range", i, c.Level, c.Location)
		}
		out[i] = contribution{c: c, val: -1, err: e.err(c.Err)}
		if c.Err == nil {
			v, err := e.value(c.Value, 0)
			if err != nil {
				return nil, fmt.Errorf("contribution %d: %w", i, err)
			}
			out[i].val = v
		}
	}
	return out, nil
}

func (e *encoder) body(b *Bundle) ([]byte, error) {
	for i := 1; i < len(b.Keys); i++ {
		if b.Keys[i-1].Name >= b.Keys[i].Name {
			return nil, fmt.Errorf("format: Keys not sorted and unique: %q before %q", b.Keys[i-1].Name, b.Keys[i].Name)
		}
	}
	for i := 1; i < len(b.Modules); i++ {
		if b.Modules[i-1].Name >= b.Modules[i].Name {
			return nil, fmt.Errorf("format: Modules not sorted and unique: %q before %q", b.Modules[i-1].Name, b.Modules[i].Name)
		}
	}

	// Fast part first, so that its values take the low indexes and a
	// reader can decode them without the details.
	keyVals := make([]int, len(b.Keys))
	keyErrs := make([]int, len(b.Keys))
	for i := range b.Keys {
		k := &b.Keys[i]
		keyVals[i], keyErrs[i] = -1, e.err(k.Err)
		if k.Err == nil {
			v, err := e.value(k.Value, 0)
			if err != nil {
				return nil, fmt.Errorf("format: key %q: %w", k.Name, err)
			}
			keyVals[i] = v
		}
	}
	nFast := len(e.entries)
	nodeErr := e.err(b.NodeError)
	var modErrs []int
	for _, m := range b.Modules {
		modErrs = append(modErrs, e.err(m.Err))
	}
	contribs := make([][]contribution, len(b.Keys))
	defaults := make([][]contribution, len(b.Keys))
	for i := range b.Keys {
		k := &b.Keys[i]
		var err error
		if contribs[i], err = e.contributions(k.Contributions); err != nil {
			return nil, fmt.Errorf("format: key %q: %w", k.Name, err)
		}
		if defaults[i], err = e.contributions(k.Defaults); err != nil {
			return nil, fmt.Errorf("format: key %q: defaults: %w", k.Name, err)
		}
	}

	var details bytes.Buffer
	d := newWriter(&details)
	d.array(5)
	d.array(len(e.entries) - nFast)
	for _, x := range e.entries[nFast:] {
		d.raw(x)
	}
	writeHierarchy(d, &b.Global)
	writeHierarchy(d, &b.Env)
	d.array(len(b.Modules))
	for _, m := range b.Modules {
		d.array(3)
		d.string(m.Name)
		writeHierarchy(d, &m.Hierarchy)
		if m.Default == nil {
			d.nil()
		} else {
			writeHierarchy(d, m.Default)
		}
	}
	d.array(len(b.Keys))
	for i := range b.Keys {
		k := &b.Keys[i]
		d.array(4)
		writeMerge(d, k.Merge)
		writeContributions(d, contribs[i])
		writeMerge(d, k.DefaultMerge)
		writeContributions(d, defaults[i])
	}
	if d.err != nil {
		return nil, d.err
	}

	var body bytes.Buffer
	w := newWriter(&body)
	w.array(7)
	w.array(nFast)
	for _, x := range e.entries[:nFast] {
		w.raw(x)
	}
	w.array(len(e.errList))
	for _, x := range e.errList {
		w.array(5)
		w.string(x.Message)
		w.string(x.File)
		w.int(int64(x.Line))
		w.int(int64(x.Column))
		w.string(x.Level)
	}
	w.ref(nodeErr)
	n := 0
	for _, i := range modErrs {
		if i >= 0 {
			n++
		}
	}
	w.array(n)
	for j, i := range modErrs {
		if i >= 0 {
			w.array(2)
			w.string(b.Modules[j].Name)
			w.uint(uint64(i))
		}
	}
	w.array(len(b.Keys))
	for i := range b.Keys {
		w.array(3)
		w.string(b.Keys[i].Name)
		w.ref(keyVals[i])
		w.ref(keyErrs[i])
	}
	w.bytes(indexTable(b.Keys))
	w.bytes(details.Bytes())
	return body.Bytes(), w.err
}

// indexTable builds the open-addressing table of the index section.
func indexTable(keys []Key) []byte {
	slots := make([]uint32, slotCount(len(keys)))
	mask := uint64(len(slots) - 1)
	for i := range keys {
		j := keyHash(keys[i].Name) & mask
		for slots[j] != 0 {
			j = (j + 1) & mask
		}
		slots[j] = uint32(i + 1)
	}
	out := make([]byte, 4*len(slots))
	for i, s := range slots {
		binary.LittleEndian.PutUint32(out[4*i:], s)
	}
	return out
}

func writeHierarchy(w *writer, h *Hierarchy) {
	w.array(2)
	w.bool(h.Present)
	w.array(len(h.Levels))
	for _, l := range h.Levels {
		w.array(2)
		w.string(l.Name)
		w.array(len(l.Locations))
		for _, loc := range l.Locations {
			w.array(2)
			w.string(loc.Path)
			w.bool(loc.Exists)
		}
	}
}

func writeMerge(w *writer, m Merge) {
	if m == (Merge{}) {
		w.nil()
		return
	}
	w.array(4)
	w.string(m.Strategy)
	w.string(m.KnockoutPrefix)
	w.bool(m.SortMergedArrays)
	w.bool(m.MergeHashArrays)
}

func writeContributions(w *writer, cs []contribution) {
	w.array(len(cs))
	for _, c := range cs {
		w.array(7)
		w.uint(uint64(c.c.Layer))
		w.uint(uint64(c.c.Level))
		w.uint(uint64(c.c.Location))
		w.int(int64(c.c.Line))
		w.int(int64(c.c.Column))
		w.ref(c.val)
		w.ref(c.err)
	}
}
