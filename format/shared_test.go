package format_test

import (
	"bytes"
	"crypto/sha256"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/hieracc/hieracc/format"
	"github.com/hieracc/hieracc/format/encode"
	. "github.com/hieracc/hieracc/format/formattest"
)

// sharedNode is a bundle of three keys for node name: "a" only in
// common data, "b" also in the node's own file (a bound contribution
// when own is set), "c" interpolating the node's name (bound).
func sharedNode(name string, own bool, commonLine int) *format.Bundle {
	env := format.Hierarchy{Present: true, Levels: []format.Level{
		{Name: "Per-node data", Locations: []format.Location{{Path: "data/nodes/" + name + ".yaml", Exists: own, Original: "data/nodes/%{trusted.certname}.yaml"}}},
		{Name: "Common", Locations: []format.Location{{Path: "data/common.yaml", Exists: true, Original: "data/common.yaml"}}},
	}}
	common := []format.Contribution{{Layer: format.LayerEnvironment, Level: 1, Line: commonLine, Column: 1, Value: "from common"}}
	b := &format.Bundle{Node: name, Environment: "production", Env: env, Keys: []format.Key{
		{Name: "a", Value: "from common", Contributions: common},
		{Name: "b", Value: "from common", Contributions: []format.Contribution{{Layer: format.LayerEnvironment, Level: 1, Line: commonLine + 1, Column: 1, Value: "from common"}}},
		{Name: "c", Value: "host " + name, Contributions: []format.Contribution{{Layer: format.LayerEnvironment, Level: 1, Line: commonLine + 2, Column: 1, Value: "host " + name, Bound: true}}},
	}}
	if own {
		k := &b.Keys[1]
		k.Value = "from " + name
		k.Contributions = append([]format.Contribution{{Layer: format.LayerEnvironment, Level: 0, Line: 1, Column: 1, Value: "from " + name, Bound: true}}, k.Contributions...)
	}
	return b
}

// TestSharedDetails: nodes that differ only in bound contributions share
// one shared details file; each bundle with it decodes to its own
// details; a changed unbound contribution makes another file.
func TestSharedDetails(t *testing.T) {
	e := encode.NewEncoder()
	type out struct {
		b      *format.Bundle
		data   []byte
		shared encode.SharedDetails
	}
	var outs []out
	for _, b := range []*format.Bundle{
		sharedNode("web01", false, 10),
		sharedNode("web02", true, 10), // its own file holds b
		sharedNode("web03", false, 10),
		sharedNode("web04", false, 20), // common.yaml moved its keys
		sharedNode("web05", true, 10),  // web01's again, after another
	} {
		data, sd, err := e.AppendShared(nil, b, encode.Protection{})
		if err != nil || sd == nil {
			t.Fatalf("%s: AppendShared = %v, %v", b.Node, sd, err)
		}
		outs = append(outs, out{b, data, encode.SharedDetails{Digest: sd.Digest, Data: bytes.Clone(sd.Data)}})
		// The same bytes from a fresh encoder, which remembers nothing.
		fresh, fsd, err := encode.EncodeShared(b, encode.Protection{})
		if err != nil || !bytes.Equal(fresh, data) || !bytes.Equal(fsd.Data, sd.Data) {
			t.Errorf("%s: a warm encoder's bytes differ from a fresh one's (%v)", b.Node, err)
		}
	}
	for i, o := range append(outs[:3:3], outs[4]) {
		if o.shared.Digest != outs[0].shared.Digest {
			t.Errorf("node %d: shared digest %x, want node 0's %x", i, o.shared.Digest[:4], outs[0].shared.Digest[:4])
		}
	}
	if outs[3].shared.Digest == outs[0].shared.Digest {
		t.Error("a node whose unbound contributions differ has the same shared file")
	}
	for _, o := range outs {
		x, err := format.DecodeIndex(o.data)
		if err != nil {
			t.Fatal(err)
		}
		if err := x.AttachShared(o.shared.Data); err != nil {
			t.Fatal(err)
		}
		got, err := x.Bundle()
		if err != nil {
			t.Fatalf("%s: %v", o.b.Node, err)
		}
		if d := cmp.Diff(o.b, got, Cmp); d != "" {
			t.Errorf("%s: decoded with its shared file (-want +got):\n%s", o.b.Node, d)
		}
		if sha256.Sum256(o.shared.Data[len(o.shared.Data)-bodyLen(t, o.shared.Data):]) != o.shared.Digest {
			t.Errorf("%s: the digest is not the SHA-256 of the shared file's body", o.b.Node)
		}
	}
	// Another node's shared file is refused.
	x, _ := format.DecodeIndex(outs[0].data)
	if err := x.AttachShared(outs[3].shared.Data); !errors.Is(err, format.ErrCorrupt) {
		t.Errorf("AttachShared of another file = %v, want ErrCorrupt", err)
	}
	// Encode (no shared file) holds everything in the bundle.
	plain, err := encode.Encode(outs[1].b)
	if err != nil {
		t.Fatal(err)
	}
	if x, err := format.DecodeIndex(plain); err != nil {
		t.Fatal(err)
	} else if _, ok := x.SharedDigest(); ok {
		t.Error("Encode wrote a bundle with a shared file")
	}
}

