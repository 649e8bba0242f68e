// Package ptype is hieracc's one model of Puppet's type system (Puppet
// 7.23, pops/types): types parsed from strings, as lookup()'s value_type,
// `puppet lookup --type` and convert_to take them, and types inferred from
// values, as Puppet's TypeCalculator infers them for its messages. One
// Type represents both; String prints it as Puppet's TypeFormatter does,
// Normalize is PAnyType#normalize.
//
//   - Parse reads a type expression ("Integer[0, 10]", "Hash[String,
//     Array[String]]", "Optional[Enum[a, b]]"); Type.Match tells whether a
//     value is an instance (TypeCalculator#instance?), Type.Check fails
//     with the message of Puppet's TypeAsserter and TypeMismatchDescriber:
//
//     Found value has wrong type, index 1 expects a String value, got Integer
//
//   - Infer is TypeCalculator#infer ("Array[Integer[1, 2], 2, 2]"), InferSet
//     #infer_set (an array is a Tuple of its elements' types, a hash with
//     non-empty string keys a Struct); TypeOf and HashTypeOf print what
//     mismatch messages say a value is. Type.Generalize is
//     PAnyType#generalize, the type Puppet's `new` functions name in their
//     conversion errors ("Value of type Array[String] cannot be converted
//     to Integer").
//
// Values are those of package format, plus a reader's own values that
// format cannot hold (a Ruby Symbol, an Integer beyond 64 bits), which
// implement Inferable, and hashes with keys format cannot hold, which
// implement Entries. IsData and IsStruct classify values as the merges
// need. Type names without parameters ("got Tuple") are format/ruby's
// TypeName. It lives under format/ so that the runtime may use it; it
// depends on the standard library, format and format/ruby only.
//
// # Where ptype differs from Puppet
//
//   - Parse supports Any, Undef, NotUndef, Default, Boolean, Integer,
//     Float, Numeric, String, Enum, Pattern, Scalar, ScalarData, Data,
//     RichData, Array, Hash, Tuple, Struct, Optional, Variant and
//     Sensitive. Enum's case-insensitive flag, Numeric's and Collection's
//     parameters, Regexp, Type, Callable, Iterable and the object types are
//     refused. A capitalized name of another type is, as in Puppet, a
//     reference to a type that does not exist: no value matches it, and
//     Check says so. Patterns are Go regexps (RE2), which Ruby's mostly
//     are.
//   - No value of the bundles is Sensitive yet, so Sensitive matches
//     nothing.
//   - Where Puppet's message for an Array[Any, N] of the wrong size is
//     empty, Check says what is wrong.
package ptype

import (
	"math"
	"math/big"
	"regexp"
	"strconv"
	"strings"

	"github.com/hieracc/hieracc/format/ruby"
)

// Kind is the kind of a Type.
type Kind uint8

// The kinds of types.
const (
	Any Kind = iota
	Unit
	Undef
	NotUndef
	Default
	Boolean
	Integer
	Float
	Numeric
	String
	Enum
	Pattern
	Scalar
	ScalarData
	Data
	RichData
	Array
	Hash
	Tuple
	Struct
	Optional
	Variant
	Sensitive
	Runtime   // a Ruby class Puppet has no type for (inferred only)
	Reference // a type that does not exist: matches nothing
)

var kindNames = [...]string{"Any", "Unit", "Undef", "NotUndef", "Default", "Boolean", "Integer", "Float", "Numeric",
	"String", "Enum", "Pattern", "Scalar", "ScalarData", "Data", "RichData", "Array", "Hash", "Tuple", "Struct",
	"Optional", "Variant", "Sensitive", "Runtime", "TypeReference"}

func (k Kind) String() string { return kindNames[k] }

const maxInt = 1<<63 - 1 // an open size's upper bound

// Type is a Puppet type. Types are immutable once made; Kind says which
// type it is, String prints it with its parameters.
type Type struct {
	Kind Kind
	// Integer's range; nil is the open (default) bound.
	lo, hi *big.Int
	// Float's range; an infinite bound is the open one.
	flo, fhi float64
	// The size range given for String, Array, Hash and Tuple (the upper
	// bound maxInt when open); nil for none.
	size *[2]int64
	// Boolean, String: the one value of an inferred type, nil for none.
	val any
	// Array: the element type. Hash: the key and value types. Tuple,
	// Struct, Variant: the members. Optional, NotUndef, Sensitive: the
	// type they contain, if any.
	elems []*Type
	// Enum: the values, sorted and distinct. Struct: the keys, parallel to
	// elems.
	names []string
	// Struct: whether each key's type is Optional (the key may be absent).
	optional []bool
	// Pattern: the regexps as Puppet prints them, and compiled.
	sources  []string
	patterns []*regexp.Regexp
	// Reference: the type as written. Runtime: the Ruby class name.
	name string
}

// Of is the type of kind k without parameters: the default type of k.
func Of(k Kind) *Type {
	t := &Type{Kind: k}
	switch k {
	case Float:
		t.flo, t.fhi = math.Inf(-1), math.Inf(1)
	case Array:
		t.elems = []*Type{{Kind: Any}}
	case Hash:
		t.elems = []*Type{{Kind: Any}, {Kind: Any}}
	}
	return t
}

