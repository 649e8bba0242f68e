package ptype

import (
	"math"
	"unicode/utf8"

	"github.com/hieracc/hieracc/format"
	"github.com/hieracc/hieracc/format/typecalc"
)

// Match reports whether v, a format value, is an instance of t
// (TypeCalculator#instance?).
func (t *Type) Match(v any) bool {
	switch t.Kind {
	case Any, RichData:
		return true
	case Undef:
		return v == nil
	case NotUndef:
		return v != nil && (t.elem() == nil || t.elem().Match(v))
	case Default, Reference:
		return false
	case Sensitive:
		// No bundle value is Sensitive yet: when format gets a Sensitive
		// kind, it matches here (and the contained type its unwrapped
		// value).
		return false
	case Boolean:
		_, ok := v.(bool)
		return ok
	case Integer:
		i, ok := v.(int64)
		return ok && i >= t.min && i <= t.max
	case Float:
		f, ok := v.(float64)
		return ok && f >= t.fmin && f <= t.fmax
	case Numeric:
		switch x := v.(type) {
		case int64:
			return true
		case float64:
			return !math.IsNaN(x) // outside -Infinity..Infinity, as Puppet compares
		}
		return false
	case String:
		s, ok := v.(string)
		return ok && t.size(int64(utf8.RuneCountInString(s)))
	case Enum:
		return t.matchEnum(v)
	case Pattern:
		return t.matchPattern(v)
	case Scalar, ScalarData:
		switch v.(type) {
		case bool, int64, float64, string:
			return true
		}
		return false
	case Data:
		return typecalc.IsData(v)
	case Array:
		return t.matchArray(v)
	case Hash:
		return t.matchHash(v)
	case Tuple:
		return t.matchTuple(v)
	case Struct:
		return t.matchStruct(v)
	case Optional:
		return v == nil || (t.elem() != nil && t.elem().Match(v))
	case Variant:
		return t.matchVariant(v)
	}
	return false
}

// matchEnum is Match for an Enum.
func (t *Type) matchEnum(v any) bool {
	s, ok := v.(string)
	if !ok {
		return false
	}
	if len(t.names) == 0 {
		return true
	}
	for _, n := range t.names {
		if n == s {
			return true
		}
	}
	return false
}

// matchPattern is Match for a Pattern.
func (t *Type) matchPattern(v any) bool {
	s, ok := v.(string)
	if !ok {
		return false
	}
	if len(t.patterns) == 0 {
		return true
	}
	for _, re := range t.patterns {
		if re.MatchString(s) {
			return true
		}
	}
	return false
}

// matchArray is Match for an Array.
func (t *Type) matchArray(v any) bool {
	a, ok := v.([]any)
	if !ok || !t.size(int64(len(a))) {
		return false
	}
	for _, e := range a {
		if !t.elems[0].Match(e) {
			return false
		}
	}
	return true
}

// matchHash is Match for a Hash.
func (t *Type) matchHash(v any) bool {
	h, ok := v.(*format.Hash)
	if !ok || !t.size(int64(h.Len())) {
		return false
	}
	for k, e := range h.All() {
		if !t.elems[0].Match(k) || !t.elems[1].Match(e) {
			return false
		}
	}
	return true
}

// matchTuple is Match for a Tuple.
func (t *Type) matchTuple(v any) bool {
	a, ok := v.([]any)
	if !ok {
		return false
	}
	if len(t.elems) == 0 {
		return !t.hasSize || t.size(int64(len(a)))
	}
	if !t.size(int64(len(a))) {
		return false
	}
	for i, e := range a {
		if !t.elems[min(i, len(t.elems)-1)].Match(e) {
			return false
		}
	}
	return true
}

// matchStruct is Match for a Struct.
func (t *Type) matchStruct(v any) bool {
	h, ok := v.(*format.Hash)
	if !ok {
		return false
	}
	seen := 0
	for i, name := range t.names {
		e, ok := h.Get(name)
		if !ok {
			if !t.keyOptional(i) {
				return false
			}
			continue
		}
		seen++
		if !t.elems[i].Match(e) {
			return false
		}
	}
	return seen == h.Len()
}

// matchVariant is Match for a Variant.
func (t *Type) matchVariant(v any) bool {
	for _, e := range t.elems {
		if e.Match(v) {
			return true
		}
	}
	return false
}

func (t *Type) size(n int64) bool { return n >= t.min && n <= t.max }

// keyOptional reports whether a Struct's i-th key may be absent: it is
// Optional[k], or a plain key whose value type accepts undef.
func (t *Type) keyOptional(i int) bool {
	return t.keyKinds[i] == 1 || t.keyKinds[i] == 0 && acceptsUndef(t.elems[i])
}

// acceptsUndef reports whether undef is an instance of t.
func acceptsUndef(t *Type) bool { return t.Match(nil) }
