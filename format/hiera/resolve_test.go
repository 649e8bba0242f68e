package hiera

import (
	"errors"
	"fmt"
	"testing"

	"github.com/hieracc/hieracc/format"
)

// loc addresses one location in a test hierarchy.
type loc struct {
	Layer      format.Layer
	Level, Loc int
}

// outcome is what a test Leaf yields for a location; absent from the map
// means not found.
type outcome struct {
	v   any
	err error
}

// hier builds a Present hierarchy whose levels have the given numbers of
// locations.
func hier(locsPerLevel ...int) *format.Hierarchy {
	h := &format.Hierarchy{Present: true}
	for i, n := range locsPerLevel {
		l := format.Level{Name: fmt.Sprint("level", i)}
		for j := range n {
			l.Locations = append(l.Locations, format.Location{Path: fmt.Sprintf("%d/%d.yaml", i, j), Exists: true})
		}
		h.Levels = append(h.Levels, l)
	}
	return h
}

// leafOf serves data and records the order in which locations are asked.
func leafOf(data map[loc]outcome, calls *[]loc) Leaf {
	return func(layer format.Layer, level, l int) (any, bool, error) {
		k := loc{layer, level, l}
		*calls = append(*calls, k)
		o, ok := data[k]
		if !ok {
			return nil, false, nil
		}
		if o.err != nil {
			return nil, false, o.err
		}
		return o.v, true, nil
	}
}

const (
	G = format.LayerGlobal
	E = format.LayerEnvironment
	M = format.LayerModule
)

