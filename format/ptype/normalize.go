package ptype

import (
	"math/big"
	"slices"
)

// Normalize is PAnyType#normalize: Variants flattened, their strings and
// Enums merged into one Enum, their Patterns into one Pattern, their
// touching Integer and Float ranges into one, an Undef in a Variant made
// an Optional; an Optional or a NotUndef of a type that decides undef
// itself is that type. Like Puppet, it returns t itself when nothing
// changes, which decides whether a Variant keeps its order. Unlike
// Puppet, an Array[Any] keeps its size (see the package's doc).
func (t *Type) Normalize() *Type {
	switch t.Kind {
	case Array, Tuple, Struct:
		if elems, changed := normalizeAll(t.elems); changed {
			c := *t
			c.elems = elems
			return &c
		}
	case Hash:
		if t.emptyRange() || t.size == nil && t.elems[0].Kind == Any && t.value().Kind == Any {
			return t // EMPTY and DEFAULT
		}
		if elems, changed := normalizeAll(t.elems); changed || t.size != nil {
			return &Type{Kind: Hash, elems: elems, size: t.size}
		}
	case Optional, NotUndef:
		return t.normalizeWrapper()
	case Variant:
		return t.normalizeVariant()
	}
	return t
}

func normalizeAll(ts []*Type) ([]*Type, bool) {
	out := make([]*Type, len(ts))
	changed := false
	for i, e := range ts {
		out[i] = e.Normalize()
		changed = changed || out[i] != e
	}
	return out, changed
}

// normalizeWrapper is POptionalType#normalize and PNotUndefType#normalize.
func (t *Type) normalizeWrapper() *Type {
	in := t.Elem()
	if in == nil {
		return t
	}
	n := t
	if ne := in.Normalize(); ne != in {
		n = &Type{Kind: t.Kind, elems: []*Type{ne}}
		in = ne
	}
	switch {
	case in.Kind == Optional && t.Kind == NotUndef, in.Kind == NotUndef && t.Kind == Optional:
		return (&Type{Kind: t.Kind, elems: in.elems}).Normalize() // no point in one inside the other
	case in.Match(nil) == (t.Kind == Optional):
		return in // the type is Optional, or NotUndef, anyway
	}
	return n
}

func (t *Type) normalizeVariant() *Type {
	if len(t.elems) == 0 {
		return t
	}
	types, modified := normalizeAll(t.elems)
	if !modified {
		types = t.elems
	}
	if len(types) == 1 {
		return types[0]
	}
	if slices.ContainsFunc(types, func(e *Type) bool { return e.Kind == Undef || e.Kind == Optional }) {
		var rest []*Type
		for _, e := range types {
			switch {
			case e.Kind == Optional && e.Elem() != nil:
				rest = append(rest, e.Elem())
			case e.Kind != Undef && e.Kind != Optional:
				rest = append(rest, e)
			}
		}
		return (&Type{Kind: Optional, elems: []*Type{maybeVariant(rest)}}).Normalize()
	}
	var flat []*Type
	for _, e := range types {
		if e.Kind == Variant {
			flat = append(flat, e.elems...)
		} else {
			flat = append(flat, e)
		}
	}
	before := len(flat)
	flat = mergeStrings(flat)
	flat = mergeNumbers(flat, Integer)
	flat = mergeNumbers(flat, Float)
	if len(flat) == 1 {
		return flat[0]
	}
	if modified || len(flat) != before {
		return maybeVariant(flat)
	}
	return t
}

