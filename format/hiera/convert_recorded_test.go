package hiera

import (
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"math"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/hieracc/hieracc/format"
	"github.com/hieracc/hieracc/format/ruby"
)

// convertRow is one line of testdata/convert.json: what Puppet 7.23 made of
// a convert_to setting and a value (testdata/convert_record.rb).
type convertRow struct {
	To          []any           `json:"to"`
	Value       json.RawMessage `json:"value"`
	Result      json.RawMessage `json:"result"`
	Error       string          `json:"error"`
	Unsupported string          `json:"unsupported"`
}

// TestConvertRecorded runs every recorded conversion: hieracc must give
// Puppet's value or Puppet's message, or refuse, saying so, what it cannot
// do (convert.go's "Where hieracc differs from Puppet").
func TestConvertRecorded(t *testing.T) {
	raw, err := os.ReadFile("testdata/convert.json")
	if err != nil {
		t.Fatal(err)
	}
	var rows []convertRow
	if err := json.Unmarshal(raw, &rows); err != nil {
		t.Fatal(err)
	}
	if len(rows) < 1000 {
		t.Fatalf("only %d recorded conversions", len(rows))
	}
	refused := 0
	for _, r := range rows {
		spec := make([]format.Value, len(r.To))
		for i, a := range r.To {
			if f, ok := a.(float64); ok {
				a = int64(f)
			}
			spec[i] = a
		}
		v, ok := decodeRecorded(t, r.Value)
		if !ok {
			t.Fatalf("cannot decode %s", r.Value)
		}
		name := ruby.Inspect(spec) + " of " + ruby.Inspect(v)
		var got any
		parsed, err := parseConvertTo("k", spec)
		if err == nil {
			got, err = Convert("k", parsed, v, false)
		}
		var want any
		wantOK := false
		if r.Result != nil {
			want, wantOK = decodeRecorded(t, r.Result)
		}
		if r.Error != "" {
			r.Error, _, _ = strings.Cut(r.Error, "\n\n") // Ruby's error_highlight: not the message
		}
		switch {
		case len(spec) == 1 && spec[0] == "Sensitive":
			// Readers wrap the value: Convert leaves it.
			if err != nil || !format.Equal(v, got) {
				t.Errorf("%s = %s, %v; want it unchanged", name, ruby.Inspect(got), err)
			}
		case parsed == nil && err != nil && strings.Contains(err.Error(), "hieracc"):
			refused++ // a setting hieracc refuses whatever the value
		case err != nil && (strings.Contains(err.Error(), "beyond 64 bits") || strings.Contains(err.Error(), "cannot hold a hash whose key")):
			refused++ // a result bundles cannot hold
		case err != nil && strings.Contains(err.Error(), "hieracc"):
			// A refusal: only where Puppet's result is not data or its
			// message lists signatures.
			if wantOK || r.Error != "" && !strings.Contains(r.Error, "was called with arguments it does not accept") {
				t.Errorf("%s: hieracc refused (%v); Puppet gave %s%s", name, err, r.Result, r.Error)
			}
			refused++
		case r.Error != "":
			if err == nil {
				t.Errorf("%s = %s; Puppet failed: %s", name, ruby.Inspect(got), r.Error)
			} else if msg := err.Error(); msg != r.Error && !(strings.HasSuffix(msg, " was called with arguments it does not accept.") && strings.HasPrefix(r.Error, msg)) {
				t.Errorf("%s failed:\n%s\nPuppet:\n%s", name, msg, r.Error)
			}
		case !wantOK:
			t.Errorf("%s = %s, %v; Puppet made a %s%s, which hieracc must refuse", name, ruby.Inspect(got), err, r.Unsupported, r.Result)
		case err != nil:
			t.Errorf("%s: %v; Puppet gave %s", name, err, ruby.Inspect(want))
		case !format.Equal(want, got) || ruby.Inspect(want) != ruby.Inspect(got): // order and -0.0 too
			t.Errorf("%s = %s; Puppet gave %s", name, ruby.Inspect(got), ruby.Inspect(want))
		}
	}
	t.Logf("%d recorded conversions, %d refused", len(rows), refused)
}

// decodeRecorded reads a value as the recorder encodes it; ok is false for
// one that format cannot hold (a hash with an array key).
func decodeRecorded(t *testing.T, raw json.RawMessage) (any, bool) {
	t.Helper()
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		t.Fatal(err)
	}
	return decodeTagged(v)
}

func decodeTagged(v any) (any, bool) {
	m, ok := v.(map[string]any)
	if !ok {
		return v, true // nil, true, false
	}
	for tag, x := range m {
		switch tag {
		case "i":
			n, err := strconv.ParseInt(x.(string), 10, 64)
			return n, err == nil
		case "f":
			bits, err := hex.DecodeString(x.(string))
			if err != nil {
				return nil, false
			}
			return math.Float64frombits(binary.BigEndian.Uint64(bits)), true
		case "s":
			return x.(string), true
		case "a":
			out := []any{}
			for _, e := range x.([]any) {
				d, ok := decodeTagged(e)
				if !ok {
					return nil, false
				}
				out = append(out, d)
			}
			return out, true
		case "h":
			h := format.NewHash(0)
			for _, p := range x.([]any) {
				kv := p.([]any)
				k, ok1 := decodeTagged(kv[0])
				e, ok2 := decodeTagged(kv[1])
				switch k.(type) {
				case []any, *format.Hash:
					return nil, false
				}
				if !ok1 || !ok2 {
					return nil, false
				}
				h.Set(k, e)
			}
			return h, true
		}
	}
	return nil, false
}
