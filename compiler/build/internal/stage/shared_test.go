package stage

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/hieracc/hieracc/format"
	"github.com/hieracc/hieracc/format/encode"
	"github.com/hieracc/hieracc/format/formattest"
)

// variant is the sample bundle of node whose shared details are those of
// variant v: bundles of one variant refer to one shared details file.
func variant(node string, v int) *format.Bundle {
	b := formattest.Sample()
	b.Node = node
	b.Keys = append(b.Keys, format.Key{Name: fmt.Sprintf("zz::variant%d", v), Value: int64(v),
		Contributions: []format.Contribution{{Layer: format.LayerEnvironment, Level: 3, Location: 0, Line: 9, Column: 1, Value: int64(v)}}})
	return b
}

// put writes the bundle of node, of variant v, into out as a build would
// have, with its shared details file, and returns that file's name.
func put(t *testing.T, out, node string, v int) string {
	t.Helper()
	data, shared, err := encode.EncodeShared(variant(node, v), encode.Protection{})
	if err != nil {
		t.Fatal(err)
	}
	if shared == nil {
		t.Fatalf("the bundle of %s refers to no shared details file", node)
	}
	if err := os.MkdirAll(filepath.Join(out, format.SharedDetailsDir), 0o750); err != nil {
		t.Fatal(err)
	}
	name := filepath.FromSlash(format.SharedDetailsName(shared.Digest))
	if err := os.WriteFile(filepath.Join(out, name), shared.Data, 0o640); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(out, node+".bundle"), data, 0o640); err != nil {
		t.Fatal(err)
	}
	return filepath.Base(name)
}

// sharedName is the base name of the shared details file of variant v.
func sharedName(t *testing.T, v int) string {
	t.Helper()
	_, shared, err := encode.EncodeShared(variant("any", v), encode.Protection{})
	if err != nil || shared == nil {
		t.Fatalf("variant %d: %v, %v", v, shared, err)
	}
	return filepath.Base(format.SharedDetailsName(shared.Digest))
}

func refTo(t *testing.T, v int) Ref {
	d, ok := format.ParseSharedDetailsName(sharedName(t, v))
	if !ok {
		t.Fatal("a shared details file's name that does not parse")
	}
	return Ref{Digest: d, Has: true}
}

// TestStageSharedOnce: bundles staged concurrently that refer to one
// shared details file stage it once; Commit writes it into details/ with
// exactly its data; one that OUT holds whole is kept, not written again.
func TestStageSharedOnce(t *testing.T) {
	out := t.TempDir()
	kept := put(t, out, "old", 9)
	keptStat, err := os.Stat(filepath.Join(out, format.SharedDetailsDir, kept))
	if err != nil {
		t.Fatal(err)
	}
	w := NewWriter(out)
	var wg sync.WaitGroup
	errs := make([]error, 60)
	staged := make([]Staged, 60)
	for i := range 60 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			v := []int{1, 2, 9}[i%3]
			staged[i], errs[i] = w.Stage(i%4, variant("n"+string(rune('a'+i%26))+string(rune('a'+i/26)), v), encode.Protection{})
		}()
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Fatal(err)
		}
		if want := refTo(t, []int{1, 2, 9}[i%3]); staged[i].Shared != want {
			t.Errorf("bundle %d refers to %x, want %x", i, staged[i].Shared.Digest, want.Digest)
		}
		if staged[i].Digest == ([32]byte{}) {
			t.Errorf("bundle %d: no digest", i)
		}
	}
	res, err := w.Commit(Cleanup{})
	if err != nil {
		t.Fatal(err)
	}
	if want := (Result{Written: 60, SharedWritten: 2}); res != want {
		t.Errorf("Commit: %+v, want %+v", res, want)
	}
	names, _ := os.ReadDir(filepath.Join(out, format.SharedDetailsDir))
	var got []string
	for _, e := range names {
		got = append(got, e.Name())
	}
	want := []string{sharedName(t, 1), sharedName(t, 2), kept}
	slices.Sort(want)
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("details/ (-want +got):\n%s", d)
	}
	for _, v := range []int{1, 2} {
		_, shared, _ := encode.EncodeShared(variant("x", v), encode.Protection{})
		data, err := os.ReadFile(filepath.Join(out, format.SharedDetailsDir, sharedName(t, v)))
		if err != nil || string(data) != string(shared.Data) {
			t.Errorf("variant %d: the shared details file written is not the encoder's (%v)", v, err)
		}
	}
	if st, err := os.Stat(filepath.Join(out, format.SharedDetailsDir, kept)); err != nil || !os.SameFile(st, keptStat) {
		t.Errorf("%s, whole in OUT, was written again (%v)", kept, err)
	}
	if entries, _ := os.ReadDir(out); len(entries) != 62 { // 61 bundles and details/
		t.Errorf("OUT holds %d entries, want 62: staging folders left?", len(entries))
	}
}

