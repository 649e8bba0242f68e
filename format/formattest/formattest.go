// Package formattest helps tests build and compare bundles: value literals,
// go-cmp options that see a Hash's entries in order, and sample bundles.
package formattest

import (
	"fmt"
	"math"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/hieracc/hieracc/format"
)

// H builds a hash from alternating keys and values, in order.
func H(kv ...any) *format.Hash {
	if len(kv)%2 != 0 {
		panic("formattest.H: odd number of arguments")
	}
	h := format.NewHash(len(kv) / 2)
	for i := 0; i < len(kv); i += 2 {
		h.Set(kv[i], kv[i+1])
	}
	return h
}

// A is an array literal.
func A(v ...any) []any {
	if v == nil {
		return []any{}
	}
	return v
}

// Entry is a hash entry as go-cmp sees it.
type Entry struct{ Key, Value any }

// Cmp are the go-cmp options for bundles and values: hashes compare as
// ordered entry lists (so key order counts), floats by their bits (so -0.0
// is not 0.0) except that NaN equals NaN, and a nil slice equals an empty
// one; a lookup_options pattern compares by its text.
var Cmp = cmp.Options{
	cmp.Transformer("entries", func(h *format.Hash) []Entry {
		if h == nil {
			return nil
		}
		out := make([]Entry, 0, h.Len())
		for k, v := range h.All() {
			out = append(out, Entry{k, v})
		}
		return out
	}),
	cmp.Comparer(func(a, b float64) bool {
		return math.Float64bits(a) == math.Float64bits(b) || math.IsNaN(a) && math.IsNaN(b)
	}),
	cmpopts.EquateEmpty(),
	cmpopts.IgnoreUnexported(format.OptionEntry{}), // a pattern's compiled regexp
}

// Sample is a bundle using every feature of the format: every value type,
// shared and repeated values, errors at every level, all three layers, a
// module with a default hierarchy and one with an error.
func Sample() *format.Bundle {
	servers := A("0.pool.ntp.org", "1.pool.ntp.org")
	users := H("alice", H("uid", int64(1001), "groups", A("wheel", "dev")),
		"bob", H("uid", int64(1002), "groups", A("dev")))
	commonErr := &format.Error{Message: "Unknown merge strategy: 'bogus'", Pos: format.Pos{File: "data/common.yaml", Line: 3, Column: 5}, Level: "Common"}
	return &format.Bundle{
		Node:        "web01.example.com",
		Environment: "production",
		Revision:    "rev-1",
		Global: format.Hierarchy{Present: true, Levels: []format.Level{
			{Name: "Common", Locations: []format.Location{{Path: "data/common.yaml", Exists: false}}},
		}},
		Env: format.Hierarchy{Present: true, Levels: []format.Level{
			{Name: "Per-node data", Locations: []format.Location{{Path: "data/nodes/web01.example.com.yaml", Exists: true}}},
			{Name: "Per-OS", Locations: []format.Location{{Path: "data/os/Debian.yaml", Exists: true}, {Path: "data/os/Debian-12.yaml", Exists: false}}},
			{Name: "Empty", Locations: nil},
			{Name: "Common", Locations: []format.Location{{Path: "data/common.yaml", Exists: true}}},
		}},
		Modules: []format.Module{
			{Name: "broken", Hierarchy: format.Hierarchy{Present: true}, Err: &format.Error{Message: "all lookup_options keys must start with module name 'broken'", Pos: format.Pos{File: "modules/broken/data/common.yaml"}}},
			{Name: "ntp",
				Hierarchy: format.Hierarchy{Present: true, Levels: []format.Level{
					{Name: "Common", Locations: []format.Location{{Path: "data/common.yaml", Exists: true}}},
				}},
				Default: &format.Hierarchy{Present: true, Levels: []format.Level{
					{Name: "Defaults", Locations: []format.Location{{Path: "data/defaults.yaml", Exists: true}}},
				}},
			},
		},
		Keys: []format.Key{
			{Name: "bad::merge", Err: commonErr,
				Contributions: []format.Contribution{{Layer: format.LayerEnvironment, Level: 3, Location: 0, Line: 7, Column: 1, Value: "x"}}},
			{Name: "classes", Merge: format.Merge{Strategy: "unique"}, Value: A("base", "ntp", "web"),
				Contributions: []format.Contribution{
					{Layer: format.LayerEnvironment, Level: 0, Location: 0, Line: 2, Column: 1, Value: A("web")},
					{Layer: format.LayerEnvironment, Level: 3, Location: 0, Line: 1, Column: 1, Value: A("base", "ntp")},
				}},
			{Name: "floats", Value: A(1.0, math.Copysign(0, -1), 0.0, 2.5, math.Inf(1), math.NaN(), 1e300)},
			{Name: "ints", Value: A(int64(0), int64(-1), int64(127), int64(128), int64(-33), int64(65536), int64(math.MaxInt64), int64(math.MinInt64))},
			{Name: "keys", Value: H("s", 1.0, int64(1), "int", 1.0, "float", true, "bool", nil, "nil", "", "empty")},
			{Name: "nothing", Value: nil,
				Contributions: []format.Contribution{{Layer: format.LayerGlobal, Level: 0, Location: 0, Value: nil}}},
			{Name: "ntp::servers", Value: servers,
				Contributions: []format.Contribution{
					{Layer: format.LayerEnvironment, Level: 1, Location: 0, Line: 4, Column: 3, Value: servers},
					{Layer: format.LayerModule, Level: 0, Location: 0, Line: 2, Column: 1, Value: A("pool.ntp.org")},
				}},
			{Name: "ntp::service", Value: "ntpd",
				DefaultMerge: format.Merge{Strategy: "deep", KnockoutPrefix: "--", SortMergedArrays: true, MergeHashArrays: true},
				Defaults:     []format.Contribution{{Layer: format.LayerModule, Level: 0, Location: 0, Line: 1, Column: 1, Value: "ntpd"}}},
			{Name: "unicode", Value: "héllo wörld → 世界 ✓\x00\n"},
			{Name: "users", Merge: format.Merge{Strategy: "deep"}, Value: users,
				Contributions: []format.Contribution{
					{Layer: format.LayerEnvironment, Level: 0, Location: 0, Line: 10, Column: 1, Value: H("alice", H("uid", int64(1001)))},
					{Layer: format.LayerEnvironment, Level: 1, Location: 1, Line: 5, Column: 1, Err: &format.Error{Message: "Interpolation failed", Pos: format.Pos{File: "data/os/Debian.yaml", Line: 6, Column: 9}, Level: "Per-OS"}},
				}},
			{Name: "users_again", Value: users},
		},
	}
}

