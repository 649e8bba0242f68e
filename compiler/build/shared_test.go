package build

import (
	"encoding/hex"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/hieracc/hieracc/format"
)

// sharedRepo writes a fleet whose nodes share details by role: a1 alone
// has role x; b1, b2 and c1 have role y (c1 with a data file of its own).
// It returns the repo's folder and the build of it into out.
func sharedRepo(t *testing.T) (repo string, cfg func(out string) Config) {
	t.Helper()
	repo = t.TempDir()
	for name, content := range map[string]string{
		"env/hiera.yaml": "version: 5\nhierarchy:\n" +
			"  - name: Node\n    path: \"nodes/%{trusted.certname}.yaml\"\n" +
			"  - name: Role\n    path: \"roles/%{facts.role}.yaml\"\n" +
			"  - name: Common\n    path: common.yaml\n",
		"env/data/common.yaml":   "ntp::servers: [ntp1, ntp2]\nmotd: hello\n",
		"env/data/roles/x.yaml":  "app::port: 80\nmotd: from x\n",
		"env/data/roles/y.yaml":  "app::port: 443\ndb::size: 10\n",
		"env/data/nodes/c1.yaml": "app::port: 8443\n",
		"facts/a1.yaml":          "role: x\n",
		"facts/b1.yaml":          "role: y\n",
		"facts/b2.yaml":          "role: y\n",
		"facts/c1.yaml":          "role: y\n",
	} {
		p := filepath.Join(repo, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return repo, func(out string) Config {
		return Config{Env: filepath.Join(repo, "env"), Facts: []string{filepath.Join(repo, "facts")}, Out: out, Jobs: 4}
	}
}

// sharedRefs reads every bundle in out and checks that the shared details
// file it refers to is in out, whole; it returns the nodes that refer to
// each (by the file's base name), and fails the test when no bundle
// refers to one: a test of them that finds none tests nothing.
func sharedRefs(t *testing.T, out string) map[string][]string {
	t.Helper()
	bundles, err := filepath.Glob(filepath.Join(out, "*.bundle"))
	if err != nil || len(bundles) == 0 {
		t.Fatalf("no bundle in %s (%v)", out, err)
	}
	refs := map[string][]string{}
	for _, p := range bundles {
		data, err := format.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		x, err := format.DecodeIndex(data)
		if err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		d, ok := x.SharedDigest()
		if !ok {
			continue
		}
		name := format.SharedDetailsName(d)
		f, err := os.Open(filepath.Join(out, filepath.FromSlash(name)))
		if err != nil {
			t.Errorf("%s refers to %s: %v", filepath.Base(p), name, err)
			continue
		}
		got, err := format.VerifySharedDetails(f)
		f.Close()
		if err != nil || got != d {
			t.Errorf("%s refers to %s, which does not verify: %x, %v", filepath.Base(p), name, got, err)
		}
		refs[filepath.Base(name)] = append(refs[filepath.Base(name)], x.Node)
	}
	if len(refs) == 0 {
		t.Fatalf("no bundle in %s refers to a shared details file", out)
	}
	for _, nodes := range refs {
		slices.Sort(nodes)
	}
	return refs
}

// detailsFiles lists the names in out/details/.
func detailsFiles(t *testing.T, out string) []string {
	t.Helper()
	dir := filepath.Join(out, format.SharedDetailsDir)
	if st, err := os.Stat(dir); err != nil || !st.IsDir() {
		return nil
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	return names
}

// refOf is the shared details file node's bundle refers to, by base name.
func refOf(refs map[string][]string, node string) string {
	for name, nodes := range refs {
		if slices.Contains(nodes, node) {
			return name
		}
	}
	return ""
}

// TestSharedDetailsWritten: a compile writes each shared details file its
// bundles refer to once, whatever the number of bundles and workers, and
// nothing else into details/; the next compile keeps those that are whole
// and writes again one that is damaged.
func TestSharedDetailsWritten(t *testing.T) {
	_, cfg := sharedRepo(t)
	out := filepath.Join(t.TempDir(), "out")
	r := mustRun(t, cfg(out))
	refs := sharedRefs(t, out)
	if len(refs) < 2 {
		t.Errorf("bundles refer to %d shared details files (%v); want one per role at least", len(refs), refs)
	}
	want := slices.Sorted(maps.Keys(refs))
	if d := cmp.Diff(want, detailsFiles(t, out)); d != "" {
		t.Errorf("details/ holds other files than the bundles refer to (-referred +there):\n%s", d)
	}
	if r.SharedWritten != len(refs) || r.SharedRemoved != 0 {
		t.Errorf("wrote %d shared details files, removed %d; want %d, 0", r.SharedWritten, r.SharedRemoved, len(refs))
	}
	if refOf(refs, "a1") == refOf(refs, "b1") || refOf(refs, "b1") != refOf(refs, "b2") {
		t.Errorf("a1 (role x), b1 and b2 (role y) refer to %v", refs)
	}

	// Compiled again in full: the shared details files are kept as they are.
	details := filepath.Join(out, format.SharedDetailsDir)
	before := map[string]os.FileInfo{}
	for _, name := range want {
		st, err := os.Stat(filepath.Join(details, name))
		if err != nil {
			t.Fatal(err)
		}
		before[name] = st
	}
	c := cfg(out)
	c.Full = true
	if r := mustRun(t, c); r.SharedWritten != 0 || r.Written != 4 {
		t.Errorf("compiled again: %d bundles and %d shared details files written; want 4 and 0 (kept)", r.Written, r.SharedWritten)
	}
	for name, st := range before {
		if now, err := os.Stat(filepath.Join(details, name)); err != nil || !os.SameFile(st, now) {
			t.Errorf("%s was written again, though whole", name)
		}
	}

	// One damaged (its size kept): written again.
	damaged := filepath.Join(details, refOf(refs, "b1"))
	data, err := os.ReadFile(damaged)
	if err != nil {
		t.Fatal(err)
	}
	data[len(data)-1] ^= 0x20
	if err := os.WriteFile(damaged, data, 0o640); err != nil {
		t.Fatal(err)
	}
	if r := mustRun(t, c); r.SharedWritten != 1 {
		t.Errorf("with a damaged shared details file: %d written; want 1", r.SharedWritten)
	}
	sharedRefs(t, out)
}

// TestSharedDetailsPruned: the shared details files that no bundle in OUT
// refers to go in the commit that removes the bundles of nodes whose
// facts are gone or writes the bundles that no longer refer to them; not
// when some facts could not be read, never under --shard, and nothing
// else in details/ is ever touched.
func TestSharedDetailsPruned(t *testing.T) {
	for _, tc := range []struct {
		name string
		// change changes the repo after a first compile into out, and
		// returns the build to run.
		change   func(t *testing.T, repo string, c Config) Config
		removed  int  // shared details files removed
		a1Bundle bool // a1's bundle is still there
		a1Shared bool // the shared details file a1's first bundle referred to is still there
		likeFull bool // OUT then holds what a full compile writes, details/ included
	}{{
		name: "facts gone",
		change: func(t *testing.T, repo string, c Config) Config {
			remove(t, filepath.Join(repo, "facts", "a1.yaml"))
			return c
		},
		removed: 1, likeFull: true,
	}, {
		name: "facts gone, others unreadable",
		change: func(t *testing.T, repo string, c Config) Config {
			remove(t, filepath.Join(repo, "facts", "a1.yaml"))
			c.Facts = append(c.Facts, filepath.Join(repo, "nosuch"))
			c.KeepGoing = true
			return c
		},
		a1Bundle: true, a1Shared: true,
	}, {
		name: "facts gone, a shard",
		change: func(t *testing.T, repo string, c Config) Config {
			remove(t, filepath.Join(repo, "facts", "a1.yaml"))
			c.Shard = Shard{ShardOf("a1", 2), 2}
			return c
		},
		a1Shared: true,
	}, {
		name: "data changed (incremental)",
		change: func(t *testing.T, repo string, c Config) Config {
			write(t, filepath.Join(repo, "env", "data", "roles", "x.yaml"), "app::port: 81\nmotd: from x\nx::extra: 1\n")
			return c
		},
		removed: 1, a1Bundle: true, likeFull: true,
	}, {
		name: "data changed (full)",
		change: func(t *testing.T, repo string, c Config) Config {
			write(t, filepath.Join(repo, "env", "data", "roles", "x.yaml"), "app::port: 81\nmotd: from x\nx::extra: 1\n")
			c.Full = true
			return c
		},
		removed: 1, a1Bundle: true, likeFull: true,
	}} {
		t.Run(tc.name, func(t *testing.T) {
			repo, cfg := sharedRepo(t)
			out := filepath.Join(t.TempDir(), "out")
			mustRun(t, cfg(out))
			a1 := refOf(sharedRefs(t, out), "a1")
			details := filepath.Join(out, format.SharedDetailsDir)
			// Not shared details files, or not ours to remove.
			var zero [32]byte
			for i := range zero {
				zero[i] = 0xab // letters in hex: upper case is another name
			}
			foreign := []string{"README", strings.ToUpper(hex.EncodeToString(zero[:])) + ".details", hex.EncodeToString(zero[:]) + ".details.bak"}
			for _, name := range foreign {
				write(t, filepath.Join(details, name), "not a shared details file\n")
			}
			folder := filepath.Join(details, hex.EncodeToString(zero[:])+".details")
			if err := os.MkdirAll(filepath.Join(folder, "inside"), 0o755); err != nil {
				t.Fatal(err)
			}

			c := tc.change(t, repo, cfg(out))
			r, err := Run(t.Context(), c)
			if err != nil || !r.Committed {
				t.Fatalf("build: %v, %+v", err, r)
			}
			if r.SharedRemoved != tc.removed {
				t.Errorf("removed %d shared details files, want %d", r.SharedRemoved, tc.removed)
			}
			if _, err := os.Stat(filepath.Join(out, "a1.bundle")); (err == nil) != tc.a1Bundle {
				t.Errorf("a1's bundle there: %v (%v), want %v", err == nil, err, tc.a1Bundle)
			}
			if _, err := os.Stat(filepath.Join(details, a1)); (err == nil) != tc.a1Shared {
				t.Errorf("the shared details file a1 referred to there: %v (%v), want %v", err == nil, err, tc.a1Shared)
			}
			for _, name := range foreign {
				if _, err := os.Stat(filepath.Join(details, name)); err != nil {
					t.Errorf("%s, not a shared details file: %v", name, err)
				}
			}
			if st, err := os.Stat(filepath.Join(folder, "inside")); err != nil || !st.IsDir() {
				t.Errorf("a folder named as a shared details file was touched: %v", err)
			}
			refs := sharedRefs(t, out)
			if !tc.likeFull {
				return
			}
			full := filepath.Join(t.TempDir(), "full")
			fc := c
			fc.Out, fc.Full = full, true
			mustRun(t, fc)
			for _, name := range foreign {
				remove(t, filepath.Join(details, name))
			}
			remove(t, folder)
			want, got := files(t, full), files(t, out)
			delete(want, StateFile)
			delete(got, StateFile)
			if d := cmp.Diff(want, got); d != "" {
				t.Errorf("OUT differs from a full compile's (-full +out):\n%s", d)
			}
			if len(refs) != sharedFiles(t, got) {
				t.Errorf("bundles refer to %d shared details files; OUT holds %d", len(refs), sharedFiles(t, got))
			}
		})
	}
}

// TestSharedDetailsKept: an incremental compile trusts the shared details
// file of a bundle it keeps as it trusts the bundle (as written, or its
// digest checked); the nodes whose file is missing or damaged are compiled
// again, and OUT then holds what a full compile writes.
func TestSharedDetailsKept(t *testing.T) {
	for _, tc := range []struct {
		name   string
		damage func(t *testing.T, p string)
	}{
		{"removed", func(t *testing.T, p string) { remove(t, p) }},
		{"truncated", func(t *testing.T, p string) {
			if err := os.Truncate(p, 10); err != nil {
				t.Fatal(err)
			}
		}},
		{"a bit flipped, times set back", func(t *testing.T, p string) {
			st, err := os.Stat(p)
			if err != nil {
				t.Fatal(err)
			}
			data, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			data[len(data)/2] ^= 0x01
			if err := os.WriteFile(p, data, 0o640); err != nil {
				t.Fatal(err)
			}
			if err := os.Chtimes(p, st.ModTime(), st.ModTime()); err != nil {
				t.Fatal(err)
			}
		}},
		{"replaced by a copy", func(t *testing.T, p string) {
			data, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			remove(t, p)
			write(t, p, string(data))
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, cfg := sharedRepo(t)
			out := filepath.Join(t.TempDir(), "out")
			mustRun(t, cfg(out))
			refs := sharedRefs(t, out)
			if r := mustRun(t, cfg(out)); compiled(r) != 0 || r.SharedWritten != 0 || r.SharedRemoved != 0 {
				t.Fatalf("unchanged: %d nodes compiled (-1: a full compile), %d shared details files written, %d removed; want none",
					compiled(r), r.SharedWritten, r.SharedRemoved)
			}
			y := refOf(refs, "b1")
			tc.damage(t, filepath.Join(out, format.SharedDetailsDir, y))
			want := len(refs[y])
			if tc.name == "replaced by a copy" {
				want = 0 // whole, its digest checked: kept
			}
			r := mustRun(t, cfg(out))
			if compiled(r) != want {
				t.Errorf("%d nodes compiled (-1: a full compile), want %d: %v", compiled(r), want, refs[y])
			}
			if d := cmp.Diff(refs, sharedRefs(t, out)); d != "" {
				t.Errorf("the bundles refer to other files (-before +after):\n%s", d)
			}
			full := filepath.Join(t.TempDir(), "full")
			mustRun(t, cfg(full))
			wantFiles, got := files(t, full), files(t, out)
			delete(wantFiles, StateFile)
			delete(got, StateFile)
			if d := cmp.Diff(wantFiles, got); d != "" {
				t.Errorf("OUT differs from a full compile's (-full +out):\n%s", d)
			}
			// Trusted again by its stats: nothing to compile.
			if r := mustRun(t, cfg(out)); compiled(r) != 0 {
				t.Errorf("then unchanged: %d nodes compiled, want 0", compiled(r))
			}
		})
	}
}

// TestSharedDetailsNotWritten: a compile that fails writes no shared
// details file, and a place of one taken (details/ a file, a folder
// where a file goes) fails the compile before any bundle is renamed.
func TestSharedDetailsNotWritten(t *testing.T) {
	repo, cfg := sharedRepo(t)
	ref := filepath.Join(t.TempDir(), "ref")
	mustRun(t, cfg(ref))
	a1 := refOf(sharedRefs(t, ref), "a1")

	for _, tc := range []struct {
		name  string
		setup func(t *testing.T, out string) // before the compile, into an empty out
		err   string                         // part of Run's error; "" for a build with errors
	}{
		{"details/ a file", func(t *testing.T, out string) {
			write(t, filepath.Join(out, format.SharedDetailsDir), "a file\n")
		}, "is not a folder: the shared details files of the bundles go there; nothing written"},
		{"a folder where a shared details file goes", func(t *testing.T, out string) {
			if err := os.MkdirAll(filepath.Join(out, format.SharedDetailsDir, a1, "inside"), 0o755); err != nil {
				t.Fatal(err)
			}
		}, "is a folder, where a shared details file goes; nothing written"},
		{"errors", func(t *testing.T, out string) {
			write(t, filepath.Join(repo, "env", "data", "roles", "y.yaml"), "app::port: [\n")
		}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "out")
			tc.setup(t, out)
			r, err := Run(t.Context(), cfg(out))
			switch {
			case tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)):
				t.Errorf("Run: %v; want an error with %q", err, tc.err)
			case tc.err == "" && (err != nil || r.Committed || r.Errors == 0):
				t.Errorf("Run: %+v, %v; want errors, nothing committed", r, err)
			}
			bundles, _ := filepath.Glob(filepath.Join(out, "*.bundle"))
			var shared []string
			for _, name := range detailsFiles(t, out) {
				if _, ok := format.ParseSharedDetailsName(name); ok && name != a1 {
					shared = append(shared, name)
				}
			}
			if len(bundles) > 0 || len(shared) > 0 {
				t.Errorf("left %v and shared details files %v", bundles, shared)
			}
		})
	}
}

