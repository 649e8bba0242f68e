//go:build unix

package build

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hieracc/hieracc/compiler/build/internal/stage"
)

// TestOneBuildPerOut: while a build holds Out, another fails at once
// with a clear message and changes nothing there; once the lock is
// released, a build runs. A build that fails removes an Out it created.
func TestOneBuildPerOut(t *testing.T) {
	example, err := filepath.Abs("../../testdata/example")
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "out")
	compileInto(t, example, out)
	before := snapshot(t, out)

	held, err := stage.LockDir(out) // as another process would: flock is per open file
	if err != nil {
		t.Fatal(err)
	}
	cfg := Config{Env: filepath.Join(example, "env"), Modules: filepath.Join(example, "modules"),
		Facts: []string{filepath.Join(example, "nodes")}, Out: out, Full: true}
	r, err := Run(context.Background(), cfg)
	if !errors.Is(err, stage.ErrLocked) || !strings.Contains(err.Error(), "--out "+out+": another hieracc run is writing to this folder") {
		t.Fatalf("a build into a locked Out: %+v, %v; want ErrLocked", r, err)
	}
	for name, st := range snapshot(t, out) {
		if !os.SameFile(st, before[name]) {
			t.Errorf("%s was rewritten by the build that found Out locked", name)
		}
	}
	held.Release(true)
	if r := mustRun(t, cfg); r.Written != 8 {
		t.Errorf("after the lock was released: %d bundles written, want 8", r.Written)
	}

	// A build that writes nothing leaves no Out behind.
	fresh := filepath.Join(t.TempDir(), "fresh")
	cfg.Out, cfg.Facts = fresh, []string{filepath.Join(t.TempDir(), "nosuch")}
	if r, err := Run(context.Background(), cfg); err != nil || r.Committed {
		t.Fatalf("a build without facts: %+v, %v; want errors and nothing written", r, err)
	}
	if _, err := os.Stat(fresh); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a failed build left Out behind: %v", err)
	}
}
