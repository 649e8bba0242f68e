package compiler

import (
	"context"
	"strings"
	"testing"
	"testing/fstest"

	stdcmp "cmp"
	"github.com/google/go-cmp/cmp"
	"github.com/hieracc/hieracc/format"
)

// compileOne compiles a single node from an in-memory repo.
func compileOne(t *testing.T, files map[string]string, facts string) *format.Bundle {
	t.Helper()
	fsys := fstest.MapFS{}
	for p, s := range files {
		fsys[p] = &fstest.MapFile{Data: []byte(s)}
	}
	fsys["nodes/web01.example.com.yaml"] = &fstest.MapFile{Data: []byte(facts)}
	n, ds := LoadFacts(fsys, "nodes/web01.example.com.yaml")
	if len(ds) > 0 {
		t.Fatalf("facts: %v", ds)
	}
	res, err := Compile(context.Background(), Input{FS: fsys, EnvDir: "env", Nodes: []Node{n}})
	if err != nil {
		t.Fatal(err)
	}
	return res.Bundles[0]
}

func keyOf(b *format.Bundle, name string) *format.Key {
	for i := range b.Keys {
		if b.Keys[i].Name == name {
			return &b.Keys[i]
		}
	}
	return nil
}

const simpleHiera = `version: 5
hierarchy:
  - name: Per node
    path: "nodes/%{trusted.certname}.yaml"
  - name: Role
    path: "role/%{facts.role}.yaml"
  - name: Common
    path: common.yaml
`

func TestConfigErrors(t *testing.T) {
	for _, tc := range []struct {
		name, hiera, want string
	}{
		{"two locations", "version: 5\nhierarchy:\n  - name: Both\n    path: a.yaml\n    glob: '*.yaml'\n",
			"Only one of path, paths, glob, globs, uri, uris, or mapped_paths can be defined in hierarchy 'Both'"},
		{"unknown level key", "version: 5\nhierarchy:\n  - name: X\n    backend: yaml\n    path: a.yaml\n",
			"The Lookup Configuration at 'env/hiera.yaml' has wrong type, entry 'hierarchy' index 0 unrecognized key 'backend'"},
		{"unknown top key", "version: 5\nhierarchies: []\n", "unrecognized key 'hierarchies'"},
		{"no function", "version: 5\ndefaults:\n  datadir: data\nhierarchy:\n  - name: Common\n    path: common.yaml\n",
			"One of data_hash, lookup_key, data_dig, or hiera3_backend must be defined in hierarchy 'Common'"},
		{"duplicate names", "version: 5\nhierarchy:\n  - name: Common\n    path: a.yaml\n  - name: Common\n    path: b.yaml\n",
			"Hierarchy name 'Common' defined more than once. First defined at (line: 3)"},
		{"unknown data_hash", "version: 5\nhierarchy:\n  - name: C\n    data_hash: hocon_data\n    path: a.conf\n",
			"hieracc cannot run data_hash function 'hocon_data' in hierarchy 'C'"},
		{"version 4 unknown backend", "version: 4\nhierarchy:\n  - name: x\n    backend: vault\n", "No data provider is registered for backend 'vault'"},
		{"version 4 unknown key", "version: 4\nhierarchy:\n  - name: x\n    backend: yaml\n    glob: '*'\n",
			"The Lookup Configuration at 'env/hiera.yaml' has wrong type, entry 'hierarchy' index 0 unrecognized key 'glob'"},
		{"version 4 no backend", "version: 4\nhierarchy:\n  - name: x\n", "entry 'hierarchy' index 0 expects a value for key 'backend'"},
		{"version 6", "version: 6\n", "This runtime does not support hiera.yaml version 6"},
		{"hiera3_backend outside the global layer", "version: 5\nhierarchy:\n  - name: V\n    hiera3_backend: vault\n    path: a\n",
			"'hiera3_backend' is only allowed in the global layer"},
		{"uri with yaml_data", "version: 5\nhierarchy:\n  - name: U\n    uri: 'http://x'\n",
			"hieracc cannot resolve uri/uris locations in hierarchy 'U'"},
		{"method in path", "version: 5\nhierarchy:\n  - name: C\n    path: \"%{lookup('x')}.yaml\"\n",
			"Interpolation using method syntax is not allowed in this context"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := compileOne(t, map[string]string{"env/hiera.yaml": tc.hiera, "env/data/common.yaml": "x: 1\n"}, "role: web\n")
			if b.NodeError == nil {
				t.Fatalf("want a node error containing %q, got none", tc.want)
			}
			if !strings.Contains(b.NodeError.Message, tc.want) {
				t.Errorf("node error = %q, want it to contain %q", b.NodeError.Message, tc.want)
			}
			if b.NodeError.File != "env/hiera.yaml" {
				t.Errorf("error file = %q, want env/hiera.yaml", b.NodeError.File)
			}
		})
	}
}

