package facts

import (
	"strings"
	"testing"

	"github.com/hieracc/hieracc/compiler/internal/dataload"
	"github.com/hieracc/hieracc/format"
)

func TestApply(t *testing.T) {
	base := func() *format.Hash {
		v, p := dataload.JSONValue("base", []byte(`{"os": {"family": "Debian", "release": {"major": "12"}}, "disks": [{"name": "vda"}, {"name": "vdb"}], "role": "web", "a.b": {"c": 1}}`))
		if p != nil {
			t.Fatal(p)
		}
		return v.(*format.Hash)
	}
	tests := []struct {
		overrides []string
		want      string // the facts after, or the error
	}{
		{[]string{`role="db"`}, `{"os":{"family":"Debian","release":{"major":"12"}},"disks":[{"name":"vda"},{"name":"vdb"}],"role":"db","a.b":{"c":1}}`},
		{[]string{`os.family="RedHat"`, `os.release.major="9"`}, `{"os":{"family":"RedHat","release":{"major":"9"}},"disks":[{"name":"vda"},{"name":"vdb"}],"role":"web","a.b":{"c":1}}`},
		{[]string{`disks.1.name="sdb"`}, `{"os":{"family":"Debian","release":{"major":"12"}},"disks":[{"name":"vda"},{"name":"sdb"}],"role":"web","a.b":{"c":1}}`},
		{[]string{`dc.name="fra1"`, `new=[1, 2.5, null, true]`}, `{"os":{"family":"Debian","release":{"major":"12"}},"disks":[{"name":"vda"},{"name":"vdb"}],"role":"web","a.b":{"c":1},"dc":{"name":"fra1"},"new":[1,float,null,true]}`},
		{[]string{`'a.b'.c=2`}, `{"os":{"family":"Debian","release":{"major":"12"}},"disks":[{"name":"vda"},{"name":"vdb"}],"role":"web","a.b":{"c":2}}`},
		{[]string{`os={}`}, `{"os":{},"disks":[{"name":"vda"},{"name":"vdb"}],"role":"web","a.b":{"c":1}}`},
		{[]string{`role.x=1`}, `--fact-override role.x=1: role is a string, not a hash or an array`},
		{[]string{`disks.5.name="x"`}, `--fact-override disks.5.name="x": disks is an array of 2: 5 is not one of its indexes`},
		{[]string{`nosuch.0=1`}, `nosuch does not exist, and an index needs an array`},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.overrides, " "), func(t *testing.T) {
			var ovs []Override
			for _, s := range tt.overrides {
				o, err := ParseOverride(s)
				if err != nil {
					t.Fatal(err)
				}
				ovs = append(ovs, o)
			}
			facts := base()
			before := show(facts)
			got, err := Apply(facts, ovs)
			text := ""
			if err != nil {
				text = err.Error()
			} else {
				text = show(got)
			}
			if !strings.Contains(text, tt.want) {
				t.Errorf("got %s\nwant %s", text, tt.want)
			}
			if show(facts) != before {
				t.Errorf("Apply changed its input: %s", show(facts))
			}
		})
	}
}

func TestParseOverrideRefuses(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{"role", "want NAME=JSON"},
		{"=1", "want NAME=JSON"},
		{"role=web", "the value is not JSON"},
		{`a..b=1`, "Syntax error in key"},
		// $trusted and $server_facts are not facts: an override would
		// only set $facts.trusted, which nothing means.
		{`trusted.extensions.pp_role="db"`, `--fact-override trusted.extensions.pp_role="db": $trusted is not a fact`},
		{`trusted={}`, "$trusted is not a fact"},
		{`"trusted".x=1`, "$trusted is not a fact"},
		{`server_facts.environment="dev"`, "$server_facts is not a fact"},
	} {
		if _, err := ParseOverride(tt.in); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("ParseOverride(%q): %v, want an error containing %q", tt.in, err, tt.want)
		}
	}
}
