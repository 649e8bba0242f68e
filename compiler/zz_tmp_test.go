package compiler

import (
	"context"
	"io/fs"
	"os"
	"sort"
	"testing"

	"github.com/hieracc/hieracc/format"
)

func TestTmpRefStats(t *testing.T) {
	fsys := os.DirFS("/tmp/ref")
	files, _ := fs.Glob(fsys, "nodes/*.yaml")
	sort.Strings(files)
	files = files[:3000]
	in := Input{FS: fsys, EnvDir: "env", ModulesDir: "modules", Jobs: 1}
	for _, f := range files {
		n, _ := LoadFacts(fsys, f)
		in.Nodes = append(in.Nodes, n)
	}
	var stats sliceStats
	testHookWorkerDone = func(w *worker) {
		stats.add(w.stats)
		perNode, slotsN, withRecent := 0, 0, 0
		for _, tb := range w.slices {
			for i := range tb.slots {
				s := &tb.slots[i]
				slotsN++
				if s.perNode {
					perNode++
				}
				if len(s.recent) > 0 {
					withRecent++
				}
			}
		}
		t.Logf("slices %d slots %d perNode %d withRecent %d", len(w.slices), slotsN, perNode, withRecent)
	}
	in.Emit = func(b *format.Bundle) error { return nil }
	Compile(context.Background(), in)
	t.Logf("%+v", stats)
}
