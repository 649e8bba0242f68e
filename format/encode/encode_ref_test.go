package encode

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
	"os"
	"slices"
	"testing"

	"github.com/hieracc/hieracc/format"
	"github.com/hieracc/hieracc/format/internal/wire"
	"github.com/vmihailenco/msgpack/v5"
)

// refEncode is Encode as it was before Encoder.
func refEncode(b *format.Bundle) ([]byte, error) { return refEncodeVersion(b, format.Version) }

// refEncodeVersion encodes b in the given format version, leaving out
// what older versions lack: the reference for their samples
// (TestRefEncodesSamples) and for measuring sizes against them.
func refEncodeVersion(b *format.Bundle, version int) ([]byte, error) {
	e := &refEncoder{
		version: version,
		vals:    map[string]int{},
		errs:    map[format.Error]int{},
		hashes:  map[*format.Hash]int{},
		slices:  map[refSliceID]int{},
	}
	e.sw = refNewWriter(&e.scratch)
	body, err := e.body(b, version)
	if err != nil {
		return nil, err
	}
	digest := sha256.Sum256(body)

	var buf bytes.Buffer
	buf.Grow(len(body) + 128 + len(b.Node) + len(b.Environment) + len(b.Revision) + len(b.SourceRevision))
	w := refNewWriter(&buf)
	w.string(wire.Magic[1:])
	w.uint(uint64(version))
	fields := 6
	if version >= 4 /* the seal */ {
		fields++
	}
	if version >= 7 /* the source revision */ {
		fields++
	}
	w.array(fields)
	w.bytes(digest[:])
	w.uint(uint64(len(body)))
	w.string(b.Node)
	w.string(b.Environment)
	w.string(b.Revision)
	if version >= 7 /* the source revision */ {
		w.string(b.SourceRevision)
	}
	if version >= 4 /* the seal */ {
		buf.WriteByte(0xc0) // no seal
	}
	w.fixed32(crc32.Checksum(buf.Bytes(), wire.Castagnoli))
	if buf.Len() > wire.MaxHeader {
		return nil, fmt.Errorf("format: header of %d bytes exceeds %d: node, environment, revision or source revision too long", buf.Len(), wire.MaxHeader)
	}
	buf.Write(body)
	if version >= 4 {
		buf.WriteByte(0xc0) // no signature
	}
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
	version int
	// The value table: each distinct value once, children before parents.
	entries [][]byte // msgpack of each entry, references as indexes
	depth   []int32
	nodes   []int64
	vals    map[string]int       // entry bytes -> index
	hashes  map[*format.Hash]int // a hash already added (shared subtrees)
	slices  map[refSliceID]int
	scratch bytes.Buffer
	sw      *refWriter // writes to scratch

	errList []format.Error
	errs    map[format.Error]int
}

// value adds v and its children to the table and returns its index.
func (e *refEncoder) value(v any, depth int) (int, error) {
	if depth > format.MaxDepth {
		return 0, fmt.Errorf("value nested deeper than %d", format.MaxDepth)
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
	case *format.Hash:
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
	case *format.Hash:
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
			n = min(n+e.nodes[k], format.MaxNodes+1)
		}
		if d > format.MaxDepth {
			return 0, fmt.Errorf("value nested deeper than %d", format.MaxDepth)
		}
		if n > format.MaxNodes {
			return 0, fmt.Errorf("value has more than %d nodes", format.MaxNodes)
		}
		i = len(e.entries)
		key := e.scratch.String() // the entry with msgpack references
		entry := []byte(key)
		if e.version >= 5 && container {
			// Version 5: the references are varints.
			e.scratch.Reset()
			if _, isHash := v.(*format.Hash); isHash {
				w.mapLen(len(kids) / 2)
			} else {
				w.array(len(kids))
			}
			entry = bytes.Clone(e.scratch.Bytes())
			for _, k := range kids { // 2k, or 2d+1 for the distance d back if not greater
				if d := i - 1 - k; d <= k {
					entry = binary.AppendUvarint(entry, uint64(2*d+1))
				} else {
					entry = binary.AppendUvarint(entry, uint64(2*k))
				}
			}
		}
		e.entries = append(e.entries, entry)
		e.depth = append(e.depth, d)
		e.nodes = append(e.nodes, n)
		e.vals[key] = i
	}
	switch v := v.(type) {
	case *format.Hash:
		e.hashes[v] = i
	case []any:
		if len(v) > 0 {
			e.slices[refSliceID{&v[0], len(v)}] = i
		}
	}
	return i, nil
}

