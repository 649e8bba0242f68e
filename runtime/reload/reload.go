package reload

import (
	"fmt"
	"os"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/hieracc/hieracc/runtime"
)

// File holds the current bundle of a file that is replaced while agents
// read it. Writers should replace the file atomically (write a temporary
// file, then rename it over the old one), as hieracc compile does.
type File struct {
	path string
	opts []runtime.Option
	cur  atomic.Pointer[runtime.Bundle]

	mu     sync.Mutex // serialises Reload
	stat   os.FileInfo
	bad    os.FileInfo // the file that last failed, and its error
	badErr error
}

// NewFile opens the bundle at path as runtime.Open does with opts, and
// every new one the same way: a new bundle that the Trust's verifier
// refuses, that is another node's (runtime.ErrWrongNode: Trust.Node, or
// path's name), or that its key does not open, leaves the last good one in
// place.
func NewFile(path string, opts ...runtime.Option) (*File, error) {
	r := &File{path: path, opts: slices.Clone(opts)}
	if _, err := r.Reload(); err != nil {
		return nil, err
	}
	return r, nil
}

// Bundle returns the current bundle. Callers keep using the one they got
// while a reload swaps in a new one.
func (r *File) Bundle() *runtime.Bundle { return r.cur.Load() }

// Reload opens the file again if it changed (size, modification time,
// identity, then header and digest) and reports whether the bundle was
// replaced: a file rewritten with the same header (so the same digest)
// keeps the bundle already opened. If the new file cannot be read or
// verified, the current bundle stays in place and the error is returned,
// as OPA keeps its last good bundle. The same failed file, unchanged, is not read again: Reload
// returns the same error value.
func (r *File) Reload() (changed bool, err error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	fi, err := os.Stat(r.path)
	if err != nil {
		return false, fmt.Errorf("reload: %w", err)
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
	b, err := runtime.Open(r.path, r.opts...)
	if err != nil {
		return false, fmt.Errorf("reload: %w", err)
	}
	if cur != nil && b.Header() == cur.Header() {
		r.stat = fi
		return false, nil
	}
	r.cur.Store(b)
	r.stat = fi
	return true, nil
}

// sameFile reports whether a and b are the same file, unchanged: the same
// identity, size and modification time.
func sameFile(a, b os.FileInfo) bool {
	return os.SameFile(a, b) && a.Size() == b.Size() && a.ModTime().Equal(b.ModTime())
}
