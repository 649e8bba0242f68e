package format_test

import (
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/hieracc/hieracc/format"
)

// TestHashWithValues checks that a hash made by WithValues has its
// template's keys in order with the given values, found by Get through
// the template's key index too (9 keys and more), and leaves the template
// as it was.
func TestHashWithValues(t *testing.T) {
	for _, n := range []int{0, 1, 8, 9, 40} {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			tmpl := format.NewHash(0)
			vals := make([]any, n)
			var want []string
			for i := range n {
				tmpl.Set(fmt.Sprint("k", i), int64(i))
				vals[i] = int64(i * 10)
				want = append(want, fmt.Sprint("k", i, "=", i*10))
			}
			before := entries(tmpl)
			h := tmpl.WithValues(vals)
			if diff := cmp.Diff(want, entries(h)); diff != "" {
				t.Errorf("entries (-want +got):\n%s", diff)
			}
			if h.Len() != n {
				t.Errorf("Len = %d, want %d", h.Len(), n)
			}
			for i := range n {
				k := fmt.Sprint("k", i)
				if v, ok := h.Get(k); !ok || v != int64(i*10) {
					t.Errorf("Get(%s) = %v, %v; want %d", k, v, ok, i*10)
				}
				if h.Key(i) != k || h.Value(i) != int64(i*10) {
					t.Errorf("entry %d = %v: %v, want %s: %d", i, h.Key(i), h.Value(i), k, i*10)
				}
			}
			if h.Has("k-1") || h.Has(fmt.Sprint("k", n)) {
				t.Error("Has finds a key the hash does not hold")
			}
			if diff := cmp.Diff(before, entries(tmpl)); diff != "" {
				t.Errorf("template changed (-before +after):\n%s", diff)
			}
		})
	}
}

func TestHashWithValuesLength(t *testing.T) {
	tmpl := format.NewHash(2)
	tmpl.Set("a", "1")
	tmpl.Set("b", "2")
	defer func() {
		if recover() == nil {
			t.Error("WithValues with one value for two keys did not panic")
		}
	}()
	tmpl.WithValues([]any{"x"})
}
