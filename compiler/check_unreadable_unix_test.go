//go:build unix

package compiler_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hieracc/hieracc/compiler"
	"github.com/hieracc/hieracc/compiler/diagnostics"
)

// TestCheckUnreadableFile: a data file a level names that cannot even be
// examined (a symbolic link to itself), which fails every lookup reaching
// it in a compile, is an error of the check too, not a file passed over.
func TestCheckUnreadableFile(t *testing.T) {
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "env", "data"), 0o755); err != nil {
		t.Fatal(err)
	}
	conf := "version: 5\nhierarchy:\n  - name: Common\n    path: common.yaml\n  - name: Nodes\n    path: nodes/%{trusted.certname}.yaml\n"
	if err := os.WriteFile(filepath.Join(dir, "env", "hiera.yaml"), []byte(conf), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(dir, "env", "data", "nodes"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{"common.yaml", "nodes/web01.yaml"} {
		if err := os.Symlink(filepath.Base(p), filepath.Join(dir, "env", "data", p)); err != nil {
			t.Fatal(err)
		}
	}
	got, err := compiler.Check(context.Background(), compiler.Input{FS: os.DirFS(dir), EnvDir: "env"})
	if err != nil {
		t.Fatal(err)
	}
	for _, file := range []string{"env/data/common.yaml", "env/data/nodes/web01.yaml"} {
		found := false
		for _, d := range got.Diagnostics {
			found = found || d.File == file && d.Severity != diagnostics.Warning && strings.Contains(d.Message, "too many levels of symbolic links")
		}
		if !found {
			t.Errorf("no error for %s, a link to itself; diagnostics: %v", file, got.Diagnostics)
		}
	}
}
