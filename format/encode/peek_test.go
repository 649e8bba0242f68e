package encode

import (
	"bytes"
	"reflect"
	"testing"
	"unsafe"

	"github.com/vmihailenco/msgpack/v5"

	"github.com/hieracc/hieracc/format"
)

// The writer's tests look into what the reader (package format) decoded,
// and build hashes the reader's API refuses (NaN keys, keys twice): what
// the tests did from inside package format before the writer left it.
// Reflection finds the fields by name, so a renamed field fails these
// helpers loudly rather than reading the wrong memory.

// hashFields mirrors format.Hash's fields.
type hashFields struct {
	keys  []any
	vals  []any
	index map[any]int
}

// rawHash is the hash with these keys and values, as they are.
func rawHash(keys, vals []any) *format.Hash {
	t := reflect.TypeOf(format.Hash{})
	m := reflect.TypeOf(hashFields{})
	if t.Size() != m.Size() || t.NumField() != m.NumField() {
		panic("format.Hash changed: update hashFields")
	}
	for i := range t.NumField() {
		if f, g := t.Field(i), m.Field(i); f.Name != g.Name || f.Type != g.Type || f.Offset != g.Offset {
			panic("format.Hash changed: update hashFields")
		}
	}
	return (*format.Hash)(unsafe.Pointer(&hashFields{keys: keys, vals: vals}))
}

// field is the unexported field of x at path (struct fields by name).
func field(x any, path ...string) reflect.Value {
	v := reflect.ValueOf(x).Elem()
	for _, name := range path {
		v = v.FieldByName(name)
		if !v.IsValid() {
			panic("no field " + name + " in " + reflect.TypeOf(x).String())
		}
	}
	return reflect.NewAt(v.Type(), unsafe.Pointer(v.UnsafeAddr())).Elem()
}

// detailsLen is the length of x's details section.
func detailsLen(x *format.Index) int { return field(x, "details").Len() }

// decodedValues is x's value table, as decoded.
func decodedValues(x *format.Index) []any { return field(x, "values", "vals").Interface().([]any) }

// headerLen is the length of the header of the bundle data (magic to CRC).
func headerLen(t testing.TB, data []byte) int {
	r := bytes.NewReader(data)
	d := msgpack.NewDecoder(r)
	for range 3 { // magic, version, the header's array
		if err := d.Skip(); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := format.ReadHeader(bytes.NewReader(data)); err != nil {
		t.Fatal(err)
	}
	return len(data) - r.Len()
}
