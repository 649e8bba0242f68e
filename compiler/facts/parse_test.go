package facts

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/hieracc/hieracc/compiler/diagnostics"
	"github.com/hieracc/hieracc/format"
)

// summary is what a test checks of a node: its facts as JSON-like text.
type summary struct {
	Certname, Env string
	Format        Format
	Facts         string
	Trusted       string
	Line          int
}

func summarize(ns []Node) []summary {
	var out []summary
	for _, n := range ns {
		s := summary{Certname: n.Certname, Env: n.Environment, Format: n.Format, Facts: show(n.Facts), Line: n.Line}
		if n.Trusted != nil {
			s.Trusted = show(n.Trusted)
		}
		out = append(out, s)
	}
	return out
}

// show renders a value compactly, hash keys in order.
func show(v any) string {
	var b strings.Builder
	var walk func(v any)
	walk = func(v any) {
		switch v := v.(type) {
		case *format.Hash:
			b.WriteString("{")
			i := 0
			for k, e := range v.All() {
				if i > 0 {
					b.WriteString(",")
				}
				i++
				walk(k)
				b.WriteString(":")
				walk(e)
			}
			b.WriteString("}")
		case []any:
			b.WriteString("[")
			for i, e := range v {
				if i > 0 {
					b.WriteString(",")
				}
				walk(e)
			}
			b.WriteString("]")
		case string:
			b.WriteString(`"` + v + `"`)
		case nil:
			b.WriteString("null")
		default:
			b.WriteString(strings.TrimSpace(strings.ReplaceAll(fmtAny(v), "\n", "")))
		}
	}
	walk(v)
	return b.String()
}

func fmtAny(v any) string {
	switch v := v.(type) {
	case int64:
		return itoa(v)
	case float64:
		return "float"
	case bool:
		if v {
			return "true"
		}
		return "false"
	}
	return "?"
}

func itoa(i int64) string {
	neg := i < 0
	if neg {
		i = -i
	}
	s := ""
	for {
		s = string(rune('0'+i%10)) + s
		i /= 10
		if i == 0 {
			break
		}
	}
	if neg {
		s = "-" + s
	}
	return s
}

const trustedWeb = `{"authenticated":"remote","certname":"web01.example.com","extensions":{"pp_role":"web"},"hostname":"web01","domain":"example.com","external":{}}`

