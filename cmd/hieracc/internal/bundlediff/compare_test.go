package bundlediff

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/hieracc/hieracc/format"
)

// TestChanges pins each kind of change on one node, with its path and the
// sources of both sides.
func TestChanges(t *testing.T) {
	const n = "web01"
	users := func(shell string) *format.Hash {
		return hash("alice", hash("uid", int64(1001), "shell", "/bin/bash"), "bob", hash("uid", int64(1002), "shell", shell))
	}
	for _, tc := range []struct {
		name     string
		old, new []format.Key
		want     []Change
	}{{
		name: "same data",
		old:  []format.Key{key("a", "x")},
		new:  []format.Key{key("a", "x", at(lvCommon, 9, "x"))}, // only moved: not a change
	}, {
		name: "key added",
		old:  []format.Key{key("a", "x")},
		new:  []format.Key{key("a", "x"), key("b", int64(5), at(lvRole, 4, int64(5)))},
		want: []Change{{Key: "b", Kind: Added, New: &Side{Value: int64(5), Sources: []Source{src(lvRole, 4, n)}}}},
	}, {
		name: "key removed",
		old:  []format.Key{key("a", "x"), key("b", true)},
		new:  []format.Key{key("a", "x")},
		want: []Change{{Key: "b", Kind: Removed, Old: &Side{Value: true, Sources: []Source{src(lvCommon, 1, n)}}}},
	}, {
		name: "scalar changed, first found: the winner is the source",
		old:  []format.Key{key("ntp::server", "a.example", at(lvCommon, 2, "a.example"))},
		new:  []format.Key{key("ntp::server", "b.example", at(lvNode, 7, "b.example"), at(lvCommon, 2, "a.example"))},
		want: []Change{{Key: "ntp::server", Kind: Changed,
			Old: &Side{Value: "a.example", Sources: []Source{src(lvCommon, 2, n)}},
			New: &Side{Value: "b.example", Sources: []Source{src(lvNode, 7, n)}}}},
	}, {
		name: "nested change in a deep merge: the levels holding the path",
		old: []format.Key{deep("accounts::users", users("/bin/sh"),
			at(lvRole, 3, hash("bob", hash("uid", int64(1002)))),
			at(lvCommon, 10, hash("alice", hash("uid", int64(1001), "shell", "/bin/bash"), "bob", hash("shell", "/bin/sh"))))},
		new: []format.Key{deep("accounts::users", users("/bin/zsh"),
			at(lvNode, 5, hash("bob", hash("shell", "/bin/zsh"))),
			at(lvRole, 3, hash("bob", hash("uid", int64(1002)))),
			at(lvCommon, 10, hash("alice", hash("uid", int64(1001), "shell", "/bin/bash"), "bob", hash("shell", "/bin/sh"))))},
		want: []Change{{Key: "accounts::users", Path: "/bob/shell", Kind: Changed,
			Old: &Side{Value: "/bin/sh", Sources: []Source{src(lvCommon, 10, n)}},
			New: &Side{Value: "/bin/zsh", Sources: []Source{src(lvNode, 5, n)}}}},
	}, {
		name: "entry added in a deep merge: every level holding it",
		old: []format.Key{deep("accounts::users", hash("bob", hash("uid", int64(1002))),
			at(lvCommon, 10, hash("bob", hash("uid", int64(1002)))))},
		new: []format.Key{deep("accounts::users", hash("bob", hash("uid", int64(1002)), "carol", hash("uid", int64(1003), "shell", "/bin/sh")),
			at(lvNode, 5, hash("carol", hash("shell", "/bin/sh"))),
			at(lvRole, 3, hash("carol", hash("uid", int64(1003)))),
			at(lvCommon, 10, hash("bob", hash("uid", int64(1002)))))},
		want: []Change{{Key: "accounts::users", Path: "/carol", Kind: Added,
			New: &Side{Value: hash("uid", int64(1003), "shell", "/bin/sh"), Sources: []Source{src(lvNode, 5, n), src(lvRole, 3, n)}}}},
	}, {
		name: "entry of a hash merge: the level that wins it",
		old: func() []format.Key {
			k := key("sysctl", hash("a", hash("x", int64(1))), at(lvCommon, 4, hash("a", hash("x", int64(1)))))
			k.Merge.Strategy = "hash"
			return []format.Key{k}
		}(),
		new: func() []format.Key {
			k := key("sysctl", hash("a", hash("x", int64(2))), at(lvRole, 6, hash("a", hash("x", int64(2)))), at(lvCommon, 4, hash("a", hash("x", int64(1)))))
			k.Merge.Strategy = "hash"
			return []format.Key{k}
		}(),
		want: []Change{{Key: "sysctl", Path: "/a/x", Kind: Changed,
			Old: &Side{Value: int64(1), Sources: []Source{src(lvCommon, 4, n)}},
			New: &Side{Value: int64(2), Sources: []Source{src(lvRole, 6, n)}}}},
	}, {
		name: "unique merge: the levels holding the element",
		old: func() []format.Key {
			k := key("pkgs", arr("vim", "curl"), at(lvRole, 2, arr("vim")), at(lvCommon, 8, arr("curl")))
			k.Merge.Strategy = "unique"
			return []format.Key{k}
		}(),
		new: func() []format.Key {
			k := key("pkgs", arr("vim", "git", "curl"), at(lvNode, 3, "git"), at(lvRole, 2, arr("vim")), at(lvCommon, 8, arr("curl", "git")))
			k.Merge.Strategy = "unique"
			return []format.Key{k}
		}(),
		want: []Change{{Key: "pkgs", Path: "/1", Kind: Added,
			New: &Side{Value: "git", Sources: []Source{src(lvNode, 3, n), src(lvCommon, 8, n)}}}},
	}, {
		name: "type change",
		old:  []format.Key{key("port", hash("https", int64(443)))},
		new:  []format.Key{key("port", hash("https", "443"))},
		want: []Change{{Key: "port", Path: "/https", Kind: TypeChanged,
			Old: &Side{Value: int64(443), Sources: []Source{src(lvCommon, 1, n)}},
			New: &Side{Value: "443", Sources: []Source{src(lvCommon, 1, n)}}}},
	}, {
		name: "integer and float differ in type",
		old:  []format.Key{key("ratio", int64(1))},
		new:  []format.Key{key("ratio", 1.0)},
		want: []Change{{Key: "ratio", Kind: TypeChanged,
			Old: &Side{Value: int64(1), Sources: []Source{src(lvCommon, 1, n)}},
			New: &Side{Value: 1.0, Sources: []Source{src(lvCommon, 1, n)}}}},
	}, {
		name: "order change",
		old:  []format.Key{key("h", hash("a", int64(1), "b", int64(2)))},
		new:  []format.Key{key("h", hash("b", int64(2), "a", int64(1)))},
		want: []Change{{Key: "h", Kind: Reordered,
			Old: &Side{Keys: arr("a", "b"), Sources: []Source{src(lvCommon, 1, n)}},
			New: &Side{Keys: arr("b", "a"), Sources: []Source{src(lvCommon, 1, n)}}}},
	}, {
		name: "array element inserted: one addition, not a shift",
		old:  []format.Key{key("pkgs", arr("vim", "curl", "htop"))},
		new:  []format.Key{key("pkgs", arr("vim", "git", "curl", "htop"))},
		want: []Change{{Key: "pkgs", Path: "/1", Kind: Added, New: &Side{Value: "git", Sources: []Source{src(lvCommon, 1, n)}}}},
	}, {
		name: "array element removed: OLD's index",
		old:  []format.Key{key("pkgs", arr("vim", "curl", "htop"))},
		new:  []format.Key{key("pkgs", arr("vim", "htop"))},
		want: []Change{{Key: "pkgs", Path: "/1", Kind: Removed, Old: &Side{Value: "curl", Sources: []Source{src(lvCommon, 1, n)}}}},
	}, {
		name: "array rotated: the common run matches, one element moves",
		old:  []format.Key{key("pkgs", arr("vim", "curl", "htop", "tmux"))},
		new:  []format.Key{key("pkgs", arr("curl", "htop", "tmux", "vim"))},
		want: []Change{
			{Key: "pkgs", Path: "/0", Kind: Removed, Old: &Side{Value: "vim", Sources: []Source{src(lvCommon, 1, n)}}},
			{Key: "pkgs", Path: "/3", Kind: Added, New: &Side{Value: "vim", Sources: []Source{src(lvCommon, 1, n)}}},
		},
	}, {
		name: "record in an array changed: compared further",
		old:  []format.Key{key("rules", arr(hash("port", int64(22)), hash("port", int64(80))))},
		new:  []format.Key{key("rules", arr(hash("port", int64(22)), hash("port", int64(8080))))},
		want: []Change{{Key: "rules", Path: "/1/port", Kind: Changed,
			Old: &Side{Value: int64(80), Sources: []Source{src(lvCommon, 1, n)}},
			New: &Side{Value: int64(8080), Sources: []Source{src(lvCommon, 1, n)}}}},
	}, {
		name: "pointer escaping",
		old:  []format.Key{key("h", hash("a/b", hash("~c", int64(1))))},
		new:  []format.Key{key("h", hash("a/b", hash("~c", int64(2))))},
		want: []Change{{Key: "h", Path: "/a~1b/~0c", Kind: Changed,
			Old: &Side{Value: int64(1), Sources: []Source{src(lvCommon, 1, n)}},
			New: &Side{Value: int64(2), Sources: []Source{src(lvCommon, 1, n)}}}},
	}, {
		name: "error appears",
		old:  []format.Key{key("motd", "hello")},
		new:  []format.Key{failed("motd", "Undefined variable 'role'")},
		want: []Change{{Key: "motd", Kind: ErrorChanged,
			Old: &Side{Value: "hello", Sources: []Source{src(lvCommon, 1, n)}},
			New: &Side{Err: failed("motd", "Undefined variable 'role'").Err, Sources: []Source{{Layer: format.LayerEnvironment, Level: "Common", Pos: format.Pos{File: "env/data/common.yaml", Line: 3, Column: 1}}}}}},
	}, {
		name: "error disappears",
		old:  []format.Key{failed("motd", "Undefined variable 'role'")},
		new:  []format.Key{key("motd", "hello")},
		want: []Change{{Key: "motd", Kind: ErrorChanged,
			Old: &Side{Err: failed("motd", "Undefined variable 'role'").Err, Sources: []Source{{Layer: format.LayerEnvironment, Level: "Common", Pos: format.Pos{File: "env/data/common.yaml", Line: 3, Column: 1}}}},
			New: &Side{Value: "hello", Sources: []Source{src(lvCommon, 1, n)}}}},
	}, {
		name: "error message changes",
		old:  []format.Key{failed("motd", "Undefined variable 'role'")},
		new:  []format.Key{failed("motd", "Undefined variable 'dc'")},
		want: []Change{{Key: "motd", Kind: ErrorChanged,
			Old: &Side{Err: failed("motd", "Undefined variable 'role'").Err, Sources: []Source{{Layer: format.LayerEnvironment, Level: "Common", Pos: format.Pos{File: "env/data/common.yaml", Line: 3, Column: 1}}}},
			New: &Side{Err: failed("motd", "Undefined variable 'dc'").Err, Sources: []Source{{Layer: format.LayerEnvironment, Level: "Common", Pos: format.Pos{File: "env/data/common.yaml", Line: 3, Column: 1}}}}}},
	}, {
		name: "same error at another line: not a change",
		old:  []format.Key{failed("motd", "Undefined variable 'role'")},
		new: func() []format.Key {
			k := failed("motd", "Undefined variable 'role'")
			k.Err.Line = 30
			return []format.Key{k}
		}(),
	}, {
		name: "changes sorted by key, then path with numeric indexes",
		old:  []format.Key{key("a", arr(int64(0), int64(1), int64(2), int64(3), int64(4), int64(5), int64(6), int64(7), int64(8), int64(9), int64(10), int64(11))), key("b", "x")},
		new:  []format.Key{key("a", arr(int64(0), int64(1), int64(-2), int64(3), int64(4), int64(5), int64(6), int64(7), int64(8), int64(9), int64(-10), int64(11))), key("b", "y")},
		want: []Change{
			{Key: "a", Path: "/2", Kind: Changed, Old: &Side{Value: int64(2), Sources: []Source{src(lvCommon, 1, n)}}, New: &Side{Value: int64(-2), Sources: []Source{src(lvCommon, 1, n)}}},
			{Key: "a", Path: "/10", Kind: Changed, Old: &Side{Value: int64(10), Sources: []Source{src(lvCommon, 1, n)}}, New: &Side{Value: int64(-10), Sources: []Source{src(lvCommon, 1, n)}}},
			{Key: "b", Kind: Changed, Old: &Side{Value: "x", Sources: []Source{src(lvCommon, 1, n)}}, New: &Side{Value: "y", Sources: []Source{src(lvCommon, 1, n)}}},
		},
	}} {
		t.Run(tc.name, func(t *testing.T) {
			r, err := Compare(writeDir(t, node(n, tc.old...)), writeDir(t, node(n, tc.new...)), Filter{})
			if err != nil {
				t.Fatal(err)
			}
			var got []Change
			for _, g := range r.Groups {
				for _, c := range g.Changes {
					if c.Parts != nil { // an array shown whole: its element-level changes
						got = append(got, c.Parts...)
					} else {
						got = append(got, c)
					}
				}
			}
			if d := cmp.Diff(tc.want, got, cmpOpts); d != "" {
				t.Errorf("changes (-want +got):\n%s", d)
			}
			changed := 0
			if len(tc.want) > 0 {
				changed = 1
			}
			if r.Summary.Changed != changed || r.Summary.Nodes != 1 || r.Summary.Unchanged != 1-changed {
				t.Errorf("summary %+v, want 1 node, %d changed", r.Summary, changed)
			}
		})
	}
}

