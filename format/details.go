package format

import (
	"fmt"
	"math"
	"math/bits"
	"slices"
)

// The details section of format versions 4 and 5 (SPEC.md, "Details,
// versions 4 and 5"): the same information as version 3's, in about two
// thirds of the bytes. A key's details say in one int (its shape) which optional fields
// follow, instead of writing nil for each; a contribution is five ints in
// one flat array, whose value reference is 0 when it is the key's own
// value (the winning contribution of most keys); merges and the files and
// levels of lookup_options entries are written once per bundle, in tables
// the keys refer to.

// Bits of a key's shape (version 4): each set bit adds one field to the
// key's details, in this order, after the shape and the contributions.
const (
	shapeDefaults     = 1 << iota // defaults contributions
	shapeMerge                    // merge: index into merges
	shapeDefaultMerge             // default merge: index into merges
	shapeConvertTo                // convertTo
	shapeMergeFrom                // mergeFrom
	shapeAsked                    // asked
	shapeKnown        = 1<<iota - 1
)

// keyShape is the shape of k's details.
func keyShape(k *Key) uint64 {
	var s uint64
	if len(k.Defaults) > 0 {
		s |= shapeDefaults
	}
	if !k.Merge.isDefault() {
		s |= shapeMerge
	}
	if !k.DefaultMerge.isDefault() {
		s |= shapeDefaultMerge
	}
	if len(k.ConvertTo) > 0 {
		s |= shapeConvertTo
	}
	if k.MergeFrom != nil {
		s |= shapeMergeFrom
	}
	if k.Asked != nil {
		s |= shapeAsked
	}
	return s
}

// isDefault reports whether m is Merge{}, which details leave out (without
// the call to the generated struct comparison).
func (m *Merge) isDefault() bool {
	return m.Strategy == "" && m.KnockoutPrefix == "" && !m.SortMergedArrays && !m.MergeHashArrays
}

