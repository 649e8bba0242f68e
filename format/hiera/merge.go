package hiera

import (
	"errors"
	"fmt"

	"github.com/hieracc/hieracc/format"
	"github.com/hieracc/hieracc/format/ptype"
)

// The types Puppet asserts of the values a merge merges; package ptype
// words their mismatch messages, as Puppet's TypeAsserter and
// TypeMismatchDescriber do.
var (
	uniqueType = ptype.MustParse("Variant[Scalar, Array[Data]]") // what unique merges
	hashType   = ptype.MustParse("Hash[String, Data]")           // what hash merges
)

// strategy is a parsed format.Merge, ready to merge.
type strategy struct {
	name format.Strategy // "" for first found
	deep *deepOpts
}

func newStrategy(m format.Merge) (strategy, error) {
	switch {
	case m.Strategy.IsFirst():
		return strategy{}, nil
	case m.Strategy == format.MergeUnique, m.Strategy == format.MergeHash:
		return strategy{name: m.Strategy}, nil
	case m.Strategy == format.MergeDeep:
		o, err := newDeepOpts(m)
		if err != nil {
			return strategy{}, err
		}
		return strategy{name: format.MergeDeep, deep: o}, nil
	}
	return strategy{}, fmt.Errorf("Unknown merge strategy: '%s'", m.Strategy)
}

// MergeValues merges two values under m as Puppet's MergeStrategy#merge(e1,
// e2) does (e1 higher priority), with its type assertions and messages:
//
//   - unique: both must be Scalar or Array[Data]; the result is e1 then e2,
//     each flattened, without duplicates.
//   - hash: both must be Hash[String, Data]; e2's keys in order, then e1's
//     new keys; values from e1.
//   - deep: any values, merged by the deep_merge gem's rules.
//   - first found (never merges in Puppet): e1.
//
// The result may share structure with e1 and e2, which are never modified;
// treat it as read-only. Exposed for lookup_options assembly and tests.
func MergeValues(m format.Merge, e1, e2 any) (any, error) {
	s, err := newStrategy(m)
	if err != nil {
		return nil, err
	}
	return s.merge(e1, e2)
}

func (s strategy) merge(e1, e2 any) (any, error) {
	switch s.name {
	case format.MergeUnique:
		if !isUniqueValue(e1) {
			return nil, typeError(uniqueType, "The first element of the merge", e1)
		}
		if !isUniqueValue(e2) {
			return nil, typeError(uniqueType, "The second element of the merge", e2)
		}
		c1, c2 := s.convert(e1).([]any), s.convert(e2).([]any)
		return uniqAppend(uniqAppend(make([]any, 0, len(c1)+len(c2)), c1), c2), nil
	case format.MergeHash:
		h1, ok := e1.(*format.Hash)
		if !ok || !ptype.IsData(h1) {
			return nil, typeError(hashType, "The first element of the merge", e1)
		}
		h2, ok := e2.(*format.Hash)
		if !ok || !ptype.IsData(h2) {
			return nil, typeError(hashType, "The second element of the merge", e2)
		}
		// e2.merge(e1)
		switch {
		case h1.Len() == 0:
			return h2, nil
		case h2.Len() == 0:
			return h1, nil
		}
		out := h2.Clone()
		for i := 0; i < h1.Len(); i++ {
			out.Set(h1.Key(i), h1.Value(i))
		}
		return out, nil
	case format.MergeDeep:
		return s.deep.merge(e1, e2)
	}
	return e1, nil
}

// typeError is the failure of a merge's assertion that v is an instance of
// t: Puppet's message, which t.Check words. The merges test their values
// with faster predicates of their own (isUniqueValue, ptype.IsData),
// which TestMergePredicates holds to t.Match; should they ever disagree,
// the merge still fails.
func typeError(t *ptype.Type, subject string, v any) error {
	if err := t.Check(subject, v); err != nil {
		return err
	}
	return fmt.Errorf("%s has wrong type, expects a %s value", subject, t)
}

// isUniqueValue is Variant[Scalar, Array[Data]].
func isUniqueValue(v any) bool {
	switch v.(type) {
	case bool, int64, float64, string:
		return true
	case []any:
		return ptype.IsData(v)
	}
	return false
}

// convert is convert_value, applied to the first value found when several
// variants may contribute: unique flattens (a scalar becomes a one-element
// array); the other strategies pass the value through.
func (s strategy) convert(v any) any {
	if s.name != format.MergeUnique {
		return v
	}
	a, ok := v.([]any)
	if !ok {
		return []any{v}
	}
	if !hasArray(a) {
		return v // already flat: no copy
	}
	return flatten(make([]any, 0, len(a)), a)
}

func hasArray(a []any) bool {
	for _, e := range a {
		if _, ok := e.([]any); ok {
			return true
		}
	}
	return false
}

func flatten(dst, a []any) []any {
	for _, e := range a {
		if sub, ok := e.([]any); ok {
			dst = flatten(dst, sub)
		} else {
			dst = append(dst, e)
		}
	}
	return dst
}

// mergeSingle is merge_single, applied where a variant list has exactly
// one element: unique removes duplicates without flattening.
func (s strategy) mergeSingle(v any) any {
	if s.name != format.MergeUnique {
		return v
	}
	a, ok := v.([]any)
	if !ok || !hasDuplicate(a) {
		return v
	}
	return uniqAppend(make([]any, 0, len(a)), a)
}

func hasDuplicate(a []any) bool {
	for i := 1; i < len(a); i++ {
		if containsEql(a[:i], a[i]) {
			return true
		}
	}
	return false
}

