package dataload

import (
	"math"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"gopkg.in/yaml.v3"

	"github.com/hieracc/hieracc/compiler/diagnostics"
	"github.com/hieracc/hieracc/format"
)

// kv is one entry of a hash as the tests compare it: in order.
type kv struct{ K, V any }

// cmpOpts compares values with their types and hash key order.
var cmpOpts = cmp.Options{
	cmp.Transformer("entries", func(h *format.Hash) []kv {
		var out []kv
		for k, v := range h.All() {
			out = append(out, kv{k, v})
		}
		return out
	}),
	cmp.Comparer(func(a, b float64) bool { return a == b || math.IsNaN(a) && math.IsNaN(b) }),
}

// h builds a hash from alternating keys and values.
func h(kvs ...any) *format.Hash {
	out := format.NewHash(len(kvs) / 2)
	for i := 0; i < len(kvs); i += 2 {
		out.Set(kvs[i], kvs[i+1])
	}
	return out
}

func mustYAML(t *testing.T, src string) *Doc {
	t.Helper()
	doc, probs := YAML("data/x.yaml", []byte(src))
	if doc == nil || len(probs) != 0 {
		t.Fatalf("YAML(%q): doc %v, problems %v", src, doc, probs)
	}
	return doc
}

// TestScalars pins how a plain scalar reads (Psych's YAML 1.1 rules), as a
// value and as a key, with the values Puppet produced in the conformance
// cases yaml-1.1-scalars and value-types-and-nulls.
func TestScalars(t *testing.T) {
	tests := []struct {
		in   string
		want any
	}{
		// Booleans: yes/no/on/off/true/false in any case, but not y/n.
		{"yes", true}, {"Yes", true}, {"YES", true}, {"yEs", true}, {"no", false}, {"NO", false},
		{"on", true}, {"On", true}, {"off", false}, {"Off", false}, {"OFF", false},
		{"true", true}, {"TRUE", true}, {"False", false},
		{"y", "y"}, {"n", "n"}, {"Y", "Y"}, {"yes!", "yes!"}, {"nothing", "nothing"},
		// Null.
		{"~", nil}, {"null", nil}, {"Null", nil}, {"NULL", nil}, {"nULL", nil}, {"nul", "nul"},
		// Integers: octal, hex, binary, separators, signs.
		{"42", int64(42)}, {"-17", int64(-17)}, {"+5", int64(5)}, {"0", int64(0)},
		{"0777", int64(511)}, {"0x1F", int64(31)}, {"0b101", int64(5)}, {"1_000", int64(1000)},
		{"1,000", int64(1000)}, {"0,777", int64(511)}, {"0777_", int64(511)},
		{"0o17", "0o17"}, {"08", "08"}, {"1__0", "1__0"}, {"0b", "0b"},
		{"9223372036854775807", int64(math.MaxInt64)},
		// Base 60: Psych weighs the parts 60**|i-2|, so 1:30 is 5400.
		{"1:30", int64(5400)}, {"12:30:00", int64(45000)}, {"-1:30", int64(-1800)},
		{"1:30.5", 5430.0}, {"1:2:3:4", "1:2:3:4"}, {"1:60", "1:60"},
		// Floats: the exponent needs a sign.
		{"3.14", 3.14}, {"1.10", 1.1}, {"2.0", 2.0}, {"1.", 1.0}, {".5", 0.5}, {"-.5", -0.5},
		{"1.5e+3", 1500.0}, {"1.5E-3", 0.0015}, {"1.e+3", 1000.0}, {"1_000.5", 1000.5},
		{"1e3", "1e3"}, {"1.5e3", "1.5e3"}, {"1e-7", "1e-7"}, {"1.2.3", "1.2.3"}, {".", "."}, {"+.", "+."},
		{".inf", math.Inf(1)}, {"+.Inf", math.Inf(1)}, {"-.INF", math.Inf(-1)}, {".nan", math.NaN()}, {".NaN", math.NaN()},
		{"inf", "inf"}, {"1.0e+400", math.Inf(1)},
		// Other strings.
		{"foo bar", "foo bar"}, {"v1", "v1"}, {"é", "é"}, {"日本", "日本"}, {"<<", "<<"}, {"1 2", "1 2"},
		{"12024-01-01", "12024-01-01"}, {"2024-01-15x", "2024-01-15x"},
		// :default and :undef are symbols Puppet accepts; lookup prints them as strings.
		{":default", "default"}, {":undef", "undef"},
	}
	for _, tt := range tests {
		doc := mustYAML(t, "v: "+tt.in+"\n")
		if diff := cmp.Diff(h("v", tt.want), doc.Hash, cmpOpts); diff != "" {
			t.Errorf("v: %s (-want +got):\n%s", tt.in, diff)
		}
		if tt.want == nil || isFloat(tt.want) {
			continue // a NaN key is dropped; a nil key is tested below
		}
		doc = mustYAML(t, tt.in+": v\n")
		if diff := cmp.Diff(h(tt.want, "v"), doc.Hash, cmpOpts); diff != "" {
			t.Errorf("key %s (-want +got):\n%s", tt.in, diff)
		}
	}
}

