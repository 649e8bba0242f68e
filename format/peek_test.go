package format_test

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/hieracc/hieracc/format"
	"github.com/hieracc/hieracc/format/encode"
	. "github.com/hieracc/hieracc/format/formattest"
)

// peekBundles are bundles of every version and feature, encoded.
func peekBundles(t testing.TB) map[string][]byte {
	t.Helper()
	out := map[string][]byte{}
	files, err := filepath.Glob("testdata/v*.bundle")
	if err != nil || len(files) < 10 {
		t.Fatalf("testdata bundles: %v, %d", err, len(files))
	}
	for _, f := range files {
		if out[f], err = os.ReadFile(f); err != nil {
			t.Fatal(err)
		}
	}
	for name, b := range map[string]*format.Bundle{"Sample": Sample(), "Synthetic(400)": Synthetic(400), "v4": sampleV4()} {
		if out[name], err = encode.Encode(b); err != nil {
			t.Fatal(err)
		}
	}
	return out
}

// indexKey is what a KeyReader's Key and DecodeIndex's Keys must agree on.
type indexKey struct {
	Name                          string
	Value                         any
	Err                           *format.Error
	Sensitive, Converts, Asked    bool
	Ciphertext                    string
	Sealed, Secret, DetailsShared bool
}

func asIndexKey(k format.IndexKey) indexKey {
	return indexKey{k.Name, k.Value, k.Err, k.Sensitive, k.Converts, k.Asked, k.Ciphertext, k.Sealed, k.Secret(), k.DetailsShared()}
}

// TestKeyReader reads every key of bundles of every version with a
// KeyReader, in an order other than the table's, and names it lacks
// (before, between and after its names): each as DecodeIndex reads it.
func TestKeyReader(t *testing.T) {
	for name, data := range peekBundles(t) {
		t.Run(filepath.Base(name), func(t *testing.T) {
			x, err := format.DecodeIndex(data)
			if err != nil {
				t.Fatal(err)
			}
			kr, err := format.NewKeyReader(data, nil, nil)
			if err != nil {
				t.Fatal(err)
			}
			if kr.Header != x.Header || kr.NodeError != x.NodeError && *kr.NodeError != *x.NodeError || len(kr.ModuleErrors) != len(x.ModuleErrors) {
				t.Errorf("KeyReader's header or errors differ from DecodeIndex's")
			}
			for i := range x.Keys {
				want := x.Keys[len(x.Keys)-1-i]
				got, found, err := kr.Key(want.Name)
				if err != nil || !found {
					t.Fatalf("Key(%q) = %v, %v", want.Name, found, err)
				}
				if d := cmp.Diff(asIndexKey(want), asIndexKey(got), Cmp); d != "" {
					t.Errorf("Key(%q) (-DecodeIndex +KeyReader):\n%s", want.Name, d)
				}
				for _, absent := range []string{want.Name + "\x00", want.Name[:len(want.Name)/2], "\x00" + want.Name, want.Name + "~"} {
					if x.Find(absent) >= 0 {
						continue
					}
					if _, found, err := kr.Key(absent); found || err != nil {
						t.Errorf("Key(%q) = %v, %v, want not found", absent, found, err)
					}
				}
			}
			for _, absent := range []string{"", "\xff", "~"} {
				if _, found, err := kr.Key(absent); x.Find(absent) < 0 && (found || err != nil) {
					t.Errorf("Key(%q) = %v, %v, want not found", absent, found, err)
				}
			}
		})
	}
}

// TestKeyReaderViews: KeyReaders sharing a ViewOffsets, each bundle read
// by two (the second from the offsets the first left of its view), its
// keys from the last and from the first, answer as DecodeIndex does.
func TestKeyReaderViews(t *testing.T) {
	var views format.ViewOffsets
	bundles := peekBundles(t)
	for _, n := range []int{50, 400} { // views of many entries
		data, _, err := encode.EncodeShared(Synthetic(n), encode.Protection{})
		if err != nil {
			t.Fatal(err)
		}
		bundles[fmt.Sprintf("Synthetic(%d), shared", n)] = data
	}
	for name, data := range bundles {
		x, err := format.DecodeIndex(data)
		if err != nil {
			t.Fatal(err)
		}
		for round := range 2 {
			kr, err := format.NewKeyReader(data, nil, &views)
			if err != nil {
				t.Fatal(err)
			}
			for i := range x.Keys {
				want := x.Keys[i]
				if round == 0 {
					want = x.Keys[len(x.Keys)-1-i]
				}
				got, found, err := kr.Key(want.Name)
				if err != nil || !found {
					t.Fatalf("%s, reader %d: Key(%q) = %v, %v", filepath.Base(name), round, want.Name, found, err)
				}
				if d := cmp.Diff(asIndexKey(want), asIndexKey(got), Cmp); d != "" {
					t.Errorf("%s, reader %d: Key(%q) (-DecodeIndex +KeyReader):\n%s", filepath.Base(name), round, want.Name, d)
				}
			}
		}
	}
}

