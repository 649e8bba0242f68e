package compiler

import (
	"bytes"
	"context"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/google/go-cmp/cmp"
	"github.com/hieracc/hieracc/compiler/diagnostics"
	"github.com/hieracc/hieracc/compiler/internal/share"
	"github.com/hieracc/hieracc/format"
	"github.com/hieracc/hieracc/format/encode"
)

// compileBytes compiles every node of a case-shaped repo and encodes the
// bundles, with or without sharing work across nodes.
func compileBytes(t *testing.T, fsys fs.FS, share bool) map[string][]byte {
	t.Helper()
	return compileInput(t, fsys, Input{NoSharing: !share})
}

// compileInput is compileBytes with in's test switches.
func compileInput(t *testing.T, fsys fs.FS, in Input) map[string][]byte {
	t.Helper()
	in.FS, in.EnvDir, in.ModulesDir, in.GlobalDir, in.Jobs = fsys, "env", "modules", "global", 1
	files, _ := fs.Glob(fsys, "nodes/*.yaml")
	sort.Strings(files)
	for _, f := range files {
		n, ds := LoadFacts(fsys, f)
		if len(ds) > 0 {
			t.Fatalf("facts: %v", ds)
		}
		in.Nodes = append(in.Nodes, n)
	}
	res, err := Compile(context.Background(), in)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string][]byte{}
	for _, b := range res.Bundles {
		data, err := encode.Encode(b)
		if err != nil {
			t.Fatal(err)
		}
		out[b.Node] = data
	}
	return out
}

// compileNodes compiles nodes over fsys's environment on one worker, with
// or without sharing work across nodes, and encodes the bundles; it
// returns them by node, the diagnostics and what the worker counted.
func compileNodes(t *testing.T, fsys fs.FS, nodes []Node, sharing bool) (map[string][]byte, []diagnostics.Diagnostic, share.Stats) {
	t.Helper()
	var stats share.Stats
	res, err := Compile(context.Background(), Input{FS: fsys, EnvDir: "env", Nodes: nodes, Jobs: 1,
		NoSharing: !sharing, workerDone: func(w *worker) { stats.Add(w.share.Stats) }})
	if err != nil {
		t.Fatal(err)
	}
	out := map[string][]byte{}
	for _, b := range res.Bundles {
		if out[b.Node], err = encode.Encode(b); err != nil {
			t.Fatal(err)
		}
	}
	return out, res.Diagnostics, stats
}

// compareSharing compiles nodes without sharing work across nodes and
// with it, and reports every bundle and diagnostic that sharing changed;
// it returns what the sharing compile's worker counted and its
// diagnostics.
func compareSharing(t *testing.T, fsys fs.FS, nodes []Node) (share.Stats, []diagnostics.Diagnostic) {
	t.Helper()
	want, wantDiags, _ := compileNodes(t, fsys, nodes, false)
	got, gotDiags, stats := compileNodes(t, fsys, nodes, true)
	if len(want) != len(got) {
		t.Errorf("%d bundles with sharing, %d without", len(got), len(want))
	}
	for node, w := range want {
		if !bytes.Equal(w, got[node]) {
			t.Errorf("node %s: sharing work across nodes changed its bundle", node)
		}
	}
	if d := cmp.Diff(wantDiags, gotDiags); d != "" {
		t.Errorf("diagnostics (-without sharing +with):\n%s", d)
	}
	return stats, gotDiags
}

func assertSameBundles(t *testing.T, name string, fsys fs.FS) {
	t.Helper()
	want := compileBytes(t, fsys, false)
	got := compileBytes(t, fsys, true)
	if len(want) != len(got) {
		t.Fatalf("%s: %d bundles with sharing, %d without", name, len(got), len(want))
	}
	for node, w := range want {
		if !bytes.Equal(w, got[node]) {
			t.Errorf("%s: node %s: sharing work across nodes changed its bundle", name, node)
		}
	}
}

// TestSharingChangesNothing compiles every conformance case and the example
// with and without sharing work across nodes: the bundles must be identical.
func TestSharingChangesNothing(t *testing.T) {
	dirs := []string{"../testdata/example"}
	cases, _ := filepath.Glob("../../shared/conformance/public/*")
	dirs = append(dirs, cases...)
	own, _ := filepath.Glob("../testdata/conformance/*/expected.yaml")
	for _, f := range own {
		dirs = append(dirs, filepath.Dir(f))
	}
	for _, dir := range dirs {
		assertSameBundles(t, filepath.Base(dir), os.DirFS(dir))
	}
}

// nodeRoleCommon is a hiera.yaml with a per-node, a role and a common level.
const nodeRoleCommon = `version: 5
hierarchy:
  - name: Node
    path: "nodes/%{trusted.certname}.yaml"
  - name: Role
    path: "role/%{facts.role}.yaml"
  - name: Common
    path: common.yaml
`

