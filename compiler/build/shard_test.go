package build

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/hieracc/hieracc/compiler/diagnostics"
	"github.com/hieracc/hieracc/compiler/facts"
	"github.com/hieracc/hieracc/format"
)

func TestParseShard(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want Shard
		err  string // part of the error; "" = none
	}{
		{in: "1/1", want: Shard{1, 1}},
		{in: "1/4", want: Shard{1, 4}},
		{in: "4/4", want: Shard{4, 4}},
		{in: "07/10", want: Shard{7, 10}},
		{in: "0/4", err: "K must be 1 to 4 (K counts from 1"},
		{in: "5/4", err: "K must be 1 to 4"},
		{in: "-1/4", err: "K must be 1 to 4"},
		{in: "1/0", err: "N must be 1 to"},
		{in: "1/-2", err: "N must be 1 to"},
		{in: "1/100001", err: "N must be 1 to 100000"},
		{in: "", err: "is not K/N"},
		{in: "4", err: "is not K/N"},
		{in: "1/", err: "is not K/N"},
		{in: "/4", err: "is not K/N"},
		{in: "1/4/5", err: "is not K/N"},
		{in: "a/4", err: "is not K/N"},
		{in: "+1/4", err: "is not K/N"},
		{in: "1 /4", err: "is not K/N"},
		{in: "1/99999999999999999999", err: "is not K/N"},
	} {
		got, err := ParseShard(tc.in)
		switch {
		case tc.err == "" && err != nil:
			t.Errorf("ParseShard(%q): %v", tc.in, err)
		case tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)):
			t.Errorf("ParseShard(%q) = %v, %v; want an error with %q", tc.in, got, err, tc.err)
		case tc.err == "" && got != tc.want:
			t.Errorf("ParseShard(%q) = %v, want %v", tc.in, got, tc.want)
		}
	}
}

// TestShardOfPinned pins the partition: a change would move users' nodes
// to other shards (and their CI caches with them). The values are those of
// the rule README.md gives, computed by hand with sha256sum:
//
//	printf %s web01.fra1.example.net | sha256sum | cut -c1-16
//	  → its first 8 bytes, as an unsigned integer, modulo N, plus 1
func TestShardOfPinned(t *testing.T) {
	for _, tc := range []struct {
		certname string
		n, want  int
	}{
		{"web01.fra1.example.net", 1, 1},
		{"web01.fra1.example.net", 3, 3},
		{"web03.ams2.example.net", 3, 1},
		{"ci01.example.org", 4, 2},
		{"db01.fra1.example.net", 4, 4},
		{"db02.ams2.example.net", 4, 1},
	} {
		if got := ShardOf(tc.certname, tc.n); got != tc.want {
			t.Errorf("ShardOf(%q, %d) = %d, want %d", tc.certname, tc.n, got, tc.want)
		}
	}
}

// names is a fleet of n certnames, as fleets name nodes.
func names(n int) []facts.Node {
	var fs []facts.Node
	for i := range n {
		name := fmt.Sprintf("%s%04d.%s.example.net", []string{"web", "db", "app"}[i%3], i, []string{"fra1", "ams2"}[i%2])
		fs = append(fs, facts.Node{Certname: name, Pos: format.Pos{File: "nodes/" + name + ".yaml"}})
	}
	return fs
}

