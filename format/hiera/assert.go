package hiera

import (
	"errors"
	"slices"
	"strconv"
	"strings"

	"github.com/hieracc/hieracc/format"
	"github.com/hieracc/hieracc/format/ruby"
	"github.com/hieracc/hieracc/format/typecalc"
)

// This file reproduces the messages of Puppet's TypeAsserter for the few
// types a merge asserts (TypeMismatchDescriber over TypeCalculator#infer_set).
// Only the expected types Puppet uses here are modelled:
//
//	unique: Variant[Scalar, Array[Data]]
//	hash:   Hash[String, Data]
//	merge options: Struct[{strategy => ..., knockout_prefix => ...}]
//
// while the actual side is the inferred type of any hieracc value (package
// typecalc), which is printed in full where Puppet prints it in full (a
// Hash with non-string keys: "got Hash[Integer[1, 1], String]").

// valueKind is the class of a value's inferred type (infer_set).
type valueKind uint8

const (
	kUndef valueKind = iota
	kBoolean
	kInteger
	kFloat
	kString
	kEmptyArray // Array[0, 0]
	kTuple
	kEmptyHash // Hash[0, 0]
	kStruct    // every key a non-empty string
	kHash      // any other hash
	kOther
)

func kindOf(v any) valueKind {
	switch v := v.(type) {
	case nil:
		return kUndef
	case bool:
		return kBoolean
	case int64:
		return kInteger
	case float64:
		return kFloat
	case string:
		return kString
	case []any:
		if len(v) == 0 {
			return kEmptyArray
		}
		return kTuple
	case *format.Hash:
		if v.Len() == 0 {
			return kEmptyHash
		}
		if typecalc.IsStruct(v) {
			return kStruct
		}
		return kHash
	}
	return kOther
}

// mismatch is one line of a type mismatch report: the path below the
// subject ("variant 1", "index 0", "entry 'a'") and the text after it.
type mismatch struct {
	path []string
	text string
}

func tm(path []string, text string) mismatch {
	return mismatch{path: slices.Clip(path), text: text}
}

func with(path []string, elem string) []string {
	return append(slices.Clip(path), elem)
}

// assertionError renders mismatches the way describe_mismatch does: one
// line stripped, several lines each prefixed with a space and joined by
// "\n ".
func assertionError(subject string, ms []mismatch) error {
	lines := make([]string, len(ms))
	for i, m := range ms {
		var b strings.Builder
		b.WriteByte(' ')
		b.WriteString(subject)
		b.WriteString(" has wrong type,")
		for _, p := range m.path {
			b.WriteByte(' ')
			b.WriteString(p)
		}
		b.WriteByte(' ')
		b.WriteString(m.text)
		lines[i] = b.String()
	}
	if len(lines) == 1 {
		return errors.New(strings.TrimSpace(lines[0]))
	}
	return errors.New(strings.Join(lines, "\n "))
}

// describeData describes why v (not Data) is not Data. Data is the alias
// Optional[Variant[ScalarData, Hash[String, Data], Array[Data]]]; when all
// three variants fail at the same place Puppet reports the alias, otherwise
// each variant's failure.
func describeData(v any, path []string) []mismatch {
	switch kindOf(v) {
	case kStruct:
		h := v.(*format.Hash)
		ms := []mismatch{tm(with(path, "variant 0"), "expects a ScalarData value, got Struct")}
		for i := 0; i < h.Len(); i++ {
			if !typecalc.IsData(h.Value(i)) {
				ms = append(ms, describeData(h.Value(i), with(with(path, "variant 1"), entry(h.Key(i))))...)
			}
		}
		return append(ms, tm(with(path, "variant 2"), "expects an Array value, got Struct"))
	case kTuple:
		ms := []mismatch{
			tm(with(path, "variant 0"), "expects a ScalarData value, got Tuple"),
			tm(with(path, "variant 1"), "expects a Hash value, got Tuple"),
		}
		for i, e := range v.([]any) {
			if !typecalc.IsData(e) {
				ms = append(ms, describeData(e, with(with(path, "variant 2"), "index "+strconv.Itoa(i)))...)
			}
		}
		return ms
	}
	return []mismatch{tm(path, "expects a Data value, got "+ruby.TypeName(v))}
}

func entry(k any) string { return "entry '" + ruby.ToS(k) + "'" }

// uniqueTypeError is the TypeAssertionError of Variant[Scalar, Array[Data]].
func uniqueTypeError(subject string, v any) error {
	if kindOf(v) == kTuple {
		ms := []mismatch{tm([]string{"variant 0"}, "expects a Scalar value, got Tuple")}
		for i, e := range v.([]any) {
			if !typecalc.IsData(e) {
				ms = append(ms, describeData(e, []string{"variant 1", "index " + strconv.Itoa(i)})...)
			}
		}
		return assertionError(subject, ms)
	}
	return assertionError(subject, []mismatch{tm(nil, "expects a value of type Scalar or Array, got "+ruby.TypeName(v))})
}

// hashTypeError is the TypeAssertionError of Hash[String, Data].
func hashTypeError(subject string, v any) error {
	switch kindOf(v) {
	case kStruct:
		h := v.(*format.Hash)
		var ms []mismatch
		for i := 0; i < h.Len(); i++ {
			if !typecalc.IsData(h.Value(i)) {
				ms = append(ms, describeData(h.Value(i), []string{entry(h.Key(i))})...)
			}
		}
		return assertionError(subject, ms)
	case kHash:
		return assertionError(subject, []mismatch{tm(nil, "expects a Hash[String, Data] value, got "+typecalc.HashTypeOf(v.(*format.Hash)))})
	}
	return assertionError(subject, []mismatch{tm(nil, "expects a Hash value, got "+ruby.TypeName(v))})
}
