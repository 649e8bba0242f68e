package ptype

import (
	"cmp"
	"math"
	"math/big"
	"unicode/utf8"

	"github.com/hieracc/hieracc/format"
)

// Match reports whether v, a format value, is an instance of t
// (TypeCalculator#instance?).
func (t *Type) Match(v any) bool {
	switch t.Kind {
	case Any, Unit, RichData:
		return true
	case Undef:
		return v == nil
	case NotUndef:
		return v != nil && (t.Elem() == nil || t.Elem().Match(v))
	case Optional:
		return v == nil || t.Elem() != nil && t.Elem().Match(v)
	case Boolean:
		b, ok := v.(bool)
		return ok && (t.val == nil || t.val == b)
	case Integer:
		i, ok := v.(int64)
		return ok && (t.lo == nil || cmpInt(t.lo, i) <= 0) && (t.hi == nil || cmpInt(t.hi, i) >= 0)
	case Float:
		f, ok := v.(float64)
		return ok && f >= t.flo && f <= t.fhi
	case Numeric:
		switch x := v.(type) {
		case int64:
			return true
		case float64:
			return !math.IsNaN(x) // outside -Infinity..Infinity, as Puppet compares
		}
	case String:
		s, ok := v.(string)
		return ok && t.hasSize(int64(utf8.RuneCountInString(s))) && (t.val == nil || t.val == s)
	case Enum, Pattern:
		s, ok := v.(string)
		return ok && t.matchString(s)
	case Scalar, ScalarData:
		switch v.(type) {
		case bool, int64, float64, string:
			return true
		}
	case Data:
		return IsData(v)
	case Array, Tuple:
		return t.matchArray(v)
	case Hash:
		return t.matchHash(v)
	case Struct:
		return t.matchStruct(v)
	case Variant:
		for _, e := range t.elems {
			if e.Match(v) {
				return true
			}
		}
	}
	return false // Default, Sensitive (no bundle value is one yet), Runtime, Reference
}

// cmpInt compares b with i.
func cmpInt(b *big.Int, i int64) int {
	if !b.IsInt64() {
		return b.Sign()
	}
	return cmp.Compare(b.Int64(), i)
}

func (t *Type) hasSize(n int64) bool {
	lo, hi := t.sizeRange()
	return n >= lo && n <= hi
}

// matchString is Match for an Enum or a Pattern of the string s.
func (t *Type) matchString(s string) bool {
	for _, n := range t.names {
		if n == s {
			return true
		}
	}
	for _, re := range t.patterns {
		if re.MatchString(s) {
			return true
		}
	}
	return len(t.names) == 0 && len(t.patterns) == 0
}

// matchArray is Match for an Array or a Tuple.
func (t *Type) matchArray(v any) bool {
	a, ok := v.([]any)
	if !ok || !t.hasSize(int64(len(a))) {
		return false
	}
	for i, e := range a {
		if len(t.elems) > 0 && !t.elems[min(i, len(t.elems)-1)].Match(e) {
			return false
		}
	}
	return true
}

// matchHash is Match for a Hash.
func (t *Type) matchHash(v any) bool {
	h, ok := v.(*format.Hash)
	if !ok || !t.hasSize(int64(h.Len())) {
		return false
	}
	for k, e := range h.All() {
		if !t.elems[0].Match(k) || !t.elems[1].Match(e) {
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
			if !t.optional[i] {
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
