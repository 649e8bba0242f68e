package format

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"

	"github.com/hieracc/hieracc/format/internal/regular"
	"github.com/hieracc/hieracc/format/internal/wire"
)

// ReadFile reads the bundle file name, as os.ReadFile would, but reads
// only a regular file (a named pipe would block the reader, a device such
// as /dev/zero never end), and never more than the size the file had when
// it was opened (a file that grows while it is read is an error). It does
// not verify the bytes: DecodeIndex does.
func ReadFile(name string) ([]byte, error) {
	data, _, err := ReadFileInfo(name, nil)
	return data, err
}

// ReadFileInfo is ReadFile into buf when it is large enough (else a new
// buffer), and what the file opened said of itself.
func ReadFileInfo(name string, buf []byte) ([]byte, fs.FileInfo, error) {
	f, st, err := openRegular(name)
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	size := st.Size()
	if size > wholeFile { // read no more of it than its header allows
		if size, err = readBound(f, size); err != nil {
			return nil, nil, &fs.PathError{Op: "read", Path: name, Err: err}
		}
	}
	data := buf[:cap(buf)]
	if len(data) < int(size)+1 { // one byte more: a file that grew
		data = make([]byte, size+1)
	}
	data = data[:size+1]
	n, err := io.ReadFull(f, data)
	if err != nil && err != io.ErrUnexpectedEOF && err != io.EOF {
		return nil, nil, err
	}
	if int64(n) > st.Size() {
		return nil, nil, &fs.PathError{Op: "read", Path: name, Err: errors.New("the file grew while it was read")}
	}
	if st.Size() <= wholeFile { // read whole: its bound checked now
		if _, err := readBound(bytes.NewReader(data[:n]), int64(n)); err != nil {
			return nil, nil, &fs.PathError{Op: "read", Path: name, Err: err}
		}
	}
	return data[:n], st, nil
}

// wholeFile is the size up to which ReadFile reads a file in one go, and
// checks readBound after.
const wholeFile = 1 << 20

// readBound is how much of the file f, of size bytes, ReadFile reads: all
// of a shared details file; all of a bundle, and not a file longer than
// its header allows (with the error DecodeIndex would give); and only the
// first bytes of anything else, which DecodeIndex needs no more of to
// refuse. A large file named *.bundle costs no more than its header.
func readBound(f io.ReaderAt, size int64) (int64, error) {
	head := make([]byte, len(wire.SharedMagic))
	n, _ := f.ReadAt(head, 0)
	if string(head[:n]) == wire.SharedMagic {
		return size, nil
	}
	h, err := ReadHeader(f)
	if err != nil {
		return min(size, maxHeader), nil // DecodeIndex gives the header's error
	}
	if !has(h.Version, fSignature) && size > h.Size {
		return 0, fmt.Errorf("format: %w: %d bytes after the end of the bundle (its header says %d bytes)", ErrCorrupt, size-h.Size, h.Size)
	}
	if size > h.Size+maxSignature {
		return 0, fmt.Errorf("format: %w: signature longer than %d bytes", ErrCorrupt, maxSignature)
	}
	return size, nil
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

// ReadRegular reads the file name, as os.ReadFile would, but only a
// regular file (after symbolic links) of at most max bytes: a named pipe
// (which would block the reader), a device such as /dev/zero (which never
// ends), a socket or a folder is an error found before the file is
// opened, and so is a file larger than max; one that grows past max while
// it is read is an error too. Every file a user names to hieracc (keys,
// certificates, facts, a global hiera.yaml) is read through it or
// ReadRegularFS. Its errors are *fs.PathError naming name.
func ReadRegular(name string, max int64) ([]byte, error) {
	return regular.Read(regular.OS, name, max)
}

// ReadRegularFS is ReadRegular of the file name of fsys.
func ReadRegularFS(fsys fs.FS, name string, max int64) ([]byte, error) {
	return regular.Read(fsys, name, max)
}

// openRegular opens name if it is a regular file (after symbolic links).
func openRegular(name string) (*os.File, fs.FileInfo, error) {
	f, st, err := regular.Open(regular.OS, name)
	if err != nil {
		return nil, nil, err
	}
	return f.(*os.File), st, nil
}

// NotRegular is the error for a file of mode m that is not a regular
// file, naming what it is. hieracc reads only regular files.
func NotRegular(m fs.FileMode) error { return regular.NotRegular(m) }
