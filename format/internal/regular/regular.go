// Package regular reads files that must be regular files, and no larger
// than the reader can hold: a named pipe would block the reader, a device
// such as /dev/zero never end. It is the one such reader of hieracc:
// package format exports it (format.ReadRegular) to the compiler and the
// command, and format/trust reads keys and certificates through it.
package regular

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
)

// Read reads the file name of fsys, as os.ReadFile would, but only a
// regular file (after symbolic links) of at most max bytes: anything else
// is an error found before the file is opened, and so is a file larger
// than max; one that grows past max while it is read is an error too.
// Its errors are *fs.PathError naming name.
func Read(fsys fs.FS, name string, max int64) ([]byte, error) {
	f, st, err := Open(fsys, name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if st.Size() > max {
		return nil, &fs.PathError{Op: "read", Path: name, Err: fmt.Errorf("file is %d bytes, more than the %d bytes hieracc reads", st.Size(), max)}
	}
	data, err := io.ReadAll(io.LimitReader(f, max+1))
	if err != nil {
		var pe *fs.PathError
		if errors.As(err, &pe) {
			err = pe.Err
		}
		return nil, &fs.PathError{Op: "read", Path: name, Err: err}
	}
	if int64(len(data)) > max {
		return nil, &fs.PathError{Op: "read", Path: name, Err: fmt.Errorf("file grew past the %d bytes hieracc reads while it was read", max)}
	}
	return data, nil
}

// Open opens name of fsys if it is a regular file. Its type is checked
// before it is opened, since opening a named pipe blocks, and again on the
// file opened, in case it was replaced between (OS opens without waiting,
// so that such a pipe is found, not waited on).
func Open(fsys fs.FS, name string) (fs.File, fs.FileInfo, error) {
	st, err := fs.Stat(fsys, name)
	if err != nil {
		return nil, nil, err
	}
	if !st.Mode().IsRegular() {
		return nil, nil, &fs.PathError{Op: "open", Path: name, Err: NotRegular(st.Mode())}
	}
	f, err := fsys.Open(name)
	if err != nil {
		return nil, nil, err
	}
	st2, err := f.Stat()
	if err == nil && !st2.Mode().IsRegular() {
		err = &fs.PathError{Op: "open", Path: name, Err: NotRegular(st2.Mode())}
	}
	if err != nil {
		f.Close()
		return nil, nil, err
	}
	return f, st2, nil
}

// OS is the operating system's files, by their paths as os.Open takes
// them (relative, absolute, with ".."). Its files are *os.File.
var OS fs.StatFS = osFS{}

type osFS struct{}

func (osFS) Open(name string) (fs.File, error) {
	f, err := os.OpenFile(name, os.O_RDONLY|openNonBlock, 0)
	if err != nil {
		return nil, err // not a nil *os.File in a non-nil fs.File
	}
	return f, nil
}

func (osFS) Stat(name string) (fs.FileInfo, error) { return os.Stat(name) }

// NotRegular is the error for a file of mode m that is not a regular
// file, naming what it is.
func NotRegular(m fs.FileMode) error {
	what := "a special file"
	switch {
	case m.IsDir():
		what = "a folder"
	case m&fs.ModeNamedPipe != 0:
		what = "a named pipe"
	case m&fs.ModeSocket != 0:
		what = "a socket"
	case m&fs.ModeDevice != 0:
		what = "a device"
	}
	return fmt.Errorf("%s, not a regular file: only regular files are read", what)
}
