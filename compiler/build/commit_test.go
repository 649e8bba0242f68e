package build

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestRemovedFacts: the bundle of a node whose facts file is gone is
// removed by the next build, in the same commit; not when some facts
// could not be read (they may be that node's).
func TestRemovedFacts(t *testing.T) {
	repo := copyTree(t, "../../testdata/example")
	out := filepath.Join(t.TempDir(), "out")
	compileInto(t, repo, out)
	// Not hieracc's, though named *.bundle: never removed.
	gitBundle := filepath.Join(out, "repo.bundle")
	if err := os.WriteFile(gitBundle, []byte("# v2 git bundle\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	gone := "web02.fra1.example.net"
	if err := os.Remove(filepath.Join(repo, "nodes", gone+".yaml")); err != nil {
		t.Fatal(err)
	}

	// Facts that cannot be read: nothing is removed.
	cfg := Config{Env: filepath.Join(repo, "env"), Modules: filepath.Join(repo, "modules"),
		Facts: []string{filepath.Join(repo, "nodes"), filepath.Join(repo, "nosuch")}, Out: out, KeepGoing: true}
	r, err := Run(context.Background(), cfg)
	if err != nil || r.Removed != 0 {
		t.Fatalf("with facts that cannot be read: %d removed, %v; want none", r.Removed, err)
	}
	if _, err := os.Stat(filepath.Join(out, gone+".bundle")); err != nil {
		t.Errorf("the bundle of %s went, though some facts could not be read: %v", gone, err)
	}

	r = compileInto(t, repo, out)
	if r.Removed != 1 || r.Nodes != 0 {
		t.Errorf("after removing the facts of %s: %d nodes compiled, %d bundles removed; want 0 and 1", gone, r.Nodes, r.Removed)
	}
	if _, err := os.Stat(filepath.Join(out, gone+".bundle")); !os.IsNotExist(err) {
		t.Errorf("the bundle of %s is still there: %v", gone, err)
	}
	if _, err := os.Stat(gitBundle); err != nil {
		t.Errorf("a file named *.bundle that is not a bundle was removed: %v", err)
	}
	if err := os.Remove(gitBundle); err != nil {
		t.Fatal(err)
	}
	full := filepath.Join(t.TempDir(), "full")
	compileInto(t, repo, full)
	sameBundles(t, out, full)
}

// TestFolderAtBundlePath: a folder where a bundle goes fails the build
// before any bundle is renamed: Out holds one generation, not a mix.
func TestFolderAtBundlePath(t *testing.T) {
	repo := copyTree(t, "../../testdata/example")
	out := filepath.Join(t.TempDir(), "out")
	compileInto(t, repo, out)
	before := snapshot(t, out)
	// The last bundle renamed (in name order, as staged by one job): the
	// others would be renamed first.
	blocked := filepath.Join(out, "web03.ams2.example.net.bundle")
	if err := os.Remove(blocked); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(blocked, "something"), 0o755); err != nil {
		t.Fatal(err)
	}
	r, err := Run(context.Background(), Config{Env: filepath.Join(repo, "env"), Modules: filepath.Join(repo, "modules"),
		Facts: []string{filepath.Join(repo, "nodes")}, Out: out, Full: true, Jobs: 1})
	if err == nil || !strings.Contains(err.Error(), blocked+" is a folder, where the bundle of node web03.ams2.example.net goes; nothing written") {
		t.Fatalf("a folder at a bundle's path: %+v, %v; want an error naming it", r, err)
	}
	for name, st := range snapshot(t, out) {
		if name != filepath.Base(blocked) && !os.SameFile(st, before[name]) {
			t.Errorf("%s was replaced by a build that failed", name)
		}
	}
}