// IntegerValue is the type of the integer n: Integer[n, n].
func IntegerValue(n *big.Int) *Type { return &Type{Kind: Integer, lo: n, hi: n} }

// RuntimeClass is the type of a Ruby object of class name that Puppet has
// no type for: Runtime[ruby, 'name'].
func RuntimeClass(name string) *Type { return &Type{Kind: Runtime, name: name} }

// Elem is the type an Optional, a NotUndef or a Sensitive contains, nil
// for none (or for another kind).
func (t *Type) Elem() *Type {
	if t.Kind != Optional && t.Kind != NotUndef && t.Kind != Sensitive || len(t.elems) == 0 {
		return nil
	}
	return t.elems[0]
}

// value is an Array's element type, a Hash's value type.
func (t *Type) value() *Type { return t.elems[len(t.elems)-1] }

// sizeRange is the sizes an instance of a String, Array, Hash or Tuple may
// have.
func (t *Type) sizeRange() (lo, hi int64) {
	switch {
	case t.size != nil:
		return t.size[0], t.size[1]
	case t.Kind == Tuple && len(t.elems) > 0:
		return int64(len(t.elems)), int64(len(t.elems))
	}
	return 0, maxInt
}

func (t *Type) emptyRange() bool { return t.size != nil && *t.size == [2]int64{} }

// String formats t as Puppet's TypeFormatter does ("Integer[0, 10]",
// "Enum['a', 'b']", "Struct[{'a' => Integer}]").
func (t *Type) String() string {
	var ps []string
	types := func(ts []*Type) {
		for _, e := range ts {
			ps = append(ps, e.String())
		}
	}
	switch t.Kind {
	case Boolean:
		if t.val != nil {
			ps = []string{strconv.FormatBool(t.val.(bool))}
		}
	case Integer:
		ps = rangeParams(t.lo != nil, t.hi != nil, t.lo.String(), t.hi.String())
	case Float:
		ps = rangeParams(!math.IsInf(t.flo, -1), !math.IsInf(t.fhi, 1), ruby.Float(t.flo), ruby.Float(t.fhi))
	case Enum:
		for _, n := range t.names {
			ps = append(ps, ruby.PuppetQuote(n))
		}
	case Pattern:
		for _, s := range t.sources {
			ps = append(ps, "/"+s+"/")
		}
	case Array, Hash:
		if t.emptyRange() {
			return t.Kind.String() + "[0, 0]"
		}
		if t.size != nil || t.value().Kind != Any || t.elems[0].Kind != Any {
			types(t.elems)
		}
	case Tuple, NotUndef, Sensitive, Variant:
		types(t.elems)
	case Struct:
		if len(t.names) > 0 {
			ps = []string{"{" + t.structPairs() + "}"}
		}
	case Optional:
		if s, ok := t.Elem().stringValue(); ok {
			ps = []string{ruby.PuppetQuote(s)}
		} else {
			types(t.elems)
		}
	case Reference:
		ps = []string{ruby.PuppetQuote(t.name)}
	case Runtime:
		ps = []string{"ruby", ruby.PuppetQuote(t.name)}
	}
	if t.size != nil && (len(ps) > 0 || t.Kind == String) {
		ps = append(ps, strconv.FormatInt(t.size[0], 10))
		if t.size[1] != maxInt {
			ps = append(ps, strconv.FormatInt(t.size[1], 10))
		}
	}
	if len(ps) == 0 {
		return t.Kind.String()
	}
	return t.Kind.String() + "[" + strings.Join(ps, ", ") + "]"
}

// rangeParams are a range's parameters, none when it is open at both
// ends: an open from is "default", an open to is left out.
func rangeParams(hasLo, hasHi bool, lo, hi string) []string {
	switch {
	case !hasLo && !hasHi:
		return nil
	case !hasLo:
		lo = "default"
	}
	if !hasHi {
		return []string{lo}
	}
	return []string{lo, hi}
}

// structPairs are a Struct's entries as TypeFormatter#struct_element_pair
// prints them: a key is Optional['k'] when it may be absent though its
// value type rejects undef, NotUndef['k'] when it must be present though
// its value type accepts undef.
func (t *Type) structPairs() string {
	pairs := make([]string, len(t.names))
	for i, n := range t.names {
		k := ruby.PuppetQuote(n)
		switch undef := t.elems[i].Match(nil); {
		case t.optional[i] && !undef:
			k = "Optional[" + k + "]"
		case !t.optional[i] && undef:
			k = "NotUndef[" + k + "]"
		}
		pairs[i] = k + " => " + t.elems[i].String()
	}
	return strings.Join(pairs, ", ")
}

// stringValue is the string of an inferred String type.
func (t *Type) stringValue() (string, bool) {
	if t == nil || t.Kind != String {
		return "", false
	}
	s, ok := t.val.(string)
	return s, ok
}