// Synthetic is a bundle of n keys shaped like fleet data: strings, arrays
// and small hashes, many of them repeated.
func Synthetic(n int) *format.Bundle {
	b := &format.Bundle{Node: "node.example.com", Environment: "production", Revision: "r",
		Env: format.Hierarchy{Present: true, Levels: []format.Level{{Name: "Common", Locations: []format.Location{{Path: "data/common.yaml", Exists: true}}}}}}
	b.Keys = make([]format.Key, n)
	for i := range b.Keys {
		var v any
		switch i % 4 {
		case 0:
			v = fmt.Sprintf("value-%d", i)
		case 1:
			v = A(fmt.Sprintf("a-%d", i%50), fmt.Sprintf("b-%d", i%7), int64(i))
		case 2:
			v = H("ensure", "present", "port", int64(1000+i%100), "enabled", i%3 == 0)
		case 3:
			v = int64(i)
		}
		b.Keys[i] = format.Key{
			Name:          fmt.Sprintf("profile::mod%03d::param_%07d", i%500, i),
			Value:         v,
			Contributions: []format.Contribution{{Layer: format.LayerEnvironment, Line: i + 1, Column: 1, Value: v}},
		}
	}
	// Names are zero-padded, but sort to be sure.
	sortKeys(b.Keys)
	return b
}

func sortKeys(ks []format.Key) {
	slices.SortFunc(ks, func(a, b format.Key) int { return strings.Compare(a.Name, b.Name) })
}

// Replace writes data to path as a deployment tool (or hieracc compile)
// should: a temporary file beside it, renamed over it, so that a reader
// finds the old file or the new one, whole.
func Replace(t testing.TB, path string, data []byte) {
	t.Helper()
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, data, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, path); err != nil {
		t.Fatal(err)
	}
}
