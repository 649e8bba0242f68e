package hiera

import (
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/hieracc/hieracc/format"
)

// h builds a hash from alternating keys and values, keeping their order.
func h(kv ...any) *format.Hash {
	if len(kv)%2 != 0 {
		panic("h: odd number of arguments")
	}
	m := format.NewHash(len(kv) / 2)
	for i := 0; i < len(kv); i += 2 {
		m.Set(kv[i], kv[i+1])
	}
	return m
}

// a builds an array.
func a(elems ...any) []any {
	if elems == nil {
		return []any{}
	}
	return elems
}

type hashEntry struct {
	Key, Value any
}

// cmpValues compares values with key order and Go types (int64 is not
// float64) significant.
var cmpValues = cmp.Transformer("hash", func(m *format.Hash) []hashEntry {
	if m == nil {
		return nil
	}
	out := make([]hashEntry, 0, m.Len())
	for k, v := range m.All() {
		out = append(out, hashEntry{k, v})
	}
	return out
})

// diffValues compares values as Puppet sees them; every NaN is the one
// object Float::NAN there, so NaNs compare equal.
func diffValues(want, got any) string { return cmp.Diff(want, got, cmpValues, cmpopts.EquateNaNs()) }

// envLookup resolves key over an environment hierarchy with one location
// per level (the layout of the conformance cases), an absent module layer
// and a global layer whose only data file does not exist. Each level is
// its data file's top-level hash, nil for a file that does not exist.
func envLookup(t *testing.T, m format.Merge, key string, levels ...*format.Hash) (any, bool, error) {
	t.Helper()
	global := &format.Hierarchy{Present: true, Levels: []format.Level{{Name: "Common", Locations: []format.Location{{Path: "data/common.yaml"}}}}}
	env := &format.Hierarchy{Present: true}
	for i := range levels {
		env.Levels = append(env.Levels, format.Level{Name: fmt.Sprint(i), Locations: []format.Location{{Path: fmt.Sprint(i), Exists: levels[i] != nil}}})
	}
	return Resolve(m, [3]*format.Hierarchy{global, env, nil}, func(layer format.Layer, level, loc int) (any, bool, error) {
		if layer != format.LayerEnvironment || loc != 0 {
			return nil, false, nil
		}
		data := levels[level]
		if data == nil {
			return nil, false, nil
		}
		v, ok := data.Get(key)
		return v, ok, nil
	})
}

// lookupCase is one expected.yaml entry.
type lookupCase struct {
	node     string
	key      string
	merge    format.Merge
	want     any
	notFound bool
	err      string // Puppet's full message (from the "# puppet error:" comment)
}

func (c lookupCase) name() string {
	s := c.node + "/" + c.key
	if c.merge != (format.Merge{}) {
		s += "/" + fmt.Sprintf("%+v", c.merge)
	}
	return strings.ReplaceAll(s, " ", "_")
}

// check compares a lookup's outcome with the case.
func (c lookupCase) check(t *testing.T, got any, found bool, err error) {
	t.Helper()
	switch {
	case c.err != "":
		if err == nil || err.Error() != c.err {
			t.Fatalf("error = %v, want %q (value %v, found %v)", err, c.err, got, found)
		}
	case err != nil:
		t.Fatalf("unexpected error %v", err)
	case c.notFound:
		if found {
			t.Fatalf("found %v, want not found", got)
		}
	case !found:
		t.Fatalf("not found, want %v", c.want)
	default:
		if d := diffValues(c.want, got); d != "" {
			t.Fatalf("value mismatch (-want +got):\n%s", d)
		}
	}
}

var (
	mUnique = format.Merge{Strategy: "unique"}
	mHash   = format.Merge{Strategy: "hash"}
	mDeep   = format.Merge{Strategy: "deep"}
	mFirst  = format.Merge{}
)
