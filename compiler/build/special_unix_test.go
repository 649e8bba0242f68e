//go:build unix

package build

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/hieracc/hieracc/compiler/diagnostics"
)

// TestSpecialFiles: a named pipe or a device where a facts file or the
// state file should be must neither block the build nor exhaust its
// memory: the facts are an error for their node, the state is ignored.
func TestSpecialFiles(t *testing.T) {
	example, err := filepath.Abs("../../testdata/example")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	facts := filepath.Join(dir, "facts")
	if err := os.CopyFS(facts, os.DirFS(filepath.Join(example, "nodes"))); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(filepath.Join(facts, "fifo01.yaml"), 0o600); err != nil {
		t.Skip("no named pipes here:", err)
	}
	special := map[string]string{"fifo01": "a named pipe"}
	if _, err := os.Stat("/dev/zero"); err == nil {
		if err := os.Symlink("/dev/zero", filepath.Join(facts, "zero01.yaml")); err != nil {
			t.Fatal(err)
		}
		special["zero01"] = "a device"
	}
	out := filepath.Join(dir, "out")
	cfg := Config{Env: filepath.Join(example, "env"), Modules: filepath.Join(example, "modules"), Facts: []string{facts}, Out: out, KeepGoing: true}
	build := func(what string) *Report {
		t.Helper()
		type result struct {
			r   *Report
			err error
		}
		done := make(chan result, 1)
		go func() { r, err := Run(context.Background(), cfg); done <- result{r, err} }()
		select {
		case res := <-done:
			if res.err != nil {
				t.Fatalf("%s: %v", what, res.err)
			}
			return res.r
		case <-time.After(60 * time.Second):
			t.Fatalf("%s: the build still runs after 60 s", what)
			return nil
		}
	}

	r := build("special facts files")
	for node, want := range special {
		found := false
		for _, d := range r.Facts {
			msg := d.String()
			found = found || d.Severity == diagnostics.Error && strings.Contains(msg, node+".yaml") && strings.Contains(msg, want)
		}
		if !found {
			t.Errorf("no error for %s.yaml naming %s: %v", node, want, r.Facts)
		}
	}
	if r.Nodes != 8 || r.Written != 8 {
		t.Errorf("%d nodes compiled, %d bundles written; want the 8 others", r.Nodes, r.Written)
	}

	// A named pipe as the state file: a full build, which replaces it.
	state := filepath.Join(out, StateFile)
	if err := os.Remove(state); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(state, 0o600); err != nil {
		t.Fatal(err)
	}
	if r := build("a named pipe as the state file"); r.Incremental || r.Written != 8 {
		t.Errorf("with a named pipe as the state file: incremental %v, %d written; want a full build", r.Incremental, r.Written)
	}
	if st, err := os.Stat(state); err != nil || !st.Mode().IsRegular() {
		t.Errorf("the state file after the build: %v, %v", st, err)
	}
}