// TestShardPartition: for every N, the shards of a fleet are disjoint and
// cover it; a node's shard does not change when nodes are added or
// removed; and the shards of 10,000 nodes are balanced.
func TestShardPartition(t *testing.T) {
	fleet := names(10000)
	for _, n := range []int{1, 2, 3, 4, 7, 16, 50} {
		t.Run(fmt.Sprintf("N=%d", n), func(t *testing.T) {
			shardOf := map[string]int{}
			worst := 0.0
			for k := 1; k <= n; k++ {
				part := Shard{k, n}.inShard(fleet)
				worst = max(worst, math.Abs(float64(len(part))*float64(n)/float64(len(fleet))-1))
				for _, ff := range part {
					if prev, dup := shardOf[ff.Certname]; dup {
						t.Fatalf("%s in shards %d and %d", ff.Certname, prev, k)
					}
					shardOf[ff.Certname] = k
				}
				// Balance: as a fair random draw, within 4 standard
				// deviations of an even share (σ is 0.5% of it at N=2,
				// 7% at N=50).
				even := float64(len(fleet)) / float64(n)
				sigma := math.Sqrt(even * (1 - 1/float64(n)))
				if d := float64(len(part)) - even; math.Abs(d) > 4*sigma {
					t.Errorf("shard %d/%d holds %d of %d nodes; an even share is %.0f", k, n, len(part), len(fleet), even)
				}
			}
			t.Logf("N=%d: the largest gap to an even share is %.1f%%", n, 100*worst)
			if len(shardOf) != len(fleet) {
				t.Fatalf("the shards hold %d nodes of %d", len(shardOf), len(fleet))
			}

			// Half the fleet gone, and as many new nodes: every node that
			// stays keeps its shard.
			changed := append(slices.Clone(fleet[:5000]), names(15000)[10000:]...)
			for k := 1; k <= n; k++ {
				for _, ff := range (Shard{k, n}).inShard(changed) {
					if old, ok := shardOf[ff.Certname]; ok && old != k {
						t.Fatalf("%s moved from shard %d to %d when other nodes came and went", ff.Certname, old, k)
					}
				}
			}
		})
	}
	if got := (Shard{}).inShard(fleet); len(got) != len(fleet) {
		t.Errorf("the zero Shard holds %d nodes of %d", len(got), len(fleet))
	}
}

func TestShardStateFile(t *testing.T) {
	for _, s := range []Shard{{1, 1}, {2, 4}, {100, 100}} {
		name := StateFileOf(s)
		if got, ok := ShardOfStateFile(name); !ok || got != s {
			t.Errorf("ShardOfStateFile(%q) = %v, %v; want %v", name, got, ok, s)
		}
	}
	if StateFileOf(Shard{}) != StateFile {
		t.Errorf("the whole fleet's state file is %q, want %q", StateFileOf(Shard{}), StateFile)
	}
	for _, name := range []string{StateFile, ".hieracc-state-0-of-4.json", ".hieracc-state-5-of-4.json", ".hieracc-state-1-of-4.json.tmp-1-2", "hieracc-state-1-of-4.json"} {
		if s, ok := ShardOfStateFile(name); ok {
			t.Errorf("ShardOfStateFile(%q) = %v, want none", name, s)
		}
	}
}

// files lists the regular files of dir by name, with their bytes, and
// those of its shared details folder as details/<name>; any other folder
// is an error.
func files(t *testing.T, dir string) map[string][]byte {
	t.Helper()
	m := map[string][]byte{}
	var list func(sub string)
	list = func(sub string) {
		entries, err := os.ReadDir(filepath.Join(dir, sub))
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range entries {
			name := path.Join(sub, e.Name())
			if e.IsDir() && name == format.SharedDetailsDir {
				list(name)
				continue
			}
			if e.IsDir() {
				t.Errorf("%s: a folder %s was left in the output", dir, name)
				continue
			}
			data, err := os.ReadFile(filepath.Join(dir, name))
			if err != nil {
				t.Fatal(err)
			}
			m[name] = data
		}
	}
	list("")
	return m
}

// sharedFiles counts the shared details files among files' names, which
// a compile of a fleet writes: a test of them that finds none tests
// nothing.
func sharedFiles(t *testing.T, files map[string][]byte) int {
	t.Helper()
	n := 0
	for name := range files {
		if dir, base := path.Split(name); dir == format.SharedDetailsDir+"/" {
			if _, ok := format.ParseSharedDetailsName(base); !ok {
				t.Errorf("%s: not a shared details file's name", name)
			}
			n++
		}
	}
	if n == 0 {
		t.Errorf("no shared details file among %d files", len(files))
	}
	return n
}

// stateNode is what a state file says of a node, its dependencies by
// path (their indexes differ from one state to another) and without the
// bundle file's identity (inode and times differ from one run to another).
type stateNode struct {
	Facts  string
	Deps   []string
	Diags  []string
	Shared string // the digest of the shared details file its bundle refers to
}

func stateNodes(t *testing.T, data []byte) map[string]stateNode {
	t.Helper()
	var s buildState
	if err := json.Unmarshal(data, &s); err != nil {
		t.Fatal(err)
	}
	m := map[string]stateNode{}
	for name, ns := range s.Nodes {
		var sn stateNode
		sn.Facts = ns.Facts
		for _, d := range ns.Deps {
			sn.Deps = append(sn.Deps, s.Paths[d])
		}
		slices.Sort(sn.Deps)
		for _, d := range ns.Diags {
			sn.Diags = append(sn.Diags, d.Text)
		}
		if ns.Bundle == nil {
			t.Errorf("state: node %s has no bundle recorded", name)
		}
		if ns.Shared > 0 && ns.Shared <= len(s.Shared) {
			sn.Shared = s.Shared[ns.Shared-1].Digest
		} else if ns.Shared != 0 {
			t.Errorf("state: node %s refers to shared details file %d of %d", name, ns.Shared, len(s.Shared))
		}
		m[name] = sn
	}
	return m
}

