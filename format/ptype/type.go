// Package ptype holds Puppet type expressions, as lookup()'s value_type and
// `puppet lookup --type` take them: Parse reads one ("Integer[0, 10]",
// "Hash[String, Array[String]]", "Optional[Enum[a, b]]"), Type.Match tells
// whether a value is an instance, and Type.Check fails with Puppet's
// message when it is not:
//
//	Found value has wrong type, index 1 expects a String value, got Integer
//
// It lives under format/ so that the runtime may use it; it depends on the
// standard library, format, format/ruby and format/typecalc (whose type
// calculator names what a value is in those messages) only.
//
// The types: Any, Undef, NotUndef, Default, Boolean, Integer, Float,
// Numeric, String, Enum, Pattern, Scalar, ScalarData, Data, RichData,
// Array, Hash, Tuple, Struct, Optional, Variant and Sensitive, with their
// parameters. A capitalized name of another type is, as in Puppet, a
// reference to a type that does not exist: no value matches it, and Check
// says so. Patterns are Go regexps (RE2), which Ruby's mostly are.
//
// # Where ptype differs from Puppet
//
//   - Enum's case-insensitive flag, Numeric's and Collection's parameters,
//     Regexp, Type, Callable, Iterable and the object types are not
//     supported: Parse refuses them.
//   - No value of the bundles is Sensitive yet, so Sensitive matches
//     nothing.
//   - Where Puppet's message for an Array[Any, N] of the wrong size is
//     empty, Check says what is wrong.
package ptype

import (
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
	Reference // a type that does not exist: matches nothing
)

var kindNames = [...]string{"Any", "Undef", "NotUndef", "Default", "Boolean", "Integer", "Float", "Numeric", "String",
	"Enum", "Pattern", "Scalar", "ScalarData", "Data", "RichData", "Array", "Hash", "Tuple", "Struct", "Optional",
	"Variant", "Sensitive", "TypeReference"}

func (k Kind) String() string { return kindNames[k] }

// Unbounded bounds.
const (
	minInt = -1 << 63
	maxInt = 1<<63 - 1
)

// Type is a parsed Puppet type. Types are immutable once parsed; Kind
// says which type it is, String prints it with its parameters.
type Type struct {
	Kind Kind
	// Integer's range (minInt and maxInt when open), and the size range
	// of String, Array, Hash and Tuple (0 and maxInt when open).
	min, max   int64
	hasSize    bool // String, Array, Hash, Tuple: a size was given
	fmin, fmax float64
	hasRange   bool // Float: a range was given
	elems      []*Type
	names      []string // Enum values, Struct keys
	// keyKinds are the Struct keys' wrappers: 0 none, 1 Optional[k], 2
	// NotUndef[k].
	keyKinds []uint8
	patterns []*regexp.Regexp // Pattern
	sources  []string         // Pattern: each regexp as Puppet prints it
	name     string           // Reference
}

func (t *Type) elem() *Type {
	if len(t.elems) == 0 {
		return nil
	}
	return t.elems[0]
}

// String formats t as Puppet's type formatter does ("Integer[0, 10]",
// "Enum['a', 'b']", "Struct[{'a' => Integer}]").
func (t *Type) String() string {
	var b strings.Builder
	t.format(&b)
	return b.String()
}

func (t *Type) format(b *strings.Builder) {
	list := func(ts []*Type) {
		for i, e := range ts {
			if i > 0 {
				b.WriteString(", ")
			}
			e.format(b)
		}
	}
	rng := func(min, max int64) []string {
		if t.Kind == Integer && min == minInt && max == maxInt || t.Kind != Integer && !t.hasSize {
			return nil
		}
		var out []string
		if min == minInt {
			out = append(out, "default")
		} else {
			out = append(out, strconv.FormatInt(min, 10))
		}
		if max != maxInt {
			out = append(out, strconv.FormatInt(max, 10))
		}
		return out
	}
	params := func(name string, ps []string) {
		b.WriteString(name)
		if len(ps) > 0 {
			b.WriteString("[" + strings.Join(ps, ", ") + "]")
		}
	}
	switch t.Kind {
	case Integer:
		params("Integer", rng(t.min, t.max))
	case Float:
		if !t.hasRange {
			b.WriteString("Float")
			return
		}
		lo, hi := "default", "default"
		if t.fmin != negInf {
			lo = ruby.Float(t.fmin)
		}
		if t.fmax != posInf {
			hi = ruby.Float(t.fmax)
		}
		if hi == "default" {
			params("Float", []string{lo})
		} else {
			params("Float", []string{lo, hi})
		}
	case String:
		params("String", rng(t.min, t.max))
	case Enum:
		q := make([]string, len(t.names))
		for i, n := range t.names {
			q[i] = ruby.PuppetQuote(n)
		}
		params("Enum", q)
	case Pattern:
		q := make([]string, len(t.patterns))
		for i := range t.patterns {
			q[i] = "/" + t.sources[i] + "/"
		}
		params("Pattern", q)
	case Array:
		b.WriteString("Array")
		e := t.elem()
		r := rng(t.min, t.max)
		if t.min == 0 && t.max == 0 {
			b.WriteString("[0, 0]")
			return
		}
		if e.Kind == Any && !t.hasSize {
			return
		}
		b.WriteByte('[')
		e.format(b)
		for _, s := range r {
			b.WriteString(", " + s)
		}
		b.WriteByte(']')
	case Hash:
		b.WriteString("Hash")
		r := rng(t.min, t.max)
		if t.min == 0 && t.max == 0 {
			b.WriteString("[0, 0]")
			return
		}
		if t.elems[0].Kind == Any && t.elems[1].Kind == Any && !t.hasSize {
			return
		}
		b.WriteByte('[')
		list(t.elems)
		for _, s := range r {
			b.WriteString(", " + s)
		}
		b.WriteByte(']')
	case Tuple:
		b.WriteString("Tuple")
		if len(t.elems) == 0 {
			return
		}
		b.WriteByte('[')
		list(t.elems)
		if t.hasSize {
			for _, s := range rng(t.min, t.max) {
				b.WriteString(", " + s)
			}
		}
		b.WriteByte(']')
	case Struct:
		if len(t.names) == 0 {
			b.WriteString("Struct")
			return
		}
		b.WriteString("Struct[{")
		for i, n := range t.names {
			if i > 0 {
				b.WriteString(", ")
			}
			switch t.keyKinds[i] {
			case 1:
				b.WriteString("Optional[" + ruby.PuppetQuote(n) + "]")
			case 2:
				b.WriteString("NotUndef[" + ruby.PuppetQuote(n) + "]")
			default:
				b.WriteString(ruby.PuppetQuote(n))
			}
			b.WriteString(" => ")
			t.elems[i].format(b)
		}
		b.WriteString("}]")
	case Optional, NotUndef, Sensitive, Variant:
		b.WriteString(t.Kind.String())
		if len(t.elems) > 0 {
			b.WriteByte('[')
			list(t.elems)
			b.WriteByte(']')
		}
	case Reference:
		b.WriteString("TypeReference[" + ruby.PuppetQuote(t.name) + "]")
	default:
		b.WriteString(t.Kind.String())
	}
}

// Elem is the type an Optional or a NotUndef contains, nil for none (or
// for another kind).
func (t *Type) Elem() *Type {
	if t.Kind != Optional && t.Kind != NotUndef {
		return nil
	}
	return t.elem()
}
