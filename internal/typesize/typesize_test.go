package typesize

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// maxMethods is the most methods one type may have (issue #30).
const maxMethods = 40

// skipDirs are directories of the module the check leaves alone: the YAML
// reader vendored from libyaml keeps its upstream's shape.
var skipDirs = []string{
	"compiler/internal/dataload/internal/libyaml",
}

// oversized are the types known to be over the bound, each with what is
// to be done about it; the test fails when one of them is back under it,
// so that the list only shrinks.
var oversized = map[string]string{}

// TestMethodsPerType counts the methods declared on each type of every
// package of the module (test files aside) and fails naming those with more
// than maxMethods.
func TestMethodsPerType(t *testing.T) {
	root := moduleRoot(t)
	counts, err := countMethods(root)
	if err != nil {
		t.Fatal(err)
	}
	if len(counts) == 0 {
		t.Fatalf("no methods found under %s", root)
	}
	var names []string
	for name := range counts {
		names = append(names, name)
	}
	slices.Sort(names)
	for _, name := range names {
		n := counts[name]
		_, known := oversized[name]
		switch {
		case n > maxMethods && !known:
			t.Errorf("%s has %d methods, more than %d: split it along what it does", name, n, maxMethods)
		case n <= maxMethods && known:
			t.Errorf("%s has %d methods, no more than %d: remove it from oversized", name, n, maxMethods)
		}
	}
	for name := range oversized {
		if _, ok := counts[name]; !ok {
			t.Errorf("oversized names %s, which has no methods: remove it", name)
		}
	}
}

// TestCountMethods pins countMethods on a small tree: methods by package
// directory and receiver type, pointer and generic receivers counted with
// their type, test files and skipped directories left out.
func TestCountMethods(t *testing.T) {
	root := t.TempDir()
	write := func(name, text string) {
		t.Helper()
		p := filepath.Join(root, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("go.mod", "module example.com/m\n")
	write("a/a.go", "package a\ntype T struct{}\nfunc (T) A() {}\nfunc (t *T) B() {}\nfunc F() {}\n")
	write("a/b.go", "package a\ntype G[K any] struct{}\nfunc (g *G[K]) A() {}\nfunc (G[K]) B() {}\nfunc (*T) C() {}\n")
	write("a/a_test.go", "package a\nfunc (T) D() {}\n")
	write("b/b.go", "package b\ntype T int\nfunc (T) A() {}\n")
	write("compiler/internal/dataload/internal/libyaml/y.go", "package libyaml\ntype P struct{}\nfunc (P) A() {}\n")
	write("testdata/x.go", "package x\ntype P struct{}\nfunc (P) A() {}\n")
	got, err := countMethods(root)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]int{"a.T": 3, "a.G": 2, "b.T": 1}
	if len(got) != len(want) {
		t.Errorf("countMethods = %v, want %v", got, want)
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("countMethods[%s] = %d, want %d (all: %v)", k, got[k], v, got)
		}
	}
}

// moduleRoot is the directory of the module's go.mod, above this one.
func moduleRoot(t *testing.T) string {
	dir, err := filepath.Abs(".")
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatal("no go.mod above the test's directory")
		}
		dir = parent
	}
}

// countMethods parses every non-test .go file under root and returns the
// number of methods of each type, by "package directory.type" (the
// directory relative to root, with slashes).
func countMethods(root string) (map[string]int, error) {
	counts := map[string]int{}
	fset := token.NewFileSet()
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(root, p)
		if err != nil {
			return err
		}
		rel = filepath.ToSlash(rel)
		if d.IsDir() {
			base := d.Name()
			if rel != "." && (strings.HasPrefix(base, ".") || strings.HasPrefix(base, "_") || base == "testdata" || slices.Contains(skipDirs, rel)) {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, p, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		for _, decl := range f.Decls {
			fd, ok := decl.(*ast.FuncDecl)
			if !ok || fd.Recv == nil || len(fd.Recv.List) == 0 {
				continue
			}
			counts[path.Dir(rel)+"."+receiverType(fd.Recv.List[0].Type)]++
		}
		return nil
	})
	return counts, err
}

// receiverType is the name of a receiver's type: T for T, *T, T[K] and
// *T[K].
func receiverType(e ast.Expr) string {
	for {
		switch x := e.(type) {
		case *ast.StarExpr:
			e = x.X
		case *ast.ParenExpr:
			e = x.X
		case *ast.IndexExpr:
			e = x.X
		case *ast.IndexListExpr:
			e = x.X
		case *ast.Ident:
			return x.Name
		default:
			return "?"
		}
	}
}