// TestShardUnion: the N shards' outputs, each in its folder, are a full
// compile's byte for byte: the same bundles, each exactly once; each shard
// folder's only other file is its own state, and the shards' states
// together say of every node what the full compile's state says. Shards
// compiled one after another into one folder leave the same bundles.
func TestShardUnion(t *testing.T) {
	repo := copyTree(t, "../../testdata/example")
	tmp := t.TempDir()
	full := filepath.Join(tmp, "full")
	compileInto(t, repo, full)
	want := files(t, full)
	wantState := stateNodes(t, want[StateFile])
	delete(want, StateFile)
	t.Logf("a full compile writes %d shared details files", sharedFiles(t, want))

	for _, n := range []int{1, 2, 3, 4, 9} {
		t.Run(fmt.Sprintf("N=%d", n), func(t *testing.T) {
			union := map[string][]byte{}
			unionState := map[string]stateNode{}
			shared := filepath.Join(tmp, fmt.Sprintf("shared-%d", n))
			for k := 1; k <= n; k++ {
				s := Shard{k, n}
				out := filepath.Join(tmp, fmt.Sprintf("N%d-shard%d", n, k))
				r := compileInto(t, repo, out, Config{Shard: s})
				compileInto(t, repo, shared, Config{Shard: s})
				got := files(t, out)
				state, ok := got[StateFileOf(s)]
				if !ok {
					t.Fatalf("shard %v wrote no %s", s, StateFileOf(s))
				}
				delete(got, StateFileOf(s))
				nshared := 0
				if r.Nodes > 0 {
					nshared = sharedFiles(t, got)
				}
				if r.Nodes != len(got)-nshared || r.Written != r.Nodes || r.SharedWritten != nshared {
					t.Errorf("shard %v: compiled %d nodes, wrote %d and %d shared details files, but its folder holds %d bundles and %d shared details files",
						s, r.Nodes, r.Written, r.SharedWritten, len(got)-nshared, nshared)
				}
				for name, data := range got {
					if strings.HasPrefix(name, format.SharedDetailsDir+"/") {
						if old, dup := union[name]; dup && !bytes.Equal(old, data) {
							t.Errorf("%s differs between two shards", name)
						}
						union[name] = data // as many shards as refer to it hold it
						continue
					}
					if _, dup := union[name]; dup {
						t.Errorf("%s written by two shards", name)
					}
					if !s.Holds(strings.TrimSuffix(name, ".bundle")) {
						t.Errorf("shard %v wrote %s, another shard's node", s, name)
					}
					union[name] = data
				}
				for node, sn := range stateNodes(t, state) {
					unionState[node] = sn
				}
			}
			if d := cmp.Diff(want, union); d != "" {
				t.Errorf("the union of %d shards differs from a full compile (-full +union):\n%s", n, d)
			}
			if d := cmp.Diff(wantState, unionState); d != "" {
				t.Errorf("the states of %d shards differ from a full compile's (-full +shards):\n%s", n, d)
			}
			got := files(t, shared)
			for k := 1; k <= n; k++ {
				if _, ok := got[StateFileOf(Shard{k, n})]; !ok {
					t.Errorf("shared folder: no state of shard %d/%d", k, n)
				}
				delete(got, StateFileOf(Shard{k, n}))
			}
			if d := cmp.Diff(want, got); d != "" {
				t.Errorf("%d shards into one folder differ from a full compile (-full +shards):\n%s", n, d)
			}
		})
	}
}

