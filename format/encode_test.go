package format_test

import (
	"bytes"
	"crypto"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/vmihailenco/msgpack/v5"

	"github.com/hieracc/hieracc/format"
	"github.com/hieracc/hieracc/format/encode"
	. "github.com/hieracc/hieracc/format/formattest"
)

var update = flag.Bool("update", false, "rewrite the newest version's testdata/v<N>.bundle")

func TestRoundTrip(t *testing.T) {
	tests := []struct {
		name string
		b    *format.Bundle
	}{
		{"sample", Sample()},
		{"empty", &format.Bundle{}},
		{"node error only", &format.Bundle{Node: "n", NodeError: &format.Error{Message: "boom", Pos: format.Pos{File: "data/bad.yaml", Line: 1, Column: 2}, Level: "L"}}},
		{"synthetic", Synthetic(300)},
		{"long strings", &format.Bundle{Node: strings.Repeat("n", 1000), Keys: []format.Key{
			{Name: strings.Repeat("k", 300), Value: strings.Repeat("v", 70000)},
			{Name: strings.Repeat("l", 300), Value: A(strings.Repeat("w", 300))},
		}}},
		{"big collections", &format.Bundle{Keys: []format.Key{{Name: "a", Value: bigArray(70000)}, {Name: "h", Value: bigHash(70000)}}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			data, err := encode.Encode(tt.b)
			if err != nil {
				t.Fatal(err)
			}
			got, err := format.Decode(data)
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(tt.b, got, Cmp); d != "" {
				t.Errorf("round trip (-want +got):\n%s", d)
			}
			// The option that makes nil equal empty must not hide a wrong
			// type: check the scalar types exactly.
			for i, k := range got.Keys {
				checkTypes(t, k.Name, tt.b.Keys[i].Value, k.Value)
			}
		})
	}
}

func bigArray(n int) []any {
	a := make([]any, n)
	for i := range a {
		a[i] = int64(i)
	}
	return a
}

func bigHash(n int) *format.Hash {
	h := format.NewHash(n)
	for i := range n {
		h.Set(fmt.Sprint("k", i), int64(n-i))
	}
	return h
}

func checkTypes(t *testing.T, path string, want, got any) {
	t.Helper()
	if fmt.Sprintf("%T", want) != fmt.Sprintf("%T", got) {
		t.Errorf("%s: type %T, want %T", path, got, want)
		return
	}
	switch w := want.(type) {
	case []any:
		for i := range w {
			checkTypes(t, fmt.Sprint(path, "[", i, "]"), w[i], got.([]any)[i])
		}
	case *format.Hash:
		g := got.(*format.Hash)
		for i := range w.Len() {
			checkTypes(t, fmt.Sprint(path, ".key", i), w.Key(i), g.Key(i))
			checkTypes(t, fmt.Sprint(path, ".", w.Key(i)), w.Value(i), g.Value(i))
		}
	case float64:
		if math.Float64bits(w) != math.Float64bits(got.(float64)) && !math.IsNaN(w) {
			t.Errorf("%s: %v, want %v", path, got, w)
		}
	}
}

func TestDeterministic(t *testing.T) {
	a, err := encode.Encode(Sample())
	if err != nil {
		t.Fatal(err)
	}
	for range 5 {
		b, err := encode.Encode(Sample()) // equal content, new pointers, new map seeds
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(a, b) {
			t.Fatal("two encodings of the same bundle differ")
		}
	}
}

// TestDedup checks that a value repeated across keys is stored once.
func TestDedup(t *testing.T) {
	value := func() any { // a fresh copy each call: equal, not shared
		a := make([]any, 50)
		for i := range a {
			a[i] = fmt.Sprintf("a fairly long string, number %d", i)
		}
		return H("list", a, "n", int64(1))
	}
	bundle := func(n int) *format.Bundle {
		b := &format.Bundle{}
		for i := range n {
			v := value()
			b.Keys = append(b.Keys, format.Key{Name: fmt.Sprintf("key%04d", i), Value: v,
				Contributions: []format.Contribution{{Value: value()}}})
		}
		return b
	}
	one, err := encode.Encode(bundle(1))
	if err != nil {
		t.Fatal(err)
	}
	many, err := encode.Encode(bundle(200))
	if err != nil {
		t.Fatal(err)
	}
	perKey := (len(many) - len(one)) / 199
	if perKey > 64 { // name, index slots, entries: the value itself is ~1.7 kB
		t.Errorf("each repeated key costs %d bytes: values are not deduplicated", perKey)
	}
	got, err := format.Decode(many)
	if err != nil {
		t.Fatal(err)
	}
	if got.Keys[0].Value != got.Keys[199].Value || got.Keys[0].Value != got.Keys[5].Contributions[0].Value {
		t.Error("decoded repeated values are not shared")
	}
}

