package hiera

// The new functions of String, Array and Hash (Puppet 7.23,
// pops/types/types.rb and string_converter.rb), for data values.

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/hieracc/hieracc/format"
	"github.com/hieracc/hieracc/format/ruby"
)

// newString is String.new(from) with the default formats
// (StringConverter::DEFAULT_STRING_FORMATS): undef is "", a float is
// written with '%f'; in an array or a hash, elements are written with '%p'
// (strings quoted, undef as "undef", floats as Ruby's inspect).
func newString(v any, args []format.Value) (any, error) {
	if len(args) > 0 {
		return nil, errors.New("hieracc cannot apply String with format arguments ahead of time")
	}
	switch x := v.(type) {
	case nil:
		return "", nil
	case string:
		return x, nil
	case float64:
		return formatF(x), nil
	}
	var b strings.Builder
	writeElem(&b, v)
	return b.String(), nil
}

// formatF is Ruby's format('%f', f).
func formatF(f float64) string {
	switch {
	case math.IsNaN(f):
		return "NaN"
	case math.IsInf(f, 1):
		return "Inf"
	case math.IsInf(f, -1):
		return "-Inf"
	}
	return strconv.FormatFloat(f, 'f', 6, 64)
}

// writeElem writes v as String.new writes it with '%p'.
func writeElem(b *strings.Builder, v any) {
	switch x := v.(type) {
	case nil:
		b.WriteString("undef")
	case bool:
		b.WriteString(strconv.FormatBool(x))
	case int64:
		b.WriteString(strconv.FormatInt(x, 10))
	case float64:
		b.WriteString(ruby.Float(x))
	case string:
		b.WriteString(ruby.PuppetQuote(x))
	case []any:
		b.WriteByte('[')
		for i, e := range x {
			if i > 0 {
				b.WriteString(", ")
			}
			writeElem(b, e)
		}
		b.WriteByte(']')
	case *format.Hash:
		b.WriteByte('{')
		for i := 0; i < x.Len(); i++ {
			if i > 0 {
				b.WriteString(", ")
			}
			writeElem(b, x.Key(i))
			b.WriteString(" => ")
			writeElem(b, x.Value(i))
		}
		b.WriteByte('}')
	}
}

// maxIterated caps the array an Integer n iterates to (0 to n-1).
const maxIterated = 1 << 20

// iterate is Iterable.on(v).to_a for the values that are Iterable: an
// array, a hash (its [key, value] pairs), a string (its characters), an
// integer n >= 0 (0 to n-1). ok is false for the others.
func iterate(v any) (out []any, ok bool, err error) {
	switch x := v.(type) {
	case []any:
		return x, true, nil
	case *format.Hash:
		out = make([]any, x.Len())
		for i := range out {
			out[i] = []any{x.Key(i), x.Value(i)}
		}
		return out, true, nil
	case string:
		out = make([]any, 0, len(x))
		for _, r := range x {
			out = append(out, string(r))
		}
		return out, true, nil
	case int64:
		if x < 0 {
			return nil, false, nil
		}
		if x > maxIterated {
			return nil, true, fmt.Errorf("hieracc refuses to iterate %d to an Array of %d elements", x, x)
		}
		out = make([]any, x)
		for i := range out {
			out[i] = int64(i)
		}
		return out, true, nil
	}
	return nil, false, nil
}

// newArray is Array.new(from, wrap = false).
func newArray(v any, args []format.Value) (any, error) {
	if len(args) > 1 {
		return nil, notAccepted("new_array")
	}
	wrap := false
	if len(args) == 1 {
		b, ok := args[0].(bool)
		if !ok {
			switch v.(type) {
			case []any, *format.Hash, string, int64: // Iterable as types go

				return nil, fmt.Errorf("'new_array' parameter 'wrap' expects a Boolean value, got %s", ruby.TypeName(args[0]))
			}
			return nil, notAccepted("new_array")
		}
		wrap = b
	}
	if wrap {
		if a, ok := v.([]any); ok {
			return a, nil
		}
		return []any{v}, nil
	}
	out, ok, err := iterate(v)
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, valueOfType("new_array", v, "Array")
	}
	return out, nil
}

// newHash is Hash.new(from): an array of [key, value] pairs, or an array
// of keys and values in turn, or anything Iterable as such an array.
func newHash(v any, args []format.Value) (any, error) {
	if len(args) > 0 {
		return nil, errors.New("hieracc cannot apply Hash with arguments ahead of time")
	}
	if h, ok := v.(*format.Hash); ok {
		return h, nil
	}
	elems, ok, err := iterate(v)
	if err != nil {
		return nil, err
	}
	if !ok {
		t := valueOfType("", v, "Hash").Error()
		return nil, errors.New(strings.TrimPrefix(t, "'' ")) // TypeConversionError: no function name
	}
	if _, isArray := v.([]any); isArray && len(elems) > 0 && allPairs(elems) {
		// KeyValueArray = Array[Tuple[Any, Any], 1]: Hash[tuples]
		h := format.NewHash(len(elems))
		for _, e := range elems {
			p := e.([]any)
			if err := setKey(h, p[0], p[1]); err != nil {
				return nil, err
			}
		}
		return h, nil
	}
	if len(elems)%2 != 0 {
		return nil, errors.New("odd number of arguments for Hash")
	}
	h := format.NewHash(len(elems) / 2)
	for i := 0; i < len(elems); i += 2 {
		if err := setKey(h, elems[i], elems[i+1]); err != nil {
			return nil, err
		}
	}
	return h, nil
}

func allPairs(elems []any) bool {
	for _, e := range elems {
		if p, ok := e.([]any); !ok || len(p) != 2 {
			return false
		}
	}
	return true
}

// setKey sets k to v in h, refusing keys that bundles cannot hold.
func setKey(h *format.Hash, k, v any) error {
	switch k.(type) {
	case []any, *format.Hash:
		return fmt.Errorf("hieracc cannot hold a hash whose key is %s", ruby.Inspect(k))
	}
	h.Set(k, v)
	return nil
}
