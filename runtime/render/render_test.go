package render_test

import (
	"encoding/json"
	"math"
	"os"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/hieracc/hieracc/format"
	. "github.com/hieracc/hieracc/format/formattest"
	"github.com/hieracc/hieracc/runtime/render"
)

// TestRenderRuby checks As against testdata/render.json, produced by
// the Ruby Puppet 7 runs on (see testdata/render.rb).
func TestRenderRuby(t *testing.T) {
	data, err := os.ReadFile("testdata/render.json")
	if err != nil {
		t.Fatal(err)
	}
	var cases []struct {
		Value string
		JSON  *string
		YAML  string
		S     string
	}
	if err := json.Unmarshal(data, &cases); err != nil {
		t.Fatal(err)
	}
	if len(cases) < 100 {
		t.Fatalf("only %d cases", len(cases))
	}
	puts := func(s string) string {
		if strings.HasSuffix(s, "\n") {
			return s
		}
		return s + "\n"
	}
	for _, c := range cases {
		v := decodeJSON(t, c.Value)
		for _, f := range []struct {
			name string
			f    render.Format
			want *string
		}{{"json", render.JSON, c.JSON}, {"yaml", render.YAML, &c.YAML}, {"s", render.Text, &c.S}} {
			got, err := render.As(v, f.f)
			if f.want == nil {
				if err == nil {
					t.Errorf("%s as %s: no error, Ruby fails", c.Value, f.name)
				}
				continue
			}
			if err != nil {
				t.Errorf("%s as %s: %v", c.Value, f.name, err)
				continue
			}
			if d := cmp.Diff(puts(*f.want), string(got)); d != "" {
				t.Errorf("%s as %s (-ruby +go):\n%s", c.Value, f.name, d)
			}
		}
	}
}

// decodeJSON decodes JSON into format values: ordered hashes, int64 for
// integers, float64 for numbers with a fraction or exponent.
func decodeJSON(t *testing.T, s string) any {
	d := json.NewDecoder(strings.NewReader(s))
	d.UseNumber()
	var walk func() any
	walk = func() any {
		tok, err := d.Token()
		if err != nil {
			t.Fatal(err)
		}
		switch tok := tok.(type) {
		case json.Delim:
			if tok == '[' {
				a := []any{}
				for d.More() {
					a = append(a, walk())
				}
				d.Token()
				return a
			}
			h := format.NewHash(0)
			for d.More() {
				k, _ := d.Token()
				h.Set(k, walk())
			}
			d.Token()
			return h
		case json.Number:
			if strings.ContainsAny(tok.String(), ".eE") {
				f, _ := tok.Float64()
				return f
			}
			i, _ := tok.Int64()
			return i
		}
		return tok
	}
	return walk()
}

