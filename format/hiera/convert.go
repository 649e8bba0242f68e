package hiera

// lookup_options convert_to: Puppet's LookupAdapter#convert_result applies
// new(type, value, args...) to the result of every lookup of a key, after
// merging and digging. This file holds the conversions hieracc can apply
// ahead of time; the compiler and the runtime share them.

import (
	"errors"
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"

	"github.com/hieracc/hieracc/format"
	"github.com/hieracc/hieracc/format/ruby"
)

// ParseConvertTo reads a lookup_options convert_to setting (a type name,
// or an array of a type name and arguments) for key. Arguments must be
// strings, integers or booleans; types hieracc cannot apply are refused
// here, so that a key using one fails at compile time with a clear message
// rather than answering differently from Puppet.
func ParseConvertTo(key string, setting any) ([]format.Value, error) {
	var spec []format.Value
	switch s := setting.(type) {
	case nil:
		return nil, nil
	case string:
		spec = []format.Value{s}
	case []any:
		spec = s
	default:
		spec = []format.Value{s}
	}
	if len(spec) == 0 {
		return nil, nil
	}
	name, ok := spec[0].(string)
	if !ok {
		return nil, fmt.Errorf("The convert_to lookup_option for key '%s' raised error: hieracc reads convert_to only as a type name, optionally followed by arguments", key)
	}
	for _, a := range spec[1:] {
		switch a.(type) {
		case string, int64, bool:
		default:
			return nil, fmt.Errorf("The convert_to lookup_option for key '%s' raised error: hieracc reads only string, integer and boolean convert_to arguments", key)
		}
	}
	switch name {
	case "Sensitive", "Integer", "Float", "Boolean", "Array", "String":
	default:
		return nil, fmt.Errorf("The convert_to lookup_option for key '%s' raised error: hieracc cannot apply convert_to '%s' ahead of time (it applies Sensitive, Integer, Float, Boolean, Array and String)", key, name)
	}
	return spec, nil
}

// Convert applies a convert_to spec (from ParseConvertTo) other than
// Sensitive, which readers apply themselves, to v. Errors carry Puppet's
// message.
func Convert(key string, spec []format.Value, v any) (any, error) {
	if len(spec) == 0 || spec[0] == "Sensitive" {
		return v, nil
	}
	out, err := convert(spec[0].(string), spec[1:], v)
	if err != nil {
		return nil, fmt.Errorf("The convert_to lookup_option for key '%s' raised error: %s", key, err)
	}
	return out, nil
}

func convert(name string, args []format.Value, v any) (any, error) {
	switch name {
	case "Integer":
		return toInteger(v, args)
	case "Float":
		return toFloat(v, args)
	case "Boolean":
		return toBoolean(v, args)
	case "Array":
		return toArray(v, args)
	case "String":
		return toString(v, args)
	}
	return nil, fmt.Errorf("Creation of new instance of type '%s' is not supported", name)
}

// Puppet's patterns of convertible strings (pops/types/types.rb).
var (
	integerLenient = regexp.MustCompile(`^[+-]?\s*(?:\d+|0[xX][0-9A-Fa-f]+|0[bB][01]+)$`)
	floatPattern   = regexp.MustCompile(`^[+-]?\s*(?:(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE]-?\d+)?|0[xX][0-9A-Fa-f]+|0[0-7]+|0[bB][01]+)$`)
	wsAfterSign    = regexp.MustCompile(`^([+-])[ \t]+(.*)$`)
)

// generalName is TypeCalculator#infer(v).generalize as a string, for the
// "Value of type T cannot be converted" messages.
func generalName(v any) string {
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
		if len(v) == 0 {
			return "Array"
		}
		t := generalName(v[0])
		for _, e := range v[1:] {
			if generalName(e) != t {
				return "Array"
			}
		}
		return "Array[" + t + "]"
	case *format.Hash:
		if v.Len() == 0 {
			return "Hash"
		}
		kt, vt := generalName(v.Key(0)), generalName(v.Value(0))
		for i := 1; i < v.Len(); i++ {
			if generalName(v.Key(i)) != kt || generalName(v.Value(i)) != vt {
				return "Hash"
			}
		}
		return "Hash[" + kt + ", " + vt + "]"
	}
	return "Any"
}

