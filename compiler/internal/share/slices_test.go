package share

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
	"unsafe"
)

// TestSlotLayout keeps what a node reads of a slot taking a recent result
// in the slot's first cache line, and a template's in the second (see
// slot): a field added in the wrong place costs every node a cache miss
// per key.
func TestSlotLayout(t *testing.T) {
	var s slot
	if size := unsafe.Sizeof(s); size%64 != 0 {
		t.Errorf("a slot is %d bytes, want a cache line's multiple", size)
	}
	line := func(off, size uintptr) uintptr {
		if off/64 != (off+size-1)/64 {
			return ^uintptr(0)
		}
		return off / 64
	}
	for _, f := range []struct {
		name      string
		off, size uintptr
		wantLine  uintptr
	}{
		{"ready", unsafe.Offsetof(s.ready), unsafe.Sizeof(s.ready), 0},
		{"perr", unsafe.Offsetof(s.perr), unsafe.Sizeof(s.perr), 0},
		{"perNode", unsafe.Offsetof(s.perNode), unsafe.Sizeof(s.perNode), 0},
		{"static", unsafe.Offsetof(s.static), unsafe.Sizeof(s.static), 0},
		{"reused", unsafe.Offsetof(s.reused), unsafe.Sizeof(s.reused), 0},
		{"recent", unsafe.Offsetof(s.recent), unsafe.Sizeof(s.recent), 0},
		{"recentVars", unsafe.Offsetof(s.recentVars), unsafe.Sizeof(s.recentVars), 0},
		{"mod", unsafe.Offsetof(s.mod), unsafe.Sizeof(s.mod), 1},
		{"tmpls", unsafe.Offsetof(s.tmpls), unsafe.Sizeof(s.tmpls), 1},
		{"tmplHits", unsafe.Offsetof(s.tmplHits), unsafe.Sizeof(s.tmplHits), 1},
		{"tmplOff", unsafe.Offsetof(s.tmplOff), unsafe.Sizeof(s.tmplOff), 1},
	} {
		if got := line(f.off, f.size); got != f.wantLine {
			t.Errorf("slot.%s (bytes %d to %d) is not within cache line %d", f.name, f.off, f.off+f.size, f.wantLine)
		}
	}
}

// TestPlaceDelta: placeDelta gives what merging the lists and searching
// shared for each key of delta give, for lists of every kind of overlap:
// shared holding all of delta, none, some, keys before, between and after
// shared's, and either list empty.
func TestPlaceDelta(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	pick := func(n, of int) []string {
		var out []string
		for i := range of {
			if rng.IntN(of) < n {
				out = append(out, fmt.Sprintf("k%03d", i))
			}
		}
		return out
	}
	var dst []string
	var at []int32
	for round := range 2000 {
		shared, delta := pick(rng.IntN(60), 60), pick(rng.IntN(8), 60)
		if round%5 == 0 && len(shared) > 0 { // delta within shared
			delta = nil
			for _, k := range shared {
				if rng.IntN(4) == 0 {
					delta = append(delta, k)
				}
			}
		}
		var names []string
		var built bool
		names, at, built = placeDelta(dst, at, shared, delta)
		if want := MergeSorted(shared, delta); !slices.Equal(names, want) {
			t.Fatalf("placeDelta(%q, %q) = %q, want %q", shared, delta, names, want)
		}
		if want := len(names) != len(shared); built != want {
			t.Fatalf("placeDelta(%q, %q): built %v, want %v", shared, delta, built, want)
		}
		if built {
			dst = names
		}
		for d, k := range delta {
			if want, _ := slices.BinarySearch(shared, k); int(at[d]) != want {
				t.Fatalf("placeDelta(%q, %q): at[%d] = %d, want %d", shared, delta, d, at[d], want)
			}
		}
	}
}

// TestReadsPerNode: a variable with a value of its own on most nodes is
// per-node, and a result that read it is one no other node can reuse;
// shared variables and nested lookups of the same name are not.
func TestReadsPerNode(t *testing.T) {
	var w Worker
	for i := range 8 {
		w.SeeVar("trusted.certname", fmt.Sprintf("n%d", i))
		w.SeeVar("facts.dc", []string{"ams", "fra"}[i%2])
		w.SeeVar("facts.role", []string{"web", "db", "app", "lb"}[i/2]) // 4 values, none most nodes'
	}
	tests := []struct {
		deps []Dep
		want bool
	}{
		{[]Dep{{Name: "facts.dc"}, {Name: "trusted.certname"}}, true},
		{[]Dep{{Name: "facts.dc"}, {Name: "facts.role"}}, false},
		{[]Dep{{Lookup: true, Name: "trusted.certname"}}, false},
		{[]Dep{{Name: "never.seen"}}, false},
		{nil, false},
	}
	for _, tc := range tests {
		if got := w.ReadsPerNode(tc.deps); got != tc.want {
			t.Errorf("ReadsPerNode(%+v) = %v, want %v", tc.deps, got, tc.want)
		}
	}
}
