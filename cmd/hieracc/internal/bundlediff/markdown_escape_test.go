package bundlediff

import (
	"bytes"
	"strings"
	"testing"

	"github.com/hieracc/hieracc/format"
)

// TestMarkdownEscapesBundleText: key names, paths, node names, revisions
// and source files come from the bundles; in markdown, as in text, none
// reaches the comment with a control character of its own (shown escaped,
// as the text report shows it), and none with a markdown character (|, *,
// backticks, <) changes the comment's structure: each table row keeps its
// six cells, and the node lists' summaries hold no markup of the bundles.
func TestMarkdownEscapesBundleText(t *testing.T) {
	key := "k|*`<b>\x1b[2Jx"
	path := "/a|b*`<i>\x07"
	node := "n\x1b[31m|*<node>"
	r := &Report{
		Old: "old", New: "new", OldRevision: "r\x1b]0;title\x07",
		Entries: []Entry{{
			Change: Change{Key: key, Path: path, Kind: Changed,
				Old: &Side{Value: "a", Sources: []Source{{Pos: format.Pos{File: "data/x\x1b[1m|*`.yaml", Line: 3, Column: 1}, Level: "L\x1b"}}},
				New: &Side{Value: "b"}},
			Nodes: []string{node, "web01"},
		}},
		Nodes: []string{node, "web01"},
	}
	r.Summary = Summary{Nodes: 2, Changed: 2, KeysChanged: 1}
	for _, full := range []bool{false, true} {
		var b bytes.Buffer
		if err := WriteMarkdown(&b, r, Options{FullNodes: full}); err != nil {
			t.Fatal(err)
		}
		out := b.String()
		if strings.ContainsFunc(out, func(r rune) bool { return r < 0x20 && r != '\n' }) {
			t.Errorf("full %v: a control character of the bundles' text reached the output:\n%q", full, out)
		}
		for _, want := range []string{`k\|*`, `\x1b[2Jx`, `n\x1b`, `r\x1b]0;title\a`, `\x1b[1m`} {
			if !strings.Contains(out, want) {
				t.Errorf("full %v: %s not shown escaped:\n%s", full, want, out)
			}
		}
		for line := range strings.Lines(out) {
			switch {
			case strings.HasPrefix(line, "| ") && !strings.HasPrefix(line, "| nodes |") && !strings.HasPrefix(line, "| --- |"):
				if cells := mdCells(line); cells != 6 {
					t.Errorf("full %v: a row of %d cells, want 6:\n%s", full, cells, line)
				}
			case strings.HasPrefix(line, "<details><summary>"):
				inner := strings.TrimSuffix(strings.TrimPrefix(strings.TrimSpace(line), "<details><summary>"), "</summary>")
				if strings.ContainsAny(unescaped(inner), "<>`*|") {
					t.Errorf("full %v: markup of the bundles' text in a summary:\n%s", full, line)
				}
			}
		}
	}
}

// mdCells counts the cells of a markdown table row: the cells between
// its pipes that are not escaped.
func mdCells(row string) int {
	pipes := 0
	for i := 0; i < len(row); i++ {
		switch row[i] {
		case '\\':
			i++
		case '|':
			pipes++
		}
	}
	return pipes - 1
}

// unescaped is s without its backslash escapes (a backslash and the
// character after it).
func unescaped(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' {
			i++
			continue
		}
		b.WriteByte(s[i])
	}
	return b.String()
}
