package hiera

import "github.com/hieracc/hieracc/format"

// This file exports Puppet's type calculator (types.go) for the type
// matcher of package format/ptype, which reports what a value is when it
// does not match a type.

// TypeOf is the Puppet type of v as type mismatch messages print it in
// full: TypeCalculator#infer_set, normalized ("Integer[42, 42]", "String",
// "Tuple[Integer[1, 1], String]").
func TypeOf(v any) string {
	t, _ := inferSet(v).normalize()
	return t.String()
}

// HashTypeOf is the Hash[K, V] type, without its size, that mismatch
// messages print for a hash that is not a Struct.
func HashTypeOf(h *format.Hash) string { return hashTypeString(h) }

// TypeName is the short name of v's Puppet type that mismatch messages
// print when they generalize: Undef, Boolean, Integer, Float, String,
// Array (empty), Tuple, Hash (empty, or with keys that are not non-empty
// strings) or Struct.
func TypeName(v any) string { return shortName(v) }

// IsStruct reports whether Puppet infers a Struct type for v: a non-empty
// hash whose keys are all non-empty strings.
func IsStruct(v any) bool { return kindOf(v) == kStruct }

// Quote is Puppet's StringConverter#puppet_quote: how a type prints a
// string ('a', Enum['a'], Struct[{'k' => ...}]).
func Quote(s string) string { return puppetQuote(s) }

// RubyFloat is Ruby's Float#to_s, as a type prints a float bound.
func RubyFloat(f float64) string { return rubyFloat(f) }

// IsData reports whether v is an instance of Puppet's Data type.
func IsData(v any) bool { return isData(v) }
