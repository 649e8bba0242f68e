package dataload

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/hieracc/hieracc/compiler/diagnostics"
)

// TestDuplicateKeys pins the warning for a key written twice in one
// mapping (Psych keeps the last value, silently): at the second one,
// through the fast path and libyaml alike, but not for keys a << merge
// brings, which a key written in the mapping overrides on purpose.
func TestDuplicateKeys(t *testing.T) {
	for _, tc := range []struct {
		name, src string
		want      []diagnostics.Diagnostic
	}{
		{"top level", "a: 1\nb: 2\na: 3\n", []diagnostics.Diagnostic{{Severity: diagnostics.Warning, Pos: Pos{3, 1}.In("f.yaml"),
			Message: `duplicate key "a" (first at line 1, column 1): Puppet keeps this value and drops the first, without a word`}}},
		{"nested, libyaml", "x:\n  k: |\n    one\n  k: two\n", []diagnostics.Diagnostic{{Severity: diagnostics.Warning, Pos: Pos{4, 3}.In("f.yaml"),
			Message: `duplicate key "k" (first at line 2, column 3): Puppet keeps this value and drops the first, without a word`}}},
		{"flow", "x: {a: 1, a: 2}\n", []diagnostics.Diagnostic{{Severity: diagnostics.Warning, Pos: Pos{1, 11}.In("f.yaml"),
			Message: `duplicate key "a" (first at line 1, column 5): Puppet keeps this value and drops the first, without a word`}}},
		{"integer and string differ", "1: a\n'1': b\n", nil},
		{"merge then override", "base: &b {a: 1}\nx:\n  <<: *b\n  a: 2\n", nil},
		{"override then merge", "base: &b {a: 1}\nx:\n  a: 2\n  <<: *b\n", nil},
		{"merge, override, again", "base: &b {a: 1}\nx:\n  <<: *b\n  a: 2\n  a: 3\n", []diagnostics.Diagnostic{{Severity: diagnostics.Warning, Pos: Pos{5, 3}.In("f.yaml"),
			Message: `duplicate key "a" (first at line 4, column 3): Puppet keeps this value and drops the first, without a word`}}},
		{"many keys (indexed)", "a: 1\nb: 1\nc: 1\nd: 1\ne: 1\nf: 1\ng: 1\nh: 1\ni: 1\nj: 1\nc: 2\n", []diagnostics.Diagnostic{{Severity: diagnostics.Warning, Pos: Pos{11, 1}.In("f.yaml"),
			Message: `duplicate key "c" (first at line 3, column 1): Puppet keeps this value and drops the first, without a word`}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			doc, probs := YAML("f.yaml", []byte(tc.src))
			if doc == nil {
				t.Fatalf("not loaded: %v", probs)
			}
			if d := cmp.Diff(tc.want, probs); d != "" {
				t.Errorf("problems (-want +got):\n%s", d)
			}
		})
	}
}
