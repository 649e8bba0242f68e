package diagnostics

import (
	"go/build"
	"strings"
	"testing"
)

// TestDeps: the diagnostic type is a leaf that every stage can import, so
// it imports nothing of this module but format.
func TestDeps(t *testing.T) {
	p, err := build.ImportDir(".", 0)
	if err != nil {
		t.Fatal(err)
	}
	for _, imp := range p.Imports {
		if strings.Contains(imp, ".") && imp != "github.com/hieracc/hieracc/format" {
			t.Errorf("diagnostics imports %s: only format and the standard library", imp)
		}
	}
}
