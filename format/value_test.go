package format_test

import (
	"errors"
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/hieracc/hieracc/format"
)

// entries lists h's entries in order, as "key=value".
func entries(h *format.Hash) []string {
	var out []string
	for k, v := range h.All() {
		out = append(out, fmt.Sprint(k, "=", v))
	}
	return out
}

// TestHashRemap checks that a remapped hash has its template's keys in
// order with the new values, and that changing it (a key added, one
// deleted, one set) changes neither the template nor its lookups: small
// hashes and ones with a key index (shared with the template).
func TestHashRemap(t *testing.T) {
	for _, n := range []int{0, 1, 8, 9, 40} {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			tmpl := format.NewHash(0)
			for i := range n {
				tmpl.Set(fmt.Sprint("k", i), int64(i))
			}
			want := entries(tmpl)
			r, err := tmpl.Remap(func(i int, v any) (any, error) { return v.(int64) * 10, nil })
			if err != nil {
				t.Fatal(err)
			}
			for i := range n {
				k := fmt.Sprint("k", i)
				if v, ok := r.Get(k); !ok || v != int64(i*10) {
					t.Errorf("remapped Get(%s) = %v, %v; want %d", k, v, ok, i*10)
				}
				if r.Key(i) != k {
					t.Errorf("remapped Key(%d) = %v, want %s", i, r.Key(i), k)
				}
			}
			r.Set("new", "x")
			r.Set("k0", "set")
			r.Delete("k1")
			var wantR []string
			for i := range n {
				switch i {
				case 0:
					wantR = append(wantR, "k0=set")
				case 1:
				default:
					wantR = append(wantR, fmt.Sprint("k", i, "=", i*10))
				}
			}
			wantR = append(wantR, "new=x")
			if n == 0 {
				wantR = append(wantR, "k0=set") // added after "new"
			}
			if diff := cmp.Diff(wantR, entries(r)); diff != "" {
				t.Errorf("remapped hash after Set and Delete (-want +got):\n%s", diff)
			}
			for _, k := range []string{"new", "k0"} {
				if _, ok := r.Get(k); !ok {
					t.Errorf("remapped Get(%s) not found after Set", k)
				}
			}
			if tmpl.Has("new") {
				t.Error("a key added to the remapped hash is found in its template")
			}
			if diff := cmp.Diff(want, entries(tmpl)); diff != "" {
				t.Errorf("template changed (-before +after):\n%s", diff)
			}
			for i := range n {
				if v, ok := tmpl.Get(fmt.Sprint("k", i)); !ok || v != int64(i) {
					t.Errorf("template Get(k%d) = %v, %v after the remapped hash changed", i, v, ok)
				}
			}
			tmpl.Set("late", true)
			if r.Has("late") {
				t.Error("a key added to the template is found in the remapped hash")
			}
		})
	}
}

func TestHashRemapError(t *testing.T) {
	tmpl := format.NewHash(2)
	tmpl.Set("a", "1")
	tmpl.Set("b", "2")
	bad := errors.New("bad")
	h, err := tmpl.Remap(func(i int, v any) (any, error) {
		if i == 1 {
			return nil, bad
		}
		return v, nil
	})
	if h != nil || !errors.Is(err, bad) {
		t.Errorf("Remap = %v, %v; want nil, %v", h, err, bad)
	}
}
