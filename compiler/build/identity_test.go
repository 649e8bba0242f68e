package build

import (
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// The state names what a build read as it really is: the same files
// under another spelling are the same (no compile), other files under
// the same spelling are other (read again), and a workspace moved whole
// (a CI cache restored at another path) still compiles incrementally.

// sameTimes gives every file of dst the modification time of the file of
// src at the same place, as tar, rsync -a or normalised times do.
func sameTimes(t *testing.T, src, dst string) {
	t.Helper()
	err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		st, err := os.Stat(p)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		return os.Chtimes(filepath.Join(dst, rel), st.ModTime(), st.ModTime())
	})
	if err != nil {
		t.Fatal(err)
	}
}

// editSameSize changes a byte of a facts file of repo, keeping its size.
func editSameSize(t *testing.T, repo, node string) {
	t.Helper()
	p := filepath.Join(repo, "nodes", node+".yaml")
	data, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	edited := bytes.Replace(data, []byte("fra1"), []byte("FRA1"), 1)
	if bytes.Equal(edited, data) {
		t.Fatal("test setup: the edit changed nothing")
	}
	if err := os.WriteFile(p, edited, 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestIncrementalSpelling: the same folders named relative to the working
// directory, then absolute, then through a link, compile nothing, and
// report what the first compile reported, once, named as now given.
func TestIncrementalSpelling(t *testing.T) {
	ws := t.TempDir()
	repo := filepath.Join(ws, "cr")
	if err := os.CopyFS(repo, os.DirFS("../../testdata/example")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("cr", filepath.Join(ws, "link")); err != nil {
		t.Skip(err)
	}
	t.Chdir(ws)
	out := filepath.Join(ws, "out")
	cfg := func(root string) Config {
		return Config{Env: filepath.Join(root, "env"), Modules: filepath.Join(root, "modules"), Facts: []string{filepath.Join(root, "facts")}, Out: out}
	}
	if err := os.Rename(filepath.Join(repo, "nodes"), filepath.Join(repo, "facts")); err != nil {
		t.Fatal(err)
	}
	first := mustRun(t, cfg("cr"))
	if first.Warnings == 0 {
		t.Fatal("test setup: the example reports a warning")
	}
	for _, root := range []string{filepath.Join(ws, "cr"), "link", "cr"} {
		r := mustRun(t, cfg(root))
		if n := compiled(r); n != 0 {
			t.Errorf("--facts %s/facts: %d nodes compiled (-1: a full compile), want 0", root, n)
		}
		if r.Warnings != first.Warnings || r.Errors != first.Errors {
			t.Errorf("--facts %s/facts: %d warnings, %d errors; the first compile %d, %d", root, r.Warnings, r.Errors, first.Warnings, first.Errors)
		}
		for _, d := range r.Diagnostics {
			if d.File != "" && !filepath.IsAbs(d.File) == filepath.IsAbs(root) {
				t.Errorf("--env %s/env: a diagnostic names %s", root, d.File)
			}
		}
	}
}

// TestIncrementalSwitchedFacts: --facts through a link switched to
// another folder whose files have the same sizes and times, or the same
// relative --facts from another working directory, reads the other files.
func TestIncrementalSwitchedFacts(t *testing.T) {
	for _, how := range []string{"link", "cwd"} {
		t.Run(how, func(t *testing.T) {
			a := copyTree(t, "../../testdata/example")
			b := copyTree(t, "../../testdata/example")
			editSameSize(t, b, "web02.fra1.example.net")
			sameTimes(t, a, b)
			out := filepath.Join(t.TempDir(), "out")
			env, modules := filepath.Join(a, "env"), filepath.Join(a, "modules")
			cfg := Config{Env: env, Modules: modules, Facts: []string{"nodes"}, Out: out}
			switch how {
			case "link":
				dir := t.TempDir()
				t.Chdir(dir)
				if err := os.Symlink(filepath.Join(a, "nodes"), "nodes"); err != nil {
					t.Skip(err)
				}
				mustRun(t, cfg)
				if err := os.Remove("nodes"); err != nil {
					t.Fatal(err)
				}
				if err := os.Symlink(filepath.Join(b, "nodes"), "nodes"); err != nil {
					t.Fatal(err)
				}
			case "cwd":
				t.Chdir(a)
				mustRun(t, cfg)
				t.Chdir(b)
			}
			if n := compiled(mustRun(t, cfg)); n != 1 {
				t.Errorf("other facts files, same sizes and times: %d nodes compiled (-1: a full compile), want 1", n)
			}
			full := filepath.Join(t.TempDir(), "full")
			mustRun(t, Config{Env: env, Modules: modules, Facts: []string{filepath.Join(b, "nodes")}, Out: full})
			sameBundles(t, out, full)
		})
	}
}

// TestIncrementalMovedWorkspace: a CI workspace (control repo, facts and
// the compile's output, restored from a cache) at another absolute path
// compiles incrementally: nothing when nothing changed, one node when its
// facts did, as a full compile would.
func TestIncrementalMovedWorkspace(t *testing.T) {
	ws1 := filepath.Join(t.TempDir(), "ws1")
	if err := os.CopyFS(filepath.Join(ws1, "repo"), os.DirFS("../../testdata/example")); err != nil {
		t.Fatal(err)
	}
	cfg := func(ws string) Config {
		return Config{Env: filepath.Join(ws, "repo", "env"), Modules: filepath.Join(ws, "repo", "modules"),
			Facts: []string{filepath.Join(ws, "repo", "nodes")}, Out: filepath.Join(ws, "out")}
	}
	first := mustRun(t, cfg(ws1))
	// Restored elsewhere: new files (new inodes), other times.
	ws2 := filepath.Join(t.TempDir(), "elsewhere", "ws2")
	time.Sleep(10 * time.Millisecond)
	if err := os.CopyFS(ws2, os.DirFS(ws1)); err != nil {
		t.Fatal(err)
	}
	r := mustRun(t, cfg(ws2))
	if n := compiled(r); n != 0 {
		t.Errorf("the workspace moved: %d nodes compiled (-1: a full compile), want 0", n)
	}
	if r.Warnings != first.Warnings {
		t.Errorf("the workspace moved: %d warnings, the first compile %d", r.Warnings, first.Warnings)
	}
	editSameSize(t, filepath.Join(ws2, "repo"), "web02.fra1.example.net")
	if n := compiled(mustRun(t, cfg(ws2))); n != 1 {
		t.Errorf("the workspace moved, a node's facts changed: %d nodes compiled (-1: a full compile), want 1", n)
	}
	full := filepath.Join(t.TempDir(), "full")
	c := cfg(ws2)
	c.Out = full
	mustRun(t, c)
	sameBundles(t, cfg(ws2).Out, full)
	var got []string
	for _, d := range r.Diagnostics {
		got = append(got, d.File)
	}
	if slices.ContainsFunc(got, func(f string) bool { return f != "" && !filepath.IsAbs(f) }) {
		t.Errorf("diagnostics name %s", cmp.Diff(nil, got))
	}
}

// TestIncrementalRecloned: the control repo removed and cloned again at
// the same path, its files with the sizes and times of the old ones (as
// tar, rsync -a or normalised times give) but one of them other: the
// files are other files (inodes), read again, not trusted by their stats.
func TestIncrementalRecloned(t *testing.T) {
	repo := copyTree(t, "../../testdata/example")
	other := copyTree(t, "../../testdata/example")
	common := filepath.Join(other, "env", "data", "common.yaml")
	data, err := os.ReadFile(common)
	if err != nil {
		t.Fatal(err)
	}
	changed := bytes.Replace(data, []byte("/usr/sbin/nologin"), []byte("/usr/sbin/NOLOGIN"), 1)
	if bytes.Equal(changed, data) {
		t.Fatal("test setup: the edit changed nothing")
	}
	if err := os.WriteFile(common, changed, 0o644); err != nil {
		t.Fatal(err)
	}
	sameTimes(t, repo, other)
	out := filepath.Join(t.TempDir(), "out")
	compileInto(t, repo, out)
	if err := os.RemoveAll(repo); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(other, repo); err != nil {
		t.Fatal(err)
	}
	compileInto(t, repo, out)
	full := filepath.Join(t.TempDir(), "full")
	compileInto(t, repo, full)
	sameBundles(t, out, full)
}
