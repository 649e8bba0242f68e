package compiler_test

import (
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/google/go-cmp/cmp"
	"github.com/hieracc/hieracc/compiler"
	"github.com/hieracc/hieracc/internal/conformancetest"
)

// TestCheckFindsWhatCompileFinds: of every case (hieracc's own, the
// corpus when present, the example), Check without facts reports every
// diagnostic a compile of the case's nodes reports for no node in
// particular (a hiera.yaml, a data file that does not parse, a warning of
// the reader): what is wrong in the files, found whoever reaches them.
func TestCheckFindsWhatCompileFinds(t *testing.T) {
	dirs, _ := filepath.Glob(filepath.Join(ownCasesDir, "*", "expected.yaml"))
	corpus, _ := filepath.Glob(filepath.Join(conformanceDir, "*", "expected.yaml"))
	dirs = append(dirs, corpus...)
	dirs = append(dirs, "../testdata/example/expected.yaml")
	for _, f := range dirs {
		dir := filepath.Dir(f)
		t.Run(filepath.Base(dir), func(t *testing.T) {
			in := caseInput(t, dir)
			res, err := compiler.Compile(context.Background(), in)
			if err != nil {
				t.Fatal(err)
			}
			in.Nodes = nil
			got, err := compiler.Check(context.Background(), in)
			if err != nil {
				t.Fatal(err)
			}
			if got.Bundles != nil {
				t.Errorf("Check made bundles")
			}
			for _, d := range res.Diagnostics {
				// Diagnostics of nodes are compile's own; a level whose
				// function is Ruby code is not checked (check runs no Ruby).
				if d.Node != "" || strings.HasPrefix(d.Message, "Unable to find '") {
					continue
				}
				// A file named through an empty interpolation (data//x.yaml
				// to Puppet) is named by its path.
				d.File, d.Message = undouble(d.File), undouble(d.Message)
				if !slices.Contains(got.Diagnostics, d) {
					t.Errorf("compile reports %s; check does not", d)
				}
			}
		})
	}
}

// undouble is s with each "//" made "/".
func undouble(s string) string { return strings.ReplaceAll(s, "//", "/") }