// Values JSON cannot carry, checked against Puppet 7 (puppet lookup
// --render-as json/s/yaml).
func TestRenderPuppet(t *testing.T) {
	h := H("b", int64(1), int64(1), "intkey", 2.5, "f", true, "t")
	tests := []struct {
		v          any
		json, s, y string
	}{
		{h, `{"b":1,"1":"intkey","2.5":"f","true":"t"}`, `{"b"=>1, 1=>"intkey", 2.5=>"f", true=>"t"}`, "---\nb: 1\n1: intkey\n2.5: f\ntrue: t\n"},
		{H(nil, "n"), `{"":"n"}`, `{nil=>"n"}`, "---\n! '': \"n\"\n"},
		{A(math.NaN(), math.Inf(-1)), "", `[NaN, -Infinity]`, "---\n- .nan\n- -.inf\n"},
		{"invalid \xff utf-8", "", "invalid \xff utf-8", "--- \"invalid \\xFF utf-8\"\n"},
		{A("\xff"), "", `["\xFF"]`, "---\n- \"\\xFF\"\n"},
		{nil, "null", "", "---\n"},
		{1.0e15, "1.0e+15", "1.0e+15", "--- 1.0e+15\n"},
		// Ruby escapes the C1 controls but U+0085 in inspect; Float#to_s
		// prints 17 digits in fixed notation. (ruby -ryaml -rjson, Ruby 3.1)
		{A("\u0080\u0085", 1234567890123456.8), "[\"\u0080\u0085\",1234567890123456.8]", "[\"\\u0080\u0085\", 1234567890123456.8]", "---\n- \"\\x80\\N\"\n- 1234567890123456.8\n"},
	}
	for _, tt := range tests {
		j, err := render.As(tt.v, render.JSON)
		if tt.json == "" {
			if err == nil {
				t.Errorf("%v as JSON: no error", tt.v)
			}
		} else if string(j) != tt.json+"\n" || err != nil {
			t.Errorf("%v as JSON = %q, %v, want %q", tt.v, j, err, tt.json)
		}
		if s, err := render.As(tt.v, render.Text); string(s) != tt.s+"\n" || err != nil {
			t.Errorf("%v as s = %q, %v, want %q", tt.v, s, err, tt.s)
		}
		if y, err := render.As(tt.v, render.YAML); string(y) != tt.y || err != nil {
			t.Errorf("%v as YAML = %q, %v, want %q", tt.v, y, err, tt.y)
		}
	}
	// Puppet's messages (Ruby's JSON generator) for values JSON cannot hold.
	for v, want := range map[float64]string{
		math.Inf(1):  "1000: Infinity not allowed in JSON",
		math.Inf(-1): "1000: -Infinity not allowed in JSON",
		math.NaN():   "1003: NaN not allowed in JSON",
	} {
		if _, err := render.As(A(H("a", v)), render.JSON); err == nil || err.Error() != want {
			t.Errorf("%v as JSON: error %v, want %q", v, err, want)
		}
	}
	if _, err := render.As(1, render.JSON); err == nil {
		t.Error("As(int) succeeded")
	}
}

// Puppet's JSON generator nests arrays and hashes 100 deep at most
// (max_nesting): puppet lookup --render-as json fails past that, with
// "nesting of 100 is too deep" however deep the value, an empty array or
// hash at depth 101 included, where YAML and s print it (Puppet 7.23).
func TestRenderJSONNesting(t *testing.T) {
	nest := func(depth int, inner any, hash bool) any {
		v := inner
		for range depth {
			if hash {
				v = H("a", v)
			} else {
				v = A(v)
			}
		}
		return v
	}
	const tooDeep = "nesting of 100 is too deep"
	tests := []struct {
		name string
		v    any
		err  string
	}{
		{"100 arrays", nest(100, int64(1), false), ""},
		{"100 hashes", nest(100, int64(1), true), ""},
		{"99 arrays around an empty one", nest(99, A(), false), ""},
		{"101 arrays", nest(101, int64(1), false), tooDeep},
		{"101 hashes", nest(101, int64(1), true), tooDeep},
		{"150 arrays", nest(150, int64(1), false), tooDeep},
		{"100 arrays around an empty one", nest(100, A(), false), tooDeep},
		{"100 hashes around an empty one", nest(100, H(), true), tooDeep},
		{"hashes and arrays", nest(50, nest(51, "x", false), true), tooDeep},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			j, err := render.As(tt.v, render.JSON)
			switch {
			case tt.err == "" && err != nil:
				t.Errorf("as JSON: %v", err)
			case tt.err != "" && (err == nil || err.Error() != tt.err):
				t.Errorf("as JSON: %.40q, error %v, want %q", j, err, tt.err)
			}
			for _, f := range []render.Format{render.YAML, render.Text} {
				if _, err := render.As(tt.v, f); err != nil {
					t.Errorf("format %d: %v", f, err)
				}
			}
		})
	}
	if _, err := render.As("x", render.Format(9)); err == nil {
		t.Error("As(format 9) succeeded")
	}
}
