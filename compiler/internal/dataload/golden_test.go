package dataload

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"flag"
	"fmt"
	"math"
	"math/big"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/hieracc/hieracc/compiler/diagnostics"
	"github.com/hieracc/hieracc/format"
)

// The golden test runs every input of testdata (scalars.txt expanded into
// small documents, yaml/*.yaml, json/*.json, and the data files of the
// conformance corpus) through YAML or JSON and compares the outcome with
// what Puppet 7.23's own yaml_data / json_data code produced for the same
// bytes, recorded in testdata/golden.json by testdata/puppet_load.rb.
//
// Regenerate (needs ruby and the puppet package):
//
//	go test ./compiler/internal/dataload/ -run TestGolden -update
var update = flag.Bool("update", false, "regenerate testdata/golden.json by running testdata/puppet_load.rb (needs ruby and puppet)")

type goldenCase struct {
	Kind  string          `json:"kind"`
	Name  string          `json:"name"`
	File  string          `json:"file"` // the file name messages use
	Src64 string          `json:"src64"`
	Want  json.RawMessage `json:"want,omitempty"`
}

const goldenFile = "testdata/golden.json"

// conformanceDir holds the corpus whose data files join the inputs when
// regenerating; the test itself only needs golden.json.
const conformanceDir = "../../../../shared/conformance/public"

func goldenInputs(t *testing.T) []goldenCase {
	var cases []goldenCase
	add := func(kind, name, src string) {
		cases = append(cases, goldenCase{Kind: kind, Name: name, File: "data/x." + kind, Src64: base64.StdEncoding.EncodeToString([]byte(src))})
	}
	scalars, err := os.ReadFile("testdata/scalars.txt")
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range strings.Split(strings.TrimSuffix(string(scalars), "\n"), "\n") {
		add("yaml", "value "+s, "v: "+s+"\n")
		add("yaml", "key "+s, s+": v\n")
		add("yaml", "float "+s, "v: !!float "+s+"\n")
		add("yaml", "foo-tag "+s, "v: !foo "+s+"\n")
	}
	for _, dir := range []string{"yaml", "json"} {
		files, _ := filepath.Glob(filepath.Join("testdata", dir, "*"))
		sort.Strings(files)
		for _, f := range files {
			b, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			add(dir, dir+"/"+filepath.Base(f), string(b))
		}
	}
	// Generated inputs too big or too binary for files.
	add("yaml", "gen/deep-500", "a: "+strings.Repeat("[", 499)+strings.Repeat("]", 499)+"\n")
	add("yaml", "gen/invalid-utf8", "a: \xff\n")
	add("yaml", "gen/invalid-utf8-quoted", "a: \"\xc3\x28\"\n")
	add("yaml", "gen/utf16-bom", "\xff\xfea\x00:\x00 \x001\x00\n\x00")
	add("yaml", "gen/many-keys", manyKeys(300))
	add("json", "gen/invalid-utf8-outside", "{\"a\": 1}\xff")
	if _, err := os.Stat(conformanceDir); err == nil {
		var files []string
		filepath.Walk(conformanceDir, func(p string, info os.FileInfo, err error) error {
			if err == nil && !info.IsDir() && strings.Contains(p, "/data/") && (strings.HasSuffix(p, ".yaml") || strings.HasSuffix(p, ".json")) {
				files = append(files, p)
			}
			return nil
		})
		sort.Strings(files)
		for _, f := range files {
			b, _ := os.ReadFile(f)
			kind := "yaml"
			if strings.HasSuffix(f, ".json") {
				kind = "json"
			}
			add(kind, "conformance/"+strings.TrimPrefix(f, conformanceDir+"/"), string(b))
		}
	}
	return cases
}

func manyKeys(n int) string {
	var b strings.Builder
	for i := 0; i < n; i++ {
		fmt.Fprintf(&b, "k%d: %d\n", n-i, i)
	}
	b.WriteString("k7: again\n")
	return b.String()
}