// TestSharingFollowsWhatNodesRead builds a fleet whose nodes share their
// hierarchy files but differ in what interpolation reads: facts, trusted
// data, nested lookups of per-node keys, missing variables. Each node must
// still get exactly its own values.
func TestSharingFollowsWhatNodesRead(t *testing.T) {
	fsys := fstest.MapFS{
		"env/hiera.yaml": {Data: []byte(nodeRoleCommon)},
		"env/data/common.yaml": {Data: []byte(`
plain: same for all
by_fact: "rack %{facts.rack}"
by_host: "%{trusted.hostname}.internal"
by_lookup: "<%{lookup('per_node')}>"
by_alias: "%{alias('per_node_list')}"
by_missing: "[%{facts.sometimes}]"
per_node: common
per_node_list: [common]
nested:
  "%{facts.rack}": "%{facts.role}"
lookup_options:
  merged:
    merge: unique
merged: [common, "%{facts.rack}"]
`)},
		"env/data/role/web.yaml":         {Data: []byte("merged: [web]\nper_node: web\n")},
		"env/data/nodes/n3.yaml":         {Data: []byte("per_node: mine\nper_node_list: [n3]\n")},
		"env/data/nodes/n5.yaml":         {Data: []byte("merged: [n5]\n")},
		"env/modules/m/hiera.yaml":       {Data: []byte("version: 5\n")},
		"env/modules/m/data/common.yaml": {Data: []byte("m::k: \"%{facts.rack}-%{lookup('per_node')}\"\n")},
	}
	for i := range 8 {
		facts := fmt.Sprintf("role: %s\nrack: %d\n", []string{"web", "db"}[i%2], i/3)
		if i%4 == 0 {
			facts += "sometimes: here\n"
		}
		fsys[fmt.Sprintf("nodes/n%d.yaml", i)] = &fstest.MapFile{Data: []byte(facts)}
	}
	assertSameBundles(t, "fleet", fsys)

	// And the sharing really happened: a compile with one worker must
	// reuse results (otherwise this test proves nothing).
	got := compileBytes(t, fsys, true)
	if !strings.Contains(string(got["n2"]), "rack 0") || !strings.Contains(string(got["n3"]), "rack 1") {
		t.Errorf("per-node interpolation lost")
	}
}

