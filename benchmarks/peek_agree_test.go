package benchmarks

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/hieracc/hieracc/compiler"
	"github.com/hieracc/hieracc/format/encode"
	"github.com/hieracc/hieracc/format/formattest"
	"github.com/hieracc/hieracc/runtime"
)

// TestPeekAgreesWithOpen holds runtime.Peek, which answers a key from a
// bundle's bytes (hieracc serve's key lookups), to what the bundle opened
// whole answers, on every bundle of the example and of every conformance
// case (ours and the shared corpus's, when present): for each of its keys,
// a dotted and an absent one and lookup_options, a Peek that answers (ok)
// gives Lookup's value or error and Secret's verdict.
func TestPeekAgreesWithOpen(t *testing.T) {
	dirs := []string{"../testdata/example"}
	own, _ := filepath.Glob("../testdata/conformance/*/expected.yaml")
	shared, _ := filepath.Glob(filepath.Join(sharedCorpus, "*", "expected.yaml"))
	for _, f := range append(own, shared...) {
		dirs = append(dirs, filepath.Dir(f))
	}
	answered, deferred := 0, 0
	for _, dir := range dirs {
		in, ok := caseInput(t, dir)
		if !ok {
			continue
		}
		res, err := compiler.Compile(context.Background(), in)
		if err != nil {
			t.Fatalf("%s: %v", dir, err)
		}
		out := t.TempDir()
		for _, b := range res.Bundles {
			data, err := encode.Encode(b)
			if err != nil {
				t.Fatalf("%s: encode %s: %v", dir, b.Node, err)
			}
			path := filepath.Join(out, b.Node+".bundle")
			if err := os.WriteFile(path, data, 0o600); err != nil {
				t.Fatal(err)
			}
			whole, err := runtime.Open(path)
			if err != nil {
				t.Fatalf("%s: %v", path, err)
			}
			peek, err := runtime.OpenPeek(path, nil)
			if err != nil {
				t.Fatalf("%s: OpenPeek: %v", path, err)
			}
			keys := append(whole.Keys(), "lookup_options", "no::such::key")
			for _, k := range whole.Keys() {
				keys = append(keys, k+".0", k+".x")
			}
			for _, k := range keys {
				v, secret, ok, err := peek.Lookup(k)
				if !ok {
					deferred++
					continue
				}
				answered++
				where := fmt.Sprintf("%s node %s key %q", filepath.Base(dir), b.Node, k)
				wv, werr := whole.Lookup(k)
				if fmt.Sprint(err) != fmt.Sprint(werr) {
					t.Errorf("%s: Peek error %v, Lookup error %v", where, err, werr)
				}
				if d := cmp.Diff(unwrap(wv), unwrap(v), formattest.Cmp); werr == nil && d != "" {
					t.Errorf("%s: Peek's value differs from Lookup's (-Lookup +Peek):\n%s", where, d)
				}
				if w := whole.Secret(k); secret != w {
					t.Errorf("%s: Peek's secret = %v, Secret = %v", where, secret, w)
				}
			}
		}
	}
	t.Logf("%d keys answered by Peek, %d left to Open", answered, deferred)
	if answered == 0 {
		t.Fatal("Peek answered no key: the comparison compared nothing")
	}
}

// unwrap is v, or what it wraps when it is Sensitive (marked, so that a
// Sensitive value never equals a plain one).
func unwrap(v any) any {
	if s, ok := v.(*runtime.Sensitive); ok {
		return []any{"Sensitive", s.Unwrap()}
	}
	return v
}
