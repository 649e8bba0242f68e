package encode

import (
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/hieracc/hieracc/format"
)

// TestIdentityCachesFilter checks a table's identity caches
// through their filter (addrFilter): every container added is found
// again, before and after the filter grows, and after a reset none is;
// most addresses never added are refused by the filter alone.
func TestIdentityCachesFilter(t *testing.T) {
	for _, bit := range []int32{0, localBit} {
		testIdentityCachesFilter(t, newTable(bit))
	}
}

func testIdentityCachesFilter(t *testing.T, g *table) {
	var hs []*format.Hash
	var ss []sliceID
	// Past several growths of the filter.
	n := 3 * minAddrFilter / addrFilterLoad
	for i := range n {
		h := format.NewHash(0)
		g.setHashID(h, int32(i))
		hs = append(hs, h)
		a := []any{i}
		s := sliceID{&a[0], 1}
		g.setSliceID(s, int32(i))
		ss = append(ss, s)
		if i%997 == 0 || i == n-1 {
			for j := range i + 1 {
				if id, ok := g.hashID(hs[j]); !ok || id != int32(j) {
					t.Fatalf("after %d additions: hash %d found %v, id %d", i+1, j, ok, id)
				}
				if id, ok := g.sliceID(ss[j]); !ok || id != int32(j) {
					t.Fatalf("after %d additions: slice %d found %v, id %d", i+1, j, ok, id)
				}
			}
		}
	}
	// 2n addresses: at least addrFilterLoad bits each, a power of two.
	if got, want := len(g.seen.bits)*64, 2*n*addrFilterLoad; got < want || got >= 2*want {
		t.Errorf("filter of %d bits for %d addresses, want %d to %d", got, 2*n, want, 2*want)
	}
	// Addresses never added: most are refused without a lookup. They are
	// spread at random over a large block, not consecutive objects of one
	// array: those would step through the filter in the very stride of
	// the containers added above (allocated one after the other, of the
	// same size), and how often the two walks meet depends on where the
	// allocator put each (in CI, once, 705 of 1000 refused).
	refused := 0
	arena := make([]uint64, 1<<20)
	r := rand.New(rand.NewPCG(1, 2))
	for range 1000 {
		if !g.seen.has(addr(&arena[r.IntN(len(arena))])) {
			refused++
		}
	}
	if refused < 800 {
		t.Errorf("the filter refused %d of 1000 addresses never added, want most", refused)
	}
	g.reset()
	for j := range hs {
		if _, ok := g.hashID(hs[j]); ok {
			t.Fatalf("hash %d found after a reset", j)
		}
	}
	g.setHashID(hs[0], 7)
	if id, ok := g.hashID(hs[0]); !ok || id != 7 {
		t.Fatalf("after a reset: found %v, id %d", ok, id)
	}
}

// TestInternLikeRemembersOnlyGlobal checks that internLike remembers by
// address the containers it adds to the global table, not the node's own
// (local), which intern then finds by content: the same id.
func TestInternLikeRemembersOnlyGlobal(t *testing.T) {
	e := NewEncoder()
	ka, _ := e.in.intern("a", 0, true)
	kb, _ := e.in.intern("b", 0, true)
	like := []any{"a", "b"}
	h := format.NewHash(1)
	h.Set("k", "a")
	like2 := format.NewHash(1)
	like2.Set("k", "b")
	kk, _ := e.in.intern("k", 0, true)
	for _, tc := range []struct {
		name      string
		v, like   any
		kids      []int32
		global    bool // intern's: a key met in two bundles
		wantLocal bool
	}{
		{"node's array", []any{"a", strings.Clone("node")}, like, []int32{ka, kb}, false, true},
		{"node's hash", hashOf("k", strings.Clone("node")), like2, []int32{kk, kb}, false, true},
		{"global array", []any{"a", strings.Clone("a")}, like, []int32{ka, kb}, true, false},
		{"global hash", h, like2, []int32{kk, kb}, true, false},
	} {
		id, err := e.in.internLike(tc.v, tc.like, tc.kids, nil, tc.global, 0)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if local := id&localBit != 0; local != tc.wantLocal {
			t.Fatalf("%s: local %v, want %v", tc.name, local, tc.wantLocal)
		}
		var cached bool
		switch v := tc.v.(type) {
		case []any:
			_, inLoc := e.in.loc.slices[sliceID{&v[0], len(v)}]
			_, inGlob := e.in.glob.slices[sliceID{&v[0], len(v)}]
			cached = inLoc || inGlob
		case *format.Hash:
			_, inLoc := e.in.loc.hashes[v]
			_, inGlob := e.in.glob.hashes[v]
			cached = inLoc || inGlob
		}
		if cached == tc.wantLocal {
			t.Errorf("%s: remembered by address %v, want %v", tc.name, cached, !tc.wantLocal)
		}
		if again, err := e.in.intern(tc.v, 0, false); err != nil || again != id {
			t.Errorf("%s: intern gives %#x (%v), internLike gave %#x", tc.name, again, err, id)
		}
	}
}

func hashOf(k string, v any) *format.Hash {
	h := format.NewHash(1)
	h.Set(k, v)
	return h
}