// mergeStrings is PVariantType#merge_enums and #merge_patterns: strings
// with a value and Enums with values merged into one Enum, and Patterns
// into one Pattern, each placed after the other types.
func mergeStrings(ts []*Type) []*Type {
	for _, k := range []Kind{Enum, Pattern} {
		var merged []*Type
		others := []*Type{}
		for _, e := range ts {
			if k == Pattern && e.Kind == Pattern || k == Enum && len(enumValues(e)) > 0 && (e.Kind == Enum || e.Kind == String) {
				merged = append(merged, e)
			} else {
				others = append(others, e)
			}
		}
		if len(merged) < 2 {
			continue
		}
		m := &Type{Kind: k}
		for _, e := range merged {
			m.names = append(m.names, enumValues(e)...)
			for i, s := range e.sources {
				if !slices.Contains(m.sources, s) {
					m.sources, m.patterns = append(m.sources, s), append(m.patterns, e.patterns[i])
				}
			}
		}
		if k == Enum {
			m = newEnum(m.names)
		}
		ts = append(others, m)
	}
	return ts
}

// mergeNumbers is PVariantType#merge_numbers: ranges of kind k are merged
// (merge_ranges pops from the end) and placed first.
func mergeNumbers(ts []*Type, k Kind) []*Type {
	var ranges, others []*Type
	for _, e := range ts {
		if e.Kind == k {
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
			if m := mergeRange(memo, y, false); m != nil {
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

// mergeRange joins two Integer or Float ranges: always, or (PIntegerType
// and PFloatType#merge) when they intersect or, for integers, are
// adjacent; nil when they are apart.
func mergeRange(a, b *Type, always bool) *Type {
	if a.Kind == Float {
		if always || a.flo <= b.fhi && b.flo <= a.fhi {
			return &Type{Kind: Float, flo: min(a.flo, b.flo), fhi: max(a.fhi, b.fhi)}
		}
		return nil
	}
	if !always && !touches(a, b) && !touches(b, a) {
		return nil
	}
	return &Type{Kind: Integer, lo: bound(a.lo, b.lo, -1), hi: bound(a.hi, b.hi, 1)}
}

// touches reports whether a and b intersect or a ends right before b
// begins (an open bound is an infinite one).
func touches(a, b *Type) bool {
	if a.lo != nil && b.hi != nil && a.lo.Cmp(b.hi) > 0 {
		return false
	}
	return a.hi == nil || b.lo == nil || new(big.Int).Add(a.hi, big.NewInt(1)).Cmp(b.lo) >= 0
}

// bound is the lower (sign -1) or upper (sign 1) of two bounds, nil being
// open.
func bound(x, y *big.Int, sign int) *big.Int {
	if x == nil || y == nil {
		return nil
	}
	if x.Cmp(y)*sign >= 0 {
		return x
	}
	return y
}

// maybeVariant is PVariantType.maybe_create: flatten, drop duplicates,
// unwrap a single type.
func maybeVariant(ts []*Type) *Type {
	var uniq []*Type
	for _, t := range ts {
		members := []*Type{t}
		if t.Kind == Variant {
			members = t.elems
		}
		for _, m := range members {
			if !slices.ContainsFunc(uniq, m.equal) {
				uniq = append(uniq, m)
			}
		}
	}
	if len(uniq) == 1 {
		return uniq[0]
	}
	return &Type{Kind: Variant, elems: uniq}
}

// equal is Ruby's eql? on types; a Variant's members may differ in order.
func (t *Type) equal(o *Type) bool {
	bigEqual := func(x, y *big.Int) bool { return x == nil && y == nil || x != nil && y != nil && x.Cmp(y) == 0 }
	if t.Kind != o.Kind || t.val != o.val || t.name != o.name || !bigEqual(t.lo, o.lo) || !bigEqual(t.hi, o.hi) ||
		t.Kind == Float && (t.flo != o.flo || t.fhi != o.fhi) || (t.size == nil) != (o.size == nil) ||
		t.size != nil && *t.size != *o.size || !slices.Equal(t.names, o.names) || !slices.Equal(t.optional, o.optional) ||
		!slices.Equal(t.sources, o.sources) || len(t.elems) != len(o.elems) {
		return false
	}
	for i, e := range t.elems {
		if t.Kind == Variant && !slices.ContainsFunc(o.elems, e.equal) || t.Kind != Variant && !e.equal(o.elems[i]) {
			return false
		}
	}
	return true
}
