package reload_test

import (
	"crypto/sha256"
	"encoding/hex"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/hieracc/hieracc/format"
	"github.com/hieracc/hieracc/format/encode"
	"github.com/hieracc/hieracc/runtime"
	"github.com/hieracc/hieracc/runtime/reload"
)

// bundleServer serves one bundle with its digest as the ETag, answering
// If-None-Match with 304, as hieracc serve does; it counts the answers.
type bundleServer struct {
	mu           sync.Mutex
	data         []byte
	full, notMod atomic.Int32
	down         atomic.Bool
	*httptest.Server
}

func newBundleServer(t *testing.T) *bundleServer {
	s := &bundleServer{}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if s.down.Load() {
			http.Error(w, "down", http.StatusServiceUnavailable)
			return
		}
		s.mu.Lock()
		data := s.data
		s.mu.Unlock()
		sum := sha256.Sum256(data)
		etag := `"` + hex.EncodeToString(sum[:]) + `"`
		if r.Header.Get("If-None-Match") == etag {
			s.notMod.Add(1)
			w.WriteHeader(http.StatusNotModified)
			return
		}
		s.full.Add(1)
		w.Header().Set("ETag", etag)
		w.Write(data)
	}))
	t.Cleanup(s.Close)
	return s
}

func (s *bundleServer) set(t *testing.T, node, rev string, v any) {
	t.Helper()
	data, err := encode.Encode(&format.Bundle{Node: node, Revision: rev, Keys: []format.Key{{Name: "k", Value: v}}})
	if err != nil {
		t.Fatal(err)
	}
	s.mu.Lock()
	s.data = data
	s.mu.Unlock()
}

func lookupK(t *testing.T, r *reload.HTTP) any {
	t.Helper()
	v, err := r.Bundle().Lookup("k")
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func TestHTTPReloader(t *testing.T) {
	s := newBundleServer(t)
	s.set(t, "web01", "r1", "one")
	cache := filepath.Join(t.TempDir(), "web01.bundle")
	r, err := reload.NewHTTP(s.URL, cache, nil, runtime.Trust{Node: "web01"})
	if err != nil {
		t.Fatal(err)
	}
	if v := lookupK(t, r); v != "one" {
		t.Fatalf("k = %v, want one", v)
	}

	// Unchanged: a 304, nothing replaced.
	if changed, err := r.Reload(); changed || err != nil {
		t.Fatalf("Reload of an unchanged bundle = %v, %v", changed, err)
	}
	if s.notMod.Load() != 1 || s.full.Load() != 1 {
		t.Fatalf("answers: %d full, %d 304; want 1 and 1", s.full.Load(), s.notMod.Load())
	}

	// Changed: fetched and copied.
	s.set(t, "web01", "r2", "two")
	if changed, err := r.Reload(); !changed || err != nil {
		t.Fatalf("Reload of a new bundle = %v, %v", changed, err)
	}
	if v := lookupK(t, r); v != "two" {
		t.Fatalf("k = %v, want two", v)
	}

	// Another node's bundle, or damaged bytes: the last good one stays.
	s.set(t, "db01", "r3", "three")
	if changed, err := r.Reload(); changed || err == nil {
		t.Fatalf("Reload of another node's bundle = %v, %v; want an error", changed, err)
	}
	s.mu.Lock()
	s.data = []byte("not a bundle")
	s.mu.Unlock()
	if changed, err := r.Reload(); changed || err == nil {
		t.Fatalf("Reload of damaged bytes = %v, %v; want an error", changed, err)
	}
	if v := lookupK(t, r); v != "two" {
		t.Fatalf("after refused bundles, k = %v, want two", v)
	}

	// The agent restarts while the server is down: it answers from its copy.
	s.down.Store(true)
	r2, err := reload.NewHTTP(s.URL, cache, nil, runtime.Trust{Node: "web01"})
	if err != nil {
		t.Fatalf("restart with the server down: %v", err)
	}
	if v := lookupK(t, r2); v != "two" {
		t.Fatalf("from the copy, k = %v, want two", v)
	}
	// And unreachable altogether.
	s.Close()
	r3, err := reload.NewHTTP(s.URL, cache, nil, runtime.Trust{Node: "web01"})
	if err != nil {
		t.Fatalf("restart with the server gone: %v", err)
	}
	if v := lookupK(t, r3); v != "two" {
		t.Fatalf("from the copy, k = %v, want two", v)
	}
}

func TestHTTPReloaderNoCopy(t *testing.T) {
	s := newBundleServer(t)
	s.set(t, "web01", "r1", "one")
	s.down.Store(true)
	if _, err := reload.NewHTTP(s.URL, filepath.Join(t.TempDir(), "none.bundle"), nil, runtime.Trust{Node: "web01"}); err == nil {
		t.Fatal("NewHTTP with the server down and no copy succeeded")
	}
	// A copy that is another node's is not used.
	cache := filepath.Join(t.TempDir(), "web01.bundle")
	data, err := encode.Encode(&format.Bundle{Node: "db01", Keys: []format.Key{{Name: "k", Value: "x"}}})
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(cache, data, 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := reload.NewHTTP(s.URL, cache, nil, runtime.Trust{Node: "web01"}); err == nil {
		t.Fatal("NewHTTP answered from another node's copy")
	}
}
