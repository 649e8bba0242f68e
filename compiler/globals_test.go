package compiler

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hieracc/hieracc/format"
)

// TestNoSharedCounters: the package keeps no mutable state of its own
// between compilations (counters, ID maps, their locks): a compile's
// numbering belongs to the compilation or to its workers.
func TestNoSharedCounters(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
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

// TestConvertIDByValue: a worker numbers convert_to specs by what they
// say, not by where they are in memory.
func TestConvertIDByValue(t *testing.T) {
	spec := func(to string) []format.Value {
		h := format.NewHash(1)
		h.Set("to", to)
		return []format.Value{"Array", h}
	}
	w := newWorker()
	a, b, c := w.convertID(spec("x")), w.convertID(spec("x")), w.convertID(spec("y"))
	if a == 0 || a != b || a == c {
		t.Errorf("convertID: %d and %d for equal specs, %d for another", a, b, c)
	}
	if w.convertID(nil) != 0 {
		t.Error("convertID(nil) is not 0")
	}
	deep, first := w.mergeID(format.Merge{Strategy: "deep"}), w.mergeID(format.Merge{})
	if again := w.mergeID(format.Merge{Strategy: "deep"}); deep == 0 || again != deep || first == deep {
		t.Errorf("mergeID: %d and %d for the same merge, %d for another", deep, again, first)
	}
}
