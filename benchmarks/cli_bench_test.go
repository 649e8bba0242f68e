package benchmarks

import (
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/hieracc/hieracc/benchmarks/internal/gen"
)

// buildHieracc builds the hieracc command into dir and returns its path,
// for the benchmarks that run it as users do; without the go command the
// benchmark is skipped.
func buildHieracc(b *testing.B, dir string) string {
	b.Helper()
	gobin, err := exec.LookPath("go")
	if err != nil {
		b.Skip("needs the go command to build hieracc")
	}
	hieracc := filepath.Join(dir, "hieracc")
	if out, err := exec.Command(gobin, "build", "-o", hieracc, "github.com/hieracc/hieracc/cmd/hieracc").CombinedOutput(); err != nil {
		b.Fatalf("go build: %v\n%s", err, out)
	}
	return hieracc
}

// writeReference writes the reference fleet's first nodes nodes to the
// folder src (env/, modules/, nodes/).
func writeReference(b *testing.B, src string, nodes int) {
	b.Helper()
	p := gen.Reference()
	p.Nodes = nodes
	repo, err := gen.Generate(p)
	if err != nil {
		b.Fatal(err)
	}
	if err := repo.WriteDir(src); err != nil {
		b.Fatal(err)
	}
}
