package compiler_test

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/hieracc/hieracc/compiler"
	"github.com/hieracc/hieracc/format/encode"
	"github.com/hieracc/hieracc/internal/conformancetest"
	"github.com/hieracc/hieracc/runtime"
	"gopkg.in/yaml.v3"
)

// conformanceDir holds cases whose expected values real `puppet lookup` produced.
const conformanceDir = "../../shared/conformance/public"

// ownCasesDir holds hieracc's own cases, laid out as the corpus and also
// produced by real Puppet (testdata/conformance/README.md). They always run.
const ownCasesDir = "../testdata/conformance"

// TestConformance runs every check of every conformance case through the
// whole pipeline: compile, encode, open with the runtime, look up.
func TestConformance(t *testing.T) {
	cases, err := os.ReadDir(conformanceDir)
	if err != nil {
		t.Skipf("conformance corpus not found at %s (it sits beside the checkout as ../shared): %v", conformanceDir, err)
	}
	total, failed := 0, 0
	for _, c := range cases {
		if !c.IsDir() {
			continue
		}
		dir := filepath.Join(conformanceDir, c.Name())
		t.Run(c.Name(), func(t *testing.T) {
			n, fails := checkCase(t, dir)
			total += n
			failed += len(fails)
			for _, f := range fails {
				t.Error(f)
			}
		})
	}
	t.Logf("conformance: %d checks, %d passed, %d failed", total, total-failed, failed)
}