func isFloat(v any) bool { _, ok := v.(float64); return ok }

// TestQuotedAndTagged: quoting or an explicit tag decides, not the text.
func TestQuotedAndTagged(t *testing.T) {
	doc := mustYAML(t, `a: "yes"
b: 'Off'
c: "0777"
d: "1:30"
e: |
  123
f: >
  yes
g: !!str 123
h: !!int "12"
i: !!float 1
j: ! "12"
k: !foo yes
l: !!binary aGVsbG8=
m: !ruby/object:Hash {x: 1}
n: !!omap [{x: 1}, {y: 2}]
o: "\/"
`)
	want := h("a", "yes", "b", "Off", "c", "0777", "d", "1:30", "e", "123\n", "f", "yes\n",
		"g", "123", "h", int64(12), "i", 1.0, "j", int64(12), "k", true, "l", "hello",
		"m", h("x", int64(1)), "n", h("x", int64(1), "y", int64(2)), "o", "/")
	if diff := cmp.Diff(want, doc.Hash, cmpOpts); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

// TestValueTypesAndNulls is the data of the conformance case
// value-types-and-nulls.
func TestValueTypesAndNulls(t *testing.T) {
	doc := mustYAML(t, `null_tilde: ~
null_word: null
null_empty:
false_value: false
empty_string: ""
empty_array: []
empty_hash: {}
zero: 0
integer: 42
float_whole: 2.0
unicode: "héllo wörld → 世界 ✓"
literal_block: |
  line one
  line two
folded_block: >
  folded
  text
quoted_number: "42"
version_string: 1.10
`)
	want := h("null_tilde", nil, "null_word", nil, "null_empty", nil, "false_value", false,
		"empty_string", "", "empty_array", []any{}, "empty_hash", h(), "zero", int64(0),
		"integer", int64(42), "float_whole", 2.0, "unicode", "héllo wörld → 世界 ✓",
		"literal_block", "line one\nline two\n", "folded_block", "folded text\n",
		"quoted_number", "42", "version_string", 1.1)
	if diff := cmp.Diff(want, doc.Hash, cmpOpts); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

// TestKeysAndOrder: key order is kept, a repeated key keeps its first
// position and takes the last value (Ruby Hash#[]=), symbol keys become
// strings, and scalar keys keep their type.
func TestKeysAndOrder(t *testing.T) {
	tests := []struct {
		name, src string
		want      *format.Hash
	}{
		{"order", "zeta: 1\nalpha: 2\nmid: 3\n", h("zeta", int64(1), "alpha", int64(2), "mid", int64(3))},
		{"duplicate", "a: 1\nb: 2\na: 3\n", h("a", int64(3), "b", int64(2))},
		{"duplicate quoted", "\"a\": 1\na: 2\n'a': 3\n", h("a", int64(3))},
		{"typed keys", "1: int\n\"1\": str\n1.0: float\noff: bool\n~: nil\n",
			h(int64(1), "int", "1", "str", 1.0, "float", false, "bool", nil, "nil")},
		{"symbol keys", ":sym: 1\nother: 2\n", h("sym", int64(1), "other", int64(2))},
		{"symbol key collision", ":a: 1\na: 2\n", h("a", int64(2))},
		{"zero keys", "h: {0.0: a, -0.0: b}\n", h("h", h(0.0, "b"))},
		{"nested int keys", "int_keys: {1: one, 2: two}\n", h("int_keys", h(int64(1), "one", int64(2), "two"))},
	}
	for _, tt := range tests {
		// A key written twice is warned of (TestDuplicateKeys).
		doc, probs := YAML("data/x.yaml", []byte(tt.src))
		if doc == nil {
			t.Fatalf("YAML(%q): problems %v", tt.src, probs)
		}
		if diff := cmp.Diff(tt.want, doc.Hash, cmpOpts); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tt.name, diff)
		}
	}
}

