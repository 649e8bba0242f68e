package compiler

import (
	"fmt"
	"maps"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/google/go-cmp/cmp"
)

func TestExpandBraces(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want []string
	}{
		{"a.yaml", []string{"a.yaml"}},
		{"{b,a}.yaml", []string{"b.yaml", "a.yaml"}},
		{"x/{a,{b,c}}-*.yaml", []string{"x/a-*.yaml", "x/b-*.yaml", "x/c-*.yaml"}},
		{"{a,b}/{c,d}", []string{"a/c", "a/d", "b/c", "b/d"}},
	} {
		got, ok := expandBraces(tc.in, 4)
		if d := cmp.Diff(tc.want, got); d != "" || !ok {
			t.Errorf("expandBraces(%q) ok=%v (-want +got):\n%s", tc.in, ok, d)
		}
	}
	if _, ok := expandBraces("{a,b}{c,d}{e,f}", 7); ok {
		t.Errorf("8 patterns accepted under a limit of 7")
	}
}

func TestRubyGlob(t *testing.T) {
	fsys := fstest.MapFS{
		"d/b.yaml":       {Data: []byte("x: 1")},
		"d/a.yaml":       {Data: []byte("x: 1")},
		"d/.hidden.yaml": {Data: []byte("x: 1")},
		"d/sub/c.yaml":   {Data: []byte("x: 1")},
		"d/dir.yaml/x":   {Data: []byte("x: 1")},
		"d/notes.txt":    {Data: []byte("x")},
		// Ruby walks a folder's entries in name order and searches a
		// sub-folder where its name sorts: "c/x" before "c.yaml".
		"e/a0.yaml":     {Data: []byte("x: 1")},
		"e/b/x.yaml":    {Data: []byte("x: 1")},
		"e/sub/a0.yaml": {Data: []byte("x: 1")},
		"e/zz.yaml":     {Data: []byte("x: 1")},
		"e/c.yaml":      {Data: []byte("x: 1")},
		"e/c/x.yaml":    {Data: []byte("x: 1")},
	}
	for _, tc := range []struct {
		pattern string
		want    []string
	}{
		{"d/*.yaml", []string{"d/a.yaml", "d/b.yaml"}}, // sorted, no dotfiles, no directories
		{"d/{b,a}.yaml", []string{"d/b.yaml", "d/a.yaml"}},
		{"d/**/*.yaml", []string{"d/a.yaml", "d/b.yaml", "d/sub/c.yaml"}},
		{"d/.*.yaml", []string{"d/.hidden.yaml"}},
		{"d/none*.yaml", nil},
		{"e/**/*.yaml", []string{"e/a0.yaml", "e/b/x.yaml", "e/c/x.yaml", "e/c.yaml", "e/sub/a0.yaml", "e/zz.yaml"}},
		{"e/**/**/*.yaml", []string{"e/a0.yaml", "e/b/x.yaml", "e/c/x.yaml", "e/c.yaml", "e/sub/a0.yaml", "e/zz.yaml"}},
		{"e/**/x.yaml", []string{"e/b/x.yaml", "e/c/x.yaml"}},
		{"e/**", []string{"e/a0.yaml", "e/c.yaml", "e/zz.yaml"}},
	} {
		got, err := rubyGlob(fsys, tc.pattern)
		if d := cmp.Diff(tc.want, got); d != "" || err != nil {
			t.Errorf("rubyGlob(%q) err=%v (-want +got):\n%s", tc.pattern, err, d)
		}
	}
}

