package compiler

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"testing/fstest"
	"time"

	"github.com/hieracc/hieracc/format"
)

// TestEmitLanes: Emit names the worker that compiled each bundle, a lane
// from 0 to the number of workers less one, and one lane's bundles come
// one after the other (never two at once): what a caller keeps per lane
// (the stage writer's encoder) follows one worker's nodes.
func TestEmitLanes(t *testing.T) {
	fsys := fstest.MapFS{
		"env/hiera.yaml":       {Data: []byte(nodeRoleCommon)},
		"env/data/common.yaml": {Data: []byte("a: 1\nn: \"host %{trusted.certname}\"\n")},
	}
	var nodes []Node
	for i := range 40 {
		facts := format.NewHash(1)
		facts.Set("role", fmt.Sprintf("r%d", i%4))
		nodes = append(nodes, Node{Name: fmt.Sprintf("n%02d", i), Facts: facts})
	}
	for _, jobs := range []int{1, 3} {
		var mu sync.Mutex
		busy := map[int]bool{}
		emitted := map[int]int{}
		_, err := Compile(context.Background(), Input{FS: fsys, EnvDir: "env", Nodes: nodes, Jobs: jobs,
			Emit: func(lane int, b *format.Bundle) error {
				mu.Lock()
				if lane < 0 || lane >= jobs {
					t.Errorf("jobs %d: node %s on lane %d", jobs, b.Node, lane)
				}
				if busy[lane] {
					t.Errorf("jobs %d: node %s on lane %d while another is", jobs, b.Node, lane)
				}
				busy[lane] = true
				emitted[lane]++
				mu.Unlock()
				time.Sleep(50 * time.Microsecond) // time for another call on the lane to show
				mu.Lock()
				busy[lane] = false
				mu.Unlock()
				return nil
			}})
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for _, c := range emitted {
			n += c
		}
		if n != len(nodes) {
			t.Errorf("jobs %d: %d bundles emitted, want %d", jobs, n, len(nodes))
		}
	}
}
