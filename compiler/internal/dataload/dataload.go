// Package dataload reads Hiera data files (yaml_data and json_data), the
// YAML of hiera.yaml files and node facts into hieracc's value model
// (package format) exactly as Puppet 7.23 reads them, with positions for
// messages.
//
// Puppet reads YAML with Ruby's Psych 4 on libyaml 0.2.5, which follows
// YAML 1.1 (yes/on/off are booleans, 0777 is octal, 1:30 is base 60, an
// unquoted date is a Date that Puppet's safe_load refuses, ...), and JSON
// with Ruby's json 2.6. A YAML 1.2 or encoding/json reader gets many files
// subtly wrong, so this package reimplements both: YAML through a copy of
// yaml.v3's libyaml port brought to libyaml 0.2.5's behaviour
// (internal/libyaml) plus ports of Psych's scalar scanner and ToRuby
// visitor, JSON through a port of Ruby's JSON parser, each with Puppet's
// messages. Files in the plain part of YAML most data files are written
// in skip libyaml's event machinery for a faster reader that builds the
// same tree (simple.go). testdata/golden.json records what Puppet's own loader code
// makes of 1,300 inputs; TestDifferential compares random documents with
// it live.
//
// # Entry points
//
//   - YAML and JSON load one data file the way the yaml_data and json_data
//     data_hash functions do, returning a Doc and diagnostics.
//   - Node parses YAML into a *yaml.Node tree (for readers of hiera.yaml
//     that need nested positions); Value converts any subtree of it.
//
// Facts files are YAML or JSON hashes: load them with YAML or JSON and
// word messages for facts rather than data.
//
// # Values
//
// Values are format values: nil, bool, int64, float64, string, []any and
// *format.Hash. A value reached through several YAML aliases is shared, not
// copied, so values must be treated as read-only.
//
// Ruby can hold things the value model cannot: symbols (`:fast`), integers
// beyond 64 bits, hash keys that are arrays or hashes. Puppet loads such a
// file and fails only lookups of the top-level key whose value holds one
// (Puppet checks each value against its LookupValue type when it is looked
// up); Doc.Invalid records those keys with Puppet's message.
//
// # Where hieracc differs from Puppet
//
// Deliberately, where the value model or safety requires it:
//   - The symbols :default and :undef, which Puppet accepts as values, read
//     as the strings "default" and "undef" (what `puppet lookup` prints).
//   - An integer beyond 64 bits, which Puppet returns, makes its top-level
//     key Invalid with a hieracc message.
//   - A top-level key that is an array, a hash, NaN or beyond 64 bits is
//     dropped with a warning; Puppet keeps it, but no lookup can reach it.
//   - The limits below refuse some files Puppet would load (Puppet's own
//     limit is its stack: it fails to load nesting beyond roughly 1,100
//     levels).
//   - For a value of more than 5,000 values that is not a LookupValue, the
//     message names its type without parameters (Puppet's inference is
//     quadratic).
//   - A few Ruby-specific tags are approximated: !ruby/encoding is always
//     an Encoding (Puppet fails to load an unknown encoding name), and a
//     mapping tagged !str or !ruby/hash-with-ivars without a class, which
//     Psych turns into odd objects, is an error.
//   - A tree from yaml.v3's own parser (given to Value) cannot tell `! "x"`
//     from `"x"`; Psych reads the first as a plain scalar. Node's trees can.
package dataload

import (
	"fmt"

	"github.com/hieracc/hieracc/compiler/diagnostics"
	"github.com/hieracc/hieracc/format"
)

// Limits on hostile or absurd input, which must neither crash nor hang a
// fleet compile.
const (
	// MaxFileSize is the largest file accepted, in bytes.
	MaxFileSize = 64 << 20
	// MaxDepth is the deepest nesting of arrays and hashes accepted, the
	// top-level hash being depth 1, counted after alias expansion. Beyond
	// it a file fails like Puppet does on deep nesting, with "stack level
	// too deep". (JSON has Ruby's own limit of 100.)
	MaxDepth = 1000
	// MaxValues is the most values (scalars, arrays and hashes) one
	// document may produce, every use of an alias counting its whole
	// value: it stops "billion laughs" alias bombs, which would otherwise
	// expand exponentially in whatever walks the loaded value.
	MaxValues = 1 << 23
)

// Pos is a 1-based position in a file. Column counts characters. It
// holds no file name (a Doc has one per key: the file is the Doc's); In
// names the file, for a diagnostic.
type Pos struct{ Line, Column int }

// In is p in file.
func (p Pos) In(file string) format.Pos {
	return format.Pos{File: file, Line: p.Line, Column: p.Column}
}

