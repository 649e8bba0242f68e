package format_test

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/vmihailenco/msgpack/v5"

	"github.com/hieracc/hieracc/format"
	"github.com/hieracc/hieracc/format/encode"
	. "github.com/hieracc/hieracc/format/formattest"
)

// splitDetails returns the body of the bundle data up to its details
// section, and the details section (the bin's content).
func splitDetails(t testing.TB, data []byte) (prefix, details []byte) {
	prefix, details, _ = splitBody(t, data)
	return prefix, details
}

// splitBody is splitDetails, with the rest of the body after the details
// (the options section).
func splitBody(t testing.TB, data []byte) (prefix, details, suffix []byte) {
	return splitBodyAt(t, data, 5)
}

// splitBodyAt splits the body of the bundle data around its field'th
// field (as version 5 counts them), a bin: the bytes before it, its
// content, the bytes after it.
func splitBodyAt(t testing.TB, data []byte, field int) (prefix, content, suffix []byte) {
	t.Helper()
	body := bodyOf(t, data)
	r := bytes.NewReader(body)
	d := msgpack.NewDecoder(r)
	n, err := d.DecodeArrayLen()
	if err != nil || n != 8 && n != 9 {
		t.Fatalf("body: %d fields, %v", n, err)
	}
	// field counts a version 5 body's fields; version 6 has the view
	// before them.
	for range field + n - 8 {
		if err := d.Skip(); err != nil {
			t.Fatal(err)
		}
	}
	prefix = body[:len(body)-r.Len()]
	content, err = d.DecodeBytes()
	if err != nil {
		t.Fatal(err)
	}
	return prefix, content, body[len(body)-r.Len():]
}

// joinDetails is the bundle data with its details section replaced by
// details, resealed.
func joinDetails(t testing.TB, data, prefix, details []byte) []byte {
	_, _, suffix := splitBody(t, data)
	var out bytes.Buffer
	out.Write(prefix)
	if err := msgpack.NewEncoder(&out).EncodeBytes(details); err != nil {
		t.Fatal(err)
	}
	out.Write(suffix)
	return Reseal(data, out.Bytes())
}

// withDetails returns the encoding of b with its details section replaced
// by the msgpack that details writes, resealed.
func withDetails(t *testing.T, b *format.Bundle, details func(e *msgpack.Encoder)) []byte {
	t.Helper()
	data, err := encode.Encode(b)
	if err != nil {
		t.Fatal(err)
	}
	prefix, _ := splitDetails(t, data)
	var det bytes.Buffer
	details(msgpack.NewEncoder(&det))
	return joinDetails(t, data, prefix, det.Bytes())
}

// FuzzDetails feeds mutated details sections, behind the fast part of
// the version 4 sample, to the decoder: it must refuse them or return a
// bundle that encodes again to a bundle that decodes to the same.
func FuzzDetails(f *testing.F) {
	data, err := encode.Encode(sampleV4())
	if err != nil {
		f.Fatal(err)
	}
	prefix, details := splitDetails(f, data)
	f.Add(details)
	f.Fuzz(func(t *testing.T, details []byte) {
		b, err := format.Decode(joinDetails(t, data, prefix, details))
		if err != nil {
			if !errors.Is(err, format.ErrCorrupt) {
				t.Fatalf("%v is not ErrCorrupt", err)
			}
			return
		}
		again, err := encode.Encode(b)
		if err != nil {
			t.Fatalf("decoded bundle does not encode: %v", err)
		}
		got, err := format.Decode(again)
		if err != nil {
			t.Fatalf("re-encoded bundle does not decode: %v", err)
		}
		// The same bundle: the same bytes (comparing the values
		// themselves could walk 2^24 nodes).
		if third, err := encode.Encode(got); err != nil || !bytes.Equal(third, again) {
			t.Errorf("re-encoded bundle decodes to another (%v)", err)
		}
	})
}

