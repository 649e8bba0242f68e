package runtime

// Shared details files (format.SharedDetailsName): a bundle whose details
// continue in one is read without it, and its file is read on the first
// call that needs the details.

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/hieracc/hieracc/format"
)

// ErrNoSharedDetails is matched by the error of a call that needs a
// bundle's details (Details, explain.Key, a lookup-time merge, some dotted
// lookups) when its shared details file cannot be read, is damaged or is
// another bundle's: errors.Is(err, ErrNoSharedDetails). The error itself
// is a *SharedDetailsError.
var ErrNoSharedDetails = format.ErrNoSharedDetails

// SharedDetailsError is a bundle's shared details file that is missing,
// cannot be read, is damaged or is not the file the bundle names. Lookups
// that do not need the details still answer.
type SharedDetailsError struct {
	// File is the shared details file: its path, for a bundle opened from
	// a file; else its name relative to the bundle's folder
	// (format.SharedDetailsName).
	File string
	// Bundle is the bundle file, "" for a bundle opened from bytes.
	Bundle string
	// Err is why it cannot be used: an error matching fs.ErrNotExist for
	// a missing file; nil for a bundle opened from bytes that was not
	// given its file (AttachSharedDetails).
	Err error
}

func (e *SharedDetailsError) Error() string {
	if e.Err == nil {
		return fmt.Sprintf("runtime: the bundle's details continue in the shared details file %s, not attached: "+
			"give it to AttachSharedDetails (explanations and lookup-time merges need it; plain lookups do not)", e.File)
	}
	what := "cannot be used: " + strings.TrimPrefix(e.Err.Error(), "format: ")
	var pe *fs.PathError
	switch {
	case errors.Is(e.Err, fs.ErrNotExist):
		what = "is missing"
	case errors.As(e.Err, &pe) && pe.Path == e.File:
		what = "cannot be read: " + pe.Err.Error()
	}
	who := "the bundle's"
	if e.Bundle != "" {
		who = "bundle " + e.Bundle + ":"
	}
	return fmt.Sprintf("runtime: %s shared details file %s %s: explanations and lookup-time merges need it: "+
		"copy the details/ folder of the compile's output beside the bundle (plain lookups need only the bundle)", who, e.File, what)
}

func (e *SharedDetailsError) Unwrap() error { return e.Err }

// Is makes errors.Is(err, ErrNoSharedDetails) true.
func (e *SharedDetailsError) Is(target error) bool { return target == ErrNoSharedDetails }

// SharedDetailsFile is the shared details file the bundle's details
// continue in: for a bundle opened from a file, the path it is read from
// (details/<digest>.details in the bundle's folder); for one opened from
// bytes, that name, relative to the folder. "" when the bundle holds all
// of its details.
//
// A bundle opened through a symbolic link (an agent's fixed path linked to
// the compile's output) finds the file beside the link when it is there,
// else beside the bundle the link leads to: where the compile wrote it.
func (b *Bundle) SharedDetailsFile() string {
	d, ok := b.x.SharedDigest()
	if !ok {
		return ""
	}
	name := filepath.FromSlash(format.SharedDetailsName(d))
	if b.path == "" {
		return format.SharedDetailsName(d)
	}
	beside := filepath.Join(filepath.Dir(b.path), name)
	if _, err := os.Lstat(beside); !errors.Is(err, fs.ErrNotExist) {
		return beside
	}
	if fi, err := os.Lstat(b.path); err != nil || fi.Mode()&fs.ModeSymlink == 0 {
		return beside
	}
	target, err := filepath.EvalSymlinks(b.path)
	if err != nil {
		return beside
	}
	if there := filepath.Join(filepath.Dir(target), name); there != beside {
		if _, err := os.Lstat(there); err == nil {
			return there
		}
	}
	return beside
}

// AttachSharedDetails gives a bundle opened from bytes its shared details
// file (SharedDetailsFile names it): data must be that file, whose magic,
// version and digest are checked. A bundle opened from a file reads its
// own when it needs it; attaching one first is allowed. It does not keep
// data.
func (b *Bundle) AttachSharedDetails(data []byte) error {
	b.dmu.Lock()
	defer b.dmu.Unlock()
	if err := b.x.AttachShared(data); err != nil {
		return fmt.Errorf("runtime: %w", err)
	}
	b.attached = true
	return nil
}

// LoadSharedDetails reads the bundle's shared details file now, if it has
// one not yet read, rather than on the first call that needs it: an agent
// that wants explanations can then tell at once that the file is missing,
// and no longer needs it afterwards. The error is a *SharedDetailsError.
func (b *Bundle) LoadSharedDetails() error {
	b.dmu.Lock()
	defer b.dmu.Unlock()
	return b.loadShared()
}

// loadShared attaches the bundle's shared details file, unless it has
// none or has it already. b.dmu is held. A failure is not kept: the file
// may be copied in later.
func (b *Bundle) loadShared() error {
	if _, ok := b.x.SharedDigest(); !ok || b.attached {
		return nil
	}
	file := b.SharedDetailsFile()
	if b.path == "" {
		return &SharedDetailsError{File: file}
	}
	data, err := format.ReadFile(file)
	if err == nil {
		err = b.x.AttachShared(data)
	}
	if err != nil {
		return &SharedDetailsError{File: file, Bundle: b.path, Err: err}
	}
	b.attached = true
	return nil
}
