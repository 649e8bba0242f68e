package ptype

import (
	"errors"
	"math"
	"math/big"
	"slices"
	"unicode/utf8"

	"github.com/hieracc/hieracc/format"
	"github.com/hieracc/hieracc/format/ruby"
)

// This file ports TypeCalculator#infer and #infer_set, and the
// #common_type and #assignable? infer reduces collections with, for the
// types a value can have; and PAnyType#generalize.

// Inferable is a reader's own value that format cannot hold; it gives its
// type itself (IntegerValue(n) for an integer beyond 64 bits,
// RuntimeClass("Symbol") for a Ruby Symbol).
type Inferable interface {
	PuppetType() *Type
}

// Entries is a hash whose keys format cannot hold (an array used as a
// key); Infer and InferSet type it as a hash of these entries.
type Entries interface {
	Entries() (keys, values []any)
}

// Infer is TypeCalculator#infer of v: an array's or a hash's element types
// reduced to one with #common_type ("Array[Integer[1, 2], 2, 2]"). The
// error is the exception Ruby raises while Puppet works the type out
// (comparing a NaN bound, two Runtime types of different classes);
// Puppet's lookup then fails with its message instead.
func Infer(v any) (t *Type, err error) {
	defer func() {
		if r := recover(); r != nil {
			e, ok := r.(rubyRaise)
			if !ok {
				panic(r)
			}
			t, err = nil, errors.New(string(e))
		}
	}()
	return infer(v, false), nil
}

// rubyRaise is an exception Puppet's type calculator raises while
// inferring; Infer returns it as its error.
type rubyRaise string

// InferSet is TypeCalculator#infer_set of v: a non-empty array is a
// Tuple, a non-empty hash a Struct (IsStruct) or a Hash of Variants. A
// value outside format's model that is not Inferable is typed Undef.
func InferSet(v any) *Type { return infer(v, true) }

// TypeOf is the type of v as type mismatch messages print it in full:
// InferSet, normalized ("Integer[42, 42]", "String", "Tuple[Integer[1, 1],
// String]").
func TypeOf(v any) string { return InferSet(v).Normalize().String() }

// HashTypeOf is the Hash[K, V] type, without its size, that mismatch
// messages print for a hash that is not a Struct.
func HashTypeOf(h *format.Hash) string {
	t := InferSet(h)
	if t.Kind == Hash {
		t = &Type{Kind: Hash, elems: t.elems}
	}
	return t.Normalize().String()
}

func infer(v any, set bool) *Type {
	switch v := v.(type) {
	case nil:
		return &Type{Kind: Undef}
	case bool:
		return &Type{Kind: Boolean, val: v}
	case int64:
		return IntegerValue(big.NewInt(v))
	case float64:
		return &Type{Kind: Float, flo: v, fhi: v}
	case string:
		return &Type{Kind: String, val: v}
	case []any:
		if len(v) == 0 {
			return emptyCollection(Array)
		}
		if !set {
			return &Type{Kind: Array, elems: []*Type{reduceTypes(v)}, size: &[2]int64{int64(len(v)), int64(len(v))}}
		}
		t := &Type{Kind: Tuple, elems: make([]*Type, len(v))}
		for i, e := range v {
			t.elems[i] = InferSet(e)
		}
		return t
	case *format.Hash:
		if set && IsStruct(v) {
			t := &Type{Kind: Struct, names: make([]string, v.Len()), optional: make([]bool, v.Len()), elems: make([]*Type, v.Len())}
			for i := range v.Len() {
				t.names[i] = v.Key(i).(string)
				t.elems[i] = InferSet(v.Value(i))
			}
			return t
		}
		vals := make([]any, v.Len())
		for i := range vals {
			vals[i] = v.Value(i)
		}
		return inferHash(v.Keys(), vals, set)
	case Entries:
		keys, vals := v.Entries()
		return inferHash(keys, vals, set)
	case Inferable:
		return v.PuppetType()
	}
	if set {
		return &Type{Kind: Undef}
	}
	return &Type{Kind: Any}
}

// emptyCollection is the type infer gives an empty array or hash.
func emptyCollection(k Kind) *Type {
	t := &Type{Kind: k, size: &[2]int64{}, elems: []*Type{{Kind: Unit}}}
	if k == Hash {
		t.elems = append(t.elems, t.elems[0])
	}
	return t
}

func inferHash(keys, vals []any, set bool) *Type {
	if len(keys) == 0 {
		return emptyCollection(Hash)
	}
	t := &Type{Kind: Hash, size: &[2]int64{int64(len(keys)), int64(len(keys))}}
	if !set {
		t.elems = []*Type{reduceTypes(keys), reduceTypes(vals)}
		return t
	}
	ks, vs := make([]*Type, len(keys)), make([]*Type, len(keys))
	for i := range keys {
		ks[i], vs[i] = InferSet(keys[i]), InferSet(vals[i])
	}
	t.elems = []*Type{maybeVariant(ks), maybeVariant(vs)}
	return t
}

