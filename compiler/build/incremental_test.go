package build

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// copyTree copies the example fleet to a scratch folder we may change.
func copyTree(t *testing.T, src string) string {
	t.Helper()
	dst := t.TempDir()
	if err := os.CopyFS(dst, os.DirFS(src)); err != nil {
		t.Fatal(err)
	}
	return dst
}

// compileInto builds the fleet of repo into out (with cfg's options) and
// fails the test unless it succeeds.
func compileInto(t *testing.T, repo, out string, cfg ...Config) *Report {
	t.Helper()
	var c Config
	if len(cfg) > 0 {
		c = cfg[0]
	}
	c.Env, c.Modules, c.Facts, c.Out = filepath.Join(repo, "env"), filepath.Join(repo, "modules"), []string{filepath.Join(repo, "nodes")}, out
	return mustRun(t, c)
}

// mustRun builds cfg and fails the test unless the build succeeds.
func mustRun(t *testing.T, cfg Config) *Report {
	t.Helper()
	r, err := Run(context.Background(), cfg)
	if err != nil || r.Errors > 0 || !r.Committed {
		t.Fatalf("build: %v, %+v", err, r)
	}
	return r
}

func snapshot(t *testing.T, out string) map[string]os.FileInfo {
	t.Helper()
	files, _ := filepath.Glob(filepath.Join(out, "*.bundle"))
	m := map[string]os.FileInfo{}
	for _, f := range files {
		st, err := os.Stat(f)
		if err != nil {
			t.Fatal(err)
		}
		m[filepath.Base(f)] = st
	}
	return m
}

// sameBundles requires two outputs to hold byte-identical bundles.
func sameBundles(t *testing.T, a, b string) {
	t.Helper()
	sa, sb := snapshot(t, a), snapshot(t, b)
	if len(sa) != len(sb) || len(sa) == 0 {
		t.Fatalf("%d bundles vs %d", len(sa), len(sb))
	}
	for name := range sa {
		x, _ := os.ReadFile(filepath.Join(a, name))
		y, _ := os.ReadFile(filepath.Join(b, name))
		if !bytes.Equal(x, y) {
			t.Errorf("%s differs between the incremental and the full compile", name)
		}
	}
}

// compiled is the number of nodes an incremental build compiled, or -1
// for a full build.
func compiled(r *Report) int {
	if !r.Incremental {
		return -1
	}
	return r.Nodes
}

