package format_test

import (
	"bytes"
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/vmihailenco/msgpack/v5"

	"github.com/hieracc/hieracc/format"
	"github.com/hieracc/hieracc/format/encode"
	. "github.com/hieracc/hieracc/format/formattest"
)

func sample(t testing.TB) []byte {
	data, err := encode.Encode(Sample())
	if err != nil {
		t.Fatal(err)
	}
	return data
}

func TestDecodeErrors(t *testing.T) {
	data := sample(t)
	v9 := bytes.Clone(data)
	v9[15] = 9 // the version follows the 15-byte magic
	tests := []struct {
		name string
		data []byte
		is   error
		want string
	}{
		{"empty", nil, format.ErrNotBundle, "too short"},
		{"text", []byte("hello, world, this is text"), format.ErrNotBundle, "bad magic"},
		{"half magic", data[:7], format.ErrCorrupt, "truncated in the magic"},
		{"version 9", v9, format.ErrVersion, "unsupported bundle format version 9 (this reader reads versions 1 to 7)"},
		{"no header", data[:16], format.ErrCorrupt, "truncated"},
		{"no body", data[:len(data)-len(bodyOf(t, data))], format.ErrCorrupt, "truncated"},
		{"short body", data[:len(data)-1], format.ErrCorrupt, "truncated"},
		{"trailing", append(bytes.Clone(data), 0), format.ErrCorrupt, "1 bytes after the end"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := format.Decode(tt.data)
			if !errors.Is(err, tt.is) || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("Decode = %v, want %v containing %q", err, tt.is, tt.want)
			}
		})
	}
}

func bodyOf(t testing.TB, data []byte) []byte {
	_, _, _, _, body, err := Split(data)
	if err != nil {
		t.Fatal(err)
	}
	return body
}

// Every truncation and every single-bit flip is detected: the header has a
// checksum and the body a digest.
func TestTruncatedAndFlipped(t *testing.T) {
	data := sample(t)
	for n := range len(data) {
		if _, err := format.Decode(data[:n]); err == nil {
			t.Fatalf("Decode of the first %d bytes succeeded", n)
		}
	}
	for i := range len(data) * 8 {
		d := bytes.Clone(data)
		d[i/8] ^= 1 << (i % 8)
		_, err := format.Decode(d)
		if err == nil {
			t.Fatalf("flipping bit %d of byte %d went unnoticed", i%8, i/8)
		}
		if !errors.Is(err, format.ErrCorrupt) && !errors.Is(err, format.ErrNotBundle) && !errors.Is(err, format.ErrVersion) {
			t.Fatalf("flip at byte %d: error %v matches no sentinel", i/8, err)
		}
	}
}

