package dataload

import (
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hieracc/hieracc/compiler/diagnostics"
	"github.com/hieracc/hieracc/format"
)

// The fuzz tests check that no input panics or hangs, and that what comes
// out keeps the package's promises. Seeds: testdata/fuzz/<Fuzz...>/ plus
// the golden inputs of testdata/yaml and testdata/json.
//
//	go test ./compiler/internal/dataload/ -run '^$' -fuzz FuzzYAML -fuzztime 2m

func FuzzYAML(f *testing.F) {
	addSeeds(f, "testdata/yaml/*.yaml")
	// A byte order mark: the file is read twice, with and without it.
	f.Add([]byte("\xef\xbb\xbfa: 1\nb: &x [2, *x]\n c: {d: e}\n"))
	f.Fuzz(func(t *testing.T, src []byte) {
		doc, probs := YAML("f.yaml", src)
		checkDoc(t, doc, probs)
		// A parser that read another file first reads src as a new one.
		fresh, reused := &builder{}, &builder{}
		reused.parse([]byte("a: [b, {c: d}]\n" + strings.Repeat("e", 3000) + ": f\n"))
		reused.reset()
		want, wantErr := fresh.parse(src)
		got, gotErr := reused.parse(src)
		if describe(want, wantErr) != describe(got, gotErr) {
			t.Fatalf("a reused parser reads %q otherwise than a new one", src)
		}
		n, err := Node("f.yaml", src)
		if err != nil && doc != nil {
			t.Fatalf("Node failed (%v) but YAML did not", err)
		}
		if n != nil {
			if v, err := Value("f.yaml", n); err == nil {
				checkValue(t, v, 0)
			}
		}
	})
}

func FuzzJSON(f *testing.F) {
	addSeeds(f, "testdata/json/*.json")
	f.Fuzz(func(t *testing.T, src []byte) {
		doc, probs := JSON("f.json", src)
		checkDoc(t, doc, probs)
	})
}

func addSeeds(f *testing.F, glob string) {
	files, _ := filepath.Glob(glob)
	for _, file := range files {
		b, err := os.ReadFile(file)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
}

// checkDoc checks the contract of YAML and JSON.
func checkDoc(t *testing.T, doc *Doc, probs []diagnostics.Diagnostic) {
	t.Helper()
	if doc == nil {
		if len(probs) != 1 || probs[0].Severity == diagnostics.Warning || probs[0].Message == "" {
			t.Fatalf("no doc, problems %v", probs)
		}
		return
	}
	for _, p := range probs {
		if p.Severity != diagnostics.Warning {
			t.Fatalf("a doc and an error: %v", p)
		}
	}
	if doc.Hash == nil || len(doc.KeyPos) != doc.Hash.Len() {
		t.Fatalf("hash %v with %d positions", doc.Hash, len(doc.KeyPos))
	}
	for i, k := range doc.Hash.Keys() {
		if p := doc.KeyPos[i]; p.Line < 1 || p.Column < 1 {
			t.Fatalf("key %v at %v", k, p)
		}
		if bad, ok := doc.Invalid[k]; ok {
			if doc.Hash.Value(i) != nil || bad.Message == "" {
				t.Fatalf("invalid key %v: value %v, problem %v", k, doc.Hash.Value(i), bad)
			}
			continue
		}
		checkValue(t, doc.Hash.Value(i), 1)
	}
}

// checkValue checks that v only holds format values, within the limits.
func checkValue(t *testing.T, v any, depth int) {
	t.Helper()
	if depth > MaxDepth {
		t.Fatalf("value deeper than %d", MaxDepth)
	}
	switch v := v.(type) {
	case nil, bool, int64, float64, string:
	case []any:
		for _, e := range v {
			checkValue(t, e, depth+1)
		}
	case *format.Hash:
		for k, e := range v.All() {
			switch k := k.(type) {
			case nil, bool, int64, string:
			case float64:
				if math.IsNaN(k) {
					t.Fatal("NaN key")
				}
			default:
				t.Fatalf("key of type %T", k)
			}
			checkValue(t, e, depth+1)
		}
	default:
		t.Fatalf("value of type %T", v)
	}
}