func TestInterpolationInData(t *testing.T) {
	b := compileOne(t, map[string]string{
		"env/hiera.yaml": simpleHiera,
		"env/data/common.yaml": `
base: basevalue
list: [x, y]
via_lookup: "<%{lookup('base')}>"
alias_list: "%{alias('list')}"
fact: "%{facts.role}-%{::role}-%{trusted.hostname}-%{server_facts.environment}"
missing: "[%{facts.nope}]"
inspect: "%{lookup('list')}"
literal: "%{literal('%')}{facts.role}"
self_ref: "%{lookup('self_ref')}"
partial_alias: "x%{alias('list')}"
nested:
  "%{facts.role}_key": "%{facts.role}"
`,
	}, "role: web\n")
	want := map[string]any{
		"via_lookup": "<basevalue>",
		"alias_list": []any{"x", "y"},
		"fact":       "web-web-web01-production",
		"missing":    "[]",
		"inspect":    `["x", "y"]`,
		"literal":    "%{facts.role}",
	}
	for k, v := range want {
		key := keyOf(b, k)
		if key == nil {
			t.Errorf("key %s missing", k)
			continue
		}
		if key.Err != nil {
			t.Errorf("key %s: error %v", k, key.Err)
			continue
		}
		if !format.Equal(key.Value, v) {
			t.Errorf("key %s = %#v, want %#v", k, key.Value, v)
		}
	}
	nested := keyOf(b, "nested").Value.(*format.Hash)
	if got, _ := nested.Get("web_key"); got != "web" {
		t.Errorf("nested hash key not interpolated: %v", nested.Keys())
	}
	for key, msg := range map[string]string{
		"self_ref":      "Lookup of key 'self_ref' failed: Recursive lookup detected in [self_ref]",
		"partial_alias": "'alias' interpolation is only permitted if the expression is equal to the entire string",
	} {
		k := keyOf(b, key)
		if k == nil || k.Err == nil {
			t.Errorf("key %s: want error %q", key, msg)
			continue
		}
		if k.Err.Message != msg {
			t.Errorf("key %s: error %q, want %q", key, k.Err.Message, msg)
		}
		if k.Err.File != "env/data/common.yaml" || k.Err.Line == 0 || k.Err.Level != "Common" {
			t.Errorf("key %s: error not positioned: %+v", key, k.Err)
		}
	}
}

