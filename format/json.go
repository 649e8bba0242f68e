package format

import (
	"bytes"
	"encoding/json"
	"strconv"

	"github.com/hieracc/hieracc/format/internal/rubyfloat"
)

// MarshalJSON writes h as a JSON object whose members are in h's order, so
// that json.Marshal of a looked-up hash keeps the order Puppet gives it.
// Values are marshaled by encoding/json. A key that is not a string is
// written as the text of its scalar: 1 as "1", true as "true", 1.0 as
// "1.0", nil as "" (as Ruby's to_s gives it); two keys may then give the
// same name, as they do in Puppet's JSON.
func (h *Hash) MarshalJSON() ([]byte, error) {
	if h == nil {
		return []byte("null"), nil
	}
	var b bytes.Buffer
	b.WriteByte('{')
	for i, k := range h.keys {
		if i > 0 {
			b.WriteByte(',')
		}
		name, err := json.Marshal(jsonKey(k))
		if err != nil {
			return nil, err
		}
		b.Write(name)
		b.WriteByte(':')
		v, err := json.Marshal(h.vals[i])
		if err != nil {
			return nil, err
		}
		b.Write(v)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

func jsonKey(k any) string {
	switch k := k.(type) {
	case string:
		return k
	case int64:
		return strconv.FormatInt(k, 10)
	case bool:
		return strconv.FormatBool(k)
	case float64:
		return string(rubyfloat.Append(nil, k))
	}
	return ""
}
