// Package typecalc is hieracc's one port of Puppet's TypeCalculator
// (Puppet 7.23, pops/types/type_calculator.rb): the type Puppet infers for
// a value, and that type printed as Puppet's TypeFormatter prints it. Error
// messages quote these types: "expects Puppet::LookupValue, got
// Hash[String, Runtime[ruby, 'Symbol'], 1, 1]" (Infer), "expects a
// Hash[String, Data] value, got Hash[Integer[1, 1], String]" (InferSet,
// normalized).
//
// Two inferences are ported, as Puppet has them:
//
//   - Infer (TypeCalculator#infer): an array's or a hash's element types
//     reduced to one with #common_type ("Array[Integer[1, 2], 2, 2]").
//   - InferSet (#infer_set): an array is a Tuple of its elements' types, a
//     hash with non-empty string keys a Struct, another hash a Hash over
//     the Variants of its keys' and values' types; Normalize merges those
//     Variants as PAnyType#normalize does.
//
// Type.Generalize is PAnyType#generalize, the type the `new` functions
// name in their conversion errors ("Value of type Array[String[1, 2]] cannot
// be converted to Integer").
//
// Values are those of package format, plus a reader's own values that
// format cannot hold (a Ruby Symbol, an Integer beyond 64 bits), which
// implement Inferable, and hashes with keys format cannot hold, which
// implement Entries. IsData and IsStruct classify values as the matcher
// and the merge assertions need. Type names without parameters ("got
// Tuple") are format/ruby's TypeName.
package typecalc

import (
	"math"
	"math/big"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/hieracc/hieracc/format/ruby"
)

type kind uint8

const (
	kAny kind = iota
	kUnit
	kUndef
	kDefault
	kBoolean
	kInteger
	kFloat
	kNumeric
	kString
	kEnum
	kScalarData
	kScalar
	kData
	kRichData
	kArray
	kHash
	kTuple
	kStruct
	kVariant
	kOptional
	kRuntime
)

// Type is a Puppet type as the type calculator builds it. Types are
// immutable; String prints one.
type Type struct {
	kind kind
	// Boolean: the bool, nil for Boolean. String: the string, nil for
	// String.
	val any
	// Integer's range; nil for the default Integer (generalized).
	from, to *big.Int
	// Float's range; an infinite bound is the default one.
	ffrom, fto float64
	// Enum: sorted distinct values. Struct: the keys, parallel to elems.
	values []string
	// Array: elem. Hash: key, elem. Optional: elem.
	key, elem *Type
	// Tuple, Struct, Variant: the members.
	elems []*Type
	// Array, Hash: the size range; nil is the default one. String: the
	// length range of a generalized Enum, nil for none.
	size *[2]int
	// Runtime: the Ruby class name.
	name string
}

var (
	tAny        = &Type{kind: kAny}
	tUnit       = &Type{kind: kUnit}
	tUndef      = &Type{kind: kUndef}
	tDefault    = &Type{kind: kDefault}
	tNumeric    = &Type{kind: kNumeric}
	tScalarData = &Type{kind: kScalarData}
	tScalar     = &Type{kind: kScalar}
	tData       = &Type{kind: kData}
	tRichData   = &Type{kind: kRichData}
	tString     = &Type{kind: kString}
	tEnum       = &Type{kind: kEnum}
)

// Undef is the type of undef (nil, Ruby's :undef).
func Undef() *Type { return tUndef }

// Default is the type of Puppet's default (Ruby's :default).
func Default() *Type { return tDefault }

// Integer is the type of the integer n: Integer[n, n].
func Integer(n *big.Int) *Type { return &Type{kind: kInteger, from: n, to: n} }

// Runtime is the type of a Ruby object of class name that Puppet has no
// type for: Runtime[ruby, 'name'].
func Runtime(name string) *Type { return &Type{kind: kRuntime, name: name} }

func sizeOf(n int) *[2]int { return &[2]int{n, n} }

func isEmptyCollection(t *Type) bool {
	return t.size != nil && t.size[0] == 0 && t.size[1] == 0
}

// String formats t as Puppet's TypeFormatter#string does.
func (t *Type) String() string {
	var b strings.Builder
	t.write(&b)
	return b.String()
}

