package format_test

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	goruntime "runtime"
	"strings"
	"testing"

	"github.com/hieracc/hieracc/format"
	"github.com/hieracc/hieracc/format/encode"
	. "github.com/hieracc/hieracc/format/formattest"
)

// TestVerifyFile: VerifyFile accepts what DecodeIndex accepts, and finds
// truncations and a flipped bit in every byte, of the header or the body.
func TestVerifyFile(t *testing.T) {
	data := sample(t)
	file := filepath.Join(t.TempDir(), "n.bundle")
	write := func(d []byte) {
		t.Helper()
		if err := os.WriteFile(file, d, 0o640); err != nil {
			t.Fatal(err)
		}
	}
	write(data)
	h, err := format.VerifyFile(file)
	x, xerr := format.DecodeIndex(data)
	if err != nil || xerr != nil || h != x.Header {
		t.Fatalf("VerifyFile = %+v, %v; want %+v (%v)", h, err, x.Header, xerr)
	}
	for _, n := range []int{0, 10, len(data) / 2, len(data) - 1} {
		write(data[:n])
		if _, err := format.VerifyFile(file); err == nil {
			t.Errorf("VerifyFile of the first %d bytes succeeded", n)
		}
	}
	write(append(bytes.Clone(data), 0))
	if _, err := format.VerifyFile(file); !errors.Is(err, format.ErrCorrupt) {
		t.Errorf("VerifyFile with a byte after the end: %v, want ErrCorrupt", err)
	}
	for i := range data {
		d := bytes.Clone(data)
		d[i] ^= 1 << (i % 8)
		write(d)
		if _, err := format.VerifyFile(file); err == nil {
			t.Fatalf("flipping bit %d of byte %d went unnoticed", i%8, i)
		}
	}
}

// TestReadFileNotRegular: only regular files are read: a folder or a
// device is refused before it is read, with a message that says what it is.
func TestReadFileNotRegular(t *testing.T) {
	dir := t.TempDir()
	cases := map[string]string{dir: "a folder"}
	if _, err := os.Stat("/dev/zero"); err == nil {
		cases["/dev/zero"] = "a device" // never ends: reading it would exhaust memory
	}
	for name, want := range cases {
		for op, f := range map[string]func(string) error{
			"ReadFile":   func(n string) error { _, err := format.ReadFile(n); return err },
			"VerifyFile": func(n string) error { _, err := format.VerifyFile(n); return err },
		} {
			if err := f(name); err == nil || !strings.Contains(err.Error(), want+", not a regular file") {
				t.Errorf("%s(%s) = %v, want an error saying %q", op, name, err, want)
			}
		}
	}
	file := filepath.Join(dir, "n.bundle")
	data := sample(t)
	if err := os.WriteFile(file, data, 0o640); err != nil {
		t.Fatal(err)
	}
	if got, err := format.ReadFile(file); err != nil || !bytes.Equal(got, data) {
		t.Errorf("ReadFile of a regular file: %d bytes, %v", len(got), err)
	}
}

// FuzzVerifyFile: VerifyFile never panics, and agrees with DecodeIndex:
// what DecodeIndex accepts, VerifyFile accepts with the same header, and
// what VerifyFile refuses, DecodeIndex refuses (it checks more: the body's
// contents).
func FuzzVerifyFile(f *testing.F) {
	data := sample(f)
	f.Add(data)
	f.Add(data[:len(data)/2])
	f.Add(Seal(1, "n", "e", "r", []byte{0x90}))
	f.Add([]byte("not a bundle"))
	if v4, err := os.ReadFile("testdata/v4-sealed.bundle"); err == nil { // signed and sealed
		f.Add(v4)
	}
	file := filepath.Join(f.TempDir(), "n.bundle")
	f.Fuzz(func(t *testing.T, data []byte) {
		if err := os.WriteFile(file, data, 0o600); err != nil {
			t.Fatal(err)
		}
		h, verr := format.VerifyFile(file)
		x, derr := format.DecodeIndex(data)
		if derr == nil && (verr != nil || h != x.Header) {
			t.Fatalf("DecodeIndex accepts, VerifyFile: %+v, %v (want %+v)", h, verr, x.Header)
		}
	})
}

// TestReadRegular: ReadRegular reads a regular file of up to max bytes,
// through a symbolic link too, and refuses a larger one, naming it.
func TestReadRegular(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "key.pem")
	if err := os.WriteFile(file, []byte("0123456789"), 0o600); err != nil {
		t.Fatal(err)
	}
	if b, err := format.ReadRegular(file, 10); err != nil || string(b) != "0123456789" {
		t.Errorf("ReadRegular(max 10) = %q, %v", b, err)
	}
	if err := os.Symlink(file, filepath.Join(dir, "link.pem")); err == nil {
		if b, err := format.ReadRegular(filepath.Join(dir, "link.pem"), 10); err != nil || string(b) != "0123456789" {
			t.Errorf("ReadRegular(link) = %q, %v", b, err)
		}
	}
	_, err := format.ReadRegular(file, 9)
	if err == nil || !strings.Contains(err.Error(), "file is 10 bytes, more than the 9 bytes hieracc reads") || !strings.Contains(err.Error(), file) {
		t.Errorf("ReadRegular(max 9) = %v, want too large, naming %s", err, file)
	}
	if _, err := format.ReadRegular(filepath.Join(dir, "nosuch"), 10); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("ReadRegular(nosuch) = %v, want not exist", err)
	}
}

// TestReadFileBounded: ReadFile reads a bundle whole and no file longer
// than its header allows, and of a file that is no bundle only its first
// bytes: a large file named *.bundle (here 64 MiB, sparse) is refused
// without being read, with the error DecodeIndex gives, while a bundle and
// a shared details file read as they are.
func TestReadFileBounded(t *testing.T) {
	dir := t.TempDir()
	data := sample(t)
	_, sd, err := encode.EncodeShared(sharedNode("web01", false, 10), encode.Protection{})
	if err != nil || sd == nil {
		t.Fatalf("EncodeShared: %v", err)
	}
	const big = 64 << 20
	for _, c := range []struct {
		name string
		data []byte
		size int64 // the file's, zeros after data; 0: data's
		want error // of ReadFile, or of DecodeIndex of what it read
	}{
		{"bundle", data, 0, nil},
		{"shared", sd.Data, 0, nil},
		{"not a bundle", []byte("PK\x03\x04"), big, format.ErrNotBundle},
		{"bundle then zeros", data, big, format.ErrCorrupt},
		{"bundle then a byte", data, int64(len(data)) + 1, format.ErrCorrupt},
	} {
		file := filepath.Join(dir, strings.ReplaceAll(c.name, " ", "-")+".bundle")
		if err := os.WriteFile(file, c.data, 0o600); err != nil {
			t.Fatal(err)
		}
		if c.size > 0 {
			if err := os.Truncate(file, c.size); err != nil {
				t.Fatal(err)
			}
		}
		var before, after goruntime.MemStats
		goruntime.ReadMemStats(&before)
		got, err := format.ReadFile(file)
		goruntime.ReadMemStats(&after)
		if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 1<<20 {
			t.Errorf("%s: ReadFile allocated %d bytes", c.name, alloc)
		}
		if err == nil && c.want != nil {
			_, err = format.DecodeIndex(got)
		}
		switch {
		case c.want == nil && (err != nil || !bytes.Equal(got, c.data)):
			t.Errorf("%s: ReadFile = %d bytes, %v; want the file as it is", c.name, len(got), err)
		case c.want != nil && !errors.Is(err, c.want):
			t.Errorf("%s: %v, want %v", c.name, err, c.want)
		}
	}
}
