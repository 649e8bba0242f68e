package puppetdiff

import (
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"gopkg.in/yaml.v3"
)

var (
	flagSeed = flag.Uint64("puppetdiff.seed", 1, "TestAgainstPuppet: the first case's seed")
	flagN    = flag.Int("puppetdiff.n", 3, "TestAgainstPuppet: how many generated cases to run")
)

// TestAgainstPuppet runs a few generated cases through real Puppet and
// hieracc; a difference not in Known fails it. More cases:
// go test ./cmd/hieracc/internal/puppetdiff -run AgainstPuppet -puppetdiff.n 50 -puppetdiff.seed 7
func TestAgainstPuppet(t *testing.T) {
	if why := PuppetInstalled(); why != "" {
		t.Skipf("differential test against Puppet skipped: %s", why)
	}
	if testing.Short() {
		t.Skip("differential test against Puppet skipped in -short mode (a few seconds per case)")
	}
	tmp := t.TempDir()
	h, err := BuildHieracc(tmp)
	if err != nil {
		t.Fatal(err)
	}
	p, err := NewPuppet(tmp)
	if err != nil {
		t.Fatal(err)
	}
	r := &Runner{Puppet: p, Hieracc: h}
	s := r.Fuzz(Config{Seed: *flagSeed, N: *flagN})
	for _, tr := range s.Trouble {
		t.Error(tr)
	}
	for _, f := range s.New {
		t.Errorf("seed %d: %s", f.Seed, f.Diff)
	}
	t.Logf("%d cases (seeds %d..%d), %d checks, %d new differences, known: %v", s.Cases, *flagSeed, *flagSeed+uint64(*flagN)-1, s.Checks, len(s.New), s.Known)
}

func TestGenerateIsDeterministic(t *testing.T) {
	a, b := Generate(42, GenOptions{}), Generate(42, GenOptions{})
	if d := cmp.Diff(Describe(a), Describe(b)); d != "" {
		t.Fatalf("seed 42 gave two cases (-first +second):\n%s", d)
	}
	if Describe(a) == Describe(Generate(43, GenOptions{})) {
		t.Fatal("seeds 42 and 43 gave the same case")
	}
}

// TestGeneratedCasesAreWellFormed reads what the generator writes: every
// YAML and JSON file parses, every hiera.yaml is version 5, every check's
// node has facts, and the features the fuzzer must cover all occur.
func TestGeneratedCasesAreWellFormed(t *testing.T) {
	seen := map[string]int{}
	features := map[string]func(path, text string) bool{
		"path":               func(p, s string) bool { return strings.Contains(s, "    path: ") },
		"paths":              func(p, s string) bool { return strings.Contains(s, "    paths:") },
		"glob":               func(p, s string) bool { return strings.Contains(s, "    glob: ") },
		"globs":              func(p, s string) bool { return strings.Contains(s, "    globs:") },
		"** glob":            func(p, s string) bool { return strings.Contains(s, "**") },
		"mapped_paths":       func(p, s string) bool { return strings.Contains(s, "mapped_paths:") },
		"default_hierarchy":  func(p, s string) bool { return strings.Contains(s, "default_hierarchy:") },
		"global hiera.yaml":  func(p, s string) bool { return p == "global/hiera.yaml" },
		"global default":     func(p, s string) bool { return p == "global/data/common.yaml" },
		"module":             func(p, s string) bool { return strings.HasPrefix(p, "modules/") },
		"json_data":          func(p, s string) bool { return strings.HasSuffix(p, ".json") },
		"anchor":             func(p, s string) bool { return strings.Contains(s, ": &a") },
		"alias":              func(p, s string) bool { return strings.Contains(s, ": *a") },
		"<<: merge":          func(p, s string) bool { return strings.Contains(s, "<<: *a") },
		"yaml 1.1 scalar":    func(p, s string) bool { return strings.Contains(s, ": 0x1F") || strings.Contains(s, ": 1:30") },
		"lookup_options":     func(p, s string) bool { return strings.Contains(s, "lookup_options:") },
		"knockout_prefix":    func(p, s string) bool { return strings.Contains(s, "knockout_prefix:") },
		"sort_merged_arrays": func(p, s string) bool { return strings.Contains(s, "sort_merged_arrays:") },
		"merge_hash_arrays":  func(p, s string) bool { return strings.Contains(s, "merge_hash_arrays:") },
		"regexp option":      func(p, s string) bool { return strings.Contains(s, `"^`) },
	}
	for _, fn := range []string{"lookup", "hiera", "alias", "scope", "literal"} {
		features[fn+"()"] = func(p, s string) bool { return strings.Contains(s, "%{"+fn+"(") }
	}
	for seed := range uint64(300) {
		c := Generate(seed, GenOptions{})
		for p, text := range c.Files {
			for name, f := range features {
				if f(p, text) {
					seen[name]++
				}
			}
			switch {
			case strings.HasSuffix(p, ".json"):
				var v any
				if err := json.Unmarshal([]byte(text), &v); err != nil {
					t.Errorf("seed %d: %s: %v\n%s", seed, p, err, text)
				}
			default:
				var v yaml.Node
				if err := yaml.Unmarshal([]byte(text), &v); err != nil {
					t.Errorf("seed %d: %s: %v\n%s", seed, p, err, text)
				}
				if strings.HasSuffix(p, "hiera.yaml") && !strings.Contains(text, "\nversion: 5\n") {
					t.Errorf("seed %d: %s is not version 5", seed, p)
				}
			}
		}
		dotted, merged := false, false
		for _, ck := range c.Checks {
			if _, ok := c.Files["nodes/"+ck.Node+".yaml"]; !ok {
				t.Errorf("seed %d: check %s of a node without facts", seed, ck)
			}
			dotted = dotted || strings.Contains(ck.Key, ".")
			merged = merged || ck.Merge != nil
		}
		if dotted {
			seen["dotted key"]++
		}
		if merged {
			seen["lookup-time merge"]++
		}
	}
	for _, name := range append(sortedKeys(features), "dotted key", "lookup-time merge") {
		if seen[name] == 0 {
			t.Errorf("no case of 300 has a %s", name)
		}
	}
}

