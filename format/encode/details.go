package encode

import (
	"math/bits"

	"github.com/hieracc/hieracc/format"
	"github.com/hieracc/hieracc/format/internal/wire"
)

// keyShape is the shape of k's details.
func keyShape(k *format.Key) uint64 {
	var s uint64
	if len(k.Defaults) > 0 {
		s |= wire.ShapeDefaults
	}
	if !isDefault(&k.Merge) {
		s |= wire.ShapeMerge
	}
	if !isDefault(&k.DefaultMerge) {
		s |= wire.ShapeDefaultMerge
	}
	if len(k.ConvertTo) > 0 {
		s |= wire.ShapeConvertTo
	}
	if k.MergeFrom != nil {
		s |= wire.ShapeMergeFrom
	}
	if k.Asked != nil {
		s |= wire.ShapeAsked
	}
	return s
}

// isDefault reports whether m is Merge{}, which details leave out (without
// the call to the generated struct comparison).
func isDefault(m *format.Merge) bool {
	return m.Strategy == "" && m.KnockoutPrefix == "" && !m.SortMergedArrays && !m.MergeHashArrays
}

// detailTables are the tables of a version 4 details section: each
// distinct merge and lookup_options source of a bundle once, in order of
// first use over the keys.
type detailTables struct {
	merges   []format.Merge
	mergeOf  map[format.Merge]int32
	sources  []source
	sourceOf map[source]int32
}

// source is where a lookup_options entry is written: a data file and its
// level.
type source struct{ file, level string }

func (d *detailTables) reset() {
	if len(d.merges) > 0 || len(d.sources) > 0 {
		clear(d.merges)
		d.merges = d.merges[:0]
		clear(d.mergeOf)
		clear(d.sources)
		d.sources = d.sources[:0]
		clear(d.sourceOf)
	}
}

// add sets m's shape from k, adding k's merges and lookup_options source
// to the tables (in the order of the keys: call it for each key but the
// sealed ones, in order).
func (d *detailTables) add(m *keyMemo, k *format.Key) {
	shape := keyShape(k)
	m.shape = uint8(shape)
	if shape&wire.ShapeMerge != 0 {
		m.merge = d.merge(k.Merge)
	}
	if shape&wire.ShapeDefaultMerge != 0 {
		m.defMerge = d.merge(k.DefaultMerge)
	}
	if shape&wire.ShapeMergeFrom != 0 {
		m.source = d.source(k.MergeFrom)
	}
}

// merge returns the index of m in the merges table, adding it if new.
func (d *detailTables) merge(m format.Merge) int32 { return tableIndex(&d.merges, &d.mergeOf, m) }

// source returns the index of o's file and level in the sources table,
// adding them if new.
func (d *detailTables) source(o *format.OptionsEntry) int32 {
	return tableIndex(&d.sources, &d.sourceOf, source{o.File, o.Level})
}

// tableIndex returns the index of v in the table list (the indexes by
// value in of), adding it if new.
func tableIndex[T comparable](list *[]T, of *map[T]int32, v T) int32 {
	if i, ok := (*of)[v]; ok {
		return i
	}
	if *of == nil {
		*of = map[T]int32{}
	}
	i := int32(len(*list))
	*list = append(*list, v)
	(*of)[v] = i
	return i
}

