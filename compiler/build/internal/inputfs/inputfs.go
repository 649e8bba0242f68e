// Package inputfs is the read-only file system the compiler reads its input
// through. It gives the compiler a small virtual tree that holds only what
// the user named: the environment at "env/", the modules folder at
// "modules/" and Puppet's confdir at "global/" (a folder given inside --env
// keeps its place under "env/"). Because these names do not depend on where
// the control repo is checked out, the same inputs give byte-identical
// bundles on every machine, and nothing outside the named folders can be
// read, whatever a hiera.yaml or a fact says.
package inputfs

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

// Mount is one real folder (or, for a global hiera.yaml not named
// hiera.yaml, one real file) shown at a name inside an FS.
type Mount struct {
	Name    string // slash path inside the FS ("env", "global", "global/hiera.yaml")
	Real    string // real path, as given by the user
	FS      fs.FS  // DirFS(Real), or nil for a file mount
	IsFile  bool
	Display string // how messages name it: the path the user typed
}

// ErrOutside is the error for a path outside every mount: a hierarchy that
// reaches there (a datadir "../shared") must fail loudly, not find nothing.
var ErrOutside = errors.New("outside the folders given to hieracc (--env, --modules, --global)")

// ErrLinkOutside is the error for a symbolic link that leads out of the
// folder it is in: it is not followed.
var ErrLinkOutside = errors.New("a symbolic link out of the folder given to hieracc, which it does not follow")

// FS is a read-only fs.FS over a few mounts. It is safe for concurrent use.
type FS struct {
	mounts []Mount // longest name first, so nested mounts win
}

// New returns the FS of the mounts.
func New(ms []Mount) *FS {
	slices.SortFunc(ms, func(a, b Mount) int { return len(b.Name) - len(a.Name) })
	return &FS{mounts: ms}
}

// resolve finds the mount holding name and the path inside it.
func (f *FS) resolve(name string) (*Mount, string, bool) {
	for i := range f.mounts {
		m := &f.mounts[i]
		if name == m.Name {
			return m, ".", true
		}
		if rest, ok := strings.CutPrefix(name, m.Name+"/"); ok && !m.IsFile {
			return m, rest, true
		}
	}
	return nil, "", false
}

// parentEntries lists a folder above mount points ("." is above them
// all): such folders hold only the next step towards each mount. ok is
// false when name is not such a folder.
func (f *FS) parentEntries(name string) (es []fs.DirEntry, ok bool) {
	infos := map[string]fs.FileInfo{}
	for _, m := range f.mounts {
		rest := m.Name
		if name != "." {
			var found bool
			if rest, found = strings.CutPrefix(m.Name, name+"/"); !found {
				continue
			}
		}
		ok = true
		first, _, deeper := strings.Cut(rest, "/")
		if !deeper { // the mount itself: shown as it is on disk
			if st, err := f.Stat(m.Name); err == nil {
				infos[first] = st
			}
		} else if infos[first] == nil {
			infos[first] = dirInfo(first) // only leads to a mount below
		}
	}
	for _, info := range infos {
		es = append(es, fs.FileInfoToDirEntry(info))
	}
	slices.SortFunc(es, func(a, b fs.DirEntry) int { return strings.Compare(a.Name(), b.Name()) })
	return es, ok
}

// dirInfo describes a synthetic folder of the FS.
type dirInfo string

func (d dirInfo) Name() string       { return string(d) }
func (d dirInfo) Size() int64        { return 0 }
func (d dirInfo) Mode() fs.FileMode  { return fs.ModeDir | 0o555 }
func (d dirInfo) ModTime() time.Time { return time.Time{} }
func (d dirInfo) IsDir() bool        { return true }
func (d dirInfo) Sys() any           { return nil }

// dirFile is an open folder whose listing the FS made.
type dirFile struct {
	info    fs.FileInfo
	entries []fs.DirEntry
}

func (d *dirFile) Stat() (fs.FileInfo, error) { return d.info, nil }
func (d *dirFile) Read([]byte) (int, error) {
	return 0, &fs.PathError{Op: "read", Path: d.info.Name(), Err: errors.New("is a directory")}
}
func (d *dirFile) Close() error { return nil }
func (d *dirFile) ReadDir(n int) ([]fs.DirEntry, error) {
	if n <= 0 {
		es := d.entries
		d.entries = nil
		return es, nil
	}
	if len(d.entries) == 0 {
		return nil, io.EOF
	}
	n = min(n, len(d.entries))
	es := d.entries[:n]
	d.entries = d.entries[n:]
	return es, nil
}