// TestGlobOrderOption: without GlobOrder, no ** glob folder has a
// sub-folder that sorts before one of its files (known difference #17.3).
func TestGlobOrderOption(t *testing.T) {
	bad := func(c *Case) bool {
		for p := range c.Files {
			dir, rest, ok := strings.Cut(p, "/conf.d/")
			if !ok || !strings.Contains(rest, "/") {
				continue
			}
			for q := range c.Files {
				if f, ok := strings.CutPrefix(q, dir+"/conf.d/"); ok && !strings.Contains(f, "/") && f > rest {
					return true
				}
			}
		}
		return false
	}
	found := false
	for seed := range uint64(300) {
		if bad(Generate(seed, GenOptions{})) {
			t.Fatalf("seed %d: a ** glob's folder where known difference #17.3 shows", seed)
		}
		found = found || bad(Generate(seed, GenOptions{GlobOrder: true}))
	}
	if !found {
		t.Error("GlobOrder never generates the layout of #17.3")
	}
}

func TestCompare(t *testing.T) {
	v := func(j string) Answer { return Answer{Status: "value", JSON: j} }
	e := func(m string) Answer { return Answer{Status: "error", Message: m} }
	nf := Answer{Status: "not_found"}
	tests := []struct {
		name            string
		key             string
		puppet, hieracc Answer
		kind, known     string // kind "" = no difference
	}{
		{"same value", "a", v(`{"a":1,"b":[1.0]}`), v(`{"a": 1, "b": [1.0]}`), "", ""},
		{"key order", "a", v(`{"a":1,"b":2}`), v(`{"b":2,"a":1}`), "value", ""},
		{"int and float", "a", v(`1`), v(`1.0`), "value", ""},
		{"value and not found", "a", v(`1`), nf, "status", ""},
		{"same message, hieracc's position", "a", e("Unknown interpolation method 'upcase'"), e("Unknown interpolation method 'upcase' (env/data/common.yaml:5:1)"), "", ""},
		{"same message, hieracc's hint", "a", e(" bad\n  worse"), e("bad\n  worse (a hint) (env/data/x.yaml:1:1)"), "", ""},
		{"ruby's error highlight", "a", e("undefined method `x' for 1:Integer\n\n   code\n   ^^^"), e("undefined method `x' for 1:Integer (env/a.yaml:1:1)"), "", ""},
		{"other message", "a", e("one"), e("two"), "message", ""},
		// Issue #17's findings and N2, fixed: a regression is a new
		// difference, which no Known matcher names.
		{"#17.1", "x", e("Lookup of key 'x' failed: Recursive lookup detected in [x, f]"), v(`{"k":"{}"}`), "status", ""},
		{"#17.1 masked", "k", e("Lookup of key 'k' failed: Recursive lookup detected in [k, h.x]"), e("The second element of the merge has wrong type"), "message", ""},
		{"#17.2", "n.port", v(`false`), e("Recursive lookup detected in [n]"), "status", ""},
		{"#17.2 dig", "c.list.0", e("Data Provider type mismatch: Got Array"), e("Lookup of key 'c' failed: Recursive lookup detected in [c]"), "message", ""},
		{"N2", "a", e("Unknown merge strategy: 'deeep'"), nf, "status", ""},
		{"#17.4 value", "m::k.x", v(`1`), nf, "status", ""},
		{"#17.4 error", "m::k.x", e("Data Provider type mismatch: Got String"), nf, "status", ""},
		{"not #17.4: no dot", "m::k", v(`1`), nf, "status", ""},
		{"#17.5", "a", e("Lookup of key 'b' failed: Recursive lookup detected in [a, b, b]"), e("Lookup of key 'a' failed: Recursive lookup detected in [a, b]"), "message", ""},
		{"#17.6", "a", e("Lookup of key 'a' failed: Lookup of key 'b' failed: boom"), e("boom (global/data/common.yaml:1:1)"), "message", ""},
		{"#17.6, quoted key, spaces", "a.'1'", e("Lookup of key 'a.'1'' failed:  bad\n  worse"), e("bad\n  worse (global/x.yaml:1:1)"), "message", ""},
		{"#17.7", "a", e("1000: Infinity not allowed in JSON"), v(`Infinity`), "status", ""},
		{"#17.8", "a", e("Unable to parse (env/data/p//x.yaml): bad"), e("Unable to parse (env/data/p/x.yaml): bad"), "message", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ds := Compare([]Check{{Node: "n", Key: tt.key}}, []Answer{tt.puppet}, []Answer{tt.hieracc})
			var kind, known string
			if len(ds) == 1 {
				kind, known = ds[0].Kind, ds[0].Known
			}
			if kind != tt.kind || known != tt.known {
				t.Errorf("got kind %q known %q, want %q %q", kind, known, tt.kind, tt.known)
			}
		})
	}
}