// TestNodeLevel pins node and module errors, and nodes on one side only.
func TestNodeLevel(t *testing.T) {
	nodeErr := &format.Error{Message: "Unable to parse env/data/common.yaml", Pos: format.Pos{File: "env/data/common.yaml", Line: 4}}
	withNodeErr := node("web01")
	withNodeErr.NodeError = nodeErr
	withModErr := node("web01", key("a", "x"))
	withModErr.Modules = []format.Module{{Name: "ntp", Err: &format.Error{Message: "bad lookup_options"}}}
	deeep := &format.Error{Message: "Unknown merge strategy: 'deeep'", Pos: format.Pos{File: "env/data/common.yaml", Line: 3, Column: 5}}
	withOptions := func(err *format.Error) *format.Bundle {
		b := node("web01", key("a", "x"))
		b.Options = []format.OptionScope{{Literal: []format.OptionEntry{{Name: "c/d", Err: err}, {Name: "other"}}}}
		return b
	}

	for _, tc := range []struct {
		name     string
		old, new *format.Bundle
		filter   Filter
		want     []Change
	}{{
		name: "node error appears: the keys are not listed",
		old:  node("web01", key("a", "x"), key("b", "y")),
		new:  withNodeErr,
		want: []Change{{Kind: ErrorChanged, New: &Side{Err: nodeErr}}},
	}, {
		name: "node error disappears",
		old:  withNodeErr,
		new:  node("web01", key("a", "x")),
		want: []Change{{Kind: ErrorChanged, Old: &Side{Err: nodeErr}}},
	}, {
		name:   "node error shows whatever the key filter",
		old:    node("web01", key("a", "x")),
		new:    withNodeErr,
		filter: Filter{Keys: []string{"a"}},
		want:   []Change{{Kind: ErrorChanged, New: &Side{Err: nodeErr}}},
	}, {
		name: "module error appears: its keys are not listed",
		old:  node("web01", key("a", "x"), key("ntp::servers", arr("a"))),
		new:  withModErr,
		want: []Change{{Module: "ntp", Kind: ErrorChanged, New: &Side{Err: &format.Error{Message: "bad lookup_options"}}}},
	}, {
		name:   "module error with a filter on one of its keys",
		old:    node("web01", key("a", "x"), key("ntp::servers", arr("a"))),
		new:    withModErr,
		filter: Filter{Keys: []string{"ntp::servers"}},
		want:   []Change{{Module: "ntp", Kind: ErrorChanged, New: &Side{Err: &format.Error{Message: "bad lookup_options"}}}},
	}, {
		name:   "module error filtered out",
		old:    node("web01", key("a", "x"), key("ntp::servers", arr("a"))),
		new:    withModErr,
		filter: Filter{Keys: []string{"apache::*"}},
	}, {
		name: "a failing lookup_options entry for keys no bundle holds is fixed",
		old:  withOptions(deeep),
		new:  withOptions(nil),
		want: []Change{{Key: "lookup_options", Path: "/c~1d", Kind: ErrorChanged, Old: &Side{Err: deeep}}},
	}, {
		name: "a failing lookup_options entry appears",
		old:  node("web01", key("a", "x")),
		new:  withOptions(deeep),
		want: []Change{{Key: "lookup_options", Path: "/c~1d", Kind: ErrorChanged, New: &Side{Err: deeep}}},
	}, {
		name:   "lookup_options changes filtered out",
		old:    withOptions(deeep),
		new:    withOptions(nil),
		filter: Filter{IgnoreKeys: []string{"lookup_options"}},
	}, {
		name:   "module error ignored",
		old:    node("web01", key("a", "x"), key("ntp::servers", arr("a"))),
		new:    withModErr,
		filter: Filter{IgnoreKeys: []string{"ntp::*"}},
	}} {
		t.Run(tc.name, func(t *testing.T) {
			r, err := Compare(writeDir(t, tc.old), writeDir(t, tc.new), tc.filter)
			if err != nil {
				t.Fatal(err)
			}
			var got []Change
			for _, g := range r.Groups {
				for _, c := range g.Changes {
					if c.Parts != nil { // an array shown whole: its element-level changes
						got = append(got, c.Parts...)
					} else {
						got = append(got, c)
					}
				}
			}
			if d := cmp.Diff(tc.want, got, cmpOpts); d != "" {
				t.Errorf("changes (-want +got):\n%s", d)
			}
		})
	}
}