// Hostile bodies with a valid digest: counts and lengths beyond the input
// are refused before allocating.
func TestHostileBodies(t *testing.T) {
	enc := func(f func(e *msgpack.Encoder)) []byte {
		var b bytes.Buffer
		f(msgpack.NewEncoder(&b))
		return b.Bytes()
	}
	raw := func(b ...byte) []byte { return append(b, make([]byte, 16)...) } // padding: fixarray counts are checked against the bytes left
	tests := []struct {
		name string
		body []byte
		want string
	}{
		{"empty body", nil, "truncated"},
		{"not an array", raw(0xc0), "want array, found nil"},
		{"huge array", raw(0xdd, 0xff, 0xff, 0xff, 0xff), "length 4294967295 exceeds"},
		{"huge values", raw(0x97, 0xdd, 0xff, 0xff, 0xff, 0xf0, 0xc0), "length 4294967280 exceeds"},
		{"huge string", raw(0x97, 0x91, 0xdb, 0xff, 0xff, 0xff, 0xff, 'a'), "string of 4294967295 bytes"},
		{"huge map", raw(0x97, 0x91, 0xdf, 0x7f, 0xff, 0xff, 0xff, 0), "length 2147483647 exceeds"},
		{"forward reference", raw(0x97, 0x92, 0xc0, 0x91, 0x01), "value reference 1 out of range [0, 0]"},
		{"self reference", raw(0x97, 0x91, 0x91, 0x00), "value reference, but there are none"},
		{"ext value", raw(0x97, 0x91, 0xd4, 0x01, 0x00), "unsupported type 0xd4"},
		{"array key", raw(0x97, 0x92, 0x90, 0x81, 0x00, 0x00), "hash key 0 is not a scalar"},
		{"nan key", raw(0x97, 0x92, 0xcb, 0x7f, 0xf8, 0, 0, 0, 0, 0, 1, 0x81, 0x00, 0x00), "not a scalar (or is NaN)"},
		{"duplicate key", raw(0x97, 0x92, 0xa1, 'k', 0x82, 0x00, 0x00, 0x00, 0x00), "duplicate hash key 0"},
		{"uint64 overflow", raw(0x97, 0x91, 0xcf, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff), "overflows int64"},
		{"deep", enc(func(e *msgpack.Encoder) {
			e.EncodeArrayLen(7)
			e.EncodeArrayLen(format.MaxDepth + 1)
			e.EncodeArrayLen(0)
			for i := range format.MaxDepth {
				e.EncodeArrayLen(1)
				e.EncodeUint(uint64(i))
			}
		}), "nested deeper than 10000"},
		{"expanding", enc(func(e *msgpack.Encoder) {
			e.EncodeArrayLen(7)
			e.EncodeArrayLen(31)
			e.EncodeNil()
			for i := range 30 {
				e.EncodeArrayLen(2)
				e.EncodeUint(uint64(i))
				e.EncodeUint(uint64(i))
			}
		}), "more than 16777216 nodes"},
		{"unsorted keys", enc(func(e *msgpack.Encoder) {
			e.EncodeArrayLen(7)
			e.EncodeArrayLen(1)
			e.EncodeNil()
			e.EncodeArrayLen(0)
			e.EncodeNil()
			e.EncodeArrayLen(0)
			e.EncodeArrayLen(2)
			for _, k := range []string{"b", "a"} {
				e.EncodeArrayLen(3)
				e.EncodeString(k)
				e.EncodeUint(0)
				e.EncodeNil()
			}
		}), `keys not sorted: "a" after "b"`},
		{"key with both", enc(func(e *msgpack.Encoder) {
			e.EncodeArrayLen(7)
			e.EncodeArrayLen(1)
			e.EncodeNil()
			e.EncodeArrayLen(1)
			e.EncodeArrayLen(5)
			e.EncodeString("m")
			e.EncodeString("f")
			e.EncodeInt(1)
			e.EncodeInt(1)
			e.EncodeString("l")
			e.EncodeNil()
			e.EncodeArrayLen(0)
			e.EncodeArrayLen(1)
			e.EncodeArrayLen(3)
			e.EncodeString("k")
			e.EncodeUint(0)
			e.EncodeUint(0)
		}), `key "k" must have exactly one of value and error`},
		{"bad index", enc(func(e *msgpack.Encoder) {
			e.EncodeArrayLen(7)
			e.EncodeArrayLen(1)
			e.EncodeNil()
			e.EncodeArrayLen(0)
			e.EncodeNil()
			e.EncodeArrayLen(0)
			e.EncodeArrayLen(1)
			e.EncodeArrayLen(3)
			e.EncodeString("k")
			e.EncodeUint(0)
			e.EncodeNil()
			e.EncodeBytes([]byte{0, 0, 0, 0, 0, 0, 0, 0}) // two empty slots
		}), "index holds 0 keys, want 1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := format.Decode(Seal(1, "n", "e", "r", tt.body))
			if !errors.Is(err, format.ErrCorrupt) || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("Decode = %v, want ErrCorrupt containing %q", err, tt.want)
			}
		})
	}
}

// TestSeal checks formattest.Seal, which hostile tests rely on, against
// Encode: two implementations of the header in SPEC.md.
func TestSeal(t *testing.T) {
	data := sample(t)
	if got := Reseal(data, bodyOf(t, data)); !bytes.Equal(got, data) {
		t.Error("Reseal(data, body(data)) != data")
	}
}

