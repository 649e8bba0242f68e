package rubybackend

// The values of the protocol (helper.rb's header): typed JSON, so that key
// order, integers and floats, and Sensitive cross intact.

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strconv"

	"github.com/hieracc/hieracc/format"
)

// maxDepth bounds the nesting of a value read from the helper.
const maxDepth = 1000

// encodeValue is v (a format.Value) as the helper reads it.
func encodeValue(v any) any {
	switch v := v.(type) {
	case nil, string, bool:
		return v
	case int64:
		return map[string]string{"i": strconv.FormatInt(v, 10)}
	case float64:
		return map[string]string{"f": floatText(v)}
	case []any:
		out := make([]any, len(v))
		for i, e := range v {
			out[i] = encodeValue(e)
		}
		return out
	case *format.Hash:
		pairs := make([][2]any, 0, v.Len())
		for k, e := range v.All() {
			pairs = append(pairs, [2]any{encodeValue(k), encodeValue(e)})
		}
		return map[string]any{"h": pairs}
	}
	return fmt.Sprintf("%v", v) // not a format.Value; never happens
}

func floatText(f float64) string {
	switch {
	case math.IsNaN(f):
		return "NaN"
	case math.IsInf(f, 1):
		return "Infinity"
	case math.IsInf(f, -1):
		return "-Infinity"
	}
	return strconv.FormatFloat(f, 'g', -1, 64)
}

// decodeValue reads a value the helper wrote; sensitive reports whether
// it held a Sensitive (whose content it keeps, unwrapped).
func decodeValue(raw json.RawMessage) (v any, sensitive bool, err error) {
	var x any
	if err := json.Unmarshal(raw, &x); err != nil {
		return nil, false, err
	}
	d := decoder{}
	v, err = d.value(x, 0)
	return v, d.sensitive, err
}

type decoder struct{ sensitive bool }

var errBadValue = errors.New("malformed value")

func (d *decoder) value(x any, depth int) (any, error) {
	if depth > maxDepth {
		return nil, fmt.Errorf("value nested more than %d deep", maxDepth)
	}
	switch x := x.(type) {
	case nil, string, bool:
		return x, nil
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			v, err := d.value(e, depth+1)
			if err != nil {
				return nil, err
			}
			out[i] = v
		}
		return out, nil
	case map[string]any:
		if len(x) != 1 {
			return nil, errBadValue
		}
		for tag, e := range x {
			switch tag {
			case "i":
				s, _ := e.(string)
				n, err := strconv.ParseInt(s, 10, 64)
				if err != nil {
					return nil, fmt.Errorf("integer %q: out of hieracc's range (64 bits)", s)
				}
				return n, nil
			case "f":
				s, _ := e.(string)
				switch s {
				case "NaN":
					return math.NaN(), nil
				case "Infinity":
					return math.Inf(1), nil
				case "-Infinity":
					return math.Inf(-1), nil
				}
				f, err := strconv.ParseFloat(s, 64)
				if err != nil {
					return nil, errBadValue
				}
				return f, nil
			case "h":
				pairs, ok := e.([]any)
				if !ok {
					return nil, errBadValue
				}
				h := format.NewHash(len(pairs))
				for _, p := range pairs {
					kv, ok := p.([]any)
					if !ok || len(kv) != 2 {
						return nil, errBadValue
					}
					k, err := d.value(kv[0], depth+1)
					if err != nil {
						return nil, err
					}
					switch k.(type) {
					case []any, *format.Hash:
						return nil, errors.New("a hash key that is not a scalar")
					}
					v, err := d.value(kv[1], depth+1)
					if err != nil {
						return nil, err
					}
					h.Set(k, v)
				}
				return h, nil
			case "sensitive":
				d.sensitive = true
				return d.value(e, depth+1)
			}
		}
	}
	return nil, errBadValue
}
