package dataload

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestInvalidTexts pins the strings of a value that is not data in the
// order hiera-eyaml walks it (a hash's key before its value), and that a
// value made huge by aliases is walked within a bound.
func TestInvalidTexts(t *testing.T) {
	doc, probs := YAML("t.yaml", []byte("ok: fine\nk:\n  - :sym\n  - a\n  - {b: \"%{x}\", c: [d], 1: e}\n"))
	if doc == nil {
		t.Fatal(probs)
	}
	want := []Text{{S: "a"}, {S: "b", Key: true}, {S: "%{x}"}, {S: "c", Key: true}, {S: "d"}, {S: "e"}}
	if d := cmp.Diff(want, doc.InvalidTexts["k"]); d != "" {
		t.Errorf("InvalidTexts[k] (-want +got):\n%s", d)
	}
	if _, ok := doc.InvalidTexts["ok"]; ok {
		t.Errorf("InvalidTexts holds a valid key")
	}

	var b strings.Builder
	b.WriteString("a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n")
	for i := 1; i < 6; i++ {
		b.WriteString("a" + string(rune('0'+i)) + ": &a" + string(rune('0'+i)) + " [")
		for j := 0; j < 10; j++ {
			if j > 0 {
				b.WriteString(", ")
			}
			b.WriteString("*a" + string(rune('0'+i-1)))
		}
		b.WriteString("]\n")
	}
	b.WriteString("k:\n  - :sym\n  - *a5\n")
	doc, probs = YAML("laughs.yaml", []byte(b.String()))
	if doc == nil {
		t.Fatal(probs)
	}
	if n := len(doc.InvalidTexts["k"]); n == 0 || n > maxTextsWalk {
		t.Errorf("len(InvalidTexts[k]) = %d, want 1 to %d", n, maxTextsWalk)
	}
}