// TestMsgpack checks that a bundle is a plain msgpack stream (magic,
// version, header, body) that any msgpack library reads.
func TestMsgpack(t *testing.T) {
	data, err := encode.Encode(Sample())
	if err != nil {
		t.Fatal(err)
	}
	d := msgpack.NewDecoder(bytes.NewReader(data))
	d.SetMapDecoder(func(d *msgpack.Decoder) (any, error) { return d.DecodeUntypedMap() })
	var got []any
	for {
		v, err := d.DecodeInterface()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, v)
	}
	if len(got) != 5 || got[0] != "hieracc-bundle" || fmt.Sprint(got[1]) != fmt.Sprint(format.Version) || got[4] != nil {
		t.Fatalf("stream = %d values starting %v %v, want magic, version, header, body, signature (nil)", len(got), got[0], got[1])
	}
	if body, ok := got[3].([]any); !ok || len(body) != 9 {
		t.Fatalf("body = %T, want array of 9 sections", got[3])
	}
	v, node, env, rev, _, err := Split(data)
	if err != nil || v != format.Version || node != "web01.example.com" || env != "production" || rev != "rev-1" {
		t.Errorf("Split = %d %q %q %q %v", v, node, env, rev, err)
	}
}

func TestEncodeErrors(t *testing.T) {
	deep := any("leaf")
	for range format.MaxDepth + 1 {
		deep = []any{deep}
	}
	wide := H("x", int64(1))
	for i := range 25 { // 2^25 nodes once expanded
		wide = H("a", wide, "b", wide, "i", int64(i))
	}
	tests := []struct {
		name string
		b    *format.Bundle
		want string
	}{
		{"unsorted keys", &format.Bundle{Keys: []format.Key{{Name: "b"}, {Name: "a"}}}, `Keys not sorted and unique: "b" before "a"`},
		{"duplicate keys", &format.Bundle{Keys: []format.Key{{Name: "a"}, {Name: "a"}}}, `Keys not sorted`},
		{"unsorted modules", &format.Bundle{Modules: []format.Module{{Name: "z"}, {Name: "a"}}}, `Modules not sorted`},
		{"int", &format.Bundle{Keys: []format.Key{{Name: "a", Value: 1}}}, `key "a": unsupported value type int`},
		{"go map", &format.Bundle{Keys: []format.Key{{Name: "a", Value: A(map[string]any{})}}}, `unsupported value type map[string]interface {}`},
		{"nil hash", &format.Bundle{Keys: []format.Key{{Name: "a", Value: (*format.Hash)(nil)}}}, `nil *Hash`},
		{"contribution", &format.Bundle{Keys: []format.Key{{Name: "a", Contributions: []format.Contribution{{Value: int32(1)}}}}}, `contribution 0: unsupported value type int32`},
		{"layer", &format.Bundle{Keys: []format.Key{{Name: "a", Defaults: []format.Contribution{{Layer: 7}}}}}, `unknown layer 7`},
		{"too deep", &format.Bundle{Keys: []format.Key{{Name: "a", Value: deep}}}, `nested deeper than 10000`},
		{"too big", &format.Bundle{Keys: []format.Key{{Name: "a", Value: wide}}}, `more than 16777216 nodes`},
		{"long header", &format.Bundle{Revision: strings.Repeat("r", 1<<16)}, `header of`},
		{"asked without \"\"", &format.Bundle{Keys: []format.Key{{Name: "n", Asked: []format.Asked{{Text: "n.b"}}}}}, `Asked does not start with ""`},
		{"empty asked", &format.Bundle{Keys: []format.Key{{Name: "n", Asked: []format.Asked{}}}}, `Asked does not start with ""`},
		{"asked unsorted", &format.Bundle{Keys: []format.Key{{Name: "n", Asked: []format.Asked{{}, {Text: "n.b"}, {Text: "n.a"}}}}}, `Asked not sorted and unique: "n.b" before "n.a"`},
		// A key refused by its convert_to or asked is reported before keys
		// out of order, wherever it is.
		{"unsorted keys and a bad convert_to", &format.Bundle{Keys: []format.Key{{Name: "b"}, {Name: "a"}, {Name: "c", ConvertTo: []format.Value{int64(1)}}}}, `key "c": convert_to must be`},
		{"asked contribution", &format.Bundle{Keys: []format.Key{{Name: "n", Asked: []format.Asked{{Defaults: []format.Contribution{{Value: int32(1)}}}}}}}, `asked as "": contribution 0`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := encode.Encode(tt.b)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("Encode error = %v, want %q", err, tt.want)
			}
		})
	}
}

