package runtime

import (
	"bytes"
	"fmt"
	"os"
	"sync"
	"sync/atomic"

	"github.com/hieracc/hieracc/format"
)

// Reloader holds the current bundle of a file that is replaced while
// agents read it. Writers should replace the file atomically (write a
// temporary file, then rename it over the old one).
type Reloader struct {
	path  string
	trust Trust
	cur   atomic.Pointer[Bundle]

	mu     sync.Mutex // serialises Reload
	stat   os.FileInfo
	bad    os.FileInfo // the file that last failed, and its error
	badErr error
}

// NewReloader opens the bundle at path as Open does with opts, and every
// new one the same way: a new bundle that the Trust's verifier refuses,
// that is another node's (ErrWrongNode: Trust.Node, or path's name), or
// that its key does not open, leaves the last good one in place.
func NewReloader(path string, opts ...Option) (*Reloader, error) {
	r := &Reloader{path: path, trust: trustOf(opts)}
	if _, err := r.Reload(); err != nil {
		return nil, err
	}
	return r, nil
}

// Bundle returns the current bundle. Callers keep using the one they got
// while a reload swaps in a new one.
func (r *Reloader) Bundle() *Bundle { return r.cur.Load() }

// Reload opens the file again if it changed (size, modification time,
// identity, then header and digest) and reports whether the bundle was
// replaced. If the new file cannot be read or verified, the current bundle
// stays in place and the error is returned, as OPA keeps its last good
// bundle. The same failed file, unchanged, is not read again: Reload
// returns the same error value.
func (r *Reloader) Reload() (changed bool, err error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	fi, err := os.Stat(r.path)
	if err != nil {
		return false, fmt.Errorf("runtime: reload: %w", err)
	}
	cur := r.cur.Load()
	if cur != nil && r.stat != nil && sameFile(fi, r.stat) {
		return false, nil
	}
	if r.bad != nil && sameFile(fi, r.bad) {
		return false, r.badErr
	}
	defer func() {
		if err != nil {
			r.bad, r.badErr = fi, err
		} else {
			r.bad, r.badErr = nil, nil
		}
	}()
	data, err := format.ReadFile(r.path)
	if err != nil {
		return false, fmt.Errorf("runtime: reload: %w", err)
	}
	if cur != nil {
		// Rewritten with the same header (so the same digest) and size:
		// keep the bundle already verified against that digest.
		if h, err := format.ReadHeader(bytes.NewReader(data)); err == nil && h == cur.Header() && h.Size <= int64(len(data)) {
			r.stat = fi
			return false, nil
		}
	}
	b, err := openBytes(data, &r.path, r.trust)
	if err != nil {
		return false, fmt.Errorf("runtime: reload %s: %w", r.path, err)
	}
	b.path = r.path // its own shared details file, beside it
	r.cur.Store(b)
	r.stat = fi
	return true, nil
}

// sameFile reports whether a and b are the same file, unchanged: the same
// identity, size and modification time.
func sameFile(a, b os.FileInfo) bool {
	return os.SameFile(a, b) && a.Size() == b.Size() && a.ModTime().Equal(b.ModTime())
}