// TestMerges pins Psych's << semantics: Hash#merge! in place of the <<
// key (so an earlier key is overwritten, a later one wins), sequences
// merged in reverse so that earlier hashes win, anything else stored
// under "<<".
func TestMerges(t *testing.T) {
	tests := []struct {
		name, src string
		want      any
	}{
		{"conformance", "defaults: &d {timeout: 30, retries: 3}\nb:\n  <<: *d\n  retries: 5\n",
			h("timeout", int64(30), "retries", int64(5))},
		{"merge after key overwrites it", "d: &d {timeout: 30, retries: 3}\nb:\n  retries: 5\n  <<: *d\n",
			h("retries", int64(3), "timeout", int64(30))},
		{"sequence: first wins, last's keys first", "a: &a {a: 1, b: 1}\nc: &c {b: 2, c: 2}\nb:\n  <<: [*a, *c]\n",
			h("b", int64(1), "c", int64(2), "a", int64(1))},
		{"inline", "b:\n  <<: {x: 1}\n  y: 2\n", h("x", int64(1), "y", int64(2))},
		{"quoted << merges too", "a: &a {x: 1}\nb:\n  \"<<\": *a\n", h("x", int64(1))},
		{"!!str << does not", "a: &a {x: 1}\nb:\n  !!str <<: *a\n", h("<<", h("x", int64(1)))},
		{"scalar", "a: &a 5\nb:\n  <<: *a\n", h("<<", int64(5))},
		{"list alias", "a: &a [1]\nb:\n  <<: *a\n", h("<<", []any{int64(1)})},
		{"sequence with a scalar", "a: &a {x: 1}\nb:\n  <<: [*a, 5]\n", h("<<", []any{h("x", int64(1)), int64(5)})},
		{"self merge is harmless", "b: &b\n  x: 1\n  <<: *b\n", h("x", int64(1))},
	}
	for _, tt := range tests {
		doc := mustYAML(t, tt.src)
		got, _ := doc.Hash.Get("b")
		if diff := cmp.Diff(tt.want, got, cmpOpts); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tt.name, diff)
		}
	}
}

// TestAliasesShareValues: an anchor's value is converted once and shared,
// which keeps alias-heavy files linear (and is why values are read-only).
func TestAliasesShareValues(t *testing.T) {
	doc := mustYAML(t, "a: &a {x: [1, 2]}\nb: *a\nc: &a 3\nd: *a\n")
	a, _ := doc.Hash.Get("a")
	b, _ := doc.Hash.Get("b")
	if a.(*format.Hash) != b.(*format.Hash) {
		t.Error("the alias does not share the anchored hash")
	}
	if d, _ := doc.Hash.Get("d"); d != int64(3) {
		t.Errorf("a redefined anchor: d = %v, want 3", d)
	}
}

// TestLongTexts reads texts longer than the room the scanner starts one
// in, while the parser still holds the one before (an anchor, a tag):
// each keeps its own bytes.
func TestLongTexts(t *testing.T) {
	long := func(c string) string { return strings.Repeat(c, 70) }
	src := "k" + long("k") + ": &" + long("a") + " !!str " + long("v") + "\n" +
		"b: *" + long("a") + "\n" +
		"c: [" + long("x") + ", \"" + long("y") + "\", '" + long("z") + "']\n"
	doc := mustYAML(t, src)
	want := h("k"+long("k"), long("v"), "b", long("v"), "c", []any{long("x"), long("y"), long("z")})
	if diff := cmp.Diff(want, doc.Hash, cmpOpts); diff != "" {
		t.Errorf("long texts (-want +got):\n%s", diff)
	}
}

