package stage

import (
	"os"
	"path/filepath"
	"testing"
)

// TestWriteAtomicFailure checks that a write that fails at its last step
// (the rename) leaves neither a partial bundle nor a temporary file.
func TestWriteAtomicFailure(t *testing.T) {
	dir := t.TempDir()
	dst := filepath.Join(dir, "web01.bundle")
	if err := os.MkdirAll(filepath.Join(dst, "occupied"), 0o755); err != nil {
		t.Fatal(err) // a folder where the bundle should go: rename fails
	}
	if err := WriteAtomic(dst, []byte("bundle")); err == nil {
		t.Fatal("WriteAtomic over a non-empty folder succeeded")
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != 1 || entries[0].Name() != "web01.bundle" || !entries[0].IsDir() {
		t.Errorf("left behind: %v", entries)
	}

	// And a successful one leaves exactly the bundle, mode 0640.
	ok := filepath.Join(dir, "db01.bundle")
	if err := WriteAtomic(ok, []byte("bundle")); err != nil {
		t.Fatal(err)
	}
	st, err := os.Stat(ok)
	if err != nil || st.Mode().Perm() != 0o640 {
		t.Errorf("db01.bundle: %v, %v; want mode 0640", st.Mode(), err)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 2 {
		t.Errorf("left behind: %v", entries)
	}
}