// TestShardIncremental: each shard compiles incrementally on its own, and
// removes only the bundles of its own nodes whose facts are gone, even in
// a folder it shares with other shards.
func TestShardIncremental(t *testing.T) {
	repo := copyTree(t, "../../testdata/example")
	out := filepath.Join(t.TempDir(), "out")
	const n = 3
	for k := 1; k <= n; k++ {
		compileInto(t, repo, out, Config{Shard: Shard{k, n}})
	}
	// db01 is in shard 3/3, web03 in 1/3.
	nodeData := filepath.Join(repo, "env", "data", "nodes", "db01.fra1.example.net.yaml")
	data, err := os.ReadFile(nodeData)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(nodeData, append(data, "\nextra::key: added\n"...), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(filepath.Join(repo, "nodes", "web03.ams2.example.net.yaml")); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		k, compiled, removed int
	}{
		{2, 0, 0}, // neither node is its: nothing to do
		{3, 1, 0}, // db01's data changed
		{1, 0, 1}, // web03's facts are gone
		{3, 0, 0},
	} {
		r := compileInto(t, repo, out, Config{Shard: Shard{tc.k, n}})
		if got := compiled(r); got != tc.compiled || r.Removed != tc.removed {
			t.Errorf("shard %d/%d: compiled %d (-1: a full compile), removed %d; want %d, %d", tc.k, n, got, r.Removed, tc.compiled, tc.removed)
		}
	}
	full := filepath.Join(t.TempDir(), "full")
	compileInto(t, repo, full)
	want := files(t, full)
	delete(want, StateFile)
	got := files(t, out)
	for k := 1; k <= n; k++ {
		delete(got, StateFileOf(Shard{k, n}))
	}
	// A shard never removes a shared details file (another shard's
	// bundles may refer to it): those of web03 alone may stay.
	for name := range got {
		if _, ok := want[name]; !ok && strings.HasPrefix(name, format.SharedDetailsDir+"/") {
			delete(got, name)
		}
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("the shards' folder differs from a full compile (-full +shards):\n%s", d)
	}

	// A build of the whole fleet into the shards' folder makes it its
	// own: the shards' states go, as they no longer say what it holds.
	compileInto(t, repo, out)
	var gotNames, wantNames []string
	for name := range files(t, out) {
		gotNames = append(gotNames, name)
	}
	for name := range files(t, full) {
		wantNames = append(wantNames, name)
	}
	slices.Sort(gotNames)
	slices.Sort(wantNames)
	if d := cmp.Diff(wantNames, gotNames); d != "" {
		t.Errorf("a full compile into the shards' folder left other files than a full compile's (-full +got):\n%s", d)
	}
}

