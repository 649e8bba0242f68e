package typecalc

import (
	"errors"
	"math"
	"math/big"
	"sort"

	"github.com/hieracc/hieracc/format"
	"github.com/hieracc/hieracc/format/ruby"
)

// This file ports TypeCalculator#infer and the #common_type and
// #assignable? it reduces collections with, for the types a value can
// have.

// Inferable is a reader's own value that format cannot hold; it gives its
// type itself (Integer(n) for an integer beyond 64 bits, Runtime("Symbol")
// for a Ruby Symbol).
type Inferable interface {
	PuppetType() *Type
}

// Entries is a hash whose keys format cannot hold (an array used as a
// key); Infer and InferSet type it as a hash of these entries.
type Entries interface {
	Entries() (keys, values []any)
}

// Infer is TypeCalculator#infer of v. The error is the exception Ruby
// raises while Puppet works the type out (comparing a NaN bound, two
// Runtime types of different classes); Puppet's lookup then fails with its
// message instead.
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
	return infer(v), nil
}

// rubyRaise is an exception Puppet's type calculator raises while
// inferring; Infer returns it as its error.
type rubyRaise string

func infer(v any) *Type {
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
		return &Type{kind: kArray, elem: reduceTypes(v), size: sizeOf(len(v))}
	case *format.Hash:
		return inferHash(hashEntries(v))
	case Entries:
		return inferHash(v.Entries())
	case Inferable:
		return v.PuppetType()
	}
	return tAny
}

// hashEntries is h's keys and values, as Entries gives them.
func hashEntries(h *format.Hash) (keys, vals []any) {
	vals = make([]any, h.Len())
	for i := range vals {
		vals[i] = h.Value(i)
	}
	return h.Keys(), vals
}

// emptyHash is the type Infer and InferSet give an empty hash.
func emptyHash() *Type { return &Type{kind: kHash, key: tUnit, elem: tUnit, size: sizeOf(0)} }

func inferHash(keys, vals []any) *Type {
	if len(keys) == 0 {
		return emptyHash()
	}
	return &Type{kind: kHash, key: reduceTypes(keys), elem: reduceTypes(vals), size: sizeOf(len(keys))}
}

func reduceTypes(vs []any) *Type {
	var t *Type
	for _, v := range vs {
		t = commonType(t, infer(v))
	}
	return t
}

