package format

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
)

// ReadFile reads the bundle file name, as os.ReadFile would, but reads
// only a regular file (a named pipe would block the reader, a device such
// as /dev/zero never end), and never more than the size the file had when
// it was opened (a file that grows while it is read is an error). It does
// not verify the bytes: DecodeIndex does.
func ReadFile(name string) ([]byte, error) {
	f, st, err := openRegular(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, st.Size()+1))
	if err != nil {
		return nil, err
	}
	if int64(len(data)) > st.Size() {
		return nil, &fs.PathError{Op: "read", Path: name, Err: errors.New("the file grew while it was read")}
	}
	return data, nil
}

// VerifyFile checks the bundle file name as Verify does (magic, version,
// header checksum, length and the SHA-256 digest of the body), reading the
// file as a stream and decoding nothing, and returns its header. Like
// ReadFile, it reads only a regular file.
func VerifyFile(name string) (Header, error) {
	f, _, err := openRegular(name)
	if err != nil {
		return Header{}, err
	}
	defer f.Close()
	return Verify(f)
}

// VerifySharedDetailsFile checks the shared details file name as
// VerifySharedDetails does and returns its digest. Like ReadFile, it
// reads only a regular file.
func VerifySharedDetailsFile(name string) ([32]byte, error) {
	f, _, err := openRegular(name)
	if err != nil {
		return [32]byte{}, err
	}
	defer f.Close()
	return VerifySharedDetails(f)
}

// openRegular opens name if it is a regular file (after symbolic links).
// Its type is checked before it is opened, since opening a named pipe
// blocks, and again on the file opened, in case it was replaced between.
func openRegular(name string) (*os.File, fs.FileInfo, error) {
	st, err := os.Stat(name)
	if err != nil {
		return nil, nil, err
	}
	if !st.Mode().IsRegular() {
		return nil, nil, &fs.PathError{Op: "open", Path: name, Err: NotRegular(st.Mode())}
	}
	f, err := os.Open(name)
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

// NotRegular is the error for a file of mode m that is not a regular
// file, naming what it is. hieracc reads only regular files.
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