func cannot(fn string, v any, to string) error {
	if s, ok := v.(string); ok {
		return fmt.Errorf("'%s' The string '%s' cannot be converted to %s", fn, s, to)
	}
	return fmt.Errorf("'%s' Value of type %s cannot be converted to %s", fn, generalName(v), to)
}

// toInteger is Integer.new(from, radix = default, abs = false).
func toInteger(v any, args []format.Value) (any, error) {
	radix, abs := 0, false
	// Data cannot spell Puppet's `default`: a radix is 2, 8, 10 or 16.
	rejected := errors.New("The function 'new' was called with arguments it does not accept")
	for i, a := range args {
		switch {
		case i == 0:
			r, ok := a.(int64)
			if !ok || r != 2 && r != 8 && r != 10 && r != 16 {
				return nil, rejected
			}
			radix = int(r)
		case i == 1:
			b, ok := a.(bool)
			if !ok {
				return nil, rejected
			}
			abs = b
		default:
			return nil, rejected
		}
	}
	var n int64
	switch x := v.(type) {
	case int64:
		n = x
	case float64:
		if math.IsNaN(x) || math.IsInf(x, 0) || x >= 9.3e18 || x <= -9.3e18 {
			return nil, cannot("new", v, "Integer")
		}
		n = int64(x)
	case bool:
		if x {
			n = 1
		}
	case string:
		if !integerLenient.MatchString(x) {
			return nil, cannot("new", v, "Integer")
		}
		var err error
		if n, err = rubyInteger(x, radix); err != nil {
			if m := wsAfterSign.FindStringSubmatch(x); m != nil {
				if n2, err2 := rubyInteger(m[1]+m[2], radix); err2 == nil {
					n, err = n2, nil
				}
			}
			if err != nil {
				return nil, fmt.Errorf("'new' %s", err)
			}
		}
	default:
		return nil, cannot("new", v, "Integer")
	}
	if abs && n < 0 {
		n = -n
	}
	return n, nil
}

// rubyInteger is Ruby's Integer(s) or Integer(s, radix) for strings of
// Puppet's lenient integer pattern.
func rubyInteger(s string, radix int) (int64, error) {
	bad := fmt.Errorf("invalid value for Integer(): %q", s)
	t := strings.TrimLeft(s, " \t\n\v\f\r")
	neg := false
	if t != "" && (t[0] == '+' || t[0] == '-') {
		neg, t = t[0] == '-', t[1:]
	}
	base := 10
	lower := strings.ToLower(t)
	switch {
	case strings.HasPrefix(lower, "0x") && (radix == 0 || radix == 16):
		base, t = 16, t[2:]
	case strings.HasPrefix(lower, "0b") && (radix == 0 || radix == 2):
		base, t = 2, t[2:]
	case len(t) > 1 && t[0] == '0' && (radix == 0 || radix == 8):
		base, t = 8, t[1:]
	case radix != 0:
		base = radix
	}
	if t == "" {
		return 0, bad
	}
	u, err := strconv.ParseUint(t, base, 64)
	if err != nil || u > math.MaxInt64 {
		return 0, bad
	}
	n := int64(u)
	if neg {
		n = -n
	}
	return n, nil
}

// toFloat is Float.new(from, abs = false).
func toFloat(v any, args []format.Value) (any, error) {
	abs := false
	if len(args) > 0 {
		b, ok := args[0].(bool)
		if !ok || len(args) > 1 {
			return nil, cannot("new_float", v, "Float")
		}
		abs = b
	}
	var f float64
	switch x := v.(type) {
	case float64:
		f = x
	case int64:
		f = float64(x)
	case bool:
		if x {
			f = 1
		}
	case string:
		if !floatPattern.MatchString(x) {
			return nil, cannot("new_float", v, "Float")
		}
		s := strings.Join(strings.Fields(x), "")
		neg := strings.HasPrefix(s, "-")
		body := strings.TrimLeft(s, "+-")
		lower := strings.ToLower(body)
		switch {
		case strings.HasPrefix(lower, "0x"), strings.HasPrefix(lower, "0b"):
			base := 16
			if lower[1] == 'b' {
				base = 2
			}
			u, err := strconv.ParseUint(body[2:], base, 64)
			if err != nil {
				return nil, fmt.Errorf("'new_float' invalid value for Float(): %q", x)
			}
			f = float64(u)
		default:
			var err error
			if f, err = strconv.ParseFloat(body, 64); err != nil {
				return nil, fmt.Errorf("'new_float' invalid value for Float(): %q", x)
			}
		}
		if neg {
			f = -f
		}
	default:
		return nil, cannot("new_float", v, "Float")
	}
	if abs {
		f = math.Abs(f)
	}
	return f, nil
}