// TestOwnConformance runs hieracc's own cases (testdata/conformance), whose
// expected values real Puppet also produced, the same way.
func TestOwnConformance(t *testing.T) {
	cases, err := filepath.Glob(filepath.Join(ownCasesDir, "*", "expected.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	total, failed := 0, 0
	for _, f := range cases {
		dir := filepath.Dir(f)
		t.Run(filepath.Base(dir), func(t *testing.T) {
			if why := conformancetest.MissingLinks(dir); why != "" {
				t.Skip(why)
			}
			n, fails := checkCase(t, dir)
			total += n
			failed += len(fails)
			for _, f := range fails {
				t.Error(f)
			}
		})
	}
	t.Logf("own conformance cases: %d cases, %d checks, %d passed, %d failed", len(cases), total, total-failed, failed)
}

// TestExampleMatchesPuppet runs the bundled example's checks, which real
// Puppet produced (testdata/example/gen-expected.rb).
func TestExampleMatchesPuppet(t *testing.T) {
	n, fails := checkCase(t, "../testdata/example")
	for _, f := range fails {
		t.Error(f)
	}
	if n == 0 {
		t.Fatal("the example has no checks")
	}
	t.Logf("example: %d checks, %d failed", n, len(fails))
}

// TestConformanceRunnerCatchesMismatches guards the runner itself: a case
// whose expectations are wrong in each way must be reported, check by check.
func TestConformanceRunnerCatchesMismatches(t *testing.T) {
	src := filepath.Join(conformanceDir, "merge-hash")
	if _, err := os.Stat(src); err != nil {
		t.Skipf("conformance corpus not found: %v", err)
	}
	dir := t.TempDir()
	if err := os.CopyFS(dir, os.DirFS(src)); err != nil {
		t.Fatal(err)
	}
	var checks []map[string]any
	raw, _ := os.ReadFile(filepath.Join(dir, "expected.yaml"))
	if err := yaml.Unmarshal(raw, &checks); err != nil {
		t.Fatal(err)
	}
	var bad []map[string]any
	for _, ck := range checks {
		if _, ok := ck["value"].(map[string]any); ok && len(bad) == 0 {
			// Same entries, reversed key order: must be caught.
			var rev yaml.Node
			var node yaml.Node
			_ = node.Encode(ck["value"])
			rev = node
			for i, j := 0, len(rev.Content)-2; i < j; i, j = i+2, j-2 {
				rev.Content[i], rev.Content[j] = rev.Content[j], rev.Content[i]
				rev.Content[i+1], rev.Content[j+1] = rev.Content[j+1], rev.Content[i+1]
			}
			ck["value"] = &rev
			bad = append(bad, ck)
		}
	}
	node := checks[0]["node"]
	bad = append(bad,
		map[string]any{"node": node, "key": "no_such_key_anywhere", "value": "x"},
		map[string]any{"node": node, "key": checks[0]["key"], "not_found": true},
		map[string]any{"node": node, "key": checks[0]["key"], "error": true, "message": "boom"},
	)
	out, _ := yaml.Marshal(bad)
	if err := os.WriteFile(filepath.Join(dir, "expected.yaml"), out, 0o644); err != nil {
		t.Fatal(err)
	}
	n, fails := checkCase(t, dir)
	if n != len(bad) || len(fails) != len(bad) {
		t.Errorf("runner reported %d failures of %d checks, want all %d to fail:\n%s", len(fails), n, len(bad), strings.Join(fails, "\n"))
	}
}

// checkCase compiles a case laid out as the corpus README describes and runs
// its checks; it returns the number of checks and a message per failure.
func checkCase(t *testing.T, dir string) (int, []string) {
	t.Helper()
	bundles := CompileCase(t, dir)
	checks, err := conformancetest.ReadChecks(dir)
	if err != nil {
		t.Fatal(err)
	}
	var fails []string
	for i, ck := range checks {
		if msg := runCheck(t, bundles, ck); msg != "" {
			fails = append(fails, fmt.Sprintf("%s #%d %s %q: %s", filepath.Base(dir), i, ck.Node, ck.Key, msg))
		}
	}
	return len(checks), fails
}

// caseFlags applies a case's hieracc-flags (conformancetest.ReadFlags) to in.
func caseFlags(t *testing.T, dir string, in *compiler.Input) {
	t.Helper()
	flags, err := conformancetest.ReadFlags(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range flags {
		switch f.Name {
		case "--mount":
			rel, err := filepath.Rel(dir, f.Path)
			if err != nil {
				t.Fatalf("hieracc-flags: %v", err)
			}
			in.Mounts = append(in.Mounts, compiler.Mount{Server: f.Server, Dir: filepath.ToSlash(rel)})
			continue
		case "--ruby-backends":
			if f.Value != "puppet" {
				t.Fatalf("hieracc-flags: --ruby-backends %s: this test knows puppet only", f.Value)
			}
			in.RubyBackends = rubyBackendFor(t, dir)
			continue
		case "--keys":
			data, err := os.ReadFile(f.Path)
			if err != nil {
				t.Fatalf("hieracc-flags: %v", err)
			}
			for _, k := range strings.Split(string(data), "\n") {
				if k = strings.TrimSpace(k); k != "" && !strings.HasPrefix(k, "#") {
					in.RubyKeys = append(in.RubyKeys, k)
				}
			}
			continue
		}
		data, err := os.ReadFile(f.Path)
		if err != nil {
			t.Fatalf("hieracc-flags: %v", err)
		}
		key := &compiler.KeyFile{Name: f.Path, Data: data}
		switch f.Name {
		case "--pkcs7-private-key":
			in.PKCS7PrivateKey = key
		case "--pkcs7-public-key":
			in.PKCS7PublicKey = key
		default:
			t.Fatalf("hieracc-flags: %s is not a flag this test knows", f.Name)
		}
	}
}

// CompileCase compiles every node of a case and opens each bundle through
// the runtime, after a round trip through the wire format.
func CompileCase(t *testing.T, dir string) map[string]*runtime.Bundle {
	t.Helper()
	fsys := os.DirFS(dir)
	files, _ := fs.Glob(fsys, "nodes/*.yaml")
	sort.Strings(files)
	var nodes []compiler.Node
	for _, f := range files {
		n, ds := compiler.LoadFacts(fsys, f)
		for _, d := range ds {
			t.Fatalf("facts: %s", d)
		}
		nodes = append(nodes, n)
	}
	return compileNodes(t, dir, nodes)
}

// compileNodes compiles the given nodes against a case's env/, modules/
// and global/ (with its hieracc-flags), and opens each bundle through the runtime, after a round
// trip through the wire format.
func compileNodes(t *testing.T, dir string, nodes []compiler.Node) map[string]*runtime.Bundle {
	t.Helper()
	in := compiler.Input{FS: os.DirFS(dir), EnvDir: "env", ModulesDir: "modules", GlobalDir: "global", Nodes: nodes}
	// A case reads no key file from this machine's disk (the generator
	// installed its keys there for Puppet): only flags and mounts give them.
	in.ReadKeyFile = func(p string) ([]byte, error) {
		return nil, &fs.PathError{Op: "open", Path: p, Err: fs.ErrNotExist}
	}
	caseFlags(t, dir, &in)
	res, err := compiler.Compile(context.Background(), in)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]*runtime.Bundle{}
	for _, b := range res.Bundles {
		data, err := encode.Encode(b)
		if err != nil {
			t.Fatalf("encode %s: %v", b.Node, err)
		}
		rb, err := runtime.OpenBytes(data)
		if err != nil {
			t.Fatalf("open %s: %v", b.Node, err)
		}
		out[b.Node] = rb
	}
	return out
}

func runCheck(t *testing.T, bundles map[string]*runtime.Bundle, ck conformancetest.Check) string {
	b := bundles[ck.Node]
	if b == nil {
		return "no bundle for node"
	}
	merge, err := ck.LookupMerge()
	if err != nil {
		return err.Error()
	}
	got, lerr := b.LookupWith(ck.Key, runtime.Options{Merge: merge})
	switch {
	case ck.Error:
		if lerr == nil || errors.Is(lerr, runtime.ErrNotFound) {
			return fmt.Sprintf("want error containing %q, got value %s (err %v)", ck.Message, conformancetest.Show(got), lerr)
		}
		if !strings.Contains(lerr.Error(), ck.Message) {
			return fmt.Sprintf("want error containing %q, got %q", ck.Message, lerr.Error())
		}
	case ck.NotFound:
		if !errors.Is(lerr, runtime.ErrNotFound) {
			return fmt.Sprintf("want not found, got %s (err %v)", conformancetest.Show(got), lerr)
		}
	default:
		want, err := ck.Want()
		if err != nil {
			t.Fatalf("expected value: %v", err)
		}
		if lerr != nil {
			return fmt.Sprintf("want %s, got error %v", conformancetest.Show(want), lerr)
		}
		if d := conformancetest.Diff(want, got); d != "" {
			return fmt.Sprintf("value mismatch (-want +got):\n%s", d)
		}
	}
	return ""
}