func TestPathsSteeredByFactsAreRefused(t *testing.T) {
	const factPath = "version: 5\nhierarchy:\n  - name: Fact\n    path: \"%{facts.file}\"\n  - name: Role\n    path: \"role/%{facts.role}.yaml\"\n"
	for _, tc := range []struct {
		facts string
		want  string // "" = allowed
	}{
		{"role: ../../../etc/shadow\nfile: x.yaml\n", `"role/%{facts.role}.yaml" interpolates to "role/../../../etc/shadow.yaml"`},
		{"role: ../nodes/db01\nfile: x.yaml\n", `interpolates to "role/../nodes/db01.yaml"`},
		{"role: web\nfile: /etc/shadow\n", `interpolates to the absolute path "/etc/shadow"`},
		{"role: \"web\\0x\"\nfile: x.yaml\n", "contains a NUL byte"},
		{"role: /etc/shadow\nfile: x.yaml\n", ""}, // role//etc/shadow.yaml stays inside data/
		{"role: web\nfile: common.yaml\n", ""},
	} {
		b := compileOne(t, map[string]string{"env/hiera.yaml": factPath, "env/data/common.yaml": "x: 1\n"}, tc.facts)
		switch {
		case tc.want == "" && b.NodeError != nil:
			t.Errorf("facts %q: unexpected error %v", tc.facts, b.NodeError)
		case tc.want != "" && (b.NodeError == nil || !strings.Contains(b.NodeError.Message, tc.want)):
			t.Errorf("facts %q: error %v, want one containing %q", tc.facts, b.NodeError, tc.want)
		}
	}
}

// TestDatadirSteeredByFactsIsRefused: the datadir is interpolated too, and
// held to the rule of the paths below it.
func TestDatadirSteeredByFactsIsRefused(t *testing.T) {
	const teamDatadir = "version: 5\nhierarchy:\n  - name: Team\n    datadir: \"data/teams/%{facts.team}\"\n    path: common.yaml\n"
	files := map[string]string{
		"env/hiera.yaml":                 teamDatadir,
		"env/data/teams/ops/common.yaml": "x: ops\n",
		"env/private/common.yaml":        "x: secret\n",
		"global/data/common.yaml":        "x: global secret\n",
	}
	for _, tc := range []struct {
		facts string
		want  string // "" = allowed
	}{
		{"team: ops\n", ""},
		{"team: ../../private\n", `datadir "data/teams/%{facts.team}" interpolates to "data/teams/../../private"`},
		{"team: ../../../global/data\n", `interpolates to "data/teams/../../../global/data"`},
		{"team: /etc\n", ""}, // data/teams//etc stays inside data/teams
		{"team: \"a\\0b\"\n", `datadir "data/teams/%{facts.team}" contains a NUL byte`},
	} {
		b := compileOne(t, files, tc.facts)
		switch {
		case tc.want == "" && b.NodeError != nil:
			t.Errorf("facts %q: unexpected error %v", tc.facts, b.NodeError)
		case tc.want != "" && (b.NodeError == nil || !strings.Contains(b.NodeError.Message, tc.want)):
			t.Errorf("facts %q: error %v, want one containing %q", tc.facts, b.NodeError, tc.want)
		case tc.want != "" && (b.NodeError.File != "env/hiera.yaml" || b.NodeError.Level != "Team" || b.NodeError.Line != 3):
			t.Errorf("facts %q: error not placed at the level: %+v", tc.facts, b.NodeError)
		}
		if k := keyOf(b, "x"); k != nil && k.Value != "ops" {
			t.Errorf("facts %q: x = %v read from outside the team folders", tc.facts, k.Value)
		}
	}
}

func TestModuleNamespace(t *testing.T) {
	b := compileOne(t, map[string]string{
		"env/hiera.yaml":                   simpleHiera,
		"env/data/common.yaml":             "ntp::servers: [env]\n",
		"env/modules/ntp/hiera.yaml":       "version: 5\n",
		"env/modules/ntp/data/common.yaml": "ntp::servers: [mod]\nntp::port: 123\nother: dropped\n",
		"env/modules/Bad/hiera.yaml":       "version: 5\n",
	}, "role: web\n")
	if k := keyOf(b, "ntp::servers"); k == nil || !format.Equal(k.Value, []any{"env"}) {
		t.Errorf("environment must win over the module: %+v", k)
	}
	if k := keyOf(b, "ntp::port"); k == nil || k.Value != int64(123) {
		t.Errorf("module key: %+v", k)
	}
	if k := keyOf(b, "other"); k != nil {
		t.Errorf("a module's key outside its namespace must be dropped, got %+v", k)
	}
	for _, m := range b.Modules {
		if m.Name == "Bad" {
			t.Errorf("invalid module name must be ignored")
		}
	}
}

