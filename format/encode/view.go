package encode

import (
	"fmt"
	"slices"

	"github.com/hieracc/hieracc/format"
)

// The view of a shared details file (SPEC.md, "Value table", version 6):
// a bundle that names a shared file starts its value table with the
// values the file's records imply, so that an Encoder writes those
// entries once per file and copies their bytes into each bundle that
// names it, instead of writing them entry by entry for every node.
//
// A record implies a value when its key is first found (its merge, or its
// default merge when it has no contributions, first found), has no
// convert_to but Sensitive (a converted value is not its contribution's),
// and its first contribution (else its first default) has a value: that
// value, which is the key's for every node whose key has no bound
// contribution. The view is those values in record order, written as a
// bundle holding only them would write them, but for the records whose
// key the bundle binds through a file the records also come from
// (viewSkips): a pure function of the file and of those records, which
// are the same for every node of a slice, so that an Encoder builds it
// once per file and builds it again only when they change.

// viewValue returns the value record r implies, if any.
func viewValue(r *format.Key) (any, bool) {
	if len(r.ConvertTo) > 0 && !(len(r.ConvertTo) == 1 && r.ConvertTo[0] == "Sensitive") {
		return nil, false
	}
	cs, m := r.Contributions, r.Merge
	if len(cs) == 0 {
		cs, m = r.Defaults, r.DefaultMerge
	}
	if len(cs) == 0 || !m.Strategy.IsFirst() || cs[0].Err != nil {
		return nil, false
	}
	return cs[0].Value, true
}

// startWithView starts the bundle's value table (in's, empty) with the
// view of its shared file, building the view the first time the file is
// met, and returns the file (nil when the bundle has none); ids is
// scratch (the Encoder's), returned for reuse. It runs
// before any value of the bundle is interned, so that the view's values
// are all in the global table, where they stay while the file is
// remembered (Reset forgets both).
func (sh *sharing) startWithView(b *format.Bundle, in *interner, ids []int32) (*sharedFile, []int32, error) {
	if sh == nil || !sh.on || !sh.exists || sh.prevFile == nil {
		return nil, ids, nil
	}
	f := sh.prevFile
	skip := sh.viewSkips(b, f)
	if !f.viewBuilt || !slices.Equal(skip, f.viewSkip) {
		f.viewSkip = append(f.viewSkip[:0], skip...)
		f.shaState = nil
		var err error
		if ids, err = f.buildView(in, ids[:0]); err != nil {
			return nil, ids, err
		}
	}
	in.vals = append(in.vals[:0], f.view...)
	gen := uint64(in.gen) << 32
	marks := in.glob.marks
	for x, id := range f.viewIDs {
		marks[id] = gen | uint64(uint32(x))
	}
	in.nVals = len(f.viewIDs)
	return f, ids, nil
}

// buildView writes the view of f into f.view, and the ids of its entries,
// in order, into f.viewIDs, interning its values in in (whose value table
// it leaves as it was); ids is scratch, returned for reuse.
func (f *sharedFile) buildView(in *interner, ids []int32) ([]int32, error) {
	skip := f.viewSkip
	for i := range f.keys {
		if len(skip) > 0 && skip[0] == int32(i) {
			skip = skip[1:]
			continue
		}
		v, ok := viewValue(&f.keys[i])
		if !ok {
			continue
		}
		id, err := in.intern(v, 0, true)
		if err != nil {
			return ids, fmt.Errorf("format: key %q: %w", f.keys[i].Name, err)
		}
		if id&localBit != 0 {
			// intern puts a value in the local table only if a child is
			// there, and nothing of the bundle is interned yet.
			return ids, fmt.Errorf("format: internal error: the view of key %q is not global", f.keys[i].Name)
		}
		ids = append(ids, id)
	}
	// Write them as a table of their own: a generation of marks for the
	// view, then a new one for the bundle.
	vals, n := in.vals, in.nVals
	in.nextGen()
	in.vals, in.nVals = f.view[:0], 0
	in.capture, in.capturing = f.viewIDs[:0], true
	for _, id := range ids {
		in.entry(id)
	}
	f.view, f.viewIDs, f.viewBuilt = in.vals, in.capture, true
	in.capture, in.capturing = nil, false
	in.vals, in.nVals = vals, n
	in.nextGen()
	return ids, nil
}

// viewSize is the number of entries of f's view and their bytes, which
// start the value table of a bundle that names f (0 for no file).
func (f *sharedFile) viewSize() (n, bytes int) {
	if f != nil {
		return len(f.viewIDs), len(f.view)
	}
	return 0, 0
}

// viewSkips returns the records of f that the view of bundle b leaves
// out, in order: those of the keys of b that have a bound contribution
// from a data file that f's records also take contributions from (a
// slice's file, whose value interpolates the node's name: the key is
// bound in every node of the slice, and the record's value is none of
// theirs). A node's own data file contributes nothing to the records, so
// that nodes whose own files hold different keys share one view. Only
// the keys with bound contributions and a record can be left out:
// planKey lists them (sharing.overs).
func (sh *sharing) viewSkips(b *format.Bundle, f *sharedFile) []int32 {
	if !f.locsKnown {
		f.locs, f.locsKnown = recordLocs(f.locs[:0], f.keys), true
	}
	skip := sh.skip[:0]
	for j := 0; j+1 < len(sh.overs); j += 2 {
		k := &b.Keys[sh.overs[j]]
		if boundFrom(k.Contributions, false, f.locs) || boundFrom(k.Defaults, true, f.locs) {
			skip = append(skip, sh.overs[j+1])
		}
	}
	sh.skip = skip
	return skip
}

// recordLocs appends to locs (empty) the places (locKey) the
// contributions and defaults of recs come from, sorted, each once. They
// are few (a file's records come from a few data files), and a record's
// mostly those of the record before it.
func recordLocs(locs []uint64, recs []format.Key) []uint64 {
	last := ^uint64(0) // the place added last (no place: a layer beyond LayerModule)
	add := func(cs []format.Contribution, defaults bool) {
		for i := range cs {
			if k := locKey(&cs[i], defaults); k != last {
				last = k
				if at, found := slices.BinarySearch(locs, k); !found {
					locs = slices.Insert(locs, at, k)
				}
			}
		}
	}
	for i := range recs {
		add(recs[i].Contributions, false)
		add(recs[i].Defaults, true)
	}
	return locs
}

// boundFrom reports whether a bound contribution of cs comes from a place
// in locs (sorted).
func boundFrom(cs []format.Contribution, defaults bool, locs []uint64) bool {
	for i := range cs {
		if cs[i].Bound {
			if _, ok := slices.BinarySearch(locs, locKey(&cs[i], defaults)); ok {
				return true
			}
		}
	}
	return false
}

// locKey identifies the data file of a contribution: its layer, level
// and location, and whether it is a default.
func locKey(c *format.Contribution, defaults bool) uint64 {
	k := uint64(c.Layer)<<61 | uint64(uint32(c.Level))<<28 | uint64(uint32(c.Location))&(1<<28-1)
	if defaults {
		k |= 1 << 60
	}
	return k
}
