package dataload

import (
	"math"
	"math/big"
	"sort"
	"strings"

	"github.com/hieracc/hieracc/format"
	"github.com/hieracc/hieracc/format/ruby"
)

// This file reproduces the part of Puppet's type system that words the
// error for a value that is not a LookupValue: "has wrong type, expects
// Puppet::LookupValue, got Hash[String, Runtime[ruby, 'Symbol'], 1, 1]".
// The type after "got" is TypeCalculator#infer of the value, which reduces
// the element types of arrays and hashes with #common_type; both are ported
// here (Puppet 7.23, pops/types/type_calculator.rb) for the types a loaded
// data file can produce.

type ptKind int

const (
	ptAny ptKind = iota
	ptUnit
	ptUndef
	ptDefault
	ptBoolean
	ptInteger
	ptFloat
	ptNumeric
	ptString
	ptEnum
	ptScalarData
	ptScalar
	ptData
	ptRichData
	ptArray
	ptHash
	ptRuntime
)

// ptype is a Puppet type. Fields are used per kind.
type ptype struct {
	kind ptKind
	// Boolean: value (nil for Boolean). String: value (nil for String).
	val any
	// Integer: from/to. Float: ffrom/fto.
	from, to   *big.Int
	ffrom, fto float64
	// Enum: sorted distinct values.
	values []string
	// Array: elem. Hash: key, elem. Size: nil for the default size.
	key, elem *ptype
	size      *[2]int
	// Runtime: the Ruby class name.
	name string
}

var (
	tAny        = &ptype{kind: ptAny}
	tUnit       = &ptype{kind: ptUnit}
	tUndef      = &ptype{kind: ptUndef}
	tNumeric    = &ptype{kind: ptNumeric}
	tScalarData = &ptype{kind: ptScalarData}
	tScalar     = &ptype{kind: ptScalar}
	tData       = &ptype{kind: ptData}
	tRichData   = &ptype{kind: ptRichData}
	tString     = &ptype{kind: ptString}
	tEnum       = &ptype{kind: ptEnum}
)

func sizeOf(n int) *[2]int { return &[2]int{n, n} }

// inferType is TypeCalculator#infer.
func inferType(v any) *ptype {
	switch v := v.(type) {
	case nil:
		return tUndef
	case bool:
		return &ptype{kind: ptBoolean, val: v}
	case int64:
		b := big.NewInt(v)
		return &ptype{kind: ptInteger, from: b, to: b}
	case rbig:
		b, _ := new(big.Int).SetString(string(v), 10)
		return &ptype{kind: ptInteger, from: b, to: b}
	case float64:
		return &ptype{kind: ptFloat, ffrom: v, fto: v}
	case string:
		return &ptype{kind: ptString, val: v}
	case rsym:
		switch v {
		case "default":
			return &ptype{kind: ptDefault}
		case "undef":
			return tUndef
		}
		return &ptype{kind: ptRuntime, name: "Symbol"}
	case renc:
		return &ptype{kind: ptRuntime, name: "Encoding"}
	case []any:
		if len(v) == 0 {
			return &ptype{kind: ptArray, elem: tUnit, size: sizeOf(0)}
		}
		return &ptype{kind: ptArray, elem: reduceTypes(v), size: sizeOf(len(v))}
	case *format.Hash:
		return inferHash(v.Keys(), func(i int) any { return v.Value(i) })
	case *rhash:
		return inferHash(v.keys, func(i int) any { return v.vals[i] })
	}
	return tAny
}

func inferHash(keys []any, val func(int) any) *ptype {
	if len(keys) == 0 {
		return &ptype{kind: ptHash, key: tUnit, elem: tUnit, size: sizeOf(0)}
	}
	vals := make([]any, len(keys))
	for i := range keys {
		vals[i] = val(i)
	}
	return &ptype{kind: ptHash, key: reduceTypes(keys), elem: reduceTypes(vals), size: sizeOf(len(keys))}
}

func reduceTypes(vs []any) *ptype {
	var t *ptype
	for _, v := range vs {
		t = commonType(t, inferType(v))
	}
	return t
}

