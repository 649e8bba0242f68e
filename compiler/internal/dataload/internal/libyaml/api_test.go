package libyaml

import (
	"testing"
	"unsafe"
)

// TestScalarTextsShareTheInput: a scalar the input holds as it is (plain,
// or quoted without escapes) is a part of the input's text; the others
// (escapes, folded lines, block scalars, a scalar after a character of
// several bytes, whose marks count characters) are copies. Either way the
// text is the scalar's.
func TestScalarTextsShareTheInput(t *testing.T) {
	const src = "plain: text\n'single': \"double\"\nesc: \"a\\tb\"\nq: 'it''s'\n" +
		"multi: one\n  two\nblock: |\n  line\nempty:\nlist: [x, 'y']\nwide: é\nafter: here\n"
	want := []struct {
		text   string
		shared bool
	}{
		{"plain", true}, {"text", true}, {"single", true}, {"double", true},
		{"esc", true}, {"a\tb", false}, {"q", true}, {"it's", false},
		{"multi", true}, {"one two", false}, {"block", true}, {"line\n", false},
		{"empty", true}, {"", true}, {"list", true}, {"x", true}, {"y", true},
		{"wide", true}, {"é", true}, {"after", false}, {"here", false},
	}
	p := NewParser([]byte(src))
	for round := range 2 {
		var got []string
		var shared []bool
		for {
			var ev Event
			if err := p.Next(&ev); err != nil {
				t.Fatal(err)
			}
			if ev.Type == StreamEnd {
				break
			}
			if ev.Type != Scalar {
				continue
			}
			got = append(got, ev.Value)
			start := uintptr(unsafe.Pointer(unsafe.StringData(p.src)))
			at := uintptr(unsafe.Pointer(unsafe.StringData(ev.Value)))
			shared = append(shared, ev.Value == "" || start <= at && at < start+uintptr(len(p.src)))
		}
		if len(got) != len(want) {
			t.Fatalf("round %d: scalars %q, want %d", round, got, len(want))
		}
		for i, w := range want {
			if got[i] != w.text || shared[i] != w.shared {
				t.Errorf("round %d: scalar %d: %q, a part of the input: %v; want %q, %v", round, i, got[i], shared[i], w.text, w.shared)
			}
		}
		p.Reset([]byte(src)) // the same, read again in the parser's memory
	}
}
