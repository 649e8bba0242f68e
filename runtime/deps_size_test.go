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
// bundles (format/encode), the compiler and its YAML readers, the CLI and
// the test helpers. TestDeps allows runtime and format's packages only;
// this names the writer, which sits under format/, and keeps the rule
// readable should the allowed list grow.
var neverInRuntime = []string{
	"github.com/hieracc/hieracc/format/encode",
	"github.com/hieracc/hieracc/format/formattest",
	"github.com/hieracc/hieracc/compiler",
	"github.com/hieracc/hieracc/cmd",
	"github.com/hieracc/hieracc/benchmarks",
	"gopkg.in/yaml",
	"github.com/vmihailenco/msgpack",
}

// maxRuntimeLines bounds the lines of this module's Go files (tests
// aside) that an agent importing runtime compiles: 16,978 before the
// encoder left format (package format/encode), 13,298 after. Raise it
// only for code an agent needs; the writer side of anything belongs to
// the compiler's packages.
const maxRuntimeLines = 14000

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
// module (go test -run TestDepsSize -v ./runtime prints it by package)
// and holds it to maxRuntimeLines.
func TestDepsSize(t *testing.T) {
	total := 0
	for _, p := range runtimeDeps(t) {
		if p.Standard || p.Module == nil || p.Module.Path != "github.com/hieracc/hieracc" {
			continue
		}
		n := 0
		for _, f := range p.GoFiles {
			data, err := os.ReadFile(filepath.Join(p.Dir, f))
			if err != nil {
				t.Fatal(err)
			}
			n += bytes.Count(data, []byte("\n"))
		}
		t.Logf("%6d %s", n, p.ImportPath)
		total += n
	}
	t.Logf("%6d lines in all", total)
	if total > maxRuntimeLines {
		t.Errorf("an agent importing runtime compiles %d lines of this module, more than %d: does the new code belong to the compiler's side?", total, maxRuntimeLines)
	}
}
