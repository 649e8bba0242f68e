package compiler

import (
	"context"
	"testing"
	"testing/fstest"

	"github.com/hieracc/hieracc/format"
)

// TestEmitKeptBundleIsEmpty: a bundle is Emit's during the call only (its
// Keys' memory is the next node's); a caller that keeps it finds it
// empty once Emit returned, never keys another node wrote over it.
func TestEmitKeptBundleIsEmpty(t *testing.T) {
	fsys := fstest.MapFS{
		"env/hiera.yaml":       {Data: []byte(nodeRoleCommon)},
		"env/data/common.yaml": {Data: []byte("a: 1\nn: \"host %{trusted.certname}\"\n")},
	}
	var nodes []Node
	for _, name := range []string{"n1", "n2", "n3"} {
		facts := format.NewHash(1)
		facts.Set("role", "web")
		nodes = append(nodes, Node{Name: name, Facts: facts})
	}
	var kept []*format.Bundle
	_, err := Compile(context.Background(), Input{FS: fsys, EnvDir: "env", Nodes: nodes, Jobs: 1,
		Emit: func(_ int, b *format.Bundle) error {
			if len(b.Keys) != 2 || b.Node == "" {
				t.Errorf("Emit got node %q with %d keys, want 2", b.Node, len(b.Keys))
			}
			kept = append(kept, b)
			return nil
		}})
	if err != nil {
		t.Fatal(err)
	}
	if len(kept) != len(nodes) {
		t.Fatalf("%d bundles emitted, want %d", len(kept), len(nodes))
	}
	for i, b := range kept {
		if b.Node != "" || b.Keys != nil {
			t.Errorf("bundle %d, kept after Emit returned: node %q with %d keys, want it emptied", i, b.Node, len(b.Keys))
		}
	}
}
