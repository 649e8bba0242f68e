package format

import (
	"iter"
	"math"
)

// A Value is a Hiera value as Puppet reads it. It is always one of:
//
//	nil, bool, int64, float64, string, []any, *Hash
//
// Nothing else ever appears inside a Value, at any depth. Hash keys are
// scalars only (nil, bool, int64, float64 or string).
type Value = any

// Hash is an insertion-ordered map: Puppet hashes keep their key order and
// users see it, so a Go map cannot stand in for one.
//
// A Hash is not safe for concurrent mutation, but any number of goroutines
// may read one that is no longer being changed.
type Hash struct {
	keys  []any
	vals  []any
	index map[any]int // built once the hash outgrows a linear scan
}

// indexAt is the size from which Get uses a map instead of scanning.
const indexAt = 8

// NewHash returns an empty hash with room for n entries.
func NewHash(n int) *Hash {
	return &Hash{keys: make([]any, 0, n), vals: make([]any, 0, n)}
}

// Len is the number of entries.
func (h *Hash) Len() int {
	if h == nil {
		return 0
	}
	return len(h.keys)
}

// Key returns the i-th key in order.
func (h *Hash) Key(i int) any { return h.keys[i] }

// Value returns the i-th value in order.
func (h *Hash) Value(i int) any { return h.vals[i] }

// Keys returns the keys in order. The slice is the hash's own: do not modify it.
func (h *Hash) Keys() []any {
	if h == nil {
		return nil
	}
	return h.keys
}

// All iterates over the entries in order.
func (h *Hash) All() iter.Seq2[any, any] {
	return func(yield func(any, any) bool) {
		if h == nil {
			return
		}
		for i, k := range h.keys {
			if !yield(k, h.vals[i]) {
				return
			}
		}
	}
}

// Get returns the value stored under k.
func (h *Hash) Get(k any) (any, bool) {
	i := h.find(k)
	if i < 0 {
		return nil, false
	}
	return h.vals[i], true
}

// Has reports whether k is a key.
func (h *Hash) Has(k any) bool { return h.find(k) >= 0 }

func (h *Hash) find(k any) int {
	if h == nil {
		return -1
	}
	if !validKey(k) {
		return -1
	}
	if h.index != nil {
		if i, ok := h.index[k]; ok {
			return i
		}
		return -1
	}
	for i, hk := range h.keys {
		if hk == k {
			return i
		}
	}
	return -1
}

// Set stores v under k. An existing key keeps its position; a new key is
// appended. Set panics if k is not a scalar, like a Go map does for an
// unhashable key: loaders must reject such keys before they get here.
func (h *Hash) Set(k, v any) {
	if !validKey(k) {
		panic("format: Hash key must be nil, bool, int64, float64 or string")
	}
	if i := h.find(k); i >= 0 {
		h.vals[i] = v
		return
	}
	h.keys = append(h.keys, k)
	h.vals = append(h.vals, v)
	switch {
	case h.index != nil:
		h.index[k] = len(h.keys) - 1
	case len(h.keys) > indexAt:
		h.reindex()
	}
}

// Delete removes k, keeping the order of the other entries.
func (h *Hash) Delete(k any) {
	i := h.find(k)
	if i < 0 {
		return
	}
	h.keys = append(h.keys[:i], h.keys[i+1:]...)
	h.vals = append(h.vals[:i], h.vals[i+1:]...)
	if h.index != nil {
		h.reindex()
	}
}

// Clone returns a shallow copy: same keys and values, new order bookkeeping.
func (h *Hash) Clone() *Hash {
	c := NewHash(h.Len())
	if h == nil {
		return c
	}
	c.keys = append(c.keys, h.keys...)
	c.vals = append(c.vals, h.vals...)
	if h.index != nil {
		c.reindex()
	}
	return c
}

// Remap returns a hash with h's keys, in h's order, and f(i, h.Value(i))
// as the value of the i-th: a copy of h with new values, made without
// searching for a duplicate key (h's keys are distinct already), in one
// allocation up to 8 keys, two beyond (and, for a hash large enough to
// have a key index, that index, as Set would build it). The first error f
// returns is Remap's, with a nil hash. h is not changed, and shares
// nothing with the copy but its keys' values, so either may be changed
// afterwards.
func (h *Hash) Remap(f func(i int, v any) (any, error)) (*Hash, error) {
	n := h.Len()
	c, buf := newHashBuf(2 * n)
	c.keys, c.vals = buf[:n:n], buf[n:2*n:2*n]
	copy(c.keys, h.Keys())
	for i := range n {
		v, err := f(i, h.vals[i])
		if err != nil {
			return nil, err
		}
		c.vals[i] = v
	}
	if h != nil && h.index != nil {
		c.reindex()
	}
	return c, nil
}