func TestResolveNesting(t *testing.T) {
	boom := errors.New("boom")
	tests := []struct {
		name   string
		merge  format.Merge
		layers [3]*format.Hierarchy
		data   map[loc]outcome
		want   any
		found  bool
		err    string
		calls  []loc // when set, the exact locations asked, in order
	}{
		{
			// Checked against Puppet 7.23: env [a] (one level, one
			// location) and mod::one {x: 1} at the first of two module
			// levels: the module variant converts the hash to [{x: 1}],
			// which passes the top-level merge.
			name:   "unique: value alone in a multi-level module is converted",
			merge:  mUnique,
			layers: [3]*format.Hierarchy{nil, hier(1), hier(1, 1)},
			data: map[loc]outcome{
				{E, 0, 0}: {v: a("a")},
				{M, 0, 0}: {v: h("x", int64(1))},
			},
			want: a("a", h("x", int64(1))), found: true,
		},
		{
			// ... while with one module level merge_single leaves the hash
			// as is, and the merge rejects it (also checked with Puppet).
			name:   "unique: value alone in a single-level module is not converted",
			merge:  mUnique,
			layers: [3]*format.Hierarchy{nil, hier(1), hier(1)},
			data: map[loc]outcome{
				{E, 0, 0}: {v: a("a")},
				{M, 0, 0}: {v: h("x", int64(1))},
			},
			err: "The second element of the merge has wrong type, expects a value of type Scalar or Array, got Struct",
		},
		{
			// merge_single (uniq) at the location and level, convert_value
			// (flatten) at the top: [a, a, [b, b]] gives [a, b, b].
			name:   "unique: single value de-duplicated before flattening",
			merge:  mUnique,
			layers: [3]*format.Hierarchy{nil, hier(1), nil},
			data:   map[loc]outcome{{E, 0, 0}: {v: a("a", "a", a("b", "b"))}},
			want:   a("a", "b", "b"), found: true,
		},
		{
			// Two locations in one level (a glob): convert_value on the
			// first, merge with the second.
			name:   "unique: locations of one level merge",
			merge:  mUnique,
			layers: [3]*format.Hierarchy{nil, hier(2), nil},
			data: map[loc]outcome{
				{E, 0, 0}: {v: a("a", "a")},
				{E, 0, 1}: {v: a("b")},
			},
			want: a("a", "b"), found: true,
		},
		{
			name:   "unique: scalar found once becomes an array",
			merge:  mUnique,
			layers: [3]*format.Hierarchy{nil, hier(1), nil},
			data:   map[loc]outcome{{E, 0, 0}: {v: "x"}},
			want:   a("x"), found: true,
		},
		{
			name:   "hash: global, environment and module merge in that priority",
			merge:  mHash,
			layers: [3]*format.Hierarchy{hier(1), hier(1), hier(1)},
			data: map[loc]outcome{
				{G, 0, 0}: {v: h("a", "global")},
				{E, 0, 0}: {v: h("a", "env", "b", "env")},
				{M, 0, 0}: {v: h("c", "mod", "b", "mod")},
			},
			want: h("c", "mod", "b", "env", "a", "global"), found: true,
		},
		{
			name:   "deep: nil, !Present and empty hierarchies are skipped",
			merge:  mDeep,
			layers: [3]*format.Hierarchy{{Present: false, Levels: hier(1).Levels}, {Present: true}, hier(0, 1)},
			data:   map[loc]outcome{{M, 1, 0}: {v: h("k", "v")}, {G, 0, 0}: {v: "never asked"}},
			want:   h("k", "v"), found: true,
			calls: []loc{{M, 1, 0}},
		},
		{
			name:   "deep: nothing anywhere is not found",
			merge:  mDeep,
			layers: [3]*format.Hierarchy{hier(1), hier(2, 0), nil},
			data:   map[loc]outcome{},
			found:  false,
			calls:  []loc{{G, 0, 0}, {E, 0, 0}, {E, 0, 1}},
		},
		{
			name:   "first: the first location found wins, nil included",
			merge:  mFirst,
			layers: [3]*format.Hierarchy{hier(1), hier(2, 1), hier(1)},
			data: map[loc]outcome{
				{E, 0, 1}: {v: nil},
				{E, 1, 0}: {v: "lower"},
				{M, 0, 0}: {err: boom},
			},
			want: nil, found: true,
			calls: []loc{{G, 0, 0}, {E, 0, 0}, {E, 0, 1}},
		},
		{
			name:   "first: an error before the value aborts",
			merge:  format.Merge{Strategy: "first"},
			layers: [3]*format.Hierarchy{nil, hier(1, 1), nil},
			data:   map[loc]outcome{{E, 0, 0}: {err: boom}, {E, 1, 0}: {v: "x"}},
			err:    "boom",
		},
		{
			name:   "first: not found anywhere",
			merge:  mFirst,
			layers: [3]*format.Hierarchy{nil, hier(1), {Present: true}},
			data:   map[loc]outcome{},
			found:  false,
		},
		{
			// Merging iterates high to low priority and stops at the first
			// failure: the merge error at level 1 wins over the leaf error
			// at level 2, which is never asked.
			name:   "hash: a merge error aborts before lower levels are read",
			merge:  mHash,
			layers: [3]*format.Hierarchy{nil, hier(1, 1, 1), nil},
			data: map[loc]outcome{
				{E, 0, 0}: {v: h("a", int64(1))},
				{E, 1, 0}: {v: "str"},
				{E, 2, 0}: {err: boom},
			},
			err:   "The second element of the merge has wrong type, expects a Hash value, got String",
			calls: []loc{{E, 0, 0}, {E, 1, 0}},
		},
		{
			name:   "unique: a leaf error aborts even after values were found",
			merge:  mUnique,
			layers: [3]*format.Hierarchy{hier(1), hier(1), nil},
			data:   map[loc]outcome{{G, 0, 0}: {v: "a"}, {E, 0, 0}: {err: boom}},
			err:    "boom",
		},
		{
			// The memo from the environment layer is already flattened
			// when it meets the module's value.
			name:   "unique: layers merge their own results",
			merge:  mUnique,
			layers: [3]*format.Hierarchy{nil, hier(1, 1), hier(1)},
			data: map[loc]outcome{
				{E, 0, 0}: {v: a("b", a("c"))},
				{E, 1, 0}: {v: "a"},
				{M, 0, 0}: {v: a(a("a"), "d")},
			},
			want: a("b", "c", "a", "d"), found: true,
		},
		{
			name:   "unknown strategy",
			merge:  format.Merge{Strategy: "bogus"},
			layers: [3]*format.Hierarchy{nil, hier(1), nil},
			err:    "Unknown merge strategy: 'bogus'",
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var calls []loc
			v, found, err := Resolve(tc.merge, tc.layers, leafOf(tc.data, &calls))
			if tc.err != "" {
				if err == nil || err.Error() != tc.err {
					t.Fatalf("err = %v, want %q", err, tc.err)
				}
			} else {
				if err != nil {
					t.Fatalf("unexpected error: %v", err)
				}
				if found != tc.found {
					t.Fatalf("found = %v, want %v (value %v)", found, tc.found, v)
				}
				if d := diffValues(tc.want, v); found && d != "" {
					t.Fatalf("value (-want +got):\n%s", d)
				}
			}
			if tc.calls != nil {
				if d := diffValues(tc.calls, calls); d != "" {
					t.Fatalf("locations asked (-want +got):\n%s", d)
				}
			}
		})
	}
}

