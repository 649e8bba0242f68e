package gen

import (
	"bytes"
	"maps"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"gopkg.in/yaml.v3"
)

// small is the reference shape at a size tests can parse quickly.
func small() Params {
	p := Reference()
	p.Nodes, p.Keys = 300, 1000
	return p
}

func TestDeterministic(t *testing.T) {
	p := small()
	if !testing.Short() {
		p = Reference()
	}
	a, err := Generate(p)
	if err != nil {
		t.Fatal(err)
	}
	b, err := Generate(p)
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(contents(a), contents(b)); d != "" {
		t.Errorf("same seed, different repos (-first +second):\n%s", d)
	}
	if d := cmp.Diff(a.Keys, b.Keys); d != "" {
		t.Errorf("same seed, different keys (-first +second):\n%s", d)
	}
	p.Seed++
	c, err := Generate(p)
	if err != nil {
		t.Fatal(err)
	}
	if cmp.Equal(contents(a), contents(c)) {
		t.Error("different seeds gave the same repo")
	}
}

func contents(r *Repo) map[string]string {
	m := make(map[string]string, len(r.FS))
	for name, f := range r.FS {
		m[name] = string(f.Data)
	}
	return m
}

// repoStats is what a generated repo holds, measured from its files alone.
type repoStats struct {
	levels, modules, nodeFacts int
	keys                       map[string]bool // every top-level data key but lookup_options
	dimFiles, dimKeys          int             // env/data/<dimension>/*.yaml and their keys
	nodeKeys                   int             // keys in env/data/nodes/*.yaml
	strs, interpolated         int             // string values, those interpolating a fact
	refs, mergeOptions         int             // lookup()/alias() values, lookup_options entries
}

var (
	factRef = regexp.MustCompile(`%\{(facts\.|trusted\.|::)`)
	keyRef  = regexp.MustCompile(`%\{(lookup|alias)\('([^']+)'\)\}`)
)

func measure(t *testing.T, r *Repo) repoStats {
	t.Helper()
	s := repoStats{keys: map[string]bool{}}
	for name, f := range r.FS {
		doc := parse(t, name, f.Data)
		switch {
		case name == "env/hiera.yaml":
			s.levels = len(mapValue(doc, "hierarchy").Content)
		case strings.HasPrefix(name, "nodes/"):
			s.nodeFacts++
		case strings.HasSuffix(name, "/hiera.yaml"):
			s.modules++
		default:
			inNodeDir := strings.HasPrefix(name, "env/data/nodes/")
			inDimDir := strings.HasPrefix(name, "env/data/") && !inNodeDir && name != "env/data/common.yaml"
			if inDimDir {
				s.dimFiles++
			}
			for i := 0; i < len(doc.Content); i += 2 {
				k, v := doc.Content[i].Value, doc.Content[i+1]
				if k == "lookup_options" {
					s.mergeOptions += len(v.Content) / 2
					continue
				}
				s.keys[k] = true
				switch {
				case inNodeDir:
					s.nodeKeys++
				case inDimDir:
					s.dimKeys++
				}
				if v.Kind == yaml.ScalarNode && keyRef.MatchString(v.Value) {
					s.refs++
				}
				walkStrings(v, func(str string) {
					s.strs++
					if factRef.MatchString(str) {
						s.interpolated++
					}
				})
			}
		}
	}
	return s
}