// toBoolean is Boolean.new(from).
func toBoolean(v any, args []format.Value) (any, error) {
	if len(args) > 0 {
		return nil, fmt.Errorf("'new_boolean' expects 1 argument, got %d", len(args)+1)
	}
	switch x := v.(type) {
	case bool:
		return x, nil
	case int64:
		return x != 0, nil
	case float64:
		return x != 0, nil
	case string:
		switch strings.ToLower(x) {
		case "true", "yes", "y":
			return true, nil
		case "false", "no", "n":
			return false, nil
		}
	}
	return nil, cannot("new_boolean", v, "Boolean")
}

// toString is String.new(from) with the default formats, for the values
// whose formatting hieracc knows: scalars, and arrays and hashes of them.
func toString(v any, args []format.Value) (any, error) {
	if len(args) > 0 {
		return nil, fmt.Errorf("hieracc cannot apply String with format arguments ahead of time")
	}
	switch x := v.(type) {
	case nil:
		return "", nil
	case string:
		return x, nil
	}
	var b strings.Builder
	if err := writeElem(&b, v, false); err != nil {
		return nil, err
	}
	return b.String(), nil
}

// writeElem writes v as String.new writes it; inside a container strings
// are quoted, undef is "undef" and floats are Ruby's inspect.
func writeElem(b *strings.Builder, v any, inner bool) error {
	switch x := v.(type) {
	case nil:
		b.WriteString("undef")
	case bool:
		b.WriteString(strconv.FormatBool(x))
	case int64:
		b.WriteString(strconv.FormatInt(x, 10))
	case float64:
		// Puppet writes 1.0 as "1.000000" but 1.0e20 as "1.0e20".
		return fmt.Errorf("hieracc cannot convert a Float to String ahead of time")
	case string:
		b.WriteString(ruby.PuppetQuote(x))
	case []any:
		b.WriteByte('[')
		for i, e := range x {
			if i > 0 {
				b.WriteString(", ")
			}
			if err := writeElem(b, e, true); err != nil {
				return err
			}
		}
		b.WriteByte(']')
	case *format.Hash:
		b.WriteByte('{')
		for i := 0; i < x.Len(); i++ {
			if i > 0 {
				b.WriteString(", ")
			}
			if err := writeElem(b, x.Key(i), true); err != nil {
				return err
			}
			b.WriteString(" => ")
			if err := writeElem(b, x.Value(i), true); err != nil {
				return err
			}
		}
		b.WriteByte('}')
	}
	return nil
}

// toArray is Array.new(from, wrap = false).
func toArray(v any, args []format.Value) (any, error) {
	wrap := false
	if len(args) > 0 {
		b, ok := args[0].(bool)
		if !ok || len(args) > 1 {
			return nil, fmt.Errorf("hieracc cannot apply Array with arguments other than wrap (true or false)")
		}
		wrap = b
	}
	switch x := v.(type) {
	case []any:
		return x, nil
	case *format.Hash:
		if wrap {
			return []any{x}, nil
		}
		out := make([]any, x.Len())
		for i := range out {
			out[i] = []any{x.Key(i), x.Value(i)}
		}
		return out, nil
	}
	if wrap {
		return []any{v}, nil
	}
	switch x := v.(type) {
	case string: // its characters
		out := make([]any, 0, len(x))
		for _, r := range x {
			out = append(out, string(r))
		}
		return out, nil
	case int64: // Integer is iterable: 0 to n-1
		if x > 1<<20 {
			return nil, fmt.Errorf("hieracc refuses to convert %d to an Array of %d elements", x, x)
		}
		out := make([]any, 0, max(x, 0))
		for i := int64(0); i < x; i++ {
			out = append(out, i)
		}
		return out, nil
	}
	return nil, fmt.Errorf("'new_array' Value of type %s cannot be converted to Array", generalName(v))
}