// TestGrouping checks that nodes with the same changes share a group, that
// sources tell groups apart, and the summary.
func TestGrouping(t *testing.T) {
	common := func(n, v string) *format.Bundle { return node(n, key("a", v), key("b", "same")) }
	perNode := func(n, v string) *format.Bundle { return node(n, key("a", "old"), key("b", v, at(lvNode, 2, v))) }
	old := writeDir(t, common("web01", "old"), common("web02", "old"), common("db01", "old"), perNode("app01", "x"),
		perNode("app02", "x"), common("same01", "old"), common("gone01", "old"), common("gone02", "old"))
	new := writeDir(t, common("web01", "new"), common("web02", "new"), common("db01", "new"), perNode("app01", "y"),
		perNode("app02", "y"), common("same01", "old"), common("fresh01", "old"))
	r, err := Compare(old, new, Filter{})
	if err != nil {
		t.Fatal(err)
	}
	type group struct {
		Status Status
		Nodes  []string
		Keys   []string
	}
	var got []group
	for _, g := range r.Groups {
		gg := group{Status: g.Status, Nodes: g.Nodes}
		for _, c := range g.Changes {
			gg.Keys = append(gg.Keys, c.Key)
		}
		got = append(got, gg)
	}
	want := []group{
		// app01 and app02 changed the same key the same way, but each in
		// its own file: two groups.
		{NodeChanged, []string{"app01"}, []string{"b"}},
		{NodeChanged, []string{"app02"}, []string{"b"}},
		{NodeChanged, []string{"db01", "web01", "web02"}, []string{"a"}},
		{NodeOnlyNew, []string{"fresh01"}, nil},
		{NodeOnlyOld, []string{"gone01", "gone02"}, nil},
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("groups (-want +got):\n%s", d)
	}
	type entry struct {
		Key   string
		Nodes []string
	}
	var entries []entry
	for _, e := range r.Entries {
		entries = append(entries, entry{e.Key, e.Nodes})
	}
	wantEntries := []entry{ // one per distinct change, sources included
		{"a", []string{"db01", "web01", "web02"}},
		{"b", []string{"app01"}},
		{"b", []string{"app02"}},
	}
	if d := cmp.Diff(wantEntries, entries); d != "" {
		t.Errorf("entries (-want +got):\n%s", d)
	}
	wantSum := Summary{Nodes: 6, Changed: 5, Unchanged: 1, OnlyOld: 2, OnlyNew: 1, KeysChanged: 2}
	if d := cmp.Diff(wantSum, r.Summary); d != "" {
		t.Errorf("summary (-want +got):\n%s", d)
	}
}

