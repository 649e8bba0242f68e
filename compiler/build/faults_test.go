package build

import (
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"github.com/hieracc/hieracc/runtime"
)

// TestCompileRestoresLostBundles: bundles deleted, truncated, swapped or
// damaged (a flipped bit in the body, the header intact) in OUT since the
// last compile are written again by the next one, though their inputs did
// not change (an incremental compile would otherwise leave them so).
func TestCompileRestoresLostBundles(t *testing.T) {
	example, err := filepath.Abs("../../testdata/example")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	compile := func(out string) { t.Helper(); compileInto(t, example, out) }
	ref, out := filepath.Join(dir, "ref"), filepath.Join(dir, "out")
	compile(ref)
	compile(out)
	b := func(node string) string { return filepath.Join(out, node+".bundle") }

	if err := os.Remove(b("web01.fra1.example.net")); err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(b("db01.fra1.example.net"), 100); err != nil {
		t.Fatal(err)
	}
	other, err := os.ReadFile(b("web02.fra1.example.net"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(b("web03.ams2.example.net"), other, 0o640); err != nil {
		t.Fatal(err)
	}
	flipped, err := os.ReadFile(b("lb01.fra1.example.net"))
	if err != nil {
		t.Fatal(err)
	}
	flipped[len(flipped)-10] ^= 0x04
	st, err := os.Stat(b("lb01.fra1.example.net"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(b("lb01.fra1.example.net"), flipped, 0o640); err != nil {
		t.Fatal(err)
	}
	// Same size, and the time set back: as if nothing had changed.
	if err := os.Chtimes(b("lb01.fra1.example.net"), st.ModTime(), st.ModTime()); err != nil {
		t.Fatal(err)
	}

	compile(out)
	entries, err := os.ReadDir(ref)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, e := range entries {
		if filepath.Ext(e.Name()) != ".bundle" {
			continue
		}
		n++
		want, err := os.ReadFile(filepath.Join(ref, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		got, err := os.ReadFile(filepath.Join(out, e.Name()))
		if err != nil || !bytes.Equal(got, want) {
			t.Errorf("%s: not the bundle a full compile writes (%v)", e.Name(), err)
		}
	}
	if n != 8 {
		t.Errorf("%d bundles compared, want 8", n)
	}
}

// TestIncrementalFollowsLinks: a data file that is a symbolic link changes
// when the file it leads to does, and the next compile must see it.
func TestIncrementalFollowsLinks(t *testing.T) {
	dir := t.TempDir()
	write := func(name, content string) {
		t.Helper()
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("env/hiera.yaml", "version: 5\nhierarchy:\n  - name: Node\n    path: \"nodes/%{trusted.certname}.yaml\"\n")
	write("env/data/nodes/shared.yaml", "v: 1\n")
	if err := os.Symlink("shared.yaml", filepath.Join(dir, "env/data/nodes/web01.yaml")); err != nil {
		t.Skip("no symbolic links here:", err)
	}
	write("facts/web01.yaml", "role: web\n")
	out := filepath.Join(dir, "out")
	cfg := Config{Env: filepath.Join(dir, "env"), Facts: []string{filepath.Join(dir, "facts")}, Out: out}
	mustRun(t, cfg)
	write("env/data/nodes/shared.yaml", "v: 2\n")
	mustRun(t, cfg)
	b, err := runtime.Open(filepath.Join(out, "web01.bundle"))
	if err != nil {
		t.Fatal(err)
	}
	if v, err := b.Lookup("v"); err != nil || v != int64(2) {
		t.Errorf("after the linked file changed, v = %v (%v), want 2", v, err)
	}
}

// TestIncrementalOtherCheckout: switching Env to another checkout whose
// files have the sizes and modification times of the first (as tar,
// rsync -a or normalised times give) compiles every node from the new
// checkout, not the first one's digests.
func TestIncrementalOtherCheckout(t *testing.T) {
	a := copyTree(t, "../../testdata/example")
	b := copyTree(t, "../../testdata/example")
	common := filepath.Join("env", "data", "common.yaml")
	data, err := os.ReadFile(filepath.Join(b, common))
	if err != nil {
		t.Fatal(err)
	}
	changed := bytes.Replace(data, []byte("/usr/sbin/nologin"), []byte("/usr/sbin/NOLOGIN"), 1)
	if bytes.Equal(changed, data) {
		t.Fatal("test setup: the edit changed nothing")
	}
	if err := os.WriteFile(filepath.Join(b, common), changed, 0o644); err != nil {
		t.Fatal(err)
	}
	// Every file of b gets the size and time of a's.
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
	out := filepath.Join(t.TempDir(), "out")
	compileInto(t, a, out)
	if r := compileInto(t, b, out); r.Incremental {
		t.Errorf("another checkout, same sizes and times: an incremental compile (%d nodes compiled), want a full one", r.Nodes)
	}
	full := filepath.Join(t.TempDir(), "full")
	compileInto(t, b, full)
	sameBundles(t, out, full)
}
