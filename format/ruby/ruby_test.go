package ruby

import (
	"encoding/base64"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"math"
	"os"
	"strconv"
	"testing"

	"github.com/hieracc/hieracc/format"
)

// golden is testdata/golden.json: for each rendering, inputs with what
// Ruby 3.1 or Puppet 7.23 printed for them (testdata/record.rb).
type golden map[string][][2]json.RawMessage

func readGolden(t *testing.T) golden {
	t.Helper()
	raw, err := os.ReadFile("testdata/golden.json")
	if err != nil {
		t.Fatal(err)
	}
	var g golden
	if err := json.Unmarshal(raw, &g); err != nil {
		t.Fatal(err)
	}
	return g
}

// decode reads a value as record.rb encodes it.
func decode(t *testing.T, raw json.RawMessage) any {
	t.Helper()
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		t.Fatal(err)
	}
	return fromJSON(t, v)
}

func fromJSON(t *testing.T, v any) any {
	m, ok := v.(map[string]any)
	if !ok {
		return v // nil, true, false
	}
	for tag, x := range m {
		switch tag {
		case "i":
			n, err := strconv.ParseInt(x.(string), 10, 64)
			if err != nil {
				t.Fatal(err)
			}
			return n
		case "f":
			bits, err := hex.DecodeString(x.(string))
			if err != nil {
				t.Fatal(err)
			}
			return math.Float64frombits(binary.BigEndian.Uint64(bits))
		case "s":
			return x.(string)
		case "b64":
			b, err := base64.StdEncoding.DecodeString(x.(string))
			if err != nil {
				t.Fatal(err)
			}
			return string(b)
		case "a":
			var out []any
			for _, e := range x.([]any) {
				out = append(out, fromJSON(t, e))
			}
			if out == nil {
				out = []any{}
			}
			return out
		case "h":
			pairs := x.([]any)
			h := format.NewHash(len(pairs))
			for _, p := range pairs {
				kv := p.([]any)
				h.Set(fromJSON(t, kv[0]), fromJSON(t, kv[1]))
			}
			return h
		}
	}
	t.Fatalf("cannot decode %v", v)
	return nil
}

// TestGolden checks every rendering against what Ruby and Puppet printed.
func TestGolden(t *testing.T) {
	renderings := map[string]func(any) string{
		"float_to_s":     func(v any) string { return Float(v.(float64)) },
		"string_inspect": func(v any) string { return Inspect(v.(string)) },
		"binary_inspect": func(v any) string { return InspectBinary(v.(string)) },
		"inspect":        Inspect,
		"to_s":           ToS,
		"class":          ClassName,
		"puppet_quote":   func(v any) string { return PuppetQuote(v.(string)) },
		"type_name":      TypeName,
	}
	g := readGolden(t)
	for name, render := range renderings {
		rows := g[name]
		if len(rows) < 10 {
			t.Fatalf("%s: only %d recorded cases", name, len(rows))
		}
		failed := 0
		for _, row := range rows {
			in := decode(t, row[0])
			var want string
			if err := json.Unmarshal(row[1], &want); err != nil {
				t.Fatal(err)
			}
			if got := render(in); got != want {
				if failed++; failed <= 20 {
					t.Errorf("%s(%#v) = %q, Ruby printed %q", name, in, got, want)
				}
			}
		}
		if failed > 0 {
			t.Errorf("%s: %d of %d cases differ from Ruby", name, failed, len(rows))
		}
	}
	if len(g) != len(renderings) {
		t.Errorf("golden.json has %d renderings, the test checks %d", len(g), len(renderings))
	}
}

// sensitive stands for a value that prints itself.
type sensitive struct{}

func (sensitive) AppendInspect(b []byte) []byte { return append(b, "#<Sensitive [value redacted]>"...) }
func (sensitive) AppendToS(b []byte) []byte     { return append(b, "Sensitive [value redacted]"...) }
func (sensitive) TypeName() string              { return "Sensitive" }

func TestObject(t *testing.T) {
	v := []any{"a", sensitive{}}
	for _, tc := range []struct{ got, want string }{
		{Inspect(v), `["a", #<Sensitive [value redacted]>]`},
		{ToS(v), `["a", #<Sensitive [value redacted]>]`},
		{ToS(sensitive{}), `Sensitive [value redacted]`},
		{TypeName(sensitive{}), `Sensitive`},
	} {
		if tc.got != tc.want {
			t.Errorf("got %q, want %q", tc.got, tc.want)
		}
	}
}

func FuzzInspect(f *testing.F) {
	for _, s := range []string{"", "a", "\xff", "#{", "\u2028", "\U000E0001", "é\x01"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got := Inspect(s)
		if len(got) < 2 || got[0] != '"' || got[len(got)-1] != '"' {
			t.Fatalf("Inspect(%q) = %q: not quoted", s, got)
		}
		for _, r := range got {
			if r < 0x20 || r == 0x7f {
				t.Fatalf("Inspect(%q) = %q holds a control character", s, got)
			}
		}
		if bin := InspectBinary(s); len(bin) < len(s)+2 {
			t.Fatalf("InspectBinary(%q) = %q: too short", s, bin)
		}
		_ = PuppetQuote(s)
	})
}

// TestTypeNames: TypeName infers Tuple and Struct where KindName, the
// plain kind a diff compares, says Array and Hash.
func TestTypeNames(t *testing.T) {
	str := format.NewHash(1)
	str.Set("a", int64(1))
	num := format.NewHash(1)
	num.Set(int64(1), "a")
	for _, tc := range []struct {
		v          any
		kind, name string
	}{
		{nil, "Undef", "Undef"},
		{true, "Boolean", "Boolean"},
		{int64(1), "Integer", "Integer"},
		{1.5, "Float", "Float"},
		{"s", "String", "String"},
		{[]any{}, "Array", "Array"},
		{[]any{int64(1)}, "Array", "Tuple"},
		{format.NewHash(0), "Hash", "Hash"},
		{str, "Hash", "Struct"},
		{num, "Hash", "Hash"},
		{struct{}{}, "Any", "Any"},
	} {
		if got := KindName(tc.v); got != tc.kind {
			t.Errorf("KindName(%#v) = %s, want %s", tc.v, got, tc.kind)
		}
		if got := TypeName(tc.v); got != tc.name {
			t.Errorf("TypeName(%#v) = %s, want %s", tc.v, got, tc.name)
		}
	}
}
