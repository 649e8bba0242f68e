package format

import (
	"fmt"
	"math"
	"reflect"
	"testing"
)

// TestHashOf: a hash made by HashOf holds the given entries in order,
// found by Get (through a key index beyond 8 keys: the one given, else
// one it builds), as Set would have made it; it panics on keys Set
// refuses or that are there twice.
func TestHashOf(t *testing.T) {
	for _, n := range []int{0, 1, 8, 9, 40} {
		for _, given := range []bool{false, true} {
			t.Run(fmt.Sprint(n, given), func(t *testing.T) {
				keys, vals := make([]any, n), make([]any, n)
				want := NewHash(0)
				var index map[any]int
				if given && n > indexAt {
					index = map[any]int{}
				}
				for i := range n {
					keys[i], vals[i] = fmt.Sprint("k", i), int64(i)
					want.Set(keys[i], vals[i])
					if index != nil {
						index[keys[i]] = i
					}
				}
				h := HashOf(keys, vals, index)
				if !reflect.DeepEqual(h, want) {
					t.Errorf("HashOf = %#v, want %#v", h, want)
				}
				for i := range n {
					if v, ok := h.Get(fmt.Sprint("k", i)); !ok || v != int64(i) {
						t.Errorf("Get(k%d) = %v, %v", i, v, ok)
					}
				}
				if index != nil && reflect.ValueOf(h.index).Pointer() != reflect.ValueOf(index).Pointer() {
					t.Error("the given key index is not the hash's")
				}
			})
		}
	}
	many := func(dup bool) []any {
		keys := make([]any, 12)
		for i := range keys {
			keys[i] = int64(i)
		}
		if dup {
			keys[11] = int64(3)
		}
		return keys
	}
	for name, call := range map[string]func(){
		"lengths":      func() { HashOf([]any{"a"}, nil, nil) },
		"NaN key":      func() { HashOf([]any{math.NaN()}, []any{1}, nil) },
		"array key":    func() { HashOf([]any{[]any{}}, []any{1}, nil) },
		"twice, small": func() { HashOf([]any{"a", "b", "a"}, make([]any, 3), nil) },
		"twice, large": func() { HashOf(many(true), make([]any, 12), nil) },
		"index too small": func() {
			HashOf(many(false), make([]any, 12), map[any]int{int64(0): 0})
		},
	} {
		t.Run(name, func(t *testing.T) {
			defer func() {
				if recover() == nil {
					t.Error("no panic")
				}
			}()
			call()
		})
	}
}
