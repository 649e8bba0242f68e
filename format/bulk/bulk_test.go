package bulk_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/hieracc/hieracc/format"
	"github.com/hieracc/hieracc/format/bulk"
	"github.com/hieracc/hieracc/format/encode"
	. "github.com/hieracc/hieracc/format/formattest"
)

// node is a bundle of four keys for node name: "a" and "d" only in common
// data (line commonLine on), "b" also in the node's own file when own is
// set (a bound contribution), "c" interpolating the node's name (bound).
func node(name string, own bool, commonLine int) *format.Bundle {
	env := format.Hierarchy{Present: true, Levels: []format.Level{
		{Name: "Per-node data", Locations: []format.Location{{Path: "data/nodes/" + name + ".yaml", Exists: own, Original: "data/nodes/%{trusted.certname}.yaml"}}},
		{Name: "Common", Locations: []format.Location{{Path: "data/common.yaml", Exists: true, Original: "data/common.yaml"}}},
	}}
	at := func(line int, v any) []format.Contribution {
		return []format.Contribution{{Layer: format.LayerEnvironment, Level: 1, Line: line, Column: 1, Value: v}}
	}
	b := &format.Bundle{Node: name, Environment: "production", Env: env, Keys: []format.Key{
		{Name: "a", Value: "from common", Contributions: at(commonLine, "from common")},
		{Name: "b", Value: "from common", Contributions: at(commonLine+1, "from common")},
		{Name: "c", Value: "host " + name, Contributions: []format.Contribution{{Layer: format.LayerEnvironment, Level: 1, Line: commonLine + 2, Column: 1, Value: "host " + name, Bound: true}}},
		{Name: "d", Value: H("list", []any{"x", "y"}), Contributions: at(commonLine+3, H("list", []any{"x", "y"}))},
	}}
	if own {
		k := &b.Keys[1]
		k.Value = "from " + name
		k.Contributions = append([]format.Contribution{{Layer: format.LayerEnvironment, Level: 0, Line: 1, Column: 1, Value: "from " + name, Bound: true}}, k.Contributions...)
	}
	return b
}

// TestViewCache checks that bundles naming one shared details file, read
// through one ViewCache, share the values of their view (the same Go
// containers, the same View) and decode as without it; and that a view
// the cache forgot is no longer identified.
func TestViewCache(t *testing.T) {
	c := bulk.NewViewCache(2)
	var xs []*format.Index
	for _, name := range []string{"web01", "web02", "web03"} {
		data, sd, err := encode.EncodeShared(node(name, false, 10), encode.Protection{})
		if err != nil {
			t.Fatal(err)
		}
		x, err := bulk.DecodeIndex(data, c)
		if err != nil {
			t.Fatal(err)
		}
		plain, err := format.DecodeIndex(data)
		if err != nil {
			t.Fatal(err)
		}
		for _, y := range []*format.Index{x, plain} {
			if err := y.AttachShared(sd.Data); err != nil {
				t.Fatal(err)
			}
		}
		got, err := x.Bundle()
		if err != nil {
			t.Fatal(err)
		}
		want, err := plain.Bundle()
		if err != nil {
			t.Fatal(err)
		}
		if d := cmp.Diff(want, got, Cmp); d != "" {
			t.Errorf("%s through the cache (-without +with):\n%s", name, d)
		}
		if id, n := c.View(plain); id != 0 || n != 0 || plain.View() != nil {
			t.Errorf("%s read without a cache: View() = %d, %d", name, id, n)
		}
		xs = append(xs, x)
	}
	id0, n0 := c.View(xs[0])
	if id0 == 0 || n0 == 0 {
		t.Fatalf("View() = %d, %d", id0, n0)
	}
	d := xs[0].Find("d")
	for _, x := range xs[1:] {
		if id, n := c.View(x); id != id0 || n != n0 {
			t.Errorf("%s: View() = %d, %d, want %d, %d", x.Node, id, n, id0, n0)
		}
		k := &x.Keys[x.Find("d")]
		if !x.InView(k) || k.Value.(*format.Hash) != xs[0].Keys[d].Value.(*format.Hash) {
			t.Errorf("%s: key d's value is not the view's, shared", x.Node)
		}
		if !k.DetailsShared() {
			t.Errorf("%s: key d's details are not all shared", x.Node)
		}
	}
	if k := &xs[0].Keys[xs[0].Find("c")]; k.DetailsShared() || xs[0].InView(k) {
		t.Error("key c, which names the node, is shared")
	}
	// Two other views: the first is forgotten.
	for _, v := range []string{"other", "another"} {
		b := node("web01", false, 10)
		b.Keys[0].Value, b.Keys[0].Contributions[0].Value = v, v
		data, _, err := encode.EncodeShared(b, encode.Protection{})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := bulk.DecodeIndex(data, c); err != nil {
			t.Fatal(err)
		}
	}
	if id, n := c.View(xs[0]); id != 0 || n != 0 {
		t.Errorf("a view the cache forgot: View() = %d, %d, want 0, 0", id, n)
	}
}

