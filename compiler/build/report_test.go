package build

import (
	"context"
	"os"
	"path/filepath"
	"testing"
)

// TestConfigErrorOnce: an error of a hiera.yaml, which fails every node,
// is reported and counted once for each node, not once more for no node.
func TestConfigErrorOnce(t *testing.T) {
	for name, hiera := range map[string]string{
		"syntax":      "version: 5\nhierarchy: [\n",
		"unknown key": "version: 5\nhierarchy:\n  - name: x\n    path: a.yaml\n    bogus: 1\n",
	} {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			for file, content := range map[string]string{
				"env/hiera.yaml": hiera, "facts/n1.yaml": "a: 1\n", "facts/n2.yaml": "a: 2\n", "facts/n3.yaml": "a: 3\n",
			} {
				p := filepath.Join(dir, file)
				if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			r, err := Run(context.Background(), Config{Env: filepath.Join(dir, "env"), Facts: []string{filepath.Join(dir, "facts")}, Out: filepath.Join(dir, "out")})
			if err != nil {
				t.Fatal(err)
			}
			nodes := map[string]bool{}
			for _, d := range r.Diagnostics {
				if d.Node == "" || nodes[d.Node] {
					t.Errorf("diagnostic %q: for no node, or twice for one", d)
				}
				nodes[d.Node] = true
			}
			if len(nodes) != 3 || r.Errors != 3 {
				t.Errorf("%d errors, diagnostics %+v; want the error once for each of the 3 nodes", r.Errors, r.Diagnostics)
			}
		})
	}
}
