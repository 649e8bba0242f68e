package encode

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/hieracc/hieracc/format"
)

// viewNode is a bundle of node name whose keys show what the view of its
// shared details file holds: "a", a hash, and "b" in common data ("b"
// also in the node's own data file, bound, when own is set); "d" in
// common data interpolating the node's name (bound) over a default
// level's value.
func viewNode(name string, own bool) *format.Bundle {
	env := format.Hierarchy{Present: true, Levels: []format.Level{
		{Name: "Per-node data", Locations: []format.Location{{Path: "data/nodes/" + name + ".yaml", Exists: own, Original: "data/nodes/%{trusted.certname}.yaml"}}},
		{Name: "Common", Locations: []format.Location{{Path: "data/common.yaml", Exists: true, Original: "data/common.yaml"}}},
		{Name: "Defaults", Locations: []format.Location{{Path: "data/defaults.yaml", Exists: true, Original: "data/defaults.yaml"}}},
	}}
	list := []any{int64(1), int64(2)}
	a := hashOf("list", list)
	b := &format.Bundle{Node: name, Environment: "production", Env: env, Keys: []format.Key{
		{Name: "a", Value: a, Contributions: []format.Contribution{{Layer: format.LayerEnvironment, Level: 1, Line: 1, Column: 1, Value: a}}},
		{Name: "b", Value: "B", Contributions: []format.Contribution{{Layer: format.LayerEnvironment, Level: 1, Line: 2, Column: 1, Value: "B"}}},
		{Name: "d", Value: "d on " + name, Contributions: []format.Contribution{
			{Layer: format.LayerEnvironment, Level: 1, Line: 3, Column: 1, Value: "d on " + name, Bound: true},
			{Layer: format.LayerEnvironment, Level: 2, Line: 1, Column: 1, Value: "D default"},
		}},
	}}
	if own {
		k := &b.Keys[1]
		k.Value = hashOf("mine", list)
		k.Contributions = append([]format.Contribution{{Layer: format.LayerEnvironment, Level: 0, Line: 1, Column: 1, Value: k.Value, Bound: true}}, k.Contributions...)
	}
	return b
}

// TestView: a bundle's value table starts with the values of its shared
// file's records, in record order, but for a record whose key is bound
// by a file the records also come from ("d": the default's value is
// none of the node's, and not written); a node whose own file holds a
// key ("b") has the same view, and so the same first bytes.
func TestView(t *testing.T) {
	plain, mine := viewNode("web01", false), viewNode("web02", true)
	view := []any{"list", int64(1), int64(2), []any{int64(1), int64(2)}, hashOf("list", []any{int64(1), int64(2)}), "B"}
	var tables [][]byte
	for _, b := range []*format.Bundle{plain, mine} {
		e := NewEncoder()
		data, sd, err := e.AppendShared(nil, b, Protection{})
		if err != nil || sd == nil {
			t.Fatalf("%s: AppendShared = %v, %v", b.Node, sd, err)
		}
		tables = append(tables, bytes.Clone(e.in.vals))
		x, err := format.DecodeIndex(data)
		if err != nil {
			t.Fatal(err)
		}
		vals := decodedValues(x)
		if len(vals) < len(view) {
			t.Fatalf("%s: %d values, want at least the view's %d", b.Node, len(vals), len(view))
		}
		for i, v := range view {
			if !format.Equal(v, vals[i]) {
				t.Errorf("%s: value %d is %v, want the view's %v", b.Node, i, vals[i], v)
			}
		}
		for i, v := range vals {
			if v == "D default" {
				t.Errorf("%s: value %d is the value of d's record, which the view leaves out and the bundle does not need", b.Node, i)
			}
		}
		if err := x.AttachShared(sd.Data); err != nil {
			t.Fatal(err)
		}
		got, err := x.Bundle()
		if err != nil {
			t.Fatal(err)
		}
		for i := range b.Keys {
			if !format.Equal(b.Keys[i].Value, got.Keys[i].Value) || len(got.Keys[i].Contributions) != len(b.Keys[i].Contributions) {
				t.Errorf("%s: key %s decoded as %v (%d contributions), want %v (%d)", b.Node, b.Keys[i].Name,
					got.Keys[i].Value, len(got.Keys[i].Contributions), b.Keys[i].Value, len(b.Keys[i].Contributions))
			}
		}
	}
	// The view's entries: the same bytes in both bundles.
	if !bytes.HasPrefix(tables[1], viewBytes(t, plain)) || !bytes.HasPrefix(tables[0], viewBytes(t, plain)) {
		t.Error("the two nodes' value tables do not start with the same view")
	}
}

