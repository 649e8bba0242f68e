package dataload

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"
)

// TestSimpleParser holds parseSimple to libyaml: a document it reads gets
// the very tree libyaml's events build (positions and styles included),
// and each input here is read by it or left to libyaml as the table says,
// so that neither a wrong tree nor a fast path that never runs passes.
func TestSimpleParser(t *testing.T) {
	for _, tc := range simpleCases {
		t.Run(fmt.Sprintf("%.40q", tc.src), func(t *testing.T) {
			b := &builder{}
			got, ok := b.parseSimple([]byte(tc.src))
			if ok != tc.simple {
				t.Fatalf("parseSimple read it: %v, want %v", ok, tc.simple)
			}
			if !ok {
				if b.nb != 0 || len(b.kids) != 0 {
					t.Fatalf("the builder holds %d blocks, %d kids of the attempt", b.nb, len(b.kids))
				}
				return
			}
			want, err := new(builder).parseEvents([]byte(tc.src))
			if err != nil {
				t.Fatalf("parseSimple read what libyaml refuses: %+v", *err)
			}
			if d, w := describeTree(got), describeTree(want); d != w {
				t.Fatalf("parseSimple's tree:\n%s\nlibyaml's:\n%s", d, w)
			}
		})
	}
}

// simpleCases are TestSimpleParser's inputs, and FuzzSimpleParser's seeds.
var simpleCases = []struct {
	src    string
	simple bool // parseSimple reads it
}{
	{"a: 1\n", true},
	{"a: 1", true}, // no final newline
	{"---\na: 1\n", true},
	{"--- # data\n# more\n\na: b\n", true},
	{"# head\n\n---\na: b\n", true},
	{"a::b::c: x\n'q': y\n\"r s\": z\n'^t':\n  u: 1\n", true},
	{"'a' : b\n", false},
	{"'a':b\n", false},
	{"\"a\\\"b\": c\n", true},
	{"ntp::servers:\n  - a.example.net\n  - 'b.example.net'\n  - \"c\"\n", true},
	{"a:\n- x\n- y\nb: z\n", true}, // an indentless sequence
	{"a:\n  b:\n    c: 1\n    d: [x]\n", true},
	{"a:\n  b:\n    c: 1\n  e: 2\nf: 3\n", true},
	{"a:   # comment\n  # own line\n  b: c # trailing\n", true},
	{"a: \"x: y # z\"\nb: 'it is'\n", true},
	{"a: -1\nb: -x\nc: ::1\nd: ?q\ne: a#b\nf: 'x'   # c\n", true},
	{"a: https://example.net:8080/x?y=1&z=[2]{3},4\n", true},
	{"a: \"%{facts.role}\"\nb: x-%{trusted.certname}\n", true},
	{"a: b  \nc: d   \n", true},
	{"a:b: c\n", true}, // the key is "a:b"
	{"a:: b\n", true},  // the key is "a:"
	{"k: 1\n  - x\n", false},
	{"a: []\nb: {}\nc: [ a , b ]\nd: [a,b]\ne: { x: 1 }\nf: [-1, -x, .inf, ~, 'q', \"r s\"]\n", true},
	{"a:\n  - [x, y]\n  - {k: v, 'l': \"w\"} # c\n", true},
	{"a: [x, y=1, a/b, a.b, (c), a\\b, a;b, <x>, a@b, $x, ^y, +z]\n", true},
	{"a: \"x\\ty\"\n", true},
	{"a: \"\\0\\a\\b\\t\\n\\v\\f\\r\\e\\ \\\"\\\\\\/\"\n\"k\\n\": [\"\\\"\", \"\\\\\"]\n", true},
	// Left to libyaml: what parseSimple does not read.
	{"a: [a, ]\n", false},
	{"a: [a,]\n", false},
	{"a: [[a]]\n", false},
	{"a: {b: [c]}\n", false},
	{"a: [a b]\n", false},
	{"a: [a:b]\n", false},
	{"a: [a: b]\n", false},
	{"a: ['b''c']\n", false},
	{"a: {b:1}\n", false},
	{"a: {b: c, d}\n", false},
	{"a: {b}\n", false},
	{"a: [b] c\n", false},
	{"a: [b]#c\n", false},
	{"a: [b,\n  c]\n", false},
	{"a: [-]\n", false},
	{"a: [@x]\n", false},
	{"a: [`x]\n", false},
	{"a: [>x]\n", false},
	{"a: {>: 0}\n", false},
	{"a: [x>]\n", true},
	{"a: [\"x\\\"y\"]\n", true},
	{"a: [%{x}]\n", false},
	{"a: [x#y]\n", false},
	{"a: [a, !b]\n", false},
	{"a: [*x]\n", false},
	{"a: [&x y]\n", false},
	{"a: [?x]\n", false},
	{"a: [b]]\n", false},
	{"a: {b: c}}\n", false},
	{"a: [b}\n", false},
	{"", false},
	{"# only a comment\n", false},
	{"---\n", false},
	{"--- a: 1\n", false},
	{"a: 1\n---\nb: 2\n", false},
	{"a: 1\n...\n", false},
	{"  a: 1\n", false},
	{"- a\n- b\n", false},
	{"a:\n", false},
	{"a:\nb: 1\n", false},
	{"a: 1\nb:\n", false},
	{"a: [1, 2]\n", true},
	{"a: {b: 1}\n", true},
	{"a: &x 1\nb: *x\n", false},
	{"a: !!str 1\n", false},
	{"a: |\n  text\n", false},
	{"a: >\n  text\n", false},
	{"a: \"x\\'y\"\n", false},
	{"a: \"\\x41\"\n", false},
	{"a: \"\\u0041\"\n", false},
	{"a: \"\\N\"\n", false},
	{"a: \"\\q\"\n", false},
	{"a: \"x\\\"\n", false},
	{"a: \"x\\\n  y\"\n", false},
	{"a: 'it''s'\n", false},
	{"a: \"open\n  more\"\n", false},
	{"a: plain\n  continued\n", false},
	{"a: b: c\n", false},
	{"a: b:\n", false},
	{"a:\tb\n", false},
	{"a: b\r\n", false},
	{"\ufeffa: b\n", false},
	{"a: caf\u00e9\n", false},
	{"a key: b\n", false},
	{"\"a\": b\n", true},
	{"? a\n: b\n", false},
	{"a: %x\n", false},
	{"a: @x\n", false},
	{"a: `x\n", false},
	{"a: -\n", false},
	{"a:\n  - - x\n", false},
	{"a:\n  - b: c\n", false},
	{"a:\n  -\n    b\n", false},
	{"a:\n    b: 1\n  c: 2\n", false},
	{"a:\n  - x\n  b: 1\n", false},
	{"a:\n  - x\n - y\n", false},
	{"a: 1\n b: 2\n", false},
	{"a: \"x\"y\n", false},
	{"a: \"x\"#y\n", false},
	{"<<: {a: 1}\n", true},
	{"a: 1\n#c\n  # indented comment\nb: 2\n", true},
	{"a:\n  b: 1\n\n\n  c: 2\n", true},
	{strings.Repeat("k", 1001) + ": v\n", false},
	{strings.Repeat("k", 999) + ": v\n", true},
	{"a: {" + strings.Repeat("k", 1001) + ": v}\n", false},
	{"a: {" + strings.Repeat("k", 999) + ": v}\n", true},
	{"a: [" + strings.Repeat("k", 1100) + "]\n", true},
	{deep(simpleMaxDepth - 1), true},
	{deep(simpleMaxDepth + 1), false},
}