// commonType is TypeCalculator#common_type.
func commonType(t1, t2 *Type) *Type {
	switch {
	case t1 == nil || t1.kind == kUndef: // Puppet treats Undef like nil here
		return t2
	case t2 == nil || t2.kind == kUndef:
		return t1
	case t1.kind == kUnit:
		return t2
	case t2.kind == kUnit:
		return t1
	case assignable(t1, t2):
		return t1
	case assignable(t2, t1):
		return t2
	}
	k1, k2 := t1.kind, t2.kind
	switch {
	case k1 == kArray && k2 == kArray:
		return &Type{kind: kArray, elem: commonType(t1.elem, t2.elem)}
	case k1 == kHash && k2 == kHash:
		return &Type{kind: kHash, key: commonType(t1.key, t2.key), elem: commonType(t1.elem, t2.elem)}
	case k1 == kInteger && k2 == kInteger:
		from, to := t1.from, t1.to
		if t2.from.Cmp(from) < 0 {
			from = t2.from
		}
		if t2.to.Cmp(to) > 0 {
			to = t2.to
		}
		return &Type{kind: kInteger, from: from, to: to}
	case k1 == kFloat && k2 == kFloat:
		// [a, b].min raises on NaN, blaming the first element.
		if math.IsNaN(t1.ffrom) || math.IsNaN(t2.ffrom) {
			panic(rubyRaise("comparison of Float with " + ruby.Float(t1.ffrom) + " failed"))
		}
		if math.IsNaN(t1.fto) || math.IsNaN(t2.fto) {
			panic(rubyRaise("comparison of Float with " + ruby.Float(t1.fto) + " failed"))
		}
		return &Type{kind: kFloat, ffrom: math.Min(t1.ffrom, t2.ffrom), fto: math.Max(t1.fto, t2.fto)}
	case k1 == kString && (k2 == kString || k2 == kEnum):
		if k2 == kEnum {
			if t1.val == nil {
				return tEnum
			}
			return enumWith(t2.values, t1.val.(string))
		}
		if t1.val == nil || t2.val == nil {
			return tString
		}
		return newEnum([]string{t1.val.(string), t2.val.(string)})
	case k1 == kEnum && (k2 == kString || k2 == kEnum):
		if k2 == kEnum {
			return enumUnion(t1.values, t2.values)
		}
		if t2.val == nil {
			return tEnum
		}
		return enumWith(t1.values, t2.val.(string))
	case assignable(tNumeric, t1) && assignable(tNumeric, t2):
		return tNumeric
	case isScalarData(t1) && isScalarData(t2):
		return tScalarData
	case isScalar(t1) && isScalar(t2):
		return tScalar
	case assignable(tData, t1) && assignable(tData, t2):
		return tData
	case assignable(tRichData, t1) && assignable(tRichData, t2):
		return tRichData
	case k1 == kRuntime && k2 == kRuntime:
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
	return tAny
}

// newEnum is PEnumType.new: values made unique and sorted.
func newEnum(vals []string) *Type {
	sort.Strings(vals)
	out := vals[:0]
	for i, v := range vals {
		if i == 0 || v != vals[i-1] {
			out = append(out, v)
		}
	}
	return &Type{kind: kEnum, values: out}
}

// enumWith is newEnum(values + [s]) for sorted values, in linear time.
func enumWith(values []string, s string) *Type {
	i := sort.SearchStrings(values, s)
	if i < len(values) && values[i] == s {
		return &Type{kind: kEnum, values: values}
	}
	out := make([]string, 0, len(values)+1)
	out = append(append(append(out, values[:i]...), s), values[i:]...)
	return &Type{kind: kEnum, values: out}
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
	return &Type{kind: kEnum, values: out}
}

// containsString reports whether sorted list holds s.
func containsString(list []string, s string) bool {
	i := sort.SearchStrings(list, s)
	return i < len(list) && list[i] == s
}

func isNumeric(t *Type) bool {
	return t.kind == kNumeric || t.kind == kInteger || t.kind == kFloat
}

func isScalarData(t *Type) bool {
	switch t.kind {
	case kScalarData, kString, kEnum, kBoolean:
		return true
	}
	return isNumeric(t)
}

func isScalar(t *Type) bool { return t.kind == kScalar || isScalarData(t) }

// sizeContains reports whether size range outer holds inner; nil is
// [0, infinity).
func sizeContains(outer, inner *[2]int) bool {
	if outer == nil {
		return true
	}
	if inner == nil {
		return outer[0] == 0 && outer[1] < 0
	}
	return outer[0] <= inner[0] && inner[1] <= outer[1]
}

// assignable is PAnyType#assignable? for the types Infer produces: whether
// t accepts every value of o.
func assignable(t, o *Type) bool {
	if o.kind == kUnit || t.kind == kAny || t.kind == kUnit {
		return true
	}
	switch t.kind {
	case kUndef:
		return o.kind == kUndef
	case kDefault:
		return o.kind == kDefault
	case kBoolean:
		return o.kind == kBoolean && (t.val == nil || t.val == o.val)
	case kInteger:
		return o.kind == kInteger && t.from.Cmp(o.from) <= 0 && t.to.Cmp(o.to) >= 0
	case kFloat:
		return o.kind == kFloat && t.ffrom <= o.ffrom && t.fto >= o.fto
	case kNumeric:
		// The default range is -Infinity..Infinity, which a NaN bound is
		// not within.
		return isNumeric(o) && !(o.kind == kFloat && (math.IsNaN(o.ffrom) || math.IsNaN(o.fto)))
	case kString:
		return assignableString(t, o)
	case kEnum:
		return assignableEnum(t, o)
	case kScalarData:
		return isScalarData(o)
	case kScalar:
		return isScalar(o)
	case kData:
		return assignableData(o)
	case kRichData:
		return assignableRichData(o)
	case kArray:
		return o.kind == kArray && sizeContains(t.size, o.size) && assignable(t.elem, o.elem)
	case kHash:
		return assignableHash(t, o)
	case kRuntime:
		return o.kind == kRuntime && o.name == t.name
	}
	return false
}

// assignableString is assignable for a String t.
func assignableString(t, o *Type) bool {
	switch o.kind {
	case kString:
		return t.val == nil || t.val == o.val
	case kEnum:
		// Puppet only checks that the enum has one value, not which.
		return t.val == nil || len(o.values) == 1
	}
	return false
}

// assignableEnum is assignable for an Enum t.
func assignableEnum(t, o *Type) bool {
	if len(t.values) == 0 && (o.kind == kString || o.kind == kEnum) {
		return true
	}
	switch o.kind {
	case kString:
		s, ok := o.val.(string)
		return ok && containsString(t.values, s)
	case kEnum:
		if len(o.values) == 0 {
			return false
		}
		for _, s := range o.values {
			if !containsString(t.values, s) {
				return false
			}
		}
		return true
	}
	return false
}

// assignableData is assignable for a Data t:
// Variant[ScalarData, Undef, Hash[String, Data], Array[Data]].
func assignableData(o *Type) bool {
	switch {
	case isScalarData(o), o.kind == kUndef, o.kind == kData:
		return true
	case o.kind == kArray:
		return assignable(tData, o.elem)
	case o.kind == kHash:
		return isEmptyHash(o) || assignable(tString, o.key) && assignable(tData, o.elem)
	}
	return false
}

// assignableRichData is assignable for a RichData t: Variant[Scalar, ...,
// Undef, Default, Hash[RichDataKey, RichData], Array[RichData]].
func assignableRichData(o *Type) bool {
	switch {
	case isScalar(o), o.kind == kUndef, o.kind == kDefault, o.kind == kData, o.kind == kRichData:
		return true
	case o.kind == kArray:
		return assignable(tRichData, o.elem)
	case o.kind == kHash:
		return isEmptyHash(o) || (assignable(tString, o.key) || assignable(tNumeric, o.key)) && assignable(tRichData, o.elem)
	}
	return false
}

// assignableHash is assignable for a Hash t.
func assignableHash(t, o *Type) bool {
	if o.kind != kHash {
		return false
	}
	if (t.size == nil || t.size[0] == 0) && isEmptyHash(o) {
		return true
	}
	return assignable(t.key, o.key) && assignable(t.elem, o.elem) && sizeContains(t.size, o.size)
}

func isEmptyHash(t *Type) bool { return t.kind == kHash && isEmptyCollection(t) }