// viewBytes is the view of b's shared file, as a fresh encoder writes it.
func viewBytes(t *testing.T, b *format.Bundle) []byte {
	e := NewEncoder()
	if _, _, err := e.AppendShared(nil, b, Protection{}); err != nil {
		t.Fatal(err)
	}
	f := e.share.prevFile
	if f == nil || !f.viewBuilt || len(f.view) == 0 {
		t.Fatal("no view built")
	}
	return f.view
}

// refViewSkips is viewSkips's rule read plainly: over every key of b, in
// order, the records of the keys with a record, and among them those of
// the keys with a bound contribution (or default) from a place a
// contribution (or default) of one of f's records comes from.
func refViewSkips(sh *sharing, b *format.Bundle, f *sharedFile) []int32 {
	locs := map[uint64]bool{}
	for i := range f.keys {
		for j := range f.keys[i].Contributions {
			locs[locKey(&f.keys[i].Contributions[j], false)] = true
		}
		for j := range f.keys[i].Defaults {
			locs[locKey(&f.keys[i].Defaults[j], true)] = true
		}
	}
	from := func(cs []format.Contribution, defaults bool) bool {
		for j := range cs {
			if cs[j].Bound && locs[locKey(&cs[j], defaults)] {
				return true
			}
		}
		return false
	}
	var skip []int32
	x := int32(0)
	for i := range b.Keys {
		if !sh.whole[i] && !sh.over[i] {
			continue
		}
		if sh.over[i] && (from(b.Keys[i].Contributions, false) || from(b.Keys[i].Defaults, true)) {
			skip = append(skip, x)
		}
		x++
	}
	return skip
}

// skipFleet is n bundles of random keys whose contributions and defaults
// come from a node's own file (level 0, bound), a slice's file (level 1,
// bound in some keys) and common data (levels 2 and 3, never bound), so
// that some keys are left out of the view and some not, through their
// contributions or their defaults. A bundle's slice file is one of a few
// (its location), so the encoder meets several shared files.
func skipFleet(seed uint64, n, keys int) []*format.Bundle {
	r := rand.New(rand.NewPCG(seed, 5))
	var out []*format.Bundle
	for node := range n {
		slice := r.IntN(3)
		b := &format.Bundle{Node: fmt.Sprint("node", node)}
		for i := range keys {
			k := format.Key{Name: fmt.Sprintf("k%03d", i), Value: int64(i)}
			add := func(cs []format.Contribution, level int, bound bool) []format.Contribution {
				loc := 0
				if level == 1 {
					loc = slice
				}
				return append(cs, format.Contribution{Layer: format.LayerEnvironment, Level: level, Location: loc, Line: i + 1, Column: 1, Value: int64(i), Bound: bound})
			}
			switch r.IntN(4) {
			case 0:
				k.Contributions = add(k.Contributions, 0, true)
			case 1:
				k.Contributions = add(k.Contributions, 1, r.IntN(2) == 0)
			}
			k.Contributions = add(k.Contributions, 2+r.IntN(2), false)
			if r.IntN(3) == 0 {
				k.Defaults = add(k.Defaults, r.IntN(4), r.IntN(2) == 0)
				if r.IntN(2) == 0 {
					k.Defaults = add(k.Defaults, 3, false)
				}
			}
			b.Keys = append(b.Keys, k)
		}
		out = append(out, b)
	}
	return out
}

// TestViewSkips checks the records viewSkips leaves out of the view (from
// planShared's list of keys with bound contributions, places compared in
// a sorted list) against the rule read plainly, over an encoder's
// bundles, and that the fleet has records of both kinds.
func TestViewSkips(t *testing.T) {
	skipped, kept := 0, 0
	for seed := range uint64(4) {
		e := NewEncoder()
		for _, b := range skipFleet(seed, 40, 60) {
			if _, sd, err := e.AppendShared(nil, b, Protection{}); err != nil || sd == nil {
				t.Fatalf("%s: AppendShared = %v, %v", b.Node, sd, err)
			}
			f := e.share.prevFile
			want := refViewSkips(e.share, b, f)
			if got := f.viewSkip; !slices.Equal(got, want) {
				t.Fatalf("seed %d, %s: view leaves out records %v, want %v", seed, b.Node, got, want)
			}
			over := 0
			for _, o := range e.share.over {
				if o {
					over++
				}
			}
			skipped += len(want)
			kept += over - len(want)
		}
	}
	if skipped == 0 || kept == 0 {
		t.Errorf("%d keys left out of views, %d with bound contributions kept: want some of each", skipped, kept)
	}
}