// commonType is TypeCalculator#common_type.
func commonType(t1, t2 *ptype) *ptype {
	switch {
	case t1 == nil || t1.kind == ptUndef: // Puppet treats Undef like nil here
		return t2
	case t2 == nil || t2.kind == ptUndef:
		return t1
	case t1.kind == ptUnit:
		return t2
	case t2.kind == ptUnit:
		return t1
	case assignable(t1, t2):
		return t1
	case assignable(t2, t1):
		return t2
	}
	k1, k2 := t1.kind, t2.kind
	switch {
	case k1 == ptArray && k2 == ptArray:
		return &ptype{kind: ptArray, elem: commonType(t1.elem, t2.elem)}
	case k1 == ptHash && k2 == ptHash:
		return &ptype{kind: ptHash, key: commonType(t1.key, t2.key), elem: commonType(t1.elem, t2.elem)}
	case k1 == ptInteger && k2 == ptInteger:
		from, to := t1.from, t1.to
		if t2.from.Cmp(from) < 0 {
			from = t2.from
		}
		if t2.to.Cmp(to) > 0 {
			to = t2.to
		}
		return &ptype{kind: ptInteger, from: from, to: to}
	case k1 == ptFloat && k2 == ptFloat:
		// [a, b].min raises on NaN, blaming the first element.
		if math.IsNaN(t1.ffrom) || math.IsNaN(t2.ffrom) {
			panic(rubyRaise("comparison of Float with " + ruby.Float(t1.ffrom) + " failed"))
		}
		if math.IsNaN(t1.fto) || math.IsNaN(t2.fto) {
			panic(rubyRaise("comparison of Float with " + ruby.Float(t1.fto) + " failed"))
		}
		return &ptype{kind: ptFloat, ffrom: math.Min(t1.ffrom, t2.ffrom), fto: math.Max(t1.fto, t2.fto)}
	case k1 == ptString && (k2 == ptString || k2 == ptEnum):
		if k2 == ptEnum {
			if t1.val == nil {
				return tEnum
			}
			return enumWith(t2.values, t1.val.(string))
		}
		if t1.val == nil || t2.val == nil {
			return tString
		}
		return newEnum([]string{t1.val.(string), t2.val.(string)})
	case k1 == ptEnum && (k2 == ptString || k2 == ptEnum):
		if k2 == ptEnum {
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
	case k1 == ptRuntime && k2 == ptRuntime:
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

// rubyRaise is an exception Puppet's type calculator raises while wording
// its message; the lookup then fails with this message instead.
type rubyRaise string

// inferMessage is the "got ..." part of the message for v, or the message
// of the exception Puppet raises while working it out.
func inferMessage(v any) (got string, raised string) {
	defer func() {
		if r := recover(); r != nil {
			e, ok := r.(rubyRaise)
			if !ok {
				panic(r)
			}
			got, raised = "", string(e)
		}
	}()
	return inferType(v).String(), ""
}

// newEnum is PEnumType.new: values made unique and sorted.
func newEnum(vals []string) *ptype {
	sort.Strings(vals)
	out := vals[:0]
	for i, v := range vals {
		if i == 0 || v != vals[i-1] {
			out = append(out, v)
		}
	}
	return &ptype{kind: ptEnum, values: out}
}

// enumWith is newEnum(values + [s]) for sorted values, in linear time.
func enumWith(values []string, s string) *ptype {
	i := sort.SearchStrings(values, s)
	if i < len(values) && values[i] == s {
		return &ptype{kind: ptEnum, values: values}
	}
	out := make([]string, 0, len(values)+1)
	out = append(append(append(out, values[:i]...), s), values[i:]...)
	return &ptype{kind: ptEnum, values: out}
}

// enumUnion is newEnum(a + b) for sorted a and b, in linear time.
func enumUnion(a, b []string) *ptype {
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
	return &ptype{kind: ptEnum, values: out}
}

// containsString reports whether sorted list holds s.
func containsString(list []string, s string) bool {
	i := sort.SearchStrings(list, s)
	return i < len(list) && list[i] == s
}

func isNumeric(t *ptype) bool {
	return t.kind == ptNumeric || t.kind == ptInteger || t.kind == ptFloat
}

func isScalarData(t *ptype) bool {
	switch t.kind {
	case ptScalarData, ptString, ptEnum, ptBoolean:
		return true
	}
	return isNumeric(t)
}

func isScalar(t *ptype) bool { return t.kind == ptScalar || isScalarData(t) }

// sizeRange is a collection's size range; nil is [0, infinity).
func sizeContains(outer, inner *[2]int) bool {
	if outer == nil {
		return true
	}
	if inner == nil {
		return outer[0] == 0 && outer[1] < 0
	}
	return outer[0] <= inner[0] && inner[1] <= outer[1]
}

// assignable is PAnyType#assignable?: whether t accepts every value of o.
func assignable(t, o *ptype) bool {
	if o.kind == ptUnit || t.kind == ptAny || t.kind == ptUnit {
		return true
	}
	switch t.kind {
	case ptUndef:
		return o.kind == ptUndef
	case ptDefault:
		return o.kind == ptDefault
	case ptBoolean:
		return o.kind == ptBoolean && (t.val == nil || t.val == o.val)
	case ptInteger:
		return o.kind == ptInteger && t.from.Cmp(o.from) <= 0 && t.to.Cmp(o.to) >= 0
	case ptFloat:
		return o.kind == ptFloat && t.ffrom <= o.ffrom && t.fto >= o.fto
	case ptNumeric:
		// The default range is -Infinity..Infinity, which a NaN bound is
		// not within.
		return isNumeric(o) && !(o.kind == ptFloat && (math.IsNaN(o.ffrom) || math.IsNaN(o.fto)))
	case ptString:
		switch o.kind {
		case ptString:
			return t.val == nil || t.val == o.val
		case ptEnum:
			// Puppet only checks that the enum has one value, not which.
			return t.val == nil || len(o.values) == 1
		}
		return false
	case ptEnum:
		if len(t.values) == 0 && (o.kind == ptString || o.kind == ptEnum) {
			return true
		}
		switch o.kind {
		case ptString:
			s, ok := o.val.(string)
			return ok && containsString(t.values, s)
		case ptEnum:
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
	case ptScalarData:
		return isScalarData(o)
	case ptScalar:
		return isScalar(o)
	case ptData:
		// Variant[ScalarData, Undef, Hash[String, Data], Array[Data]]
		switch {
		case isScalarData(o), o.kind == ptUndef, o.kind == ptData:
			return true
		case o.kind == ptArray:
			return assignable(tData, o.elem)
		case o.kind == ptHash:
			return isEmptyHash(o) || assignable(tString, o.key) && assignable(tData, o.elem)
		}
		return false
	case ptRichData:
		// Variant[Scalar, ..., Undef, Default, Hash[RichDataKey, RichData], Array[RichData]]
		switch {
		case isScalar(o), o.kind == ptUndef, o.kind == ptDefault, o.kind == ptData, o.kind == ptRichData:
			return true
		case o.kind == ptArray:
			return assignable(tRichData, o.elem)
		case o.kind == ptHash:
			return isEmptyHash(o) || (assignable(tString, o.key) || assignable(tNumeric, o.key)) && assignable(tRichData, o.elem)
		}
		return false
	case ptArray:
		return o.kind == ptArray && sizeContains(t.size, o.size) && assignable(t.elem, o.elem)
	case ptHash:
		if o.kind != ptHash {
			return false
		}
		if (t.size == nil || t.size[0] == 0) && isEmptyHash(o) {
			return true
		}
		return assignable(t.key, o.key) && assignable(t.elem, o.elem) && sizeContains(t.size, o.size)
	case ptRuntime:
		return o.kind == ptRuntime && o.name == t.name
	}
	return false
}

func isEmptyHash(t *ptype) bool {
	return t.kind == ptHash && t.size != nil && t.size[0] == 0 && t.size[1] == 0
}

// String is TypeFormatter#string (non-debug).
func (t *ptype) String() string {
	var b strings.Builder
	t.write(&b)
	return b.String()
}

func (t *ptype) write(b *strings.Builder) {
	switch t.kind {
	case ptAny:
		b.WriteString("Any")
	case ptUnit:
		b.WriteString("Unit")
	case ptUndef:
		b.WriteString("Undef")
	case ptDefault:
		b.WriteString("Default")
	case ptBoolean:
		b.WriteString("Boolean")
		if t.val != nil {
			if t.val.(bool) {
				b.WriteString("[true]")
			} else {
				b.WriteString("[false]")
			}
		}
	case ptInteger:
		b.WriteString("Integer[" + t.from.String() + ", " + t.to.String() + "]")
	case ptFloat:
		// PNumericType#from/#to are nil for -/+Infinity, shown as
		// "default" and omitted.
		from, to := t.ffrom, t.fto
		switch {
		case math.IsInf(from, -1) && math.IsInf(to, 1):
			b.WriteString("Float")
		case math.IsInf(to, 1):
			b.WriteString("Float[" + ruby.Float(from) + "]")
		case math.IsInf(from, -1):
			b.WriteString("Float[default, " + ruby.Float(to) + "]")
		default:
			b.WriteString("Float[" + ruby.Float(from) + ", " + ruby.Float(to) + "]")
		}
	case ptNumeric:
		b.WriteString("Numeric")
	case ptString:
		b.WriteString("String")
	case ptEnum:
		b.WriteString("Enum")
		if len(t.values) > 0 {
			b.WriteByte('[')
			for i, v := range t.values {
				if i > 0 {
					b.WriteString(", ")
				}
				b.WriteString(ruby.PuppetQuote(v))
			}
			b.WriteByte(']')
		}
	case ptScalarData:
		b.WriteString("ScalarData")
	case ptScalar:
		b.WriteString("Scalar")
	case ptData:
		b.WriteString("Data")
	case ptRichData:
		b.WriteString("RichData")
	case ptArray, ptHash:
		name := "Array"
		if t.kind == ptHash {
			name = "Hash"
		}
		b.WriteString(name)
		if t.size != nil && t.size[0] == 0 && t.size[1] == 0 {
			b.WriteString("[0, 0]")
			return
		}
		var parts []string
		if t.kind == ptHash {
			parts = append(parts, t.key.String())
		}
		parts = append(parts, t.elem.String())
		if t.size != nil {
			parts = append(parts, itoa(t.size[0]), itoa(t.size[1]))
		}
		if t.size == nil && t.elem.kind == ptAny && (t.kind == ptArray || t.key.kind == ptAny) {
			return // the default Array / Hash
		}
		b.WriteString("[" + strings.Join(parts, ", ") + "]")
	case ptRuntime:
		b.WriteString("Runtime[ruby, " + ruby.PuppetQuote(t.name) + "]")
	}
}

func itoa(i int) string { return big.NewInt(int64(i)).String() }