func (f *FS) Open(name string) (fs.File, error) {
	if !fs.ValidPath(name) {
		return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrInvalid}
	}
	m, rest, ok := f.resolve(name)
	if !ok {
		if es, ok := f.parentEntries(name); ok {
			return &dirFile{info: dirInfo(path.Base(name)), entries: es}, nil
		}
		return nil, &fs.PathError{Op: "open", Path: name, Err: ErrOutside}
	}
	if m.IsFile {
		file, err := os.Open(m.Real)
		if err != nil {
			return nil, err
		}
		return namedFile{file, path.Base(name)}, nil
	}
	if f.holdsFileMount(name) {
		st, err := f.Stat(name)
		if err != nil {
			return nil, err
		}
		es, err := f.ReadDir(name)
		if err != nil {
			return nil, err
		}
		return &dirFile{info: st, entries: es}, nil
	}
	file, err := m.FS.Open(rest)
	if err != nil {
		return nil, &fs.PathError{Op: "open", Path: name, Err: unwrapPathErr(err)}
	}
	if rest != "." {
		return file, nil
	}
	return namedFile{file, path.Base(name)}, nil
}

// namedFile shows a mount's root under its name inside the FS.
type namedFile struct {
	fs.File
	name string
}

func (n namedFile) Stat() (fs.FileInfo, error) {
	st, err := n.File.Stat()
	if err != nil {
		return nil, err
	}
	return renamed{st, n.name}, nil
}

func (n namedFile) ReadDir(c int) ([]fs.DirEntry, error) {
	if d, ok := n.File.(fs.ReadDirFile); ok {
		return d.ReadDir(c)
	}
	return nil, &fs.PathError{Op: "readdir", Path: n.name, Err: errors.New("not a directory")}
}

// holdsFileMount reports whether a file is mounted directly in folder name.
func (f *FS) holdsFileMount(name string) bool {
	for _, m := range f.mounts {
		if m.IsFile && path.Dir(m.Name) == name {
			return true
		}
	}
	return false
}

func (f *FS) ReadFile(name string) ([]byte, error) {
	if !fs.ValidPath(name) {
		return nil, &fs.PathError{Op: "read", Path: name, Err: fs.ErrInvalid}
	}
	m, rest, ok := f.resolve(name)
	if !ok {
		if _, ok := f.parentEntries(name); ok {
			return nil, &fs.PathError{Op: "read", Path: name, Err: errors.New("is a directory")}
		}
		return nil, &fs.PathError{Op: "read", Path: name, Err: ErrOutside}
	}
	var b []byte
	var err error
	if m.IsFile {
		b, err = ReadCapped(FileFS(m.Real), ".")
	} else {
		b, err = ReadCapped(m.FS, rest)
	}
	if err != nil {
		return nil, &fs.PathError{Op: "read", Path: name, Err: unwrapPathErr(err)}
	}
	return b, nil
}

func (f *FS) Stat(name string) (fs.FileInfo, error) {
	if !fs.ValidPath(name) {
		return nil, &fs.PathError{Op: "stat", Path: name, Err: fs.ErrInvalid}
	}
	m, rest, ok := f.resolve(name)
	if !ok {
		if _, ok := f.parentEntries(name); ok {
			return dirInfo(path.Base(name)), nil
		}
		return nil, &fs.PathError{Op: "stat", Path: name, Err: ErrOutside}
	}
	var st fs.FileInfo
	var err error
	if m.IsFile {
		st, err = os.Stat(m.Real)
	} else {
		st, err = fs.Stat(m.FS, rest)
	}
	if err != nil {
		return nil, &fs.PathError{Op: "stat", Path: name, Err: unwrapPathErr(err)}
	}
	if rest == "." {
		st = renamed{st, path.Base(name)}
	}
	return st, nil
}