// TestShardFactErrors: a problem with the facts of a node known (a
// certname given twice) is reported by that node's shard only; a facts
// file that does not parse, or a folder of no facts, by every shard,
// since it may hold any shard's nodes (a file's name is not its nodes'
// certname when it is an export of many). A shard reporting an error
// removes nothing.
func TestShardFactErrors(t *testing.T) {
	repo := copyTree(t, "../../testdata/example")
	tmp := t.TempDir()
	// web02 is in shard 3/3.
	if err := os.WriteFile(filepath.Join(repo, "nodes", "web02.fra1.example.net.yaml"), []byte("os: [\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	empty := filepath.Join(tmp, "empty")
	if err := os.Mkdir(empty, 0o755); err != nil {
		t.Fatal(err)
	}
	// web01, also in shard 3/3, given twice.
	twice := filepath.Join(tmp, "twice")
	if err := os.Mkdir(twice, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(twice, "web01.fra1.example.net.json"), []byte(`{"role": "web"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	run := func(k int, facts ...string) *Report {
		t.Helper()
		r, err := Run(t.Context(), Config{Env: filepath.Join(repo, "env"), Modules: filepath.Join(repo, "modules"),
			Facts: facts, Out: filepath.Join(tmp, fmt.Sprint("out", k)), Shard: Shard{k, 3}, KeepGoing: true})
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	has := func(r *Report, part string) bool {
		return slices.ContainsFunc(r.Facts, func(d diagnostics.Diagnostic) bool { return strings.Contains(d.String(), part) })
	}
	nodes := filepath.Join(repo, "nodes")
	if got := ShardOf("web01.fra1.example.net", 3); got != 3 {
		t.Fatalf("web01 is in shard %d/3; the test wants it in 3/3", got)
	}
	for k := 1; k <= 3; k++ {
		r := run(k, nodes)
		if !has(r, "web02.fra1.example.net.yaml") || len(r.Facts) != 1 || r.Removed != 0 {
			t.Errorf("shard %d/3 reported %v, removed %d; want web02's facts reported, nothing removed", k, r.Facts, r.Removed)
		}
		r = run(k, nodes, empty)
		if !has(r, "no facts files") || r.Removed != 0 {
			t.Errorf("shard %d/3, with a folder of no facts: %+v; want the folder reported, nothing removed", k, r)
		}
		r = run(k, nodes, twice)
		if dup := has(r, "facts for node web01.fra1.example.net are also at"); dup != (k == 3) {
			t.Errorf("shard %d/3 reported %v; want web01 given twice reported by shard 3/3 only", k, r.Facts)
		}
	}
}

// FuzzParseShard: whatever --shard is given, ParseShard does not panic,
// and a K/N it accepts is a shard (1 ≤ K ≤ N) that reads back the same,
// whose state file is recognised as its own.
func FuzzParseShard(f *testing.F) {
	for _, s := range []string{"1/4", "0/4", "4/4", "07/10", "", "/", "1/", "-1/-1", "9223372036854775807/9223372036854775807", "1/4/5"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		s, err := ParseShard(in)
		if err != nil {
			return
		}
		if s.K < 1 || s.K > s.N || s.N > maxShards {
			t.Fatalf("ParseShard(%q) = %+v", in, s)
		}
		if again, err := ParseShard(s.String()); err != nil || again != s {
			t.Fatalf("ParseShard(%q) = %v; ParseShard(%q) = %v, %v", in, s, s.String(), again, err)
		}
		if got, ok := ShardOfStateFile(StateFileOf(s)); !ok || got != s {
			t.Fatalf("ShardOfStateFile(StateFileOf(%v)) = %v, %v", s, got, ok)
		}
		if k := ShardOf(in, s.N); k < 1 || k > s.N {
			t.Fatalf("ShardOf(%q, %d) = %d", in, s.N, k)
		}
	})
}

// TestShardUnionEnvs: with environments from facts too, the N shards'
// outputs are a full compile's byte for byte, details/ included.
func TestShardUnionEnvs(t *testing.T) {
	root := t.TempDir()
	hiera := "version: 5\nhierarchy:\n  - name: Role\n    path: \"roles/%{facts.role}.yaml\"\n  - name: Common\n    path: common.yaml\n"
	var export []string
	for i := range 12 {
		env, role := []string{"production", "staging"}[i%2], []string{"web", "db", "lb"}[i%3]
		export = append(export, fmt.Sprintf(`{"certname": "n%02d", "environment": %q, "facts": {"data": [{"name": "role", "value": %q}]}}`, i, env, role))
	}
	for name, content := range map[string]string{
		"envs/production/hiera.yaml":          hiera,
		"envs/production/data/common.yaml":    "where: \"%{environment}\"\nntp::servers: [a, b]\n",
		"envs/production/data/roles/web.yaml": "web::port: 80\n",
		"envs/production/data/roles/db.yaml":  "db::size: 10\n",
		"envs/staging/hiera.yaml":             hiera,
		"envs/staging/data/common.yaml":       "where: \"%{environment}\"\nntp::servers: [c]\n",
		"envs/staging/data/roles/web.yaml":    "web::port: 8080\n",
		"facts/export.json":                   "[" + strings.Join(export, ",\n") + "]\n",
	} {
		write(t, filepath.Join(root, filepath.FromSlash(name)), content)
	}
	cfg := func(out string, s Shard) Config {
		return Config{EnvRoot: filepath.Join(root, "envs"), Facts: []string{filepath.Join(root, "facts")}, Out: out, Shard: s}
	}
	full := filepath.Join(root, "full")
	if r := mustRun(t, cfg(full, Shard{})); r.Environments != 2 || r.Nodes != 12 {
		t.Fatalf("%d nodes in %d environments, want 12 in 2", r.Nodes, r.Environments)
	}
	want := files(t, full)
	sharedFiles(t, want)
	for _, n := range []int{2, 5} {
		union := map[string][]byte{}
		for k := 1; k <= n; k++ {
			out := filepath.Join(root, fmt.Sprintf("N%d-%d", n, k))
			mustRun(t, cfg(out, Shard{k, n}))
			for name, data := range files(t, out) {
				if old, dup := union[name]; dup && (!strings.HasPrefix(name, format.SharedDetailsDir+"/") || !bytes.Equal(old, data)) {
					t.Errorf("N=%d: %s written by two shards, or differently", n, name)
				}
				union[name] = data
			}
		}
		if d := cmp.Diff(want, union); d != "" {
			t.Errorf("the union of %d shards differs from a full compile (-full +union):\n%s", n, d)
		}
	}
}