// refWriteValues writes a value table section: an array of the entries,
// or in version 5 a bin of their count (a varint) and the entries.
func refWriteValues(w *refWriter, entries [][]byte, version int) {
	if version < 5 {
		w.array(len(entries))
		for _, x := range entries {
			w.raw(x)
		}
		return
	}
	b := binary.AppendUvarint(nil, uint64(len(entries)))
	for _, x := range entries {
		b = append(b, x...)
	}
	w.bytes(b)
}

// refSliceID identifies a slice by its memory, to add a shared one only once.
type refSliceID struct {
	first *any
	len   int
}

// err adds an error to the error table; -1 for nil.
func (e *refEncoder) err(x *format.Error) int {
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
	c        *format.Contribution
	val, err int
}

func (e *refEncoder) contributions(cs []format.Contribution) ([]refContribution, error) {
	out := make([]refContribution, len(cs))
	for i := range cs {
		c := &cs[i]
		if c.Layer > format.LayerModule {
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

func (e *refEncoder) body(b *format.Bundle, version int) ([]byte, error) {
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
			if version < 3 {
				break // older versions have no Asked: nor their values
			}
			var pair [2][]refContribution
			for j, cs := range [2][]format.Contribution{a.Contributions, a.Defaults} {
				if pair[j], err = e.contributions(cs); err != nil {
					return nil, fmt.Errorf("format: key %q: asked as %q: %w", k.Name, a.Text, err)
				}
			}
			asked[i] = append(asked[i], pair)
		}
	}

	var details bytes.Buffer
	d := refNewWriter(&details)
	if version >= 4 {
		d.array(7)
	} else {
		d.array(5)
	}
	refWriteValues(d, e.entries[nFast:], version)
	refWriteHierarchy(d, &b.Global, version)
	refWriteHierarchy(d, &b.Env, version)
	d.array(len(b.Modules))
	for _, m := range b.Modules {
		d.array(3)
		d.string(m.Name)
		refWriteHierarchy(d, &m.Hierarchy, version)
		if m.Default == nil {
			d.nil()
		} else {
			refWriteHierarchy(d, m.Default, version)
		}
	}
	if version < 4 {
		refWriteKeyDetailsV3(d, b, version, contribs, defaults, asked)
	} else {
		refWriteKeyDetailsV4(d, b, version, keyVals, contribs, defaults, asked)
	}
	if d.err != nil {
		return nil, d.err
	}

	var body bytes.Buffer
	w := refNewWriter(&body)
	switch {
	case version >= 6:
		// Version 6 adds the view, empty without a shared details file.
		w.array(9)
		refWriteValues(w, nil, version)
	case version >= 4:
		w.array(8) // version 4 adds the options; 5 drops the index, adds the shared file
	default:
		w.array(7)
	}
	refWriteValues(w, e.entries[:nFast], version)
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
	if version >= 5 {
		w.bytes(refKeyTable(b.Keys, keyVals, keyErrs))
	} else {
		refWriteKeys(w, b.Keys, version, keyVals, keyErrs)
	}
	w.bytes(details.Bytes())
	if version >= 5 {
		w.nil() // no shared details file
	}
	if version < 4 {
		return body.Bytes(), w.err
	}
	w.array(len(b.Options))
	for _, sc := range b.Options {
		w.array(5)
		w.string(sc.Module)
		w.bool(sc.Default)
		w.ref(optErrs[0])
		optErrs = optErrs[1:]
		for _, es := range [][]format.OptionEntry{sc.Literal, sc.Pattern} {
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

// refKeyTable is version 5's key table, written the plain way: names
// front-coded against the name before, everything else in varints.
func refKeyTable(keys []format.Key, vals, errs []int) []byte {
	t := binary.AppendUvarint(nil, uint64(len(keys)))
	prev, last := "", -1
	for i, k := range keys {
		shared := 0
		for shared < len(prev) && shared < len(k.Name) && prev[shared] == k.Name[shared] {
			shared++
		}
		t = binary.AppendUvarint(t, uint64(shared))
		t = binary.AppendUvarint(t, uint64(len(k.Name)-shared))
		t = append(t, k.Name[shared:]...)
		// The head: the value (its distance from the last key's,
		// zigzag) or error, × 8, + the kind (0 value, 1 error, 3 flags
		// follow: flags × 8 + kind).
		var payload, kind uint64
		if vals[i] >= 0 {
			d := vals[i] - last
			if d >= 0 {
				payload = uint64(2 * d)
			} else {
				payload = uint64(-2*d - 1)
			}
			last = vals[i]
		} else {
			payload, kind = uint64(errs[i]), 1
		}
		if f := keyFlags(&keys[i]); f == 0 {
			t = binary.AppendUvarint(t, payload*8+kind)
		} else {
			t = binary.AppendUvarint(t, payload*8+3)
			t = binary.AppendUvarint(t, f*8+kind)
		}
		prev = k.Name
	}
	return t
}

// refWriteKeys writes the keys and the index of versions 1 to 4.
func refWriteKeys(w *refWriter, keys []format.Key, version int, keyVals, keyErrs []int) {
	b := &format.Bundle{Keys: keys}
	w.array(len(b.Keys))
	for i := range b.Keys {
		if version == 1 {
			w.array(3)
		} else {
			w.array(4)
		}
		w.string(b.Keys[i].Name)
		w.ref(keyVals[i])
		w.ref(keyErrs[i])
		if version >= 2 {
			flags := keyFlags(&b.Keys[i])
			if version < 3 {
				flags &^= wire.KeyAsked
			}
			w.uint(flags)
		}
	}
	w.bytes(refIndexTable(b.Keys))
}

// TestRefEncodesSamples checks the reference encoder against the
// committed sample of every version: the bundle each decodes to, encoded
// again in its version, gives its bytes back.
func TestRefEncodesSamples(t *testing.T) {
	for v := 1; v <= format.Version; v++ {
		data, err := os.ReadFile(fmt.Sprintf("../testdata/v%d.bundle", v))
		if err != nil {
			t.Fatal(err)
		}
		b, err := format.Decode(data)
		if err != nil {
			t.Fatal(err)
		}
		got, err := refEncodeVersion(b, v)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, data) {
			t.Errorf("version %d: the reference encoder does not give format/testdata/v%d.bundle back", v, v)
		}
	}
}

// refIndexTable builds the open-addressing table of the index section.
func refIndexTable(keys []format.Key) []byte {
	slots := make([]uint32, wire.SlotCount(len(keys)))
	mask := uint64(len(slots) - 1)
	for i := range keys {
		j := wire.KeyHash(keys[i].Name) & mask
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

func refWriteHierarchy(w *refWriter, h *format.Hierarchy, version int) {
	w.array(2)
	w.bool(h.Present)
	w.array(len(h.Levels))
	for _, l := range h.Levels {
		w.array(2)
		w.string(l.Name)
		w.array(len(l.Locations))
		for _, loc := range l.Locations {
			if version < 3 {
				w.array(2)
			} else {
				w.array(3)
			}
			w.string(loc.Path)
			w.bool(loc.Exists)
			if version >= 3 {
				w.string(loc.Original)
			}
		}
	}
}

func refWriteMerge(w *refWriter, m format.Merge) {
	if m == (format.Merge{}) {
		w.nil()
		return
	}
	w.array(4)
	w.string(string(m.Strategy))
	w.string(m.KnockoutPrefix)
	w.bool(m.SortMergedArrays)
	w.bool(m.MergeHashArrays)
}

// refWriteContributions writes cs as version 4 does: five ints each, the
// value as 0 if it is the key's (own), else 2i+1, an error as 2j+2.
func refWriteContributions(w *refWriter, cs []refContribution, own, version int) {
	w.array(5 * len(cs))
	for _, c := range cs {
		switch {
		case version < 5:
			w.uint(uint64(c.c.Level)*4 + uint64(c.c.Layer))
		case c.c.Bound: // version 5: whether bound, between level and layer
			w.uint(uint64(c.c.Level)*8 + 4 + uint64(c.c.Layer))
		default:
			w.uint(uint64(c.c.Level)*8 + uint64(c.c.Layer))
		}
		w.uint(uint64(c.c.Location))
		w.int(int64(c.c.Line))
		w.int(int64(c.c.Column))
		switch {
		case c.err >= 0:
			w.uint(uint64(2*c.err + 2))
		case c.val == own:
			w.uint(0)
		default:
			w.uint(uint64(2*c.val + 1))
		}
	}
}

// refWriteKeyDetailsV4 writes the keys' details as version 4 does.
func refWriteKeyDetailsV4(d *refWriter, b *format.Bundle, version int, keyVals []int, contribs, defaults [][]refContribution, asked [][][2][]refContribution) {
	// Version 4: the tables of merges and lookup_options sources, in
	// order of first use, then each key's shape and fields.
	var merges []format.Merge
	var sources [][2]string
	for _, k := range b.Keys {
		for _, m := range []format.Merge{k.Merge, k.DefaultMerge} {
			if m != (format.Merge{}) && !slices.Contains(merges, m) {
				merges = append(merges, m)
			}
		}
		if o := k.MergeFrom; o != nil && !slices.Contains(sources, [2]string{o.File, o.Level}) {
			sources = append(sources, [2]string{o.File, o.Level})
		}
	}
	d.array(len(merges))
	for _, m := range merges {
		refWriteMerge(d, m)
	}
	d.array(len(sources))
	for _, s := range sources {
		d.array(2)
		d.string(s[0])
		d.string(s[1])
	}
	d.array(len(b.Keys))
	for i := range b.Keys {
		k := &b.Keys[i]
		var fields []func()
		shape := 0
		add := func(bit int, f func()) {
			shape |= bit
			fields = append(fields, f)
		}
		own := keyVals[i]
		if len(k.Defaults) > 0 {
			add(1, func() { refWriteContributions(d, defaults[i], own, version) })
		}
		if k.Merge != (format.Merge{}) {
			add(2, func() { d.uint(uint64(slices.Index(merges, k.Merge))) })
		}
		if k.DefaultMerge != (format.Merge{}) {
			add(4, func() { d.uint(uint64(slices.Index(merges, k.DefaultMerge))) })
		}
		if len(k.ConvertTo) > 0 {
			add(8, func() { refWriteConvertTo(d, k.ConvertTo) })
		}
		if o := k.MergeFrom; o != nil {
			add(16, func() {
				d.array(4)
				if o.Entry == k.Name {
					d.nil()
				} else {
					d.string(o.Entry)
				}
				d.uint(uint64(slices.Index(sources, [2]string{o.File, o.Level})))
				d.int(int64(o.Line))
				d.int(int64(o.Column))
			})
		}
		if k.Asked != nil {
			add(32, func() {
				d.array(len(k.Asked))
				for j, a := range k.Asked {
					d.array(3)
					d.string(a.Text)
					refWriteContributions(d, asked[i][j][0], own, version)
					refWriteContributions(d, asked[i][j][1], own, version)
				}
			})
		}
		d.array(2 + len(fields))
		d.uint(uint64(shape))
		refWriteContributions(d, contribs[i], own, version)
		for _, f := range fields {
			f()
		}
	}
}

// refWriteConvertTo writes a key's convert_to: its type and arguments.
func refWriteConvertTo(d *refWriter, c []format.Value) {
	d.array(len(c))
	for _, v := range c {
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

// refWriteKeyDetailsV3 writes the keys' details as versions 1 to 3 do.
func refWriteKeyDetailsV3(d *refWriter, b *format.Bundle, version int, contribs, defaults [][]refContribution, asked [][][2][]refContribution) {
	d.array(len(b.Keys))
	for i := range b.Keys {
		k := &b.Keys[i]
		d.array([...]int{1: 4, 2: 5, 3: 7}[version])
		refWriteMerge(d, k.Merge)
		refWriteContributionsV3(d, contribs[i])
		refWriteMerge(d, k.DefaultMerge)
		refWriteContributionsV3(d, defaults[i])
		if version < 2 {
			continue
		}
		if len(k.ConvertTo) == 0 {
			d.nil()
		} else {
			refWriteConvertTo(d, k.ConvertTo)
		}
		if version < 3 {
			continue
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
				refWriteContributionsV3(d, asked[i][j][0])
				refWriteContributionsV3(d, asked[i][j][1])
			}
		}
	}
}

func refWriteContributionsV3(w *refWriter, cs []refContribution) {
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
