package bundlediff

import (
	"bytes"
	"strings"
	"testing"
)

// TestTextEscapesBundleText: key names, node names and revisions come
// from the bundles; none reaches the terminal with a control character of
// its own, with colours or without (only the styles' codes are written).
func TestTextEscapesBundleText(t *testing.T) {
	r := &Report{
		Old: "old", New: "new", OldRevision: "r\x1b]0;title\x07",
		Entries: []Entry{{
			Change: Change{Key: "k\x1b[2Jx", Kind: Changed, Old: &Side{Value: "a"}, New: &Side{Value: "b"}},
			Nodes:  []string{"n\x1b[31mode"},
		}},
		Nodes: []string{"n\x1b[31mode"},
	}
	for _, color := range []bool{false, true} {
		var b bytes.Buffer
		if err := WriteText(&b, r, Options{Color: color}); err != nil {
			t.Fatal(err)
		}
		out := b.String()
		for _, style := range []string{styleBold, styleRed, styleGreen, styleDim, styleReset} {
			out = strings.ReplaceAll(out, style, "")
		}
		if strings.ContainsAny(out, "\x1b\x07") {
			t.Errorf("color %v: a control character of the bundles' text reached the output:\n%q", color, b.String())
		}
		for _, want := range []string{`k\x1b[2Jx`, `r\x1b]0;title\a`, `n\x1b\[31mode`} {
			if !strings.Contains(out, want) {
				t.Errorf("color %v: %s not shown escaped:\n%s", color, want, out)
			}
		}
	}
}