// TestGlobLimits: a glob that would take the process down is an error.
func TestGlobLimits(t *testing.T) {
	fsys := fstest.MapFS{
		"t/" + strings.Repeat("a/", 30) + "f.yaml": {Data: []byte("x: 1")},
	}
	for i := range 20 {
		fsys[fmt.Sprintf("m/f%d.yaml", i)] = &fstest.MapFile{Data: []byte("x: 1")}
	}
	for _, tc := range []struct {
		pattern, want string
	}{
		{strings.Repeat("{a,b}", 26) + ".yaml", "expands to more than 1024 patterns"},
		// each "**" may stop at any of 30 folders: C(30, 10) ways.
		{"t/" + strings.Repeat("**/a/", 10) + "*.json", "reads more than 262144 directory entries"},
		{"m/{" + strings.Repeat("*,", 600) + "*}.yaml", "matches more than 10000 data files"},
	} {
		_, err := rubyGlob(fsys, tc.pattern)
		if err == nil || !strings.Contains(err.Message, tc.want) || !strings.Contains(err.Message, "over hieracc's limit") {
			t.Errorf("rubyGlob(%.40q...) = %v, want an error containing %q", tc.pattern, err, tc.want)
		}
	}
}

// TestGlobInterpolatedTextIsLiteral: a fact or certname holding glob
// characters names one file in a glob level, never other nodes' files
// (a deviation from Puppet, which expands them).
func TestGlobInterpolatedTextIsLiteral(t *testing.T) {
	const hiera = "version: 5\nhierarchy:\n  - name: Team\n    datadir: \"data/%{facts.dir}\"\n    glob: \"nodes/%{facts.name}.yaml\"\n"
	files := map[string]string{
		"env/hiera.yaml":                hiera,
		"env/data/t/nodes/a.yaml":       "x: a\n",
		"env/data/t/nodes/b.yaml":       "x: b\n",
		"env/data/t/nodes/[ab].yaml":    "x: brackets\n",
		"env/data/t*/nodes/a.yaml":      "x: star folder\n",
		"env/data/t/nodes/a%{x}.yaml":   "x: never\n",
		"env/data/t/nodes/\\{a,b}.yaml": "x: backslash\n",
	}
	// The same with a datadir that is one expression: its value is the
	// whole text, escaped all the same.
	whole := maps.Clone(files)
	whole["env/hiera.yaml"] = "version: 5\nhierarchy:\n  - name: Team\n    datadir: \"%{facts.dir}\"\n    glob: \"nodes/%{facts.name}.yaml\"\n"
	for _, tc := range []struct {
		facts string
		want  []string // the files the level names
	}{
		{"dir: data/t\nname: a\n", []string{"env/data/t/nodes/a.yaml"}},
		{"dir: \"data/*\"\nname: a\n", nil},
		{"dir: \"data/t*\"\nname: a\n", []string{"env/data/t*/nodes/a.yaml"}},
	} {
		b := compileOne(t, whole, tc.facts)
		if b.NodeError != nil {
			t.Errorf("whole datadir, facts %q: %v", tc.facts, b.NodeError)
			continue
		}
		var got []string
		for _, l := range b.Env.Levels[0].Locations {
			got = append(got, l.Path)
		}
		if d := cmp.Diff(tc.want, got); d != "" {
			t.Errorf("whole datadir, facts %q (-want +got):\n%s", tc.facts, d)
		}
	}
	for _, tc := range []struct {
		facts string
		want  []string // the files the level names
	}{
		{"dir: t\nname: a\n", []string{"env/data/t/nodes/a.yaml"}},
		{"dir: t\nname: \"*\"\n", nil},
		{"dir: t\nname: \"{a,b}\"\n", nil},
		{"dir: t\nname: \"[ab]\"\n", []string{"env/data/t/nodes/[ab].yaml"}},
		{"dir: t\nname: \"?\"\n", nil},
		{"dir: \"*\"\nname: a\n", nil},
		{"dir: \"t*\"\nname: a\n", []string{"env/data/t*/nodes/a.yaml"}},
		{"dir: t\nname: \"\\\\{a,b}\"\n", []string{"env/data/t/nodes/\\{a,b}.yaml"}},
	} {
		b := compileOne(t, files, tc.facts)
		if b.NodeError != nil {
			t.Errorf("facts %q: %v", tc.facts, b.NodeError)
			continue
		}
		var got []string
		for _, l := range b.Env.Levels[0].Locations {
			got = append(got, l.Path)
		}
		if d := cmp.Diff(tc.want, got); d != "" {
			t.Errorf("facts %q (-want +got):\n%s", tc.facts, d)
		}
	}
}