// appendDetails appends the details section of b but for its value table
// (and the array header before it): hierarchies, modules, the tables and
// every key's details. refs holds the value and error index of each key,
// then of each contribution (see encodeBody); memo has each key's shape
// and indexes in the tables (detailTables.add, which filled them) and
// says whether e remembers its contributions; a key with a blob is
// sealed, its details nil (blobs is nil when no key is).
func (e *Encoder) appendDetails(t []byte, b *format.Bundle, memo []keyMemo, refs []int32, blobs [][]byte) []byte {
	t = appendHierarchy(t, &b.Global)
	t = appendHierarchy(t, &b.Env)
	mods := b.Modules
	if e.share != nil && e.share.on && e.share.exists {
		mods = nil // version 5: in the shared file
	}
	t = appendArrayLen(t, len(mods))
	for i := range mods {
		m := &b.Modules[i]
		t = appendArrayLen(t, 3)
		t = appendString(t, m.Name)
		t = appendHierarchy(t, &m.Hierarchy)
		if m.Default == nil {
			t = append(t, wire.Nil)
		} else {
			t = appendHierarchy(t, m.Default)
		}
	}

	d := &e.tables // filled after the shared file was planned (encodeBody); not with sealed or shared keys
	t = appendArrayLen(t, len(d.merges))
	for _, m := range d.merges {
		t = appendMerge(t, m)
	}
	t = appendArrayLen(t, len(d.sources))
	for _, s := range d.sources {
		t = append(t, 0x92) // array(2)
		t = appendString(t, s.file)
		t = appendString(t, s.level)
	}

	n := len(b.Keys)
	for i := range b.Keys {
		if e.share.inShared(i) {
			n-- // its details are in the shared file, said in the key table
		}
	}
	t = appendArrayLen(t, n)
	cr := refs[2*len(b.Keys):]
	for i := range b.Keys {
		k := &b.Keys[i]
		if blobs != nil && blobs[i] != nil {
			t = append(t, wire.Nil) // sealed: its details are in its blob
			continue
		}
		if e.share.inShared(i) {
			continue
		}
		if e.share.overlaid(i) {
			t, cr = appendOverlay(t, k, refs[2*i], cr)
			continue
		}
		own := refs[2*i] // the key's value, -1 for an error
		m := &memo[i]
		shape := uint64(m.shape)
		t = appendArrayLen(t, 2+bits.OnesCount64(shape))
		t = appendUint(t, shape)
		if r := m.rec; r >= 0 {
			t = e.recs.appendTmpl(t, &e.recs.recs[r], own, cr)
		} else {
			t = appendContributions4(t, k.Contributions, own, cr)
			if shape&wire.ShapeDefaults != 0 {
				t = appendContributions4(t, k.Defaults, own, cr[2*len(k.Contributions):])
			}
		}
		cr = cr[2*(len(k.Contributions)+len(k.Defaults)):]
		if shape&wire.ShapeMerge != 0 {
			t = appendUint(t, uint64(m.merge))
		}
		if shape&wire.ShapeDefaultMerge != 0 {
			t = appendUint(t, uint64(m.defMerge))
		}
		if shape&wire.ShapeConvertTo != 0 {
			t = appendConvertTo(t, k.ConvertTo)
		}
		if o := k.MergeFrom; o != nil {
			t = append(t, 0x94) // array(4)
			if o.Entry == k.Name {
				t = append(t, wire.Nil)
			} else {
				t = appendString(t, o.Entry)
			}
			t = appendUint(t, uint64(m.source))
			t = appendInt(t, int64(o.Line))
			t = appendInt(t, int64(o.Column))
		}
		if k.Asked != nil {
			t = appendArrayLen(t, len(k.Asked))
			for j := range k.Asked {
				a := &k.Asked[j]
				t = append(t, 0x93) // array(3)
				t = appendString(t, a.Text)
				t = appendContributions4(t, a.Contributions, own, cr)
				cr = cr[2*len(a.Contributions):]
				t = appendContributions4(t, a.Defaults, own, cr)
				cr = cr[2*len(a.Defaults):]
			}
		}
	}
	return t
}

// appendContributions4 appends cs, whose value and error indexes are in
// refs (two per contribution), as version 4 writes them: five ints each.
// own is the index of the key's value, -1 if it has none.
func appendContributions4(w []byte, cs []format.Contribution, own int32, refs []int32) []byte {
	w = appendArrayLen(w, 5*len(cs))
	for i := range cs {
		w = appendPlace(w, &cs[i])
		w = appendUint(w, contribRef(refs[2*i], refs[2*i+1], own))
	}
	return w
}

// appendPlace appends the first four ints of a contribution (version 5):
// level, whether bound, and layer; location, line, column.
func appendPlace(w []byte, c *format.Contribution) []byte {
	where := uint64(c.Level)<<3 | uint64(c.Layer)
	if c.Bound {
		where |= 4
	}
	w = appendUint(w, where)
	w = appendUint(w, uint64(c.Location))
	w = appendInt(w, int64(c.Line))
	return appendInt(w, int64(c.Column))
}

// contribRef is a contribution's value reference in version 4: 0 for the
// key's own value (entry own), 2i+1 for value entry i, 2j+2 for error j.
func contribRef(val, err, own int32) uint64 {
	switch {
	case err >= 0:
		return 2*uint64(err) + 2
	case val == own:
		return 0
	}
	return 2*uint64(val) + 1
}
