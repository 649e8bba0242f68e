//go:build unix

package runtime_test

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/hieracc/hieracc/format"
	"github.com/hieracc/hieracc/format/encode"
	"github.com/hieracc/hieracc/runtime"
	"github.com/hieracc/hieracc/runtime/reload"
)

// TestOpenSpecialFiles: Open, reload.NewFile and Reload read only regular
// files: a named pipe must not block an agent, a device such as /dev/zero
// must not exhaust its memory. A reloader keeps its bundle.
func TestOpenSpecialFiles(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo.bundle")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skip("no named pipes here:", err)
	}
	files := map[string]string{fifo: "a named pipe"}
	if _, err := os.Stat("/dev/zero"); err == nil {
		files["/dev/zero"] = "a device"
	}
	good := filepath.Join(dir, "n.bundle")
	data, err := encode.Encode(&format.Bundle{Node: "n", Revision: "r1", Keys: []format.Key{{Name: "k", Value: "v1"}}})
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(good, data, 0o644); err != nil {
		t.Fatal(err)
	}
	within := func(what string, f func() error) error {
		t.Helper()
		done := make(chan error, 1)
		go func() { done <- f() }()
		select {
		case err := <-done:
			return err
		case <-time.After(10 * time.Second):
			t.Fatalf("%s still blocks after 10 s", what)
			return nil
		}
	}
	for file, want := range files {
		err := within("Open("+file+")", func() error { _, err := runtime.Open(file); return err })
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Open(%s) = %v, want an error naming %s", file, err, want)
		}
		err = within("reload.NewFile("+file+")", func() error { _, err := reload.NewFile(file); return err })
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("reload.NewFile(%s) = %v, want an error naming %s", file, err, want)
		}
	}

	// A reloader whose file is replaced by a named pipe keeps its bundle.
	r, err := reload.NewFile(good)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(fifo, good); err != nil {
		t.Fatal(err)
	}
	err = within("Reload", func() error { _, err := r.Reload(); return err })
	if err == nil || !strings.Contains(err.Error(), "a named pipe") {
		t.Errorf("Reload of a named pipe = %v", err)
	}
	if v, err := r.Bundle().Lookup("k"); err != nil || v != "v1" {
		t.Errorf("after a failed reload, k = %v, %v; want the old bundle's v1", v, err)
	}
}
