package dataload

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"gopkg.in/yaml.v3"
)

// TestParserReuse: a builder's parser reads each file with the memory of
// the last one it read (libyaml's Parser.Reset); every input gives the
// same tree, or the same error at the same place, as a new parser does,
// whatever the builder read before (the golden inputs one after another,
// forwards and backwards, and inputs whose lines are longer than the
// parser's buffers, or that hold a bad byte far in).
func TestParserReuse(t *testing.T) {
	files, err := filepath.Glob("testdata/yaml/*.yaml")
	if err != nil || len(files) == 0 {
		t.Fatal("no golden inputs", err)
	}
	var srcs [][]byte
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		srcs = append(srcs, b)
	}
	long := "k: " + strings.Repeat("x", 5000) + "\nl: [" + strings.Repeat("ab, ", 800) + "]\n"
	srcs = append(srcs, []byte(long), []byte(long+"m: \xff\n"), []byte(strings.Repeat("a: b\n", 400)+"c: \"\xc3\"\n"), nil, []byte("a: [1\n"))
	reused := &builder{}
	check := func(src []byte) {
		t.Helper()
		fresh := &builder{}
		want, wantErr := fresh.parse(src)
		got, gotErr := reused.parse(src)
		if diff := cmp.Diff(describe(want, wantErr), describe(got, gotErr)); diff != "" {
			t.Errorf("%.40q: a reused parser reads (-new +reused):\n%s", src, diff)
		}
		reused.reset()
	}
	for _, src := range srcs {
		check(src)
	}
	for _, src := range slices.Backward(srcs) {
		check(src)
	}
}

// describe is a tree or an error as text, for comparing.
func describe(n *yaml.Node, err *loadError) string {
	if err != nil {
		return fmt.Sprintf("error %+v", *err)
	}
	var b strings.Builder
	var walk func(n *yaml.Node, depth int)
	walk = func(n *yaml.Node, depth int) {
		if n == nil {
			return
		}
		fmt.Fprintf(&b, "%*s%d %q %q %q %d:%d\n", 2*depth, "", n.Kind, n.Tag, n.Value, n.Anchor, n.Line, n.Column)
		if n.Alias != nil {
			fmt.Fprintf(&b, "%*s-> %d:%d\n", 2*depth+2, "", n.Alias.Line, n.Alias.Column)
		}
		for _, c := range n.Content {
			walk(c, depth+1)
		}
	}
	walk(n, 0)
	return b.String()
}
