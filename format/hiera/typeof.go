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

// IsStruct reports whether Puppet infers a Struct type for v: a non-empty
// hash whose keys are all non-empty strings.
func IsStruct(v any) bool { return kindOf(v) == kStruct }

// IsData reports whether v is an instance of Puppet's Data type.
func IsData(v any) bool { return isData(v) }