// TestMinimize shrinks a case against a stand-in for Puppet: the
// difference shows while common.yaml holds `b:` with its `needle` and the
// hierarchy names common.yaml.
func TestMinimize(t *testing.T) {
	c := &Case{
		Files: map[string]string{
			"env/hiera.yaml":       "---\nversion: 5\nhierarchy:\n  - name: \"A\"\n    path: \"a.yaml\"\n  - name: \"C\"\n    path: \"common.yaml\"\n",
			"env/data/common.yaml": "---\na:\n  - 1\n  - 2\nb:\n  x: 1\n  y:\n    - needle\n    - hay\nc: 3\n",
			"env/data/a.yaml":      "---\nz: 1\n",
			"nodes/n1.yaml":        "---\nrole: web\n",
			"nodes/n2.yaml":        "---\nrole: db\n",
		},
		Checks: []Check{{Node: "n1", Key: "b"}},
	}
	calls := 0
	got := Minimize(c, 1000, func(c *Case) bool {
		calls++
		return strings.Contains(c.Files["env/data/common.yaml"], "b:\n  y:\n    - needle\n") &&
			strings.Contains(c.Files["env/hiera.yaml"], "common.yaml")
	})
	want := map[string]string{
		"env/hiera.yaml":       "---\nhierarchy:\n  - name: \"C\"\n    path: \"common.yaml\"\n",
		"env/data/common.yaml": "---\nb:\n  y:\n    - needle\n",
		"nodes/n1.yaml":        "---\n",
	}
	if d := cmp.Diff(want, got.Files); d != "" {
		t.Errorf("minimised files (-want +got):\n%s", d)
	}
	if calls > 100 {
		t.Errorf("%d calls of the predicate", calls)
	}
	// The budget is kept.
	calls = 0
	Minimize(c, 5, func(*Case) bool { calls++; return false })
	if calls != 5 {
		t.Errorf("budget 5: %d calls", calls)
	}
}

func TestCaseRoundTrip(t *testing.T) {
	c := Generate(7, GenOptions{})
	c.Checks = append(c.Checks, Check{Node: "n", Key: "k", Merge: &Merge{Strategy: "deep", KnockoutPrefix: "--", Sort: true, HashArrays: true}},
		Check{Node: "n", Key: "k", Merge: &Merge{Strategy: "unique"}})
	dir := t.TempDir()
	if err := c.Write(dir); err != nil {
		t.Fatal(err)
	}
	got, err := ReadCase(dir)
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(Describe(c), Describe(got)); d != "" {
		t.Errorf("read back (-wrote +read):\n%s", d)
	}
	raw, err := os.ReadFile(filepath.Join(dir, "checks.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(raw), "merge:\n    knockout_prefix: --\n    merge_hash_arrays: true\n") || !strings.Contains(string(raw), "merge: unique\n") {
		t.Errorf("checks.yaml does not hold the merges in genlib.rb's form:\n%s", raw)
	}
	j, err := json.Marshal(c.Checks[len(c.Checks)-2:])
	if err != nil {
		t.Fatal(err)
	}
	if want := `[{"node":"n","key":"k","merge":{"knockout_prefix":"--","merge_hash_arrays":true,"sort_merged_arrays":true,"strategy":"deep"}},{"node":"n","key":"k","merge":"unique"}]`; string(j) != want {
		t.Errorf("checks as JSON for batch.rb:\n got %s\nwant %s", j, want)
	}
}

// FuzzDecodeOrdered: the JSON both sides print is read without a panic,
// and what it accepts compares equal to itself.
func FuzzDecodeOrdered(f *testing.F) {
	for _, s := range []string{`{"a":[1,2.5,"x",null,true]}`, `[]`, `{"b":{}}`, `1e400`, `"\u00e9"`, `{"a":1}{`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if _, err := decodeOrdered(s); err == nil && !sameJSON(s, s) {
			t.Errorf("%q differs from itself", s)
		}
	})
}