// WithValues returns a hash with h's keys, in h's order, and vals[i] as
// the value of the i-th: as Remap, in one small allocation, for a hash
// that is not changed once built. The hash shares h's keys (and key
// index) and vals: after the call, neither hash may be changed (Set,
// Delete), nor vals. It panics if len(vals) is not h.Len().
func (h *Hash) WithValues(vals []any) *Hash {
	if len(vals) != h.Len() {
		panic("format: WithValues needs a value for each of the hash's keys")
	}
	if h == nil {
		return &Hash{}
	}
	return &Hash{keys: h.keys[:len(h.keys):len(h.keys)], vals: vals[:len(vals):len(vals)], index: h.index}
}

// HashOf returns the hash whose i-th entry is keys[i] => vals[i], made
// without Set's search for each key, for a loader whose keys are distinct
// already. It takes both slices, and index when not nil as its key index
// (each key to its position, as Set builds it for more than 8 keys): the
// caller must not change them afterwards. It panics if the lengths differ,
// or a key is not one Set takes, or is there twice (found by the index, or
// by comparing the keys of a hash of up to 8).
func HashOf(keys, vals []any, index map[any]int) *Hash {
	n := len(keys)
	if len(vals) != n {
		panic("format: HashOf needs a value for each key")
	}
	for _, k := range keys {
		if !validKey(k) {
			panic("format: Hash key must be nil, bool, int64, float64 or string")
		}
	}
	h := &Hash{keys: keys[:n:n], vals: vals[:n:n]}
	switch {
	case n > indexAt && index != nil:
		h.index = index
	case n > indexAt:
		h.reindex()
	default:
		for i, k := range keys {
			for _, o := range keys[:i] {
				if o == k {
					panic("format: HashOf keys must be distinct")
				}
			}
		}
	}
	if h.index != nil && len(h.index) != n {
		panic("format: HashOf keys must be distinct")
	}
	return h
}

// newHashBuf returns an empty hash and room for n of its keys and values,
// in one allocation up to 16 (most hashes a data file holds are small).
func newHashBuf(n int) (*Hash, []any) {
	switch {
	case n <= 4:
		b := new(struct {
			h   Hash
			buf [4]any
		})
		return &b.h, b.buf[:]
	case n <= 8:
		b := new(struct {
			h   Hash
			buf [8]any
		})
		return &b.h, b.buf[:]
	case n <= 16:
		b := new(struct {
			h   Hash
			buf [16]any
		})
		return &b.h, b.buf[:]
	}
	return new(Hash), make([]any, n)
}

func (h *Hash) reindex() {
	h.index = make(map[any]int, len(h.keys))
	for i, k := range h.keys {
		h.index[k] = i
	}
}

func validKey(k any) bool {
	switch k := k.(type) {
	case nil, bool, int64, string:
		return true
	case float64:
		return !math.IsNaN(k) // NaN never equals itself, so it could never be found
	}
	return false
}

// Equal reports whether a and b are the same value in Ruby's eql? sense, the
// comparison Puppet's merges use to drop duplicates: types must match (1 is
// not 1.0), arrays compare in order, hashes compare as sets of entries
// (order does not matter).
func Equal(a, b any) bool {
	switch a := a.(type) {
	case nil:
		return b == nil
	case bool, int64, string:
		return a == b
	case float64:
		bf, ok := b.(float64)
		return ok && (a == bf || (math.IsNaN(a) && math.IsNaN(bf)))
	case []any:
		bs, ok := b.([]any)
		if !ok || len(a) != len(bs) {
			return false
		}
		for i := range a {
			if !Equal(a[i], bs[i]) {
				return false
			}
		}
		return true
	case *Hash:
		bh, ok := b.(*Hash)
		if !ok || a.Len() != bh.Len() {
			return false
		}
		for i, k := range a.keys {
			bv, ok := bh.Get(k)
			if !ok || !Equal(a.vals[i], bv) {
				return false
			}
		}
		return true
	}
	return false
}

// Identical reports whether a and b are equal and, for hashes, also list
// their keys in the same order. Users see key order, so a diff must too.
func Identical(a, b any) bool {
	switch a := a.(type) {
	case []any:
		bs, ok := b.([]any)
		if !ok || len(a) != len(bs) {
			return false
		}
		for i := range a {
			if !Identical(a[i], bs[i]) {
				return false
			}
		}
		return true
	case *Hash:
		bh, ok := b.(*Hash)
		if !ok || a.Len() != bh.Len() {
			return false
		}
		for i, k := range a.keys {
			if bh.keys[i] != k || !Identical(a.vals[i], bh.vals[i]) {
				return false
			}
		}
		return true
	}
	return Equal(a, b)
}