// TestSharedCache checks that the records SharedCache returns give
// PartialBundle what all the file's records give, for the keys asked, as
// they are asked in turn; that the file is read again only for keys not
// asked before; and that a missing file, or one of another digest, is an
// error.
func TestSharedCache(t *testing.T) {
	dir := t.TempDir()
	data, sd, err := encode.EncodeShared(node("web01", true, 10), encode.Protection{})
	if err != nil {
		t.Fatal(err)
	}
	x, err := format.DecodeIndex(data)
	if err != nil {
		t.Fatal(err)
	}
	d, ok := x.SharedDigest()
	if !ok {
		t.Fatal("the bundle names no shared details file")
	}
	path := filepath.Join(dir, "shared.details")
	if err := os.WriteFile(path, sd.Data, 0o644); err != nil {
		t.Fatal(err)
	}
	all, err := format.ReadSharedRecords(sd.Data, nil)
	if err != nil {
		t.Fatal(err)
	}
	c := bulk.NewSharedCache(1)
	for _, sel := range [][]int{{0}, {1, 3}, {0, 1, 2, 3}, {3}} {
		var names []string
		for _, i := range sel {
			names = append(names, x.Keys[i].Name)
		}
		recs, err := c.Records(path, d, names)
		if err != nil {
			t.Fatal(err)
		}
		got, err := x.PartialBundle(sel, recs)
		if err != nil {
			t.Fatalf("PartialBundle(%v) with the records of %v: %v", sel, names, err)
		}
		want, err := x.PartialBundle(sel, all)
		if err != nil {
			t.Fatal(err)
		}
		if d := cmp.Diff(want, got, Cmp); d != "" {
			t.Errorf("PartialBundle(%v) (-all records +the cache's):\n%s", sel, d)
		}
	}
	// Every key was asked: the file is not read again.
	if err := os.Remove(path); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Records(path, d, []string{"a", "d"}); err != nil {
		t.Errorf("records asked before, the file gone: %v", err)
	}
	if _, err := c.Records(path, d, []string{"e"}); err == nil {
		t.Error("a record not asked before, the file gone: no error")
	}
	if err := os.WriteFile(path, sd.Data, 0o644); err != nil {
		t.Fatal(err)
	}
	other := d
	other[0]++
	if _, err := bulk.NewSharedCache(1).Records(path, other, nil); err == nil {
		t.Error("a file of another digest: no error")
	}
}

// FuzzViewCache: whatever DecodeIndex reads, reading it through a
// ViewCache (twice: once decoding the view, once from the cache) gives the
// same bundle, and fails where it fails.
func FuzzViewCache(f *testing.F) {
	for _, name := range []string{"v5.bundle", "v6.bundle", "v7.bundle"} {
		data, err := os.ReadFile(filepath.Join("..", "testdata", name))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(body(f, data))
	}
	for _, own := range []bool{false, true} {
		data, _, err := encode.EncodeShared(node("web01", own, 10), encode.Protection{})
		if err != nil {
			f.Fatal(err)
		}
		f.Add(body(f, data))
	}
	syn, _ := encode.Encode(Synthetic(20))
	f.Add(body(f, syn))
	f.Fuzz(func(t *testing.T, b []byte) {
		data := Seal(format.Version, "n", "e", "r", b)
		x, err := format.DecodeIndex(data)
		c := bulk.NewViewCache(1)
		for range 2 {
			y, yerr := bulk.DecodeIndex(data, c)
			if (yerr == nil) != (err == nil) {
				t.Fatalf("DecodeIndex: %v; through a ViewCache: %v", err, yerr)
			}
			if err != nil {
				continue
			}
			want, werr := x.Bundle()
			got, gerr := y.Bundle()
			if (werr == nil) != (gerr == nil) {
				t.Fatalf("Bundle: %v without a cache, %v with", werr, gerr)
			}
			if werr == nil {
				if d := cmp.Diff(want, got, Cmp); d != "" {
					t.Fatalf("through a ViewCache (-without +with):\n%s", d)
				}
			}
		}
	})
}

// body is the body of an encoded bundle: what Seal wraps.
func body(t testing.TB, data []byte) []byte {
	t.Helper()
	_, _, _, _, b, err := Split(data)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
