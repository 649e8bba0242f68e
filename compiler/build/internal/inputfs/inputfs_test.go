package inputfs

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"
)

// TestFS checks the virtual tree the compiler reads: mounts, folders
// above them, a file mounted in a folder, and refusal of everything else.
func TestFS(t *testing.T) {
	dir := t.TempDir()
	write := func(p, s string) {
		p = filepath.Join(dir, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("repo/hiera.yaml", "version: 5\n")
	write("repo/data/common.yaml", "a: 1\n")
	write("mods/ntp/hiera.yaml", "version: 5\n")
	write("conf/data/common.yaml", "g: 1\n")
	write("conf/hiera.yaml", "shadowed\n")
	write("elsewhere/my-hiera.yaml", "version: 5\n")
	write("secret", "do not read\n")

	j := func(p string) string { return filepath.Join(dir, p) }
	f := New([]Mount{
		{Name: "env", Real: j("repo"), FS: os.DirFS(j("repo")), Display: "repo"},
		{Name: "modules", Real: j("mods"), FS: os.DirFS(j("mods")), Display: "mods"},
		{Name: "global", Real: j("conf"), FS: os.DirFS(j("conf")), Display: "conf"},
		{Name: "global/hiera.yaml", Real: j("elsewhere/my-hiera.yaml"), IsFile: true, Display: "elsewhere/my-hiera.yaml"},
	})
	if err := fstest.TestFS(f, "env/hiera.yaml", "env/data/common.yaml", "modules/ntp/hiera.yaml",
		"global/data/common.yaml", "global/hiera.yaml"); err != nil {
		t.Fatal(err)
	}
	b, err := fs.ReadFile(f, "global/hiera.yaml")
	if err != nil || string(b) != "version: 5\n" {
		t.Errorf("global/hiera.yaml = %q, %v; want the mounted file", b, err)
	}
	for _, p := range []string{"secret", "repo/hiera.yaml", "elsewhere/my-hiera.yaml"} {
		if _, err := fs.ReadFile(f, p); !errors.Is(err, ErrOutside) {
			t.Errorf("ReadFile(%s): %v, want %v", p, err, ErrOutside)
		}
	}
	if _, err := fs.ReadFile(f, "env/nosuch.yaml"); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("ReadFile(env/nosuch.yaml): %v, want not exist", err)
	}
	if got, want := f.Display("env/data/common.yaml"), filepath.Join("repo", "data", "common.yaml"); got != want {
		t.Errorf("Display = %q, want %q", got, want)
	}
	if got, want := f.Display("global/hiera.yaml"), "elsewhere/my-hiera.yaml"; got != want {
		t.Errorf("Display = %q, want %q", got, want)
	}
}

// TestLinkOutside: a symbolic link out of a mount is not followed, with an
// error that says so (not os.Root's "path escapes from parent"), whatever
// the FS is asked.
func TestLinkOutside(t *testing.T) {
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "repo", "data"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "secret.yaml"), []byte("s: 1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("../../secret.yaml", filepath.Join(dir, "repo", "data", "link.yaml")); err != nil {
		t.Skip("no symbolic links here:", err)
	}
	if err := os.Symlink(filepath.Join(dir, "secret.yaml"), filepath.Join(dir, "repo", "data", "abs.yaml")); err != nil {
		t.Fatal(err)
	}
	f := New([]Mount{{Name: "env", Real: filepath.Join(dir, "repo"), FS: DirFS(filepath.Join(dir, "repo")), Display: "repo"}})
	for _, name := range []string{"env/data/link.yaml", "env/data/abs.yaml"} {
		_, rerr := fs.ReadFile(f, name)
		_, serr := fs.Stat(f, name)
		_, oerr := f.Open(name)
		for op, err := range map[string]error{"ReadFile": rerr, "Stat": serr, "Open": oerr} {
			if !errors.Is(err, ErrLinkOutside) || strings.Contains(err.Error(), "escapes") {
				t.Errorf("%s(%s) = %v, want %v", op, name, err, ErrLinkOutside)
			}
		}
	}
}

// TestReadLink: the FS shows its links (fs.ReadLinkFS) without following
// them: Lstat describes a link out of a mount and ReadLink gives its target
// as written, while reading through it still fails.
func TestReadLink(t *testing.T) {
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "repo", "data"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("/opt/hieracc-test-nonexistent/x.yaml", filepath.Join(dir, "repo", "data", "abs.yaml")); err != nil {
		t.Skip("no symbolic links here:", err)
	}
	if err := os.WriteFile(filepath.Join(dir, "repo", "data", "plain.yaml"), []byte("a: 1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	var f fs.FS = New([]Mount{{Name: "env", Real: filepath.Join(dir, "repo"), FS: DirFS(filepath.Join(dir, "repo")), Display: "repo"}})
	rl, ok := f.(fs.ReadLinkFS)
	if !ok {
		t.Fatal("the FS does not show its links")
	}
	if st, err := rl.Lstat("env/data/abs.yaml"); err != nil || st.Mode()&fs.ModeSymlink == 0 {
		t.Errorf("Lstat(env/data/abs.yaml) = %v, %v; want a link", st, err)
	}
	if got, err := rl.ReadLink("env/data/abs.yaml"); got != "/opt/hieracc-test-nonexistent/x.yaml" || err != nil {
		t.Errorf("ReadLink(env/data/abs.yaml) = %q, %v", got, err)
	}
	if st, err := rl.Lstat("env/data/plain.yaml"); err != nil || !st.Mode().IsRegular() {
		t.Errorf("Lstat(env/data/plain.yaml) = %v, %v; want a file", st, err)
	}
	if st, err := rl.Lstat("env"); err != nil || !st.IsDir() {
		t.Errorf("Lstat(env) = %v, %v; want the mount's folder", st, err)
	}
	if _, err := rl.ReadLink("env/data/plain.yaml"); err == nil {
		t.Error("ReadLink of a file gave no error")
	}
	if _, err := rl.Lstat("elsewhere/x"); !errors.Is(err, ErrOutside) {
		t.Errorf("Lstat outside the mounts = %v, want %v", err, ErrOutside)
	}
	if _, err := fs.ReadFile(f, "env/data/abs.yaml"); !errors.Is(err, ErrLinkOutside) {
		t.Errorf("ReadFile through the link = %v, want %v", err, ErrLinkOutside)
	}
}
