package compiler

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"slices"
	"strings"
	"testing"
)

// sharingFile reports whether a file of the package is part of sharing
// work across nodes (see the package's documentation).
func sharingFile(name string) bool {
	return strings.HasPrefix(name, "reuse") || name == "template.go" || name == "order.go"
}

// TestSharingSeam pins where the semantic stages reach the sharing: every
// use of nodeRun.share's members and of the worker's methods that the
// sharing files declare, by file, outside those files. They are the hooks
// doc.go lists: a new one is added there too, or the stage does without.
func TestSharingSeam(t *testing.T) {
	want := map[string][]string{
		"compiler.go":    {"worker.sortRun", "worker.startRun"},
		"hierarchy.go":   {"share.expandLevelShared"},
		"interpolate.go": {"share.record", "worker.parseExpr", "worker.seeVar"},
		"lookup.go":      {"share.keyWarns", "share.nested", "share.quiet", "worker.parseExpr", "worker.testedList"},
		"emit.go":        {"worker.testedList"},
		"node.go":        {"share.compileKeysShared", "share.own", "worker.union"},
		"options.go":     {"worker.options", "worker.optionsSig"},
	}
	entries, err := os.ReadDir(".")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	files := map[string]*ast.File{}
	workerMethods := map[string]bool{}
	for _, e := range entries {
		name := e.Name()
		if !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		files[name] = f
		if !sharingFile(name) {
			continue
		}
		for _, d := range f.Decls {
			if fd, ok := d.(*ast.FuncDecl); ok && fd.Recv != nil && receiverName(fd.Recv.List[0].Type) == "worker" {
				workerMethods[fd.Name.Name] = true
			}
		}
	}
	if len(workerMethods) == 0 || files["lookup.go"] == nil {
		t.Fatal("the package's files were not found")
	}
	got := map[string][]string{}
	for name, f := range files {
		if sharingFile(name) {
			continue
		}
		ast.Inspect(f, func(x ast.Node) bool {
			se, ok := x.(*ast.SelectorExpr)
			if !ok {
				return true
			}
			var use string
			switch inner := se.X.(type) {
			case *ast.SelectorExpr:
				switch {
				case inner.Sel.Name == "share":
					use = "share." + se.Sel.Name
				case inner.Sel.Name == "w" && workerMethods[se.Sel.Name]:
					use = "worker." + se.Sel.Name
				}
			case *ast.Ident:
				if inner.Name == "w" && workerMethods[se.Sel.Name] {
					use = "worker." + se.Sel.Name
				}
			}
			if use != "" && !slices.Contains(got[name], use) {
				got[name] = append(got[name], use)
			}
			return true
		})
	}
	for name := range got {
		slices.Sort(got[name])
	}
	for name, uses := range got {
		if !slices.Equal(uses, want[name]) {
			t.Errorf("%s reaches the sharing through %v, want %v (doc.go lists the hooks)", name, uses, want[name])
		}
	}
	for name, uses := range want {
		if got[name] == nil {
			t.Errorf("%s reaches the sharing through nothing, want %v", name, uses)
		}
	}
}

// receiverName is the name of a method receiver's type.
func receiverName(e ast.Expr) string {
	if s, ok := e.(*ast.StarExpr); ok {
		e = s.X
	}
	if id, ok := e.(*ast.Ident); ok {
		return id.Name
	}
	return ""
}