// lookup is MergeStrategy#lookup over n variants: none is not found, one
// is merge_single'd, several are reduced high to low priority with
// convert_value on the first found and merge for the rest.
func (s strategy) lookup(n int, variant func(i int) (any, bool, error)) (any, bool, error) {
	switch n {
	case 0:
		return nil, false, nil
	case 1:
		v, found, err := variant(0)
		if err != nil || !found {
			return nil, false, err
		}
		return s.mergeSingle(v), true, nil
	}
	var memo any
	found := false
	for i := 0; i < n; i++ {
		v, ok, err := variant(i)
		if err != nil {
			return nil, false, err
		}
		if !ok {
			continue
		}
		if !found {
			memo, found = s.convert(v), true
			continue
		}
		if memo, err = s.merge(memo, v); err != nil {
			return nil, false, err
		}
	}
	return memo, found, nil
}

// hierarchy looks a key up in one provider: levels, then each level's
// locations. A missing provider and an empty hierarchy are not found.
func (s strategy) hierarchy(layer format.Layer, h *format.Hierarchy, leaf Leaf) (any, bool, error) {
	if h == nil || !h.Present {
		return nil, false, nil
	}
	return s.lookup(len(h.Levels), func(level int) (any, bool, error) {
		return s.lookup(len(h.Levels[level].Locations), func(loc int) (any, bool, error) {
			return leaf(layer, level, loc)
		})
	})
}

// firstFound is FirstFoundStrategy#lookup at every depth: the first
// location holding the key wins.
func firstFound(layers []*format.Hierarchy, first format.Layer, leaf Leaf) (any, bool, error) {
	for i, h := range layers {
		if h == nil || !h.Present {
			continue
		}
		layer := first + format.Layer(i)
		for level := range h.Levels {
			for loc := range h.Levels[level].Locations {
				v, found, err := leaf(layer, level, loc)
				if err != nil {
					return nil, false, err
				}
				if found {
					return v, true, nil
				}
			}
		}
	}
	return nil, false, nil
}

// Leaf yields the value one location holds for the key being looked up.
// found=false means the location does not have the key (Puppet's throw
// :no_such_key), which includes a location whose file does not exist.
// A non-nil err aborts the lookup with that error (Puppet raised).
type Leaf func(layer format.Layer, level, loc int) (v any, found bool, err error)

// ContributionLeaf answers Resolve from a key's recorded contributions
// (format.Key's Contributions or Defaults): a location's value, or its
// error, as it was read.
func ContributionLeaf(cs []format.Contribution) Leaf {
	return func(layer format.Layer, level, loc int) (any, bool, error) {
		for i := range cs {
			c := &cs[i]
			if c.Layer == layer && c.Level == level && c.Location == loc {
				if c.Err != nil {
					return nil, false, c.Err
				}
				return c.Value, true, nil
			}
		}
		return nil, false, nil
	}
}

// Resolve runs Puppet's MergeStrategy#lookup exactly as Puppet nests it:
// over the three provider variants [global, environment, module] (a nil or
// !Present hierarchy is a variant that is not found), each over its levels,
// each over its locations. merge_single applies only where a variant list
// has exactly one element; convert_value/merge otherwise. So, for unique, a
// value found in one location of a one-location level is de-duplicated but
// not flattened there, and flattened further up.
//
// Errors from leaf, and merge errors, abort at once, in the order Puppet
// meets them (highest priority first). Resolve returns the root key's
// value: apply Key.Dig to it for a dotted key.
func Resolve(m format.Merge, layers [3]*format.Hierarchy, leaf Leaf) (v any, found bool, err error) {
	s, err := newStrategy(m)
	if err != nil {
		return nil, false, err
	}
	if s.name == "" {
		return firstFound(layers[:], format.LayerGlobal, leaf)
	}
	return s.lookup(len(layers), func(i int) (any, bool, error) {
		if i != int(format.LayerGlobal) {
			return s.hierarchy(format.LayerGlobal+format.Layer(i), layers[i], leaf)
		}
		var leafErr error
		v, found, err := s.hierarchy(format.LayerGlobal, layers[i], func(layer format.Layer, level, loc int) (any, bool, error) {
			v, found, err := leaf(layer, level, loc)
			leafErr = err
			return v, found, err
		})
		if err != nil && err != leafErr {
			err = &GlobalError{Err: err}
		}
		return v, found, err
	})
}

// GlobalError is an error raised while merging the values of the global
// layer's levels. Puppet raises it inside the global layer's provider,
// whose error handler prefixes the key of the lookup: InLookupOf adds that
// prefix, for the key as asked. (An error a Leaf returns is the caller's
// to prefix: it knows which errors Puppet exempts.)
type GlobalError struct{ Err error }

func (e *GlobalError) Error() string { return e.Err.Error() }
func (e *GlobalError) Unwrap() error { return e.Err }

// InLookupOf gives a GlobalError from the lookup of key (as asked, dots
// included) Puppet's "Lookup of key 'key' failed: " prefix; other errors
// are returned as they are.
func InLookupOf(key string, err error) error {
	if err == nil {
		return nil // the common case, without errors.As's allocation
	}
	var ge *GlobalError
	if errors.As(err, &ge) {
		return fmt.Errorf("Lookup of key '%s' failed: %s", key, ge.Err.Error())
	}
	return err
}

// ResolveDefault is the same over a module's default_hierarchy alone
// (levels -> locations, as ModuleDataProvider#key_lookup_in_default); Leaf
// is called with layer = format.LayerModule. A nil or !Present hierarchy is
// not found.
func ResolveDefault(m format.Merge, h *format.Hierarchy, leaf Leaf) (v any, found bool, err error) {
	s, err := newStrategy(m)
	if err != nil {
		return nil, false, err
	}
	if s.name == "" {
		return firstFound([]*format.Hierarchy{h}, format.LayerModule, leaf)
	}
	return s.hierarchy(format.LayerModule, h, leaf)
}
