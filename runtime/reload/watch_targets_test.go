package reload

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestWatchTargets: a path is resolved one element at a time, and every
// link met, the file, or the first element missing, is watched.
func TestWatchTargets(t *testing.T) {
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range []string{"releases/A", "store"} {
		if err := os.MkdirAll(filepath.Join(dir, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, f := range []string{"releases/A/n1.bundle", "store/x.bundle"} {
		if err := os.WriteFile(filepath.Join(dir, f), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for link, target := range map[string]string{
		"current":              "releases/A",
		"releases/A/n2.bundle": "../../store/x.bundle",
		"abs":                  filepath.Join(dir, "current"),
		"loop":                 "loop",
	} {
		if err := os.Symlink(target, filepath.Join(dir, link)); err != nil {
			t.Skip(err)
		}
	}
	rel := filepath.Join(dir, "releases")
	for _, tc := range []struct {
		path string
		want []watchTarget
	}{
		{"store/x.bundle", []watchTarget{{filepath.Join(dir, "store"), "x.bundle", false}}},
		{"current/n1.bundle", []watchTarget{{dir, "current", true}, {filepath.Join(rel, "A"), "n1.bundle", false}}},
		{"abs/n2.bundle", []watchTarget{{dir, "abs", true}, {dir, "current", true}, {filepath.Join(rel, "A"), "n2.bundle", true}, {filepath.Join(dir, "store"), "x.bundle", false}}},
		{"current/../A/n1.bundle", []watchTarget{{dir, "current", true}, {filepath.Join(rel, "A"), "n1.bundle", false}}},
		{"current/nosuch/n1.bundle", []watchTarget{{dir, "current", true}, {filepath.Join(rel, "A"), "nosuch", true}}},
		{"loop/n1.bundle", nil},
	} {
		got := watchTargets(dir + string(filepath.Separator) + filepath.FromSlash(tc.path)) // not cleaned
		if tc.path == "loop/n1.bundle" {
			if len(got) != maxLinks+1 {
				t.Errorf("%s: %d targets, want %d (the links followed, then given up)", tc.path, len(got), maxLinks+1)
			}
			continue
		}
		if d := cmp.Diff(tc.want, got, cmp.AllowUnexported(watchTarget{})); d != "" {
			t.Errorf("%s (-want +got):\n%s", tc.path, d)
		}
	}
}
