package format_test

import (
	"bytes"
	"encoding/binary"
	"errors"
	"strings"
	"testing"

	"github.com/vmihailenco/msgpack/v5"

	"github.com/hieracc/hieracc/format"
	"github.com/hieracc/hieracc/format/encode"
	. "github.com/hieracc/hieracc/format/formattest"
)

// withKeyTable returns the version 5 bundle data with its key table
// replaced by table, resealed.
func withKeyTable(t *testing.T, data, table []byte) []byte {
	t.Helper()
	prefix, _, suffix := splitBodyAt(t, data, 4) // after values, errors, node error, module errors
	var out bytes.Buffer
	out.Write(prefix)
	if err := msgpack.NewEncoder(&out).EncodeBytes(table); err != nil {
		t.Fatal(err)
	}
	out.Write(suffix)
	return Reseal(data, out.Bytes())
}

// table builds a key table from varints (uint64) and raw name bytes
// (string).
func table(parts ...any) []byte {
	t := []byte{}
	for _, p := range parts {
		switch p := p.(type) {
		case int:
			t = binary.AppendUvarint(t, uint64(p))
		case uint64:
			t = binary.AppendUvarint(t, p)
		case string:
			t = append(t, p...)
		case []byte:
			t = append(t, p...)
		}
	}
	return t
}

// TestKeyTable decodes hand-made key tables: well-formed ones give their
// keys, every malformed one is ErrCorrupt with its reason.
func TestKeyTable(t *testing.T) {
	// A bundle with two values (entries 0 and 1) and no errors.
	b := &format.Bundle{Node: "n", Keys: []format.Key{{Name: "a", Value: "x"}, {Name: "b", Value: int64(7)}}}
	data, err := encode.Encode(b)
	if err != nil {
		t.Fatal(err)
	}
	// A key's head: its value (the distance from the last key's value
	// entry, zigzag) or error, × 8, + shared × 4 + kind; kind 3: flags
	// follow, as flags × 8 + shared × 4 + kind.
	if _, err := format.Decode(withKeyTable(t, data, table(2, 0, 1, "a", 2<<3, 0, 1, "b", 2<<3))); err != nil {
		t.Fatalf("the table Encode writes, written by hand: %v", err)
	}
	b.Keys = append(b.Keys, format.Key{Name: "c", Value: "x"})
	data3, err := encode.Encode(b)
	if err != nil {
		t.Fatal(err)
	}
	good, err := format.Decode(withKeyTable(t, data3, table(3, 0, 3, "abc", 2<<3, 2, 1, "d", 2<<3, 1, 2, "zz", 1<<3)))
	if err != nil {
		t.Fatal(err)
	}
	if names := []string{good.Keys[0].Name, good.Keys[1].Name, good.Keys[2].Name}; strings.Join(names, ",") != "abc,abd,azz" {
		t.Errorf("front-coded names = %v, want abc, abd, azz", names)
	}
	if good.Keys[0].Value != "x" || good.Keys[1].Value != int64(7) || good.Keys[2].Value != "x" {
		t.Errorf("values = %v %v %v, want x 7 x", good.Keys[0].Value, good.Keys[1].Value, good.Keys[2].Value)
	}
	bomb := []any{2000, 0, 60000, strings.Repeat("a", 60000), 2 << 3}
	for i := 1; i < 2000; i++ {
		bomb = append(bomb, 60000+i-1, 1, "a", 0) // names of 60,000 bytes and more, from 6 bytes each
	}
	for _, tc := range []struct {
		name  string
		table []byte
		want  string
	}{
		{"empty", table(), "bad varint"},
		{"count beyond the bytes", table(9, 0, 1, "a", 2<<3), "keys in"},
		{"varint not minimal", table(1, 0, 1, "a", []byte{0x80, 0x00}), "bad varint"},
		{"varint beyond 64 bits", table(1, 0, 1, "a", []byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x02}), "bad varint"},
		{"truncated varint", table(1, 0, 1, "a", []byte{0x80}), "bad varint"},
		{"shares more than the name before", table(2, 0, 1, "a", 2<<3, 2, 1, "b", 0), "shares 2 bytes of a name of 1"},
		{"shares less than it could", table(2, 0, 2, "ab", 2<<3, 0, 2, "ac", 0), "fewer bytes"},
		{"not sorted", table(2, 0, 1, "b", 2<<3, 0, 1, "a", 0), "not sorted"},
		{"repeated", table(2, 0, 1, "a", 2<<3, 1, 0, "", 0), "not sorted"},
		{"name beyond the table", table(1, 0, 200, "a", 0), "beyond the table"},
		{"value out of range", table(1, 0, 1, "a", 6<<3), "value 2 of 2"},
		{"value before the first", table(1, 0, 1, "a", 1<<3), "value -2 of 2"},
		{"error out of range", table(1, 0, 1, "a", 1), "error 0 of 0"},
		{"flagged head with the shared bit", table(1, 0, 1, "a", 2<<3|4|3, 1<<3), "flagged head with the shared bit"},
		{"flagged head without flags", table(1, 0, 1, "a", 2<<3|3, 0), "flags 0x0 of kind 0"},
		{"unknown kind", table(1, 0, 1, "a", 2<<3|3, 1<<3|3), "of kind 3"},
		{"unknown flag", table(1, 0, 1, "a", 2<<3|3, 32<<3), "unknown flags"},
		{"sealed flag without a blob", table(1, 0, 1, "a", 2<<3|3, 16<<3), "sealed flag and the kind disagree"},
		{"blob without the sealed flag", table(1, 0, 1, "a", 1<<3|2, "x"), "sealed flag and the kind disagree"},
		{"blob beyond the table", table(1, 0, 1, "a", 9<<3|3, 16<<3|2, "x"), "beyond the table"},
		{"sealed, details shared", table(1, 0, 1, "a", 1<<3|3, 16<<3|4|2, "x"), "sealed, its details in the shared file"},
		{"details in a shared file not named", table(1, 0, 1, "a", 2<<3|4), "a shared file the bundle does not name"},
		{"sensitive without convert_to", table(1, 0, 1, "a", 2<<3|3, 2<<3), "sensitive without convert_to"},
		{"bytes after the last key", table(1, 0, 1, "a", 2<<3, 0), "after the last key"},
		{"names that expand without bound", table(bomb...), "names expand beyond"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			data := withKeyTable(t, data, tc.table)
			_, err := format.Decode(data)
			if !errors.Is(err, format.ErrCorrupt) || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("Decode = %v, want ErrCorrupt with %q", err, tc.want)
			}
			// A KeyReader finds the fault when it reads that far: the
			// first key, or every key.
			kr, err := format.NewKeyReader(data, nil, nil)
			if err != nil {
				t.Fatalf("NewKeyReader = %v: the key table is read by Key", err)
			}
			_, _, errA := kr.Key("a")
			_, _, errZ := kr.Key("zzz")
			if !peekMisses[tc.name] && !(corruptWith(errA, tc.want) || corruptWith(errZ, tc.want)) {
				t.Errorf(`Key("a") = %v, Key("zzz") = %v, want ErrCorrupt with %q`, errA, errZ, tc.want)
			}
		})
	}
}

// peekMisses are the faults of TestKeyTable that a KeyReader does not see:
// it stops at the key it reads (the count, the bytes after the last
// key), and builds one name at a time (names that expand).
var peekMisses = map[string]bool{"count beyond the bytes": true, "bytes after the last key": true, "names that expand without bound": true}

func corruptWith(err error, want string) bool {
	return errors.Is(err, format.ErrCorrupt) && strings.Contains(err.Error(), want)
}
