package facts

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/hieracc/hieracc/compiler/diagnostics"
)

func writeFiles(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, content := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func problemTexts(ps []diagnostics.Diagnostic, dir string) []string {
	var out []string
	for _, p := range ps {
		out = append(out, strings.ReplaceAll(p.String(), dir+string(filepath.Separator), ""))
	}
	return out
}

func TestLoad(t *testing.T) {
	dir := writeFiles(t, map[string]string{
		"facts/web01.json":     `{"role": "web"}`,
		"facts/db01.yaml":      "--- !ruby/object:Puppet::Node::Facts\nname: db01\nvalues: {role: db}\n",
		"facts/export.json":    `[{"certname":"app01","facts":{"data":[{"name":"role","value":"app"}]}}]`,
		"facts/centos-7.facts": `{"osfamily": "RedHat"}`,
		"facts/README.md":      "not facts",
		"facts/old/web09.json": `{}`,
		"facts/.gitkeep":       "",
		"other/web01.yaml":     "role: web\n",
		"other/dup.json":       `[{"certname":"db01","facts":{"role":"db"}},{"certname":"lb01","facts":{"role":"lb"}}]`,
		"bad/broken.json":      `{`,
		"bad/partial.json":     `[{"certname":"x1","facts":{}},{"certname":"","facts":{}}]`,
	})
	p := func(s string) string { return filepath.Join(dir, s) }
	nodes, probs := Load([]string{p("facts"), p("facts/web01.json"), p("other"), p("bad")})
	var names []string
	for _, n := range nodes {
		names = append(names, n.Certname+" "+string(n.Format))
	}
	if d := cmp.Diff([]string{
		"centos-7 facts hash", "db01 Puppet::Node::Facts YAML", "app01 PuppetDB factsets", "web01 facts hash",
		"lb01 PuppetDB inventory",
	}, names); d != "" {
		t.Errorf("nodes (-want +got):\n%s", d)
	}
	want := []string{
		"facts/README.md: warning: not read as facts: only files ending in .json, .yaml, .yml, .facts are",
		"facts/old: warning: folder not read: facts folders are read one level deep (name it with --facts to read it)",
		"bad/broken.json:1:1: Unable to parse (bad/broken.json): 859: unexpected token at '{'",
		"bad/partial.json: element 2: gives an empty certname (PuppetDB inventory)",
		"other/dup.json: facts for node db01 are also at facts/db01.yaml:1:5: one place per certname (node db01)",
		"other/web01.yaml: facts for node web01 are also at facts/web01.json: one place per certname (node web01)",
	}
	if d := cmp.Diff(want, problemTexts(probs, dir)); d != "" {
		t.Errorf("problems (-want +got):\n%s", d)
	}
}

func TestFindRefuses(t *testing.T) {
	dir := writeFiles(t, map[string]string{"empty/README": "x", "notes.txt": "x"})
	_, probs := Load([]string{filepath.Join(dir, "empty"), filepath.Join(dir, "notes.txt"), filepath.Join(dir, "missing")})
	want := []string{
		"empty/README: warning: not read as facts: only files ending in .json, .yaml, .yml, .facts are",
		"empty: no facts files (.json, .yaml, .yml, .facts) in this folder",
		"notes.txt: is not read as facts: a facts file's name ends in .json, .yaml, .yml, .facts",
		"missing: cannot read facts: no such file or directory",
	}
	if d := cmp.Diff(want, problemTexts(probs, dir)); d != "" {
		t.Errorf("problems (-want +got):\n%s", d)
	}
}
