package bundlediff

import (
	"bytes"
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/hieracc/hieracc/format"
)

// fleetReport compares two small fleets with every kind of change: the
// report the golden files render.
func fleetReport(t *testing.T) *Report {
	t.Helper()
	ntp := func(b *format.Bundle) *format.Bundle {
		b.Modules = []format.Module{{
			Name:      "ntp",
			Hierarchy: format.Hierarchy{Present: true, Levels: []format.Level{{Name: "Common", Locations: []format.Location{{Path: "modules/ntp/data/common.yaml", Exists: true}}}}},
			Default:   &format.Hierarchy{Present: true, Levels: []format.Level{{Name: "Defaults", Locations: []format.Location{{Path: "modules/ntp/data/defaults.yaml", Exists: true}}}}},
		}}
		return b
	}
	modKey := func(name string, v any, line int) format.Key {
		return format.Key{Name: name, Value: v, Contributions: []format.Contribution{{Layer: format.LayerModule, Line: line, Column: 1, Value: v}}}
	}
	defKey := func(name string, v any, line int) format.Key {
		return format.Key{Name: name, Value: v, Defaults: []format.Contribution{{Layer: format.LayerModule, Line: line, Column: 1, Value: v}}}
	}
	oddValue := "a|b`c"
	web := func(name string, shell, port any, pkgs []any, order bool, motd format.Key, iburst bool) *format.Bundle {
		users := hash("alice", hash("uid", int64(1001), "shell", "/bin/bash"), "bob", hash("uid", int64(1002), "shell", shell))
		if order {
			users = hash("bob", hash("uid", int64(1002), "shell", shell), "alice", hash("uid", int64(1001), "shell", "/bin/bash"))
		}
		return ntp(node(name,
			deep("accounts::users", users, at(lvRole, 12, hash("bob", hash("shell", shell))), at(lvCommon, 30, users)),
			motd,
			key("nginx::port", port, at(lvRole, 4, port)),
			defKey("ntp::iburst", iburst, 2),
			modKey("ntp::servers", arr("0.pool.ntp.org", "1.pool.ntp.org"), 7),
			key("odd `key` | pipe", oddValue, at(lvCommon, 50, oddValue)),
			key("profile::packages", pkgs),
		))
	}
	motd := key("motd", "Welcome", at(lvCommon, 40, "Welcome"))
	pkgs := arr("vim", "curl", "htop")

	var old, new []*format.Bundle
	// Eleven web nodes share one change to common data: a folded node list.
	for i := 1; i <= 11; i++ {
		n := fmt.Sprintf("web%02d.fra1.example.net", i)
		old = append(old, web(n, "/bin/sh", int64(443), pkgs, false, motd, false))
		oddValue = "a|b``c"
		new = append(new, web(n, "/bin/zsh", "443", arr("vim", "git", "curl"), true, motd, true))
		oddValue = "a|b`c"
	}
	// One node: its motd now fails.
	old = append(old, web("app01.ams2.example.net", "/bin/sh", int64(443), pkgs, false, motd, false))
	new = append(new, web("app01.ams2.example.net", "/bin/sh", int64(443), pkgs, false,
		failed("motd", "Evaluation Error: Unknown variable: '::role'"), false))
	// One node: a node error.
	old = append(old, web("bad01.ams2.example.net", "/bin/sh", int64(443), pkgs, false, motd, false))
	broken := node("bad01.ams2.example.net")
	broken.NodeError = &format.Error{Message: "(<unknown>): did not find expected key while parsing a block mapping at line 3 column 1", Pos: format.Pos{File: "env/data/common.yaml", Line: 3, Column: 1}}
	new = append(new, broken)
	// One node with many changes: a folded table.
	var many, many2 []format.Key
	for i := range 16 {
		many = append(many, key(fmt.Sprintf("k%02d", i), int64(i)))
		many2 = append(many2, key(fmt.Sprintf("k%02d", i), int64(i+100)))
	}
	old = append(old, node("db01.fra1.example.net", many...))
	new = append(new, node("db01.fra1.example.net", many2...))
	// Unchanged, and nodes on one side only.
	old = append(old, node("same01.example.net", key("a", "x")), node("gone01.example.net", key("a", "x")))
	new = append(new, node("same01.example.net", key("a", "x")), node("fresh01.example.net", key("a", "x")))

	// Each side says the commit it was compiled from.
	for _, b := range old {
		b.SourceRevision = "3f2a1b0c9d8e7f6a5b4c3d2e1f0a9b8c7d6e5f4a"
	}
	for _, b := range new {
		b.SourceRevision = "9c8d7e6f5a4b3c2d1e0f9a8b7c6d5e4f3a2b1c0d"
	}
	r, err := Compare(writeDir(t, old...), writeDir(t, new...), Filter{})
	if err != nil {
		t.Fatal(err)
	}
	r.Old, r.New = "bundles-main", "bundles-pr"
	return r
}

