package reload_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hieracc/hieracc/format"
	"github.com/hieracc/hieracc/format/encode"
	"github.com/hieracc/hieracc/format/formattest"
	"github.com/hieracc/hieracc/runtime"
	"github.com/hieracc/hieracc/runtime/explain"
	"github.com/hieracc/hieracc/runtime/reload"
)

// revBundle encodes a bundle whose every value tells its revision i: k is
// i, and big is a hash of many entries each holding i, so that reading and
// verifying the file takes a while.
func revBundle(t *testing.T, i int) []byte {
	t.Helper()
	big := format.NewHash(2000)
	for j := range 2000 {
		big.Set(fmt.Sprintf("entry%04d", j), []any{int64(i), int64(j)})
	}
	// big has two contributions, so that a lookup-time merge decodes the
	// details, lazily, under the readers.
	small := format.NewHash(1)
	small.Set("entry0000", []any{int64(i), "low"})
	data, err := encode.Encode(&format.Bundle{Node: "n", Revision: "r" + strconv.Itoa(i),
		Env: format.Hierarchy{Present: true, Levels: []format.Level{
			{Name: "Node", Locations: []format.Location{{Path: "data/node.yaml", Exists: true}}},
			{Name: "Common", Locations: []format.Location{{Path: "data/common.yaml", Exists: true}}},
		}},
		Keys: []format.Key{
			{Name: "big", Value: big, Contributions: []format.Contribution{
				{Layer: format.LayerEnvironment, Level: 0, Value: big},
				{Layer: format.LayerEnvironment, Level: 1, Value: small},
			}},
			{Name: "k", Value: int64(i)},
		}})
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// revOf reads the revision number a bundle's header names.
func revOf(b *runtime.Bundle) int64 {
	n, _ := strconv.ParseInt(strings.TrimPrefix(b.Header().Revision, "r"), 10, 64)
	return n
}

// consistent checks that everything b answers is of one revision: its
// header's.
func consistent(b *runtime.Bundle) error {
	want := revOf(b)
	v, err := b.Lookup("k")
	if err != nil || v != want {
		return fmt.Errorf("revision %d: k = %v, %v", want, v, err)
	}
	v, err = b.Lookup("big.entry1999.0")
	if err != nil || v != want {
		return fmt.Errorf("revision %d: big.entry1999.0 = %v, %v", want, v, err)
	}
	v, err = b.LookupWith("big", runtime.Options{Merge: &format.Merge{Strategy: "deep"}})
	h, _ := v.(*format.Hash)
	if err != nil || h == nil || h.Len() != 2000 {
		return fmt.Errorf("revision %d: deep lookup of big = %T, %v", want, v, err)
	}
	if e, _ := h.Get("entry0000"); e == nil || e.([]any)[0] != want {
		return fmt.Errorf("revision %d: big.entry0000 = %v", want, e)
	}
	x, err := explain.Key(b, "big")
	if err != nil || len(x.Sources) != 2 {
		return fmt.Errorf("revision %d: Explain(big) = %+v, %v", want, x, err)
	}
	return nil
}

// TestReloaderFileReplacedWhileRead replaces a bundle file over and over,
// by rename (as hieracc compile does) and by rewriting it in place (as a
// careless copy does, so that a reader may see half a file, or halves of
// two), while agents' goroutines reload it, open it and look keys up. Meant for -race: no
// reader may ever see a bundle that mixes revisions, or fail a lookup; a
// reload that reads half a file fails and keeps the bundle it had.
func TestReloaderFileReplacedWhileRead(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "node.bundle")
	const revs = 60
	datas := make([][]byte, revs+1)
	for i := range datas {
		datas[i] = revBundle(t, i)
	}
	if err := os.WriteFile(path, datas[0], 0o640); err != nil {
		t.Fatal(err)
	}
	r, err := reload.NewFile(path)
	if err != nil {
		t.Fatal(err)
	}

	var stop atomic.Bool
	var wg sync.WaitGroup
	var reloads, reloadErrs, opens, openErrs, lookups atomic.Int64
	fail := func(format string, args ...any) {
		t.Errorf(format, args...)
		stop.Store(true)
	}
	// Agents' readers: whatever bundle they hold answers consistently,
	// however often it is swapped.
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for !stop.Load() {
				if err := consistent(r.Bundle()); err != nil {
					fail("reader: %v", err)
					return
				}
				lookups.Add(1)
			}
		}()
	}
	// Reloaders: a reload either swaps in a whole bundle or fails and
	// keeps the old one.
	for range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for !stop.Load() {
				before := r.Bundle()
				changed, err := r.Reload()
				reloads.Add(1)
				if err != nil {
					reloadErrs.Add(1)
					if changed {
						fail("Reload failed (%v) but reports a change", err)
						return
					}
					continue
				}
				if err := consistent(r.Bundle()); err != nil {
					fail("after Reload (changed %v, from revision %d): %v", changed, revOf(before), err)
					return
				}
			}
		}()
	}
	// Agents that open the file afresh: a whole bundle or an error.
	wg.Add(1)
	go func() {
		defer wg.Done()
		for !stop.Load() {
			b, err := runtime.Open(path)
			opens.Add(1)
			if err != nil {
				openErrs.Add(1)
				continue
			}
			if err := consistent(b); err != nil {
				fail("Open: %v", err)
				return
			}
		}
	}()

	// The writer.
	for i := 1; i <= revs && !stop.Load(); i++ {
		switch i % 3 {
		case 0:
			formattest.Replace(t, path, datas[i]) // temporary file and rename
		default:
			// In place, a piece at a time: truncated first, or
			// overwritten, so that a reader may see the new revision's
			// start and the old one's end (they have the same size).
			flag := os.O_WRONLY
			if i%3 == 1 {
				flag |= os.O_TRUNC
			}
			f, err := os.OpenFile(path, flag, 0)
			if err != nil {
				t.Fatal(err)
			}
			for j := 0; j < len(datas[i]); j += 4096 {
				f.Write(datas[i][j:min(j+4096, len(datas[i]))])
				time.Sleep(50 * time.Microsecond)
			}
			f.Close()
		}
		time.Sleep(2 * time.Millisecond)
	}
	// A last, atomic replacement with a new modification time, which
	// every reload must then see.
	formattest.Replace(t, path, datas[revs])
	mt := time.Now().Add(time.Hour)
	os.Chtimes(path, mt, mt)
	time.Sleep(20 * time.Millisecond)
	stop.Store(true)
	wg.Wait()

	if _, err := r.Reload(); err != nil {
		t.Fatal(err)
	}
	if got := revOf(r.Bundle()); got != revs {
		t.Errorf("after the last replacement the reloader holds revision %d, want %d", got, revs)
	}
	t.Logf("%d lookups, %d reloads (%d failed: half-written files), %d opens (%d failed)",
		lookups.Load(), reloads.Load(), reloadErrs.Load(), opens.Load(), openErrs.Load())
	if reloads.Load() == 0 || lookups.Load() == 0 {
		t.Error("the readers did not run")
	}
}