// TestDetailsV4Hostile feeds details sections that break a rule of
// SPEC.md ("Details, versions 4 and 5") to the decoder, in the newest
// version's bundle: each must be refused with a message saying why, never
// read as something else.
func TestDetailsV4Hostile(t *testing.T) {
	// One key, "k", whose value "v" is entry 0; a second, "x", with an error.
	bundle := &format.Bundle{Node: "n", Environment: "e", Revision: "r",
		Env:  format.Hierarchy{Present: true, Levels: []format.Level{{Name: "L", Locations: []format.Location{{Path: "p", Exists: true, Original: "o"}}}}},
		Keys: []format.Key{{Name: "k", Value: "v"}, {Name: "x", Err: &format.Error{Message: "boom"}}}}
	type key struct {
		shape  int
		fields func(e *msgpack.Encoder) // contributions and the fields of shape
		n      int                      // array length; 0 for the right one
	}
	contribs := func(ints ...int) func(e *msgpack.Encoder) {
		return func(e *msgpack.Encoder) {
			e.EncodeArrayLen(len(ints))
			for _, i := range ints {
				e.EncodeInt(int64(i))
			}
		}
	}
	none := contribs()
	details := func(merges []func(e *msgpack.Encoder), sources [][2]string, keys ...key) func(e *msgpack.Encoder) {
		return func(e *msgpack.Encoder) {
			e.EncodeArrayLen(7)
			e.EncodeBytes([]byte{0}) // values: none (version 5: a bin of the count, a varint, and the entries)
			e.EncodeArrayLen(2)
			e.EncodeBool(false)
			e.EncodeArrayLen(0)
			e.EncodeArrayLen(2)
			e.EncodeBool(true)
			e.EncodeArrayLen(1)
			e.EncodeArrayLen(2)
			e.EncodeString("L")
			e.EncodeArrayLen(1)
			e.EncodeArrayLen(3)
			e.EncodeString("p")
			e.EncodeBool(true)
			e.EncodeString("o")
			e.EncodeArrayLen(0) // modules
			e.EncodeArrayLen(len(merges))
			for _, m := range merges {
				m(e)
			}
			e.EncodeArrayLen(len(sources))
			for _, s := range sources {
				e.EncodeArrayLen(2)
				e.EncodeString(s[0])
				e.EncodeString(s[1])
			}
			e.EncodeArrayLen(len(keys))
			for _, k := range keys {
				n := k.n
				if n == 0 {
					n = 2
					for s := k.shape; s != 0; s &= s - 1 {
						n++
					}
				}
				e.EncodeArrayLen(n)
				e.EncodeInt(int64(k.shape))
				k.fields(e)
			}
		}
	}
	x := key{fields: none} // "x": no contributions
	deep := func(e *msgpack.Encoder) {
		e.EncodeArrayLen(4)
		e.EncodeString("deep")
		e.EncodeString("")
		e.EncodeBool(false)
		e.EncodeBool(false)
	}
	tests := []struct {
		name    string
		details func(e *msgpack.Encoder)
		want    string // "" for a valid section
	}{
		{"valid", details([]func(*msgpack.Encoder){deep}, [][2]string{{"f", "L"}},
			key{shape: 2 | 16, fields: func(e *msgpack.Encoder) {
				contribs(0<<2|1, 0, 3, 1, 0)(e) // the key's own value
				e.EncodeInt(0)                  // merge 0
				e.EncodeArrayLen(4)             // mergeFrom: the key's own entry, source 0
				e.EncodeNil()
				e.EncodeInt(0)
				e.EncodeInt(3)
				e.EncodeInt(1)
			}}, x), ""},
		{"unknown shape bit", details(nil, nil, key{shape: 64, fields: none, n: 3}, x), "details of shape 0x40"},
		{"shape without its field", details(nil, nil, key{shape: 2, fields: none, n: 2}, x), "details of shape 0x2 in an array of 2"},
		{"negative shape", details(nil, nil, key{shape: -1, fields: none, n: 2}, x), "details of shape"},
		{"merge out of range", details(nil, nil, key{shape: 2, fields: func(e *msgpack.Encoder) { none(e); e.EncodeInt(0) }}, x), "merge reference, but there are none"},
		{"nil merge in table", details([]func(*msgpack.Encoder){func(e *msgpack.Encoder) { e.EncodeNil() }}, nil, key{fields: none}, x), "merge 0 is nil"},
		{"four ints", details(nil, nil, key{fields: contribs(1, 0, 3, 1)}, x), "contributions of 4 ints"},
		{"unknown layer", details(nil, nil, key{fields: contribs(3, 0, 3, 1, 0)}, x), "layer 3 out of range"},
		{"negative level", details(nil, nil, key{fields: contribs(-4, 0, 3, 1, 0)}, x), "out of range"},
		{"value out of range", details(nil, nil, key{fields: contribs(1, 0, 3, 1, 3)}, x), "value reference 1 out of range [0, 0]"},
		{"error out of range", details(nil, nil, key{fields: contribs(1, 0, 3, 1, 4)}, x), "error reference 1 out of range [0, 0]"},
		{"negative reference", details(nil, nil, key{fields: contribs(1, 0, 3, 1, -1)}, x), "reference -1 out of range"},
		{"own value of an error", details(nil, nil, key{fields: none}, key{fields: contribs(1, 0, 3, 1, 0)}), "the value of a key that has an error"},
		{"empty defaults", details(nil, nil, key{shape: 1, fields: func(e *msgpack.Encoder) { none(e); none(e) }}, x), "empty defaults"},
		{"nil convert_to", details(nil, nil, key{shape: 8, fields: func(e *msgpack.Encoder) { none(e); e.EncodeNil() }}, x), "nil convert_to"},
		{"convert_to without its flag", details(nil, nil, key{shape: 8, fields: func(e *msgpack.Encoder) {
			none(e)
			e.EncodeArrayLen(1)
			e.EncodeString("String")
		}}, x), "flags and convert_to disagree"},
		{"source out of range", details(nil, nil, key{shape: 16, fields: func(e *msgpack.Encoder) {
			none(e)
			e.EncodeArrayLen(4)
			e.EncodeNil()
			e.EncodeInt(0)
			e.EncodeInt(1)
			e.EncodeInt(1)
		}}, x), "lookup_options source reference, but there are none"},
		{"nil asked", details(nil, nil, key{shape: 32, fields: func(e *msgpack.Encoder) { none(e); e.EncodeNil() }}, x), "nil asked"},
		{"asked without its flag", details(nil, nil, key{shape: 32, fields: func(e *msgpack.Encoder) {
			none(e)
			e.EncodeArrayLen(1)
			e.EncodeArrayLen(3)
			e.EncodeString("")
			none(e)
			none(e)
		}}, x), "flags and asked disagree"},
		{"keys missing", details(nil, nil, key{fields: none}), "key details has 1 fields, want 2"},
		{"version 3's five fields", func(e *msgpack.Encoder) {
			e.EncodeArrayLen(5)
			for range 5 {
				e.EncodeArrayLen(0)
			}
		}, "details has 5 fields, want 7"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := format.Decode(withDetails(t, bundle, tt.details))
			if tt.want == "" {
				if err != nil {
					t.Fatal(err)
				}
				k := got.Keys[0]
				want := format.Key{Name: "k", Value: "v", Merge: format.Merge{Strategy: "deep"},
					MergeFrom:     &format.OptionsEntry{Entry: "k", Pos: format.Pos{File: "f", Line: 3, Column: 1}, Level: "L"},
					Contributions: []format.Contribution{{Layer: format.LayerEnvironment, Line: 3, Column: 1, Value: "v"}}}
				if d := cmp.Diff(want, k, Cmp); d != "" {
					t.Errorf("key (-want +got):\n%s", d)
				}
				return
			}
			if !errors.Is(err, format.ErrCorrupt) || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("Decode = %v, want ErrCorrupt containing %q", err, tt.want)
			}
		})
	}
}
