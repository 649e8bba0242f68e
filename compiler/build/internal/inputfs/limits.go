package inputfs

// Limits on what the FS reads, whatever the control repo holds: nothing
// outside the folders given (not even through a symbolic link), nothing
// but regular files, nothing larger than MaxFile.

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"io/fs"
	"os"

	"github.com/hieracc/hieracc/format"
)

// MaxFile is the largest file the FS reads, in bytes, whatever the
// file: hiera.yaml, facts, data, and a file that grows while it is read.
// It is twice the compiler's limit for data files (dataload.MaxFileSize),
// so that the compiler refuses those first, with its own message.
const MaxFile = 128 << 20

// DirFS is os.DirFS(dir), except that a symbolic link is followed only
// when it leads to a place inside dir: a link in the control repo to
// /etc/shadow, or to ../../secrets, is an error to read, not a way out.
func DirFS(dir string) fs.FS {
	root, err := os.OpenRoot(dir)
	if err != nil {
		return errFS{err}
	}
	return root.FS() // open for the rest of the run
}

// errFS fails every operation with err.
type errFS struct{ err error }

func (e errFS) Open(name string) (fs.File, error) {
	return nil, &fs.PathError{Op: "open", Path: name, Err: e.err}
}

// ReadCapped reads a regular file of at most MaxFile bytes. Anything
// else (a FIFO, which would block, a device, which may never end) is an
// error, found before the file is opened. Every file hieracc reads that is
// not a bundle is read through it.
func ReadCapped(fsys fs.FS, name string) ([]byte, error) {
	st, err := fs.Stat(fsys, name)
	if err != nil {
		return nil, err
	}
	if !st.Mode().IsRegular() {
		return nil, format.NotRegular(st.Mode())
	}
	if st.Size() > MaxFile {
		return nil, fmt.Errorf("file is %d bytes, more than the %d bytes hieracc reads", st.Size(), MaxFile)
	}
	f, err := fsys.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	// Replaced since the Stat above?
	if st, err := f.Stat(); err != nil || !st.Mode().IsRegular() {
		if err == nil {
			err = format.NotRegular(st.Mode())
		}
		return nil, err
	}
	b, err := io.ReadAll(io.LimitReader(f, MaxFile+1))
	if err != nil {
		return nil, err
	}
	if len(b) > MaxFile {
		return nil, fmt.Errorf("file grew past the %d bytes hieracc reads while it was read", MaxFile)
	}
	return b, nil
}

// FileFS shows one real file as the only entry of an fs.FS, named ".".
type FileFS string

func (f FileFS) Open(name string) (fs.File, error) {
	if name != "." {
		return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrNotExist}
	}
	return os.Open(string(f))
}

func (f FileFS) Stat(name string) (fs.FileInfo, error) {
	if name != "." {
		return nil, &fs.PathError{Op: "stat", Path: name, Err: fs.ErrNotExist}
	}
	return os.Stat(string(f))
}

// HashFile returns the hex SHA-256 of a file, read as a stream: it may be
// of any size.
func HashFile(fsys fs.FS, name string) (string, error) {
	f, err := fsys.Open(name)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}