func reduceTypes(vs []any) *Type {
	var t *Type
	for _, v := range vs {
		t = commonType(t, infer(v, false))
	}
	return t
}

// commonType is TypeCalculator#common_type.
func commonType(t1, t2 *Type) *Type {
	switch {
	case t1 == nil || t1.Kind == Undef: // Puppet treats Undef like nil here
		return t2
	case t2 == nil || t2.Kind == Undef:
		return t1
	case t1.Kind == Unit:
		return t2
	case t2.Kind == Unit:
		return t1
	case assignable(t1, t2):
		return t1
	case assignable(t2, t1):
		return t2
	}
	k1, k2 := t1.Kind, t2.Kind
	switch {
	case k1 == Array && k2 == Array:
		return &Type{Kind: Array, elems: []*Type{commonType(t1.value(), t2.value())}}
	case k1 == Hash && k2 == Hash:
		return &Type{Kind: Hash, elems: []*Type{commonType(t1.elems[0], t2.elems[0]), commonType(t1.value(), t2.value())}}
	case k1 == Integer && k2 == Integer:
		return mergeRange(t1, t2, true)
	case k1 == Float && k2 == Float:
		// [a, b].min raises on NaN, blaming the first element.
		if math.IsNaN(t1.flo) || math.IsNaN(t2.flo) {
			panic(rubyRaise("comparison of Float with " + ruby.Float(t1.flo) + " failed"))
		}
		if math.IsNaN(t1.fhi) || math.IsNaN(t2.fhi) {
			panic(rubyRaise("comparison of Float with " + ruby.Float(t1.fhi) + " failed"))
		}
		return mergeRange(t1, t2, true)
	case (k1 == String || k1 == Enum) && (k2 == String || k2 == Enum):
		// Neither is the String or the Enum without values: either would
		// be assignable from the other.
		return enumUnion(enumValues(t1), enumValues(t2))
	case assignable(&Type{Kind: Numeric}, t1) && assignable(&Type{Kind: Numeric}, t2):
		return &Type{Kind: Numeric}
	case isScalar(t1, ScalarData) && isScalar(t2, ScalarData):
		return &Type{Kind: ScalarData}
	case isScalar(t1, Scalar) && isScalar(t2, Scalar):
		return &Type{Kind: Scalar}
	case assignable(&Type{Kind: Data}, t1) && assignable(&Type{Kind: Data}, t2):
		return &Type{Kind: Data}
	case assignable(&Type{Kind: RichData}, t1) && assignable(&Type{Kind: RichData}, t2):
		return &Type{Kind: RichData}
	case k1 == Runtime && k2 == Runtime:
		if t1.name == t2.name {
			return t1
		}
		// Puppet 7.23 calls a private method here; Ruby 3.1 decorates
		// the NoMethodError message with the failing line and a guess.
		panic(rubyRaise("private method `provide_from_type' called for Puppet::Pops::Types::ClassLoader:Class\n\n" +
			"      c1 = ClassLoader.provide_from_type(t1)\n" +
			"                      ^^^^^^^^^^^^^^^^^^\n" +
			"Did you mean?  provide_from_name_path"))
	}
	return &Type{Kind: Any}
}

// enumValues are the values of an Enum, or the one value of an inferred
// String, sorted.
func enumValues(t *Type) []string {
	if s, ok := t.stringValue(); ok {
		return []string{s}
	}
	return t.names
}

// newEnum is PEnumType.new: values made unique and sorted.
func newEnum(vals []string) *Type {
	slices.Sort(vals)
	return &Type{Kind: Enum, names: slices.Compact(vals)}
}

// enumUnion is newEnum(a + b) for sorted a and b, in linear time.
func enumUnion(a, b []string) *Type {
	out := make([]string, 0, len(a)+len(b))
	for len(a) > 0 || len(b) > 0 {
		switch {
		case len(b) == 0 || len(a) > 0 && a[0] < b[0]:
			out, a = append(out, a[0]), a[1:]
		case len(a) == 0 || b[0] < a[0]:
			out, b = append(out, b[0]), b[1:]
		default:
			out, a, b = append(out, a[0]), a[1:], b[1:]
		}
	}
	return &Type{Kind: Enum, names: out}
}

// isScalar reports whether t is assignable to ScalarData (k ScalarData) or
// to Scalar (k Scalar).
func isScalar(t *Type, k Kind) bool {
	switch t.Kind {
	case ScalarData, String, Enum, Boolean, Numeric, Integer, Float:
		return true
	}
	return t.Kind == k
}