func TestParams(t *testing.T) {
	tests := []struct {
		name string
		edit func(*Params)
	}{
		{"reference-shape", func(*Params) {}},
		{"two-levels-no-modules", func(p *Params) { p.Levels, p.Modules, p.ModuleKeys = 2, 0, 0 }},
		{"deepest", func(p *Params) { p.Levels, p.Fanout, p.Roles, p.Datacenters = MaxLevels, 3, 20, 9 }},
		{"heavy", func(p *Params) {
			p.OverrideRatio, p.PerNodeRatio, p.InterpolationRatio, p.MergeRatio, p.RefRatio = 0.5, 0.05, 0.3, 0.2, 0.05
		}},
		{"plain", func(p *Params) {
			p.OverrideRatio, p.PerNodeRatio, p.InterpolationRatio, p.MergeRatio, p.RefRatio = 0, 0, 0, 0, 0
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := small()
			tt.edit(&p)
			r, err := Generate(p)
			if err != nil {
				t.Fatal(err)
			}
			s := measure(t, r)

			if s.levels != p.Levels || s.modules != p.Modules || s.nodeFacts != p.Nodes || len(r.Nodes) != p.Nodes {
				t.Errorf("levels %d, modules %d, facts files %d, Nodes %d; want %d, %d, %d, %d",
					s.levels, s.modules, s.nodeFacts, len(r.Nodes), p.Levels, p.Modules, p.Nodes, p.Nodes)
			}
			var names []string
			refs, merged := 0, 0
			for _, k := range r.Keys {
				names = append(names, k.Name)
				if k.Ref != "" {
					refs++
				}
				if k.Merge != "" {
					merged++
				}
			}
			if d := cmp.Diff(slices.Sorted(maps.Keys(s.keys)), slices.Sorted(slices.Values(names))); d != "" || len(names) != p.Keys {
				t.Errorf("%d keys in Repo.Keys, want %d; keys in the files (-files +Repo.Keys):\n%s", len(names), p.Keys, d)
			}
			if s.refs != refs || s.mergeOptions != merged {
				t.Errorf("files hold %d references and %d lookup_options; Repo.Keys says %d and %d", s.refs, s.mergeOptions, refs, merged)
			}

			eligible := float64(p.Keys - refs)
			t.Logf("%d files: %d dimension files with %d keys, %d per-node keys, %d/%d strings interpolated, %d refs, %d merged",
				len(r.FS), s.dimFiles, s.dimKeys, s.nodeKeys, s.interpolated, s.strs, refs, merged)
			within(t, "merged keys", float64(merged), p.MergeRatio*float64(p.Keys), 1)
			within(t, "references", float64(refs), p.RefRatio*float64(p.Keys), 1)
			if s.dimFiles > 0 || p.OverrideRatio > 0 && p.Levels > 2 {
				dims := 0
				for _, n := range []int{p.Roles, p.Datacenters, p.OSFamilies, p.Fanout, p.Fanout, p.Fanout, p.Fanout, p.Fanout}[:p.Levels-2] {
					dims += n
				}
				within(t, "override ratio", float64(s.dimKeys)/(eligible*float64(dims)), p.OverrideRatio, 0.02)
			}
			within(t, "per-node ratio", float64(s.nodeKeys)/(eligible*float64(p.Nodes)), p.PerNodeRatio, 0.002+p.PerNodeRatio/10)
			within(t, "interpolation ratio", float64(s.interpolated)/float64(s.strs), p.InterpolationRatio, 0.02)
		})
	}
}

func within(t *testing.T, what string, got, want, tolerance float64) {
	t.Helper()
	if math.Abs(got-want) > tolerance {
		t.Errorf("%s = %.4f, want %.4f ± %.4f", what, got, want, tolerance)
	}
}

// yaml11Special matches plain scalars that Psych (YAML 1.1) does not read as the string yaml.v3
// reads: booleans, nulls, base-2/8/16/60 and underscored numbers, floats, dates.
var yaml11Special = regexp.MustCompile(`^(?:y|Y|yes|Yes|YES|n|N|no|No|NO|true|True|TRUE|false|False|FALSE|` +
	`on|On|ON|off|Off|OFF|null|Null|NULL|~|` +
	`[-+]?(?:0b[01_]+|0[0-7_]+|0x[0-9a-fA-F_]+|[0-9][0-9_]*(?::[0-5]?[0-9])*(?:\.[0-9_]*)?|\.[0-9.]*)(?:[eE][-+]?[0-9]+)?|` +
	`\.(?:inf|Inf|INF|nan|NaN|NAN)|[0-9]{4}-[0-9]{1,2}-[0-9]{1,2}.*)$`)

// TestYAML parses every file and checks that every plain string scalar means the same to YAML 1.1
// (Puppet) and 1.2 readers, and that the data files are mappings.
func TestYAML(t *testing.T) {
	p := small()
	p.Levels = MaxLevels
	r, err := Generate(p)
	if err != nil {
		t.Fatal(err)
	}
	for name, f := range r.FS {
		doc := parse(t, name, f.Data)
		var check func(n *yaml.Node)
		check = func(n *yaml.Node) {
			if n.Kind == yaml.ScalarNode && n.Style == 0 && n.Tag == "!!str" && yaml11Special.MatchString(n.Value) {
				t.Errorf("%s:%d: plain %q is not a string to YAML 1.1", name, n.Line, n.Value)
			}
			for _, c := range n.Content {
				check(c)
			}
		}
		check(doc)
	}
}

