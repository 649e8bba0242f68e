package compiler

import (
	"bytes"
	"context"
	"fmt"
	"slices"
	"testing"
	"testing/fstest"

	"github.com/google/go-cmp/cmp"
	"github.com/hieracc/hieracc/format"
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
			out[b.Node], err = format.Encode(b)
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
