package format

import (
	"fmt"
	"math"
	"math/bits"
	"slices"

	"github.com/hieracc/hieracc/format/internal/wire"
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
	shapeDefaults     = wire.ShapeDefaults     // defaults contributions
	shapeMerge        = wire.ShapeMerge        // merge: index into merges
	shapeDefaultMerge = wire.ShapeDefaultMerge // default merge: index into merges
	shapeConvertTo    = wire.ShapeConvertTo    // convertTo
	shapeMergeFrom    = wire.ShapeMergeFrom    // mergeFrom
	shapeAsked        = wire.ShapeAsked        // asked
	shapeKnown        = wire.ShapeKnown
)

// source is a lookup_options entry's file and level, an entry of the
// details' table of sources.
type source struct{ file, level string }

// readDetails4 reads the details of a version 4 bundle after its value
// table (vals) into b, whose fields from the fast part are set.
func (x *Index) readDetails4(r *reader, b *Bundle, vals []Value) error {
	recs := func() (*sharedRecords, error) {
		keys, mods, err := x.sharedKeys(nil)
		return &sharedRecords{keys, mods}, err
	}
	if err := x.readKeysDetails4(r, b, vals, nil, recs); err != nil {
		return err
	}
	return r.done("details")
}

// sharedRecords are the records (sorted by name) and modules of a
// bundle's shared details file (version 5), or of some of its records.
type sharedRecords struct {
	keys []Key
	mods []Module
}

// readKeysDetails4 reads the details of a version 4 bundle after its
// value table (vals) into b, as readDetails4 does: the details of every
// key when sel is nil, else of the keys at the positions sel gives
// (increasing), the others' details skipped unread and what follows the
// last selected not read. recs gives the shared details file's records
// (at least those of the keys selected) when the bundle names one.
func (x *Index) readKeysDetails4(r *reader, b *Bundle, vals []Value, sel []int, recs func() (*sharedRecords, error)) error {
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
	var shared []Key // the shared file's records
	if x.hasShared {
		s, err := recs()
		if err != nil {
			return err
		}
		shared = s.keys
		b.Modules = slices.Clone(s.mods)
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
	if sel == nil {
		b.Keys = make([]Key, len(x.Keys))
	} else {
		b.Keys = make([]Key, len(sel))
	}
	next := 0 // in b.Keys
	for i := range x.Keys {
		ik := &x.Keys[i]
		if sel != nil {
			if next == len(sel) {
				break // the rest is not read
			}
			if sel[next] != i {
				if !ik.shared {
					if err := r.skip(); err != nil {
						return err
					}
				}
				continue
			}
		}
		k := &b.Keys[next]
		next++
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
	return nil
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
