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
// work across nodes: the adapter to package compiler/internal/share, and
// templates (see the package's documentation).
func sharingFile(name string) bool {
	return name == "share.go" || name == "template.go"
}

// TestSharingSeam pins where the semantic stages reach the sharing, by
// file, outside the sharing files: every use of a node's or a worker's
// share (n.share.X, w.share.X), of package share (share.X), and of a
// function or method the sharing files declare (recv.X; nodeShare's are
// n.share.X). They are the
// hooks doc.go lists: a new one is added there too, or the stage does
// without.
func TestSharingSeam(t *testing.T) {
	want := map[string][]string{
		"compiler.go":    {"compilation.compileRuns", "share.ResortAt", "w.share.KeepKeys", "w.share.Off", "w.share.ReuseKeys", "w.share.StartRun", "worker.sortRun"},
		"hierarchy.go":   {"n.share.expandLevel"},
		"interpolate.go": {"n.share.Record", "share.Dep", "share.ErrText", "w.share.SeeVar"},
		"lookup.go":      {"n.share.Nested", "n.share.Quiet", "n.share.Warned", "n.share.start"},
		"node.go":        {"n.share.Keys", "n.share.own", "share.KeyList", "w.share.Off", "w.share.Stats", "w.share.Union"},
		"options.go":     {"n.share.options"},
		"worker.go":      {"share.Worker"},
	}
	entries, err := os.ReadDir(".")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	files := map[string]*ast.File{}
	declared := map[string]string{} // sharing files' functions: name → receiver type
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
			if fd, ok := d.(*ast.FuncDecl); ok {
				recv := ""
				if fd.Recv != nil {
					recv = receiverName(fd.Recv.List[0].Type)
				}
				if recv != "nodeShare" { // reached as n.share.X
					declared[fd.Name.Name] = recv
				}
			}
		}
	}
	if len(declared) == 0 || files["lookup.go"] == nil {
		t.Fatal("the package's files were not found")
	}
	got := map[string][]string{}
	for name, f := range files {
		if sharingFile(name) {
			continue
		}
		add := func(use string) {
			if !slices.Contains(got[name], use) {
				got[name] = append(got[name], use)
			}
		}
		ast.Inspect(f, func(x ast.Node) bool {
			switch x := x.(type) {
			case *ast.SelectorExpr:
				switch inner := x.X.(type) {
				case *ast.SelectorExpr:
					if inner.Sel.Name == "share" {
						owner := "n"
						if last, ok := inner.X.(*ast.SelectorExpr); ok && last.Sel.Name == "w" {
							owner = "w"
						} else if id, ok := inner.X.(*ast.Ident); ok && id.Name == "w" {
							owner = "w"
						}
						add(owner + ".share." + x.Sel.Name)
						return false
					}
				case *ast.Ident:
					if inner.Name == "share" {
						add("share." + x.Sel.Name)
						return false
					}
				}
				if recv, ok := declared[x.Sel.Name]; ok && recv != "" {
					add(recv + "." + x.Sel.Name)
				}
			case *ast.CallExpr:
				if id, ok := x.Fun.(*ast.Ident); ok {
					if recv, ok := declared[id.Name]; ok && recv == "" {
						add(id.Name)
					}
				}
			}
			return true
		})
	}
	for name := range got {
		slices.Sort(got[name])
	}
	for name, uses := range got {
		if !slices.Equal(uses, want[name]) {
			t.Errorf("%s reaches the sharing through %q, want %q (doc.go lists the hooks)", name, uses, want[name])
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
