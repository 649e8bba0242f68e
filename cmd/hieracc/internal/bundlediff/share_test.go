package bundlediff

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/hieracc/hieracc/format"
	"github.com/hieracc/hieracc/format/encode"
)

// writeSharedDir writes bundles as compile does: each with its details
// continued in a shared details file (details/<digest>.details), one for
// every bundle with the same shared details.
func writeSharedDir(t testing.TB, bundles ...*format.Bundle) string {
	t.Helper()
	dir := t.TempDir()
	if err := os.Mkdir(filepath.Join(dir, "details"), 0o755); err != nil {
		t.Fatal(err)
	}
	enc := encode.NewEncoder()
	for _, b := range bundles {
		data, sd, err := enc.AppendShared(nil, b, encode.Protection{})
		if err != nil {
			t.Fatalf("encoding %s: %v", b.Node, err)
		}
		if sd != nil {
			if err := os.WriteFile(filepath.Join(dir, filepath.FromSlash(format.SharedDetailsName(sd.Digest))), sd.Data, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		if err := os.WriteFile(filepath.Join(dir, b.Node+".bundle"), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// sliceFleet is 24 nodes of three roles (web, db, cache: the role level's
// file differs), in OLD and NEW: common data changed on every node, a
// role's data on web nodes, each node's own data on some, a value that
// interpolates the node's name, deep merges, secrets, errors, added and
// removed keys. Nodes web00 and web01 of role "web" read their role data
// from roles/web-a.yaml and roles/web-b.yaml, files of the same content:
// the same shared details, other sources.
func sliceFleet(newSide bool) []*format.Bundle {
	var out []*format.Bundle
	for i := range 24 {
		role := []string{"web", "db", "cache"}[i%3]
		name := fmt.Sprintf("%s%02d", role, i/3)
		b := node(name)
		roleFile := "env/data/roles/" + role + ".yaml"
		switch name {
		case "web00":
			roleFile = "env/data/roles/web-a.yaml"
		case "web01":
			roleFile = "env/data/roles/web-b.yaml"
		}
		b.Env.Levels[lvRole].Locations[0].Path = roleFile

		pick := func(old, new any) any {
			if newSide {
				return new
			}
			return old
		}
		// common data, changed everywhere
		motd := pick("Welcome", "Welcome!")
		ks := []format.Key{key("motd", motd, at(lvCommon, 3, motd))}
		// role data, changed on web only
		port := any(int64(5432))
		if role == "web" {
			port = pick(int64(5432), int64(6432))
		}
		ks = append(ks, key("app::port", port, at(lvRole, 7, port), at(lvCommon, 9, int64(80))))
		// a deep merge of role and common, one entry changed in common
		roleUsers := hash("deploy", hash("uid", int64(2000)))
		commonUsers := hash("backup", hash("uid", int64(34), "shell", pick("/usr/sbin/nologin", "/bin/false")))
		merged := hash("deploy", hash("uid", int64(2000)), "backup", hash("uid", int64(34), "shell", pick("/usr/sbin/nologin", "/bin/false")))
		ks = append(ks, deep("accounts::users", merged, at(lvRole, 12, roleUsers), at(lvCommon, 43, commonUsers)))
		// the node's own data: changed on every fourth node
		own := any(fmt.Sprintf("%s.example.net", name))
		if i%4 == 0 {
			own = pick(own, fmt.Sprintf("%s.example.org", name))
		}
		c := at(lvNode, 2, own)
		c.Bound = true
		ks = append(ks, key("network::fqdn", own, c))
		// a value interpolating the node's name from common.yaml (bound)
		url := fmt.Sprintf("https://%s/%s", name, pick("v1", "v2"))
		c = at(lvCommon, 20, url)
		c.Bound = true
		ks = append(ks, key("app::url", url, c))
		// a secret, changed in common
		s := key("db::password", pick("hunter2", "hunter3"), at(lvCommon, 30, pick("hunter2", "hunter3")))
		s.Secret = true
		ks = append(ks, s)
		// an error that appears on cache nodes
		if role == "cache" && newSide {
			ks = append(ks, failed("cache::size", "Evaluation Error: Unknown variable: 'memory'"))
		} else {
			ks = append(ks, key("cache::size", int64(64), at(lvCommon, 50, int64(64))))
		}
		// a key removed, a key added
		if newSide {
			ks = append(ks, key("zz::added", arr("a", "b"), at(lvCommon, 60, arr("a", "b"))))
		} else {
			ks = append(ks, key("aa::removed", true, at(lvCommon, 61, true)))
		}
		// unchanged keys, some sharing values
		for j := range 20 {
			v := any(hash("n", int64(j%5), "list", arr("x", "y")))
			ks = append(ks, key(fmt.Sprintf("unchanged::k%02d", j), v, at(lvCommon, 100+j, v)))
		}
		b.Keys = sortKeys(ks)
		out = append(out, b)
	}
	return out
}

func sortKeys(ks []format.Key) []format.Key {
	for i := 1; i < len(ks); i++ {
		for j := i; j > 0 && ks[j].Name < ks[j-1].Name; j-- {
			ks[j], ks[j-1] = ks[j-1], ks[j]
		}
	}
	return ks
}

// countDetails counts the bundles decoded whole (with all of their
// details) while the test runs.
func countDetails(t *testing.T) *atomic.Int64 {
	var n atomic.Int64
	orig := details
	details = func(file string) (*format.Bundle, error) { n.Add(1); return orig(file) }
	t.Cleanup(func() { details = orig })
	return &n
}

// TestSharedFastPath checks that nodes whose bundles differ are compared
// without decoding their whole details (only the keys that differ), and
// that the report is the one the whole bundles give (the slow path), for
// the nodes of several slices, under filters.
func TestSharedFastPath(t *testing.T) {
	old, new := writeSharedDir(t, sliceFleet(false)...), writeSharedDir(t, sliceFleet(true)...)
	for _, f := range []Filter{
		{},
		{ShowSecrets: true},
		{Keys: []string{"app::*", "motd"}},
		{IgnoreKeys: []string{"motd"}, Nodes: []string{"web*", "db0[1-3]"}},
	} {
		t.Run(fmt.Sprintf("%+v", f), func(t *testing.T) {
			decoded := countDetails(t)
			fast, err := Compare(old, new, f)
			if err != nil {
				t.Fatal(err)
			}
			if n := decoded.Load(); n != 0 {
				t.Errorf("%d bundles decoded whole, want 0", n)
			}
			if !fast.Differs() {
				t.Fatal("no difference found")
			}
			fastPath = false
			defer func() { fastPath = true }()
			slow, err := Compare(old, new, f)
			if err != nil {
				t.Fatal(err)
			}
			if n := decoded.Load(); n == 0 {
				t.Fatal("the slow path decoded no bundle")
			}
			if d := cmp.Diff(slow, fast, cmpOpts); d != "" {
				t.Errorf("fast path's report differs from the whole bundles' (-slow +fast):\n%s", d)
			}
		})
	}
}

// TestSharedFastPathSources checks that two nodes with the same shared
// details file whose hierarchies name other files get their own sources.
func TestSharedFastPathSources(t *testing.T) {
	old, new := writeSharedDir(t, sliceFleet(false)...), writeSharedDir(t, sliceFleet(true)...)
	r, err := Compare(old, new, Filter{Keys: []string{"app::port", "accounts::users"}, Nodes: []string{"web0[01]"}})
	if err != nil {
		t.Fatal(err)
	}
	files := map[string][]string{} // node: files of the sources of its changes
	for _, e := range r.Entries {
		for _, n := range e.Nodes {
			for _, s := range e.Old.Sources {
				files[n] = append(files[n], s.File)
			}
		}
	}
	for n, want := range map[string]string{"web00": "env/data/roles/web-a.yaml", "web01": "env/data/roles/web-b.yaml"} {
		found := false
		for _, f := range files[n] {
			found = found || f == want
		}
		if !found {
			t.Errorf("%s: sources in %v, want %s among them", n, files[n], want)
		}
	}
}

// TestSharedFastPathErrors checks that a node or module error, and a
// shared details file missing, take the whole bundles' path, with its
// messages.
func TestSharedFastPathErrors(t *testing.T) {
	oldB, newB := sliceFleet(false), sliceFleet(true)
	newB[4].NodeError = &format.Error{Message: "Evaluation Error: node failed"}
	newB[4].Keys = nil
	old, new := writeSharedDir(t, oldB...), writeSharedDir(t, newB...)
	decoded := countDetails(t)
	r, err := Compare(old, new, Filter{})
	if err != nil {
		t.Fatal(err)
	}
	if n := decoded.Load(); n != 2 {
		t.Errorf("%d bundles decoded whole, want 2 (the failing node's)", n)
	}
	found := false
	for _, e := range r.Entries {
		found = found || e.Kind == ErrorChanged && e.Key == "" && e.Module == ""
	}
	if !found {
		t.Error("the node error is not reported")
	}

	// A shared details file gone: the error names it, as before.
	ents, err := os.ReadDir(filepath.Join(new, "details"))
	if err != nil || len(ents) == 0 {
		t.Fatal(ents, err)
	}
	gone := filepath.Join(new, "details", ents[0].Name())
	if err := os.Remove(gone); err != nil {
		t.Fatal(err)
	}
	_, err = Compare(old, new, Filter{})
	if err == nil || !strings.Contains(err.Error(), ents[0].Name()) {
		t.Errorf("Compare with %s gone: %v, want an error naming it", gone, err)
	}
}

// TestCompareProgress checks that the progress callback counts every node,
// those on one side only included, up to the total.
func TestCompareProgress(t *testing.T) {
	oldB, newB := sliceFleet(false), sliceFleet(true)
	old, new := writeSharedDir(t, oldB[:20]...), writeSharedDir(t, newB[2:]...)
	var calls []int
	total := 0
	r, err := CompareProgress(old, new, Filter{}, func(done, n int) { calls = append(calls, done); total = n })
	if err != nil {
		t.Fatal(err)
	}
	if want := len(r.Nodes); total != want || len(calls) != want || calls[len(calls)-1] != want {
		t.Errorf("progress: %d calls, last %v, total %d; want %d calls up to %d", len(calls), calls[len(calls)-1:], total, want, want)
	}
	for i, d := range calls {
		if d != i+1 {
			t.Fatalf("call %d says %d done", i, d)
		}
	}
}

// TestSharedFastPathMovedOnly checks that nodes whose bundles differ only
// in their details (a value that moved to another line: no change) are
// unchanged, and that their shared details files are still read: one
// missing is trouble, as for the nodes that changed.
func TestSharedFastPathMovedOnly(t *testing.T) {
	moved := sliceFleet(false)
	for _, b := range moved {
		for i := range b.Keys {
			if b.Keys[i].Name == "motd" {
				b.Keys[i].Contributions[0].Line++
			}
		}
	}
	old, new := writeSharedDir(t, sliceFleet(false)...), writeSharedDir(t, moved...)
	r, err := Compare(old, new, Filter{})
	if err != nil || r.Differs() || r.Summary.Unchanged != 24 {
		t.Fatalf("Compare = %+v, %v; want 24 nodes unchanged", r, err)
	}
	ents, err := os.ReadDir(filepath.Join(new, "details"))
	if err != nil || len(ents) == 0 {
		t.Fatal(ents, err)
	}
	if err := os.Remove(filepath.Join(new, "details", ents[0].Name())); err != nil {
		t.Fatal(err)
	}
	if _, err = Compare(old, new, Filter{}); err == nil || !strings.Contains(err.Error(), ents[0].Name()) {
		t.Errorf("Compare with %s gone: %v, want an error naming it", ents[0].Name(), err)
	}
}

// TestSharedFleetGolden pins each format's report of sliceFleet's change,
// compared through the fast path (TestSharedFastPath holds it to the
// whole bundles' report).
func TestSharedFleetGolden(t *testing.T) {
	old, new := writeSharedDir(t, sliceFleet(false)...), writeSharedDir(t, sliceFleet(true)...)
	r, err := Compare(old, new, Filter{})
	if err != nil {
		t.Fatal(err)
	}
	r.Old, r.New = "bundles-main", "bundles-pr"
	for _, f := range []struct {
		file  string
		write func(io.Writer, *Report, Options) error
	}{
		{"testdata/shared.txt.golden", WriteText},
		{"testdata/shared.md.golden", WriteMarkdown},
		{"testdata/shared.json.golden", WriteJSON},
	} {
		var b strings.Builder
		if err := f.write(&b, r, Options{}); err != nil {
			t.Fatal(err)
		}
		golden(t, f.file, b.String())
	}
}