// bodyLen is the length of a shared details file's body: what follows
// its header.
func bodyLen(t *testing.T, data []byte) int {
	t.Helper()
	n := bodyLenF(data)
	if n == 0 {
		t.Fatalf("unexpected length encoding %#x", data[16+1+1+34])
	}
	return n
}

// TestSharedDetailsHostile: a shared details file that does not fit its
// bundle is refused with ErrCorrupt (or ErrNotBundle, ErrVersion), never
// read as details.
func TestSharedDetailsHostile(t *testing.T) {
	b := sharedNode("web01", true, 10)
	data, sd, err := encode.EncodeShared(b, encode.Protection{})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		file []byte
		want error
	}{
		{"empty", nil, format.ErrCorrupt},
		{"not one", []byte("hello, world, hello"), format.ErrNotBundle},
		{"truncated", sd.Data[:len(sd.Data)-1], format.ErrCorrupt},
		{"longer", append(bytes.Clone(sd.Data), 0), format.ErrCorrupt},
		{"a flipped byte", func() []byte { d := bytes.Clone(sd.Data); d[len(d)-3] ^= 1; return d }(), format.ErrCorrupt},
		{"a newer version", func() []byte { d := bytes.Clone(sd.Data); d[16] = 9; return d }(), format.ErrVersion},
		{"version 6, which bundles of version 6 do not refer to", func() []byte { d := bytes.Clone(sd.Data); d[16] = 6; return d }(), format.ErrVersion},
	} {
		t.Run(tc.name, func(t *testing.T) {
			x, err := format.DecodeIndex(data)
			if err != nil {
				t.Fatal(err)
			}
			if err := x.AttachShared(tc.file); !errors.Is(err, tc.want) {
				t.Errorf("AttachShared = %v, want %v", err, tc.want)
			}
			if _, err := x.Bundle(); !errors.Is(err, format.ErrNoSharedDetails) {
				t.Errorf("Bundle after a refused file = %v, want ErrNoSharedDetails", err)
			}
			if _, err := format.VerifySharedDetails(bytes.NewReader(tc.file)); !errors.Is(err, tc.want) {
				t.Errorf("VerifySharedDetails = %v, want %v", err, tc.want)
			}
		})
	}
	// A well-formed shared file whose records do not fit the bundle: a
	// record with a bound contribution, a key without a record.
	for _, tc := range []struct {
		name   string
		shared *format.Bundle
		want   string
	}{
		{"bound record", &format.Bundle{Keys: []format.Key{{Name: "a", Contributions: []format.Contribution{{Bound: true, Level: 1, Layer: format.LayerEnvironment}}}}}, "bound contribution"},
		{"record missing", &format.Bundle{Keys: []format.Key{{Name: "zz", Contributions: []format.Contribution{{Level: 1, Layer: format.LayerEnvironment}}}}}, "no record"},
		{"record with a value", &format.Bundle{Keys: []format.Key{{Name: "a", Value: "x", Contributions: []format.Contribution{{Level: 1, Layer: format.LayerEnvironment, Value: "x"}}}}}, "has a value"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			file := sharedFileOf(t, tc.shared)
			d, err := format.VerifySharedDetails(bytes.NewReader(file))
			if err != nil {
				t.Fatal(err)
			}
			x, err := format.DecodeIndex(withSharedRef(t, data, sd.Digest, d))
			if err != nil {
				t.Fatal(err)
			}
			if err := x.AttachShared(file); err != nil {
				t.Fatal(err)
			}
			if _, err := x.Bundle(); !errors.Is(err, format.ErrCorrupt) || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("Bundle = %v, want ErrCorrupt with %q", err, tc.want)
			}
		})
	}
}

