package runtime_test

import (
	"errors"
	"testing"

	"github.com/hieracc/hieracc/format"
	. "github.com/hieracc/hieracc/format/formattest"
	"github.com/hieracc/hieracc/runtime"
)

// optionsBundle is Sample without module errors, with lookup_options that
// fail keys it does not hold: the environment's (^r, a), module ntp's own
// scope, and ntp's default_hierarchy's.
func optionsBundle() (*format.Bundle, map[string]*format.Error) {
	b := Sample()
	b.Modules = b.Modules[1:] // ntp: no module error, the fast path
	errs := map[string]*format.Error{
		"env":     {Message: "Unknown merge strategy: 'deeep'", Pos: format.Pos{File: "data/common.yaml", Line: 3, Column: 5}, Level: "Common"},
		"ntp":     {Message: "Unknown merge strategy: 'bogus'", Pos: format.Pos{File: "modules/ntp/data/common.yaml", Line: 3, Column: 5}, Level: "Common"},
		"default": {Message: "Unknown merge strategy: 'hashh'", Pos: format.Pos{File: "modules/ntp/data/defaults.yaml", Line: 3, Column: 5}, Level: "Defaults"},
	}
	b.Options = []format.OptionScope{
		{Literal: []format.OptionEntry{{Name: "a", Err: errs["env"]}, {Name: "rok"}}, Pattern: []format.OptionEntry{{Name: "^r", Err: errs["env"]}}},
		{Module: "ntp", Literal: []format.OptionEntry{{Name: "ntp::x", Err: errs["ntp"]}}},
		{Module: "ntp", Default: true, Literal: []format.OptionEntry{{Name: "ntp::d", Err: errs["default"]}, {Name: "ntp::servers", Err: errs["default"]}}},
	}
	return b, errs
}

// TestOptionsErrors: a key the bundle does not hold fails as its
// lookup_options entry says (without a lookup-time merge), and as its
// module's default_hierarchy's say (with any merge); a held key reads the
// default_hierarchy's when it falls back to it.
func TestOptionsErrors(t *testing.T) {
	fb, errs := optionsBundle()
	b := open(t, fb)
	deep := &format.Merge{Strategy: "deep"}
	for _, tt := range []struct {
		key   string
		merge *format.Merge
		want  string // errs' name, "" for not found, "value" for found
	}{
		{"a", nil, "env"},
		{"a.b.0", nil, "env"}, // the root's entry
		{"a", deep, ""},       // a lookup-time merge replaces lookup_options
		{"rx", nil, "env"},
		{"rok", nil, ""}, // a valid literal entry hides ^r
		{"zz", nil, ""},
		{"ntp::x", nil, "ntp"},
		{"ntp::rx", nil, ""},   // the module's scope, not the environment's
		{"other::rx", nil, ""}, // ^r does not match it
		{"other::a", nil, ""},
		{"ntp::d", nil, "default"},
		{"ntp::d", deep, "default"}, // the default_hierarchy ignores the merge asked
		{"ntp::servers", nil, "value"},
		{"ntp::servers", deep, "value"},    // found before the default_hierarchy
		{"ntp::servers.9", nil, "default"}, // the dig found nothing: on to the default_hierarchy
		{"ntp::service", nil, "value"},     // no entry in its default scope
		{"ntp::service", deep, "value"},    // merged again: the default_hierarchy
		{"ntp::servers.9", deep, "default"},
	} {
		v, err := b.LookupWith(tt.key, runtime.Options{Merge: tt.merge})
		var got string
		var fe *format.Error
		switch {
		case err == nil:
			got = "value"
		case errors.Is(err, runtime.ErrNotFound):
		case errors.As(err, &fe):
			for name, e := range errs {
				if e.Message == fe.Message {
					got = name
				}
			}
			if got == "" {
				got = fe.Message
			}
		default:
			got = err.Error()
		}
		if got != tt.want {
			t.Errorf("LookupWith(%q, merge %v) = %v, %v: got %q, want %q", tt.key, tt.merge, v, err, got, tt.want)
		}
	}
	// Lookup, the agents' call, answers the same.
	if _, err := b.Lookup("rx"); err == nil || err.Error() != errs["env"].Message {
		t.Errorf("Lookup(rx) = %v, want %q", err, errs["env"].Message)
	}
}