// TestFormats pins each output format: go test -update rewrites
// testdata/fleet.*.golden.
func TestFormats(t *testing.T) {
	r := fleetReport(t)
	for _, tc := range []struct {
		file  string
		write func(*bytes.Buffer) error
	}{
		{"fleet.txt", func(b *bytes.Buffer) error { return WriteText(b, r, Options{}) }},
		{"fleet.color.txt", func(b *bytes.Buffer) error { return WriteText(b, r, Options{Color: true}) }},
		{"fleet.json", func(b *bytes.Buffer) error { return WriteJSON(b, r, Options{}) }},
		{"fleet.md", func(b *bytes.Buffer) error { return WriteMarkdown(b, r, Options{}) }},
		{"fleet.full.txt", func(b *bytes.Buffer) error { return WriteText(b, r, Options{FullNodes: true}) }},
		{"fleet.full.md", func(b *bytes.Buffer) error { return WriteMarkdown(b, r, Options{FullNodes: true}) }},
		{"fleet.github", func(b *bytes.Buffer) error { return WriteGitHub(b, r, Options{}) }},
		{"fleet.html", func(b *bytes.Buffer) error { return WriteHTML(b, r, Options{}) }},
	} {
		t.Run(tc.file, func(t *testing.T) {
			var b bytes.Buffer
			if err := tc.write(&b); err != nil {
				t.Fatal(err)
			}
			golden(t, filepath.Join("testdata", tc.file+".golden"), b.String())
		})
	}
}

// TestTextNoColor: colour only when asked (a terminal), never otherwise.
func TestTextNoColor(t *testing.T) {
	r := fleetReport(t)
	var plain, color bytes.Buffer
	WriteText(&plain, r, Options{})
	WriteText(&color, r, Options{Color: true})
	if strings.Contains(plain.String(), "\x1b[") {
		t.Errorf("text without Color has escape sequences")
	}
	if !strings.Contains(color.String(), styleRed) || !strings.Contains(color.String(), styleGreen) {
		t.Errorf("text with Color has no red and green")
	}
	if strip := strings.NewReplacer(styleBold, "", styleRed, "", styleGreen, "", styleDim, "", styleReset, "").Replace(color.String()); strip != plain.String() {
		t.Errorf("coloured text differs from plain text beyond its escapes")
	}
}