// sharedFileOf is a shared details file holding the records of b: its
// body is b's body, as the format says.
func sharedFileOf(t *testing.T, b *format.Bundle) []byte {
	t.Helper()
	data, err := encode.Encode(b)
	if err != nil {
		t.Fatal(err)
	}
	// A version 5 body: version 6's without its view (empty: a bin of
	// one byte, the count 0).
	body := bodyOf(t, data)
	if !bytes.HasPrefix(body, []byte{0x99, 0xc4, 0x01, 0x00}) {
		t.Fatalf("the body of a bundle without a shared file starts % x, not an empty view", body[:4])
	}
	body = append([]byte{0x98}, body[4:]...)
	d := sha256.Sum256(body)
	out := append([]byte("\xafhieracc-details"), 5, 0x92, 0xc4, 32)
	out = append(out, d[:]...)
	switch n := len(body); {
	case n < 128:
		out = append(out, byte(n))
	case n < 256:
		out = append(out, 0xcc, byte(n))
	default:
		out = append(out, 0xcd, byte(n>>8), byte(n))
	}
	return append(out, body...)
}

// withSharedRef is the bundle data with its reference to the shared file
// old replaced by one to new, resealed.
func withSharedRef(t *testing.T, data []byte, old, new [32]byte) []byte {
	t.Helper()
	body := bodyOf(t, data)
	i := bytes.Index(body, old[:])
	if i < 0 {
		t.Fatal("no shared reference in the body")
	}
	body = bytes.Clone(body)
	copy(body[i:], new[:])
	return Reseal(data, body)
}

// FuzzSharedDetails feeds mutated shared files to a bundle that refers
// to them: attaching and reading must fail cleanly or give details,
// never panic.
func FuzzSharedDetails(f *testing.F) {
	b := sharedNode("web01", true, 10)
	data, sd, err := encode.EncodeShared(b, encode.Protection{})
	if err != nil {
		f.Fatal(err)
	}
	rec, err := encode.Encode(&format.Bundle{Keys: []format.Key{{Name: "a", Contributions: []format.Contribution{{Layer: format.LayerEnvironment, Level: 1, Value: "x"}}}}})
	if err != nil {
		f.Fatal(err)
	}
	f.Add(bodyOf(f, rec))
	f.Add(sd.Data[len(sd.Data)-bodyLenF(sd.Data):])
	f.Fuzz(func(t *testing.T, body []byte) {
		d := sha256.Sum256(body)
		file := append([]byte("\xafhieracc-details"), 5, 0x92, 0xc4, 32)
		file = append(file, d[:]...)
		file = append(file, 0xce, byte(len(body)>>24), byte(len(body)>>16), byte(len(body)>>8), byte(len(body)))
		file = append(file, body...)
		x, err := format.DecodeIndex(withSharedRef(t, data, sd.Digest, d))
		if err != nil {
			t.Fatal(err)
		}
		if err := x.AttachShared(file); err != nil {
			t.Fatalf("a file of the right digest is refused: %v", err)
		}
		_, _ = x.Bundle()
	})
}

// bodyLenF is bodyLen without a testing.T: 0 for a length it does not
// read.
func bodyLenF(data []byte) int {
	// magic (16), version (1), array(2) (1), bin8 32 (34), then the length.
	r := data[16+1+1+34:]
	switch c := r[0]; {
	case c <= 0x7f:
		return int(c)
	case c == 0xcc:
		return int(r[1])
	case c == 0xcd:
		return int(r[1])<<8 | int(r[2])
	}
	return 0
}

// TestSharedDetailsRemembered: an encoder reuses a shared file it wrote
// for records equal to the bundle's, even when their values are other Go
// values, and never for records that encode otherwise (0.0 and -0.0, a
// hash's key order).
func TestSharedDetailsRemembered(t *testing.T) {
	withValue := func(v format.Value) *format.Bundle {
		b := sharedNode("web01", false, 10)
		b.Keys[0].Contributions = []format.Contribution{{Layer: format.LayerEnvironment, Level: 1, Line: 10, Column: 1, Value: v}}
		b.Keys[0].Value = v
		return b
	}
	negZero := math.Copysign(0, -1)
	e := encode.NewEncoder()
	for _, v := range []format.Value{
		[]any{"a", H("k", 1.0)}, []any{"a", H("k", 1.0)}, // equal, other Go values
		0.0, negZero, 0.0,
		H("x", int64(1), "y", int64(2)), H("y", int64(2), "x", int64(1)),
		[]any{int64(1)}, []any{1.0},
	} {
		b := withValue(v)
		_, sd, err := e.AppendShared(nil, b, encode.Protection{})
		if err != nil {
			t.Fatal(err)
		}
		_, fresh, err := encode.EncodeShared(b, encode.Protection{})
		if err != nil {
			t.Fatal(err)
		}
		if sd.Digest != fresh.Digest || !bytes.Equal(sd.Data, fresh.Data) {
			t.Errorf("value %#v: the remembering encoder's shared file differs from a fresh one's", v)
		}
	}
}