func TestParse(t *testing.T) {
	tests := []struct {
		name, file, src string
		want            []summary
	}{
		{"plain JSON (facter -j)", "f/web01.example.com.json", `{"os": {"family": "RedHat"}, "role": "web"}`,
			[]summary{{Certname: "web01.example.com", Format: Plain, Facts: `{"os":{"family":"RedHat"},"role":"web"}`}}},
		{"plain YAML (facter -y), YAML 1.1 scalars", "f/web01.yaml", "role: web\nenabled: yes\nmode: 0755\n",
			[]summary{{Certname: "web01", Format: Plain, Facts: `{"role":"web","enabled":true,"mode":493}`}}},
		{"plain hash with one fact", "f/db01.yaml", "role: db\n",
			[]summary{{Certname: "db01", Format: Plain, Facts: `{"role":"db"}`}}},
		{"one fact that is a hash, not a wrapper name", "f/db01.yaml", "os: {family: Debian}\n",
			[]summary{{Certname: "db01", Format: Plain, Facts: `{"os":{"family":"Debian"}}`}}},
		{"facterdb", "f/centos-7-x86_64.facts", `{"osfamily": "RedHat"}`,
			[]summary{{Certname: "centos-7-x86_64", Format: Plain, Facts: `{"osfamily":"RedHat"}`}}},
		{"puppet facts find JSON", "f/web01.json", `{"name":"web01","values":{"role":"web"},"timestamp":"2026-11-23T20:30:23.147624108+00:00","expiration":"2026-11-23T21:00:23.148046415+00:00"}`,
			[]summary{{Certname: "web01", Format: FactsFind, Facts: `{"role":"web"}`}}},
		{"puppet facts find JSON with a field Puppet ignores", "f/web01.json", `{"name":"web01","values":{"role":"web"},"timestamp":"2026-11-23T20:30:23Z","expiration":"2026-11-23T21:00:23Z","extra":1}`,
			[]summary{{Certname: "web01", Format: FactsFind, Facts: `{"role":"web"}`}}},
		{"puppet facts find JSON of an old Puppet: _timestamp dropped", "f/web01.json", `{"name":"web01","values":{"role":"web","_timestamp":"2015-01-01 00:00:00 +0000"},"timestamp":"x"}`,
			[]summary{{Certname: "web01", Format: FactsFind, Facts: `{"role":"web"}`}}},
		{"puppet facts find, name and values and another field", "f/web01.json", `{"name":"web01","values":{"role":"web"},"producer":"p"}`,
			[]summary{{Certname: "web01", Format: FactsFind, Facts: `{"role":"web"}`}}},
		{"replace facts command with a field hieracc does not know", "f/web01.json", `{"certname":"web01","environment":"production","producer_timestamp":"x","producer":"p","values":{"role":"web"},"job_id":"j1"}`,
			[]summary{{Certname: "web01", Env: "production", Format: Command, Facts: `{"role":"web"}`}}},
		{"inventory record with a field hieracc does not know", "f/web01.json", `{"certname":"web01","timestamp":"x","environment":"production","facts":{"role":"web"},"extra":{"a":1}}`,
			[]summary{{Certname: "web01", Env: "production", Format: Inventory, Facts: `{"role":"web"}`}}},
		{"puppet facts find as untagged YAML", "f/web01.yaml", "name: web01\nvalues:\n  role: web\n",
			[]summary{{Certname: "web01", Format: FactsFind, Facts: `{"role":"web"}`}}},
		{"Puppet::Node::Facts YAML (cache)", "f/web01.yaml", "--- !ruby/object:Puppet::Node::Facts\nname: web01\nvalues:\n  role: web\n  mac: 02:00:00:00:00:05\ntimestamp: '2026-11-23T12:00:00.000000000Z'\nexpiration: '2026-11-23T12:30:00.000000000Z'\n",
			[]summary{{Certname: "web01", Format: NodeFacts, Facts: `{"role":"web","mac":"02:00:00:00:00:05"}`, Line: 1}}},
		{"old cache: _timestamp dropped, Ruby times not read, symbol keys strings", "f/web01.yaml",
			"--- !ruby/object:Puppet::Node::Facts\n  name: web01\n  values:\n    _timestamp: 2015-01-01 00:00:00.000000 +00:00\n    !ruby/sym role: web\n  expiration: 2015-01-01 00:30:00.000000 +00:00\n",
			[]summary{{Certname: "web01", Format: NodeFacts, Facts: `{"role":"web"}`, Line: 1}}},
		{"old cache: a symbol _timestamp holding a Ruby Time dropped", "f/web01.yaml",
			"--- !ruby/object:Puppet::Node::Facts\nname: web01\nvalues:\n  role: web\n  !ruby/sym _timestamp: 2015-03-18 14:35:12.345678000 -07:00\ntimestamp: 2015-03-18 14:35:12.345678000 -07:00\n",
			[]summary{{Certname: "web01", Format: NodeFacts, Facts: `{"role":"web"}`, Line: 1}}},
		{"old cache: a :_timestamp holding a Ruby Time dropped", "f/web01.yaml",
			"--- !ruby/object:Puppet::Node::Facts\nname: web01\nvalues:\n  :_timestamp: 2015-03-18 14:35:12.345678000 -07:00\n  role: web\n",
			[]summary{{Certname: "web01", Format: NodeFacts, Facts: `{"role":"web"}`, Line: 1}}},
		{"cache: a symbol :_timestamp is a fact, as in Puppet", "f/web01.yaml",
			"--- !ruby/object:Puppet::Node::Facts\nname: web01\nvalues:\n  :_timestamp: x\n",
			[]summary{{Certname: "web01", Format: NodeFacts, Facts: `{"_timestamp":"x"}`, Line: 1}}},
		{"PuppetDB factsets, trusted from the record", "f/export.json",
			`[{"certname":"web01.example.com","environment":"production","facts":{"data":[{"name":"role","value":"web"},{"name":"trusted","value":` + trustedWeb + `}],"href":"/pdb/query/v4/factsets/web01.example.com/facts"}},
			  {"certname":"db01","environment":"staging","facts":{"data":[{"name":"role","value":"db"}]}}]`,
			[]summary{
				{Certname: "web01.example.com", Env: "production", Format: Factsets, Facts: `{"role":"web"}`, Trusted: trustedWeb},
				{Certname: "db01", Env: "staging", Format: Factsets, Facts: `{"role":"db"}`},
			}},
		{"PuppetDB facts rows", "f/rows.json",
			`[{"certname":"a","name":"role","value":"web","environment":"production"},{"certname":"b","name":"role","value":"db","environment":"production"},{"certname":"a","name":"os","value":{"family":"RedHat"},"environment":"production"}]`,
			[]summary{
				{Certname: "a", Env: "production", Format: FactRows, Facts: `{"role":"web","os":{"family":"RedHat"}}`},
				{Certname: "b", Env: "production", Format: FactRows, Facts: `{"role":"db"}`},
			}},
		{"puppet query facts[certname, name, value] rows", "f/rows.json",
			`[{"certname":"a","name":"role","value":"web"}]`,
			[]summary{{Certname: "a", Format: FactRows, Facts: `{"role":"web"}`}}},
		{"PuppetDB inventory (YAML), positions of records", "f/inv.yaml",
			"- certname: web01.example.com\n  environment: production\n  facts: {role: web}\n  trusted: " + trustedWeb + "\n- certname: db01\n  facts: {role: db}\n",
			[]summary{
				{Certname: "web01.example.com", Env: "production", Format: Inventory, Facts: `{"role":"web"}`, Trusted: trustedWeb, Line: 1},
				{Certname: "db01", Format: Inventory, Facts: `{"role":"db"}`, Line: 5},
			}},
		{"replace facts command", "f/web01.json", `{"certname":"web01","environment":"production","producer_timestamp":"x","producer":"p","values":{"role":"web"}}`,
			[]summary{{Certname: "web01", Env: "production", Format: Command, Facts: `{"role":"web"}`}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			nodes, probs := Parse(tt.file, []byte(tt.src))
			if len(probs) > 0 {
				t.Fatalf("problems: %v", probs)
			}
			if d := cmp.Diff(tt.want, summarize(nodes)); d != "" {
				t.Errorf("nodes (-want +got):\n%s", d)
			}
			for _, n := range nodes {
				if n.File != tt.file {
					t.Errorf("File %q, want %q", n.File, tt.file)
				}
			}
		})
	}
}