// sizeContains reports whether t's size range holds o's.
func sizeContains(t, o *Type) bool {
	lo, hi := t.sizeRange()
	olo, ohi := o.sizeRange()
	return lo <= olo && ohi <= hi
}

// assignable is PAnyType#assignable? for the types Infer produces: whether
// t accepts every value of o.
func assignable(t, o *Type) bool {
	if o.Kind == Unit || t.Kind == Any || t.Kind == Unit {
		return true
	}
	switch t.Kind {
	case Undef, Default:
		return o.Kind == t.Kind
	case Boolean:
		return o.Kind == Boolean && (t.val == nil || t.val == o.val)
	case Integer:
		return o.Kind == Integer && (t.lo == nil || o.lo != nil && t.lo.Cmp(o.lo) <= 0) && (t.hi == nil || o.hi != nil && t.hi.Cmp(o.hi) >= 0)
	case Float:
		return o.Kind == Float && t.flo <= o.flo && t.fhi >= o.fhi
	case Numeric:
		// The default range is -Infinity..Infinity, which a NaN bound is
		// not within.
		return o.Kind == Numeric || o.Kind == Integer || o.Kind == Float && !math.IsNaN(o.flo) && !math.IsNaN(o.fhi)
	case String:
		// Puppet only checks that an enum has one value, not which.
		return o.Kind == String && (t.val == nil || t.val == o.val) || o.Kind == Enum && (t.val == nil || len(o.names) == 1)
	case Enum:
		if vals := enumValues(o); o.Kind == String || o.Kind == Enum {
			return len(t.names) == 0 || len(vals) > 0 && !slices.ContainsFunc(vals, func(s string) bool { _, ok := slices.BinarySearch(t.names, s); return !ok })
		}
	case ScalarData, Scalar:
		return isScalar(o, t.Kind)
	case Data, RichData:
		return assignableData(t.Kind, o)
	case Array:
		return o.Kind == Array && sizeContains(t, o) && assignable(t.value(), o.value())
	case Hash:
		lo, _ := t.sizeRange()
		return o.Kind == Hash && (lo == 0 && o.emptyRange() ||
			assignable(t.elems[0], o.elems[0]) && assignable(t.value(), o.value()) && sizeContains(t, o))
	case Runtime:
		return o.Kind == Runtime && o.name == t.name
	}
	return false
}

// assignableData is assignable for Data (k Data), which is
// Variant[ScalarData, Undef, Hash[String, Data], Array[Data]], and for
// RichData (k RichData): Variant[Scalar, ..., Undef, Default,
// Hash[RichDataKey, RichData], Array[RichData]].
func assignableData(k Kind, o *Type) bool {
	kt := &Type{Kind: k}
	switch {
	case isScalar(o, ScalarData), o.Kind == Undef, o.Kind == Data:
		return true
	case k == RichData && (o.Kind == Scalar || o.Kind == Default || o.Kind == RichData):
		return true
	case o.Kind == Array:
		return assignable(kt, o.value())
	case o.Kind == Hash:
		return o.emptyRange() || (assignable(&Type{Kind: String}, o.elems[0]) ||
			k == RichData && assignable(&Type{Kind: Numeric}, o.elems[0])) && assignable(kt, o.value())
	}
	return false
}

// Generalize is PAnyType#generalize: the type without the parameters that
// describe one value (Integer[1, 1] is Integer, an Enum is a String of its
// values' lengths, collections lose their sizes). Puppet's `new` functions
// print it ("Value of type Array[String] cannot be converted to Integer").
// The result is for printing, not for further calculation.
func (t *Type) Generalize() *Type {
	switch t.Kind {
	case Boolean, Integer, Float, String:
		return Of(t.Kind)
	case Enum:
		if len(t.names) == 0 {
			return &Type{Kind: String}
		}
		lo, hi := int64(-1), int64(0)
		for _, v := range t.names {
			n := int64(utf8.RuneCountInString(v)) // Ruby's String#size
			if lo < 0 || n < lo {
				lo = n
			}
			hi = max(hi, n)
		}
		return &Type{Kind: String, size: &[2]int64{lo, hi}}
	case Hash:
		if t.emptyRange() || t.size == nil && t.elems[0].Kind == Any && t.value().Kind == Any {
			return t // EMPTY and DEFAULT stay
		}
	case Variant:
		return maybeVariant(generalizeAll(t.elems))
	case Array, Optional, Tuple, Struct:
	default:
		return t
	}
	c := *t
	c.elems = generalizeAll(t.elems)
	if t.Kind == Array || t.Kind == Hash {
		c.size = nil
	}
	return &c
}

func generalizeAll(ts []*Type) []*Type {
	out := make([]*Type, len(ts))
	for i, e := range ts {
		out[i] = e.Generalize()
	}
	return out
}
