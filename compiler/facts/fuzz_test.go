package facts

import (
	"testing"

	"github.com/hieracc/hieracc/compiler/diagnostics"
)

// FuzzParse feeds any bytes, as JSON and as YAML, to the detector: it must
// never panic, and whatever it accepts must be a node with facts and a
// certname that is safe as a file name.
func FuzzParse(f *testing.F) {
	seeds := []string{
		`{"os": {"family": "RedHat"}}`,
		`{"name":"web01","values":{"role":"web"},"timestamp":"x"}`,
		"--- !ruby/object:Puppet::Node::Facts\nname: web01\nvalues:\n  _timestamp: 2015-01-01 00:00:00 +00:00\n  !ruby/sym a: 1\n",
		`[{"certname":"a","environment":"production","facts":{"data":[{"name":"trusted","value":{"certname":"a"}}]}}]`,
		`[{"certname":"a","name":"x","value":1}]`,
		"- certname: a\n  facts: {x: 1}\n  trusted: {certname: a}\n",
		`{"certname":"a","values":{}}`,
		`{"facts":{"a":1}}`,
		`{"name":"web01","values":{"role":"web"},"timestamp":"x","extra":1}`,
		`{"certname":"a","environment":"production","facts":{"x":1},"extra":[1]}`,
		"--- !ruby/object:Puppet::Node::Facts\nname: web01\nvalues:\n  !ruby/sym _timestamp: 2015-01-01 00:00:00 +00:00\n  :_timestamp: 2015-01-01 00:00:00 +00:00\n  a: 1\n",
		`[]`,
	}
	for _, s := range seeds {
		f.Add(s, false)
		f.Add(s, true)
	}
	f.Fuzz(func(t *testing.T, src string, yaml bool) {
		file := "facts/web01.json"
		if yaml {
			file = "facts/web01.yaml"
		}
		nodes, probs := Parse(file, []byte(src))
		if diagnostics.HasErrors(probs) && len(nodes) > 0 {
			t.Fatalf("nodes despite errors: %v", probs)
		}
		for _, n := range nodes {
			if n.Facts == nil {
				t.Fatalf("node %q without facts", n.Certname)
			}
			if msg := checkCertname(n.Certname); msg != "" {
				t.Fatalf("accepted certname %q: %s", n.Certname, msg)
			}
			if n.Trusted != nil {
				if c, _ := n.Trusted.Get("certname"); c != n.Certname {
					t.Fatalf("trusted certname %v for node %q", c, n.Certname)
				}
			}
		}
	})
}