// TestCommitPrunes: the shared details files that no bundle left in OUT
// refers to go: those of the bundles staged, of those kept (as Kept says,
// unread) and of any other (read) are kept, unless a bundle that cannot
// be read leaves it unknown what it refers to.
func TestCommitPrunes(t *testing.T) {
	for _, tc := range []struct {
		name    string
		cleanup func(t *testing.T) Cleanup
		damaged bool     // OUT also holds a damaged bundle of a node kept
		want    []int    // the variants whose shared details files stay
		removed []string // the nodes whose bundles are removed
	}{
		{"prune", func(t *testing.T) Cleanup {
			return Cleanup{Remove: func(n string) bool { return n == "gone" }, Prune: true, Kept: map[string]Ref{"kept": refTo(t, 3)}}
		}, false, []int{1, 3, 5}, []string{"gone"}},
		{"kept refers to none, as the state says", func(t *testing.T) Cleanup {
			return Cleanup{Remove: func(n string) bool { return n == "gone" }, Prune: true, Kept: map[string]Ref{"kept": {}}}
		}, false, []int{1, 5}, []string{"gone"}},
		{"kept not known: read", func(t *testing.T) Cleanup {
			return Cleanup{Remove: func(n string) bool { return n == "gone" }, Prune: true}
		}, false, []int{1, 3, 5}, []string{"gone"}},
		{"a damaged bundle", func(t *testing.T) Cleanup {
			return Cleanup{Remove: func(n string) bool { return n == "gone" }, Prune: true, Kept: map[string]Ref{"kept": refTo(t, 3)}}
		}, true, []int{1, 2, 3, 4, 5}, []string{"gone"}},
		{"no prune", func(t *testing.T) Cleanup {
			return Cleanup{Remove: func(n string) bool { return n == "gone" }}
		}, false, []int{1, 2, 3, 4, 5}, []string{"gone"}},
		{"nothing", func(t *testing.T) Cleanup { return Cleanup{} }, false, []int{1, 2, 3, 4, 5}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out := t.TempDir()
			put(t, out, "other", 1) // neither staged nor kept: read
			put(t, out, "gone", 2)  // removed
			put(t, out, "kept", 3)
			put(t, out, "orphan", 4)
			if err := os.Remove(filepath.Join(out, "orphan.bundle")); err != nil {
				t.Fatal(err)
			}
			if tc.damaged {
				put(t, out, "bad", 4)
				p := filepath.Join(out, "bad.bundle")
				data, _ := os.ReadFile(p)
				data[len(data)-5] ^= 1
				if err := os.WriteFile(p, data, 0o640); err != nil {
					t.Fatal(err)
				}
			}
			w := NewWriter(out)
			if _, err := w.Stage(0, variant("new", 5), encode.Protection{}); err != nil {
				t.Fatal(err)
			}
			res, err := w.Commit(tc.cleanup(t))
			if err != nil {
				t.Fatal(err)
			}
			var want []string
			for _, v := range tc.want {
				want = append(want, sharedName(t, v))
			}
			slices.Sort(want)
			var got []string
			entries, _ := os.ReadDir(filepath.Join(out, format.SharedDetailsDir))
			for _, e := range entries {
				got = append(got, e.Name())
			}
			if d := cmp.Diff(want, got); d != "" {
				t.Errorf("details/ (-want +got):\n%s", d)
			}
			if res.Removed != len(tc.removed) || res.SharedRemoved != 5-len(tc.want) || res.SharedWritten != 1 || res.Written != 1 {
				t.Errorf("Commit: %+v; want %d bundles removed, %d shared details files", res, len(tc.removed), 5-len(tc.want))
			}
			for _, n := range tc.removed {
				if _, err := os.Stat(filepath.Join(out, n+".bundle")); !os.IsNotExist(err) {
					t.Errorf("the bundle of %s is still there (%v)", n, err)
				}
			}
		})
	}
}

// TestEncodersKept: an encoder outlives garbage collections between the
// bundles it encodes (a sync.Pool would drop it, and the next bundle would
// take a new one that remembers nothing): bundles staged one after the
// other, collections between them, take one encoder, and so one staging
// folder.
func TestEncodersKept(t *testing.T) {
	w := NewWriter(t.TempDir())
	defer w.Discard()
	for i := range 3 {
		if _, err := w.Stage(0, variant(fmt.Sprintf("n%d", i), 1), encode.Protection{}); err != nil {
			t.Fatal(err)
		}
		runtime.GC()
		runtime.GC()
	}
	if len(w.dirs) != 1 {
		t.Errorf("%d staging folders; want 1", len(w.dirs))
	}
}

// TestEncoderFollowsLane: a bundle gets the free encoder that encoded the
// last bundle of the same lane (the same compile worker's), not merely the
// last one given back; the lane says so, whatever memory the bundle's keys
// are in.
func TestEncoderFollowsLane(t *testing.T) {
	w := NewWriter(t.TempDir())
	ea, eb := w.encoder(0), w.encoder(1)
	if ea == eb {
		t.Fatal("two bundles at once share an encoder")
	}
	w.release(ea, 0)
	w.release(eb, 1)
	if got := w.encoder(0); got != ea {
		t.Error("the next bundle of lane 0 did not get lane 0's encoder")
	}
	if got := w.encoder(7); got != eb {
		t.Error("a bundle of a lane no encoder knows did not get the free encoder")
	}
	if got := w.encoder(1); got == ea || got == eb {
		t.Error("an encoder in use was given again")
	}
}
