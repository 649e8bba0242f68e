package build

import (
	"os"
	"path/filepath"
	"testing"
)

// FuzzStateFile: whatever OUT's state file holds, reading it and deciding
// what to compile again never panics, and a node kept names only paths the
// state holds.
func FuzzStateFile(f *testing.F) {
	f.Add([]byte(`{"version":4,"binary":"b","settings":"s","files":{"env/a.yaml":"1"},"paths":["env/a.yaml"],` +
		`"nodes":{"n1":{"facts":"f","deps":[0],"diags":[{"text":"w"}],"bundle":{"s":1,"m":2,"c":3,"i":4}}},"diags":[{"file":"env/a.yaml","text":"g"}]}`))
	f.Add([]byte(`{"version":4,"binary":"b","settings":"s","files":{"env/a.yaml":"1"},"paths":[],"nodes":{"n1":{"facts":"f","deps":[7]}}}`))
	f.Add([]byte(`{"version":4,"binary":"b","settings":"s","files":{"env/a.yaml":"1"},"nodes":{"n1":{"facts":"f","deps":[-1]}}}`))
	f.Add([]byte(`not json`))
	out := f.TempDir()
	f.Fuzz(func(t *testing.T, data []byte) {
		if err := os.WriteFile(filepath.Join(out, StateFile), data, 0o600); err != nil {
			t.Fatal(err)
		}
		prev := loadState(out, StateFile)
		cur := &buildState{Version: stateVersion, Binary: "b", Settings: "s", Files: map[string]string{"env/a.yaml": "1"}}
		certnames := []string{"n1", "n2"}
		dirty, all := prev.changedNodes(cur, certnames, map[string]string{"n1": "f", "n2": "f"})
		if all {
			return
		}
		var kept []string
		for _, name := range certnames {
			if !dirty[name] {
				kept = append(kept, name)
			}
		}
		rec := newStateRecorder(cur)
		rec.keep(prev, kept, nil)
		for _, ns := range cur.Nodes {
			for _, d := range ns.Deps {
				if d < 0 || d >= len(cur.Paths) {
					t.Fatalf("a kept node depends on path %d of %d", d, len(cur.Paths))
				}
			}
		}
	})
}
