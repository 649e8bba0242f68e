package hiera

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

func name(s string) Segment { return Segment{Name: s} }

// Expectations are Puppet 7.23's SubLookup#split_key and LookupKey.
func TestParseKey(t *testing.T) {
	tests := []struct {
		key  string
		want Key
		err  string
	}{
		{key: "a", want: Key{Root: "a"}},
		{key: "ntp::servers", want: Key{Root: "ntp::servers", Module: "ntp"}},
		{key: "ntp::a::b.c", want: Key{Root: "ntp::a::b", Module: "ntp", Segments: []Segment{name("c")}}},
		// A leading "::" makes the whole root the module name.
		{key: "::ntp::servers", want: Key{Root: "::ntp::servers", Module: "::ntp::servers"}},
		// No quote or dot: used verbatim, spaces and all.
		{key: " a b ", want: Key{Root: " a b "}},
		{key: "", want: Key{Root: ""}},
		{key: "a.b", want: Key{Root: "a", Segments: []Segment{name("b")}}},
		{key: "a . b", want: Key{Root: "a", Segments: []Segment{name("b")}}},
		{key: " a.b ", want: Key{Root: "a", Segments: []Segment{name("b")}}},
		{key: "a.'x.y'", want: Key{Root: "a", Segments: []Segment{name("x.y")}}},
		{key: `a."x.y"`, want: Key{Root: "a", Segments: []Segment{name("x.y")}}},
		{key: `a."b'c".d`, want: Key{Root: "a", Segments: []Segment{name("b'c"), name("d")}}},
		{key: "a.' b '", want: Key{Root: "a", Segments: []Segment{name(" b ")}}},
		{key: "a. 'b' .c", want: Key{Root: "a", Segments: []Segment{name("b"), name("c")}}},
		{key: "'a'", want: Key{Root: "a"}},
		{key: "'a.b'.c", want: Key{Root: "a.b", Segments: []Segment{name("c")}}},
		{key: "a.b.c.d", want: Key{Root: "a", Segments: []Segment{name("b"), name("c"), name("d")}}},
		// Digit segments are indexes, printed as Ruby's to_i prints them.
		{key: "a.1", want: Key{Root: "a", Segments: []Segment{{Name: "1", Index: 1, IsIndex: true}}}},
		{key: "a.007", want: Key{Root: "a", Segments: []Segment{{Name: "7", Index: 7, IsIndex: true}}}},
		{key: "a.+5", want: Key{Root: "a", Segments: []Segment{{Name: "5", Index: 5, IsIndex: true}}}},
		{key: "a.-1", want: Key{Root: "a", Segments: []Segment{{Name: "-1", Index: -1, IsIndex: true}}}},
		{key: "a.\t5", want: Key{Root: "a", Segments: []Segment{{Name: "5", Index: 5, IsIndex: true}}}},
		// Puppet's pattern is /^(:?[+-]?[0-9]+)$/ (":?" being a typo), and
		// ":5".to_i is 0.
		{key: "a.:5", want: Key{Root: "a", Segments: []Segment{{Name: "0", IsIndex: true}}}},
		// ^ and $ match at line breaks: one digit line suffices.
		{key: "a.x\n5", want: Key{Root: "a", Segments: []Segment{{Name: "0", IsIndex: true}}}},
		{key: "a.5x", want: Key{Root: "a", Segments: []Segment{name("5x")}}},
		{key: "a.1_000", want: Key{Root: "a", Segments: []Segment{name("1_000")}}},
		{key: "a.99999999999999999999", want: Key{Root: "a", Segments: []Segment{{Name: "99999999999999999999", IsIndex: true}}}},

		{key: "a..b", err: "Syntax error in key: 'a..b'"},
		{key: "a.", err: "Syntax error in key: 'a.'"},
		{key: ".a", err: "Syntax error in key: '.a'"},
		{key: ".", err: "Syntax error in key: '.'"},
		{key: "a.'x", err: "Syntax error in key: 'a.'x'"},
		{key: "a.''", err: "Syntax error in key: 'a.'''"},
		{key: "''", err: "Syntax error in key: ''''"},
		{key: "a'b'", err: "Syntax error in key: 'a'b''"},
		{key: "a.'b'c", err: "Syntax error in key: 'a.'b'c'"},
		{key: "a.'b' 'c'", err: "Syntax error in key: 'a.'b' 'c''"},
		// An integer root key crashes Puppet (checked with puppet lookup).
		{key: "5.a", err: "undefined method `index' for 5:Integer"},
	}
	for _, tc := range tests {
		t.Run(tc.key, func(t *testing.T) {
			got, err := ParseKey(tc.key)
			if tc.err != "" {
				if err == nil || err.Error() != tc.err {
					t.Fatalf("ParseKey error = %v, want %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatalf("ParseKey: %v", err)
			}
			tc.want.Text = tc.key
			if d := cmp.Diff(tc.want, got, cmpopts.EquateEmpty()); d != "" {
				t.Fatalf("ParseKey (-want +got):\n%s", d)
			}
		})
	}
}

// Expectations are from `puppet lookup` on a scratch case (see the
// dotted-keys conformance case for the common ones).
func TestDig(t *testing.T) {
	data := h(
		"i", int64(5),
		"f", 1.5,
		"t", true,
		"n", nil,
		"s", "str",
		"a", a("x", "y"),
		"h", h(int64(1), "one", "1", "strone", "x", h("y", "z"), int64(0), "zero"),
	)
	tests := []struct {
		key      string
		want     any
		notFound bool
		err      string
	}{
		{key: "h.1", want: "one"},
		{key: "h.'1'", want: "strone"},
		{key: "h.x.y", want: "z"},
		{key: "h.:1", want: "zero"}, // ":1" is index 0, which matches the key 0
		{key: "a.1", want: "y"},
		{key: "a.-1", notFound: true},
		{key: "a.2", notFound: true},
		{key: "a.99999999999999999999", notFound: true},
		{key: "h.99999999999999999999", notFound: true},
		{key: "h.nope", notFound: true},
		{key: "n.x", notFound: true},
		{key: "n.0", notFound: true},
		{key: "i.x", err: "undefined method `include?' for 5:Integer"},
		{key: "i.0", err: "undefined method `include?' for 5:Integer"},
		{key: "f.x", err: "Data Provider type mismatch: Got Float when a hash-like object was expected to access value using 'x' from key 'f.x'"},
		{key: "t.x", err: "Data Provider type mismatch: Got TrueClass when a hash-like object was expected to access value using 'x' from key 't.x'"},
		{key: "s.0", err: "Data Provider type mismatch: Got String when a hash-like object was expected to access value using '0' from key 's.0'"},
		{key: "a.x", err: "Data Provider type mismatch: Got Array when a hash-like object was expected to access value using 'x' from key 'a.x'"},
		{key: "h.x.y.z", err: "Data Provider type mismatch: Got String when a hash-like object was expected to access value using 'z' from key 'h.x.y.z'"},
		{key: "a.1.x", err: "Data Provider type mismatch: Got String when a hash-like object was expected to access value using 'x' from key 'a.1.x'"},
		{key: "s.+007", err: "Data Provider type mismatch: Got String when a hash-like object was expected to access value using '7' from key 's.+007'"},
	}
	for _, tc := range tests {
		t.Run(tc.key, func(t *testing.T) {
			k, err := ParseKey(tc.key)
			if err != nil {
				t.Fatal(err)
			}
			root, ok := data.Get(k.Root)
			if !ok {
				t.Fatalf("no root %q", k.Root)
			}
			got, found, err := k.Dig(root)
			switch {
			case tc.err != "":
				if err == nil || err.Error() != tc.err {
					t.Fatalf("Dig error = %v, want %q", err, tc.err)
				}
			case err != nil:
				t.Fatalf("Dig: %v", err)
			case tc.notFound:
				if found {
					t.Fatalf("Dig found %v, want not found", got)
				}
			case !found:
				t.Fatalf("Dig not found, want %v", tc.want)
			default:
				if d := diffValues(tc.want, got); d != "" {
					t.Fatalf("Dig (-want +got):\n%s", d)
				}
			}
		})
	}

	// Without segments the value passes through, nil included.
	if v, found, err := (Key{Text: "n", Root: "n"}).Dig(nil); v != nil || !found || err != nil {
		t.Errorf("plain key Dig(nil) = %v, %v, %v", v, found, err)
	}
}
