package main

// Limits on what inputFS reads, whatever the control repo holds: nothing
// outside the folders given (not even through a symbolic link), nothing
// but regular files, nothing larger than maxInputFile.

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"io/fs"
	"os"
)

// maxInputFile is the largest file inputFS reads, in bytes, whatever the
// file: hiera.yaml, facts, data, and a file that grows while it is read.
// It is twice the compiler's limit for data files (dataload.MaxFileSize),
// so that the compiler refuses those first, with its own message.
const maxInputFile = 128 << 20

// dirFS is os.DirFS(dir), except that a symbolic link is followed only
// when it leads to a place inside dir: a link in the control repo to
// /etc/shadow, or to ../../secrets, is an error to read, not a way out.
func dirFS(dir string) fs.FS {
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

// readCapped reads a regular file of at most maxInputFile bytes. Anything
// else (a FIFO, which would block, a device, which may never end) is an
// error, found before the file is opened.
func readCapped(fsys fs.FS, name string) ([]byte, error) {
	st, err := fs.Stat(fsys, name)
	if err != nil {
		return nil, err
	}
	if !st.Mode().IsRegular() {
		return nil, fmt.Errorf("not a regular file (%s)", st.Mode().Type())
	}
	if st.Size() > maxInputFile {
		return nil, fmt.Errorf("file is %d bytes, more than the %d bytes hieracc reads", st.Size(), maxInputFile)
	}
	f, err := fsys.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, maxInputFile+1))
	if err != nil {
		return nil, err
	}
	if len(b) > maxInputFile {
		return nil, fmt.Errorf("file grew past the %d bytes hieracc reads while it was read", maxInputFile)
	}
	return b, nil
}

// fileFS shows one real file as the only entry of an fs.FS, named ".".
type fileFS string

func (f fileFS) Open(name string) (fs.File, error) {
	if name != "." {
		return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrNotExist}
	}
	return os.Open(string(f))
}

func (f fileFS) Stat(name string) (fs.FileInfo, error) {
	if name != "." {
		return nil, &fs.PathError{Op: "stat", Path: name, Err: fs.ErrNotExist}
	}
	return os.Stat(string(f))
}

// hashFile returns the hex SHA-256 of a file, read as a stream: it may be
// of any size.
func hashFile(fsys fs.FS, name string) (string, error) {
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
