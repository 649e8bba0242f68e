package runtime_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/hieracc/hieracc/format"
	"github.com/hieracc/hieracc/format/encode"
	. "github.com/hieracc/hieracc/format/formattest"
	"github.com/hieracc/hieracc/runtime"
)

// writePeekFile writes data as dir/<node>.bundle.
func writePeekFile(t *testing.T, dir, node string, data []byte) string {
	t.Helper()
	p := filepath.Join(dir, node+".bundle")
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestPeek looks every key up, and keys the bundles lack, dotted keys and
// lookup_options, through a Peek and through the bundle opened whole:
// when the Peek answers, it answers as the bundle does (value, error,
// Secret). A bundle without node or module errors answers its plain
// keys from the Peek.
func TestPeek(t *testing.T) {
	ob, _ := optionsBundle()
	secret := &format.Bundle{Node: "s", Keys: []format.Key{
		{Name: "db::password", Value: "hunter2", Secret: true},
		{Name: "failed", Err: &format.Error{Message: "Interpolation failed", Pos: format.Pos{File: "data/common.yaml", Line: 2, Column: 3}, Level: "Common"}},
		{Name: "hash", Value: hashAB()},
		{Name: "token", Value: "t", ConvertTo: []format.Value{"Sensitive"}},
	}}
	sealed, _, _ := sealedFor(t, "a.example.com")
	dir := t.TempDir()
	for _, tc := range []struct {
		name   string
		b      *format.Bundle
		data   []byte
		simple bool // every plain key it holds answers from the Peek
	}{
		{name: "testBundle (a module error)", b: testBundle()},
		{name: "options", b: ob, simple: true},
		{name: "secret", b: secret, simple: true},
		{name: "Synthetic", b: Synthetic(300), simple: true},
		{name: "sealed", data: sealed},
	} {
		t.Run(tc.name, func(t *testing.T) {
			data := tc.data
			if data == nil {
				var err error
				if data, err = encode.Encode(tc.b); err != nil {
					t.Fatal(err)
				}
			}
			whole, err := runtime.OpenBytes(data)
			if err != nil {
				t.Fatal(err)
			}
			node := whole.Header().Node
			p, err := runtime.OpenPeek(writePeekFile(t, dir, node, data), nil, runtime.Trust{Node: node})
			if err != nil {
				t.Fatal(err)
			}
			if p.Header() != whole.Header() {
				t.Errorf("Header = %+v, want %+v", p.Header(), whole.Header())
			}
			peeked := 0
			for _, k := range append(whole.Keys(), "missing", "zzz", "a.b", "ntp::servers.0", "lookup_options", "db.password", "") {
				v, secret, ok, err := p.Lookup(k)
				wv, werr := whole.Lookup(k)
				if !ok {
					if tc.simple && !strings.ContainsAny(k, ".'\"") && k != "lookup_options" && werr == nil {
						t.Errorf("Lookup(%q) not answered from the Peek", k)
					}
					continue
				}
				peeked++
				if d := cmp.Diff(wv, v, Cmp, cmp.AllowUnexported(runtime.Sensitive{})); d != "" || errText(werr) != errText(err) {
					t.Errorf("Lookup(%q) = %v, %v; the bundle's %v, %v (-bundle +peek):\n%s", k, v, err, wv, werr, d)
				}
				if want := whole.Secret(k); secret != want {
					t.Errorf("Lookup(%q) secret = %v, Secret %v", k, secret, want)
				}
			}
			if tc.simple && peeked == 0 {
				t.Errorf("no key answered from the Peek")
			}
			b, err := p.Open()
			if err != nil || b.Header() != whole.Header() {
				t.Errorf("Open = %v, %v", b, err)
			}
		})
	}
}

func errText(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

// TestOpenPeekTrust: a Peek is refused as Open refuses the bundle: of
// another node, unsigned under a verifier, damaged.
func TestOpenPeekTrust(t *testing.T) {
	data, err := encode.Encode(Synthetic(3))
	if err != nil {
		t.Fatal(err)
	}
	_, _, v := sealedFor(t, "a.example.com")
	dir := t.TempDir()
	path := writePeekFile(t, dir, "node.example.com", data)
	damaged := writePeekFile(t, dir, "damaged", []byte(strings.Replace(string(data), "value-0", "value-X", 1)))
	for _, tc := range []struct {
		path string
		opt  runtime.Option
		want error
	}{
		{path, runtime.Trust{Node: "other.example.com"}, runtime.ErrWrongNode},
		{path, runtime.Trust{Verifier: v}, runtime.ErrUnsigned},
		{damaged, runtime.Trust{}, format.ErrCorrupt},
	} {
		if _, err := runtime.OpenPeek(tc.path, nil, tc.opt); !errors.Is(err, tc.want) {
			t.Errorf("OpenPeek(%s, %+v) = %v, want %v", filepath.Base(tc.path), tc.opt, err, tc.want)
		}
	}
}

// TestOpenPeekHashed: with a Hashed, a file read again unchanged is not
// hashed again, but one replaced (another file, the same header) is.
func TestOpenPeekHashed(t *testing.T) {
	data, err := encode.Encode(Synthetic(3))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	path := writePeekFile(t, dir, "node.example.com", data)
	var h runtime.Hashed
	for range 2 {
		if _, err := runtime.OpenPeek(path, &h); err != nil {
			t.Fatal(err)
		}
	}
	damaged := writePeekFile(t, t.TempDir(), "node.example.com", []byte(strings.Replace(string(data), "value-0", "value-X", 1)))
	st, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(damaged, st.ModTime(), st.ModTime()); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(damaged, path); err != nil {
		t.Fatal(err)
	}
	if _, err := runtime.OpenPeek(path, &h); !errors.Is(err, format.ErrCorrupt) {
		t.Errorf("OpenPeek of a file replaced by a damaged one = %v, want ErrCorrupt", err)
	}
}
