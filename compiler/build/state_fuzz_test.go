package build

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// FuzzStateFile: whatever OUT's state file holds, reading it and deciding
// what to compile again never panics, and a node kept names only paths the
// state holds.
func FuzzStateFile(f *testing.F) {
	f.Add([]byte(`{"version":8,"binary":"b","settings":"s","files":{"env/a.yaml":"1"},"paths":["env/a.yaml"],` +
		`"nodes":{"n1":{"facts":"f","deps":[0],"diags":[{"text":"w"}],"bundle":{"s":1,"m":2,"c":3,"i":4}}},"diags":[{"file":"env/a.yaml","text":"g"}]}`))
	f.Add([]byte(`{"version":8,"binary":"b","settings":"s","files":{"env/a.yaml":"1"},"paths":[],"nodes":{"n1":{"facts":"f","deps":[7]}}}`))
	f.Add([]byte(`{"version":8,"binary":"b","settings":"s","files":{"env/a.yaml":"1"},"nodes":{"n1":{"facts":"f","deps":[-1]}}}`))
	f.Add([]byte(`{"version":8,"binary":"b","settings":"s","files":{"env/a.yaml":"1"},"paths":["env/a.yaml"],` +
		`"shared":[{"d":"zz"},{"d":"` + strings.Repeat("ab", 32) + `","f":{"s":1,"m":2,"c":3,"i":4}}],` +
		`"nodes":{"n1":{"facts":"f","deps":[0],"shared":2,"bundle":{"s":1,"m":2,"c":3,"i":4}},"n2":{"facts":"f","shared":-1}}}`))
	// facts_files swapped: each node listed under the other's file.
	f.Add([]byte(`{"version":8,"binary":"b","settings":"s","files":{"env/a.yaml":"1"},"paths":["env/a.yaml"],` +
		`"nodes":{"n1":{"facts":"f","deps":[0]},"n2":{"facts":"g","deps":[0]}},"facts_files":{"f":["n2"],"g":["n1"]}}`))
	f.Add([]byte(`not json`))
	out := f.TempDir()
	f.Fuzz(func(t *testing.T, data []byte) {
		if err := os.WriteFile(filepath.Join(out, StateFile), data, 0o600); err != nil {
			t.Fatal(err)
		}
		prev, _ := loadState(out, StateFile)
		cur := &buildState{Version: stateVersion, Binary: "b", Settings: "s", Files: map[string]string{"env/a.yaml": "1"}}
		certnames := []string{"n1", "n2"}
		_, all, kept, refs := plan(out, prev, cur, certnames, map[string]string{"n1": "f", "n2": "f"})
		if all {
			return
		}
		rec := newStateRecorder(cur)
		rec.keep(prev, kept, refs, nil)
		for _, ns := range cur.Nodes {
			for _, d := range ns.Deps {
				if d < 0 || d >= len(cur.Paths) {
					t.Fatalf("a kept node depends on path %d of %d", d, len(cur.Paths))
				}
			}
			if ns.Shared < 0 || ns.Shared > len(cur.Shared) {
				t.Fatalf("a kept node refers to shared details file %d of %d", ns.Shared, len(cur.Shared))
			}
		}
	})
}
