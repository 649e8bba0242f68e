package ptype_test

import (
	"bytes"
	"encoding/json"
	"os"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"

	"github.com/hieracc/hieracc/format"
	"github.com/hieracc/hieracc/format/ptype"
)

// TestPuppet checks Parse, String, Match and Check against
// testdata/cases.json: what Puppet 7.23's type parser, formatter,
// instance? and TypeAsserter say for each case of testdata/cases.txt (made
// with `ruby testdata/gen.rb testdata/cases.txt > testdata/cases.json`).
func TestPuppet(t *testing.T) {
	data, err := os.ReadFile("testdata/cases.json")
	if err != nil {
		t.Fatal(err)
	}
	var cases []struct {
		Type, Value string
		Error       *string
		String      string
		Instance    bool
		Message     *string
	}
	if err := json.Unmarshal(data, &cases); err != nil {
		t.Fatal(err)
	}
	if len(cases) < 150 {
		t.Fatalf("only %d cases", len(cases))
	}
	for _, c := range cases {
		typ, err := ptype.Parse(c.Type)
		if c.Error != nil {
			if err == nil || err.Error() != *c.Error {
				t.Errorf("Parse(%q) = %v, want Puppet's error %q", c.Type, err, *c.Error)
			}
			continue
		}
		if err != nil {
			t.Errorf("Parse(%q): %v", c.Type, err)
			continue
		}
		if got := typ.String(); got != c.String {
			t.Errorf("Parse(%q).String() = %q, want %q", c.Type, got, c.String)
		}
		var v any
		if y, ok := strings.CutPrefix(c.Value, "yaml:"); ok {
			v = decodeYAML(t, y)
		} else {
			v = decodeJSON(t, c.Value)
		}
		if got := typ.Match(v); got != c.Instance {
			t.Errorf("%s.Match(%s) = %v, want %v", c.Type, c.Value, got, c.Instance)
		}
		err = typ.Check("Found value", v)
		if want, ok := deviations[c.Type+"\t"+c.Value]; ok {
			if c.Message == nil || *c.Message != want.puppet || err == nil || err.Error() != want.hieracc {
				t.Errorf("%s.Check(%s) = %v, Puppet %v: want the recorded deviation %+v", c.Type, c.Value, err, c.Message, want)
			}
			continue
		}
		switch {
		case c.Message == nil && err != nil:
			t.Errorf("%s.Check(%s) = %q, want nil", c.Type, c.Value, err)
		case c.Message != nil && err == nil:
			t.Errorf("%s.Check(%s) = nil, want %q", c.Type, c.Value, *c.Message)
		case c.Message != nil && err.Error() != *c.Message:
			t.Errorf("%s.Check(%s):\n got %q\nwant %q", c.Type, c.Value, err, *c.Message)
		}
	}
}

// deviations are the cases where hieracc's message knowingly differs
// from Puppet's, by case (type, tab, value).
var deviations = map[string]struct{ puppet, hieracc string }{
	// Puppet's describer finds nothing to say about an Array[Any, N]
	// whose size is wrong, and raises an empty message.
	"Array[Any, 2]\t[1]": {"", "Found value has wrong type, expects size to be at least 2, got 1"},
}

// decodeYAML reads a YAML flow value as a format value, for hashes whose
// keys are not strings (YAML 1.2 scalars, which Ruby reads alike here).
func decodeYAML(t *testing.T, s string) any {
	t.Helper()
	var n yaml.Node
	if err := yaml.Unmarshal([]byte(s), &n); err != nil {
		t.Fatalf("%s: %v", s, err)
	}
	var conv func(n *yaml.Node) any
	conv = func(n *yaml.Node) any {
		switch n.Kind {
		case yaml.DocumentNode:
			return conv(n.Content[0])
		case yaml.SequenceNode:
			a := []any{}
			for _, c := range n.Content {
				a = append(a, conv(c))
			}
			return a
		case yaml.MappingNode:
			h := format.NewHash(0)
			for i := 0; i < len(n.Content); i += 2 {
				h.Set(conv(n.Content[i]), conv(n.Content[i+1]))
			}
			return h
		}
		var v any
		if err := n.Decode(&v); err != nil {
			t.Fatalf("%s: %v", s, err)
		}
		if i, ok := v.(int); ok {
			return int64(i)
		}
		return v
	}
	return conv(&n)
}

// decodeJSON reads a JSON value as a format value: hashes keep their
// order, integers stay integers.
func decodeJSON(t *testing.T, s string) any {
	t.Helper()
	d := json.NewDecoder(strings.NewReader(s))
	d.UseNumber()
	v, err := decodeValue(d)
	if err != nil {
		t.Fatalf("%s: %v", s, err)
	}
	return v
}

func decodeValue(d *json.Decoder) (any, error) {
	tok, err := d.Token()
	if err != nil {
		return nil, err
	}
	switch x := tok.(type) {
	case json.Delim:
		if x == '[' {
			a := []any{}
			for d.More() {
				e, err := decodeValue(d)
				if err != nil {
					return nil, err
				}
				a = append(a, e)
			}
			_, err := d.Token()
			return a, err
		}
		h := format.NewHash(0)
		for d.More() {
			k, err := d.Token()
			if err != nil {
				return nil, err
			}
			e, err := decodeValue(d)
			if err != nil {
				return nil, err
			}
			h.Set(k.(string), e)
		}
		_, err := d.Token()
		return h, err
	case json.Number:
		if i, err := x.Int64(); err == nil && !bytes.ContainsAny([]byte(x), ".eE") {
			return i, nil
		}
		return x.Float64()
	}
	return tok, nil
}
