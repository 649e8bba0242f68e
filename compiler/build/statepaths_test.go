package build

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestStatePaths: the folders a build read, from its state, map the paths
// its bundles record to the repository's, through show; also once the
// folders and the output moved together, not once the folders are gone.
func TestStatePaths(t *testing.T) {
	root := t.TempDir()
	repo := filepath.Join(root, "repo")
	if err := os.CopyFS(repo, os.DirFS("../../testdata/example")); err != nil {
		t.Fatal(err)
	}
	conf := filepath.Join(root, "conf")
	if err := os.MkdirAll(conf, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(conf, "hiera-global.yaml"), []byte("version: 5\nhierarchy: []\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(root, "out")
	mustRun(t, Config{Env: filepath.Join(repo, "env"), Modules: filepath.Join(repo, "modules"), Global: filepath.Join(conf, "hiera-global.yaml"),
		Mounts: []string{"/srv/hiera=" + filepath.Join(repo, "env")}, Facts: []string{filepath.Join(repo, "nodes")}, Out: out})

	// show names each folder from root; it cannot place conf.
	show := func(top string) func(string) string {
		return func(p string) string {
			rel, err := filepath.Rel(top, p)
			if err != nil || strings.HasPrefix(rel, "conf") {
				return ""
			}
			return rel
		}
	}
	want := map[string]string{
		"env/data/common.yaml":           filepath.Join("repo", "env", "data", "common.yaml"),
		"env":                            filepath.Join("repo", "env"),
		"modules/ntp/data/common.yaml":   filepath.Join("repo", "modules", "ntp", "data", "common.yaml"),
		"global/hiera.yaml":              "global/hiera.yaml", // not shown: the compiler's name
		"elsewhere/data/common.yaml":     "elsewhere/data/common.yaml",
		"environment/data/common.yaml":   "environment/data/common.yaml",
		"modules-old/ntp/data/this.yaml": "modules-old/ntp/data/this.yaml",
		"mount/srv/hiera/data/x.yaml":    "mount/srv/hiera/data/x.yaml", // the server's path, as DisplayPaths keeps it
	}
	check := func(name, state, top string) {
		t.Helper()
		display, ok := StatePaths(state, show(top))
		if !ok {
			t.Fatalf("%s: no display", name)
		}
		got := map[string]string{}
		for in := range want {
			got[in] = display(in)
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("%s (-want +got):\n%s", name, diff)
		}
	}
	check("in place", filepath.Join(out, StateFile), root)

	// Moved together: the state's folders are relative to the output.
	moved := filepath.Join(t.TempDir(), "moved")
	if err := os.Rename(root, moved); err != nil {
		t.Fatal(err)
	}
	check("moved", filepath.Join(moved, "out", StateFile), moved)

	// The folders gone, or none shown: nothing to map with.
	if err := os.RemoveAll(filepath.Join(moved, "repo")); err != nil {
		t.Fatal(err)
	}
	if d, ok := StatePaths(filepath.Join(moved, "out", StateFile), show(moved)); ok || d != nil {
		t.Error("the folders gone: a display all the same")
	}
	for _, bad := range []string{
		"",
		"not json",
		`{"version":8,"read":"env=."}`, // another hieracc's
		`{"version":9}`,
		`{"read":"env=.","version":"9"}`,
		`[]`,
	} {
		p := filepath.Join(t.TempDir(), StateFile)
		if err := os.WriteFile(p, []byte(bad), 0o600); err != nil {
			t.Fatal(err)
		}
		if _, ok := StatePaths(p, func(string) string { return "." }); ok {
			t.Errorf("state %q: a display", bad)
		}
	}
	if _, ok := StatePaths(filepath.Join(t.TempDir(), StateFile), func(string) string { return "." }); ok {
		t.Error("no state: a display")
	}
}

func TestSplitRead(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want [][2]string
	}{
		{"env=../repo;modules=../mods", [][2]string{{"env", "../repo"}, {"modules", "../mods"}}},
		{"env=../a;b;global=/etc/x;global/hiera.yaml=/etc/x/h.yaml;mount/srv/data=d;--pkcs7-private-key=abc",
			[][2]string{{"env", "../a;b"}, {"global", "/etc/x"}, {"global/hiera.yaml", "/etc/x/h.yaml"}, {"mount/srv/data", "d"}, {"--pkcs7-private-key", "abc"}}},
		{"env/conf/hiera.yaml=../c.yaml;env=../r", [][2]string{{"env/conf/hiera.yaml", "../c.yaml"}, {"env", "../r"}}},
		{"junk;env=x", [][2]string{{"env", "x"}}},
		{"", nil},
	} {
		if diff := cmp.Diff(tc.want, splitRead(tc.in)); diff != "" {
			t.Errorf("splitRead(%q) (-want +got):\n%s", tc.in, diff)
		}
	}
}

// FuzzStatePaths: whatever a state file holds, reading the folders it
// names never panics, and maps only paths under a folder that exists.
func FuzzStatePaths(f *testing.F) {
	f.Add([]byte(`{"version":9,"binary":"b","settings":"s","read":"env=.;modules=../m;global/hiera.yaml=x;--k=1","files":{}}`))
	f.Add([]byte(`{"files":{"a":"b"},"read":"env=.","version":9}`))
	f.Add([]byte(`{"version":9,"read":"env=;;=;env/x/hiera.yaml=.","files":[`))
	dir := f.TempDir()
	p := filepath.Join(dir, StateFile)
	f.Fuzz(func(t *testing.T, data []byte) {
		if err := os.WriteFile(p, data, 0o600); err != nil {
			t.Fatal(err)
		}
		display, ok := StatePaths(p, func(string) string { return "shown" })
		if !ok {
			return
		}
		for _, in := range []string{"env/data/common.yaml", "modules/a", "global/hiera.yaml", "x"} {
			if got := display(in); got != in && !strings.HasPrefix(got, "shown") {
				t.Errorf("display(%q) = %q", in, got)
			}
		}
	})
}
