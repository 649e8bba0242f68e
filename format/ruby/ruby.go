// Package ruby prints values as Ruby 3.1 and Puppet 7.23 print them, for
// every part of hieracc that must reproduce their text: interpolation
// (Ruby's to_s of what is inserted into a string), `--render-as s`, and
// Puppet's messages (Ruby's inspect, Puppet's quoting and type names).
//
// Each rendering is here once. Where Ruby or Puppet prints one thing two
// ways, both are here, named for when each applies: a UTF-8 string's
// inspect escapes a control character as "\u0001" and a binary string's as
// "\x01" (Inspect, InspectBinary). Float#to_s is the only float
// rendering: interpolation, inspect, Puppet's type names and Ruby's JSON
// generator all use it (1e15 prints as "1.0e+15" everywhere).
//
// testdata/golden.json holds what Ruby and Puppet printed for several
// thousand inputs, recorded by testdata/record.rb, which also generates
// the table of characters inspect escapes (printable_table.go).
//
// Values are those of package format: nil, bool, int64, float64, string,
// []any and *format.Hash, plus any Object, a value outside that model that
// prints itself (a reader's Ruby symbol; a Sensitive value).
package ruby

import (
	"sort"
	"strconv"
	"unicode/utf8"

	"github.com/hieracc/hieracc/format"
	"github.com/hieracc/hieracc/format/internal/rubyfloat"
)

// Object is a value outside the format model that knows how Ruby and
// Puppet print it. A new kind of value (Puppet's Sensitive, say) gets its
// renderings by implementing it:
//
//	func (Sensitive) AppendInspect(b []byte) []byte { return append(b, "#<Sensitive [value redacted]>"...) }
//	func (Sensitive) AppendToS(b []byte) []byte     { return append(b, "Sensitive [value redacted]"...) }
//	func (Sensitive) TypeName() string              { return "Sensitive" }
type Object interface {
	AppendInspect(b []byte) []byte // Ruby's inspect
	AppendToS(b []byte) []byte     // Ruby's to_s
	TypeName() string              // as TypeName
}

// Float is Ruby's Float#to_s: the shortest digits that read back as f, in
// fixed notation ("100.0", "0.0001", "1234567890123456.8") unless that
// would pad a number of 16 or more integer digits with zeros, or put more
// than three zeros after the point ("1.0e+15", "1.0e-05"); "NaN",
// "Infinity", "-Infinity".
func Float(f float64) string {
	return string(AppendFloat(nil, f))
}

// AppendFloat appends Float(f) to b.
func AppendFloat(b []byte, f float64) []byte { return rubyfloat.Append(b, f) }

// ToS is Ruby's to_s: a string as it is, nil as "", anything else as
// Inspect (Array#to_s and Hash#to_s are inspect). Puppet's interpolation
// and messages insert values with it.
func ToS(v any) string {
	switch v := v.(type) {
	case string:
		return v
	case nil:
		return ""
	}
	return string(AppendToS(nil, v))
}

// AppendToS appends ToS(v) to b.
func AppendToS(b []byte, v any) []byte {
	switch v := v.(type) {
	case string:
		return append(b, v...)
	case nil:
		return b
	case Object:
		return v.AppendToS(b)
	}
	return AppendInspect(b, v)
}

// Inspect is Ruby's inspect of a value: `nil`, `true`, `42`, `1.5`,
// `"text"` (as String#inspect of a UTF-8 string), `[1, "a"]`,
// `{"k"=>"v", 1=>nil}`.
func Inspect(v any) string {
	return string(AppendInspect(nil, v))
}

// AppendInspect appends Inspect(v) to b.
func AppendInspect(b []byte, v any) []byte {
	switch v := v.(type) {
	case nil:
		return append(b, "nil"...)
	case bool:
		return strconv.AppendBool(b, v)
	case int64:
		return strconv.AppendInt(b, v, 10)
	case float64:
		return AppendFloat(b, v)
	case string:
		return AppendInspectString(b, v)
	case []any:
		b = append(b, '[')
		for i, e := range v {
			if i > 0 {
				b = append(b, ", "...)
			}
			b = AppendInspect(b, e)
		}
		return append(b, ']')
	case *format.Hash:
		b = append(b, '{')
		for i := range v.Len() {
			if i > 0 {
				b = append(b, ", "...)
			}
			b = AppendInspect(b, v.Key(i))
			b = append(b, "=>"...)
			b = AppendInspect(b, v.Value(i))
		}
		return append(b, '}')
	case Object:
		return v.AppendInspect(b)
	}
	return append(b, "#<Object>"...)
}

// AppendInspectString appends String#inspect of s, a UTF-8 string: quotes
// and backslashes escaped, '#' escaped before '{', '$' and '@', C escapes
// (\n, \t, \e, ...), other characters Ruby does not find printable as
// \u0001 or \u{E0000}, and bytes that are not UTF-8 as \xFF.
func AppendInspectString(b []byte, s string) []byte {
	b = append(b, '"')
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && n == 1 {
			b = appendHexByte(b, s[i])
			i++
			continue
		}
		if e, ok := escape(s, i); ok {
			b = append(b, e...)
		} else if isEscaped(r) {
			if r < 0x10000 {
				b = append(b, `\u`...)
				b = appendHex(b, uint32(r), 4)
			} else {
				b = append(b, `\u{`...)
				b = appendHex(b, uint32(r), 1)
				b = append(b, '}')
			}
		} else {
			b = append(b, s[i:i+n]...)
		}
		i += n
	}
	return append(b, '"')
}

