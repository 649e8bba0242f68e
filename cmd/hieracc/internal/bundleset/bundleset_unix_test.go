//go:build unix

package bundleset

import (
	"net"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestReadSpecialFiles: a FIFO or a socket named as a bundle is trouble,
// not a node without a bundle; neither is opened.
func TestReadSpecialFiles(t *testing.T) {
	dir := t.TempDir()
	if err := syscall.Mkfifo(filepath.Join(dir, "n1.bundle"), 0o600); err != nil {
		t.Skip(err)
	}
	if err := os.Mkdir(filepath.Join(dir, "s1"), 0o755); err != nil {
		t.Fatal(err)
	}
	l, err := net.Listen("unix", filepath.Join(dir, "s1", "n2.bundle"))
	if err != nil {
		t.Skip(err)
	}
	defer l.Close()
	s, bad, err := Read(dir)
	if err != nil || len(bad) != 2 || len(s.Nodes) != 0 {
		t.Fatalf("Read: %v, bad %v, nodes %v; want the FIFO and the socket reported", err, bad, s.Nodes)
	}
	for i, want := range []string{"n1.bundle: a named pipe, not a regular file", "n2.bundle: a socket, not a regular file"} {
		if !strings.Contains(bad[i].Error(), want) {
			t.Errorf("bad[%d] = %v, want %q", i, bad[i], want)
		}
	}
}
