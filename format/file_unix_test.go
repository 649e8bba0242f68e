//go:build unix

package format_test

import (
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/hieracc/hieracc/format"
)

// TestReadFileFIFO: a named pipe is refused, not opened: opening one for
// reading blocks until a writer comes, which may be never.
func TestReadFileFIFO(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "n.bundle")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skip("no named pipes here:", err)
	}
	for op, f := range map[string]func(string) error{
		"ReadFile":   func(n string) error { _, err := format.ReadFile(n); return err },
		"VerifyFile": func(n string) error { _, err := format.VerifyFile(n); return err },
	} {
		done := make(chan error, 1)
		go func() { done <- f(fifo) }()
		select {
		case err := <-done:
			if err == nil || !strings.Contains(err.Error(), "a named pipe, not a regular file") {
				t.Errorf("%s of a named pipe: %v", op, err)
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("%s of a named pipe still blocks after 10 s", op)
		}
	}
}
