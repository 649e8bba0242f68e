package compiler

import (
	"bytes"
	"context"
	"fmt"
	"slices"
	"testing"
	"testing/fstest"

	"github.com/google/go-cmp/cmp"
	"github.com/hieracc/hieracc/compiler/internal/share"
	"github.com/hieracc/hieracc/format"
	"github.com/hieracc/hieracc/format/encode"
)

// orderFleet is a fleet whose nodes' names do not follow their slices.
func orderFleet() (fstest.MapFS, []Node) {
	fsys := fstest.MapFS{
		"env/hiera.yaml": {Data: []byte(`version: 5
hierarchy:
  - name: Node
    path: "nodes/%{trusted.certname}.yaml"
  - name: Role and datacenter
    path: "role/%{facts.role}/%{::dc}.yaml"
  - name: OS
    path: "os/%{facts.os.family}.yaml"
  - name: Common
    path: common.yaml
`)},
		"env/data/common.yaml":     {Data: []byte("a: \"%{trusted.certname} in %{::dc}\"\nb: [1]\nlookup_options: {b: {merge: unique}}\n")},
		"env/data/os/Debian.yaml":  {Data: []byte("b: [2]\n")},
		"env/data/role/web/x.yaml": {Data: []byte("b: [3]\nc: web\n")},
		"env/data/nodes/n3.yaml":   {Data: []byte("c: mine\n")},
	}
	var nodes []Node
	for i := range 12 {
		facts := format.NewHash(3)
		facts.Set("role", []string{"web", "db"}[i%2])
		facts.Set("dc", []string{"x", "y", "x"}[i%3])
		os := format.NewHash(1)
		os.Set("family", []string{"Debian", "RedHat"}[i/6])
		facts.Set("os", os)
		nodes = append(nodes, Node{Name: fmt.Sprintf("n%d", i), Facts: facts})
	}
	return fsys, nodes
}

// TestCompileOrderGroupsSlices: nodes come grouped by the variables of
// their lowest-priority levels first (OS, then datacenter, then role), in
// Input order within a group; the per-node level's certname comes last.
func TestCompileOrderGroupsSlices(t *testing.T) {
	fsys, nodes := orderFleet()
	c := prepare(Input{FS: fsys, EnvDir: "env", Nodes: nodes})
	var got []string
	for _, i := range c.compileOrder(nodes) {
		got = append(got, nodes[i].Name)
	}
	// Lowest priority first: os.family, then role and dc (in the order
	// their level names them); then the certname.
	groups := func(names []string) [][]string {
		var out [][]string
		for i, name := range names {
			n := nodes[slices.IndexFunc(nodes, func(n Node) bool { return n.Name == name })]
			os, _ := n.Facts.Get("os")
			fam, _ := os.(*format.Hash).Get("family")
			dc, _ := n.Facts.Get("dc")
			role, _ := n.Facts.Get("role")
			key := fmt.Sprint(fam, role, dc)
			if i == 0 || fmt.Sprint(out[len(out)-1][0]) != key {
				out = append(out, []string{key})
			}
			out[len(out)-1] = append(out[len(out)-1], name)
		}
		return out
	}
	wantGroups := [][]string{
		{"Debiandbx", "n3", "n5"}, {"Debiandby", "n1"}, {"Debianwebx", "n0", "n2"}, {"Debianweby", "n4"},
		{"RedHatdbx", "n9", "n11"}, {"RedHatdby", "n7"}, {"RedHatwebx", "n6", "n8"}, {"RedHatweby", "n10"},
	}
	if d := cmp.Diff(wantGroups, groups(got)); d != "" {
		t.Errorf("compile order (-want +got):\n%s", d)
	}
}

// TestCompileOrderChangesNothing: whatever order the nodes are given in,
// every node's bundle is the same, byte for byte, and Result.Bundles
// follows Input order.
func TestCompileOrderChangesNothing(t *testing.T) {
	fsys, nodes := orderFleet()
	compile := func(nodes []Node) map[string][]byte {
		res, err := Compile(context.Background(), Input{FS: fsys, EnvDir: "env", Nodes: nodes, Jobs: 1})
		if err != nil {
			t.Fatal(err)
		}
		out := map[string][]byte{}
		for i, b := range res.Bundles {
			if b.Node != nodes[i].Name {
				t.Fatalf("Bundles[%d] is %s, want %s", i, b.Node, nodes[i].Name)
			}
			out[b.Node], err = encode.Encode(b)
			if err != nil {
				t.Fatal(err)
			}
		}
		return out
	}
	want := compile(nodes)
	reversed := slices.Clone(nodes)
	slices.Reverse(reversed)
	for node, data := range compile(reversed) {
		if !bytes.Equal(data, want[node]) {
			t.Errorf("%s: its bundle depends on the order nodes are given in", node)
		}
	}
}

