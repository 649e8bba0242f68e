package stage

import (
	"errors"
	"fmt"
	"os"

	"github.com/hieracc/hieracc/compiler/build/internal/inputfs"
)

// ErrLocked is the error of a build into a folder another build is
// writing to.
var ErrLocked = errors.New("another hieracc run is writing to this folder; try again once it is done")

// Lock is one build's hold on OUT: two builds writing into one folder
// would leave a mix of their bundles, which the next incremental build
// would take for one generation. It is an advisory lock (flock(2) on the
// folder itself, where the system has one), released when the build ends,
// even when it is killed.
type Lock struct {
	out     string
	f       *os.File
	created bool // out did not exist: Release removes it again, when empty
}

// LockDir takes the lock of the folder out, creating out (mode 0750) when
// it is missing. When another build holds it, LockDir fails at once with
// an error that wraps ErrLocked: it does not wait.
func LockDir(out string) (*Lock, error) {
	l := &Lock{out: out}
	for attempt := 0; ; attempt++ {
		if _, err := os.Stat(out); errors.Is(err, os.ErrNotExist) {
			l.created = true
		}
		if err := os.MkdirAll(out, 0o750); err != nil {
			return nil, fmt.Errorf("--out: %v", inputfs.CleanPathErr(err))
		}
		f, err := os.Open(out)
		if err != nil {
			return nil, fmt.Errorf("--out: %v", inputfs.CleanPathErr(err))
		}
		if err := lockFile(f); err != nil {
			f.Close()
			if errors.Is(err, ErrLocked) {
				return nil, fmt.Errorf("--out %s: %w", out, err)
			}
			return nil, fmt.Errorf("--out %s: taking its lock: %v", out, err)
		}
		// A build that failed may have removed the folder it created
		// between our Open and our lock: the lock must be on the folder
		// that is there.
		held, err1 := f.Stat()
		now, err2 := os.Stat(out)
		if err1 == nil && err2 == nil && os.SameFile(held, now) {
			l.f = f
			return l, nil
		}
		f.Close()
		if attempt == 10 {
			return nil, fmt.Errorf("--out %s: the folder keeps being replaced", out)
		}
	}
}

// Release lets the lock go. Unless the build wrote into out (wrote), a
// folder that LockDir created is removed again if it is empty, so that a
// build that fails leaves no trace.
func (l *Lock) Release(wrote bool) {
	if l.created && !wrote {
		os.Remove(l.out) // only if empty; before the lock goes, for the next build's sake
	}
	if l.f != nil {
		l.f.Close() // closing the last descriptor releases flock's lock
		l.f = nil
	}
}
