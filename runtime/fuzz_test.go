package runtime_test

import (
	"errors"
	"os"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/hieracc/hieracc/format"
	"github.com/hieracc/hieracc/format/encode"
	. "github.com/hieracc/hieracc/format/formattest"
	"github.com/hieracc/hieracc/format/trust"
	"github.com/hieracc/hieracc/runtime"
	"github.com/hieracc/hieracc/runtime/explain"
	"github.com/hieracc/hieracc/runtime/render"
)

// FuzzOpen opens arbitrary bytes: mostly a test of the header and the
// checks before the digest. Seeds: testdata/fuzz/FuzzOpen.
//
// Signed and sealed bundles too: the committed version 4 sample (signed,
// its secrets sealed) is a seed, and each input is also opened with its
// signer's public key and its node's private key.
func FuzzOpen(f *testing.F) {
	data, err := encode.Encode(Sample())
	if err != nil {
		f.Fatal(err)
	}
	f.Add(data)
	const fixtures = "../format/testdata/trust"
	sealed, err := os.ReadFile("../format/testdata/v4-sealed.bundle")
	if err != nil {
		f.Fatal(err)
	}
	f.Add(sealed)
	v, err := trust.ReadKeyVerifier(fixtures + "/signer/ed25519.pub")
	if err != nil {
		f.Fatal(err)
	}
	key, _, err := trust.ReadPrivateKey(fixtures + "/ssl/private_keys/web01.example.com.pem")
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if b, err := runtime.OpenBytes(data, runtime.Trust{Verifier: v, Key: key}); err == nil {
			exercise(t, b, "ntp::servers")
		}
		b, err := runtime.OpenBytes(data)
		if err != nil {
			return
		}
		exercise(t, b, "ntp::servers")
	})
}

// FuzzLookup opens mutated bodies sealed with a correct digest, so that
// the decoder and the lookups behind it see hostile but verified bundles,
// then looks up every key every way. Seeds: testdata/fuzz/FuzzLookup.
func FuzzLookup(f *testing.F) {
	for _, b := range []*format.Bundle{testBundle(), Synthetic(30)} {
		data, err := encode.Encode(b)
		if err != nil {
			f.Fatal(err)
		}
		_, _, _, _, body, err := Split(data)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(body, "users.alice.uid")
	}
	ob, _ := optionsBundle() // failing lookup_options (format version 4)
	data, err := encode.Encode(ob)
	if err != nil {
		f.Fatal(err)
	}
	_, _, _, _, body, err := Split(data)
	if err != nil {
		f.Fatal(err)
	}
	f.Add(body, "ntp::servers.9")
	f.Fuzz(func(t *testing.T, body []byte, key string) {
		// The committed seeds are version 1 bodies: both versions are read.
		b, err := runtime.OpenBytes(Seal(format.Version, "n", "e", "r", body))
		if err != nil {
			if b, err = runtime.OpenBytes(Seal(1, "n", "e", "r", body)); err != nil {
				return
			}
		}
		exercise(t, b, key)
	})
}

// exercise calls everything that reads b; it must not panic. Values that
// expand to many nodes (the format allows 2^24) are not rendered or merged:
// that would be slow, not wrong, and would stall the fuzzer.
func exercise(t *testing.T, b *runtime.Bundle, extra string) {
	d, err := b.Details()
	if err != nil {
		return
	}
	large := map[string]bool{}
	for _, k := range d.Keys {
		n := 1000
		n = budget(k.Value, n)
		for _, c := range append(k.Contributions, k.Defaults...) {
			n = budget(c.Value, n)
		}
		large[k.Name] = n < 0
	}
	keys := append(b.Keys(), extra)
	merges := []*format.Merge{nil, {}, {Strategy: "unique"}, {Strategy: "hash"}, {Strategy: "deep", KnockoutPrefix: "--", SortMergedArrays: true, MergeHashArrays: true}}
	for _, k := range keys {
		for _, key := range []string{k, k + ".0", k + ".a"} {
			v, err := b.Lookup(key)
			if large[k] {
				continue
			}
			if err == nil {
				for _, f := range []render.Format{render.JSON, render.YAML, render.Text} {
					render.As(v, f)
				}
			}
			for _, m := range merges {
				b.LookupWith(key, runtime.Options{Merge: m, HasDefault: true})
			}
		}
		explain.Key(b, k)
	}
}

// budget returns n less the nodes of v, or a negative number once spent.
func budget(v any, n int) int {
	n--
	if n < 0 {
		return n
	}
	switch v := v.(type) {
	case []any:
		for _, x := range v {
			if n = budget(x, n); n < 0 {
				return n
			}
		}
	case *format.Hash:
		for k, x := range v.All() {
			if n = budget(k, n); n < 0 {
				return n
			}
			if n = budget(x, n); n < 0 {
				return n
			}
		}
	}
	return n
}

// FuzzAttachSharedDetails gives a bundle whose details continue in a
// shared details file arbitrary bytes as that file: only a file with the
// digest the bundle names is taken, nothing panics, and a bundle refused
// its file still answers plain lookups.
func FuzzAttachSharedDetails(f *testing.F) {
	data, sh := encodeShared(f, testBundle())
	f.Add(sh.Data)
	f.Add(data)
	whole := open(f, testBundle())
	want, err := whole.Details()
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, shared []byte) {
		b, err := runtime.OpenBytes(data)
		if err != nil {
			t.Fatal(err)
		}
		if err := b.AttachSharedDetails(shared); err != nil {
			if _, err := b.Details(); !errors.Is(err, runtime.ErrNoSharedDetails) {
				t.Fatalf("Details after a refused file: %v", err)
			}
			if v, err := b.Lookup("ntp::service"); v != "ntpd" || err != nil {
				t.Fatalf("Lookup after a refused file = %v, %v", v, err)
			}
			return
		}
		got, err := b.Details()
		if err != nil {
			t.Fatalf("Details of an attached file: %v", err)
		}
		if d := cmp.Diff(want.Keys, got.Keys, Cmp); d != "" {
			t.Fatalf("another file's details attached (-want +got):\n%s", d)
		}
		exercise(t, b, "ntp::cfg.fallback")
	})
}
