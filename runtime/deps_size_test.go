package runtime_test

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// Packages that must never be in what an agent links: the writer of
// bundles (format/encode) and its signing and sealing (format/trust/sign),
// the compiler's reading of lookup_options (format/hiera/lookupopts), the
// compiler and its YAML readers, the CLI and the test helpers; and
// puppet lookup's --render-as renderings (runtime/render), which an agent
// imports only to print values as the CLI does. TestDeps allows runtime
// and format's packages only; this names the compiler's, which sit under
// format/, and keeps the rule readable should the allowed list grow.
var neverInRuntime = []string{
	"github.com/hieracc/hieracc/format/encode",
	"github.com/hieracc/hieracc/format/trust/sign",
	"github.com/hieracc/hieracc/format/hiera/lookupopts",
	"github.com/hieracc/hieracc/runtime/render",
	"github.com/hieracc/hieracc/format/formattest",
	"github.com/hieracc/hieracc/compiler",
	"github.com/hieracc/hieracc/cmd",
	"github.com/hieracc/hieracc/benchmarks",
	"gopkg.in/yaml",
	"github.com/vmihailenco/msgpack",
}

// maxRuntimeCode bounds the lines of code (neither blank nor only a //
// comment) of this module's Go files, tests aside, that an agent importing
// runtime compiles: 13,485 (16,978 lines in all) before the encoder left
// format for format/encode, 10,756 (13,331 in all) after; 11,245 (14,042)
// with what agents needed next: the HTTP reloader (fetch.go), signer rules
// and the checks of certificates and of the node a bundle is for; 11,588
// (14,455) with format/bulk.go, the diff's partial readers, which sit in
// format only because they read its internals (they should leave it, as
// the encoder did); 11,641 (14,526) with the hostile round's fixes that
// agents need (bounded reads of bundle files, checks of signer patterns
// and of nil keys); 10,437 (13,114) once what only the compiler or the CLI
// uses left: signing and sealing (format/trust/sign), the reading of
// lookup_options' merge and convert_to settings (format/hiera/lookupopts),
// puppet lookup's --render-as renderings (runtime/render), and hiera's own
// port of Puppet's type mismatch messages (merges use ptype's); 10,330
// (13,025) once the diff's partial readers moved to format/bulk, keeping
// in format/partial.go only what reads format's internals; 10,714
// (13,509) with format.KeyReader and runtime.OpenPeek, which answer one
// key from a bundle's bytes without decoding the rest (a server answering
// any key of any of 10,000 nodes; an agent may use it too); 9,343
// (11,913) once keeping a bundle current (runtime/reload: the file
// watcher, the HTTP fetcher) and explanations (runtime/explain) left
// runtime, and format/typecalc's type model was merged into format/ptype's.
// Raise it only for code an agent needs: the writer side of anything
// belongs to the compiler's packages. (Issue #30's goal, 11,000 lines in
// all, is not met: what is left is reading every format version, the
// one-key reader, signatures and seals, and what lookups run, their
// messages included.)
const maxRuntimeCode = 9400

// maxRuntimeLines bounds the same lines, comments and blank lines included
// (13,114 when it was set, 13,509 when it was last raised, 11,913 when it
// was last lowered).
const maxRuntimeLines = 12000

type listedPackage struct {
	ImportPath string
	Dir        string
	GoFiles    []string
	Standard   bool
	Module     *struct{ Path string }
}

// runtimeDeps is go list's view of runtime's dependencies (runtime
// included), tests aside.
func runtimeDeps(t *testing.T) []listedPackage {
	t.Helper()
	out, err := exec.Command("go", "list", "-deps", "-json=ImportPath,Dir,GoFiles,Standard,Module", ".").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	var pkgs []listedPackage
	for d := json.NewDecoder(bytes.NewReader(out)); d.More(); {
		var p listedPackage
		if err := d.Decode(&p); err != nil {
			t.Fatal(err)
		}
		pkgs = append(pkgs, p)
	}
	if len(pkgs) < 10 {
		t.Fatalf("go list returned %d packages", len(pkgs))
	}
	return pkgs
}

// TestDepsNoWriter fails when the encoder, or any compiler, CLI or YAML
// package, creeps back into what runtime links.
func TestDepsNoWriter(t *testing.T) {
	for _, p := range runtimeDeps(t) {
		for _, bad := range neverInRuntime {
			if p.ImportPath == bad || strings.HasPrefix(p.ImportPath, bad+"/") {
				t.Errorf("runtime depends on %s", p.ImportPath)
			}
		}
	}
}

// TestDepsSize measures what an agent importing runtime compiles of this
// module (go test -run TestDepsSize -v ./runtime prints it by package:
// lines of code, then lines in all) and holds it to maxRuntimeCode and
// maxRuntimeLines.
func TestDepsSize(t *testing.T) {
	code, all := 0, 0
	for _, p := range runtimeDeps(t) {
		if p.Standard || p.Module == nil || p.Module.Path != "github.com/hieracc/hieracc" {
			continue
		}
		c, n := 0, 0
		for _, f := range p.GoFiles {
			data, err := os.ReadFile(filepath.Join(p.Dir, f))
			if err != nil {
				t.Fatal(err)
			}
			for line := range strings.Lines(string(data)) {
				n++
				if l := strings.TrimSpace(line); l != "" && !strings.HasPrefix(l, "//") {
					c++
				}
			}
		}
		t.Logf("%6d %6d %s", c, n, p.ImportPath)
		code, all = code+c, all+n
	}
	t.Logf("%6d %6d in all (lines of code, lines)", code, all)
	if code > maxRuntimeCode {
		t.Errorf("an agent importing runtime compiles %d lines of code of this module, more than %d: does the new code belong to the compiler's side?", code, maxRuntimeCode)
	}
	if all > maxRuntimeLines {
		t.Errorf("an agent importing runtime compiles %d lines of this module, more than %d: does the new code belong to the compiler's side?", all, maxRuntimeLines)
	}
}
