package explain_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/hieracc/hieracc/format"
	"github.com/hieracc/hieracc/format/encode"
	. "github.com/hieracc/hieracc/format/formattest"
	"github.com/hieracc/hieracc/runtime"
	"github.com/hieracc/hieracc/runtime/explain"
)

func open(t testing.TB, b *format.Bundle) *runtime.Bundle {
	t.Helper()
	data, err := encode.Encode(b)
	if err != nil {
		t.Fatal(err)
	}
	rb, err := runtime.OpenBytes(data)
	if err != nil {
		t.Fatal(err)
	}
	return rb
}

func TestExplain(t *testing.T) {
	b := open(t, Sample())
	got, err := explain.Key(b, "ntp::servers.0")
	if err != nil {
		t.Fatal(err)
	}
	want := &explain.Explanation{
		Root: "ntp::servers",
		Sources: []explain.Source{
			{Layer: format.LayerEnvironment, Level: "Per-OS", Pos: format.Pos{File: "data/os/Debian.yaml", Line: 4, Column: 3}, Value: A("0.pool.ntp.org", "1.pool.ntp.org")},
			{Layer: format.LayerModule, Module: "ntp", Level: "Common", Pos: format.Pos{File: "data/common.yaml", Line: 2, Column: 1}, Value: A("pool.ntp.org")},
		},
	}
	noSearch := cmpopts.IgnoreFields(explain.Explanation{}, "Searched")
	if d := cmp.Diff(want, got, Cmp, noSearch); d != "" {
		t.Errorf("Explain (-want +got):\n%s", d)
	}
	got, err = explain.Key(b, "ntp::service")
	if err != nil {
		t.Fatal(err)
	}
	want = &explain.Explanation{
		Root:         "ntp::service",
		DefaultMerge: format.Merge{Strategy: "deep", KnockoutPrefix: "--", SortMergedArrays: true, MergeHashArrays: true},
		Defaults:     []explain.Source{{Layer: format.LayerModule, Module: "ntp", Level: "Defaults", Pos: format.Pos{File: "data/defaults.yaml", Line: 1, Column: 1}, Value: "ntpd"}},
	}
	if d := cmp.Diff(want, got, Cmp, noSearch); d != "" {
		t.Errorf("Explain defaults (-want +got):\n%s", d)
	}
	got, err = explain.Key(b, "users")
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Sources) != 2 || got.Sources[1].Err == nil || got.Sources[1].Err.Message != "Interpolation failed" || got.Merge.Strategy != "deep" {
		t.Errorf("Explain(users) = %+v", got)
	}
	if _, err := explain.Key(b, "missing"); !errors.Is(err, runtime.ErrNotFound) {
		t.Errorf("Explain(missing) = %v", err)
	}

	// A contribution pointing outside the hierarchy is reported, not a panic.
	bad := Sample()
	for i := range bad.Keys {
		if bad.Keys[i].Name == "classes" {
			bad.Keys[i].Contributions[0].Level = 99
		}
	}
	if _, err := explain.Key(open(t, bad), "classes"); err == nil || !strings.Contains(err.Error(), "no location 0 of level 99") {
		t.Errorf("Explain(bad level) = %v", err)
	}
}

