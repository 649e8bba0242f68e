package format_test

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hieracc/hieracc/format"
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