func write(t *testing.T, p, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func remove(t *testing.T, p string) {
	t.Helper()
	if err := os.RemoveAll(p); err != nil {
		t.Fatal(err)
	}
}

// TestIncrementalBundleIdentity: a bundle whose file changed (a cache
// restored, a touch) is kept when its digest is the one the state
// recorded, and the state then records the file as it is; a whole bundle
// of the node that another build wrote (an older one copied back, which
// refers to a shared details file no longer there) is compiled again.
func TestIncrementalBundleIdentity(t *testing.T) {
	repo, cfg := sharedRepo(t)
	out := filepath.Join(t.TempDir(), "out")
	mustRun(t, cfg(out))
	older, err := os.ReadFile(filepath.Join(out, "a1.bundle"))
	if err != nil {
		t.Fatal(err)
	}

	later := time.Now().Add(time.Hour)
	bundles, _ := filepath.Glob(filepath.Join(out, "*.bundle"))
	for _, p := range bundles {
		if err := os.Chtimes(p, later, later); err != nil {
			t.Fatal(err)
		}
	}
	if r := mustRun(t, cfg(out)); compiled(r) != 0 || r.Written != 0 {
		t.Errorf("bundles touched: %d nodes compiled (-1: a full compile), %d written; want 0, 0", compiled(r), r.Written)
	}
	st, _ := loadState(out, StateFile)
	if st == nil {
		t.Fatal("no state")
	}
	for _, p := range bundles {
		node := strings.TrimSuffix(filepath.Base(p), ".bundle")
		now, _ := statBundle(p)
		if rec := st.Nodes[node].Bundle; rec == nil || now == nil || *rec != *now {
			t.Errorf("%s: the state records %+v, the file is %+v", node, rec, now)
		}
	}

	write(t, filepath.Join(repo, "env", "data", "roles", "x.yaml"), "app::port: 81\nmotd: from x\nx::extra: 1\n")
	mustRun(t, cfg(out))
	if err := os.WriteFile(filepath.Join(out, "a1.bundle"), older, 0o640); err != nil {
		t.Fatal(err)
	}
	if r := mustRun(t, cfg(out)); compiled(r) != 1 {
		t.Errorf("an older bundle of a1 copied back: %d nodes compiled (-1: a full compile), want 1", compiled(r))
	}
	full := filepath.Join(t.TempDir(), "full")
	mustRun(t, cfg(full))
	want, got := files(t, full), files(t, out)
	delete(want, StateFile)
	delete(got, StateFile)
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("OUT differs from a full compile's (-full +out):\n%s", d)
	}
}
