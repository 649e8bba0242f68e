package format_test

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/hieracc/hieracc/format"
	"github.com/hieracc/hieracc/format/encode"
	. "github.com/hieracc/hieracc/format/formattest"
)

// bulkOpts compare bundles as the format does (formattest.Cmp).
var bulkOpts = Cmp

// bulkCase is a bundle and its shared details file (nil data: none).
type bulkCase struct {
	name         string
	data, shared []byte
}

func bulkCases(t testing.TB) []bulkCase {
	var cs []bulkCase
	for v := 5; v <= format.Version; v++ {
		data, err := os.ReadFile(fmt.Sprintf("testdata/v%d-shared.bundle", v))
		if err != nil {
			t.Fatal(err)
		}
		sd, err := os.ReadFile(fmt.Sprintf("testdata/v%d-shared.details", v))
		if err != nil {
			t.Fatal(err)
		}
		cs = append(cs, bulkCase{fmt.Sprintf("v%d-shared", v), data, sd})
	}
	for _, name := range []string{"v3", "v4", "v7", "v7-sealed"} {
		data, err := os.ReadFile("testdata/" + name + ".bundle")
		if err != nil {
			t.Fatal(err)
		}
		cs = append(cs, bulkCase{name, data, nil})
	}
	for _, own := range []bool{false, true} {
		data, sd, err := encode.EncodeShared(sharedNode("web01", own, 10), encode.Protection{})
		if err != nil {
			t.Fatal(err)
		}
		cs = append(cs, bulkCase{fmt.Sprintf("sharedNode own=%v", own), data, bytes.Clone(sd.Data)})
	}
	return cs
}

// TestPartialBundle checks that PartialBundle gives each key selected the
// details Bundle gives it, and the bundle's hierarchies, modules and
// options, for every way to select keys tried; and that Hierarchies gives
// Bundle's.
func TestPartialBundle(t *testing.T) {
	for _, c := range bulkCases(t) {
		t.Run(c.name, func(t *testing.T) {
			x, err := format.DecodeIndex(c.data)
			if err != nil {
				t.Fatal(err)
			}
			var recs *format.SharedRecords
			if c.shared != nil {
				if err := x.AttachShared(c.shared); err != nil {
					t.Fatal(err)
				}
				if recs, err = format.ReadSharedRecords(c.shared); err != nil {
					t.Fatal(err)
				}
			}
			whole, err := x.Bundle()
			if err != nil {
				t.Fatal(err)
			}
			n := len(x.Keys)
			sels := [][]int{nil}
			all, even, odd := []int{}, []int{}, []int{}
			for i := range n {
				all = append(all, i)
				sels = append(sels, []int{i})
				if i%2 == 0 {
					even = append(even, i)
				} else {
					odd = append(odd, i)
				}
			}
			sels = append(sels, all, even, odd)
			for _, sel := range sels {
				p, err := x.PartialBundle(sel, recs)
				if err != nil {
					t.Fatalf("PartialBundle(%v): %v", sel, err)
				}
				want := *whole
				want.Keys = nil
				for _, i := range sel {
					want.Keys = append(want.Keys, whole.Keys[i])
				}
				got := *p
				if len(got.Keys) == 0 {
					got.Keys = nil
				}
				if d := cmp.Diff(want, got, bulkOpts); d != "" {
					t.Errorf("PartialBundle(%v) (-Bundle +PartialBundle):\n%s", sel, d)
				}
			}
			if _, err := x.PartialBundle([]int{1, 0}, recs); n > 1 && err == nil {
				t.Error("PartialBundle takes positions out of order")
			}
			g, e, err := x.Hierarchies()
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff([2]format.Hierarchy{whole.Global, whole.Env}, [2]format.Hierarchy{g, e}); d != "" {
				t.Errorf("Hierarchies (-Bundle +Hierarchies):\n%s", d)
			}
		})
	}
}