// TestSharedDetailsRecentThenNew: a bundle whose shared file is a recent
// one but not the last bundle's, then a bundle of mostly the same keys
// (identical) but one: each bundle and shared file are a fresh encoder's.
// The records of the keys the last two share are the recent file's.
func TestSharedDetailsRecentThenNew(t *testing.T) {
	x := sharedNode("web01", false, 10)
	y := sharedNode("web02", false, 20) // other records: another file
	x2 := *x
	x2.Keys = slices.Clone(x.Keys)
	x2.Keys[1].Contributions = []format.Contribution{{Layer: format.LayerEnvironment, Level: 1, Line: 99, Column: 1, Value: "from common"}}
	e := encode.NewEncoder()
	for i, b := range []*format.Bundle{x, y, x, &x2} {
		data, sd, err := e.AppendShared(nil, b, encode.Protection{})
		if err != nil || sd == nil {
			t.Fatalf("bundle %d: AppendShared = %v, %v", i, sd, err)
		}
		freshData, fresh, err := encode.EncodeShared(b, encode.Protection{})
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(data, freshData) || sd.Digest != fresh.Digest || !bytes.Equal(sd.Data, fresh.Data) {
			t.Errorf("bundle %d: the remembering encoder's bundle or shared file differs from a fresh one's", i)
		}
	}
}

// TestSharedDetailsSwitchBack: nodes switching between recent shared
// files whose records are, at some places, the very records of the last
// bundle's file: each bundle and shared file are a fresh encoder's, when
// the file switched to differs from the last one where the bundle's keys
// are the last bundle's, and after the last one's memory was reused for
// another file (more than eight files later) while the file switched to
// was kept.
func TestSharedDetailsSwitchBack(t *testing.T) {
	env := format.Hierarchy{Present: true, Levels: []format.Level{
		{Name: "Common", Locations: []format.Location{{Path: "data/common.yaml", Exists: true, Original: "data/common.yaml"}}},
	}}
	// Variants of keys "a" and "b", each one Key given to every bundle
	// that holds it, as a compiler shares a key's result.
	variant := func(name string, line int) format.Key {
		v := fmt.Sprintf("%s from line %d", name, line)
		return format.Key{Name: name, Value: v, Contributions: []format.Contribution{{Layer: format.LayerEnvironment, Level: 0, Line: line, Column: 1, Value: v}}}
	}
	var a, b [12]format.Key
	for i := range a {
		a[i], b[i] = variant("a", 10+i), variant("b", 100+i)
	}
	node := 0
	bundle := func(x, y int) *format.Bundle {
		node++
		return &format.Bundle{Node: fmt.Sprintf("node%02d", node), Environment: "production", Env: env, Keys: []format.Key{a[x], b[y]}}
	}
	seq := []*format.Bundle{
		bundle(1, 1), bundle(2, 2),
		bundle(1, 2), // "b" is the last bundle's, the first file's is another
		bundle(1, 1), bundle(2, 1),
		bundle(1, 1), // back to the first file, which stays among the recent
	}
	for i := 3; i <= 8; i++ { // new files, until the fourth's memory is the oldest
		seq = append(seq, bundle(i, 1))
	}
	seq = append(seq, bundle(9, 2), // in the fourth's memory
		bundle(1, 2)) // "b" is the last bundle's, not the first file's
	e := encode.NewEncoder()
	for i, bd := range seq {
		data, sd, err := e.AppendShared(nil, bd, encode.Protection{})
		if err != nil || sd == nil {
			t.Fatalf("bundle %d: AppendShared = %v, %v", i, sd, err)
		}
		freshData, fresh, err := encode.EncodeShared(bd, encode.Protection{})
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(data, freshData) || sd.Digest != fresh.Digest || !bytes.Equal(sd.Data, fresh.Data) {
			t.Errorf("bundle %d (%s): the remembering encoder's bundle or shared file differs from a fresh one's", i, bd.Node)
		}
	}
}