// TestMergeErrorPosition: an error that no single location raised (a merge
// Puppet refuses) is placed at the highest-priority contribution.
func TestMergeErrorPosition(t *testing.T) {
	b := compileOne(t, map[string]string{
		"env/hiera.yaml":         simpleHiera,
		"env/data/role/web.yaml": "lookup_options:\n  pkgs:\n    merge: unique\npkgs: [a]\n",
		"env/data/common.yaml":   "pkgs:\n  not: a list\n",
	}, "role: web\n")
	k := keyOf(b, "pkgs")
	if k == nil || k.Err == nil {
		t.Fatalf("want a merge error for pkgs, got %+v", k)
	}
	want := format.Error{Message: k.Err.Message, Pos: format.Pos{File: "env/data/role/web.yaml", Line: 4, Column: 1}, Level: "Role"}
	if d := cmp.Diff(want, *k.Err); d != "" || !strings.Contains(k.Err.Message, "The second element of the merge has wrong type") {
		t.Errorf("merge error (-want +got):\n%s\nmessage: %s", d, k.Err.Message)
	}
}

// TestOriginalPaths pins what a bundle records as each location's
// original path (Puppet's "Original path" in --explain): the template of
// path, paths and mapped_paths, the interpolated pattern of a glob.
func TestOriginalPaths(t *testing.T) {
	b := compileOne(t, map[string]string{
		"env/hiera.yaml": `version: 5
hierarchy:
  - name: Role
    path: "roles/%{facts.role}.yaml"
  - name: OS
    paths: ["os/%{facts.os}/x.yaml", "os/%{facts.os}.yaml"]
  - name: Conf
    glob: "conf.d/%{facts.os}-*.yaml"
  - name: Services
    mapped_paths: [services, s, "services/%{s}.yaml"]
`,
		"env/data/os/Debian.yaml":       "a: 1\n",
		"env/data/conf.d/Debian-1.yaml": "a: 2\n",
		"env/data/conf.d/Debian-2.yaml": "a: 3\n",
		"env/data/services/nginx.yaml":  "a: 4\n",
	}, "os: Debian\nservices: [nginx, redis]\n")
	type loc struct{ Path, Original string }
	var got []loc
	for _, l := range b.Env.Levels {
		for _, x := range l.Locations {
			got = append(got, loc{x.Path, x.Original})
		}
	}
	want := []loc{
		{"env/data/roles/.yaml", "roles/%{facts.role}.yaml"},
		{"env/data/os/Debian/x.yaml", "os/%{facts.os}/x.yaml"},
		{"env/data/os/Debian.yaml", "os/%{facts.os}.yaml"},
		{"env/data/conf.d/Debian-1.yaml", "env/data/conf.d/Debian-*.yaml"},
		{"env/data/conf.d/Debian-2.yaml", "env/data/conf.d/Debian-*.yaml"},
		{"env/data/services/nginx.yaml", "services/%{s}.yaml"},
		{"env/data/services/redis.yaml", "services/%{s}.yaml"},
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("locations (-want +got):\n%s", d)
	}
}