// TestCompileRunsKeepSlicesTogether: a worker takes a run whole, so a run
// holds the nodes of one slice (the per-node certname set aside), every
// node is in exactly one run, and runs come largest first.
func TestCompileRunsKeepSlicesTogether(t *testing.T) {
	fsys, nodes := orderFleet()
	c := prepare(Input{FS: fsys, EnvDir: "env", Nodes: nodes})
	runs := c.compileRuns(nodes, 1)
	slice := func(i int) string {
		os, _ := nodes[i].Facts.Get("os")
		fam, _ := os.(*format.Hash).Get("family")
		dc, _ := nodes[i].Facts.Get("dc")
		role, _ := nodes[i].Facts.Get("role")
		return fmt.Sprint(fam, role, dc)
	}
	seen := map[int]bool{}
	for r, run := range runs {
		for _, i := range run {
			if seen[i] {
				t.Errorf("node %s in two runs", nodes[i].Name)
			}
			seen[i] = true
			if slice(i) != slice(run[0]) {
				t.Errorf("run %d mixes slices %s and %s", r, slice(run[0]), slice(i))
			}
		}
		if r > 0 && len(run) > len(runs[r-1]) {
			t.Errorf("run %d (%d nodes) after a shorter one (%d)", r, len(run), len(runs[r-1]))
		}
	}
	if len(seen) != len(nodes) || len(runs) != 8 {
		t.Errorf("%d runs of %d nodes, want 8 runs (the 8 slices) of %d", len(runs), len(seen), len(nodes))
	}
	// With more workers, no run is longer than a quarter of a worker's share.
	for _, run := range c.compileRuns(nodes, 2) {
		if len(run) > 1 {
			t.Errorf("a run of %d nodes with 2 workers over 12 nodes, want 1", len(run))
		}
	}
}

// TestSortRunByDataVariables: a worker orders a run by the variables it
// has seen the data read, fewest values first, per-node ones left out,
// ties in their order; having seen none, it leaves the run alone.
func TestSortRunByDataVariables(t *testing.T) {
	var nodes []Node
	for i := range 8 {
		facts := format.NewHash(3)
		facts.Set("rel", []string{"12", "11"}[i%2])
		facts.Set("zone", []string{"b", "a", "a", "b"}[i%4])
		facts.Set("dc", "x")
		nodes = append(nodes, Node{Name: fmt.Sprintf("n%d", i), Facts: facts})
	}
	names := func(run []int) []string {
		var out []string
		for _, i := range run {
			out = append(out, nodes[i].Name)
		}
		return out
	}
	w := newWorker()
	run := []int{7, 6, 5, 4, 3, 2, 1, 0}
	w.sortRun(nodes, run)
	if d := cmp.Diff([]string{"n7", "n6", "n5", "n4", "n3", "n2", "n1", "n0"}, names(run)); d != "" {
		t.Errorf("nothing learnt yet: order (-want +got):\n%s", d)
	}
	for i, n := range nodes {
		w.share.SeeVar("trusted.certname", n.Name) // per-node: left out
		w.share.SeeVar("facts.dc", "x")            // one value: no order to give
		w.share.SeeVar("::rel", []string{"12", "11"}[i%2])
		if i < 6 {
			w.share.SeeVar("facts.zone", []string{"b", "a", "a"}[i%3])
		}
	}
	// ::rel and facts.zone have two values each: ::rel sorts first.
	w.sortRun(nodes, run)
	want := []string{"n5", "n1", "n7", "n3", "n6", "n2", "n4", "n0"}
	if d := cmp.Diff(want, names(run)); d != "" {
		t.Errorf("order by ::rel, then facts.zone, then as given (-want +got):\n%s", d)
	}
}

// TestCompileTakesARunByValue: nodes of one slice that differ in a fact
// their data reads are compiled one value after the other, once the
// worker has seen a few of them.
func TestCompileTakesARunByValue(t *testing.T) {
	fsys := fstest.MapFS{
		"env/hiera.yaml":         {Data: []byte("version: 5\nhierarchy:\n  - {name: Node, path: \"nodes/%{trusted.certname}.yaml\"}\n  - {name: Common, path: common.yaml}\n")},
		"env/data/common.yaml":   {Data: []byte("a: \"release %{facts.rel}\"\nb: \"%{trusted.certname}\"\n")},
		"env/data/nodes/n0.yaml": {Data: []byte("c: 1\n")},
	}
	var nodes []Node
	rel := map[string]string{}
	for i := range 48 {
		facts := format.NewHash(1)
		r := []string{"11", "12"}[i%2]
		facts.Set("rel", r)
		name := fmt.Sprintf("n%02d", i)
		rel[name] = r
		nodes = append(nodes, Node{Name: name, Facts: facts})
	}
	var order []string
	in := Input{FS: fsys, EnvDir: "env", Nodes: nodes, Jobs: 1}
	in.Emit = func(_ int, b *format.Bundle) error {
		order = append(order, b.Node)
		return nil
	}
	if _, err := Compile(context.Background(), in); err != nil {
		t.Fatal(err)
	}
	// One worker takes the runs in turn. In its first run, it learns
	// after share.PerNodeMin nodes that the data reads facts.rel (and that the
	// certname is per-node); in the others, it knows from the start.
	runs := prepare(in).compileRuns(nodes, 1)
	if len(order) != len(nodes) || len(runs) < 3 || len(runs[0]) < 3*share.PerNodeMin {
		t.Fatalf("compiled %d nodes in %d runs, want %d in 3 or more, the first of %d or more", len(order), len(runs), len(nodes), 3*share.PerNodeMin)
	}
	at := 0
	for r, run := range runs {
		got := order[at : at+len(run)]
		at += len(run)
		if r == 0 {
			got = got[share.PerNodeMin:]
		}
		changes := 0
		for i := 1; i < len(got); i++ {
			if rel[got[i]] != rel[got[i-1]] {
				changes++
			}
		}
		if changes != 1 {
			t.Errorf("a run compiled as %v: facts.rel changes %d times, want once", got, changes)
		}
	}
}