// detailTables are the tables of a version 4 details section: each
// distinct merge and lookup_options source of a bundle once, in order of
// first use over the keys.
type detailTables struct {
	merges   []Merge
	mergeOf  map[Merge]int32
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
func (d *detailTables) add(m *keyMemo, k *Key) {
	shape := keyShape(k)
	m.shape = uint8(shape)
	if shape&shapeMerge != 0 {
		m.merge = d.merge(k.Merge)
	}
	if shape&shapeDefaultMerge != 0 {
		m.defMerge = d.merge(k.DefaultMerge)
	}
	if shape&shapeMergeFrom != 0 {
		m.source = d.source(k.MergeFrom)
	}
}

// merge returns the index of m in the merges table, adding it if new.
func (d *detailTables) merge(m Merge) int32 { return tableIndex(&d.merges, &d.mergeOf, m) }

// source returns the index of o's file and level in the sources table,
// adding them if new.
func (d *detailTables) source(o *OptionsEntry) int32 {
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
func (e *Encoder) appendDetails(t []byte, b *Bundle, memo []keyMemo, refs []int32, blobs [][]byte) []byte {
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
			t = append(t, mNil)
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
		if e.inShared(i) {
			n-- // its details are in the shared file, said in the key table
		}
	}
	t = appendArrayLen(t, n)
	cr := refs[2*len(b.Keys):]
	for i := range b.Keys {
		k := &b.Keys[i]
		if blobs != nil && blobs[i] != nil {
			t = append(t, mNil) // sealed: its details are in its blob
			continue
		}
		if e.inShared(i) {
			continue
		}
		if e.overlaid(i) {
			t, cr = appendOverlay(t, k, refs[2*i], cr)
			continue
		}
		own := refs[2*i] // the key's value, -1 for an error
		m := &memo[i]
		shape := uint64(m.shape)
		t = appendArrayLen(t, 2+bits.OnesCount64(shape))
		t = appendUint(t, shape)
		if r := m.rec; r >= 0 {
			t = e.appendTmpl(t, &e.recs.recs[r], own, cr)
		} else {
			t = appendContributions4(t, k.Contributions, own, cr)
			if shape&shapeDefaults != 0 {
				t = appendContributions4(t, k.Defaults, own, cr[2*len(k.Contributions):])
			}
		}
		cr = cr[2*(len(k.Contributions)+len(k.Defaults)):]
		if shape&shapeMerge != 0 {
			t = appendUint(t, uint64(m.merge))
		}
		if shape&shapeDefaultMerge != 0 {
			t = appendUint(t, uint64(m.defMerge))
		}
		if shape&shapeConvertTo != 0 {
			t = appendConvertTo(t, k.ConvertTo)
		}
		if o := k.MergeFrom; o != nil {
			t = append(t, 0x94) // array(4)
			if o.Entry == k.Name {
				t = append(t, mNil)
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
func appendContributions4(w []byte, cs []Contribution, own int32, refs []int32) []byte {
	w = appendArrayLen(w, 5*len(cs))
	for i := range cs {
		w = appendPlace(w, &cs[i])
		w = appendUint(w, contribRef(refs[2*i], refs[2*i+1], own))
	}
	return w
}

// appendPlace appends the first four ints of a contribution (version 5):
// level, whether bound, and layer; location, line, column.
func appendPlace(w []byte, c *Contribution) []byte {
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

// readDetails4 reads the details of a version 4 bundle after its value
// table (vals) into b, whose fields from the fast part are set.
func (x *Index) readDetails4(r *reader, b *Bundle, vals []Value) error {
	if err := x.readLayers(r, b); err != nil {
		return err
	}
	n, err := r.arrayLen()
	if err != nil {
		return err
	}
	merges := make([]Merge, n)
	for i := range merges {
		if r.nilNext() {
			return r.errorf("merge %d is nil", i)
		}
		if merges[i], err = readMerge(r); err != nil {
			return err
		}
	}
	if n, err = r.arrayLen(); err != nil {
		return err
	}
	sources := make([]source, n)
	for i := range sources {
		if err := r.arrayOf(2, "lookup_options source"); err != nil {
			return err
		}
		if sources[i].file, err = r.str(); err != nil {
			return err
		}
		if sources[i].level, err = r.str(); err != nil {
			return err
		}
	}
	n = len(x.Keys)
	for i := range x.Keys {
		if x.Keys[i].shared {
			n-- // its details are its record in the shared file
		}
	}
	if err := r.arrayOf(n, "key details"); err != nil {
		return err
	}
	b.Keys = make([]Key, len(x.Keys))
	var shared []Key // the shared file's records
	if x.hasShared {
		var mods []Module
		if shared, mods, err = x.sharedKeys(); err != nil {
			return err
		}
		b.Modules = slices.Clone(mods)
		me := x.ModuleErrors
		for i := range b.Modules {
			if m := &b.Modules[i]; len(me) > 0 && me[0].Module == m.Name {
				m.Err, me = me[0].Err, me[1:]
			}
		}
		if len(me) > 0 {
			return fmt.Errorf("format: %w: error recorded for module %q, which the shared details file does not have", ErrCorrupt, me[0].Module)
		}
	}
	for i := range b.Keys {
		k := &b.Keys[i]
		ik := &x.Keys[i]
		k.Name, k.Value, k.Err = ik.Name, ik.Value, ik.Err
		k.Secret = ik.secret
		if ik.shared {
			// Version 5: the key's details are its record in the shared
			// file.
			if err := readSharedDetails(shared, k, ik); err != nil {
				return err
			}
			continue
		}
		if sealed, err := x.readSealedDetails(r, i, k); sealed || err != nil {
			if err != nil {
				return err
			}
			continue
		}
		if has(x.Version, fSharedDetails) && r.left() >= 2 && r.s[r.off] == 0x94 && r.s[r.off+1] == mTrue {
			// Version 5: its bound contributions; its record in the shared
			// file has the rest.
			if !x.hasShared {
				return r.errorf("key %q: details in a shared file the bundle does not name", k.Name)
			}
			if err := readSharedDetails(shared, k, ik); err != nil {
				return err
			}
			r.off += 2
			if err := x.readOverlay(r, k, vals, int(ik.valueAt)); err != nil {
				return err
			}
			continue
		}
		if err := x.readKeyDetails4(r, k, ik, vals, merges, sources); err != nil {
			return err
		}
	}
	return r.done("details")
}

// readKeyDetails4 reads one key's details (version 4).
func (x *Index) readKeyDetails4(r *reader, k *Key, ik *IndexKey, vals []Value, merges []Merge, sources []source) error {
	n, err := r.arrayLen()
	if err != nil {
		return err
	}
	shape, err := r.integer()
	if err != nil {
		return err
	}
	if shape < 0 || shape&^shapeKnown != 0 || n != 2+bits.OnesCount64(uint64(shape)) {
		return r.errorf("key %q: details of shape %#x in an array of %d", k.Name, shape, n)
	}
	own := int(ik.valueAt) // the key's own value in the value table, -1 for none
	if k.Contributions, err = x.readContributions4(r, vals, own); err != nil {
		return err
	}
	if shape&shapeDefaults != 0 {
		if k.Defaults, err = x.readContributions4(r, vals, own); err != nil {
			return err
		}
		if len(k.Defaults) == 0 {
			return r.errorf("key %q: empty defaults", k.Name)
		}
	}
	for _, f := range [...]struct {
		bit uint64
		m   *Merge
	}{{shapeMerge, &k.Merge}, {shapeDefaultMerge, &k.DefaultMerge}} {
		if uint64(shape)&f.bit != 0 {
			i, err := r.ref(len(merges), "merge")
			if err != nil {
				return err
			}
			*f.m = merges[i]
		}
	}
	if shape&shapeConvertTo != 0 {
		if k.ConvertTo, err = readConvertTo(r); err != nil {
			return err
		}
		if k.ConvertTo == nil {
			return r.errorf("key %q: nil convert_to", k.Name)
		}
	}
	if k.Sensitive() != ik.Sensitive || (len(k.ConvertTo) > 0) != ik.Converts {
		return r.errorf("key %q: the key's flags and convert_to disagree", k.Name)
	}
	if shape&shapeMergeFrom != 0 {
		o := &OptionsEntry{Entry: k.Name}
		if err := r.arrayOf(4, "lookup_options entry"); err != nil {
			return err
		}
		if !r.nilNext() {
			if o.Entry, err = r.str(); err != nil {
				return err
			}
		}
		s, err := r.ref(len(sources), "lookup_options source")
		if err != nil {
			return err
		}
		o.File, o.Level = sources[s].file, sources[s].level
		if o.Line, o.Column, err = r.lineColumn(); err != nil {
			return err
		}
		k.MergeFrom = o
	}
	if shape&shapeAsked != 0 {
		if r.nilNext() {
			return r.errorf("key %q: nil asked", k.Name)
		}
		contribs := func(r *reader) ([]Contribution, error) { return x.readContributions4(r, vals, own) }
		if k.Asked, err = readAsked(r, contribs); err != nil {
			return err
		}
	}
	if (k.Asked != nil) != ik.Asked {
		return r.errorf("key %q: the key's flags and asked disagree", k.Name)
	}
	return nil
}

// readContributions4 reads contributions (version 4): five ints each.
// own is the index of the key's value, -1 if it has an error.
func (x *Index) readContributions4(r *reader, vals []Value, own int) ([]Contribution, error) {
	n, err := r.arrayLen()
	if err != nil || n == 0 {
		return nil, err
	}
	if n%5 != 0 {
		return nil, r.errorf("contributions of %d ints, not five each", n)
	}
	cs := make([]Contribution, n/5)
	for i := range cs {
		if err := x.readContribution(r, &cs[i], vals, own); err != nil {
			return nil, err
		}
	}
	return cs, nil
}

// readContribution reads one contribution's five ints into c (versions 4
// and 5). own is the index of the key's value, -1 if it has an error.
func (x *Index) readContribution(r *reader, c *Contribution, vals []Value, own int) error {
	where, err := r.integer()
	if err != nil {
		return err
	}
	if has(x.Version, fSharedDetails) {
		// Version 5: level × 8 + bound × 4 + layer.
		c.Bound = where&4 != 0
		where = where>>3<<2 | where&3
	}
	if where < 0 || where>>2 > math.MaxInt32 || where&3 > int64(LayerModule) {
		return r.errorf("contribution of level %d, layer %d out of range", where>>2, where&3)
	}
	c.Layer, c.Level = Layer(where&3), int(where>>2)
	if c.Location, err = r.count(math.MaxInt32, "location"); err != nil {
		return err
	}
	if c.Line, c.Column, err = r.lineColumn(); err != nil {
		return err
	}
	ref, err := r.integer()
	if err != nil {
		return err
	}
	switch {
	case ref < 0:
		return r.errorf("contribution reference %d out of range", ref)
	case ref == 0:
		if own < 0 {
			return r.errorf("contribution refers to the value of a key that has an error")
		}
		c.Value = vals[own]
	case ref%2 == 1:
		if v := ref / 2; v >= int64(len(vals)) {
			return r.errorf("value reference %d out of range [0, %d]", v, len(vals)-1)
		} else {
			c.Value = vals[v]
		}
	default:
		if e := ref/2 - 1; e >= int64(len(x.errs)) {
			return r.errorf("error reference %d out of range [0, %d]", e, len(x.errs)-1)
		} else {
			c.Err = x.errs[e]
		}
	}
	return nil
}

// lineColumn reads a position's line and column: two ints.
func (r *reader) lineColumn() (line, column int, err error) {
	l, err := r.integer()
	if err != nil {
		return 0, 0, err
	}
	c, err := r.integer()
	if err != nil {
		return 0, 0, err
	}
	return int(l), int(c), nil
}
