package ptype_test

import (
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"math"
	"math/big"
	"os"
	"strconv"
	"testing"

	"github.com/hieracc/hieracc/format"
	"github.com/hieracc/hieracc/format/ptype"
	"github.com/hieracc/hieracc/format/ruby"
)

// row is one value of testdata/infer.json with the types Puppet 7.23
// printed for it (testdata/record.rb).
type row struct {
	Value    any             `json:"value"`
	Infer    json.RawMessage `json:"infer"`   // a string, or {"raise": message}
	General  json.RawMessage `json:"general"` // the same, of infer(v).generalize
	InferSet string          `json:"infer_set"`
	HashType string          `json:"hash_type"`
}

// A reader's own values, as dataload has them: a Symbol, an Integer beyond
// 64 bits, an Encoding, a hash with keys format cannot hold.
type (
	sym     string
	bigInt  struct{ n *big.Int }
	enc     string
	entries struct{ keys, vals []any }
)

func (s sym) PuppetType() *ptype.Type {
	switch s {
	case "default":
		return ptype.Of(ptype.Default)
	case "undef":
		return ptype.Of(ptype.Undef)
	}
	return ptype.RuntimeClass("Symbol")
}
func (n bigInt) PuppetType() *ptype.Type       { return ptype.IntegerValue(n.n) }
func (enc) PuppetType() *ptype.Type            { return ptype.RuntimeClass("Encoding") }
func (h *entries) Entries() (keys, vals []any) { return h.keys, h.vals }

func TestRecorded(t *testing.T) {
	raw, err := os.ReadFile("testdata/infer.json")
	if err != nil {
		t.Fatal(err)
	}
	var rows []row
	if err := json.Unmarshal(raw, &rows); err != nil {
		t.Fatal(err)
	}
	if len(rows) < 60 {
		t.Fatalf("only %d recorded values", len(rows))
	}
	for _, r := range rows {
		v := decode(t, r.Value)
		name := ruby.Inspect(v)
		want, wantRaise := recorded(t, r.Infer)
		got, err := ptype.Infer(v)
		switch {
		case wantRaise != "":
			if err == nil || err.Error() != wantRaise {
				t.Errorf("Infer(%s) = %v, %v; want the exception %q", name, got, err, wantRaise)
			}
		case err != nil || got.String() != want:
			t.Errorf("Infer(%s) = %v, %v; want %s", name, got, err, want)
		}
		if want, wantRaise := recorded(t, r.General); err == nil && (wantRaise != "" || got.Generalize().String() != want) {
			t.Errorf("Infer(%s).Generalize() = %v; want %s%s", name, got.Generalize(), want, wantRaise)
		}
		if got := ptype.InferSet(v).Normalize().String(); got != r.InferSet {
			t.Errorf("InferSet(%s).Normalize() = %s, want %s", name, got, r.InferSet)
		}
		if h, ok := v.(*format.Hash); ok {
			if got := ptype.TypeOf(v); got != r.InferSet {
				t.Errorf("TypeOf(%s) = %s, want %s", name, got, r.InferSet)
			}
			if r.HashType != "" {
				if got := ptype.HashTypeOf(h); got != r.HashType {
					t.Errorf("HashTypeOf(%s) = %s, want %s", name, got, r.HashType)
				}
			}
		}
	}
}

// recorded reads a recorded type: a string, or {"raise": message}.
func recorded(t *testing.T, raw json.RawMessage) (typ, raise string) {
	t.Helper()
	if err := json.Unmarshal(raw, &typ); err == nil {
		return typ, ""
	}
	var raised struct{ Raise string }
	if err := json.Unmarshal(raw, &raised); err != nil {
		t.Fatal(err)
	}
	return "", raised.Raise
}

// decode reads a value as record.rb encodes it.
func decode(t *testing.T, v any) any {
	t.Helper()
	m, ok := v.(map[string]any)
	if !ok {
		return v // nil, true, false
	}
	for tag, x := range m {
		switch tag {
		case "i":
			if n, err := strconv.ParseInt(x.(string), 10, 64); err == nil {
				return n
			}
			n, ok := new(big.Int).SetString(x.(string), 10)
			if !ok {
				t.Fatalf("bad integer %v", x)
			}
			return bigInt{n}
		case "f":
			bits, err := hex.DecodeString(x.(string))
			if err != nil {
				t.Fatal(err)
			}
			return math.Float64frombits(binary.BigEndian.Uint64(bits))
		case "s":
			return x.(string)
		case "sym":
			return sym(x.(string))
		case "encoding":
			return enc(x.(string))
		case "a":
			out := []any{}
			for _, e := range x.([]any) {
				out = append(out, decode(t, e))
			}
			return out
		case "h":
			e := &entries{}
			plain := true
			for _, p := range x.([]any) {
				kv := p.([]any)
				k := decode(t, kv[0])
				switch k.(type) {
				case nil, bool, int64, float64, string:
				default:
					plain = false
				}
				e.keys = append(e.keys, k)
				e.vals = append(e.vals, decode(t, kv[1]))
			}
			if !plain {
				return e
			}
			h := format.NewHash(len(e.keys))
			for i, k := range e.keys {
				h.Set(k, e.vals[i])
			}
			return h
		}
	}
	t.Fatalf("cannot decode %v", v)
	return nil
}

func TestIsDataAndIsStruct(t *testing.T) {
	h := func(kv ...any) *format.Hash {
		x := format.NewHash(len(kv) / 2)
		for i := 0; i < len(kv); i += 2 {
			x.Set(kv[i], kv[i+1])
		}
		return x
	}
	tests := []struct {
		v              any
		data, isStruct bool
	}{
		{nil, true, false},
		{"s", true, false},
		{[]any{int64(1), h("a", 1.5)}, true, false},
		{h(), true, false},
		{h("a", nil), true, true},
		{h("", int64(1)), true, false},
		{h(int64(1), "x"), false, false},
		{h("a", h(int64(1), "x")), false, true},
		{[]any{h(true, nil)}, false, false},
		{sym("a"), false, false},
	}
	for _, tt := range tests {
		if got := ptype.IsData(tt.v); got != tt.data {
			t.Errorf("IsData(%s) = %v", ruby.Inspect(tt.v), got)
		}
		if got := ptype.IsStruct(tt.v); got != tt.isStruct {
			t.Errorf("IsStruct(%s) = %v", ruby.Inspect(tt.v), got)
		}
	}
}
