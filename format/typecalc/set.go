package typecalc

import (
	"math/big"
	"slices"

	"github.com/hieracc/hieracc/format"
)

// This file ports TypeCalculator#infer_set and PAnyType#normalize for the
// types it builds, and the instance checks the matcher and the merge
// assertions need.

// TypeOf is the type of v as type mismatch messages print it in full:
// InferSet, normalized ("Integer[42, 42]", "String", "Tuple[Integer[1, 1],
// String]").
func TypeOf(v any) string { return InferSet(v).Normalize().String() }

// HashTypeOf is the Hash[K, V] type, without its size, that mismatch
// messages print for a hash that is not a Struct.
func HashTypeOf(h *format.Hash) string {
	t := InferSet(h)
	if t.kind != kHash {
		return t.String()
	}
	return (&Type{kind: kHash, key: t.key, elem: t.elem}).Normalize().String()
}

// IsStruct reports whether InferSet types v as a Struct: a non-empty hash
// whose keys are all non-empty strings.
func IsStruct(v any) bool {
	h, ok := v.(*format.Hash)
	if !ok || h.Len() == 0 {
		return false
	}
	for i := range h.Len() {
		if s, ok := h.Key(i).(string); !ok || s == "" {
			return false
		}
	}
	return true
}

// IsData reports whether v is an instance of Puppet's Data type: a scalar,
// nil, an array of Data or a hash with string keys and Data values.
func IsData(v any) bool {
	switch v := v.(type) {
	case nil, bool, int64, float64, string:
		return true
	case []any:
		for _, e := range v {
			if !IsData(e) {
				return false
			}
		}
		return true
	case *format.Hash:
		for i := range v.Len() {
			if _, ok := v.Key(i).(string); !ok || !IsData(v.Value(i)) {
				return false
			}
		}
		return true
	}
	return false
}

// InferSet is TypeCalculator#infer_set of v: a non-empty array is a
// Tuple, a non-empty hash a Struct (IsStruct) or a Hash of Variants. A
// value outside format's model that is not Inferable is typed Undef.
func InferSet(v any) *Type {
	switch v := v.(type) {
	case nil:
		return tUndef
	case bool:
		return &Type{kind: kBoolean, val: v}
	case int64:
		return Integer(big.NewInt(v))
	case float64:
		return &Type{kind: kFloat, ffrom: v, fto: v}
	case string:
		return &Type{kind: kString, val: v}
	case []any:
		if len(v) == 0 {
			return &Type{kind: kArray, elem: tUnit, size: sizeOf(0)}
		}
		t := &Type{kind: kTuple, elems: make([]*Type, len(v))}
		for i, e := range v {
			t.elems[i] = InferSet(e)
		}
		return t
	case *format.Hash:
		if IsStruct(v) {
			t := &Type{kind: kStruct, values: make([]string, v.Len()), elems: make([]*Type, v.Len())}
			for i := range v.Len() {
				t.values[i] = v.Key(i).(string)
				t.elems[i] = InferSet(v.Value(i))
			}
			return t
		}
		return inferSetHash(hashEntries(v))
	case Entries:
		return inferSetHash(v.Entries())
	case Inferable:
		return v.PuppetType()
	}
	return tUndef
}

func inferSetHash(keys, vals []any) *Type {
	if len(keys) == 0 {
		return emptyHash()
	}
	ks := make([]*Type, len(keys))
	vs := make([]*Type, len(keys))
	for i := range keys {
		ks[i] = InferSet(keys[i])
		vs[i] = InferSet(vals[i])
	}
	return &Type{kind: kHash, key: maybeVariant(ks), elem: maybeVariant(vs), size: sizeOf(len(keys))}
}

// maybeVariant is PVariantType.maybe_create: flatten, drop duplicates,
// unwrap a single type.
func maybeVariant(ts []*Type) *Type {
	var flat []*Type
	for _, t := range ts {
		if t.kind == kVariant {
			flat = append(flat, t.elems...)
		} else {
			flat = append(flat, t)
		}
	}
	var uniq []*Type
	for _, t := range flat {
		if !slices.ContainsFunc(uniq, t.equal) {
			uniq = append(uniq, t)
		}
	}
	if len(uniq) == 1 {
		return uniq[0]
	}
	return &Type{kind: kVariant, elems: uniq}
}

// equal is Ruby's eql? on types.
func (t *Type) equal(o *Type) bool {
	if t == nil || o == nil {
		return t == o
	}
	if t.kind != o.kind {
		return false
	}
	switch t.kind {
	case kBoolean, kString:
		return t.val == o.val
	case kInteger:
		return t.from.Cmp(o.from) == 0 && t.to.Cmp(o.to) == 0
	case kFloat:
		return t.ffrom == o.ffrom && t.fto == o.fto
	case kEnum:
		return slices.Equal(t.values, o.values)
	case kRuntime:
		return t.name == o.name
	case kVariant:
		// eql?: same size and no type of one missing from the other.
		if len(t.elems) != len(o.elems) {
			return false
		}
		for _, e := range t.elems {
			if !slices.ContainsFunc(o.elems, e.equal) {
				return false
			}
		}
		return true
	}
	if (t.size == nil) != (o.size == nil) || t.size != nil && *t.size != *o.size ||
		!slices.Equal(t.values, o.values) || len(t.elems) != len(o.elems) ||
		!t.key.equal(o.key) || !t.elem.equal(o.elem) {
		return false
	}
	for i := range t.elems {
		if !t.elems[i].equal(o.elems[i]) {
			return false
		}
	}
	return true
}

