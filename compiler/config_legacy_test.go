package compiler

import (
	"context"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/google/go-cmp/cmp"
)

// TestLegacyConfigDiagnostics pins what versions 3 and 4 report, per layer:
// Puppet's deprecation warnings, the version 3 file Puppet ignores, and the
// errors of a broken Hiera 3 global config.
func TestLegacyConfigDiagnostics(t *testing.T) {
	const v3 = "---\n:backends:\n  - yaml\n:hierarchy: common\n"
	for _, tc := range []struct {
		name  string
		files map[string]string
		want  []string
	}{
		{"version 3 in the environment", map[string]string{"env/hiera.yaml": v3}, []string{
			"env/hiera.yaml: warning: env/hiera.yaml: Use of 'hiera.yaml' version 3 is deprecated. It should be converted to version 5",
			"env/hiera.yaml: warning: hiera.yaml version 3 found at the environment root was ignored",
		}},
		{"not a hash in the environment", map[string]string{"env/hiera.yaml": "- a\n"}, []string{
			"env/hiera.yaml: warning: env/hiera.yaml: File exists but does not contain a valid YAML hash. Falling back to Hiera version 3 default config",
			"env/hiera.yaml: warning: env/hiera.yaml: Use of 'hiera.yaml' version 3 is deprecated. It should be converted to version 5",
			"env/hiera.yaml: warning: hiera.yaml version 3 found at the environment root was ignored",
		}},
		{"version 3 in a module", map[string]string{"env/hiera.yaml": "version: 5\n", "env/modules/m/hiera.yaml": "version: 3\n"}, []string{
			"env/modules/m/hiera.yaml: warning: env/modules/m/hiera.yaml: Use of 'hiera.yaml' version 3 is deprecated. It should be converted to version 5",
			"env/modules/m/hiera.yaml: warning: hiera.yaml version 3 found at module root was ignored",
		}},
		{"version 4 in the environment", map[string]string{"env/hiera.yaml": "version: 4\n"}, []string{
			"env/hiera.yaml: warning: env/hiera.yaml: Use of 'hiera.yaml' version 4 is deprecated. It should be converted to version 5",
		}},
		{"version 4 in the global layer", map[string]string{"global/hiera.yaml": "version: 4\n"}, []string{
			"global/hiera.yaml: warning: global/hiera.yaml: Use of 'hiera.yaml' version 4 is deprecated. It should be converted to version 5",
			"global/hiera.yaml:1:1: hiera.yaml version 4 cannot be used in the global layer",
		}},
		{"version 3 global", map[string]string{"global/hiera.yaml": v3}, []string{
			"global/hiera.yaml: warning: global/hiera.yaml: Use of 'hiera.yaml' version 3 is deprecated. It should be converted to version 5",
		}},
		{"version 3 global, bad keys", map[string]string{"global/hiera.yaml": "---\n:backends: [yaml, yaml]\n:json:\n  :datadir: /x\n:merge_behavior: 3\n"}, []string{
			"global/hiera.yaml: warning: global/hiera.yaml: Use of 'hiera.yaml' version 3 is deprecated. It should be converted to version 5",
			"global/hiera.yaml:3:1: The Lookup Configuration at 'global/hiera.yaml' has wrong type, unrecognized key 'json'",
			"global/hiera.yaml:5:18: The Lookup Configuration at 'global/hiera.yaml' has wrong type, entry 'merge_behavior' expects a match for Enum['deep', 'deeper', 'native'], got Integer",
		}},
		{"version 3 global, backend twice", map[string]string{"global/hiera.yaml": "---\n:backends: [yaml, yaml]\n"}, []string{
			"global/hiera.yaml: warning: global/hiera.yaml: Use of 'hiera.yaml' version 3 is deprecated. It should be converted to version 5",
			"global/hiera.yaml:2:1: Backend 'yaml' is defined more than once.",
		}},
		{"version 3 global, relative datadir", map[string]string{"global/hiera.yaml": "---\n:backends: yaml\n:yaml:\n  :datadir: hieradata\n"}, []string{
			"global/hiera.yaml: warning: global/hiera.yaml: Use of 'hiera.yaml' version 3 is deprecated. It should be converted to version 5",
			"global/hiera.yaml:3:1: hieracc cannot tell where the relative :datadir: 'hieradata' of backend 'yaml' is: Puppet resolves it against the working directory of its process. Make it absolute (and give that folder with compile --mount) (level \"yaml\")",
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fsys := fstest.MapFS{}
			for p, s := range tc.files {
				fsys[p] = &fstest.MapFile{Data: []byte(s)}
			}
			in := Input{FS: fsys, EnvDir: "env"}
			if _, ok := tc.files["global/hiera.yaml"]; ok {
				in.GlobalDir = "global"
			}
			res, err := Compile(context.Background(), in)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, d := range res.Diagnostics {
				got = append(got, d.String())
			}
			if d := cmp.Diff(tc.want, got); d != "" {
				t.Errorf("diagnostics (-want +got):\n%s", d)
			}
		})
	}
}