// TestRevisionFollowsTheNodesInputs: a change to one node's data changes
// that node's bundle (its revision at least) and leaves every other node's
// bundle byte-identical, so unchanged bundles need not be rewritten.
func TestRevisionFollowsTheNodesInputs(t *testing.T) {
	fsys := os.DirFS("../testdata/example")
	before := compileBytes(t, fsys, true)

	changed := fstest.MapFS{}
	err := fs.WalkDir(fsys, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := fs.ReadFile(fsys, p)
		changed[p] = &fstest.MapFile{Data: data}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	nodeFiles, _ := fs.Glob(fsys, "env/data/nodes/*.yaml")
	if len(nodeFiles) == 0 {
		t.Fatal("the example has no per-node data file")
	}
	target := strings.TrimSuffix(filepath.Base(nodeFiles[0]), ".yaml")
	f := changed[nodeFiles[0]]
	f.Data = append(append([]byte{}, f.Data...), "\n# a comment changes the file, not its data\n"...)
	after := compileBytes(t, changed, true)

	for node, b := range before {
		same := bytes.Equal(b, after[node])
		switch {
		case node == target && same:
			t.Errorf("%s: its data file changed but its bundle did not (revision must follow it)", node)
		case node != target && !same:
			t.Errorf("%s: another node's data file changed, yet its bundle changed", node)
		}
	}
}

// TestSlicesShareBookkeeping compiles a fleet whose nodes have files of
// their own (so per-node positions are masked out of their slices) with
// every kind of key: plain, interpolating a per-node or per-slice fact,
// overridden per node, merged with per-node data, nested lookups of keys
// nodes override, module keys, and one node with lookup_options of its
// own. Sharing must change no byte, and the slice path must be the one
// taken for most keys (otherwise this proves nothing).
func TestSlicesShareBookkeeping(t *testing.T) {
	fsys := fstest.MapFS{
		"env/hiera.yaml": {Data: []byte(nodeRoleCommon)},
		"env/data/common.yaml": {Data: []byte(`
lookup_options:
  merged:
    merge: deep
plain: same for all
by_host: "%{trusted.certname}.internal"
by_role: "role %{facts.role}"
overridden: common
by_lookup: "<%{lookup('overridden')}>"
merged: {a: 1, b: {c: 2}}
list: [1, 2]
`)},
		"env/data/role/web.yaml":         {Data: []byte("plain_web: web\nmerged: {b: {d: 3}}\n")},
		"env/data/role/db.yaml":          {Data: []byte("plain_db: db\n")},
		"env/modules/m/hiera.yaml":       {Data: []byte("version: 5\n")},
		"env/modules/m/data/common.yaml": {Data: []byte("m::k: \"%{facts.role}-%{lookup('overridden')}\"\nm::plain: m\n")},
	}
	for i := range 40 {
		role := []string{"web", "db", "web"}[i%3]
		fsys[fmt.Sprintf("nodes/n%02d.yaml", i)] = &fstest.MapFile{Data: []byte("role: " + role + "\n")}
		var data string
		switch i % 4 {
		case 0:
			data = fmt.Sprintf("overridden: n%02d\n", i)
		case 1:
			data = fmt.Sprintf("merged: {b: {n: %d}}\nown_%d: x\n", i, i)
		case 2:
			data = "list: [3]\n"
		}
		if i == 21 {
			data += "lookup_options:\n  list:\n    merge: unique\n"
		}
		if data != "" {
			fsys[fmt.Sprintf("env/data/nodes/n%02d.yaml", i)] = &fstest.MapFile{Data: []byte(data)}
		}
	}

	assertSameBundles(t, "fleet", fsys)

	var stats share.Stats
	compileInput(t, fsys, Input{workerDone: func(w *worker) { stats.Add(w.share.Stats) }})
	t.Logf("%+v", stats)
	if stats.NoSlice > 0 || stats.Static < 100 || stats.General > stats.Slot+stats.Static {
		t.Errorf("the slice path was hardly taken: %+v", stats)
	}
}

// TestSharingKeepsRecursions: results reused across keys and nodes (nested
// lookups, compiled keys, other nodes' results) must not hide a recursion
// Puppet reports, nor report one it does not. Nodes differ in which level
// holds the helper keys and in whether the cycle is reached at all.
func TestSharingKeepsRecursions(t *testing.T) {
	fsys := fstest.MapFS{
		"env/hiera.yaml": {Data: []byte(nodeRoleCommon)},
		"env/data/common.yaml": {Data: []byte(`
x: {k: "%{lookup('f')}"}
f: "%{lookup('x')}"
e: "%{lookup('y')}"
y: {k: "%{alias('y')}"}
g: "%{literal('%')}{lookup('h')}"
h: "%{lookup('g')}"
uses_g: "<%{lookup('g')}>"
`)},
		"env/data/role/web.yaml": {Data: []byte("x: {a: 1}\ny: {a: 1}\n")},
		"env/data/role/db.yaml":  {Data: []byte("f: plain\n")},
	}
	for i := range 9 {
		role := []string{"web", "db", "other"}[i%3]
		fsys[fmt.Sprintf("nodes/n%d.yaml", i)] = &fstest.MapFile{Data: []byte("role: " + role + "\n")}
		if i%4 == 1 {
			fsys[fmt.Sprintf("env/data/nodes/n%d.yaml", i)] = &fstest.MapFile{Data: []byte("e: mine\nh: mine\n")}
		}
	}
	assertSameBundles(t, "fleet", fsys)

	res := compileBytes(t, fsys, true)
	for node, data := range res {
		b, err := format.Decode(data)
		if err != nil {
			t.Fatal(err)
		}
		// y's common level aliases y: reading it (a merge does) is a
		// cycle on every node, even where e looked y up first.
		k := keyOf(b, "y")
		if k == nil || len(k.Contributions) == 0 {
			t.Fatalf("%s: no contributions for y", node)
		}
		last := k.Contributions[len(k.Contributions)-1]
		if last.Err == nil || !strings.Contains(last.Err.Message, "Recursive lookup detected in [y]") {
			t.Errorf("%s: y's common level = %+v, want a recursion", node, last)
		}
	}
}

// TestReleasedFilesChangeNothing: each node's own data file is released
// from the file cache once the node is compiled; a node that reaches a
// released file after all (three nodes share one here) loads it again.
// Bundles and diagnostics (a released file's warning included, once) are
// those of a compile that releases nothing.
func TestReleasedFilesChangeNothing(t *testing.T) {
	fsys := fstest.MapFS{
		"env/hiera.yaml": {Data: []byte(`version: 5
hierarchy:
  - name: Host
    path: "nodes/%{facts.host}.yaml"
  - name: Role
    path: "role/%{facts.role}.yaml"
  - name: Common
    path: common.yaml
`)},
		"env/data/common.yaml":   {Data: []byte("a: common\nb: \"%{facts.host}\"\n")},
		"env/data/role/web.yaml": {Data: []byte("a: web\n")},
		// A warning: a top-level key no lookup can find.
		"env/data/nodes/h09.yaml": {Data: []byte("a: shared\n? [x]\n: 1\n")},
	}
	var nodes []Node
	for i := range 12 {
		host := fmt.Sprintf("h%02d", min(i, 9)) // h09 for the last three
		if i < 9 {
			fsys["env/data/nodes/"+host+".yaml"] = &fstest.MapFile{Data: []byte(fmt.Sprintf("a: own%d\nc: %d\n", i, i))}
		}
		facts := format.NewHash(2)
		facts.Set("host", host)
		facts.Set("role", "web")
		nodes = append(nodes, Node{Name: fmt.Sprintf("n%02d", i), Facts: facts})
	}
	stats, gotDiags := compareSharing(t, fsys, nodes)
	if stats.Released < 6 {
		t.Errorf("%d files released, want most nodes' own", stats.Released)
	}
	if len(gotDiags) != 1 {
		t.Errorf("%d diagnostics, want the one warning: %v", len(gotDiags), gotDiags)
	}

	// What the cache holds once every node is compiled: the shared files,
	// and the per-node files of the first nodes, before their position
	// was seen to be per-node.
	c := prepare(Input{FS: fsys, EnvDir: "env"})
	w := newWorker()
	for _, node := range nodes {
		c.compileNode(w, node)
	}
	var held []string
	for k, e := range c.files.entries {
		if e.df != nil {
			held = append(held, k.path)
		}
	}
	sort.Strings(held)
	wantHeld := []string{"env/data/common.yaml", "env/data/nodes/h00.yaml", "env/data/nodes/h01.yaml", "env/data/nodes/h02.yaml", "env/data/role/web.yaml"}
	if d := cmp.Diff(wantHeld, held); d != "" {
		t.Errorf("files held after the compile (-want +got):\n%s", d)
	}
}

// TestSliceShortcutsChangeNothing: the slice's results that hold for
// every node are copied in runs (share.Table's static runs), but only those
// with nothing to replay: a result with a warning, an error, or names its
// computation tested (a later key's nested lookup depends on them) is
// taken one by one. A key each node compiles itself (it reads the node's
// name) takes its options and where they are written from its slot
// (keyPre), and the slice's keys their locations from the table
// (tableLocs). A hierarchy level is expanded once for the nodes that read
// the same values (share.ExpandLevel). Bundles and diagnostics are those
// of a compile that shares nothing.
func TestSliceShortcutsChangeNothing(t *testing.T) {
	fsys := fstest.MapFS{
		"env/hiera.yaml": {Data: []byte(nodeRoleCommon)},
		"env/data/common.yaml": {Data: []byte(`
lookup_options:
  hosts:
    merge: unique
hosts: ["%{trusted.certname}", common]
a_plain: 1
b_plain: two
broken: "%{alias('a_plain')} and more"
k: "%{literal('k2')}"
k2: "%{lookup('k')}"
unclosed: "100%{ sure"
z_plain: [3]
`)},
		"env/data/role/web.yaml": {Data: []byte("b_plain: web\nhosts: [web]\n")},
		// A level whose expansion warns on every node (no such variable):
		// never taken from another node's expansion.
		"env/modules/m/hiera.yaml":    {Data: []byte("version: 5\nhierarchy:\n  - name: Odd\n    path: \"odd/%{nosuch}.yaml\"\n  - name: Role\n    path: \"%{facts.role}.yaml\"\n")},
		"env/modules/m/data/web.yaml": {Data: []byte("m::k: web\nm::j: web\n")},
	}
	var nodes []Node
	for i := range 12 {
		fsys[fmt.Sprintf("env/data/nodes/n%02d.yaml", i)] = &fstest.MapFile{Data: []byte(fmt.Sprintf("own: %d\n", i))}
		facts := format.NewHash(1)
		facts.Set("role", "web")
		nodes = append(nodes, Node{Name: fmt.Sprintf("n%02d", i), Facts: facts})
	}
	stats, gotDiags := compareSharing(t, fsys, nodes)
	if stats.Static < 8*3 {
		t.Errorf("%d static results taken, want the plain keys of most nodes", stats.Static)
	}
	if len(gotDiags) < 3*len(nodes) {
		t.Errorf("%d diagnostics, want each node's error and warnings: %v", len(gotDiags), gotDiags)
	}
}

// TestTemplatesChangeNothing: a key that reads the node's name is read
// from its slot's template (template.go): the strings naming the node
// interpolated again, the rest taken from the template's node. The fleet
// shares one slice but for a per-node file, and its keys read the node's
// name in strings, arrays and hashes, beside facts that some nodes of the
// slice do not share (rack), under merges that a name can change (a
// unique merge meeting another node's name, a knockout prefix some names
// carry), in hashes whose keys are interpolated, with a name that holds
// "%{", a host name some nodes lack, a variable no node has (each node
// warns), and nested lookups of a key some nodes override. Bundles and
// diagnostics are those of a compile that shares nothing, and most such
// keys come from a template (otherwise this proves nothing).
func TestTemplatesChangeNothing(t *testing.T) {
	fsys := fstest.MapFS{
		"env/hiera.yaml": {Data: []byte(nodeRoleCommon)},
		"env/data/common.yaml": {Data: []byte(`
lookup_options:
  uniq:
    merge: unique
  deep:
    merge:
      strategy: deep
      knockout_prefix: "--"
  hashed:
    merge: hash
  uniq1:
    merge: unique
  uniq2:
    merge: unique
  deep1:
    merge: deep
name: "%{trusted.certname}"
said: "I am %{trusted.certname} in %{facts.role}"
host: "%{facts.networking.hostname}.example.net"
list: [a, "%{trusted.certname}", "%{facts.role}-x", [b, "%{::hostname}"]]
nested: {a: 1, b: {c: "%{trusted.certname}", d: [2, "%{facts.role}"]}, e: "%{facts.role}"}
keyed: {"%{facts.role}": "%{trusted.certname}", plain: x}
named_key: {"%{trusted.certname}": 1, n10: 2}
racked: "%{facts.rack}/%{trusted.certname}"
rack_list: ["%{facts.rack}", "%{trusted.certname}"]
warned: ["%{::nosuch}", "%{trusted.certname}"]
looked: ["%{lookup('said')}", "%{trusted.certname}"]
counted: ["%{scope('facts.count')}", "%{scope('trusted.certname')}", "%{literal('x')}-%{trusted.certname}"]
uniq: ["%{trusted.certname}", n10, common]
uniq1: ["%{trusted.certname}", n10]
uniq2: [n10]
deep1: ["%{trusted.certname}", n10]
deep: {list: ["%{trusted.certname}", n07, kept], h: {x: "%{trusted.certname}"}}
hashed: {a: "%{trusted.certname}", b: common}
`)},
		"env/data/role/web.yaml": {Data: []byte(`
uniq: [web, "%{trusted.certname}"]
uniq2: ["%{trusted.certname}", n10]
deep: {list: [web, "--n07"], h: {y: "%{facts.role}"}}
hashed: {b: "%{trusted.certname}-web"}
list: [web]
`)},
	}
	var nodes []Node
	for i := range 16 {
		name := fmt.Sprintf("n%02d", i)
		switch i {
		case 9:
			name = "--n09" // knocks a value out where it is interpolated
		case 12:
			name = "n%{facts.role}" // interpolated again where inserted
		}
		if i%4 == 1 {
			fsys["env/data/nodes/"+name+".yaml"] = &fstest.MapFile{Data: []byte(fmt.Sprintf("own: %d\nsaid: mine\n", i))}
		}
		facts := format.NewHash(4)
		facts.Set("role", "web")
		facts.Set("rack", []string{"r1", "r1", "r1", "r2"}[i%4])
		facts.Set("count", int64(2))
		if i != 6 {
			net := format.NewHash(1)
			net.Set("hostname", "h"+name)
			facts.Set("networking", net)
			facts.Set("hostname", "h"+name)
		}
		nodes = append(nodes, Node{Name: name, Facts: facts})
	}
	stats, _ := compareSharing(t, fsys, nodes)
	t.Logf("%+v", stats)
	if stats.Templated < 6*8 {
		t.Errorf("%d keys read from a template, want most of the per-node keys of most nodes", stats.Templated)
	}
}

// TestTemplatesPerValue: where a variable a per-node key reads takes
// one of two values from node to node of a slice (an OS release, say),
// the slot keeps a template for each, so that every node but the first
// of each value reads its keys from one (once the slot is found to be
// per-node: from the fifth node on), and still gets what a compile that
// shares nothing gives.
func TestTemplatesPerValue(t *testing.T) {
	fsys := fstest.MapFS{
		"env/hiera.yaml": {Data: []byte(nodeRoleCommon)},
		"env/data/common.yaml": {Data: []byte(`
lookup_options:
  merged:
    merge: unique
opts: "-Drelease=%{facts.release} -Dnode=%{trusted.certname}"
list: ["%{facts.release}", "%{trusted.certname}", x]
merged: ["%{trusted.certname}", "r%{facts.release}"]
`)},
		"env/data/role/web.yaml": {Data: []byte("merged: [web, \"%{facts.release}\"]\n")},
	}
	const nodes, keys = 16, 3
	var list []Node
	for i := range nodes {
		facts := format.NewHash(2)
		facts.Set("role", "web")
		facts.Set("release", []string{"8", "9"}[i%2])
		list = append(list, Node{Name: fmt.Sprintf("n%02d", i), Facts: facts})
	}
	stats, _ := compareSharing(t, fsys, list)
	if want := (nodes - 6) * keys; stats.Templated < want {
		t.Errorf("%d keys read from a template, want at least %d: one template per release", stats.Templated, want)
	}
}

// TestRecentResultsByVariables: keys reading a variable that takes two
// values, node after node, keep a result for each; whether one holds on a
// node is found by the first key that reads the variable, and the keys
// after it take the result whose variables hold (recentHit), not another.
func TestRecentResultsByVariables(t *testing.T) {
	fsys := fstest.MapFS{
		"env/hiera.yaml": {Data: []byte(nodeRoleCommon)},
		"env/data/common.yaml": {Data: []byte(`
a1: "%{facts.color}-1"
a2: "%{facts.color}-2"
a3: ["%{facts.color}", x]
a4: {c: "%{facts.color}", s: "%{facts.size}"}
`)},
		"env/data/role/web.yaml": {Data: []byte("a5: \"%{facts.color}\"\n")},
	}
	var nodes []Node
	for i := range 12 {
		facts := format.NewHash(3)
		facts.Set("role", "web")
		facts.Set("color", []string{"red", "blue", "blue", "red", "green"}[i%5])
		facts.Set("size", []int64{1, 2}[i%2])
		nodes = append(nodes, Node{Name: fmt.Sprintf("n%02d", i), Facts: facts})
	}
	stats, _ := compareSharing(t, fsys, nodes)
	if stats.Slot < 12*4 {
		t.Errorf("%d keys taken from their slots, want every key of every node", stats.Slot)
	}
}

// TestOwnFilesMergeIntoSliceLocations: a key that both a node's own file
// and its slice's files hold is read from the slot's locations and the
// own file's, in hierarchy order (withOwn), wherever the per-node level
// sits: here between the slice's levels and after them.
func TestOwnFilesMergeIntoSliceLocations(t *testing.T) {
	fsys := fstest.MapFS{
		"env/hiera.yaml": {Data: []byte(`version: 5
hierarchy:
  - name: Role
    path: "role/%{facts.role}.yaml"
  - name: Node
    path: "nodes/%{trusted.certname}.yaml"
  - name: Common
    path: common.yaml
  - name: Late
    path: "late/%{trusted.certname}.yaml"
`)},
		"env/data/common.yaml": {Data: []byte(`
lookup_options:
  merged:
    merge: deep
  listed:
    merge: unique
merged: {a: common}
listed: [common]
first: common
`)},
		"env/data/role/web.yaml": {Data: []byte("merged: {b: web}\nlisted: [web]\n")},
	}
	var nodes []Node
	for i := range 12 {
		name := fmt.Sprintf("n%02d", i)
		fsys["env/data/nodes/"+name+".yaml"] = &fstest.MapFile{Data: []byte(fmt.Sprintf("merged: {a: %s, c: %d}\nlisted: [%s]\n", name, i, name))}
		fsys["env/data/late/"+name+".yaml"] = &fstest.MapFile{Data: []byte(fmt.Sprintf("merged: {d: late%d}\nlisted: [late]\nfirst: late\n", i))}
		facts := format.NewHash(1)
		facts.Set("role", "web")
		nodes = append(nodes, Node{Name: name, Facts: facts})
	}
	stats, _ := compareSharing(t, fsys, nodes)
	if stats.Slices < 6 {
		t.Errorf("%d nodes compiled with a slice, want most", stats.Slices)
	}
}

// TestStaticKeysInPlaceChangeNothing: with Input.Emit, a node's keys are
// written in the memory of the last node's, and the static keys found
// there in place are not copied again (appendStatics). Nodes of two
// slices, one after the other, whose own files hold keys of the slice
// (at the same positions or not), keys of their own that move the rest,
// or nothing, and a node that fails: each bundle, encoded as Emit gets it,
// is the one a compile that shares nothing makes, and most static keys
// are found in place (otherwise this proves nothing).
func TestStaticKeysInPlaceChangeNothing(t *testing.T) {
	fsys := fstest.MapFS{
		"env/hiera.yaml": {Data: []byte(nodeRoleCommon)},
		"env/data/common.yaml": {Data: []byte(`
a: 1
c: [x, y]
e: {k: v}
g: "%{facts.role}"
i: text
k: 3
m: last
`)},
		"env/data/role/web.yaml": {Data: []byte("c: [web]\ni: web\n")},
		"env/data/role/db.yaml":  {Data: []byte("a: 2\nk: db\n")},
	}
	own := []string{"k: 4\n", "b: own\n", "i: mine\n", "a: 0\nl: own\n", "k: 4\n", "lookup_options: 3\n", "m: mine\n", "d: 1\nf: 2\nh: 3\n", "k: 5\n"}
	var nodes []Node
	for i := range 40 {
		name := fmt.Sprintf("n%02d", i)
		fsys["env/data/nodes/"+name+".yaml"] = &fstest.MapFile{Data: []byte(own[i%len(own)])}
		facts := format.NewHash(1)
		facts.Set("role", []string{"web", "db"}[i/20])
		nodes = append(nodes, Node{Name: name, Facts: facts})
	}
	want, _, _ := compileNodes(t, fsys, nodes, false)
	stats := emitSame(t, fsys, nodes, want)
	if stats.InPlace < stats.Static/2 {
		t.Errorf("%d of %d static keys found in place, want most", stats.InPlace, stats.Static)
	}
}

// TestKeyResultsInPlaceChangeNothing: with Input.Emit, a slot key whose
// kept result is the one the last node took at the same position is not
// copied again, nor one compiled from the same template's first key as
// the last node's there, but for its value and contributions (appendKey).
// One slice of nodes: g reads a variable every node gives alike, j one
// with two values (switching now and then), n and z the node's name (from
// templates, for each node in the worker's key); each node has a file of
// its own, whose key (compiled in the worker's key too) is h on some
// nodes, where it takes j's position and moves those after it. Each
// bundle, encoded as Emit gets it, is the one a compile that shares
// nothing makes, and many keys of each kind are found in place (otherwise
// this proves nothing).
func TestKeyResultsInPlaceChangeNothing(t *testing.T) {
	fsys := fstest.MapFS{
		"env/hiera.yaml": {Data: []byte(nodeRoleCommon)},
		"env/data/common.yaml": {Data: []byte(`
a: 1
g: "%{facts.role}"
j: "%{facts.dc}"
n: "host %{trusted.certname}"
z: "%{facts.dc} %{trusted.certname}"
`)},
		"env/data/role/web.yaml": {Data: []byte("b: web\n")},
	}
	var nodes []Node
	for i := range 30 {
		name := fmt.Sprintf("n%02d", i)
		own := "zz: own\n"
		if i%5 == 1 {
			own = "h: own\n"
		}
		fsys["env/data/nodes/"+name+".yaml"] = &fstest.MapFile{Data: []byte(own)}
		facts := format.NewHash(2)
		facts.Set("role", "web")
		facts.Set("dc", []string{"east", "west"}[i%5/3])
		nodes = append(nodes, Node{Name: name, Facts: facts})
	}
	want, _, _ := compileNodes(t, fsys, nodes, false)
	stats := emitSame(t, fsys, nodes, want)
	if stats.KeptInPlace < (stats.Slot-stats.Templated)/3 {
		t.Errorf("%d of %d slot keys found in place, want many", stats.KeptInPlace, stats.Slot)
	}
	if stats.FirstInPlace < stats.Templated/3 {
		t.Errorf("%d of %d keys from a template found in place, want many", stats.FirstInPlace, stats.Templated)
	}
}

// emitSame compiles nodes of fsys on one worker with Input.Emit (each
// node's keys written in the last node's memory), checks that each
// bundle, encoded as Emit gets it, is want's, and returns the worker's
// counts.
func emitSame(t *testing.T, fsys fstest.MapFS, nodes []Node, want map[string][]byte) share.Stats {
	t.Helper()
	got := map[string][]byte{}
	var stats share.Stats
	_, err := Compile(context.Background(), Input{FS: fsys, EnvDir: "env", Nodes: nodes, Jobs: 1,
		Emit: func(_ int, b *format.Bundle) error {
			data, err := encode.Encode(b)
			got[b.Node] = data
			return err
		},
		workerDone: func(w *worker) { stats.Add(w.share.Stats) }})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != len(want) {
		t.Errorf("%d bundles emitted, want %d", len(got), len(want))
	}
	for node, w := range want {
		if !bytes.Equal(w, got[node]) {
			t.Errorf("node %s: its bundle changed where its keys were written in another's memory", node)
		}
	}
	return stats
}

// TestWorkerLetsGoOfOldTables: a worker keeps the slice tables of its
// last two runs only (share.Worker.StartRun). One worker takes the runs of three roles'
// nodes (db, app, then web's, cut in three): bundles and diagnostics are
// those of a compile that shares nothing, and the worker ends with web's
// table alone, which its last three runs used.
func TestWorkerLetsGoOfOldTables(t *testing.T) {
	fsys := fstest.MapFS{
		"env/hiera.yaml": {Data: []byte(nodeRoleCommon)},
		"env/data/common.yaml": {Data: []byte(`
a: 1
g: "%{facts.role} in %{facts.dc}"
n: "host %{trusted.certname}"
`)},
		"env/data/role/web.yaml": {Data: []byte("b: web\n")},
		"env/data/role/db.yaml":  {Data: []byte("b: db\n")},
		"env/data/role/app.yaml": {Data: []byte("b: app\n")},
	}
	var nodes []Node
	for i, role := range append(slices.Repeat([]string{"web"}, 12), "db", "db", "db", "db", "db", "app", "app", "app", "app", "app") {
		name := fmt.Sprintf("n%02d", i)
		fsys["env/data/nodes/"+name+".yaml"] = &fstest.MapFile{Data: []byte("own: " + name + "\n")}
		facts := format.NewHash(2)
		facts.Set("role", role)
		facts.Set("dc", []string{"east", "west"}[i%3/2])
		nodes = append(nodes, Node{Name: name, Facts: facts})
	}
	compareSharing(t, fsys, nodes)
	var kept []uint64
	var runs uint64
	if _, err := Compile(context.Background(), Input{FS: fsys, EnvDir: "env", Nodes: nodes, Jobs: 1,
		workerDone: func(w *worker) { runs, kept = w.share.Kept() }}); err != nil {
		t.Fatal(err)
	}
	if runs != 5 {
		t.Fatalf("the worker took %d runs, want 5 (db, app, web in three)", runs)
	}
	if len(kept) != 1 || kept[0] != runs {
		t.Errorf("the worker kept %d slice tables, want 1 (web's, of its last run)", len(kept))
	}
}

// TestStaticLookups: a result that read nothing but nested lookups of keys
// whose results are static in the slice is the slot's static result
// (share's lookupsStatic), for every node but those whose own file holds one of
// the keys looked up: there the key is compiled as usual. Keys look up
// keys before and after them, an array through alias(); a key that reads
// a fact, a value inside a hash, quoted, root y (not the key written "y"),
// or a key taken so (chain, whose value is y's too) are not taken. Nodes n04, n05
// and n09 hold y in files of their own: n04 and n05 (the same value) right
// after the first node of the slice (n03, the first whose own file counts
// as per-node), while the key before y has only n03's result.
func TestStaticLookups(t *testing.T) {
	fsys := fstest.MapFS{
		"env/hiera.yaml": {Data: []byte(nodeRoleCommon)},
		"env/data/common.yaml": {Data: []byte(`
y: v
w: [1, 2]
a: "%{lookup('y')}"
zz: "<%{lookup('y')}>"
al: "%{alias('w')}"
both: "%{lookup('y')}-%{lookup('w')}"
r: "%{facts.role}"
q: "%{lookup('r')}"
h: {k: 1}
dig: "%{lookup('h.k')}"
'"y"': v
quoted: "%{lookup('\"y\"')}"
chain: "%{lookup('a')}"
`)},
	}
	var nodes []Node
	for i := range 14 {
		name := fmt.Sprintf("n%02d", i)
		own := fmt.Sprintf("other: %d\n", i)
		switch i {
		case 4, 5:
			own = "y: mine\n"
		case 9:
			own = "y: mine too\n"
		}
		fsys["env/data/nodes/"+name+".yaml"] = &fstest.MapFile{Data: []byte(own)}
		facts := format.NewHash(1)
		facts.Set("role", "web")
		nodes = append(nodes, Node{Name: name, Facts: facts})
	}
	stats, _ := compareSharing(t, fsys, nodes)
	// a, zz, al and both on n05 to n13 but n09, once they hold.
	t.Logf("%+v", stats)
	if want := 4 * 6; stats.Looked < want {
		t.Errorf("%d static results that looked up keys taken, want at least %d: %+v", stats.Looked, want, stats)
	}
}

// TestSharingKeepsMergeFrom: two roles set the same merge for a key of
// common data, each in its own file. The key's locations, merge and value
// are the same on every node, but where its merge is set (MergeFrom) is
// the role's: a result is shared only between nodes whose lookup_options
// come from the same files (shapeID), on the slice path, and not at all
// on the general path between nodes whose options are their own (app and
// api interpolate theirs: no slice, and options computed for each node).
func TestSharingKeepsMergeFrom(t *testing.T) {
	fsys := fstest.MapFS{
		"env/hiera.yaml":         {Data: []byte(nodeRoleCommon)},
		"env/data/common.yaml":   {Data: []byte("k: [a, b]\nm: {x: 1}\n")},
		"env/data/role/web.yaml": {Data: []byte("lookup_options:\n  k:\n    merge: unique\n  m:\n    merge: hash\nother: 1\n")},
		"env/data/role/db.yaml":  {Data: []byte("x: 1\nlookup_options:\n  k:\n    merge: unique\n  m:\n    merge: hash\n")},
		"env/data/role/app.yaml": {Data: []byte("lookup_options:\n  k:\n    merge: \"%{facts.merge}\"\n")},
		"env/data/role/api.yaml": {Data: []byte("a: 1\nlookup_options:\n  k:\n    merge: \"%{facts.merge}\"\n")},
	}
	var nodes []Node
	for i := range 20 {
		facts := format.NewHash(2)
		facts.Set("role", []string{"web", "db", "app", "api"}[i/5])
		facts.Set("merge", "unique")
		nodes = append(nodes, Node{Name: fmt.Sprintf("n%02d", i), Facts: facts})
	}
	compareSharing(t, fsys, nodes)
	slices.Reverse(nodes)
	compareSharing(t, fsys, nodes)
}