// TestKeyReaderLargeValue: a value of more entries than a KeyReader
// decodes on its own fails Key, which does not check the limits
// DecodeIndex holds every value to; the other keys read.
func TestKeyReaderLargeValue(t *testing.T) {
	big := make([]any, 5000)
	for i := range big {
		big[i] = A(int64(i))
	}
	b := &format.Bundle{Node: "n", Keys: []format.Key{{Name: "big", Value: big}, {Name: "small", Value: A("x")}}}
	data, err := encode.Encode(b)
	if err != nil {
		t.Fatal(err)
	}
	kr, err := format.NewKeyReader(data, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := kr.Key("big"); !errors.Is(err, format.ErrCorrupt) || !strings.Contains(err.Error(), "more than 4096 entries") {
		t.Errorf(`Key("big") = %v, want an error: too large to read alone`, err)
	}
	if k, found, err := kr.Key("small"); !found || err != nil || !cmp.Equal(k.Value, A("x")) {
		t.Errorf(`Key("small") = %v, %v, %v`, k.Value, found, err)
	}
}

// TestKeyReaderHashed: bytes the caller says it hashed before are not
// hashed again; others are, and a damaged body is refused.
func TestKeyReaderHashed(t *testing.T) {
	data := sample(t)
	damaged := []byte(strings.Replace(string(data), "ntpd", "ntpe", 1)) // a value
	x, err := format.DecodeIndex(data)
	if err != nil {
		t.Fatal(err)
	}
	var asked [][32]byte
	seen := func(d [32]byte) bool { asked = append(asked, d); return true }
	if _, err := format.NewKeyReader(damaged, seen, nil); err != nil {
		t.Errorf("NewKeyReader of bytes hashed before = %v, want no hashing", err)
	}
	if len(asked) != 1 || asked[0] != x.Digest {
		t.Errorf("hashed asked of %x, want the header's digest %x", asked, x.Digest)
	}
	no := func([32]byte) bool { return false }
	for _, hashed := range []func([32]byte) bool{nil, no} {
		if _, err := format.NewKeyReader(damaged, hashed, nil); !errors.Is(err, format.ErrCorrupt) {
			t.Errorf("NewKeyReader of a damaged body = %v, want ErrCorrupt", err)
		}
	}
}

// FuzzKeyReader reads mutated bodies sealed with a correct digest: no
// panic, and a key of a bundle DecodeIndex reads is what DecodeIndex
// says, or an error.
func FuzzKeyReader(f *testing.F) {
	for _, data := range peekBundles(f) {
		if _, _, _, _, body, err := Split(data); err == nil {
			f.Add(body, "ntp::servers")
		}
	}
	var views format.ViewOffsets // shared by the inputs: offsets of views seen before
	f.Fuzz(func(t *testing.T, body []byte, name string) {
		data := Seal(format.Version, "n", "e", "r", body)
		kr, err := format.NewKeyReader(data, nil, &views)
		if err != nil {
			return
		}
		got, found, kerr := kr.Key(name)
		x, err := format.DecodeIndex(data)
		if err != nil {
			for _, k := range []string{"a", "zzz", "ntp::servers"} {
				kr.Key(k)
			}
			return
		}
		i := x.Find(name)
		switch {
		case kerr != nil:
		case found != (i >= 0):
			t.Fatalf("Key(%q) found %v, DecodeIndex's Find %d", name, found, i)
		case found:
			if d := cmp.Diff(asIndexKey(x.Keys[i]), asIndexKey(got), Cmp); d != "" {
				t.Fatalf("Key(%q) (-DecodeIndex +KeyReader):\n%s", name, d)
			}
		}
		for _, k := range x.Keys {
			if got, found, err := kr.Key(k.Name); err == nil && (!found || !cmp.Equal(asIndexKey(k), asIndexKey(got), Cmp)) {
				t.Fatalf("Key(%q) = %v, found %v: not DecodeIndex's", k.Name, got.Value, found)
			}
		}
	})
}

// TestKeyReaderConcurrent reads keys of one KeyReader from goroutines at
// once (go test -race): the entries' offsets it keeps are shared.
func TestKeyReaderConcurrent(t *testing.T) {
	data, err := encode.Encode(Synthetic(200))
	if err != nil {
		t.Fatal(err)
	}
	x, err := format.DecodeIndex(data)
	if err != nil {
		t.Fatal(err)
	}
	kr, err := format.NewKeyReader(data, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	errs := make(chan error, 4)
	for g := range 4 {
		go func() {
			for i := range x.Keys {
				k := &x.Keys[(i*7+g*50)%len(x.Keys)]
				if got, found, err := kr.Key(k.Name); err != nil || !found || !cmp.Equal(got.Value, k.Value, Cmp) {
					errs <- fmt.Errorf("Key(%q) = %v, %v, %v, want %v", k.Name, got.Value, found, err, k.Value)
					return
				}
			}
			errs <- nil
		}()
	}
	for range 4 {
		if err := <-errs; err != nil {
			t.Error(err)
		}
	}
}