// TestExplainSearched pins the layers, levels and files an explanation
// lists: every one searched, each file linked to its value, a missing
// module said so, a default_hierarchy last.
func TestExplainSearched(t *testing.T) {
	tb := Sample()
	tb.Env.Levels[0].Locations[0].Original = "nodes/%{trusted.certname}.yaml" // format version 3
	from := &format.OptionsEntry{Entry: "^cl", Pos: format.Pos{File: "data/common.yaml", Line: 2, Column: 3}, Level: "Common"}
	for i := range tb.Keys {
		if tb.Keys[i].Name == "classes" {
			tb.Keys[i].MergeFrom = from
		}
	}
	b := open(t, tb)
	if e, err := explain.Key(b, "classes"); err != nil || e.MergeFrom == nil || *e.MergeFrom != *from {
		t.Errorf("Explain(classes).MergeFrom = %+v, %v; want %+v", e.MergeFrom, err, from)
	}
	global := explain.LayerSearch{Layer: format.LayerGlobal, Present: true, Levels: []explain.LevelSearch{
		{Name: "Common", Locations: []explain.LocationSearch{{Path: "data/common.yaml", Source: -1}}},
	}}
	env := func(src ...int) explain.LayerSearch {
		return explain.LayerSearch{Layer: format.LayerEnvironment, Present: true, Levels: []explain.LevelSearch{
			{Name: "Per-node data", Locations: []explain.LocationSearch{{Path: "data/nodes/web01.example.com.yaml", Original: "nodes/%{trusted.certname}.yaml", Exists: true, Source: src[0]}}},
			{Name: "Per-OS", Locations: []explain.LocationSearch{{Path: "data/os/Debian.yaml", Exists: true, Source: src[1]}, {Path: "data/os/Debian-12.yaml", Source: src[2]}}},
			{Name: "Empty", Locations: []explain.LocationSearch{}},
			{Name: "Common", Locations: []explain.LocationSearch{{Path: "data/common.yaml", Exists: true, Source: src[3]}}},
		}}
	}
	ntp := func(src, def int) []explain.LayerSearch {
		return []explain.LayerSearch{
			{Layer: format.LayerModule, Module: "ntp", Present: true, Levels: []explain.LevelSearch{
				{Name: "Common", Locations: []explain.LocationSearch{{Path: "data/common.yaml", Exists: true, Source: src}}},
			}},
			{Layer: format.LayerModule, Module: "ntp", Default: true, Present: true, Levels: []explain.LevelSearch{
				{Name: "Defaults", Locations: []explain.LocationSearch{{Path: "data/defaults.yaml", Exists: true, Source: def}}},
			}},
		}
	}
	brokenErr := &format.Error{Message: "all lookup_options keys must start with module name 'broken'", Pos: format.Pos{File: "modules/broken/data/common.yaml"}}
	tests := []struct {
		key     string
		want    []explain.LayerSearch
		wantErr error
	}{
		{"classes", []explain.LayerSearch{global, env(0, -1, -1, 1)}, nil},
		{"users.alice", []explain.LayerSearch{global, env(0, -1, 1, -1)}, nil},
		{"nothing", []explain.LayerSearch{{Layer: format.LayerGlobal, Present: true, Levels: []explain.LevelSearch{
			{Name: "Common", Locations: []explain.LocationSearch{{Path: "data/common.yaml", Source: 0}}},
		}}, env(-1, -1, -1, -1)}, nil},
		{"ntp::servers", append([]explain.LayerSearch{global, env(-1, 0, -1, -1)}, ntp(1, -1)...), nil},
		{"ntp::service", append([]explain.LayerSearch{global, env(-1, -1, -1, -1)}, ntp(-1, 0)...), nil},
		{"missing", []explain.LayerSearch{global, env(-1, -1, -1, -1)}, runtime.ErrNotFound},
		{"nosuch::key", []explain.LayerSearch{global, env(-1, -1, -1, -1), {Layer: format.LayerModule, Module: "nosuch", Missing: true}}, runtime.ErrNotFound},
		{"broken::key", []explain.LayerSearch{global, env(-1, -1, -1, -1), {Layer: format.LayerModule, Module: "broken", Present: true, Err: brokenErr, Levels: []explain.LevelSearch{}}}, runtime.ErrNotFound},
	}
	for _, tt := range tests {
		e, err := explain.Key(b, tt.key)
		if !errors.Is(err, tt.wantErr) || (err != nil && tt.wantErr == nil) {
			t.Errorf("Explain(%q) error = %v, want %v", tt.key, err, tt.wantErr)
		}
		if e == nil {
			t.Errorf("Explain(%q) = nil", tt.key)
			continue
		}
		if d := cmp.Diff(tt.want, e.Searched, Cmp); d != "" {
			t.Errorf("Explain(%q).Searched (-want +got):\n%s", tt.key, d)
		}
	}
}