// TestParseRefuses pins every shape that is not facts, and above all the
// near misses, which a lax reader would take for a node with blank facts.
func TestParseRefuses(t *testing.T) {
	tests := []struct {
		name, file, src, want string
	}{
		{"empty YAML", "f/a.yaml", "", "f/a.yaml: holds no document"},
		{"YAML null", "f/a.yaml", "~\n", "f/a.yaml: is empty"},
		{"a string", "f/a.json", `"web"`, "holds a string, not facts"},
		{"JSON syntax", "f/a.json", `{"a": }`, "f/a.json:1:1: Unable to parse (f/a.json): 859: unexpected token"},
		{"YAML syntax", "f/a.yaml", "a: [\n", "f/a.yaml:2:1: Unable to parse (f/a.yaml): did not find expected node content"},
		{"YAML file that is JSON-invalid is not guessed", "f/a.json", "role: web\n", "Unable to parse"},
		{"wrapper without values", "f/web01.json", `{"name":"web01","timestamp":"2026-11-23T20:30:23Z","expiration":"2026-11-23T21:00:23Z"}`,
			"looks like a wrapper of facts (it has only the fields name, timestamp, expiration)"},
		{"wrapper whose values are not a hash", "f/web01.json", `{"name":"web01","values":"x"}`, "whose values are a string, not a hash of facts"},
		{"wrapper whose name is not a string", "f/web01.json", `{"name":7,"values":{}}`, "whose name is an integer, not a certname"},
		{"wrapper of another node", "f/web01.json", `{"name":"db01","values":{"a":1}}`,
			"f/web01.json: holds the facts of node db01 (puppet facts find), but its file name says web01: rename the file db01.json (node db01)"},
		{"cache of another node", "f/web01.yaml", "--- !ruby/object:Puppet::Node::Facts\nname: db01\nvalues: {a: 1}\n", "f/web01.yaml:1:5: holds the facts of node db01"},
		{"cache without values", "f/web01.yaml", "--- !ruby/object:Puppet::Node::Facts\nname: web01\n", "without values"},
		{"cache without name", "f/web01.yaml", "--- !ruby/object:Puppet::Node::Facts\nvalues: {a: 1}\n", "without a name"},
		{"cache with an unknown field", "f/web01.yaml", "--- !ruby/object:Puppet::Node::Facts\nname: web01\nvalues: {a: 1}\nextra: 1\n", "f/web01.yaml:4:1: is a Puppet::Node::Facts with a field extra"},
		{"another Ruby object", "f/web01.yaml", "--- !ruby/object:Puppet::Node\nname: web01\n", "holds a Ruby object of class Puppet::Node, not facts"},
		{"Ruby object inside facts", "f/web01.yaml", "a: !ruby/object:File {path: x}\n", "Tried to load unspecified class: File"},
		{"facts under facts", "f/web01.json", `{"facts":{"os":{"family":"RedHat"}}}`, `holds only "facts", whose value is a hash of 1 key: facts belong at the top level`},
		{"facts under values", "f/web01.yaml", "values:\n  role: web\n", `holds only "values"`},
		{"facts under the certname", "f/web01.yaml", "web01:\n  role: web\n", `holds only "web01"`},
		{"PuppetDB record without facts", "f/web01.json", `{"certname":"web01","environment":"production"}`, "is a PuppetDB record without facts (its keys: certname, environment)"},
		{"name, certname and values: whose?", "f/web01.json", `{"name":"web01","certname":"web01","values":{"role":"web"},"extra":1}`, "looks like a wrapper of facts"},
		{"certname and facts with name", "f/web01.json", `{"certname":"web01","name":"web01","facts":{"role":"web"},"extra":1}`, "looks like a wrapper of facts"},
		{"name and timestamp, no values", "f/web01.json", `{"name":"web01","timestamp":"x"}`, "looks like a wrapper of facts"},
		{"an empty array", "f/all.json", `[]`, "is an empty array"},
		{"an array of facts hashes", "f/all.json", `[{"role":"web"}]`, "is an array whose element 1 has no certname (its keys: role)"},
		{"an array of strings", "f/all.yaml", "- web01\n- db01\n", "f/all.yaml:1:3: is an array whose element 1 is a string"},
		{"factset without facts", "f/all.json", `[{"certname":"a","environment":"production"}]`, "element 1 is a PuppetDB record without facts"},
		{"factset with only an href", "f/all.json", `[{"certname":"a","facts":{"href":"/pdb/query/v4/factsets/a/facts"}}]`, "were not expanded"},
		{"factset data not pairs", "f/all.json", `[{"certname":"a","facts":{"data":[{"name":"x"}]}}]`, "facts.data element 1 is not a {name, value} pair"},
		{"factset data repeats a fact", "f/all.json", `[{"certname":"a","facts":{"data":[{"name":"x","value":1},{"name":"x","value":2}]}}]`, `names fact "x" twice`},
		{"fact rows mixed with records", "f/all.json", `[{"certname":"a","name":"x","value":1},{"certname":"b","facts":{}}]`, "element 2 is not a fact row"},
		{"fact rows repeat a fact", "f/all.json", `[{"certname":"a","name":"x","value":1},{"certname":"a","name":"x","value":2}]`, `gives fact "x" a second time`},
		{"trusted of another node", "f/all.json", `[{"certname":"db01","facts":{"role":"db"},"trusted":` + trustedWeb + `}]`,
			`records a trusted hash whose certname is "web01.example.com", not db01`},
		{"trusted fact of another node", "f/all.json", `[{"certname":"db01","name":"trusted","value":` + trustedWeb + `}]`, `whose certname is "web01.example.com", not db01`},
		{"trusted without certname", "f/all.json", `[{"certname":"db01","facts":{"trusted":{"extensions":{}}}}]`, "whose certname is null"},
		{"certname with a slash", "f/all.json", `[{"certname":"../etc","facts":{}}]`, `certname ../etc holds '/': a certname is printable ASCII but "/"`},
		{"certname too long for a file name", "f/all.json", `[{"certname":"` + strings.Repeat("a", 249) + `","facts":{}}]`, "certname of 249 bytes: at most 248"},
		{"certname with a newline", "f/all.json", `[{"certname":"a\nb","facts":{}}]`, `certname "a\nb" holds '\n'`},
		{"certname not ASCII", "f/all.json", `[{"certname":"café","facts":{}}]`, `certname café holds 'é'`},
		{"certname dot-dot", "f/all.json", `[{"certname":"..","facts":{}}]`, `gives the certname ".."`},
		{"certname empty", "f/all.json", `[{"certname":"","facts":{}}]`, "gives an empty certname"},
		{"certname not a string", "f/all.json", `[{"certname":1,"facts":{}}]`, "whose certname is an integer"},
		{"records with facts and values", "f/all.json", `[{"certname":"a","facts":{},"values":{}}]`, "both facts and values"},
		{"an unknown extension", "f/a.txt", `{}`, "is not read as facts"},
		{"integer beyond 64 bits", "f/a.json", `{"a": 123456789012345678901234567890}`, "beyond 64 bits"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			nodes, probs := Parse(tt.file, []byte(tt.src))
			if len(nodes) > 0 {
				t.Errorf("read %d nodes: %v", len(nodes), summarize(nodes))
			}
			if !diagnostics.HasErrors(probs) {
				t.Fatalf("no error, want %q", tt.want)
			}
			var msgs []string
			for _, p := range probs {
				msgs = append(msgs, p.String())
			}
			if got := strings.Join(msgs, "\n"); !strings.Contains(got, tt.want) {
				t.Errorf("problems:\n%s\nwant one containing %q", got, tt.want)
			}
		})
	}
}
