package bundleset

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestRead(t *testing.T) {
	for _, tc := range []struct {
		name  string
		files []string          // created empty under the folder read; "x/" is a folder
		want  map[string]string // node -> its file, relative to the folder read
		err   string            // part of the error; "" = none
	}{
		{name: "compile's folder",
			files: []string{"a.bundle", "b.bundle", ".hieracc-state.json", ".b.bundle.tmp-1-2", "notes.txt", ".bundle"},
			want:  map[string]string{"a": "a.bundle", "b": "b.bundle"}},
		{name: "empty", files: []string{"x/"}, want: map[string]string{}},
		{name: "a certname starting with a dot",
			files: []string{".web.bundle", "s1/.db.bundle", ".bundle/config", "a.bundle"},
			want:  map[string]string{".web": ".web.bundle", ".db": "s1/.db.bundle", "a": "a.bundle"}},
		{name: "shared details files are not bundles",
			files: []string{"a.bundle", "details/0a.details", "s1/details/0b.details"},
			want:  map[string]string{"a": "a.bundle"}},
		{name: "shards' shared details files",
			files: []string{"s1/a.bundle", "s1/details/0a.details", "s1/.hieracc-state-1-of-2.json", "s2/b.bundle", "s2/details/0a.details", "s2/.hieracc-state-2-of-2.json"},
			want:  map[string]string{"a": "s1/a.bundle", "b": "s2/b.bundle"}},
		{name: "shards' folders",
			files: []string{"s1/a.bundle", "s1/.hieracc-state-1-of-2.json", "s2/b.bundle", "s2/c.bundle", "s2/.hieracc-state-2-of-2.json"},
			want:  map[string]string{"a": "s1/a.bundle", "b": "s2/b.bundle", "c": "s2/c.bundle"}},
		{name: "shards in one folder",
			files: []string{"a.bundle", "b.bundle", ".hieracc-state-1-of-2.json", ".hieracc-state-2-of-2.json"},
			want:  map[string]string{"a": "a.bundle", "b": "b.bundle"}},
		{name: "a shard of no node",
			files: []string{"s1/a.bundle", "s1/.hieracc-state-1-of-2.json", "s2/.hieracc-state-2-of-2.json"},
			want:  map[string]string{"a": "s1/a.bundle"}},
		{name: "one level down only; staging folders skipped",
			files: []string{"s1/a.bundle", "s1/deep/b.bundle", ".stage.tmp-1-2/c.bundle"},
			want:  map[string]string{"a": "s1/a.bundle"}},
		{name: "a missing shard",
			files: []string{"s1/a.bundle", "s1/.hieracc-state-1-of-3.json", "s3/.hieracc-state-3-of-3.json"},
			err:   "holds 2 of 3 shards; missing 2/3 ("},
		{name: "the last shard missing",
			files: []string{"s1/a.bundle", "s1/.hieracc-state-1-of-2.json"},
			err:   "holds 1 of 2 shards; missing 2/2 ("},
		{name: "shards split differently",
			files: []string{"s1/.hieracc-state-1-of-2.json", "s2/.hieracc-state-2-of-2.json", "s3/.hieracc-state-1-of-3.json"},
			err:   "holds shards of compiles split differently (1/2, 1/3, 2/2)"},
		{name: "a shard twice",
			files: []string{"s1/.hieracc-state-1-of-1.json", "t1/.hieracc-state-1-of-1.json"},
			err:   "shard 1/1 is in"},
		{name: "a node twice",
			files: []string{"a.bundle", "s1/a.bundle", "s2/b.bundle", "s3/b.bundle"},
			err:   "node a has two bundles: DIR/a.bundle and DIR/s1/a.bundle; node b has two bundles: DIR/s2/b.bundle and DIR/s3/b.bundle: give each shard's folder once"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			for _, f := range tc.files {
				p := filepath.Join(dir, f)
				if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
					t.Fatal(err)
				}
				if strings.HasSuffix(f, "/") {
					continue
				}
				if err := os.WriteFile(p, nil, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			s, bad, err := Read(dir)
			if tc.err != "" {
				want := strings.ReplaceAll(tc.err, "DIR", dir)
				if err == nil || !strings.Contains(err.Error(), want) {
					t.Fatalf("Read: %v; want an error with %q", err, want)
				}
				return
			}
			if err != nil || len(bad) > 0 {
				t.Fatalf("Read: %v, %v", err, bad)
			}
			got := map[string]string{}
			for _, n := range s.Nodes {
				rel, _ := filepath.Rel(dir, s.File(n))
				got[n] = filepath.ToSlash(rel)
				if !s.Has(n) {
					t.Errorf("Has(%q) = false", n)
				}
			}
			if d := cmp.Diff(tc.want, got); d != "" {
				t.Errorf("bundles (-want +got):\n%s", d)
			}
			if s.Has("nosuch") || s.File("nosuch") != filepath.Join(dir, "nosuch.bundle") {
				t.Errorf("a node without a bundle: Has %v, File %s", s.Has("nosuch"), s.File("nosuch"))
			}
		})
	}
}

func TestReadNotAFolder(t *testing.T) {
	f := filepath.Join(t.TempDir(), "a.bundle")
	if err := os.WriteFile(f, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, _, err := Read(f); err == nil || !strings.Contains(err.Error(), "not a folder") {
		t.Errorf("Read of a file: %v", err)
	}
	if _, _, err := Read(filepath.Join(t.TempDir(), "nosuch")); err == nil {
		t.Error("Read of nothing: no error")
	}
}

// TestReadBadLinks: a link named as a bundle that leads nowhere, or to
// something not a file, is reported, not opened.
func TestReadBadLinks(t *testing.T) {
	dir := t.TempDir()
	if err := os.Symlink(filepath.Join(dir, "nosuch"), filepath.Join(dir, "a.bundle")); err != nil {
		t.Skip(err)
	}
	if err := os.Mkdir(filepath.Join(dir, "s1"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(dir, filepath.Join(dir, "s1", "b.bundle")); err != nil {
		t.Fatal(err)
	}
	s, bad, err := Read(dir)
	if err != nil || len(bad) != 2 || len(s.Nodes) != 0 {
		t.Errorf("Read: %v, bad %v, nodes %v; want the two links reported", err, bad, s.Nodes)
	}
}

// TestReadNotFiles: an entry named as a bundle that is not a regular file
// (a folder, here; a FIFO and a socket in the Unix test) is reported,
// never skipped as if the node had no bundle.
func TestReadNotFiles(t *testing.T) {
	dir := t.TempDir()
	for _, d := range []string{"n1.bundle", "s1/n2.bundle", ".n3.bundle"} {
		if err := os.MkdirAll(filepath.Join(dir, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	s, bad, err := Read(dir)
	if err != nil || len(bad) != 3 || len(s.Nodes) != 0 {
		t.Fatalf("Read: %v, bad %v, nodes %v; want the three folders reported", err, bad, s.Nodes)
	}
	for _, e := range bad {
		if !strings.Contains(e.Error(), "a folder, not a regular file") {
			t.Errorf("bad: %v", e)
		}
	}
}