// TestNotAHash: empty, comment-only and non-mapping files are an empty
// hash and Puppet's warning (conformance case
// missing-empty-and-invalid-data-files).
func TestNotAHash(t *testing.T) {
	for _, src := range []string{"", "# only\n# comments\n", "- key_in_list\n- merged\n", "just text\n", "42\n", "~\n", "false\n", "- 2024-1-1x\n", "---\n"} {
		doc, probs := YAML("env/data/empty.yaml", []byte(src))
		pos := Pos{1, 1}
		if src == "---\n" {
			pos = Pos{2, 1} // the empty document's (empty) root
		}
		want := []diagnostics.Diagnostic{warning("env/data/empty.yaml", pos, "env/data/empty.yaml: file does not contain a valid yaml hash")}
		if doc == nil || doc.Hash == nil || doc.Hash.Len() != 0 {
			t.Errorf("%q: doc %v, want an empty hash", src, doc)
		}
		if diff := cmp.Diff(want, probs); diff != "" {
			t.Errorf("%q (-want +got):\n%s", src, diff)
		}
	}
}

// TestByteOrderMark: a YAML data file that starts with a UTF-8 byte order
// mark keeps Puppet's values (only what precedes the next line at column
// 0: conformance case byte-order-mark), with one warning naming the file
// and the keys Puppet does not read. A file that does not load has only
// its error.
func TestByteOrderMark(t *testing.T) {
	const bom = "\xef\xbb\xbf"
	const why = "env/data/common.yaml: starts with a UTF-8 byte order mark, which Puppet reads as a character: the first line's text is then at column 1, and the next line at column 0 ends the data, without an error."
	tests := []struct {
		src  string
		keys []any
		warn string // "": no warning
	}{
		{"port: 80\nhost: a\n", []any{"port", "host"}, ""},
		{bom + "port: 80\nhost: a\nnested:\n  x: 1\n", []any{"port"},
			why + " Not read: \"host\" (line 2), \"nested\" (line 3). Remove the mark."},
		{bom + "a:\n  b: 1\n", []any{"a"}, why + " Every key is read here, but a key added at column 0 would not be. Remove the mark."},
		{bom + "# comment\n", nil, why + " Every key is read here, but a key added at column 0 would not be. Remove the mark."},
		{bom + "k1: 1\nk2: 2\nk3: 3\nk4: 4\nk5: 5\nk6: 6\nk7: 7\n", []any{"k1"},
			why + " Not read: \"k2\" (line 2), \"k3\" (line 3), \"k4\" (line 4), \"k5\" (line 5), \"k6\" (line 6) and 1 more. Remove the mark."},
	}
	for _, tt := range tests {
		doc, probs := YAML("env/data/common.yaml", []byte(tt.src))
		if doc == nil {
			t.Fatalf("%q: %v", tt.src, probs)
		}
		if diff := cmp.Diff(tt.keys, doc.Hash.Keys(), cmpopts.EquateEmpty()); diff != "" {
			t.Errorf("%q: keys (-want +got):\n%s", tt.src, diff)
		}
		var warns []string
		for _, p := range probs {
			if p.Severity == diagnostics.Warning && strings.Contains(p.Message, "byte order mark") {
				warns = append(warns, p.Message)
				if p.Pos != (Pos{1, 1}).In("env/data/common.yaml") {
					t.Errorf("%q: warning at %v, want 1:1", tt.src, p.Pos)
				}
			}
		}
		var want []string
		if tt.warn != "" {
			want = []string{tt.warn}
		}
		if diff := cmp.Diff(want, warns); diff != "" {
			t.Errorf("%q: warnings (-want +got):\n%s", tt.src, diff)
		}
	}
	// Unloadable: the error alone, as for any file.
	doc, probs := YAML("env/data/common.yaml", []byte(bom+"a: [\n"))
	if doc != nil || len(probs) != 1 || probs[0].Severity == diagnostics.Warning {
		t.Errorf("unloadable file with a mark: doc %v, problems %v", doc, probs)
	}
}