// TestV3PathExtension pins that a Hiera 3 backend's extension is added only
// to paths that do not already end with it.
func TestV3PathExtension(t *testing.T) {
	fsys := fstest.MapFS{
		"global/hiera.yaml":         {Data: []byte("---\n:backends: yaml\n:hierarchy: [b.yaml, a]\n")},
		"env/hieradata/a.yaml":      {Data: []byte("k: a\n")},
		"env/hieradata/b.yaml.yaml": {Data: []byte("k: b.yaml.yaml\n")},
		"env/hieradata/b.yaml":      {Data: []byte("k2: b\n")},
	}
	res, err := Compile(context.Background(), Input{FS: fsys, EnvDir: "env", GlobalDir: "global", Nodes: []Node{{Name: "n"}}})
	if err != nil {
		t.Fatal(err)
	}
	var locs []string
	for _, l := range res.Bundles[0].Global.Levels {
		for _, loc := range l.Locations {
			locs = append(locs, l.Name+":"+loc.Path)
		}
	}
	if d := cmp.Diff([]string{"yaml:env/hieradata/b.yaml", "yaml:env/hieradata/a.yaml"}, locs); d != "" {
		t.Errorf("locations (-want +got):\n%s", d)
	}
	if k := keyOf(res.Bundles[0], "k2"); k == nil || !strings.Contains(k.Value.(string), "b") {
		t.Errorf("k2 = %+v, want b", k)
	}
}

// TestForeignBackends pins what hieracc does with Ruby backends where no
// conformance case can: a Hiera 3 backend that Puppet would load on the
// server (Puppet here, without it, skips it) fails the lookups that reach
// an existing location, rather than answering "not found"; hiera3_backend
// for yaml or json is refused as by Puppet; and a misspelt data_hash
// function gets a suggestion in the diagnostic only.
func TestForeignBackends(t *testing.T) {
	for _, tc := range []struct {
		name  string
		files map[string]string
		want  []string
	}{
		{"hiera 3 backend with a file", map[string]string{
			"global/hiera.yaml":          "---\n:backends: [yaml, vault]\n:hierarchy: common\n",
			"env/hieradata/common.yaml":  "a: 1\n",
			"env/hieradata/common.vault": "a: 2\n",
		}, []string{
			"global/hiera.yaml: warning: global/hiera.yaml: Use of 'hiera.yaml' version 3 is deprecated. It should be converted to version 5",
			"global/hiera.yaml:2:1: Unable to load backend 'vault': hieracc cannot run Hiera 3 backends, which are Ruby code (level \"vault\")",
			// Raised in the global layer, where Puppet prefixes the key
			// whose lookup met it: every lookup reads lookup_options first.
			"Lookup of key 'lookup_options' failed: Unable to load backend 'vault': hieracc cannot run Hiera 3 backends, which are Ruby code",
		}},
		{"hiera3_backend yaml", map[string]string{
			"global/hiera.yaml": "version: 5\nhierarchy:\n  - name: Y\n    hiera3_backend: yaml\n    path: a\n",
		}, []string{
			"global/hiera.yaml:3:5: Use \"data_hash: yaml_data\" instead of \"hiera3_backend: yaml\"",
			"Use \"data_hash: yaml_data\" instead of \"hiera3_backend: yaml\"",
		}},
		{"misspelt function", map[string]string{
			"env/hiera.yaml":       "version: 5\nhierarchy:\n  - name: Typo\n    data_hash: yml_data\n    path: common.yaml\n",
			"env/data/common.yaml": "a: 1\n",
		}, []string{
			"env/hiera.yaml:3:5: Unable to find 'data_hash' function named 'yml_data' (did you mean 'yaml_data'?) (level \"Typo\")",
			"Unable to find 'data_hash' function named 'yml_data'",
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fsys := fstest.MapFS{}
			for p, s := range tc.files {
				fsys[p] = &fstest.MapFile{Data: []byte(s)}
			}
			in := Input{FS: fsys, EnvDir: "env", Nodes: []Node{{Name: "n"}}}
			if _, ok := tc.files["global/hiera.yaml"]; ok {
				in.GlobalDir = "global"
			}
			res, err := Compile(context.Background(), in)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, d := range res.Diagnostics {
				if d.Node == "" {
					got = append(got, d.String())
				}
			}
			b := res.Bundles[0]
			switch {
			case b.NodeError != nil:
				got = append(got, b.NodeError.Message)
			case keyOf(b, "a") != nil && keyOf(b, "a").Err != nil:
				got = append(got, keyOf(b, "a").Err.Message)
			}
			if d := cmp.Diff(tc.want, got); d != "" {
				t.Errorf("diagnostics and the error of key a (-want +got):\n%s", d)
			}
		})
	}
}