// InspectBinary is String#inspect of a binary (ASCII-8BIT) string: like a
// UTF-8 string's, but every byte outside printable ASCII is \xHH, so a
// control character prints as "\x01" and "é" as "\xC3\xA9". Ruby's
// messages about bytes Psych read print strings this way.
func InspectBinary(s string) string {
	b := []byte{'"'}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if e, ok := escape(s, i); ok {
			b = append(b, e...)
		} else if c < 0x20 || c >= 0x7f {
			b = appendHexByte(b, c)
		} else {
			b = append(b, c)
		}
	}
	return string(append(b, '"'))
}

// escape is the escape String#inspect writes for the byte s[i] whatever
// the string's encoding, if it has one.
func escape(s string, i int) (string, bool) {
	switch s[i] {
	case '"':
		return `\"`, true
	case '\\':
		return `\\`, true
	case '#':
		// "#{", "#$" and "#@" would interpolate in a Ruby literal.
		if i+1 < len(s) && (s[i+1] == '{' || s[i+1] == '$' || s[i+1] == '@') {
			return `\#`, true
		}
	case '\n':
		return `\n`, true
	case '\r':
		return `\r`, true
	case '\t':
		return `\t`, true
	case '\f':
		return `\f`, true
	case '\v':
		return `\v`, true
	case '\b':
		return `\b`, true
	case '\a':
		return `\a`, true
	case 0x1b:
		return `\e`, true
	}
	return "", false
}

// isEscaped reports whether String#inspect escapes r in a UTF-8 string.
func isEscaped(r rune) bool {
	i := sort.Search(len(escaped), func(i int) bool { return escaped[i][1] >= r })
	return i < len(escaped) && escaped[i][0] <= r
}

func appendHexByte(b []byte, c byte) []byte {
	b = append(b, `\x`...)
	return appendHex(b, uint32(c), 2)
}

// appendHex appends x in upper-case hexadecimal, at least width digits.
func appendHex(b []byte, x uint32, width int) []byte {
	const digits = "0123456789ABCDEF"
	var buf [8]byte
	i := len(buf)
	for x > 0 || len(buf)-i < width {
		i--
		buf[i] = digits[x&15]
		x >>= 4
	}
	return append(b, buf[i:]...)
}

// PuppetQuote is Puppet's StringConverter#puppet_quote, how Puppet's types
// print a string (Enum['a'], Struct[{'k' => Integer}]): in single quotes,
// a quote escaped and a backslash doubled only where it would escape the
// next character; in double quotes with \t, \n, \r, \", \$, \\ and \u{1B}
// escapes when the string holds a control character.
func PuppetQuote(s string) string {
	for _, r := range s {
		if r < 0x20 {
			return puppetDoubleQuote(s)
		}
	}
	b := []byte{'\''}
	escaped := false
	for _, r := range s {
		switch {
		case escaped:
			b = append(b, '\\')
			b = utf8.AppendRune(b, r)
			escaped = false
		case r == '\'':
			b = append(b, `\'`...)
		case r == '\\':
			escaped = true
		default:
			b = utf8.AppendRune(b, r)
		}
	}
	if escaped {
		b = append(b, '\\')
	}
	return string(append(b, '\''))
}

func puppetDoubleQuote(s string) string {
	b := []byte{'"'}
	for _, r := range s {
		switch r {
		case '\t':
			b = append(b, `\t`...)
		case '\n':
			b = append(b, `\n`...)
		case '\r':
			b = append(b, `\r`...)
		case '"':
			b = append(b, `\"`...)
		case '$':
			b = append(b, `\$`...)
		case '\\':
			b = append(b, `\\`...)
		default:
			if r < 0x20 {
				b = append(b, `\u{`...)
				b = appendHex(b, uint32(r), 1)
				b = append(b, '}')
			} else {
				b = utf8.AppendRune(b, r)
			}
		}
	}
	return string(append(b, '"'))
}

// TypeName is the name Puppet's type mismatch messages give a value ("got
// Tuple"): its inferred type generalized, without parameters. An empty
// array is an Array, another a Tuple; an empty hash is a Hash, one whose
// keys are all non-empty strings a Struct, another a Hash.
func TypeName(v any) string {
	switch v := v.(type) {
	case []any:
		if len(v) > 0 {
			return "Tuple"
		}
	case *format.Hash:
		if v.Len() == 0 {
			return "Hash"
		}
		for i := range v.Len() {
			if s, ok := v.Key(i).(string); !ok || s == "" {
				return "Hash"
			}
		}
		return "Struct"
	}
	return KindName(v)
}

// KindName is the name of the Puppet type a value is an instance of,
// without TypeName's finer Tuple and Struct: Undef, Boolean, Integer,
// Float, String, Array, Hash, an Object's TypeName, or Any for a value
// outside the format model.
func KindName(v any) string {
	switch v := v.(type) {
	case nil:
		return "Undef"
	case bool:
		return "Boolean"
	case int64:
		return "Integer"
	case float64:
		return "Float"
	case string:
		return "String"
	case []any:
		return "Array"
	case *format.Hash:
		return "Hash"
	case Object:
		return v.TypeName()
	}
	return "Any"
}

// ClassName is the Ruby class of a value, as Ruby's messages name it
// ("comparison of String with Integer failed").
func ClassName(v any) string {
	switch v := v.(type) {
	case nil:
		return "NilClass"
	case bool:
		if v {
			return "TrueClass"
		}
		return "FalseClass"
	case int64:
		return "Integer"
	case float64:
		return "Float"
	case string:
		return "String"
	case []any:
		return "Array"
	case *format.Hash:
		return "Hash"
	}
	return "Object"
}