// FuzzDecode feeds mutated bodies with valid digests to the decoder, which
// must return an error or a bundle, never panic.
func FuzzDecode(f *testing.F) {
	data := sample(f)
	f.Add(bodyOf(f, data))
	syn, _ := encode.Encode(Synthetic(20))
	f.Add(bodyOf(f, syn))
	v3, _ := encode.Encode(sampleV3()) // key flags, convert_to, original paths, lookup_options entries
	f.Add(bodyOf(f, v3))
	v4, err := os.ReadFile("testdata/v4-sealed.bundle") // signed, with sealed keys
	if err != nil {
		f.Fatal(err)
	}
	f.Add(bodyOf(f, v4))
	v4, _ = encode.Encode(sampleV4()) // the options section
	f.Add(bodyOf(f, v4))
	v5, err := os.ReadFile("testdata/v5-sealed.bundle") // the key table, sealed keys in it
	if err != nil {
		f.Fatal(err)
	}
	f.Add(bodyOf(f, v5))
	v6, err := os.ReadFile("testdata/v6-shared.bundle") // a value table that starts with a view, key table values from two entries
	if err != nil {
		f.Fatal(err)
	}
	f.Add(bodyOf(f, v6))
	f.Fuzz(func(t *testing.T, body []byte) {
		data := Seal(format.Version, "n", "e", "r", body)
		b, err := format.Decode(data)
		if _, verr := format.Verify(bytes.NewReader(data)); verr != nil {
			t.Fatalf("Verify refuses a sealed body: %v", verr)
		}
		if err != nil {
			return
		}
		for _, k := range b.Keys {
			if k.Sealed {
				return // not unsealed: Encode refuses it, as it must
			}
		}
		// What decodes must encode again and decode to the same bundle.
		again, err := encode.Encode(b)
		if err != nil {
			t.Fatalf("decoded bundle does not encode: %v", err)
		}
		if _, err := format.Decode(again); err != nil {
			t.Fatalf("re-encoded bundle does not decode: %v", err)
		}
	})
}

// TestEveryByte replaces each byte of a valid body, in turn, with values
// that change its type or length, and reseals: decoding must fail cleanly
// or succeed, and what it returns must encode again.
func TestEveryByte(t *testing.T) {
	data := sample(t)
	body := bodyOf(t, data)
	failed := 0
	for i := range body {
		for _, c := range []byte{0x00, 0x01, 0x7f, 0x90, 0x9f, 0xc0, 0xc3, 0xcc, 0xdc, 0xff} {
			if body[i] == c {
				continue
			}
			b := bytes.Clone(body)
			b[i] = c
			got, err := format.Decode(Seal(format.Version, "n", "e", "r", b))
			if err != nil {
				if !errors.Is(err, format.ErrCorrupt) {
					t.Fatalf("byte %d = %#x: %v is not ErrCorrupt", i, c, err)
				}
				failed++
				continue
			}
			if _, err := encode.Encode(got); err != nil {
				t.Fatalf("byte %d = %#x: decoded bundle does not encode: %v", i, c, err)
			}
		}
	}
	if failed == 0 {
		t.Error("no mutation was rejected")
	}
}

func TestIndexFind(t *testing.T) {
	for _, n := range []int{0, 1, 7, 1000} {
		b := Synthetic(n)
		data, err := encode.Encode(b)
		if err != nil {
			t.Fatal(err)
		}
		x, err := format.DecodeIndex(data)
		if err != nil {
			t.Fatal(err)
		}
		for i, k := range b.Keys {
			if got := x.Find(strings.Clone(k.Name)); got != i {
				t.Errorf("n=%d: Find(%q) = %d, want %d", n, k.Name, got, i)
			}
			if got := x.Find(k.Name + "x"); got != -1 {
				t.Errorf("n=%d: Find(%q) = %d, want -1", n, k.Name+"x", got)
			}
		}
		if got := x.Find(""); got != -1 {
			t.Errorf("n=%d: Find(\"\") = %d", n, got)
		}
	}
	x, err := format.DecodeIndex(sample(t))
	if err != nil {
		t.Fatal(err)
	}
	if e := x.ModuleError("broken"); e == nil || !strings.Contains(e.Message, "module name 'broken'") {
		t.Errorf("ModuleError(broken) = %v", e)
	}
	if e := x.ModuleError("ntp"); e != nil {
		t.Errorf("ModuleError(ntp) = %v", e)
	}
}