func (f *FS) ReadDir(name string) ([]fs.DirEntry, error) {
	if !fs.ValidPath(name) {
		return nil, &fs.PathError{Op: "readdir", Path: name, Err: fs.ErrInvalid}
	}
	m, rest, ok := f.resolve(name)
	if !ok {
		if es, ok := f.parentEntries(name); ok {
			return es, nil
		}
	}
	if !ok {
		return nil, &fs.PathError{Op: "readdir", Path: name, Err: ErrOutside}
	}
	if m.IsFile {
		return nil, &fs.PathError{Op: "readdir", Path: name, Err: errors.New("not a directory")}
	}
	es, err := fs.ReadDir(m.FS, rest)
	if err != nil {
		return nil, &fs.PathError{Op: "readdir", Path: name, Err: unwrapPathErr(err)}
	}
	// A file mounted inside this folder (a global hiera.yaml given by its
	// own path) must show up in its listing too.
	if !f.holdsFileMount(name) {
		return es, nil
	}
	es = slices.Clone(es)
	for _, fm := range f.mounts {
		if fm.IsFile && path.Dir(fm.Name) == name {
			if st, err := os.Stat(fm.Real); err == nil {
				base := path.Base(fm.Name)
				es = slices.DeleteFunc(es, func(e fs.DirEntry) bool { return e.Name() == base })
				es = append(es, fs.FileInfoToDirEntry(renamed{st, base}))
				slices.SortFunc(es, func(a, b fs.DirEntry) int { return strings.Compare(a.Name(), b.Name()) })
			}
		}
	}
	return es, nil
}

// ReadLink returns the target of the symbolic link name, as written: the
// compiler reads a link out of the folders given as a path on the Puppet
// server's disk (compiler/outside.go), and never follows it here.
func (f *FS) ReadLink(name string) (string, error) {
	rl, rest, err := f.linkFS("readlink", name)
	if err != nil {
		return "", err
	}
	t, err := rl.ReadLink(rest)
	if err != nil {
		return "", &fs.PathError{Op: "readlink", Path: name, Err: unwrapPathErr(err)}
	}
	return t, nil
}

// Lstat is Stat, except that a symbolic link is described, not followed.
func (f *FS) Lstat(name string) (fs.FileInfo, error) {
	m, _, ok := f.resolve(name)
	if !ok || m.IsFile {
		return f.Stat(name) // a folder above the mounts, or a mounted file: no link of the input
	}
	rl, rest, err := f.linkFS("lstat", name)
	if err != nil {
		return nil, err
	}
	if rest == "." {
		return f.Stat(name)
	}
	st, err := rl.Lstat(rest)
	if err != nil {
		return nil, &fs.PathError{Op: "lstat", Path: name, Err: unwrapPathErr(err)}
	}
	return st, nil
}

// linkFS is the mount holding name, as an fs.ReadLinkFS, and the path
// inside it.
func (f *FS) linkFS(op, name string) (fs.ReadLinkFS, string, error) {
	if !fs.ValidPath(name) {
		return nil, "", &fs.PathError{Op: op, Path: name, Err: fs.ErrInvalid}
	}
	m, rest, ok := f.resolve(name)
	if !ok {
		return nil, "", &fs.PathError{Op: op, Path: name, Err: ErrOutside}
	}
	rl, isRL := m.FS.(fs.ReadLinkFS)
	if m.IsFile || !isRL {
		return nil, "", &fs.PathError{Op: op, Path: name, Err: fs.ErrInvalid}
	}
	return rl, rest, nil
}

// renamed shows a mounted file under its name inside the FS.
type renamed struct {
	fs.FileInfo
	name string
}

func (r renamed) Name() string { return r.name }

// unwrapPathErr is the cause of a failed operation on a mount, which the
// FS reports under its own name for the file. os.Root's "path escapes from
// parent", which says nothing of a link, becomes ErrLinkOutside.
func unwrapPathErr(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		err = pe.Err
	}
	if err != nil && err.Error() == "path escapes from parent" { // os.errPathEscapes, not exported
		return ErrLinkOutside
	}
	return err
}

// Display turns a path of the FS into the path a user typed to reach it.
func (f *FS) Display(name string) string {
	if name == "" {
		return ""
	}
	m, rest, ok := f.resolve(name)
	if !ok {
		return name
	}
	if rest == "." {
		return m.Display
	}
	return filepath.Join(m.Display, filepath.FromSlash(rest))
}

// CleanPathErr keeps "stat x: no such file or directory" readable: "x: no
// such file or directory".
func CleanPathErr(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return fmt.Errorf("%s: %w", pe.Path, pe.Err)
	}
	return err
}
