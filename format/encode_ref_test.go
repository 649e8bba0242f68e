package format

// This file keeps the encoder as it was before Encoder (msgpack's encoder,
// one table per bundle) as a reference: the new encoder must produce the
// same bytes for every bundle (TestEncoderMatchesReference), and the
// benchmarks measure against it.

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"math"

	"github.com/vmihailenco/msgpack/v5"
)

// refEncode is Encode as it was before Encoder.
func refEncode(b *Bundle) ([]byte, error) {
	e := &refEncoder{
		vals:   map[string]int{},
		errs:   map[Error]int{},
		hashes: map[*Hash]int{},
		slices: map[refSliceID]int{},
	}
	e.sw = refNewWriter(&e.scratch)
	body, err := e.body(b)
	if err != nil {
		return nil, err
	}
	digest := sha256.Sum256(body)

	var buf bytes.Buffer
	buf.Grow(len(body) + 128 + len(b.Node) + len(b.Environment) + len(b.Revision))
	w := refNewWriter(&buf)
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

// refWriter wraps msgpack's refEncoder, keeping its first error.
type refWriter struct {
	enc *msgpack.Encoder
	buf *bytes.Buffer
	err error
}

func refNewWriter(buf *bytes.Buffer) *refWriter {
	return &refWriter{enc: msgpack.NewEncoder(buf), buf: buf}
}

func (w *refWriter) keep(err error) {
	if w.err == nil {
		w.err = err
	}
}

func (w *refWriter) array(n int)      { w.keep(w.enc.EncodeArrayLen(n)) }
func (w *refWriter) mapLen(n int)     { w.keep(w.enc.EncodeMapLen(n)) }
func (w *refWriter) string(s string)  { w.keep(w.enc.EncodeString(s)) }
func (w *refWriter) bytes(b []byte)   { w.keep(w.enc.EncodeBytes(b)) }
func (w *refWriter) uint(n uint64)    { w.keep(w.enc.EncodeUint(n)) }
func (w *refWriter) int(n int64)      { w.keep(w.enc.EncodeInt(n)) }
func (w *refWriter) bool(b bool)      { w.keep(w.enc.EncodeBool(b)) }
func (w *refWriter) nil()             { w.keep(w.enc.EncodeNil()) }
func (w *refWriter) float(f float64)  { w.keep(w.enc.EncodeFloat64(f)) }
func (w *refWriter) fixed32(n uint32) { w.keep(w.enc.EncodeUint32(n)) }

// ref writes a reference, or nil for -1.
func (w *refWriter) ref(i int) {
	if i < 0 {
		w.nil()
		return
	}
	w.uint(uint64(i))
}

// raw appends bytes that are already msgpack.
func (w *refWriter) raw(b []byte) { w.buf.Write(b) }

type refEncoder struct {
	// The value table: each distinct value once, children before parents.
	entries [][]byte // msgpack of each entry, references as indexes
	depth   []int32
	nodes   []int64
	vals    map[string]int // entry bytes -> index
	hashes  map[*Hash]int  // a hash already added (shared subtrees)
	slices  map[refSliceID]int
	scratch bytes.Buffer
	sw      *refWriter // writes to scratch

	errList []Error
	errs    map[Error]int
}

// value adds v and its children to the table and returns its index.
func (e *refEncoder) value(v any, depth int) (int, error) {
	if depth > MaxDepth {
		return 0, fmt.Errorf("value nested deeper than %d", MaxDepth)
	}
	var kids []int
	container := false
	switch v := v.(type) {
	case nil, bool, int64, float64, string:
	case []any:
		if len(v) > 0 {
			if i, ok := e.slices[refSliceID{&v[0], len(v)}]; ok {
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
			e.slices[refSliceID{&v[0], len(v)}] = i
		}
	}
	return i, nil
}

// refSliceID identifies a slice by its memory, to add a shared one only once.
type refSliceID struct {
	first *any
	len   int
}

// err adds an error to the error table; -1 for nil.
func (e *refEncoder) err(x *Error) int {
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

// refContribution is a Contribution with its value and error as table indexes.
type refContribution struct {
	c        *Contribution
	val, err int
}

func (e *refEncoder) contributions(cs []Contribution) ([]refContribution, error) {
	out := make([]refContribution, len(cs))
	for i := range cs {
		c := &cs[i]
		if c.Layer > LayerModule {
			return nil, fmt.Errorf("contribution %d: unknown layer %d", i, c.Layer)
		}
		if c.Level < 0 || c.Location < 0 || c.Level > math.MaxInt32 || c.Location > math.MaxInt32 {
			return nil, fmt.Errorf("contribution %d: level %d, location %d out of range", i, c.Level, c.Location)
		}
		out[i] = refContribution{c: c, val: -1, err: e.err(c.Err)}
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

func (e *refEncoder) body(b *Bundle) ([]byte, error) {
	for i := range b.Keys {
		if err := checkAsked(&b.Keys[i]); err != nil {
			return nil, err
		}
	}
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
	if err := checkOptionScopes(b.Options); err != nil {
		return nil, err
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
	var optErrs []int
	for _, sc := range b.Options {
		optErrs = append(optErrs, e.err(sc.Err))
		for _, o := range sc.Literal {
			optErrs = append(optErrs, e.err(o.Err))
		}
		for _, o := range sc.Pattern {
			optErrs = append(optErrs, e.err(o.Err))
		}
	}
	contribs := make([][]refContribution, len(b.Keys))
	defaults := make([][]refContribution, len(b.Keys))
	asked := make([][][2][]refContribution, len(b.Keys))
	for i := range b.Keys {
		k := &b.Keys[i]
		var err error
		if contribs[i], err = e.contributions(k.Contributions); err != nil {
			return nil, fmt.Errorf("format: key %q: %w", k.Name, err)
		}
		if defaults[i], err = e.contributions(k.Defaults); err != nil {
			return nil, fmt.Errorf("format: key %q: defaults: %w", k.Name, err)
		}
		for _, a := range k.Asked {
			var pair [2][]refContribution
			for j, cs := range [2][]Contribution{a.Contributions, a.Defaults} {
				if pair[j], err = e.contributions(cs); err != nil {
					return nil, fmt.Errorf("format: key %q: asked as %q: %w", k.Name, a.Text, err)
				}
			}
			asked[i] = append(asked[i], pair)
		}
	}

	var details bytes.Buffer
	d := refNewWriter(&details)
	d.array(5)
	d.array(len(e.entries) - nFast)
	for _, x := range e.entries[nFast:] {
		d.raw(x)
	}
	refWriteHierarchy(d, &b.Global)
	refWriteHierarchy(d, &b.Env)
	d.array(len(b.Modules))
	for _, m := range b.Modules {
		d.array(3)
		d.string(m.Name)
		refWriteHierarchy(d, &m.Hierarchy)
		if m.Default == nil {
			d.nil()
		} else {
			refWriteHierarchy(d, m.Default)
		}
	}
	d.array(len(b.Keys))
	for i := range b.Keys {
		k := &b.Keys[i]
		d.array(7)
		refWriteMerge(d, k.Merge)
		refWriteContributions(d, contribs[i])
		refWriteMerge(d, k.DefaultMerge)
		refWriteContributions(d, defaults[i])
		if len(k.ConvertTo) == 0 {
			d.nil()
		} else {
			d.array(len(k.ConvertTo))
			for _, v := range k.ConvertTo {
				switch v := v.(type) {
				case string:
					d.string(v)
				case int64:
					d.int(v)
				case bool:
					d.bool(v)
				}
			}
		}
		if o := k.MergeFrom; o == nil {
			d.nil()
		} else {
			d.array(5)
			d.string(o.Entry)
			d.string(o.File)
			d.int(int64(o.Line))
			d.int(int64(o.Column))
			d.string(o.Level)
		}
		if k.Asked == nil {
			d.nil()
		} else {
			d.array(len(k.Asked))
			for j, a := range k.Asked {
				d.array(3)
				d.string(a.Text)
				refWriteContributions(d, asked[i][j][0])
				refWriteContributions(d, asked[i][j][1])
			}
		}
	}
	if d.err != nil {
		return nil, d.err
	}

	var body bytes.Buffer
	w := refNewWriter(&body)
	w.array(8)
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
		w.array(4)
		w.string(b.Keys[i].Name)
		w.ref(keyVals[i])
		w.ref(keyErrs[i])
		w.uint(keyFlags(&b.Keys[i]))
	}
	w.bytes(refIndexTable(b.Keys))
	w.bytes(details.Bytes())
	w.array(len(b.Options))
	for _, sc := range b.Options {
		w.array(5)
		w.string(sc.Module)
		w.bool(sc.Default)
		w.ref(optErrs[0])
		optErrs = optErrs[1:]
		for _, es := range [][]OptionEntry{sc.Literal, sc.Pattern} {
			w.array(len(es))
			for _, o := range es {
				w.array(2)
				w.string(o.Name)
				w.ref(optErrs[0])
				optErrs = optErrs[1:]
			}
		}
	}
	return body.Bytes(), w.err
}

// refIndexTable builds the open-addressing table of the index section.
func refIndexTable(keys []Key) []byte {
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

func refWriteHierarchy(w *refWriter, h *Hierarchy) {
	w.array(2)
	w.bool(h.Present)
	w.array(len(h.Levels))
	for _, l := range h.Levels {
		w.array(2)
		w.string(l.Name)
		w.array(len(l.Locations))
		for _, loc := range l.Locations {
			w.array(3)
			w.string(loc.Path)
			w.bool(loc.Exists)
			w.string(loc.Original)
		}
	}
}

func refWriteMerge(w *refWriter, m Merge) {
	if m == (Merge{}) {
		w.nil()
		return
	}
	w.array(4)
	w.string(string(m.Strategy))
	w.string(m.KnockoutPrefix)
	w.bool(m.SortMergedArrays)
	w.bool(m.MergeHashArrays)
}

func refWriteContributions(w *refWriter, cs []refContribution) {
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
