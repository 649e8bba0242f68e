package reload_test

import (
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hieracc/hieracc/format"
	"github.com/hieracc/hieracc/format/encode"
	"github.com/hieracc/hieracc/format/formattest"
	"github.com/hieracc/hieracc/runtime/reload"
)

func writeBundle(t *testing.T, path string, rev string, value any) {
	t.Helper()
	data, err := encode.Encode(&format.Bundle{Node: "n", Revision: rev, Keys: []format.Key{{Name: "k", Value: value}}})
	if err != nil {
		t.Fatal(err)
	}
	formattest.Replace(t, path, data)
}

func TestReloader(t *testing.T) {
	path := filepath.Join(t.TempDir(), "node.bundle")
	if _, err := reload.NewFile(path); err == nil {
		t.Fatal("NewFile of a missing file succeeded")
	}
	writeBundle(t, path, "r1", "one")
	r, err := reload.NewFile(path)
	if err != nil {
		t.Fatal(err)
	}
	lookup := func() any {
		v, err := r.Bundle().Lookup("k")
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	if v := lookup(); v != "one" {
		t.Fatalf("k = %v", v)
	}
	if changed, err := r.Reload(); changed || err != nil {
		t.Errorf("Reload of an unchanged file = %v, %v", changed, err)
	}

	first := r.Bundle()
	writeBundle(t, path, "r1", "one") // same content, new file
	if changed, err := r.Reload(); changed || err != nil || r.Bundle() != first {
		t.Errorf("Reload of identical content = %v, %v; bundle kept: %v", changed, err, r.Bundle() == first)
	}

	writeBundle(t, path, "r2", "two")
	if changed, err := r.Reload(); !changed || err != nil {
		t.Errorf("Reload after a change = %v, %v", changed, err)
	}
	if v := lookup(); v != "two" {
		t.Errorf("after reload k = %v", v)
	}
	if first.Header().Revision != "r1" {
		t.Error("the old bundle changed under its holder")
	}

	data, _ := os.ReadFile(path)
	formattest.Replace(t, path, data[:len(data)-3])
	changed, err := r.Reload()
	if changed || err == nil || !strings.Contains(err.Error(), "truncated") {
		t.Errorf("Reload of a truncated file = %v, %v", changed, err)
	}
	if v := lookup(); v != "two" {
		t.Errorf("after a failed reload k = %v, want the previous bundle", v)
	}
	if err := os.Remove(path); err != nil {
		t.Fatal(err)
	}
	if _, err := r.Reload(); err == nil {
		t.Error("Reload of a removed file succeeded")
	}
	if v := lookup(); v != "two" {
		t.Errorf("after the file went away k = %v", v)
	}
}

// TestReloaderConcurrent is meant for -race.
func TestReloaderConcurrent(t *testing.T) {
	path := filepath.Join(t.TempDir(), "node.bundle")
	writeBundle(t, path, "r0", int64(0))
	r, err := reload.NewFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var stop atomic.Bool
	var wg sync.WaitGroup
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for !stop.Load() {
				if _, err := r.Bundle().Lookup("k"); err != nil {
					t.Error(err)
					return
				}
			}
		}()
	}
	for i := range 20 {
		writeBundle(t, path, "r", int64(i+1))
		// Make the modification time differ on coarse file systems.
		mt := time.Now().Add(time.Duration(i+1) * time.Second)
		os.Chtimes(path, mt, mt)
		if _, err := r.Reload(); err != nil {
			t.Fatal(err)
		}
	}
	stop.Store(true)
	wg.Wait()
	if v, _ := r.Bundle().Lookup("k"); v != int64(20) {
		t.Errorf("k = %v, want 20", v)
	}
}