// TestReferences checks that every interpolation in the data names a fact every node has, and
// every lookup()/alias() a key the repo defines.
func TestReferences(t *testing.T) {
	p := small()
	p.Nodes, p.Levels, p.RefRatio = 40, 7, 0.05
	r, err := Generate(p)
	if err != nil {
		t.Fatal(err)
	}
	keys := map[string]bool{}
	for _, k := range r.Keys {
		keys[k.Name] = true
	}
	var facts []map[string]any
	for _, n := range r.Nodes {
		var m map[string]any
		if err := yaml.Unmarshal(r.FS["nodes/"+n+".yaml"].Data, &m); err != nil {
			t.Fatal(err)
		}
		facts = append(facts, m)
	}
	interp := regexp.MustCompile(`%\{([^}]*)\}`)
	seen := map[string]bool{}
	for name, f := range r.FS {
		if strings.HasPrefix(name, "nodes/") {
			continue
		}
		for _, m := range interp.FindAllSubmatch(f.Data, -1) {
			ref := string(m[1])
			if seen[ref] {
				continue
			}
			seen[ref] = true
			if km := keyRef.FindStringSubmatch(string(m[0])); km != nil {
				if !keys[km[2]] {
					t.Errorf("%s: %s of an unknown key", name, m[0])
				}
				continue
			}
			var p string
			switch {
			case ref == "trusted.certname":
				continue
			case strings.HasPrefix(ref, "facts."):
				p = strings.TrimPrefix(ref, "facts.")
			case strings.HasPrefix(ref, "::"):
				p = strings.TrimPrefix(ref, "::")
			default:
				t.Errorf("%s: unexpected interpolation %s", name, m[0])
				continue
			}
			for i, fm := range facts {
				if _, ok := dig(fm, p); !ok {
					t.Errorf("%s: %s: node %s has no such fact", name, m[0], r.Nodes[i])
				}
			}
		}
	}
	if !seen["facts.role"] || !seen["::datacenter"] || !seen["trusted.certname"] {
		t.Errorf("interpolations seen: %v, want facts.role, ::datacenter, trusted.certname among them", seen)
	}
}

func dig(m map[string]any, p string) (any, bool) {
	var v any = m
	for _, seg := range strings.Split(p, ".") {
		h, ok := v.(map[string]any)
		if !ok {
			return nil, false
		}
		if v, ok = h[seg]; !ok {
			return nil, false
		}
	}
	return v, true
}

func TestValidate(t *testing.T) {
	tests := []struct {
		name string
		edit func(*Params)
		want string
	}{
		{"no-nodes", func(p *Params) { p.Nodes = 0 }, "Nodes = 0"},
		{"too-deep", func(p *Params) { p.Levels = MaxLevels + 1 }, "Levels"},
		{"module-keys", func(p *Params) { p.Keys = 100 }, "exceeds Keys"},
		{"ratio", func(p *Params) { p.MergeRatio = 1.5 }, "MergeRatio"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := Reference()
			tt.edit(&p)
			_, err := Generate(p)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("Generate: %v, want an error containing %q", err, tt.want)
			}
		})
	}
}

func TestWriteDir(t *testing.T) {
	p := small()
	p.Nodes = 20
	r, err := Generate(p)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := r.WriteDir(dir); err != nil {
		t.Fatal(err)
	}
	n := 0
	err = filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		n++
		rel, _ := filepath.Rel(dir, p)
		data, err := os.ReadFile(p)
		if f := r.FS[filepath.ToSlash(rel)]; f == nil || !bytes.Equal(f.Data, data) {
			t.Errorf("%s differs from the generated file", rel)
		}
		return err
	})
	if err != nil || n != len(r.FS) {
		t.Errorf("wrote %d files (%v), want %d", n, err, len(r.FS))
	}
}

func BenchmarkGenerate(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Generate(Reference()); err != nil {
			b.Fatal(err)
		}
	}
}

func parse(t *testing.T, name string, data []byte) *yaml.Node {
	t.Helper()
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	if len(doc.Content) != 1 || doc.Content[0].Kind != yaml.MappingNode {
		t.Fatalf("%s: not a YAML mapping", name)
	}
	return doc.Content[0]
}

func mapValue(m *yaml.Node, key string) *yaml.Node {
	for i := 0; i < len(m.Content); i += 2 {
		if m.Content[i].Value == key {
			return m.Content[i+1]
		}
	}
	return &yaml.Node{}
}

func walkStrings(n *yaml.Node, f func(string)) {
	if n.Kind == yaml.ScalarNode {
		if n.Tag == "!!str" {
			f(n.Value)
		}
		return
	}
	for i, c := range n.Content {
		if n.Kind == yaml.MappingNode && i%2 == 0 {
			continue // keys
		}
		walkStrings(c, f)
	}
}
