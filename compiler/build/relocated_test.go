package build

import (
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
)

// TestRelocated: an output copied from a compile of another checkout of
// the fleet, at another place (diff --git --base-out), is updated
// incrementally under Relocated: only the node whose data file changed is
// compiled again, even when every file of the new checkout has the size
// and time of the first's, and the bundles are those of a full compile.
// Without Relocated, the folders read elsewhere mean a full compile.
func TestRelocated(t *testing.T) {
	a := copyTree(t, "../../testdata/example")
	b := copyTree(t, "../../testdata/example")
	file := filepath.Join("env", "data", "nodes", "db01.fra1.example.net.yaml")
	data, err := os.ReadFile(filepath.Join(b, file))
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(data, []byte("relocated::key")) {
		t.Fatal("test setup: the key is there already")
	}
	if err := os.WriteFile(filepath.Join(b, file), append(data, []byte("relocated::key: 1\n")...), 0o644); err != nil {
		t.Fatal(err)
	}
	err = filepath.WalkDir(a, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		st, err := os.Stat(p)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(a, p)
		return os.Chtimes(filepath.Join(b, rel), st.ModTime(), st.ModTime())
	})
	if err != nil {
		t.Fatal(err)
	}
	base := filepath.Join(t.TempDir(), "base")
	compileInto(t, a, base)

	for _, tc := range []struct {
		relocated bool
		want      int // nodes compiled; -1 for a full compile
	}{{false, -1}, {true, 1}} {
		out := filepath.Join(t.TempDir(), "out")
		if err := os.CopyFS(out, os.DirFS(base)); err != nil {
			t.Fatal(err)
		}
		r := compileInto(t, b, out, Config{Relocated: tc.relocated})
		if got := compiled(r); got != tc.want {
			t.Errorf("Relocated %v: %d nodes compiled (-1: all), want %d", tc.relocated, got, tc.want)
		}
		full := filepath.Join(t.TempDir(), "full")
		compileInto(t, b, full)
		sameBundles(t, out, full)
	}
}