func (t *Type) write(b *strings.Builder) {
	list := func(ts []*Type) {
		for i, e := range ts {
			if i > 0 {
				b.WriteString(", ")
			}
			e.write(b)
		}
	}
	switch t.kind {
	case kAny:
		b.WriteString("Any")
	case kUnit:
		b.WriteString("Unit")
	case kUndef:
		b.WriteString("Undef")
	case kDefault:
		b.WriteString("Default")
	case kBoolean:
		b.WriteString("Boolean")
		if t.val != nil {
			b.WriteString("[" + strconv.FormatBool(t.val.(bool)) + "]")
		}
	case kInteger:
		if t.from == nil { // generalized: the default Integer
			b.WriteString("Integer")
			return
		}
		b.WriteString("Integer[" + t.from.String() + ", " + t.to.String() + "]")
	case kFloat:
		// PNumericType#from/#to are nil for -/+Infinity, shown as
		// "default" and omitted at the end.
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
	case kNumeric:
		b.WriteString("Numeric")
	case kString:
		b.WriteString("String")
		if t.size != nil { // generalized from an Enum
			b.WriteString("[" + strconv.Itoa(t.size[0]) + ", " + strconv.Itoa(t.size[1]) + "]")
		}
	case kEnum:
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
	case kScalarData:
		b.WriteString("ScalarData")
	case kScalar:
		b.WriteString("Scalar")
	case kData:
		b.WriteString("Data")
	case kRichData:
		b.WriteString("RichData")
	case kArray, kHash:
		if t.kind == kHash {
			b.WriteString("Hash")
		} else {
			b.WriteString("Array")
		}
		if isEmptyCollection(t) {
			b.WriteString("[0, 0]")
			return
		}
		if t.size == nil && t.elem.kind == kAny && (t.kind == kArray || t.key.kind == kAny) {
			return // the default Array / Hash
		}
		b.WriteByte('[')
		if t.kind == kHash {
			t.key.write(b)
			b.WriteString(", ")
		}
		t.elem.write(b)
		if t.size != nil {
			b.WriteString(", " + strconv.Itoa(t.size[0]) + ", " + strconv.Itoa(t.size[1]))
		}
		b.WriteByte(']')
	case kTuple:
		b.WriteString("Tuple[")
		list(t.elems)
		b.WriteByte(']')
	case kVariant:
		b.WriteString("Variant[")
		list(t.elems)
		b.WriteByte(']')
	case kOptional:
		b.WriteString("Optional[")
		if s, ok := t.elem.val.(string); ok && t.elem.kind == kString {
			b.WriteString(ruby.PuppetQuote(s))
		} else {
			t.elem.write(b)
		}
		b.WriteByte(']')
	case kStruct:
		b.WriteString("Struct[{")
		for i, name := range t.values {
			if i > 0 {
				b.WriteString(", ")
			}
			// struct_element_pair: a key whose value may be undef prints as
			// NotUndef['key'].
			if t.elems[i].acceptsUndef() {
				b.WriteString("NotUndef[" + ruby.PuppetQuote(name) + "]")
			} else {
				b.WriteString(ruby.PuppetQuote(name))
			}
			b.WriteString(" => ")
			t.elems[i].write(b)
		}
		b.WriteString("}]")
	case kRuntime:
		b.WriteString("Runtime[ruby, " + ruby.PuppetQuote(t.name) + "]")
	}
}

// acceptsUndef is assignable?(Undef) for the types InferSet produces.
func (t *Type) acceptsUndef() bool { return t.kind == kUndef || t.kind == kOptional }

// Generalize is PAnyType#generalize: the type without the parameters that
// describe one value (Integer[1, 1] is Integer, an Enum is a String of its
// values' lengths, collections lose their sizes). Puppet's `new` functions
// print it ("Value of type Array[String] cannot be converted to Integer").
// The result is for printing, not for further calculation.
func (t *Type) Generalize() *Type {
	switch t.kind {
	case kBoolean:
		if t.val == nil {
			return t
		}
		return &Type{kind: kBoolean}
	case kInteger:
		return &Type{kind: kInteger}
	case kFloat:
		return &Type{kind: kFloat, ffrom: math.Inf(-1), fto: math.Inf(1)}
	case kString:
		return tString
	case kEnum:
		if len(t.values) == 0 {
			return tString
		}
		lo, hi := -1, 0
		for _, v := range t.values {
			n := utf8.RuneCountInString(v) // Ruby's String#size
			if lo < 0 || n < lo {
				lo = n
			}
			hi = max(hi, n)
		}
		return &Type{kind: kString, size: &[2]int{lo, hi}}
	case kArray:
		if t.elem.kind == kAny {
			return &Type{kind: kArray, elem: tAny}
		}
		return &Type{kind: kArray, elem: t.elem.Generalize()}
	case kHash:
		if isEmptyCollection(t) || t.size == nil && t.key.kind == kAny && t.elem.kind == kAny {
			return t // EMPTY and DEFAULT stay
		}
		return &Type{kind: kHash, key: t.key.Generalize(), elem: t.elem.Generalize()}
	case kOptional:
		return &Type{kind: kOptional, elem: t.elem.Generalize()}
	case kVariant:
		elems := make([]*Type, len(t.elems))
		for i, e := range t.elems {
			elems[i] = e.Generalize()
		}
		return maybeVariant(elems)
	case kTuple, kStruct:
		c := *t
		c.elems = make([]*Type, len(t.elems))
		for i, e := range t.elems {
			c.elems[i] = e.Generalize()
		}
		return &c
	}
	return t
}