// caseInput is the Input of a case: its folders, nodes and flags.
func caseInput(t *testing.T, dir string) compiler.Input {
	t.Helper()
	fsys := os.DirFS(dir)
	in := compiler.Input{FS: fsys, EnvDir: "env", ModulesDir: "modules", GlobalDir: "global"}
	if _, err := os.Stat(filepath.Join(dir, "global")); err != nil {
		in.GlobalDir = ""
	}
	in.ReadKeyFile = func(p string) ([]byte, error) {
		return nil, &fs.PathError{Op: "open", Path: p, Err: fs.ErrNotExist}
	}
	files, _ := fs.Glob(fsys, "nodes/*.yaml")
	sort.Strings(files)
	for _, f := range files {
		n, ds := compiler.LoadFacts(fsys, f)
		if len(ds) > 0 {
			t.Fatalf("facts: %s", ds[0])
		}
		in.Nodes = append(in.Nodes, n)
	}
	flags, err := conformancetest.ReadFlags(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range flags {
		switch f.Name {
		case "--mount":
			rel, err := filepath.Rel(dir, f.Path)
			if err != nil {
				t.Fatal(err)
			}
			in.Mounts = append(in.Mounts, compiler.Mount{Server: f.Server, Dir: filepath.ToSlash(rel)})
		case "--pkcs7-private-key", "--pkcs7-public-key":
			data, err := os.ReadFile(f.Path)
			if err != nil {
				t.Fatal(err)
			}
			key := &compiler.KeyFile{Name: f.Path, Data: data}
			if f.Name == "--pkcs7-private-key" {
				in.PKCS7PrivateKey = key
			} else {
				in.PKCS7PublicKey = key
			}
		} // --ruby-backends, --keys: Ruby code, which check does not run
	}
	return in
}

// TestCheck pins what Check reports of a repo no node is given for.
func TestCheck(t *testing.T) {
	repo := fstest.MapFS{
		"env/hiera.yaml": {Data: []byte(`version: 5
hierarchy:
  - name: Role
    path: "role/%{facts.role}.yaml"
  - name: Group
    path: "g/%{facts.group}/%{facts.kind}.yaml"
  - name: Glob
    glob: "glob/%{facts.team}/*.yaml"
  - name: Mapped
    mapped_paths: [services, s, "svc/%{s}.yaml"]
  - name: Literal
    path: "lit/%{literal('%')}x.yaml"
  - name: Vault
    data_hash: vault_hash
    path: "vault/%{trusted.certname}.yaml"
  - name: Common
    path: common.yaml
`)},
		"env/data/common.yaml":         {Data: []byte("a: 1\n")},
		"env/data/role/alstation.yaml": {Data: []byte("a: [\n")},
		"env/data/g/x.yaml":            {Data: []byte("a: [\n")}, // %{facts.group} empty: g//x.yaml
		"env/data/g/y/z.yaml":          {Data: []byte("a: 1\n")},
		"env/data/glob/t/q.yaml":       {Data: []byte("a: 1\n")},
		"env/data/glob/q.yaml":         {Data: []byte("a: 1\n")}, // %{facts.team} empty
		"env/data/svc/ssh.yaml":        {Data: []byte("a: 1\n")},
		"env/data/lit/%x.yaml":         {Data: []byte("a: 1\n")},
		"env/data/vault/n1.yaml":       {Data: []byte("not: [yaml\n")}, // Ruby code reads it
		"env/data/role/README.md":      {Data: []byte("# roles\n")},
		"env/data/other/stale.yaml":    {Data: []byte("a: 1\n")},
		"env/data/role/sub/deep.yaml":  {Data: []byte("a: 1\n")},
	}
	res, err := compiler.Check(context.Background(), compiler.Input{FS: repo, EnvDir: "env"})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, d := range res.Diagnostics {
		got = append(got, d.String())
	}
	want := []string{
		"env/data/g/x.yaml:2:1: Unable to parse (env/data/g/x.yaml): did not find expected node content while parsing a flow node at line 2 column 1",
		"env/data/other/stale.yaml: warning: no hierarchy level names this data file, whatever a node's facts: no lookup reads it",
		"env/data/role/alstation.yaml:2:1: Unable to parse (env/data/role/alstation.yaml): did not find expected node content while parsing a flow node at line 2 column 1",
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("diagnostics (-want +got):\n%s", d)
	}
	if strings.Contains(strings.Join(got, "\n"), "vault") {
		t.Errorf("a file a Ruby level reads was read, or warned of")
	}
}

// TestCheckLookupOptions: an entry that matches no key of any data file
// is warned of, a key or a regexp, but not when a level's function is
// Ruby code, whose keys are not known.
func TestCheckLookupOptions(t *testing.T) {
	repo := fstest.MapFS{
		"env/hiera.yaml": {Data: []byte("version: 5\nhierarchy:\n  - name: Common\n    path: common.yaml\n")},
		"env/data/common.yaml": {Data: []byte(`a::b: 1
lookup_options:
  a::b: {merge: deep}
  "^a::": {merge: deep}
  "^z::": {merge: deep}
  a: {merge: deep}
`)},
	}
	res, err := compiler.Check(context.Background(), compiler.Input{FS: repo, EnvDir: "env"})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, d := range res.Diagnostics {
		got = append(got, d.String())
	}
	want := []string{
		`env/data/common.yaml:5:3: warning: lookup_options entry "^z::" matches no key of any data file (key "^z::")`,
		`env/data/common.yaml:6:3: warning: lookup_options entry "a" matches no key of any data file (key "a")`,
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("(-want +got):\n%s", d)
	}
	repo["env/hiera.yaml"] = &fstest.MapFile{Data: []byte("version: 5\nhierarchy:\n  - name: Vault\n    lookup_key: vault_lookup\n    uri: vault://x\n  - name: Common\n    path: common.yaml\n")}
	res, err = compiler.Check(context.Background(), compiler.Input{FS: repo, EnvDir: "env"})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Diagnostics) != 0 {
		t.Errorf("with a Ruby level: %v", res.Diagnostics)
	}
}
