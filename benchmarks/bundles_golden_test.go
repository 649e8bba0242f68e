package benchmarks

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/hieracc/hieracc/benchmarks/internal/gen"
	"github.com/hieracc/hieracc/compiler"
	"github.com/hieracc/hieracc/format/encode"
	"github.com/hieracc/hieracc/internal/conformancetest"
)

var update = flag.Bool("update", false, "rewrite testdata/bundles.golden")

// bundlesGolden holds the SHA-256 of every bundle TestBundlesUnchanged
// compiles, as the compiler made them before its restructuring: a change
// that moves code around must leave every byte where it was.
const bundlesGolden = "testdata/bundles.golden"

// sharedCorpus is the conformance corpus beside the checkout; its cases
// are compared when it is there.
const sharedCorpus = "../../shared/conformance/public"

// TestBundlesUnchanged compiles the example, every conformance case (ours
// and the shared corpus's, when present) and a generated fleet of 300
// nodes, and compares each bundle's SHA-256 with bundlesGolden's, with
// sharing work across nodes on and off (compiler.Input.NoSharing).
func TestBundlesUnchanged(t *testing.T) {
	type source struct{ name, dir string }
	var sources []source
	sources = append(sources, source{"example", "../testdata/example"})
	own, _ := filepath.Glob("../testdata/conformance/*/expected.yaml")
	for _, f := range own {
		sources = append(sources, source{"conformance/" + filepath.Base(filepath.Dir(f)), filepath.Dir(f)})
	}
	shared, _ := filepath.Glob(filepath.Join(sharedCorpus, "*", "expected.yaml"))
	for _, f := range shared {
		sources = append(sources, source{"shared/" + filepath.Base(filepath.Dir(f)), filepath.Dir(f)})
	}
	fleetIn := goldenFleet(t)

	for _, share := range []bool{true, false} {
		t.Run(fmt.Sprintf("share=%v", share), func(t *testing.T) {
			got := map[string]string{}
			for _, s := range sources {
				in, ok := caseInput(t, s.dir)
				if !ok {
					continue
				}
				in.NoSharing = !share
				sumBundles(t, s.name, in, got)
			}
			in := fleetIn
			in.NoSharing = !share
			sumBundles(t, "fleet", in, got)

			if *update && share {
				writeGolden(t, got)
				return
			}
			want := readGolden(t)
			for name := range want {
				// Cases of a corpus that is absent, or that need what this
				// machine lacks, are not compared.
				if _, ok := got[name]; !ok && !strings.HasPrefix(name, "fleet/") && !strings.HasPrefix(name, "example/") {
					delete(want, name)
				}
			}
			if d := cmp.Diff(want, got); d != "" {
				t.Errorf("bundles differ from %s (-want +got):\n%s", bundlesGolden, d)
			}
		})
	}
}

// goldenFleet is the reference fleet's shape at 300 nodes.
func goldenFleet(t *testing.T) compiler.Input {
	t.Helper()
	p := gen.Reference()
	p.Nodes = 300
	repo, err := gen.Generate(p)
	if err != nil {
		t.Fatal(err)
	}
	files, _ := fs.Glob(repo.FS, "nodes/*")
	sort.Strings(files)
	in := compiler.Input{FS: repo.FS, EnvDir: "env", ModulesDir: "modules"}
	for _, file := range files {
		n, ds := compiler.LoadFacts(repo.FS, file)
		if len(ds) > 0 {
			t.Fatalf("facts: %v", ds)
		}
		in.Nodes = append(in.Nodes, n)
	}
	return in
}

// caseInput is the compile of a case laid out as testdata/conformance's
// (env/, modules/, global/, nodes/, hieracc-flags), as
// compiler/conformance_test.go makes it; false for a case this test
// skips (one that needs Puppet's Ruby, or symbolic links the checkout
// lacks).
func caseInput(t *testing.T, dir string) (compiler.Input, bool) {
	t.Helper()
	if conformancetest.MissingLinks(dir) != "" {
		return compiler.Input{}, false
	}
	fsys := os.DirFS(dir)
	in := compiler.Input{FS: fsys, EnvDir: "env", ModulesDir: "modules", GlobalDir: "global"}
	in.ReadKeyFile = func(p string) ([]byte, error) {
		return nil, &fs.PathError{Op: "open", Path: p, Err: fs.ErrNotExist}
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
			continue
		case "--ruby-backends", "--keys":
			return compiler.Input{}, false
		}
		data, err := os.ReadFile(f.Path)
		if err != nil {
			t.Fatal(err)
		}
		key := &compiler.KeyFile{Name: f.Path, Data: data}
		switch f.Name {
		case "--pkcs7-private-key":
			in.PKCS7PrivateKey = key
		case "--pkcs7-public-key":
			in.PKCS7PublicKey = key
		default:
			t.Fatalf("%s: hieracc-flags: %s is not a flag this test knows", dir, f.Name)
		}
	}
	files, _ := fs.Glob(fsys, "nodes/*.yaml")
	sort.Strings(files)
	for _, f := range files {
		n, ds := compiler.LoadFacts(fsys, f)
		if len(ds) > 0 {
			t.Fatalf("%s: facts: %v", dir, ds)
		}
		in.Nodes = append(in.Nodes, n)
	}
	return in, true
}

// sumBundles compiles in and records each bundle's SHA-256 as
// "set/node", and the digest of its diagnostics' text as "set/diagnostics".
func sumBundles(t *testing.T, set string, in compiler.Input, out map[string]string) {
	t.Helper()
	res, err := compiler.Compile(context.Background(), in)
	if err != nil {
		t.Fatalf("%s: %v", set, err)
	}
	for _, b := range res.Bundles {
		data, err := encode.Encode(b)
		if err != nil {
			t.Fatalf("%s: encode %s: %v", set, b.Node, err)
		}
		sum := sha256.Sum256(data)
		out[set+"/"+b.Node] = hex.EncodeToString(sum[:])
	}
	var diags bytes.Buffer
	for _, d := range res.Diagnostics {
		fmt.Fprintf(&diags, "%s\n", d)
	}
	sum := sha256.Sum256(diags.Bytes())
	out[set+"/diagnostics"] = hex.EncodeToString(sum[:])
}

func readGolden(t *testing.T) map[string]string {
	t.Helper()
	f, err := os.Open(bundlesGolden)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	m := map[string]string{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		name, sum, ok := strings.Cut(sc.Text(), " ")
		if !ok {
			t.Fatalf("%s: bad line %q", bundlesGolden, sc.Text())
		}
		m[name] = sum
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return m
}

func writeGolden(t *testing.T, m map[string]string) {
	t.Helper()
	names := make([]string, 0, len(m))
	for n := range m {
		names = append(names, n)
	}
	sort.Strings(names)
	var b bytes.Buffer
	for _, n := range names {
		fmt.Fprintf(&b, "%s %s\n", n, m[n])
	}
	if err := os.MkdirAll(filepath.Dir(bundlesGolden), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(bundlesGolden, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}