// deep is a document of mappings nested depth deep.
func deep(depth int) string {
	var b strings.Builder
	for i := range depth {
		fmt.Fprintf(&b, "%sk%d:\n", strings.Repeat(" ", i), i)
	}
	fmt.Fprintf(&b, "%sv: 1\n", strings.Repeat(" ", depth))
	return b.String()
}

// TestSimpleParserFiles compares parseSimple with libyaml on every YAML
// file of the conformance corpora and of this package's tests, and
// checks that it reads most data files (a fast path that gives up on
// them all would pass the comparison).
func TestSimpleParserFiles(t *testing.T) {
	var files []string
	for _, root := range []string{"testdata", "../../../testdata", "../../../../shared/conformance"} {
		filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
			if err == nil && d.Type().IsRegular() && strings.HasSuffix(path, ".yaml") { // not a link: testdata holds links to nowhere
				files = append(files, path)
			}
			return nil
		})
	}
	if len(files) < 100 {
		t.Fatalf("only %d YAML files found", len(files))
	}
	read := 0
	for _, f := range files {
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		got, ok := new(builder).parseSimple(src)
		if !ok {
			continue
		}
		read++
		want, lerr := new(builder).parseEvents(src)
		if lerr != nil {
			t.Errorf("%s: parseSimple read what libyaml refuses: %+v", f, *lerr)
			continue
		}
		if d, w := describeTree(got), describeTree(want); d != w {
			t.Errorf("%s: parseSimple's tree:\n%s\nlibyaml's:\n%s", f, d, w)
		}
	}
	t.Logf("parseSimple read %d of %d files", read, len(files))
	if read < len(files)/3 {
		t.Errorf("parseSimple read only %d of %d files", read, len(files))
	}
}

// FuzzSimpleParser: whatever parseSimple reads, libyaml reads alike.
//
//	go test ./compiler/internal/dataload/ -run '^$' -fuzz FuzzSimpleParser -fuzztime 2m
func FuzzSimpleParser(f *testing.F) {
	addSeeds(f, "testdata/yaml/*.yaml")
	for _, tc := range simpleCases {
		f.Add([]byte(tc.src))
	}
	f.Fuzz(func(t *testing.T, src []byte) {
		got, ok := new(builder).parseSimple(src)
		if !ok {
			return
		}
		want, err := new(builder).parseEvents(src)
		if err != nil {
			t.Fatalf("parseSimple read what libyaml refuses: %+v", *err)
		}
		if d, w := describeTree(got), describeTree(want); d != w {
			t.Fatalf("parseSimple's tree:\n%s\nlibyaml's:\n%s", d, w)
		}
	})
}

// describeTree writes out everything of a tree the builders set.
func describeTree(n *yaml.Node) string {
	var b strings.Builder
	var walk func(n *yaml.Node, depth int)
	walk = func(n *yaml.Node, depth int) {
		fmt.Fprintf(&b, "%*s%d %d %q %q %q %d:%d alias=%v\n", 2*depth, "", n.Kind, n.Style, n.Tag, n.Value, n.Anchor, n.Line, n.Column, n.Alias != nil)
		for _, c := range n.Content {
			walk(c, depth+1)
		}
	}
	if n != nil {
		walk(n, 0)
	}
	return b.String()
}