// TestJSONSchema decodes the JSON output generically and checks what the
// schema promises: sorting, absent sides, null values kept, the summary.
func TestJSONSchema(t *testing.T) {
	r := fleetReport(t)
	var b bytes.Buffer
	if err := WriteJSON(&b, r, Options{}); err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Version     int `json:"version"`
		Old, New    string
		OldRevision string         `json:"old_revision"`
		NewRevision string         `json:"new_revision"`
		Summary     map[string]int `json:"summary"`
		Changes     []struct {
			Key, Module, Path, Kind string
			Old, New                *map[string]json.RawMessage
			Parts                   []map[string]any `json:"parts"`
			Nodes                   []string         `json:"nodes"`
			Patterns                []struct {
				Glob      string
				Nodes, Of int
			} `json:"patterns"`
		} `json:"changes"`
		Groups []struct {
			Status  string   `json:"status"`
			Nodes   []string `json:"nodes"`
			Changes []struct {
				Key, Module, Path, Kind string
				Old, New                *map[string]json.RawMessage
				Parts                   []map[string]any `json:"parts"`
			} `json:"changes"`
		} `json:"groups"`
	}
	dec := json.NewDecoder(&b)
	dec.DisallowUnknownFields()
	if err := dec.Decode(&doc); err != nil {
		t.Fatal(err)
	}
	if doc.Version != 1 {
		t.Errorf("version %d", doc.Version)
	}
	if doc.OldRevision != r.OldRevision || doc.NewRevision != r.NewRevision || r.OldRevision == "" || r.NewRevision == "" {
		t.Errorf("revisions %q, %q; the report's %q, %q", doc.OldRevision, doc.NewRevision, r.OldRevision, r.NewRevision)
	}
	wantSum := map[string]int{"nodes": 15, "changed": 14, "unchanged": 1, "only_old": 1, "only_new": 1, "keys_changed": 22,
		"errors_appeared": 2, "errors_gone": 0, "errors_changed": 0, "error_nodes": 2}
	if d := cmp.Diff(wantSum, doc.Summary); d != "" {
		t.Errorf("summary (-want +got):\n%s", d)
	}
	// Each distinct change once, with every node it touches (a node in
	// a group is in each of the group's changes), shared out by its
	// patterns.
	inGroups := map[string]int{}
	for _, g := range doc.Groups {
		for _, n := range g.Nodes {
			if len(g.Changes) > 0 {
				inGroups[n] += len(g.Changes)
			}
		}
	}
	inChanges := map[string]int{}
	for i, c := range doc.Changes {
		if i > 0 && c.Key < doc.Changes[i-1].Key {
			t.Errorf("change of %s after %s", c.Key, doc.Changes[i-1].Key)
		}
		if !slices.IsSorted(c.Nodes) || len(c.Nodes) == 0 {
			t.Errorf("%s %s: nodes %v not sorted", c.Key, c.Path, c.Nodes)
		}
		sum := 0
		for _, p := range c.Patterns {
			sum += p.Nodes
		}
		if sum != len(c.Nodes) || len(c.Patterns) == 0 {
			t.Errorf("%s %s: patterns %v count %d nodes, want %d", c.Key, c.Path, c.Patterns, sum, len(c.Nodes))
		}
		for _, n := range c.Nodes {
			inChanges[n]++
		}
	}
	if len(doc.Changes) != 24 {
		t.Errorf("%d distinct changes, want 24", len(doc.Changes))
	}
	if d := cmp.Diff(inGroups, inChanges); d != "" {
		t.Errorf("changes per node, groups vs changes (-groups +changes):\n%s", d)
	}
	prev := ""
	for _, g := range doc.Groups {
		if g.Nodes[0] < prev {
			t.Errorf("group of %s after %s", g.Nodes[0], prev)
		}
		prev = g.Nodes[0]
		if g.Changes == nil {
			t.Errorf("group of %s: changes is null, want []", g.Nodes[0])
		}
		for i, c := range g.Changes {
			if i > 0 && c.Key < g.Changes[i-1].Key {
				t.Errorf("change of %s after %s", c.Key, g.Changes[i-1].Key)
			}
			if c.Kind == "added" && c.Old != nil || c.Kind == "removed" && c.New != nil {
				t.Errorf("%s %s: absent side present", c.Key, c.Kind)
			}
		}
	}
}

func TestCode(t *testing.T) {
	for in, want := range map[string]string{
		"plain":   "`plain`",
		"a|b":     "`a\\|b`",
		"a`b":     "``a`b``",
		"`a``":    "``` `a`` ```",
		"two\nln": "`two ln`",
	} {
		if got := code(in); got != want {
			t.Errorf("code(%q) = %q, want %q", in, got, want)
		}
	}
}