func TestResolveDefault(t *testing.T) {
	var calls []loc
	data := map[loc]outcome{
		{M, 0, 0}: {v: a("b", "b")},
		{M, 1, 1}: {v: a("a")},
	}
	v, found, err := ResolveDefault(mUnique, hier(1, 2), leafOf(data, &calls))
	if err != nil || !found {
		t.Fatalf("ResolveDefault = %v, %v, %v", v, found, err)
	}
	if d := diffValues(a("b", "a"), v); d != "" {
		t.Errorf("value (-want +got):\n%s", d)
	}
	if d := diffValues([]loc{{M, 0, 0}, {M, 1, 0}, {M, 1, 1}}, calls); d != "" {
		t.Errorf("locations asked (-want +got):\n%s", d)
	}

	// One level, one location: merge_single only (no flattening).
	calls = nil
	v, _, _ = ResolveDefault(mUnique, hier(1), leafOf(map[loc]outcome{{M, 0, 0}: {v: a("a", a("b"), "a")}}, &calls))
	if d := diffValues(a("a", a("b")), v); d != "" {
		t.Errorf("single value (-want +got):\n%s", d)
	}

	v, found, err = ResolveDefault(mFirst, hier(1, 1), leafOf(map[loc]outcome{{M, 1, 0}: {v: "x"}}, &calls))
	if err != nil || !found || v != "x" {
		t.Errorf("first found = %v, %v, %v", v, found, err)
	}
	for _, h := range []*format.Hierarchy{nil, {Present: false}, {Present: true}} {
		if _, found, err := ResolveDefault(mDeep, h, leafOf(nil, &calls)); found || err != nil {
			t.Errorf("ResolveDefault(%v) found=%v err=%v, want not found", h, found, err)
		}
	}
}

// TestGlobalMergeErrors: a merge error between the global layer's levels
// is a GlobalError, which InLookupOf prefixes as Puppet's global provider
// does; a leaf's error and a merge error elsewhere are left alone.
func TestGlobalMergeErrors(t *testing.T) {
	leafErr := errors.New("leaf failed")
	for _, tc := range []struct {
		name  string
		data  map[loc]outcome
		want  string
		isGlb bool
	}{
		{"global levels", map[loc]outcome{{0, 0, 0}: {v: a("x")}, {0, 1, 0}: {v: h("k", int64(1))}}, "Lookup of key 'k.x' failed: The second element of the merge has wrong type", true},
		{"environment levels", map[loc]outcome{{1, 0, 0}: {v: a("x")}, {1, 1, 0}: {v: h("k", int64(1))}}, "The second element of the merge has wrong type", false},
		{"global leaf", map[loc]outcome{{0, 0, 0}: {err: leafErr}}, "leaf failed", false},
	} {
		_, _, err := Resolve(format.Merge{Strategy: "unique"}, [3]*format.Hierarchy{hier(1, 1), hier(1, 1), nil}, leafOf(tc.data, new([]loc)))
		var ge *GlobalError
		if errors.As(err, &ge) != tc.isGlb {
			t.Errorf("%s: %v: GlobalError %v, want %v", tc.name, err, !tc.isGlb, tc.isGlb)
		}
		got := InLookupOf("k.x", err)
		if got == nil || len(got.Error()) < len(tc.want) || got.Error()[:len(tc.want)] != tc.want {
			t.Errorf("%s: %v, want it to start with %q", tc.name, got, tc.want)
		}
	}
}