func TestHeaderLimit(t *testing.T) {
	data := Seal(1, strings.Repeat("n", 1<<16), "e", "r", nil)
	if _, err := format.Decode(data); !errors.Is(err, format.ErrCorrupt) || !strings.Contains(err.Error(), "header longer than 65536 bytes") {
		t.Errorf("Decode = %v", err)
	}
	if _, err := format.ReadHeader(bytes.NewReader(data)); !errors.Is(err, format.ErrCorrupt) {
		t.Errorf("ReadHeader = %v", err)
	}
}

// TestVerify: Verify accepts what Decode accepts, with the same header as
// ReadHeader, in one read or many (a bundle over 64 KiB, a long header),
// and refuses every truncation, every bit flip and trailing bytes, which
// ReadHeader alone lets through when the header is intact.
func TestVerify(t *testing.T) {
	big, err := encode.Encode(Synthetic(5000))
	if err != nil {
		t.Fatal(err)
	}
	longHeader := Seal(1, strings.Repeat("n", 60000), "e", "r", bodyOf(t, big))
	for name, data := range map[string][]byte{"sample": sample(t), "big": big, "long header": longHeader} {
		t.Run(name, func(t *testing.T) {
			want, err := format.ReadHeader(bytes.NewReader(data))
			if err != nil {
				t.Fatal(err)
			}
			got, err := format.Verify(bytes.NewReader(data))
			if err != nil || got != want {
				t.Fatalf("Verify = %+v, %v; want %+v", got, err, want)
			}
			if _, err := format.Verify(bytes.NewReader(append(bytes.Clone(data), 0))); !errors.Is(err, format.ErrCorrupt) || !strings.Contains(err.Error(), "after the end") {
				t.Errorf("trailing byte: Verify = %v", err)
			}
		})
	}
	data := sample(t)
	for n := range len(data) {
		if _, err := format.Verify(bytes.NewReader(data[:n])); err == nil {
			t.Fatalf("Verify of the first %d bytes succeeded", n)
		}
	}
	for i := range len(data) * 8 {
		d := bytes.Clone(data)
		d[i/8] ^= 1 << (i % 8)
		if _, err := format.Verify(bytes.NewReader(d)); err == nil {
			t.Fatalf("flipping bit %d of byte %d went unnoticed", i%8, i/8)
		}
	}
	// What the header alone cannot tell.
	d := bytes.Clone(big)
	d[len(d)-100] ^= 1
	if _, err := format.ReadHeader(bytes.NewReader(d)); err != nil {
		t.Fatalf("ReadHeader of a bundle flipped in its body: %v", err)
	}
	if _, err := format.Verify(bytes.NewReader(d)); !errors.Is(err, format.ErrCorrupt) || !strings.Contains(err.Error(), "digest") {
		t.Errorf("flipped body: Verify = %v", err)
	}
	if _, err := format.Verify(bytes.NewReader(big[:len(big)-70000])); !errors.Is(err, format.ErrCorrupt) || !strings.Contains(err.Error(), "truncated") {
		t.Errorf("truncated: Verify = %v", err)
	}
}

// FuzzVerify feeds whole files, header included, to Verify: it must never
// panic, and it agrees with DecodeIndex on everything but the body's
// structure: what DecodeIndex accepts, Verify accepts with the same header.
func FuzzVerify(f *testing.F) {
	data := sample(f)
	f.Add(data)
	f.Add(data[:len(data)/2])
	f.Add(append(bytes.Clone(data), 0))
	big, _ := encode.Encode(Synthetic(2000))
	f.Add(big)
	for _, v := range []string{"v4-sealed", "v5-sealed", "v6-sealed", "v6-shared"} { // signed and sealed; a view
		if data, err := os.ReadFile("testdata/" + v + ".bundle"); err == nil {
			f.Add(data)
		}
	}
	f.Fuzz(func(t *testing.T, file []byte) {
		h, err := format.Verify(bytes.NewReader(file))
		x, derr := format.DecodeIndex(file)
		if derr == nil && (err != nil || h != x.Header) {
			t.Fatalf("DecodeIndex accepts what Verify refuses: %v (%+v vs %+v)", err, h, x.Header)
		}
		if err == nil && (h.Size > int64(len(file)) || h.Version < 4 && h.Size != int64(len(file))) {
			t.Fatalf("Verify accepts %d bytes as a bundle of %d", len(file), h.Size)
		}
	})
}