// puppetLoad runs Puppet's own loaders (testdata/puppet_load.rb) on cases
// and returns what they gave for each, in order.
func puppetLoad(t *testing.T, cases []goldenCase) []json.RawMessage {
	t.Helper()
	in, _ := json.Marshal(cases)
	cmd := exec.Command("ruby", "testdata/puppet_load.rb")
	cmd.Stdin = bytes.NewReader(in)
	cmd.Stderr = os.Stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("puppet_load.rb: %v", err)
	}
	var results []json.RawMessage
	if err := json.Unmarshal(out, &results); err != nil || len(results) != len(cases) {
		t.Fatalf("puppet_load.rb output: %v (%d results for %d cases)", err, len(results), len(cases))
	}
	return results
}

func regenerateGolden(t *testing.T) {
	cases := goldenInputs(t)
	results := puppetLoad(t, cases)
	for i := range cases {
		cases[i].Want = results[i]
	}
	var buf bytes.Buffer
	buf.WriteString("[\n")
	for i, c := range cases {
		b, _ := json.Marshal(c)
		buf.Write(b)
		if i < len(cases)-1 {
			buf.WriteByte(',')
		}
		buf.WriteByte('\n')
	}
	buf.WriteString("]\n")
	if err := os.WriteFile(goldenFile, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestGolden(t *testing.T) {
	if *update {
		regenerateGolden(t)
	}
	b, err := os.ReadFile(goldenFile)
	if err != nil {
		t.Fatal(err)
	}
	var cases []goldenCase
	if err := json.Unmarshal(b, &cases); err != nil {
		t.Fatal(err)
	}
	if len(cases) < 1000 {
		t.Fatalf("only %d golden cases", len(cases))
	}
	for _, c := range cases {
		src, err := base64.StdEncoding.DecodeString(c.Src64)
		if err != nil {
			t.Fatal(err)
		}
		var want any
		if err := json.Unmarshal(c.Want, &want); err != nil {
			t.Fatalf("%s: %v", c.Name, err)
		}
		want = expectDivergences(want)
		got := runLoader(c.Kind, c.File, src)
		// Compare as JSON: cmp.Diff takes exponential time on the deep cases.
		wj, _ := json.Marshal(want)
		gj, _ := json.Marshal(got)
		if !bytes.Equal(wj, gj) {
			t.Errorf("%s %s %q: differs from Puppet\npuppet:  %s\nhieracc: %s", c.Kind, c.Name, truncate(string(src), 300), around(wj, gj), around(gj, wj))
		}
	}
}

// runLoader loads src and encodes the outcome like puppet_load.rb does.
func runLoader(kind, name string, src []byte) any {
	var doc *Doc
	var probs []diagnostics.Diagnostic
	if kind == "json" {
		doc, probs = JSON(name, src)
	} else {
		doc, probs = YAML(name, src)
	}
	if doc == nil {
		if len(probs) != 1 || probs[0].Severity == diagnostics.Warning {
			return map[string]any{"bad problems": fmt.Sprint(probs)}
		}
		msg := probs[0].Message
		if strings.HasPrefix(msg, "stack level too deep") {
			msg = "stack level too deep"
		}
		if !utf8.ValidString(msg) {
			msg = "b64:" + base64.StdEncoding.EncodeToString([]byte(msg))
		}
		return map[string]any{"error": msg}
	}
	for _, p := range probs {
		if p.Severity != diagnostics.Warning {
			return map[string]any{"error with doc": p.Message}
		}
		if strings.HasSuffix(p.Message, "file does not contain a valid yaml hash") {
			if doc.Hash.Len() != 0 {
				return map[string]any{"warning with keys": p.Message}
			}
			return map[string]any{"warning": p.Message}
		}
	}
	entries := []any{}
	for i, k := range doc.Hash.Keys() {
		var v any
		if bad, ok := doc.Invalid[k]; ok {
			if doc.Hash.Value(i) != nil {
				return map[string]any{"invalid key with a value": fmt.Sprint(k)}
			}
			msg := bad.Message
			if strings.Contains(msg, "outside the 64-bit range") {
				msg = "holds an integer outside the 64-bit range"
			}
			v = map[string]any{"invalid": msg}
		} else {
			v = encValue(doc.Hash.Value(i))
		}
		entries = append(entries, []any{encValue(k), v})
	}
	return map[string]any{"hash": entries}
}

// encValue encodes a value like puppet_load.rb's enc (NaN normalized: Ruby
// and Go NaNs have different bits).
func encValue(v any) any {
	switch v := v.(type) {
	case nil:
		return []any{"nil"}
	case bool:
		return []any{"bool", v}
	case int64:
		return []any{"int", fmt.Sprint(v)}
	case float64:
		if math.IsNaN(v) {
			return []any{"float", "nan"}
		}
		return []any{"float", fmt.Sprintf("%016x", math.Float64bits(v))}
	case string:
		if !utf8.ValidString(v) {
			return []any{"bin", base64.StdEncoding.EncodeToString([]byte(v))}
		}
		return []any{"str", v}
	case []any:
		out := []any{}
		for _, e := range v {
			out = append(out, encValue(e))
		}
		return []any{"arr", out}
	case *format.Hash:
		out := []any{}
		for k, e := range v.All() {
			out = append(out, []any{encValue(k), encValue(e)})
		}
		return []any{"hash", out}
	}
	return []any{"go", fmt.Sprintf("%T", v)}
}

// expectDivergences rewrites Puppet's outcome where hieracc deliberately
// differs (see the package documentation):
//   - a top-level key that is not a scalar, NaN or beyond 64 bits cannot be
//     looked up, and hieracc drops it;
//   - a value holding an integer beyond 64 bits, which Puppet returns,
//     makes its key Invalid in hieracc.
func expectDivergences(want any) any {
	m, ok := want.(map[string]any)
	if !ok {
		return want
	}
	entries, ok := m["hash"].([]any)
	if !ok {
		return want
	}
	out := []any{}
	for _, e := range entries {
		pair := e.([]any)
		k, v := pair[0].([]any), pair[1]
		if !encodedFormatKey(k) {
			continue
		}
		if enc, ok := v.([]any); ok && hasBigEncoded(enc) {
			v = map[string]any{"invalid": "holds an integer outside the 64-bit range"}
		}
		out = append(out, []any{normalizeNaN(k), normalizeNaN(v)})
	}
	return map[string]any{"hash": out}
}

func encodedFormatKey(k []any) bool {
	switch k[0] {
	case "arr", "hash", "sym", "other":
		return false
	case "float":
		return k[1] != "7ff8000000000000" && k[1] != "fff8000000000000"
	case "int":
		_, ok := new(big.Int).SetString(k[1].(string), 10)
		return ok && fitsInt64(k[1].(string))
	}
	return true
}

func fitsInt64(s string) bool {
	n, _ := new(big.Int).SetString(s, 10)
	return n.IsInt64()
}

func hasBigEncoded(v []any) bool {
	switch v[0] {
	case "int":
		return !fitsInt64(v[1].(string))
	case "arr":
		for _, e := range v[1].([]any) {
			if hasBigEncoded(e.([]any)) {
				return true
			}
		}
	case "hash":
		for _, e := range v[1].([]any) {
			p := e.([]any)
			if hasBigEncoded(p[0].([]any)) || hasBigEncoded(p[1].([]any)) {
				return true
			}
		}
	}
	return false
}

func normalizeNaN(v any) any {
	switch v := v.(type) {
	case []any:
		if len(v) == 2 && v[0] == "float" && (v[1] == "7ff8000000000000" || v[1] == "fff8000000000000") {
			return []any{"float", "nan"}
		}
		out := make([]any, len(v))
		for i, e := range v {
			out[i] = normalizeNaN(e)
		}
		return out
	}
	return v
}

func truncate(s string, n int) string {
	if len(s) > n {
		return s[:n] + "..."
	}
	return s
}

// around shows a's text near where it first differs from b.
func around(a, b []byte) string {
	i := 0
	for i < len(a) && i < len(b) && a[i] == b[i] {
		i++
	}
	from, to := max(0, i-300), min(len(a), i+300)
	s := string(a[from:to])
	if from > 0 {
		s = "..." + s
	}
	if to < len(a) {
		s += "..."
	}
	return s
}