// TestPartialBundleNoSharedFile: a bundle whose details continue in a
// shared file, read without it, says so.
func TestPartialBundleNoSharedFile(t *testing.T) {
	data, _, err := encode.EncodeShared(sharedNode("web01", true, 10), encode.Protection{})
	if err != nil {
		t.Fatal(err)
	}
	other, _, err := encode.EncodeShared(sharedNode("web01", true, 20), encode.Protection{})
	if err != nil {
		t.Fatal(err)
	}
	_, osd, _ := encode.EncodeShared(sharedNode("web01", true, 20), encode.Protection{})
	recs, err := format.ReadSharedRecords(osd.Data)
	if err != nil {
		t.Fatal(err)
	}
	_ = other
	x, err := format.DecodeIndex(data)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range []*format.SharedRecords{nil, recs} {
		if _, err := x.PartialBundle([]int{0}, r); err == nil || !errors.Is(err, format.ErrNoSharedDetails) {
			t.Errorf("PartialBundle with shared records %v: %v, want ErrNoSharedDetails", r != nil, err)
		}
	}
}

// TestViewCache checks that bundles naming one shared details file, read
// through one ViewCache, share the values of their view (the same Go
// containers, the same View) and decode as without it.
func TestViewCache(t *testing.T) {
	c := format.NewViewCache(2)
	var xs []*format.Index
	for _, name := range []string{"web01", "web02", "web03"} {
		b := sharedNode(name, false, 10)
		b.Keys = append(b.Keys, format.Key{Name: "d", Value: H("list", []any{"x", "y"}), Contributions: []format.Contribution{{Layer: format.LayerEnvironment, Level: 1, Line: 40, Column: 1, Value: H("list", []any{"x", "y"})}}})
		data, sd, err := encode.EncodeShared(b, encode.Protection{})
		if err != nil {
			t.Fatal(err)
		}
		x, err := format.DecodeIndexCached(data, c)
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
		if d := cmp.Diff(want, got, bulkOpts); d != "" {
			t.Errorf("%s through the cache (-without +with):\n%s", name, d)
		}
		if id, n := plain.View(); id != 0 || n != 0 {
			t.Errorf("%s read without a cache: View() = %d, %d", name, id, n)
		}
		xs = append(xs, x)
	}
	id0, n0 := xs[0].View()
	if id0 == 0 || n0 == 0 {
		t.Fatalf("View() = %d, %d", id0, n0)
	}
	d := xs[0].Find("d")
	for _, x := range xs[1:] {
		if id, n := x.View(); id != id0 || n != n0 {
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
}

// FuzzPartialBundle: whatever DecodeIndex reads, PartialBundle and
// Hierarchies never panic, and agree with Bundle where it succeeds;
// reading through a ViewCache (twice: once decoding the view, once from
// the cache) gives the same bundle.
func FuzzPartialBundle(f *testing.F) {
	for _, c := range bulkCases(f) {
		if c.shared == nil {
			f.Add(bodyOf(f, c.data))
		}
	}
	syn, _ := encode.Encode(Synthetic(20))
	f.Add(bodyOf(f, syn))
	f.Fuzz(func(t *testing.T, body []byte) {
		data := Seal(format.Version, "n", "e", "r", body)
		x, err := format.DecodeIndex(data)
		if err != nil {
			return
		}
		whole, werr := x.Bundle()
		var all []int
		for i := range x.Keys {
			all = append(all, i)
		}
		p, perr := x.PartialBundle(all, nil)
		if werr == nil {
			if perr != nil {
				t.Fatalf("Bundle reads it, PartialBundle fails: %v", perr)
			}
			if d := cmp.Diff(whole, p, bulkOpts); d != "" {
				t.Fatalf("PartialBundle of every key (-Bundle +PartialBundle):\n%s", d)
			}
		}
		_, _ = x.PartialBundle(all[len(all)/2:], nil)
		_, _, _ = x.Hierarchies()
		c := format.NewViewCache(1)
		for range 2 {
			y, err := format.DecodeIndexCached(data, c)
			if err != nil {
				t.Fatalf("DecodeIndex reads it, DecodeIndexCached fails: %v", err)
			}
			b, err := y.Bundle()
			if (err == nil) != (werr == nil) {
				t.Fatalf("Bundle: %v without a cache, %v with", werr, err)
			}
			if err == nil {
				if d := cmp.Diff(whole, b, bulkOpts); d != "" {
					t.Fatalf("through a ViewCache (-without +with):\n%s", d)
				}
			}
		}
	})
}
