package hiera

import (
	"math"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/hieracc/hieracc/format"
)

// RubyClass is the Ruby class name Puppet prints for a value (String,
// Integer, Float, TrueClass, FalseClass, NilClass, Array, Hash), as in
// "Data Provider type mismatch: Got String when ...".
func RubyClass(v any) string {
	switch v.(type) {
	case nil:
		return "NilClass"
	case bool:
		if v.(bool) {
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

// truthy is Ruby truthiness: only nil and false are false. deep_merge tests
// `if dest[key]` and `!(dest)`, so a false value behaves like a missing one.
func truthy(v any) bool {
	switch v := v.(type) {
	case nil:
		return false
	case bool:
		return v
	}
	return true
}

// rubyFloat formats f as Ruby's Float#to_s does: shortest round-trip
// digits, fixed notation for exponents -4 < e < 16, scientific otherwise.
func rubyFloat(f float64) string {
	switch {
	case math.IsInf(f, 1):
		return "Infinity"
	case math.IsInf(f, -1):
		return "-Infinity"
	case math.IsNaN(f):
		return "NaN"
	}
	var b strings.Builder
	if math.Signbit(f) {
		b.WriteByte('-')
		f = -f
	}
	if f == 0 {
		b.WriteString("0.0")
		return b.String()
	}
	// 'e' with -1 precision gives the shortest digits: d.ddddde±XX.
	s := strconv.FormatFloat(f, 'e', -1, 64)
	mant, exp, _ := strings.Cut(s, "e")
	digits := strings.Replace(mant, ".", "", 1)
	e, _ := strconv.Atoi(exp)
	decpt := e + 1
	switch {
	case decpt > 0 && decpt <= 15:
		if decpt < len(digits) {
			b.WriteString(digits[:decpt])
			b.WriteByte('.')
			b.WriteString(digits[decpt:])
		} else {
			b.WriteString(digits)
			b.WriteString(strings.Repeat("0", decpt-len(digits)))
			b.WriteString(".0")
		}
	case decpt <= 0 && decpt > -4:
		b.WriteString("0.")
		b.WriteString(strings.Repeat("0", -decpt))
		b.WriteString(digits)
	default:
		b.WriteByte(digits[0])
		b.WriteByte('.')
		if len(digits) > 1 {
			b.WriteString(digits[1:])
		} else {
			b.WriteByte('0')
		}
		b.WriteByte('e')
		if decpt-1 < 0 {
			b.WriteByte('-')
		} else {
			b.WriteByte('+')
		}
		x := decpt - 1
		if x < 0 {
			x = -x
		}
		if x < 10 {
			b.WriteByte('0')
		}
		b.WriteString(strconv.Itoa(x))
	}
	return b.String()
}

// rubyToS is Ruby's #to_s, which Puppet uses when it interpolates a value
// into a message ("Unknown merge strategy: '%{strategy}'").
func rubyToS(v any) string {
	switch v := v.(type) {
	case nil:
		return ""
	case string:
		return v
	}
	return rubyInspect(v)
}

// rubyInspect is Ruby's #inspect for a value.
func rubyInspect(v any) string {
	var b strings.Builder
	writeInspect(&b, v)
	return b.String()
}

func writeInspect(b *strings.Builder, v any) {
	switch v := v.(type) {
	case nil:
		b.WriteString("nil")
	case bool:
		b.WriteString(strconv.FormatBool(v))
	case int64:
		b.WriteString(strconv.FormatInt(v, 10))
	case float64:
		b.WriteString(rubyFloat(v))
	case string:
		writeInspectString(b, v)
	case []any:
		b.WriteByte('[')
		for i, e := range v {
			if i > 0 {
				b.WriteString(", ")
			}
			writeInspect(b, e)
		}
		b.WriteByte(']')
	case *format.Hash:
		b.WriteByte('{')
		for i := 0; i < v.Len(); i++ {
			if i > 0 {
				b.WriteString(", ")
			}
			writeInspect(b, v.Key(i))
			b.WriteString("=>")
			writeInspect(b, v.Value(i))
		}
		b.WriteByte('}')
	default:
		b.WriteString("#<Object>")
	}
}

// writeInspectString follows Ruby's String#inspect for UTF-8 strings.
func writeInspectString(b *strings.Builder, s string) {
	b.WriteByte('"')
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b.WriteString(`\x`)
			b.WriteString(strings.ToUpper(strconv.FormatUint(uint64(s[i]), 16)))
			i++
			continue
		}
		switch r {
		case '"', '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case '\n':
			b.WriteString(`\n`)
		case '\t':
			b.WriteString(`\t`)
		case '\r':
			b.WriteString(`\r`)
		case '\f':
			b.WriteString(`\f`)
		case '\v':
			b.WriteString(`\v`)
		case '\a':
			b.WriteString(`\a`)
		case '\b':
			b.WriteString(`\b`)
		case 0x1b:
			b.WriteString(`\e`)
		case '#':
			// "#{", "#$" and "#@" would interpolate, so Ruby escapes the '#'.
			if i+1 < len(s) && (s[i+1] == '{' || s[i+1] == '$' || s[i+1] == '@') {
				b.WriteByte('\\')
			}
			b.WriteByte('#')
		default:
			if r < 0x20 || r == 0x7f {
				b.WriteString(`\u`)
				h := strings.ToUpper(strconv.FormatUint(uint64(r), 16))
				b.WriteString(strings.Repeat("0", 4-len(h)))
				b.WriteString(h)
			} else {
				b.WriteRune(r)
			}
		}
		i += size
	}
	b.WriteByte('"')
}

// puppetQuote is Puppet's StringConverter#puppet_quote, used when a type
// prints a string (Enum['a'], Struct[{'k' => ...}]).
func puppetQuote(s string) string {
	var b strings.Builder
	b.WriteByte('\'')
	escaped := false
	for _, r := range s {
		if r < 0x20 {
			return puppetDoubleQuote(s)
		}
		switch {
		case escaped:
			b.WriteByte('\\')
			b.WriteRune(r)
			escaped = false
		case r == '\'':
			b.WriteString(`\'`)
		case r == '\\':
			escaped = true
		default:
			b.WriteRune(r)
		}
	}
	if escaped {
		b.WriteByte('\\')
	}
	b.WriteByte('\'')
	return b.String()
}

func puppetDoubleQuote(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch r {
		case '\t':
			b.WriteString(`\t`)
		case '\n':
			b.WriteString(`\n`)
		case '\r':
			b.WriteString(`\r`)
		case '"':
			b.WriteString(`\"`)
		case '$':
			b.WriteString(`\$`)
		case '\\':
			b.WriteString(`\\`)
		default:
			if r < 0x20 {
				b.WriteString(`\u{`)
				b.WriteString(strings.ToUpper(strconv.FormatUint(uint64(r), 16)))
				b.WriteByte('}')
			} else {
				b.WriteRune(r)
			}
		}
	}
	b.WriteByte('"')
	return b.String()
}
