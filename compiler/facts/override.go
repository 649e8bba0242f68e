package facts

// What-if facts: --fact-override NAME=JSON sets a fact on every node.

import (
	"fmt"
	"strings"

	"github.com/hieracc/hieracc/compiler/internal/dataload"
	"github.com/hieracc/hieracc/format"
	"github.com/hieracc/hieracc/format/hiera"
)

// Override sets one fact, or a value nested in one, on every node.
type Override struct {
	Text  string    // as given: NAME=JSON
	Key   hiera.Key // NAME, split as a dotted lookup key is
	Value any
}

// notFacts are the top-scope hashes a Puppet server gives a node besides
// its facts, and where they come from. An override of one would set only
// a fact of that name ($facts.trusted), which is not what it names:
// ParseOverride refuses it.
var notFacts = map[string]string{
	"trusted":      "a Puppet server takes it from the node's certificate (PuppetDB records it)",
	"server_facts": "the Puppet server sets it (its environment is --environment)",
}

// ParseOverride reads NAME=JSON. NAME is a fact's name; dots reach into
// its hashes (os.family) and arrays (disks.0), and quotes keep a dot in a
// name ("a.b".c), as in a lookup key. JSON is the value, read as Puppet
// reads JSON: "RedHat" (quoted) is a string, 9 an integer. NAME under
// trusted or server_facts is refused (notFacts).
func ParseOverride(s string) (Override, error) {
	name, js, ok := strings.Cut(s, "=")
	if !ok || name == "" {
		return Override{}, fmt.Errorf("--fact-override %s: want NAME=JSON, e.g. os.family='\"RedHat\"'", s)
	}
	k, err := hiera.ParseKey(name)
	if err != nil {
		return Override{}, fmt.Errorf("--fact-override %s: %v", s, err)
	}
	if why, ok := notFacts[k.Root]; ok {
		return Override{}, fmt.Errorf("--fact-override %s: $%s is not a fact: %s, so no fact override changes it", s, k.Root, why)
	}
	v, p := dataload.JSONValue("--fact-override "+name, []byte(js))
	if p != nil {
		return Override{}, fmt.Errorf("--fact-override %s: the value is not JSON (a string needs its quotes: %s='\"text\"'): %s", s, name, p.Message)
	}
	return Override{Text: s, Key: k, Value: v}, nil
}

// Apply returns facts with the overrides applied in order; facts itself
// is not changed (only the hashes and arrays on the way to a changed
// value are copied). A step through a value that is neither a hash nor
// an array, or past the end of an array, is an error: the fact does not
// have the shape the override assumes.
func Apply(facts *format.Hash, ovs []Override) (*format.Hash, error) {
	if len(ovs) == 0 {
		return facts, nil
	}
	out := facts.Clone()
	for _, o := range ovs {
		if len(o.Key.Segments) == 0 {
			out.Set(o.Key.Root, o.Value)
			continue
		}
		cur, _ := out.Get(o.Key.Root)
		v, err := set(cur, o.Key.Segments, o.Value, o.Key.Root)
		if err != nil {
			return nil, fmt.Errorf("--fact-override %s: %v", o.Text, err)
		}
		out.Set(o.Key.Root, v)
	}
	return out, nil
}

// set returns a copy of v with the value at path replaced by nv; at is
// the path so far, for messages. A missing hash on the way is created.
func set(v any, path []hiera.Segment, nv any, at string) (any, error) {
	if len(path) == 0 {
		return nv, nil
	}
	s := path[0]
	switch c := v.(type) {
	case nil:
		if s.IsIndex {
			return nil, fmt.Errorf("%s does not exist, and an index needs an array", at)
		}
		h := format.NewHash(1)
		inner, err := set(nil, path[1:], nv, at+"."+s.Name)
		if err != nil {
			return nil, err
		}
		h.Set(s.Name, inner)
		return h, nil
	case *format.Hash:
		h := c.Clone()
		cur, _ := h.Get(s.Name)
		inner, err := set(cur, path[1:], nv, at+"."+s.Name)
		if err != nil {
			return nil, err
		}
		h.Set(s.Name, inner)
		return h, nil
	case []any:
		if !s.IsIndex || s.Index < 0 || s.Index >= len(c) {
			return nil, fmt.Errorf("%s is an array of %d: %s is not one of its indexes", at, len(c), s.Name)
		}
		a := append([]any(nil), c...)
		inner, err := set(a[s.Index], path[1:], nv, fmt.Sprintf("%s.%d", at, s.Index))
		if err != nil {
			return nil, err
		}
		a[s.Index] = inner
		return a, nil
	}
	return nil, fmt.Errorf("%s is %s, not a hash or an array", at, describe(v))
}
