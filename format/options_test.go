package format_test

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/vmihailenco/msgpack/v5"

	"github.com/hieracc/hieracc/format"
	"github.com/hieracc/hieracc/format/encode"
	. "github.com/hieracc/hieracc/format/formattest"
)

// TestOptionScopeMatch: the entry that applies to a key is Puppet's (a
// literal entry wins, else the first pattern that matches), failing or not.
func TestOptionScopeMatch(t *testing.T) {
	bad := &format.Error{Message: "Unknown merge strategy: 'deeep'"}
	worse := &format.Error{Message: "Unknown merge strategy: 'bogus'"}
	s := &format.OptionScope{
		Literal: []format.OptionEntry{{Name: "a", Err: bad}, {Name: "rok"}},
		Pattern: []format.OptionEntry{{Name: "^s"}, {Name: "^r", Err: bad}, {Name: "^.9", Err: worse}},
	}
	for _, tt := range []struct {
		root string
		want *format.Error
	}{
		{"a", bad},
		{"rok", nil},   // the literal hides ^r
		{"rx", bad},    // ^r
		{"s9", nil},    // ^s is tried before ^.9
		{"x9", worse},  // ^.9, unanchored at the end
		{"x9y", worse}, // the same
		{"b", nil},     // no entry
		{"xr", nil},    // ^r is anchored at the start
	} {
		if got := s.Match(tt.root); got != tt.want {
			t.Errorf("Match(%q) = %v, want %v", tt.root, got, tt.want)
		}
	}
	whole := &format.OptionScope{Err: worse, Literal: []format.OptionEntry{{Name: "a"}}}
	if got := whole.Match("a"); got != worse {
		t.Errorf("a scope that fails as a whole: Match = %v, want %v", got, worse)
	}

	// The same answers from a decoded bundle, whose patterns are compiled
	// when decoded.
	data, err := encode.Encode(&format.Bundle{Options: []format.OptionScope{*s}})
	if err != nil {
		t.Fatal(err)
	}
	x, err := format.DecodeIndex(data)
	if err != nil {
		t.Fatal(err)
	}
	for _, root := range []string{"a", "rok", "rx", "s9", "x9", "b"} {
		want, got := s.Match(root), x.Options[0].Match(root)
		if (want == nil) != (got == nil) || want != nil && want.Message != got.Message {
			t.Errorf("decoded Match(%q) = %v, want %v", root, got, want)
		}
	}
	if got := format.FindOptionScope(x.Options, "", false); got != &x.Options[0] {
		t.Errorf("FindOptionScope(\"\", false) = %p, want the first scope", got)
	}
	if got := format.FindOptionScope(x.Options, "", true); got != nil {
		t.Errorf("FindOptionScope(\"\", true) = %+v, want nil", got)
	}
}

// TestOptionsSectionErrors: Encode refuses, and the decoder rejects, an
// options section that breaks SPEC.md's rules.
func TestOptionsSectionErrors(t *testing.T) {
	scope := func(mod string, dflt bool) format.OptionScope { return format.OptionScope{Module: mod, Default: dflt} }
	for _, tt := range []struct {
		name   string
		scopes []format.OptionScope
		want   string
	}{
		{"scopes unsorted", []format.OptionScope{scope("b", false), scope("a", false)}, "not sorted"},
		{"default first", []format.OptionScope{scope("a", true), scope("a", false)}, "not sorted"},
		{"scope twice", []format.OptionScope{scope("a", false), scope("a", false)}, "not sorted"},
		{"literals unsorted", []format.OptionScope{{Literal: []format.OptionEntry{{Name: "b"}, {Name: "a"}}}}, "not sorted"},
		{"bad pattern", []format.OptionScope{{Pattern: []format.OptionEntry{{Name: "^a("}}}}, "pattern"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := encode.Encode(&format.Bundle{Options: tt.scopes}); err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("Encode = %v, want an error containing %q", err, tt.want)
			}
			// The same section, written by hand after an empty bundle's.
			empty, err := encode.Encode(&format.Bundle{})
			if err != nil {
				t.Fatal(err)
			}
			body := bodyOf(t, empty)
			if body[len(body)-1] != 0x90 { // the empty options section
				t.Fatalf("an empty bundle's body ends with %#x", body[len(body)-1])
			}
			var b bytes.Buffer
			b.Write(body[:len(body)-1])
			e := msgpack.NewEncoder(&b)
			e.EncodeArrayLen(len(tt.scopes))
			for _, s := range tt.scopes {
				e.EncodeArrayLen(5)
				e.EncodeString(s.Module)
				e.EncodeBool(s.Default)
				e.EncodeNil()
				for _, es := range [][]format.OptionEntry{s.Literal, s.Pattern} {
					e.EncodeArrayLen(len(es))
					for _, o := range es {
						e.EncodeArrayLen(2)
						e.EncodeString(o.Name)
						e.EncodeNil()
					}
				}
			}
			_, err = format.Decode(Seal(format.Version, "n", "e", "r", b.Bytes()))
			if !errors.Is(err, format.ErrCorrupt) || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("Decode = %v, want ErrCorrupt containing %q", err, tt.want)
			}
		})
	}
	// An error reference out of range.
	empty, _ := encode.Encode(&format.Bundle{})
	body := bodyOf(t, empty)
	b := append(bytes.Clone(body[:len(body)-1]), 0x91, 0x95, 0xa0, 0xc2, 0x00, 0x90, 0x90)
	if _, err := format.Decode(Seal(format.Version, "n", "e", "r", b)); !errors.Is(err, format.ErrCorrupt) {
		t.Errorf("Decode of a scope naming error 0 of none = %v, want ErrCorrupt", err)
	}
	// A version 3 body has no options section: a reader of version 3
	// rejects the field.
	if _, err := format.Decode(Seal(3, "n", "e", "r", body)); !errors.Is(err, format.ErrCorrupt) {
		t.Errorf("Decode of a version 4 body as version 3 = %v, want ErrCorrupt", err)
	}
}
