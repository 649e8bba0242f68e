package format_test

import (
	"bytes"
	"crypto/sha256"
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
				if recs, err = format.ReadSharedRecords(c.shared, nil); err != nil {
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
			if recs == nil {
				return
			}
			// The records of the keys selected are enough.
			for _, sel := range sels {
				names := []string{}
				shared := 0
				for _, i := range sel {
					names = append(names, x.Keys[i].Name)
					if x.Keys[i].DetailsShared() {
						shared++
					}
				}
				only, err := format.ReadSharedRecords(c.shared, names)
				if err != nil {
					t.Fatalf("ReadSharedRecords(%v): %v", names, err)
				}
				if only.Len() < shared || only.Len() > len(names) {
					t.Errorf("ReadSharedRecords(%v): %d records, want at least the %d keys' whose details are shared, at most %d", names, only.Len(), shared, len(names))
				}
				p, err := x.PartialBundle(sel, only)
				if err != nil {
					t.Fatalf("PartialBundle(%v) with the records of its keys only: %v", sel, err)
				}
				whole, _ := x.PartialBundle(sel, recs)
				if d := cmp.Diff(whole, p, bulkOpts); d != "" {
					t.Errorf("PartialBundle(%v) (-all records +its keys' only):\n%s", sel, d)
				}
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
	recs, err := format.ReadSharedRecords(osd.Data, nil)
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

// FuzzPartialBundle: whatever DecodeIndex reads, PartialBundle never
// panics, and agrees with Bundle where it succeeds.
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
	})
}

// FuzzSharedRecords: whatever a shared details file holds, ReadSharedRecords
// never panics, with every record or some; where both read it, the records
// of some names give PartialBundle what all records give for those keys.
func FuzzSharedRecords(f *testing.F) {
	data, sd, err := encode.EncodeShared(sharedNode("web01", true, 10), encode.Protection{})
	if err != nil {
		f.Fatal(err)
	}
	f.Add(sd.Data[len(sd.Data)-bodyLenF(sd.Data):], uint8(1))
	f.Add(sd.Data[len(sd.Data)-bodyLenF(sd.Data):], uint8(6))
	f.Fuzz(func(t *testing.T, body []byte, pick uint8) {
		d := sha256.Sum256(body)
		file := append([]byte("\xafhieracc-details"), 5, 0x92, 0xc4, 32)
		file = append(file, d[:]...)
		file = append(file, 0xce, byte(len(body)>>24), byte(len(body)>>16), byte(len(body)>>8), byte(len(body)))
		file = append(file, body...)
		all, aerr := format.ReadSharedRecords(file, nil)
		x, err := format.DecodeIndex(withSharedRef(t, data, sd.Digest, d))
		if err != nil {
			t.Fatal(err)
		}
		var sel []int
		names := []string{}
		for i := range x.Keys {
			if pick&(1<<(i%8)) != 0 {
				sel = append(sel, i)
				names = append(names, x.Keys[i].Name)
			}
		}
		some, serr := format.ReadSharedRecords(file, names)
		if aerr == nil && serr != nil {
			t.Fatalf("every record read, those of %v fail: %v", names, serr)
		}
		if aerr != nil || serr != nil {
			return
		}
		want, werr := x.PartialBundle(sel, all)
		got, gerr := x.PartialBundle(sel, some)
		if (werr == nil) != (gerr == nil) {
			t.Fatalf("PartialBundle(%v): %v with every record, %v with those of %v", sel, werr, gerr, names)
		}
		if werr == nil {
			if d := cmp.Diff(want, got, bulkOpts); d != "" {
				t.Fatalf("PartialBundle(%v) (-every record +those of its keys):\n%s", sel, d)
			}
		}
	})
}