func TestIncrementalCompile(t *testing.T) {
	repo := copyTree(t, "../../testdata/example")
	out := filepath.Join(t.TempDir(), "out")
	first := compileInto(t, repo, out)
	if first.Incremental {
		t.Fatalf("the first compile cannot be incremental: %+v", first)
	}

	// An unchanged rerun compiles nothing and rewrites nothing.
	before := snapshot(t, out)
	again := compileInto(t, repo, out)
	if n := compiled(again); n != 0 {
		t.Errorf("rerun without changes: %d nodes compiled (-1: a full compile), want 0", n)
	}
	// It reports what the full compile reported (ci01's missing fact).
	if first.Warnings == 0 || first.Errors != again.Errors || first.Warnings != again.Warnings {
		t.Errorf("full compile reported %d errors, %d warnings; incremental rerun %d, %d", first.Errors, first.Warnings, again.Errors, again.Warnings)
	}
	for name, st := range snapshot(t, out) {
		if !os.SameFile(st, before[name]) {
			t.Errorf("%s was rewritten although nothing changed", name)
		}
	}

	// Change one node's data: only that node is recompiled and rewritten,
	// and the result equals a full compile.
	nodeData := filepath.Join(repo, "env", "data", "nodes", "db01.fra1.example.net.yaml")
	data, err := os.ReadFile(nodeData)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(nodeData, append(data, "\nextra::key: added\n"...), 0o644); err != nil {
		t.Fatal(err)
	}
	before = snapshot(t, out)
	got := compileInto(t, repo, out)
	if n := compiled(got); n != 1 {
		t.Errorf("after changing one node's data: %d nodes compiled (-1: a full compile), want 1", n)
	}
	for name, st := range snapshot(t, out) {
		rewritten := !os.SameFile(st, before[name])
		if rewritten != (name == "db01.fra1.example.net.bundle") {
			t.Errorf("%s: rewritten=%v", name, rewritten)
		}
	}
	full := filepath.Join(t.TempDir(), "full")
	compileInto(t, repo, full)
	sameBundles(t, out, full)

	// A change of the same size is seen too (through the file's time:
	// digests are reused only for files whose size and time are unchanged).
	data, _ = os.ReadFile(nodeData)
	same := bytes.Replace(data, []byte("extra::key: added"), []byte("extra::key: ADDED"), 1)
	if len(same) != len(data) || bytes.Equal(same, data) {
		t.Fatal("test setup: the edit must keep the size")
	}
	if err := os.WriteFile(nodeData, same, 0o644); err != nil {
		t.Fatal(err)
	}
	got = compileInto(t, repo, out)
	if n := compiled(got); n != 1 {
		t.Errorf("after a same-size edit: %d nodes compiled (-1: a full compile), want 1", n)
	}
	full = filepath.Join(t.TempDir(), "full-same")
	compileInto(t, repo, full)
	sameBundles(t, out, full)

	// Changed facts recompile that node.
	facts := filepath.Join(repo, "nodes", "web02.fra1.example.net.yaml")
	data, _ = os.ReadFile(facts)
	os.WriteFile(facts, append(data, "\nextra_fact: 1\n"...), 0o644)
	got = compileInto(t, repo, out)
	if n := compiled(got); n != 1 {
		t.Errorf("after changing one node's facts: %d nodes compiled (-1: a full compile), want 1", n)
	}

	// A new data file may match any node's path or glob: full compile.
	os.WriteFile(filepath.Join(repo, "env", "data", "nodes", "lb01.fra1.example.net.yaml"), []byte("extra::key: lb\n"), 0o644)
	got = compileInto(t, repo, out)
	if got.Incremental {
		t.Errorf("after adding a data file: %+v, want a full compile", got)
	}
	full2 := filepath.Join(t.TempDir(), "full2")
	compileInto(t, repo, full2)
	sameBundles(t, out, full2)

	// --full forces a full compile.
	if got := compileInto(t, repo, out, Config{Full: true}); got.Incremental {
		t.Errorf("Full: %+v, want a full compile", got)
	}
}

// TestIncrementalTrustsFactsStats: an incremental build does not read a
// facts file whose size and modification time are those the last build
// recorded (as make trusts timestamps, and as it does for the data): an
// edit that keeps both is not seen; a new time is.
func TestIncrementalTrustsFactsStats(t *testing.T) {
	repo := copyTree(t, "../../testdata/example")
	out := filepath.Join(t.TempDir(), "out")
	compileInto(t, repo, out)

	facts := filepath.Join(repo, "nodes", "web02.fra1.example.net.yaml")
	st, err := os.Stat(facts)
	if err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(facts)
	edited := bytes.Replace(data, []byte("web"), []byte("WEB"), 1)
	if bytes.Equal(edited, data) {
		t.Fatal("test setup: the edit changed nothing")
	}
	if err := os.WriteFile(facts, edited, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(facts, st.ModTime(), st.ModTime()); err != nil {
		t.Fatal(err)
	}
	if n := compiled(compileInto(t, repo, out)); n != 0 {
		t.Errorf("facts file with its recorded size and time: %d nodes compiled (-1: a full compile), want 0 (not read)", n)
	}

	later := st.ModTime().Add(time.Second)
	if err := os.Chtimes(facts, later, later); err != nil {
		t.Fatal(err)
	}
	if n := compiled(compileInto(t, repo, out)); n != 1 {
		t.Errorf("facts file with a new time: %d nodes compiled (-1: a full compile), want 1", n)
	}
}
