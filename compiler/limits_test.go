package compiler

import (
	"fmt"
	"strings"
	"testing"

	"github.com/hieracc/hieracc/format/encode"
)

// TestLimitsMakeKeyErrors: data of a few lines that would take the process
// down is refused key by key, each error placed at the key's line; the
// keys below the limits and the bundle itself are unharmed.
func TestLimitsMakeKeyErrors(t *testing.T) {
	var data strings.Builder
	// s<i> doubles s<i-1>: s24 would be 2^24 KiB.
	data.WriteString("s0: " + strings.Repeat("x", 1024) + "\n")
	for i := 1; i <= 30; i++ {
		fmt.Fprintf(&data, "s%d: \"%%{lookup('s%d')}%%{lookup('s%d')}\"\n", i, i-1, i-1)
	}
	// a<i> holds a<i-1> twice: shared in memory, but a bundle expands it.
	data.WriteString("a0: [x, y]\n")
	for i := 1; i <= 30; i++ {
		fmt.Fprintf(&data, "a%d: [\"%%{alias('a%d')}\", \"%%{alias('a%d')}\"]\n", i, i-1, i-1)
	}
	// a chain of lookups deeper than any Puppet survives.
	for i := 0; i < 700; i++ {
		fmt.Fprintf(&data, "c%03d: \"%%{lookup('c%03d')}\"\n", i, i+1)
	}
	data.WriteString("c700: end\n")

	b := compileOne(t, map[string]string{
		"env/hiera.yaml":       "version: 5\n",
		"env/data/common.yaml": data.String(),
	}, "role: web\n")
	if _, err := encode.Encode(b); err != nil {
		t.Fatalf("the bundle must encode, whatever its keys hold: %v", err)
	}
	for _, tc := range []struct {
		key  string
		line int
		want string // "" = a value
	}{
		{"s10", 11, ""},
		{"s14", 15, ""},
		{"s15", 16, "interpolation gives a string of more than 16777216 bytes"},
		{"s30", 16, "interpolation gives a string of more than 16777216 bytes"}, // placed where it arose
		{"a20", 52, ""},
		{"a23", 55, "value of more than 16777216 nodes"},
		{"a30", 55, "value of more than 16777216 nodes"},
		{"c000", 63 + 199, "lookup of key 'c200' nested 200 deep"},
		{"c550", 613, ""},
	} {
		k := keyOf(b, tc.key)
		switch {
		case k == nil:
			t.Errorf("%s: missing", tc.key)
		case tc.want == "" && k.Err != nil:
			t.Errorf("%s: unexpected error %v", tc.key, k.Err)
		case tc.want == "":
		case k.Err == nil || !strings.Contains(k.Err.Message, tc.want) || !strings.Contains(k.Err.Message, "over hieracc's limit"):
			t.Errorf("%s: error %v, want one containing %q", tc.key, k.Err, tc.want)
		case k.Err.File != "env/data/common.yaml" || k.Err.Line != tc.line || k.Err.Level != "Common":
			t.Errorf("%s: error not placed at its key: %+v", tc.key, k.Err)
		}
	}
}
