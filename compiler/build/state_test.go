package build

import (
	"errors"
	"io/fs"
	"testing"
	"testing/fstest"

	"github.com/google/go-cmp/cmp"
)

// failingFS is a MapFS whose named files and folders cannot be read.
type failingFS struct {
	fstest.MapFS
	locked map[string]bool
}

func (f failingFS) Open(name string) (fs.File, error) {
	if f.locked[name] {
		return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrPermission}
	}
	return f.MapFS.Open(name)
}

func (f failingFS) ReadDir(name string) ([]fs.DirEntry, error) {
	if f.locked[name] {
		return nil, &fs.PathError{Op: "readdir", Path: name, Err: fs.ErrPermission}
	}
	return f.MapFS.ReadDir(name)
}

// TestScanUnreadable: a file or folder that cannot be read does not stop
// the scan (a hierarchy may never name it); it is recorded as unreadable,
// and that record is never reused, so the file is read again once it can be.
func TestScanUnreadable(t *testing.T) {
	fsys := failingFS{
		MapFS: fstest.MapFS{
			"env/hiera.yaml":               {Data: []byte("version: 5\n")},
			"env/data/common.yaml":         {Data: []byte("a: 1\n")},
			"env/data/locked.yaml":         {Data: []byte("b: 1\n")},
			"env/data/private/secret.yaml": {Data: []byte("c: 1\n")},
		},
		locked: map[string]bool{"env/data/locked.yaml": true, "env/data/private": true},
	}
	files, stats, err := scanInputs(fsys, nil)
	if err != nil {
		t.Fatalf("scanInputs: %v", err)
	}
	got := map[string]bool{}
	for p, sum := range files {
		got[p] = sum == unreadable
	}
	want := map[string]bool{"env/hiera.yaml": false, "env/data/common.yaml": false, "env/data/locked.yaml": true, "env/data/private": true}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("files, unreadable or not (-want +got):\n%s", d)
	}

	// Readable again, with the same size and time: read, not trusted.
	prev := &buildState{Files: files, Stats: stats}
	fsys.locked = nil
	files, _, err = scanInputs(fsys, prev)
	if err != nil {
		t.Fatal(err)
	}
	if sum := files["env/data/locked.yaml"]; sum == unreadable || sum == "" {
		t.Errorf("a file readable again keeps the digest %q", sum)
	}

	// The tree itself unreadable is still an error.
	fsys.locked = map[string]bool{".": true}
	if _, _, err := scanInputs(fsys, nil); !errors.Is(err, fs.ErrPermission) {
		t.Errorf("an unreadable tree: %v, want a permission error", err)
	}
}
