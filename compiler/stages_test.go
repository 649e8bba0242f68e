package compiler

import (
	"context"
	"testing"
	"testing/fstest"
	"time"

	"github.com/google/go-cmp/cmp"
)

// TestStagesTimed pins Result.Stages: the configurations first, then
// every stage of nodeStages in order, with the time the nodes spent in
// them (each stage's alone may be too short for a coarse clock).
func TestStagesTimed(t *testing.T) {
	fsys := fstest.MapFS{
		"env/hiera.yaml":       {Data: []byte("version: 5\nhierarchy:\n  - name: common\n    path: common.yaml\n")},
		"env/data/common.yaml": {Data: []byte("a: 1\nb: '%{facts.x}'\n")},
		"nodes/web01.yaml":     {Data: []byte("name: web01\nvalues:\n  x: y\n")},
		"nodes/web02.yaml":     {Data: []byte("name: web02\nvalues:\n  x: z\n")},
	}
	var nodes []Node
	for _, f := range []string{"nodes/web01.yaml", "nodes/web02.yaml"} {
		n, ds := LoadFacts(fsys, f)
		if len(ds) > 0 {
			t.Fatalf("facts: %v", ds)
		}
		nodes = append(nodes, n)
	}
	res, err := Compile(context.Background(), Input{FS: fsys, EnvDir: "env", Nodes: nodes})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, st := range res.Stages {
		names = append(names, st.Name)
	}
	want := []string{"configs", "hierarchies", "header", "lookup_options", "keys", "options", "release"}
	if d := cmp.Diff(want, names); d != "" {
		t.Errorf("stages (-want +got):\n%s", d)
	}
	var total time.Duration
	for _, st := range res.Stages[1:] {
		if st.Time < 0 {
			t.Errorf("stage %s took %v", st.Name, st.Time)
		}
		total += st.Time
	}
	if total <= 0 {
		t.Errorf("the nodes' stages took %v in all", total)
	}
}