// TestLoadErrors: what makes a file unloadable, with Puppet's message and
// where the problem is.
func TestLoadErrors(t *testing.T) {
	tests := []struct {
		src  string
		want diagnostics.Diagnostic
	}{
		// Conformance case invalid-data-poisons-every-lookup.
		{"release_date: 2024-01-15\n", problem("f.yaml", Pos{1, 15}, "Unable to parse (f.yaml): Tried to load unspecified class: Date")},
		{"t: 2024-01-15 10:00:00\n", problem("f.yaml", Pos{1, 4}, "Unable to parse (f.yaml): Tried to load unspecified class: Time")},
		{"2024-01-15: key\n", problem("f.yaml", Pos{1, 1}, "Unable to parse (f.yaml): Tried to load unspecified class: Date")},
		{"- 2024-01-15\n", problem("f.yaml", Pos{1, 3}, "Unable to parse (f.yaml): Tried to load unspecified class: Date")},
		{"a: !ruby/object:Foo {x: 1}\n", problem("f.yaml", Pos{1, 4}, "Unable to parse (f.yaml): Tried to load unspecified class: Foo")},
		{"a: !!set {x}\n", problem("f.yaml", Pos{1, 4}, "Unable to parse (f.yaml): Tried to load unspecified class: Psych::Set")},
		{"a: !ruby/regexp /x/\n", problem("f.yaml", Pos{1, 4}, "Unable to parse (f.yaml): Tried to load unspecified class: Regexp")},
		// Ruby exceptions other than DisallowedClass carry no file name.
		{"a: *nope\n", problem("f.yaml", Pos{1, 4}, "Unable to parse Unknown alias: nope")},
		{"a: !!float abc\n", problem("f.yaml", Pos{1, 4}, `Unable to parse invalid value for Float(): "abc"`)},
		{"a: 0x_\n", problem("f.yaml", Pos{1, 4}, `Unable to parse invalid value for Integer(): "0x"`)},
		// Psych reports the context mark, which is the problem's when
		// there is no context.
		{"a: 1\nb\n", problem("f.yaml", Pos{3, 1}, "Unable to parse (f.yaml): could not find expected ':' while scanning a simple key at line 2 column 1")},
		{"a: [1\n", problem("f.yaml", Pos{2, 1}, "Unable to parse (f.yaml): did not find expected ',' or ']' while parsing a flow sequence at line 1 column 4")},
		{":\n", problem("f.yaml", Pos{1, 1}, "Unable to parse (f.yaml): did not find expected key while parsing a block mapping at line 1 column 1")},
		{"a: b: c\n", problem("f.yaml", Pos{1, 5}, "Unable to parse (f.yaml): mapping values are not allowed in this context at line 1 column 5")},
		// Errors are found in document order.
		{"a: *nope\nb: 2024-01-01\n", problem("f.yaml", Pos{1, 4}, "Unable to parse Unknown alias: nope")},
		// A value holding itself: Puppet dies in symkeys_to_string.
		{"a: &x [*x]\nb: 1\n", problem("f.yaml", Pos{1, 8}, "stack level too deep (hieracc: a value holds itself through an alias)")},
	}
	for _, tt := range tests {
		doc, probs := YAML("f.yaml", []byte(tt.src))
		if doc != nil {
			t.Errorf("%q: got a doc, want an error", tt.src)
		}
		if diff := cmp.Diff([]diagnostics.Diagnostic{tt.want}, probs); diff != "" {
			t.Errorf("%q (-want +got):\n%s", tt.src, diff)
		}
	}
}