// TestFilters checks node and key globs (path.Match syntax).
func TestFilters(t *testing.T) {
	mk := func(v string) string {
		return writeDir(t,
			node("web01.fra1", key("motd", v), key("nginx::user", v), key("ntp::servers", v)),
			node("web02.ams2", key("motd", v), key("nginx::user", v), key("ntp::servers", v)),
			node("db01.fra1", key("motd", v), key("nginx::user", v), key("ntp::servers", v)))
	}
	old, new := mk("a"), mk("b")
	for _, tc := range []struct {
		name      string
		f         Filter
		nodes     []string
		keys      []string
		unchanged int
	}{
		{"everything", Filter{}, []string{"db01.fra1", "web01.fra1", "web02.ams2"}, []string{"motd", "nginx::user", "ntp::servers"}, 0},
		{"node glob", Filter{Nodes: []string{"web*"}}, []string{"web01.fra1", "web02.ams2"}, []string{"motd", "nginx::user", "ntp::servers"}, 0},
		{"two node globs", Filter{Nodes: []string{"*.fra1", "web02.*"}}, []string{"db01.fra1", "web01.fra1", "web02.ams2"}, []string{"motd", "nginx::user", "ntp::servers"}, 0},
		{"key glob", Filter{Keys: []string{"n*::*"}}, []string{"db01.fra1", "web01.fra1", "web02.ams2"}, []string{"nginx::user", "ntp::servers"}, 0},
		{"ignored key", Filter{IgnoreKeys: []string{"ntp::*"}}, []string{"db01.fra1", "web01.fra1", "web02.ams2"}, []string{"motd", "nginx::user"}, 0},
		{"key and ignore", Filter{Keys: []string{"n*"}, IgnoreKeys: []string{"nginx::user"}}, []string{"db01.fra1", "web01.fra1", "web02.ams2"}, []string{"ntp::servers"}, 0},
		{"keys filtered away: unchanged", Filter{Keys: []string{"nosuch"}}, nil, nil, 3},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r, err := Compare(old, new, tc.f)
			if err != nil {
				t.Fatal(err)
			}
			var nodes, keys []string
			for _, g := range r.Groups {
				nodes = append(nodes, g.Nodes...)
				if keys == nil {
					for _, c := range g.Changes {
						keys = append(keys, c.Key)
					}
				}
			}
			if d := cmp.Diff(tc.nodes, nodes); d != "" {
				t.Errorf("nodes (-want +got):\n%s", d)
			}
			if d := cmp.Diff(tc.keys, keys); d != "" {
				t.Errorf("keys (-want +got):\n%s", d)
			}
			if r.Summary.Unchanged != tc.unchanged {
				t.Errorf("unchanged = %d, want %d", r.Summary.Unchanged, tc.unchanged)
			}
		})
	}
}

