//go:build unix

package bundlediff

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestSpecialFiles: a *.bundle link to a FIFO or a device is refused, never
// opened (a FIFO would block forever).
func TestSpecialFiles(t *testing.T) {
	old := writeDir(t, node("web01", key("a", "x")))
	dir := writeDir(t, node("web01", key("a", "x")))
	fifo := filepath.Join(t.TempDir(), "fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	os.Symlink(fifo, filepath.Join(dir, "fifo01.bundle"))
	os.Symlink("/dev/zero", filepath.Join(dir, "zero01.bundle"))
	done := make(chan error, 1)
	go func() { _, err := Compare(old, dir, Filter{}); done <- err }()
	select {
	case err := <-done:
		for _, want := range []string{"fifo01.bundle: a named pipe, not a regular file", "zero01.bundle: a device, not a regular file"} {
			if err == nil || !strings.Contains(err.Error(), want) {
				t.Errorf("Compare = %v; want it to say %q", err, want)
			}
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Compare blocks on a FIFO")
	}
}