// TestOnlyTheFirstDocument: Psych reads one document; what follows, even
// broken, does not matter.
func TestOnlyTheFirstDocument(t *testing.T) {
	doc := mustYAML(t, "a: 1\n---\nb: [\n")
	if diff := cmp.Diff(h("a", int64(1)), doc.Hash, cmpOpts); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

// TestInvalidValues: values Puppet loads but refuses to return. Only
// lookups of their key fail (Doc.Invalid); the others are unaffected.
func TestInvalidValues(t *testing.T) {
	doc := mustYAML(t, `mode: :fast
ok: 1
sym_hash:
  x: :y
bool_key: {true: 1}
nested: {a: [{b: !ruby/sym c}]}
arr_key:
  ? [a, b]
  : 1
big: 99999999999999999999
`)
	wantHash := h("mode", nil, "ok", int64(1), "sym_hash", nil, "bool_key", nil, "nested", nil, "arr_key", nil, "big", nil)
	if diff := cmp.Diff(wantHash, doc.Hash, cmpOpts); diff != "" {
		t.Errorf("hash (-want +got):\n%s", diff)
	}
	prefix := func(k string) string {
		return "Value for key '" + k + "', in hash returned from data_hash function 'yaml_data', when using location 'data/x.yaml', "
	}
	want := map[any]diagnostics.Diagnostic{
		// These are Puppet's messages, as the conformance case and
		// testdata/golden.json record them.
		"mode":     problem("data/x.yaml", Pos{1, 7}, prefix("mode")+"has wrong type, expects Puppet::LookupValue, got Runtime[ruby, 'Symbol']"),
		"sym_hash": problem("data/x.yaml", Pos{4, 6}, prefix("sym_hash")+"has wrong type, expects Puppet::LookupValue, got Hash[String, Runtime[ruby, 'Symbol'], 1, 1]"),
		"bool_key": problem("data/x.yaml", Pos{5, 12}, prefix("bool_key")+"has wrong type, expects Puppet::LookupValue, got Hash[Boolean[true], Integer[1, 1], 1, 1]"),
		"nested":   problem("data/x.yaml", Pos{6, 18}, prefix("nested")+"has wrong type, expects Puppet::LookupValue, got Hash[String, Array[Hash[String, Runtime[ruby, 'Symbol'], 1, 1], 1, 1], 1, 1]"),
		"arr_key":  problem("data/x.yaml", Pos{8, 5}, prefix("arr_key")+"has wrong type, expects Puppet::LookupValue, got Hash[Array[Enum['a', 'b'], 2, 2], Integer[1, 1], 1, 1]"),
		// Puppet returns it; hieracc cannot hold it.
		"big": problem("data/x.yaml", Pos{10, 6}, prefix("big")+"holds an integer outside the 64-bit range, which hieracc cannot represent"),
	}
	if diff := cmp.Diff(want, doc.Invalid); diff != "" {
		t.Errorf("invalid (-want +got):\n%s", diff)
	}
}

// TestUnreachableTopLevelKeys: a top-level key that is an array or hash
// can never be looked up; hieracc drops it with a warning.
func TestUnreachableTopLevelKeys(t *testing.T) {
	doc, probs := YAML("f.yaml", []byte("? [top, level]\n: 2\nok: fine\n"))
	if diff := cmp.Diff(h("ok", "fine"), doc.Hash, cmpOpts); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	want := []diagnostics.Diagnostic{warning("f.yaml", Pos{1, 3}, `f.yaml: hieracc ignores the top-level key ["top", "level"]: it is not a string, number, boolean or null, so no lookup can find it`)}
	if diff := cmp.Diff(want, probs); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

func TestKeyPositions(t *testing.T) {
	doc := mustYAML(t, "# head\nalpha: 1\n  # c\nbeta:\n  x: 1\n\"gamma\": 3\nd: &d {e: 1}\nm:\n  <<: *d\n")
	want := []Pos{{2, 1}, {4, 1}, {6, 1}, {7, 1}, {8, 1}}
	if diff := cmp.Diff(want, doc.KeyPos); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	jdoc, _ := JSON("f.json", []byte("{\n  \"a\": 1,\n  \"é\": {\"b\": 2}, \"c\": 3\n}"))
	if diff := cmp.Diff([]Pos{{2, 3}, {3, 3}, {3, 18}}, jdoc.KeyPos); diff != "" {
		t.Errorf("json (-want +got):\n%s", diff)
	}
}

// TestJSON is json_data: Ruby's JSON.parse.
func TestJSON(t *testing.T) {
	doc, probs := JSON("f.json", []byte(`/* a comment */ {
  "app::workers": 2,
  "app::ratio": 1.0,
  "exp": 1e3,
  "neg": -0,
  "unicode": "caf\u00e9 \u2713 \ud83d\ude80",
  "escapes": "\x\/\"",
  "list": [1, 2.5, "three", true, null, {"k": "v"}],
  "dup": 1, "dup": 2,
  "big": 99999999999999999999
}`))
	wantProbs := []diagnostics.Diagnostic{{Severity: diagnostics.Warning, Pos: Pos{9, 13}.In("f.json"), Message: `duplicate key "dup" (first at line 9, column 3): Puppet keeps this value and drops the first, without a word`}}
	if diff := cmp.Diff(wantProbs, probs); diff != "" {
		t.Fatalf("problems (-want +got):\n%s", diff)
	}
	want := h("app::workers", int64(2), "app::ratio", 1.0, "exp", 1000.0, "neg", int64(0),
		"unicode", "café ✓ \U0001F680", "escapes", `x/"`,
		"list", []any{int64(1), 2.5, "three", true, nil, h("k", "v")}, "dup", int64(2), "big", nil)
	if diff := cmp.Diff(want, doc.Hash, cmpOpts); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	if len(doc.Invalid) != 1 || !strings.Contains(doc.Invalid["big"].Message, "outside the 64-bit range") {
		t.Errorf("invalid: %v", doc.Invalid)
	}
}

func TestJSONErrors(t *testing.T) {
	tests := []struct {
		src  string
		want diagnostics.Diagnostic
	}{
		// Ruby's messages carry its parser's C line number and the rest of
		// the input from where it gave up.
		{"", problem("f.json", Pos{1, 1}, "Unable to parse (f.json): 859: unexpected token at ''")},
		{`{"a":1,}`, problem("f.json", Pos{1, 1}, `Unable to parse (f.json): 859: unexpected token at '{"a":1,}'`)},
		{`{"a":[1,2}`, problem("f.json", Pos{1, 10}, `Unable to parse (f.json): 451: unexpected token at '}'`)},
		{`{"a":NaN}`, problem("f.json", Pos{1, 6}, `Unable to parse (f.json): 225: unexpected token at 'NaN}'`)},
		{`{"a":"\ud83dx"}`, problem("f.json", Pos{1, 7}, `Unable to parse (f.json): 521: incomplete surrogate pair at '\ud83dx"}'`)},
		{strings.Repeat("[", 101) + strings.Repeat("]", 101), problem("f.json", Pos{1, 101}, "Unable to parse (f.json): nesting of 101 is too deep")},
		// The top level must be an object (Puppet's Hash check).
		{"[1, 2]", problem("f.json", Pos{1, 1}, "Value returned from data_hash function 'json_data', when using location 'f.json', has wrong type, expects a Hash value, got Tuple")},
		{"[]", problem("f.json", Pos{1, 1}, "Value returned from data_hash function 'json_data', when using location 'f.json', has wrong type, expects a Hash value, got Array")},
		{" null", problem("f.json", Pos{1, 2}, "Value returned from data_hash function 'json_data', when using location 'f.json', has wrong type, expects a Hash value, got Undef")},
	}
	for _, tt := range tests {
		doc, probs := JSON("f.json", []byte(tt.src))
		if doc != nil {
			t.Errorf("%q: got a doc", tt.src)
		}
		if diff := cmp.Diff([]diagnostics.Diagnostic{tt.want}, probs); diff != "" {
			t.Errorf("%q (-want +got):\n%s", tt.src, diff)
		}
	}
}

// TestLimits: hostile input is refused quickly, never crashes.
func TestLimits(t *testing.T) {
	t.Run("file size", func(t *testing.T) {
		big := make([]byte, MaxFileSize+1)
		if doc, probs := YAML("f", big); doc != nil || len(probs) != 1 || !strings.Contains(probs[0].Message, "larger than") {
			t.Errorf("YAML: %v %v", doc, probs)
		}
		if doc, probs := JSON("f", big); doc != nil || len(probs) != 1 || !strings.Contains(probs[0].Message, "larger than") {
			t.Errorf("JSON: %v %v", doc, probs)
		}
	})
	t.Run("depth", func(t *testing.T) {
		ok := "a: " + strings.Repeat("[", MaxDepth-1) + strings.Repeat("]", MaxDepth-1) + "\n"
		mustYAML(t, ok)
		deep := "a: " + strings.Repeat("[", MaxDepth) + strings.Repeat("]", MaxDepth) + "\n"
		if doc, probs := YAML("f", []byte(deep)); doc != nil || len(probs) != 1 || !strings.HasPrefix(probs[0].Message, "stack level too deep") {
			t.Errorf("%v %v", doc, probs)
		}
		// Aliases cannot build deeper values than the file holds.
		var b strings.Builder
		b.WriteString("a0: &a0 [1]\n")
		for i := 1; i <= MaxDepth; i++ {
			b.WriteString("a" + strconv.Itoa(i) + ": &a" + strconv.Itoa(i) + " [*a" + strconv.Itoa(i-1) + "]\n")
		}
		if doc, probs := YAML("f", []byte(b.String())); doc != nil || len(probs) != 1 || !strings.HasPrefix(probs[0].Message, "stack level too deep") {
			t.Errorf("alias depth: %v %v", doc, probs)
		}
	})
	t.Run("billion laughs", func(t *testing.T) {
		src := "a: &a [lol, lol, lol, lol, lol, lol, lol, lol, lol, lol]\n"
		for c := 'b'; c <= 'j'; c++ {
			p := string(c - 1)
			src += string(c) + ": &" + string(c) + " [*" + p + ", *" + p + ", *" + p + ", *" + p + ", *" + p + ", *" + p + ", *" + p + ", *" + p + ", *" + p + ", *" + p + "]\n"
		}
		start := time.Now()
		doc, probs := YAML("f", []byte(src))
		if doc != nil || len(probs) != 1 || !strings.Contains(probs[0].Message, "values once aliases are expanded") {
			t.Errorf("%v %v", doc, probs)
		}
		if d := time.Since(start); d > 2*time.Second {
			t.Errorf("took %v", d)
		}
	})
}

// TestNodeAndValue: the tree API for hiera.yaml readers.
func TestNodeAndValue(t *testing.T) {
	src := "version: 5\nhierarchy:\n  - name: \"Common\"\n    path: &p common.yaml\n    other: *p\n    flag: yes\n"
	root, err := Node("hiera.yaml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	if root.Kind != yaml.MappingNode || len(root.Content) != 4 {
		t.Fatalf("root: %+v", root)
	}
	entry := root.Content[3].Content[0]
	if got := (Pos{entry.Content[2].Line, entry.Content[2].Column}); got != (Pos{4, 5}) {
		t.Errorf("path key at %v", got)
	}
	v, err := Value("hiera.yaml", entry)
	if err != nil {
		t.Fatal(err)
	}
	want := h("name", "Common", "path", "common.yaml", "other", "common.yaml", "flag", true)
	if diff := cmp.Diff(want, v, cmpOpts); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}

	if n, err := Node("h", []byte("# nothing\n")); n != nil || err != nil {
		t.Errorf("empty: %v %v", n, err)
	}
	if _, err := Node("h", []byte("a: [1\n")); err == nil || err.Error() != "h:2:1: (h): did not find expected ',' or ']' while parsing a flow sequence at line 1 column 4" {
		t.Errorf("syntax: %v", err)
	}
	n, _ := Node("h", []byte("a: 2024-01-01\n"))
	if _, err := Value("h", n); err == nil || err.Error() != "h:1:4: (h): Tried to load unspecified class: Date" {
		t.Errorf("date: %v", err)
	}
	n, _ = Node("h", []byte("a:\n  - 1\n  - :sym\n"))
	if _, err := Value("h", n); err == nil || err.(*diagnostics.Diagnostic).Pos != (Pos{3, 5}).In("h") || !strings.Contains(err.Error(), "Ruby symbol :sym") {
		t.Errorf("symbol: %v", err)
	}
	// A tree from yaml.v3's own parser reads the same way (except that it
	// cannot tell `! "12"` from `"12"`).
	var y3 yaml.Node
	if err := yaml.Unmarshal([]byte("a: yes\nb: 0777\nc: \"yes\"\nd: !!str 1\n"), &y3); err != nil {
		t.Fatal(err)
	}
	v, err = Value("h", &y3)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(h("a", true, "b", int64(511), "c", "yes", "d", "1"), v, cmpOpts); diff != "" {
		t.Errorf("yaml.v3 tree (-want +got):\n%s", diff)
	}
}
