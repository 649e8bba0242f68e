package build

import (
	"encoding/json"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// editState rewrites OUT's state file through edit, as JSON.
func editState(t *testing.T, out string, edit func(st map[string]any)) {
	t.Helper()
	p := filepath.Join(out, StateFile)
	data, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	var st map[string]any
	if err := json.Unmarshal(data, &st); err != nil {
		t.Fatal(err)
	}
	edit(st)
	if data, err = json.Marshal(st); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, data, 0o600); err != nil {
		t.Fatal(err)
	}
}

// TestDamagedState: a state that does not hold together (facts_files
// entries swapped, a facts file said to hold a node it does not, a
// dependency on no path, a state that does not parse) is discarded, said so, and the compile is a
// full one that writes a good state: never a dead end.
func TestDamagedState(t *testing.T) {
	for _, tc := range []struct {
		name, why string
		edit      func(st map[string]any)
	}{
		{"facts_files swapped", "names the nodes of a facts file wrongly", func(st map[string]any) {
			ff := st["facts_files"].(map[string]any)
			sums := slices.Sorted(maps.Keys(ff))
			ff[sums[0]], ff[sums[1]] = ff[sums[1]], ff[sums[0]]
		}},
		{"a node a facts file does not hold", "names the nodes of a facts file wrongly", func(st map[string]any) {
			ff := st["facts_files"].(map[string]any)
			sum := slices.Sorted(maps.Keys(ff))[0]
			ff[sum] = append(ff[sum].([]any), "nosuch.example.net")
		}},
		{"a dependency on no path", "depends on path 9999", func(st map[string]any) {
			for _, ns := range st["nodes"].(map[string]any) {
				ns := ns.(map[string]any)
				ns["deps"] = append(ns["deps"].([]any), 9999)
				break
			}
		}},
		{"not JSON", "does not parse", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			repo := copyTree(t, "../../testdata/example")
			out := filepath.Join(t.TempDir(), "out")
			compileInto(t, repo, out)
			if tc.edit != nil {
				editState(t, out, tc.edit)
			} else if err := os.WriteFile(filepath.Join(out, StateFile), []byte(`{"version":8,"nodes":`), 0o600); err != nil {
				t.Fatal(err)
			}
			r := compileInto(t, repo, out)
			if r.Incremental || !strings.Contains(r.StateDamaged, tc.why) || !strings.Contains(r.StateDamaged, StateFile) {
				t.Errorf("with a damaged state: incremental %v, StateDamaged %q; want a full compile, and %q said", r.Incremental, r.StateDamaged, tc.why)
			}
			r = compileInto(t, repo, out)
			if n := compiled(r); n != 0 || r.StateDamaged != "" {
				t.Errorf("the compile after: %d nodes compiled (-1: a full compile), StateDamaged %q; want 0, none", n, r.StateDamaged)
			}
			full := filepath.Join(t.TempDir(), "full")
			compileInto(t, repo, full)
			sameBundles(t, out, full)
		})
	}
}