// TestMergeFrom pins where a key's lookup_options entry is recorded as
// written: the highest-priority file defining the entry that matched (a
// literal beats a regexp), with the entry's line and column.
func TestMergeFrom(t *testing.T) {
	b := compileOne(t, map[string]string{
		"env/hiera.yaml":     "version: 5\nhierarchy:\n  - name: Role\n    path: role.yaml\n  - name: Common\n    path: common.yaml\n",
		"env/data/role.yaml": "lookup_options:\n  '^b':\n    merge: hash\nb1: {x: 1}\n",
		"env/data/common.yaml": `lookup_options:
  a:
    merge: unique
  '^b':
    merge: deep
  c: {}
a: [1]
b1: {y: 2}
c: 3
d: 4
`,
	}, "{}\n")
	want := map[string]*format.OptionsEntry{
		"a":  {Entry: "a", Pos: format.Pos{File: "env/data/common.yaml", Line: 2, Column: 3}, Level: "Common"},
		"b1": {Entry: "^b", Pos: format.Pos{File: "env/data/role.yaml", Line: 2, Column: 3}, Level: "Role"},
		"c":  {Entry: "c", Pos: format.Pos{File: "env/data/common.yaml", Line: 6, Column: 3}, Level: "Common"},
		"d":  nil,
	}
	got := map[string]*format.OptionsEntry{}
	for name := range want {
		k := keyOf(b, name)
		if k == nil {
			t.Fatalf("no key %s", name)
		}
		got[name] = k.MergeFrom
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("MergeFrom (-want +got):\n%s", d)
	}
	if m := keyOf(b, "b1").Merge; m.Strategy != "hash" {
		t.Errorf("b1 merge = %+v, want the role level's hash", m)
	}
}

// TestLayersStayInTheirFolders: a hierarchy path written with ".." must not
// reach another layer's folder (in the input FS the environment's
// "../global" is the --global folder, not what that path names on disk),
// while an absolute datadir names the Puppet server's disk: absent unless
// mounted (outside.go), never read from this machine's.
func TestLayersStayInTheirFolders(t *testing.T) {
	level := func(loc string) string {
		return "version: 5\nhierarchy:\n  - name: L\n    " + loc + "\n"
	}
	for _, tc := range []struct {
		name, modDir   string
		env, mod, want string // want "" = allowed
	}{
		{"env path to global", "modules", level(`path: "../../global/data/common.yaml"`), "", `resolves to "global/data/common.yaml", outside env, the folder of its layer`},
		{"env glob over everything", "modules", level(`glob: "../../**/*.yaml"`), "", `resolves to "**/*.yaml", outside env`},
		{"env path to modules", "modules", level(`path: "../../modules/m/data/common.yaml"`), "", "outside env"},
		{"env path to its own modules folder", "env/modules", level(`path: "../modules/m/data/common.yaml"`), "", ""},
		{"module path to env", "modules", "", level(`path: "../../../env/data/common.yaml"`), "outside modules, the folder of its layer"},
		{"module datadir to env", "modules", "", level("datadir: ../../env/data\n    path: common.yaml"), `datadir "../../env/data" resolves to "env/data", outside modules`},
		{"absolute datadir", "modules", level("datadir: /etc\n    path: passwd"), "", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fsys := fstest.MapFS{
				"env/data/common.yaml":            {Data: []byte("x: env\n")},
				"global/data/common.yaml":         {Data: []byte("x: global\n")},
				tc.modDir + "/m/data/common.yaml": {Data: []byte("m::x: module\n")},
				tc.modDir + "/m/hiera.yaml":       {Data: []byte(stdcmp.Or(tc.mod, "version: 5\n"))},
				"env/hiera.yaml":                  {Data: []byte(stdcmp.Or(tc.env, "version: 5\n"))},
				"nodes/web01.example.com.yaml":    {Data: []byte("role: web\n")},
			}
			node, _ := LoadFacts(fsys, "nodes/web01.example.com.yaml")
			res, err := Compile(context.Background(), Input{FS: fsys, EnvDir: "env", ModulesDir: tc.modDir, GlobalDir: "global", Nodes: []Node{node}})
			if err != nil {
				t.Fatal(err)
			}
			b := res.Bundles[0]
			var got *format.Error
			if b.NodeError != nil {
				got = b.NodeError
			}
			for _, m := range b.Modules {
				if m.Err != nil {
					got = m.Err
				}
			}
			switch {
			case tc.want == "" && got != nil:
				t.Errorf("unexpected error %v", got)
			case tc.want != "" && (got == nil || !strings.Contains(got.Message, tc.want)):
				t.Errorf("error %v, want one containing %q", got, tc.want)
			}
		})
	}
}