// The readers report errors and warnings about a file as diagnostics,
// with Puppet's wording where Puppet has one, positioned in the file as
// the reader was given its name. An error means the file cannot be
// loaded: Puppet fails every lookup that reads it.

// problem is an error at p in file name.
func problem(name string, p Pos, msg string) diagnostics.Diagnostic {
	return diagnostics.Diagnostic{Pos: p.In(name), Message: msg}
}

// warning is a warning at p in file name.
func warning(name string, p Pos, msg string) diagnostics.Diagnostic {
	return diagnostics.Diagnostic{Severity: diagnostics.Warning, Pos: p.In(name), Message: msg}
}

// Doc is a loaded data file.
type Doc struct {
	// Hash is the top-level mapping: empty (never nil) when the file is
	// empty, holds only comments, or is not a mapping.
	Hash *format.Hash
	// KeyPos[i] is the position of Hash.Key(i).
	KeyPos []Pos
	// Invalid maps a top-level key to the error Puppet raises when that key
	// is looked up, because its value is not a Puppet LookupValue (a Ruby
	// symbol, a hash key that is not a string or number, ...). Hash holds
	// nil for such a key. Lookups of other keys are unaffected. Nil when
	// there is none.
	Invalid map[any]diagnostics.Diagnostic
	// InvalidTexts holds, for each key of Invalid, the strings of its
	// value in document order: what an eyaml level decrypts and
	// interpolates before Puppet checks the value's type (see Texts).
	InvalidTexts map[any][]Text
}

// Text is a string of a value, and whether it is a hash key.
type Text struct {
	S   string
	Key bool
}

// Texts appends the strings of v to dst in document order, each hash key
// before its value: the order hiera-eyaml's decrypt_value walks a value.
// The walk stops after maxTextsWalk values (aliases count each time they
// are met), so that a value that holds itself, or a billion laughs, ends.
func Texts(dst []Text, v any) []Text {
	budget := maxTextsWalk
	return texts(dst, v, &budget)
}

const maxTextsWalk = 1 << 16

func texts(dst []Text, v any, budget *int) []Text {
	if *budget <= 0 {
		return dst
	}
	*budget--
	switch v := v.(type) {
	case string:
		dst = append(dst, Text{S: v})
	case []any:
		for _, e := range v {
			dst = texts(dst, e, budget)
		}
	case *format.Hash:
		for k, e := range v.All() {
			if ks, ok := k.(string); ok {
				dst = append(dst, Text{S: ks, Key: true})
			}
			dst = texts(dst, e, budget)
		}
	case *rhash:
		for i, k := range v.keys {
			if ks, ok := k.(string); ok {
				dst = append(dst, Text{S: ks, Key: true})
			}
			dst = texts(dst, v.vals[i], budget)
		}
	}
	return dst
}

// errKind says how Puppet words a load error.
type errKind int

const (
	errSyntax     errKind = iota // Psych::SyntaxError: Psych prefixes "(file): "
	errDisallowed                // Psych::DisallowedClass: Puppet prefixes "(file): "
	errOther                     // other Ruby exceptions: the bare message
	errLimit                     // hieracc's own limits
	errStack                     // what Puppet dies of with "stack level too deep"
)

// loadError is why a YAML document cannot be loaded.
type loadError struct {
	kind errKind
	msg  string
	pos  Pos
}

func disallowed(class string) *loadError {
	return &loadError{kind: errDisallowed, msg: "Tried to load unspecified class: " + class}
}

func argumentError(msg string) *loadError { return &loadError{kind: errOther, msg: msg} }

func limitError(format string, args ...any) *loadError {
	return &loadError{kind: errLimit, msg: "hieracc: " + fmt.Sprintf(format, args...)}
}

func (e *loadError) at(p Pos) *loadError {
	if e.pos == (Pos{}) {
		e.pos = p
	}
	return e
}

// safeLoadMessage is the message of the Puppet::Util::Yaml::YamlLoadError
// that Puppet::Util::Yaml.safe_load raises for e.
func (e *loadError) safeLoadMessage(name string) string {
	if e.kind == errOther {
		return e.msg
	}
	return "(" + name + "): " + e.msg
}

func (e *loadError) problem(name string, prefix string) *diagnostics.Diagnostic {
	d := problem(name, e.pos, prefix+e.safeLoadMessage(name))
	if e.kind == errStack {
		d.Message = e.msg
	}
	return &d
}

// stackError is for values Puppet cannot finish loading: it recurses
// until Ruby's stack overflows.
func stackError(format string, args ...any) *loadError {
	return &loadError{kind: errStack, msg: "stack level too deep (hieracc: " + fmt.Sprintf(format, args...) + ")"}
}