// Normalize is PAnyType#normalize for the types InferSet builds: the
// Variants of a hash's keys and values merged (strings into one Enum,
// touching Integer and Float ranges into one), an Undef in a Variant made
// an Optional.
func (t *Type) Normalize() *Type {
	n, _ := t.normalize()
	return n
}

// normalize reports whether Puppet would return a new object, which
// decides whether a Variant keeps its original order (PVariantType#normalize
// returns self when nothing merged and no member changed).
func (t *Type) normalize() (*Type, bool) {
	switch t.kind {
	case kTuple, kStruct:
		elems, changed := normalizeAll(t.elems)
		if !changed {
			return t, false
		}
		c := *t
		c.elems = elems
		return &c, true
	case kHash:
		if isEmptyCollection(t) {
			return t, false
		}
		key, _ := t.key.normalize()
		elem, _ := t.elem.normalize()
		if t.size == nil && key == t.key && elem == t.elem {
			return t, false
		}
		c := *t
		c.key, c.elem = key, elem
		return &c, true
	case kOptional:
		inner, changed := t.elem.normalize()
		if !changed {
			return t, false
		}
		return &Type{kind: kOptional, elem: inner}, true
	case kVariant:
		return t.normalizeVariant()
	}
	return t, false
}

func normalizeAll(ts []*Type) ([]*Type, bool) {
	out := make([]*Type, len(ts))
	changed := false
	for i, e := range ts {
		n, c := e.normalize()
		out[i] = n
		changed = changed || c
	}
	return out, changed
}

func (t *Type) normalizeVariant() (*Type, bool) {
	if len(t.elems) == 0 {
		return t, false
	}
	types, modified := normalizeAll(t.elems)
	if !modified {
		types = t.elems
	}
	if len(types) == 1 {
		return types[0], true
	}
	if slices.ContainsFunc(types, func(e *Type) bool { return e.kind == kUndef || e.kind == kOptional }) {
		var rest []*Type
		for _, e := range types {
			switch e.kind {
			case kUndef:
			case kOptional:
				rest = append(rest, e.elem)
			default:
				rest = append(rest, e)
			}
		}
		// The inner type never accepts undef here, so POptionalType#normalize
		// keeps the Optional.
		o := &Type{kind: kOptional, elem: maybeVariant(rest)}
		n, _ := o.normalize()
		return n, true
	}
	var flat []*Type
	for _, e := range types {
		if e.kind == kVariant {
			flat = append(flat, e.elems...)
		} else {
			flat = append(flat, e)
		}
	}
	before := len(flat)
	flat = mergeEnums(flat)
	flat = mergeNumbers(flat, kInteger)
	flat = mergeNumbers(flat, kFloat)
	if len(flat) == 1 {
		return flat[0], true
	}
	if modified || len(flat) != before {
		return maybeVariant(flat), true
	}
	return t, false
}

// mergeEnums merges strings with values and enums into one Enum, placed
// after the other types.
func mergeEnums(ts []*Type) []*Type {
	if len(ts) < 2 {
		return ts
	}
	var enums, others []*Type
	for _, e := range ts {
		if e.kind == kString && e.val != nil || e.kind == kEnum && len(e.values) > 0 {
			enums = append(enums, e)
		} else {
			others = append(others, e)
		}
	}
	if len(enums) < 2 {
		return ts
	}
	var vals []string
	for _, e := range enums {
		if e.kind == kString {
			vals = append(vals, e.val.(string))
		} else {
			vals = append(vals, e.values...)
		}
	}
	slices.Sort(vals)
	vals = slices.Compact(vals)
	return append(others, &Type{kind: kEnum, values: vals})
}

// mergeNumbers is PVariantType#merge_numbers: ranges of one numeric type
// are merged (merge_ranges pops from the end) and placed first.
func mergeNumbers(ts []*Type, k kind) []*Type {
	if len(ts) < 2 {
		return ts
	}
	var ranges, others []*Type
	for _, e := range ts {
		if e.kind == k {
			ranges = append(ranges, e)
		} else {
			others = append(others, e)
		}
	}
	if len(ranges) < 2 {
		return ts
	}
	var result []*Type
	for len(ranges) > 0 {
		memo := ranges[len(ranges)-1]
		ranges = ranges[:len(ranges)-1]
		var unmerged []*Type
		for _, y := range ranges {
			if m := mergeRange(memo, y); m != nil {
				memo = m
			} else {
				unmerged = append(unmerged, y)
			}
		}
		result = append(result, memo)
		ranges = unmerged
	}
	return append(result, others...)
}

var one = big.NewInt(1)

// mergeRange joins two ranges that intersect (or, for integers, are
// adjacent); nil when they are apart.
func mergeRange(a, b *Type) *Type {
	if a.kind == kInteger {
		adjacent := new(big.Int).Add(a.to, one).Cmp(b.from) == 0 || new(big.Int).Add(b.to, one).Cmp(a.from) == 0
		if a.from.Cmp(b.to) <= 0 && b.from.Cmp(a.to) <= 0 || adjacent {
			return &Type{kind: kInteger, from: minBig(a.from, b.from), to: maxBig(a.to, b.to)}
		}
		return nil
	}
	if a.ffrom <= b.fto && b.ffrom <= a.fto {
		return &Type{kind: kFloat, ffrom: min(a.ffrom, b.ffrom), fto: max(a.fto, b.fto)}
	}
	return nil
}

func minBig(a, b *big.Int) *big.Int {
	if a.Cmp(b) <= 0 {
		return a
	}
	return b
}

func maxBig(a, b *big.Int) *big.Int {
	if a.Cmp(b) >= 0 {
		return a
	}
	return b
}
