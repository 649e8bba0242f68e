package compiler

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestNoSharedCounters: the package, and its sharing (internal/share),
// keep no mutable state of their own between compilations (counters, ID
// maps, their locks): a compile's numbering belongs to the compilation or
// to its workers.
func TestNoSharedCounters(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	shared, err := filepath.Glob("internal/share/*.go")
	if err != nil || len(shared) == 0 {
		t.Fatalf("internal/share: %d files, %v", len(shared), err)
	}
	files = append(files, shared...)
	fset := token.NewFileSet()
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		src, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		f, err := parser.ParseFile(fset, name, src, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range f.Decls {
			g, ok := d.(*ast.GenDecl)
			if !ok || g.Tok != token.VAR {
				continue
			}
			for _, s := range g.Specs {
				vs := s.(*ast.ValueSpec)
				if vs.Type == nil {
					continue
				}
				typ := string(src[fset.Position(vs.Type.Pos()).Offset:fset.Position(vs.Type.End()).Offset])
				if strings.Contains(typ, "sync.") || strings.Contains(typ, "atomic.") {
					t.Errorf("%s: package variable %s of type %s", fset.Position(vs.Pos()), vs.Names[0].Name, typ)
				}
			}
		}
	}
}
