package inputfs

// Limits on what the FS reads, whatever the control repo holds: nothing
// outside the folders given (not even through a symbolic link), nothing
// but regular files, nothing larger than MaxFile.

import (
	"crypto/sha256"
	"encoding/hex"
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

// ReadCapped reads a regular file of at most MaxFile bytes, as
// format.ReadRegularFS does: anything else (a FIFO, which would block, a
// device, which may never end) is an error, found before the file is
// opened. Every file of the inputs is read through it (a FileFS through
// ReadPath), and every file a flag names through ReadPath. Its error is
// the cause, without the file's name, which the caller knows better.
func ReadCapped(fsys fs.FS, name string) ([]byte, error) {
	var b []byte
	var err error
	if f, ok := fsys.(FileFS); ok && name == "." {
		b, err = ReadPath(string(f))
	} else {
		b, err = format.ReadRegularFS(fsys, name, MaxFile)
	}
	return b, unwrapPathErr(err)
}

// ReadPath reads the file at path p (a file a flag names, or an eyaml key
// an absolute path names) as format.ReadRegular does, if it is a regular
// file of at most MaxFile bytes. Its error is an *fs.PathError naming p.
func ReadPath(p string) ([]byte, error) {
	return format.ReadRegular(p, MaxFile)
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