func TestMaxDepthRoundTrips(t *testing.T) {
	deep := any("leaf")
	for range format.MaxDepth {
		deep = []any{deep}
	}
	data, err := encode.Encode(&format.Bundle{Keys: []format.Key{{Name: "a", Value: deep}}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := format.Decode(data); err != nil {
		t.Fatal(err)
	}
}

// sampleV2 is the sample of version 2: version 1's, with a secret key.
func sampleV2() *format.Bundle {
	b := Sample()
	b.Keys[0].Secret = true
	b.Keys[1].ConvertTo = []format.Value{"Sensitive"}
	b.Keys[2].ConvertTo = []format.Value{"Array", true}
	return b
}

// sampleV3 is the sample of version 3: version 2's, with each location's
// original path, the lookup_options entry of the keys that have a merge,
// and a key that looks itself up.
func sampleV3() *format.Bundle {
	b := sampleV2()
	for i := range b.Keys {
		if b.Keys[i].Merge != (format.Merge{}) {
			b.Keys[i].MergeFrom = &format.OptionsEntry{Entry: "^" + b.Keys[i].Name[:1], Pos: format.Pos{File: "data/common.yaml", Line: 2, Column: 3}, Level: "Common"}
		}
	}
	for _, h := range []*format.Hierarchy{&b.Global, &b.Env} {
		for i := range h.Levels {
			for j := range h.Levels[i].Locations {
				h.Levels[i].Locations[j].Original = fmt.Sprintf("%%{facts.level%d}/%d.yaml", i, j)
			}
		}
	}
	// A key whose data looks itself up: what a dotted lookup reads.
	k := &b.Keys[slices.IndexFunc(b.Keys, func(k format.Key) bool { return k.Name == "users" })]
	k.Asked = []format.Asked{{Contributions: k.Contributions}, {Text: k.Name + ".x", Contributions: []format.Contribution{{Err: &format.Error{Message: "Recursive lookup detected in [" + k.Name + ".x]"}}}}}
	return b
}

// sampleV4 is the sample of version 4: version 3's, with a
// lookup_options entry named as its key and two keys sharing a merge and a
// lookup_options source (the compact details section), and lookup_options
// that fail keys it does not hold, for the environment, a module and its
// default_hierarchy (one failing as a whole).
func sampleV4() *format.Bundle {
	b := sampleV3()
	for i := range b.Keys {
		k := &b.Keys[i]
		switch k.Name {
		case "users":
			k.MergeFrom.Entry = k.Name
		case "classes":
			k.MergeFrom.File, k.MergeFrom.Level = "data/os/Debian.yaml", "Per-OS"
		case "ntp::servers":
			k.Merge = format.Merge{Strategy: "deep"}
			k.MergeFrom = &format.OptionsEntry{Entry: k.Name, Pos: format.Pos{File: "data/common.yaml", Line: 9, Column: 3}, Level: "Common"}
		}
	}
	bad := &format.Error{Message: "Unknown merge strategy: 'deeep'", Pos: format.Pos{File: "data/common.yaml", Line: 4, Column: 5}, Level: "Common"}
	b.Options = []format.OptionScope{
		{Literal: []format.OptionEntry{{Name: "a", Err: bad}, {Name: "rx"}}, Pattern: []format.OptionEntry{{Name: "^s"}, {Name: "^r", Err: bad}}},
		{Module: "ntp"},
		{Module: "ntp", Default: true, Err: &format.Error{Message: "value of lookup_options must be a hash", Pos: format.Pos{File: "data/defaults.yaml", Line: 2, Column: 1}, Level: "Defaults"}},
	}
	return b
}

// TestAskedAs: a dotted text the key's data looks up has its own entry;
// any other reads the entry "".
func TestAskedAs(t *testing.T) {
	k := &format.Key{Name: "n", Asked: []format.Asked{{}, {Text: "n.b"}, {Text: "n.c.d"}}}
	for text, want := range map[string]string{"n.b": "n.b", "n.c.d": "n.c.d", "n.c": "", "n.a": "", "n.z": "", "": ""} {
		if got := k.AskedAs(text).Text; got != want {
			t.Errorf("AskedAs(%q) = entry %q, want %q", text, got, want)
		}
	}
	if a := (&format.Key{Name: "n"}).AskedAs("n.b"); a != nil {
		t.Errorf("AskedAs of a key without Asked = %+v, want nil", a)
	}
}

// TestGoldenV1 decodes the committed version 1 bundle. It must pass
// forever: a reader that fails it can no longer read bundles in the field.
func TestGoldenV1(t *testing.T) { testGolden(t, 1, Sample()) }

// TestGoldenV2 decodes the committed version 2 bundle (key flags), and
// pins Encode's bytes while version 2 is the newest.
func TestGoldenV2(t *testing.T) { testGolden(t, 2, sampleV2()) }

// TestGoldenV3 decodes the committed version 3 bundle (original paths,
// lookup_options entries), and pinned Encode's bytes while version 3 was
// the newest.
func TestGoldenV3(t *testing.T) { testGolden(t, 3, sampleV3()) }

// TestGoldenV4 decodes the committed version 4 bundle (the compact
// details section; lookup_options that fail keys the bundle does not
// hold), and pins Encode's bytes while version 4 is the newest.
func TestGoldenV4(t *testing.T) { testGolden(t, 4, sampleV4()) }

// TestGoldenV5 decodes the committed version 5 bundle (the key table,
// no stored index: the same content as version 4's sample), and pinned
// Encode's bytes while version 5 was the newest.
func TestGoldenV5(t *testing.T) { testGolden(t, 5, sampleV5()) }

// TestGoldenV6 decodes the committed version 6 bundle (version 5's
// sample: without a shared file, the layout of version 5), and pinned
// Encode's bytes while version 6 was the newest.
func TestGoldenV6(t *testing.T) { testGolden(t, 6, sampleV5()) }

// TestGoldenV7 decodes the committed version 7 bundle (the source
// revision in the header), and pins Encode's bytes while version 7 is the
// newest.
func TestGoldenV7(t *testing.T) { testGolden(t, 7, sampleV7()) }

// sampleV7 is sampleV5 compiled from a known commit (format version 7).
func sampleV7() *format.Bundle {
	b := sampleV5()
	b.SourceRevision = "0123456789abcdef0123456789abcdef01234567"
	return b
}

// sampleOf is the sample of a version from 5 on.
func sampleOf(version int) *format.Bundle {
	if version >= 7 {
		return sampleV7()
	}
	return sampleV5()
}

// sampleV5 is sampleV4 with bound contributions (format version 5): the
// node's own data file's, and an interpolated one.
func sampleV5() *format.Bundle {
	b := sampleV4()
	for i := range b.Keys {
		k := &b.Keys[i]
		switch k.Name {
		case "classes", "users":
			k.Contributions[0].Bound = true
		}
	}
	return b
}

// TestGoldenV5Shared decodes the committed version 5 bundle whose details
// continue in a shared details file, with that file.
func TestGoldenV5Shared(t *testing.T) { testGoldenShared(t, 5) }

// TestGoldenV6Shared is the same for version 6 (the value table starts
// with the shared file's view).
func TestGoldenV6Shared(t *testing.T) { testGoldenShared(t, 6) }

// TestGoldenV7Shared is the same for version 7, and pins EncodeShared's
// bytes of both files while version 7 is the newest.
func TestGoldenV7Shared(t *testing.T) { testGoldenShared(t, 7) }

func testGoldenShared(t *testing.T, version int) {
	golden, shared := fmt.Sprintf("testdata/v%d-shared.bundle", version), fmt.Sprintf("testdata/v%d-shared.details", version)
	sample := sampleOf(version)
	newest := version == format.Version
	if *update && newest {
		data, sd, err := encode.EncodeShared(sample, encode.Protection{})
		if err != nil || sd == nil {
			t.Fatalf("EncodeShared = %v, %v", sd, err)
		}
		for f, b := range map[string][]byte{golden: data, shared: sd.Data} {
			if err := os.WriteFile(f, b, 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	data, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	sdata, err := os.ReadFile(shared)
	if err != nil {
		t.Fatal(err)
	}
	if newest {
		enc, sd, err := encode.EncodeShared(sample, encode.Protection{})
		if err != nil || sd == nil {
			t.Fatalf("EncodeShared = %v, %v", sd, err)
		}
		if !bytes.Equal(enc, data) || !bytes.Equal(sd.Data, sdata) {
			t.Errorf("EncodeShared(sample) differs from %s and %s; run go test -update if the change is intended", golden, shared)
		}
	}
	x, err := format.DecodeIndex(data)
	if err != nil {
		t.Fatal(err)
	}
	want, err := format.VerifySharedDetails(bytes.NewReader(sdata))
	if err != nil {
		t.Fatalf("VerifySharedDetails(%s): %v", shared, err)
	}
	d, ok := x.SharedDigest()
	if !ok || d != want {
		t.Fatalf("SharedDigest = %x, %v; want %x, the digest of %s", d, ok, want, shared)
	}
	if got, ok := format.ParseSharedDetailsName(path.Base(format.SharedDetailsName(d))); !ok || got != d {
		t.Errorf("ParseSharedDetailsName(SharedDetailsName(d)) = %x, %v", got, ok)
	}
	if _, err := x.Bundle(); !errors.Is(err, format.ErrNoSharedDetails) {
		t.Errorf("Bundle without its shared file = %v, want ErrNoSharedDetails", err)
	}
	if err := x.AttachShared(sdata); err != nil {
		t.Fatal(err)
	}
	got, err := x.Bundle()
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(sample, got, Cmp); diff != "" {
		t.Errorf("decoded %s with %s (-want +got):\n%s", golden, shared, diff)
	}
	if plain, err := encode.Encode(sample); err != nil || len(plain) <= len(data) {
		t.Errorf("the bundle with a shared file takes %d bytes, without %d (%v)", len(data), len(plain), err)
	}
}

// testGolden decodes testdata/v<version>.bundle and compares it with
// sample. While version is the newest, -update rewrites the file and
// Encode must reproduce it byte for byte.
func testGolden(t *testing.T, version int, sample *format.Bundle) {
	testGoldenWith(t, version, fmt.Sprintf("testdata/v%d.bundle", version), sample, encode.Protection{}, nil)
}

// testGoldenWith is testGolden for the sample file golden of version,
// encoded with protection p and opened with key.
func testGoldenWith(t *testing.T, version int, golden string, sample *format.Bundle, p encode.Protection, key crypto.PrivateKey) {
	newest := version == format.Version
	if *update && newest {
		data, err := encode.EncodeWith(sample, p)
		if err != nil {
			t.Fatal(err)
		}
		if old, _ := os.ReadFile(golden); !bytes.Equal(old, data) {
			if err := os.MkdirAll(filepath.Dir(golden), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(golden, data, 0o644); err != nil {
				t.Fatal(err)
			}
			t.Logf("wrote %s", golden)
		}
	}
	data, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	x, err := format.DecodeIndex(data)
	if err != nil {
		t.Fatal(err)
	}
	if key != nil {
		if err := x.Unseal(key); err != nil {
			t.Fatal(err)
		}
	}
	got, err := x.Bundle()
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(sample, got, Cmp, cmpopts.IgnoreFields(format.Key{}, "Ciphertext")); d != "" {
		t.Errorf("decoded %s (-want +got):\n%s", golden, d)
	}
	f, err := os.Open(golden)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	h, err := format.ReadHeader(f)
	if err != nil {
		t.Fatal(err)
	}
	if h.Version != version || h.Node != "web01.example.com" || h.Size > int64(len(data)) || version < 4 && h.Size != int64(len(data)) {
		t.Errorf("header = %+v", h)
	}
	if newest {
		enc, err := encode.EncodeWith(sample, p)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(enc, data) {
			t.Errorf("Encode(sample) differs from %s; run go test -update if the change is intended (it must not change the meaning of version %d)", golden, version)
		}
	}
}

func TestReadHeader(t *testing.T) {
	b := Sample()
	b.Node = strings.Repeat("long-node-name.", 3000) // header larger than the first read
	data, err := encode.Encode(b)
	if err != nil {
		t.Fatal(err)
	}
	h, err := format.ReadHeader(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	x, err := format.DecodeIndex(data)
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(x.Header, h); d != "" {
		t.Errorf("ReadHeader (-DecodeIndex +ReadHeader):\n%s", d)
	}
	if h.Node != b.Node || h.Size != int64(len(data))-1 { // the signature (nil) follows
		t.Errorf("header = %q, %d", h.Node[:20], h.Size)
	}
	// Equal data, different revision and node: equal digests.
	c := Sample()
	c.Revision, c.Node = "rev-2", "other"
	data2, _ := encode.Encode(c)
	h2, err := format.ReadHeader(bytes.NewReader(data2))
	if err != nil {
		t.Fatal(err)
	}
	if h2.Digest != h.Digest {
		t.Error("digest depends on node or revision")
	}
	c.Keys[1].Value = A("changed")
	data3, _ := encode.Encode(c)
	h3, _ := format.ReadHeader(bytes.NewReader(data3))
	if h3.Digest == h.Digest {
		t.Error("digest ignores a changed value")
	}

	if _, err := format.ReadHeader(errReader{}); err == nil || !strings.Contains(err.Error(), "disk on fire") {
		t.Errorf("ReadHeader(failing reader) = %v", err)
	}
}

type errReader struct{}

func (errReader) ReadAt([]byte, int64) (int, error) { return 0, errors.New("disk on fire") }
