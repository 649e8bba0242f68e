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
		"ReadRegular": func(n string) error {
			_, err := format.ReadRegular(n, 1<<20)
			return err
		},
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

// TestReadRegularSpecial: ReadRegular refuses what is not a regular file,
// naming what it is and the path, and never reads it: /dev/zero would
// never end.
func TestReadRegularSpecial(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct{ name, want string }{
		{"/dev/zero", "a device, not a regular file"},
		{"/dev/null", "a device, not a regular file"},
		{dir, "a folder, not a regular file"},
	} {
		_, err := format.ReadRegular(tc.name, 1<<20)
		if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), tc.name) {
			t.Errorf("ReadRegular(%s) = %v, want an error naming it: %s", tc.name, err, tc.want)
		}
	}
}