// TestNothingToCompare: an empty or missing folder, or node globs that
// match no node, are trouble, never "no differences".
func TestNothingToCompare(t *testing.T) {
	full := writeDir(t, node("web01", key("a", "x")))
	empty := t.TempDir()
	os.WriteFile(filepath.Join(empty, "README"), []byte("not a bundle"), 0o644)
	os.WriteFile(filepath.Join(empty, ".web01.bundle.123.tmp"), []byte("temporary"), 0o644)
	missing := filepath.Join(t.TempDir(), "nosuch")
	file := filepath.Join(full, "web01.bundle")

	for _, tc := range []struct {
		name     string
		old, new string
		f        Filter
		is       error
		mention  string
	}{
		{"empty OLD", empty, full, Filter{}, ErrNothingToCompare, empty},
		{"empty NEW", full, empty, Filter{}, ErrNothingToCompare, empty},
		{"missing folder", missing, full, Filter{}, fs.ErrNotExist, missing},
		{"a file, not a folder", file, full, Filter{}, nil, file},
		{"no node matches", full, full, Filter{Nodes: []string{"db*"}}, ErrNothingToCompare, `"db*"`},
		{"bad glob", full, full, Filter{Keys: []string{"[a"}}, nil, `"[a"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r, err := Compare(tc.old, tc.new, tc.f)
			if err == nil {
				t.Fatalf("no error; report %+v", r.Summary)
			}
			if tc.is != nil && !errors.Is(err, tc.is) {
				t.Errorf("error %v is not %v", err, tc.is)
			}
			if !strings.Contains(err.Error(), tc.mention) {
				t.Errorf("error %q does not name %s", err, tc.mention)
			}
			if code := ExitCode(r, err); code != ExitTrouble {
				t.Errorf("exit code %d, want %d", code, ExitTrouble)
			}
		})
	}
}

// TestBadBundles: a bundle that cannot be read, or that holds another
// node, is an error naming the file.
func TestBadBundles(t *testing.T) {
	old := writeDir(t, node("web01", key("a", "x")))
	t.Run("corrupt", func(t *testing.T) {
		dir := writeDir(t, node("web01", key("a", "y")))
		data, _ := os.ReadFile(filepath.Join(dir, "web01.bundle"))
		data[len(data)-3] ^= 0xff
		os.WriteFile(filepath.Join(dir, "web01.bundle"), data, 0o644)
		_, err := Compare(old, dir, Filter{})
		if err == nil || !strings.Contains(err.Error(), filepath.Join(dir, "web01.bundle")) {
			t.Errorf("error %v, want one naming the corrupt file", err)
		}
	})
	t.Run("not a bundle", func(t *testing.T) {
		dir := t.TempDir()
		os.WriteFile(filepath.Join(dir, "web01.bundle"), []byte("hello"), 0o644)
		_, err := Compare(old, dir, Filter{})
		if err == nil || !strings.Contains(err.Error(), filepath.Join(dir, "web01.bundle")) {
			t.Errorf("error %v, want one naming the file", err)
		}
	})
	t.Run("renamed", func(t *testing.T) {
		dir := writeDir(t, node("db01", key("a", "x")))
		os.Rename(filepath.Join(dir, "db01.bundle"), filepath.Join(dir, "web01.bundle"))
		_, err := Compare(old, dir, Filter{})
		if err == nil || !strings.Contains(err.Error(), "holds the bundle of node db01, not web01") {
			t.Errorf("error %v, want a node mismatch", err)
		}
	})
}

// TestDigestSkip checks that bundles with equal digests are not decoded,
// yet are verified: a body damaged after it was written (its header, and
// so its digest, intact) or a truncated bundle is trouble, never
// "unchanged".
func TestDigestSkip(t *testing.T) {
	var decoded atomic.Int64
	orig := details
	details = func(file string) (*format.Bundle, error) { decoded.Add(1); return orig(file) }
	t.Cleanup(func() { details = orig })

	bundles := func() []*format.Bundle {
		var bs []*format.Bundle
		for i := range 20 {
			bs = append(bs, node(fmt.Sprintf("web%02d", i), key("a", "x"), key("b", strings.Repeat("y", 1000))))
		}
		return bs
	}
	old, new := writeDir(t, bundles()...), writeDir(t, bundles()...)
	r, err := Compare(old, new, Filter{})
	if err != nil || r.Summary.Unchanged != 20 {
		t.Fatalf("Compare = %+v, %v; want 20 unchanged", r, err)
	}
	if n := decoded.Load(); n != 0 {
		t.Errorf("%d bundles decoded, want 0: their digests are equal", n)
	}

	for _, tc := range []struct {
		name   string
		damage func([]byte) []byte
		want   string
	}{
		{"bit flipped in the body", func(d []byte) []byte { d[len(d)-500] ^= 0x10; return d }, "body does not match its SHA-256 digest"},
		{"truncated", func(d []byte) []byte { return d[:len(d)-1] }, "truncated"},
		{"trailing bytes", func(d []byte) []byte { return append(d, '\n') }, "after the end"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := writeDir(t, bundles()...)
			p := filepath.Join(dir, "web07.bundle")
			data, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(p, tc.damage(data), 0o644); err != nil {
				t.Fatal(err)
			}
			if h, err := format.ReadHeader(bytes.NewReader(tc.damage(bytes.Clone(data)))); err != nil || h.Node != "web07" {
				t.Fatalf("the damage reaches the header (%v): this test is about bodies", err)
			}
			for _, sides := range [][2]string{{old, dir}, {dir, old}, {dir, linkDir(t, dir)}} {
				r, err := Compare(sides[0], sides[1], Filter{})
				if err == nil || !strings.Contains(err.Error(), p) || !strings.Contains(err.Error(), tc.want) {
					t.Errorf("Compare(%s, %s) = %v; want an error naming %s: %s", sides[0], sides[1], err, p, tc.want)
				}
				if code := ExitCode(r, err); code != ExitTrouble {
					t.Errorf("exit code %d, want %d", code, ExitTrouble)
				}
			}
		})
	}

	// NEW's bundles hard links of OLD's, as diff --git --base-out makes
	// those a compile kept: each file is read once, and unchanged.
	var reads atomic.Int64
	readHook = func(string) { reads.Add(1) }
	t.Cleanup(func() { readHook = nil })
	r, err = Compare(old, linkDir(t, old), Filter{})
	if err != nil || r.Summary.Unchanged != 20 {
		t.Fatalf("Compare(old, its links) = %+v, %v; want 20 unchanged", r, err)
	}
	if n := reads.Load(); n != 20 {
		t.Errorf("%d bundle files read, want 20: a file under both names is read once", n)
	}
}

// linkDir is a new folder holding a hard link to each bundle of dir.
func linkDir(t *testing.T, dir string) string {
	t.Helper()
	links := t.TempDir()
	files, _ := filepath.Glob(filepath.Join(dir, "*.bundle"))
	for _, f := range files {
		if err := os.Link(f, filepath.Join(links, filepath.Base(f))); err != nil {
			t.Skipf("no hard links here: %v", err)
		}
	}
	return links
}

// TestBadOnlyOneSide: a bundle found on one side only is verified too: a
// junk *.bundle is not a node "only in NEW", an unreadable one not "only
// in OLD". Every bad bundle is named, not only the first.
func TestBadOnlyOneSide(t *testing.T) {
	old := writeDir(t, node("web01", key("a", "x")), node("gone01", key("a", "x")))
	new := writeDir(t, node("web01", key("a", "x")))
	junk := filepath.Join(new, "junk.bundle")
	os.WriteFile(junk, []byte("not a bundle at all"), 0o644)
	data, _ := os.ReadFile(filepath.Join(old, "gone01.bundle"))
	truncated := filepath.Join(new, "fresh01.bundle")
	os.WriteFile(truncated, data[:len(data)/2], 0o644)
	os.Rename(filepath.Join(old, "gone01.bundle"), filepath.Join(old, "gone02.bundle"))

	r, err := Compare(old, new, Filter{})
	var bad *BadBundlesError
	if !errors.As(err, &bad) || len(bad.Errs) != 3 {
		t.Fatalf("Compare = %v, %v; want a BadBundlesError of 3 bundles", r, err)
	}
	for _, want := range []string{"3 bundles cannot be read", junk + ": format: not a hieracc bundle", truncated + ": format: corrupt bundle: truncated", "holds the bundle of node gone01, not gone02"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not say %q", err, want)
		}
	}
	if !errors.Is(err, format.ErrNotBundle) || !errors.Is(err, format.ErrCorrupt) {
		t.Errorf("error %v does not wrap the format's sentinels", err)
	}
	if code := ExitCode(r, err); code != ExitTrouble {
		t.Errorf("exit code %d, want %d", code, ExitTrouble)
	}
}

// TestExitCode pins diff(1)'s exit codes.
func TestExitCode(t *testing.T) {
	for _, tc := range []struct {
		name string
		r    *Report
		err  error
		want int
	}{
		{"no differences", &Report{Summary: Summary{Nodes: 3, Unchanged: 3}}, nil, 0},
		{"changed", &Report{Summary: Summary{Nodes: 3, Changed: 1, Unchanged: 2}}, nil, 1},
		{"only in OLD", &Report{Summary: Summary{Nodes: 3, Unchanged: 3, OnlyOld: 1}}, nil, 1},
		{"only in NEW", &Report{Summary: Summary{Nodes: 0, OnlyNew: 1}}, nil, 1},
		{"trouble", nil, ErrNothingToCompare, 2},
		{"trouble with a report", &Report{}, errors.New("boom"), 2},
	} {
		if got := ExitCode(tc.r, tc.err); got != tc.want {
			t.Errorf("%s: ExitCode = %d, want %d", tc.name, got, tc.want)
		}
	}
}
