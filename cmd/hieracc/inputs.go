package main

// The compiler reads its input through one fs.FS. inputFS gives it a small
// virtual tree that holds only what the user named: the environment at
// "env/", the modules folder at "modules/" and Puppet's confdir at "global/"
// (a folder given inside --env keeps its place under "env/"). Because these
// names do not depend on where the control repo is checked out, the same
// inputs give byte-identical bundles on every machine, and nothing outside
// the named folders can be read, whatever a hiera.yaml or a fact says.

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

// mount is one real folder (or, for a global hiera.yaml not named
// hiera.yaml, one real file) shown at a name inside inputFS.
type mount struct {
	name    string // slash path inside inputFS ("env", "global", "global/hiera.yaml")
	real    string // real path, as given by the user
	fsys    fs.FS  // os.DirFS(real), or nil for a file mount
	isFile  bool
	display string // how messages name it: the path the user typed
}

// errOutside is the error for a path outside every mount: a hierarchy that
// reaches there (a datadir "../shared") must fail loudly, not find nothing.
var errOutside = errors.New("outside the folders given to hieracc (--env, --modules, --global)")

// inputFS is a read-only fs.FS over a few mounts.
type inputFS struct {
	mounts []mount // longest name first, so nested mounts win
}

func newInputFS(ms []mount) *inputFS {
	slices.SortFunc(ms, func(a, b mount) int { return len(b.name) - len(a.name) })
	return &inputFS{mounts: ms}
}

// resolve finds the mount holding name and the path inside it.
func (f *inputFS) resolve(name string) (*mount, string, bool) {
	for i := range f.mounts {
		m := &f.mounts[i]
		if name == m.name {
			return m, ".", true
		}
		if rest, ok := strings.CutPrefix(name, m.name+"/"); ok && !m.isFile {
			return m, rest, true
		}
	}
	return nil, "", false
}

// parentEntries lists a folder above mount points ("." is above them
// all): such folders hold only the next step towards each mount. ok is
// false when name is not such a folder.
func (f *inputFS) parentEntries(name string) (es []fs.DirEntry, ok bool) {
	infos := map[string]fs.FileInfo{}
	for _, m := range f.mounts {
		rest := m.name
		if name != "." {
			var found bool
			if rest, found = strings.CutPrefix(m.name, name+"/"); !found {
				continue
			}
		}
		ok = true
		first, _, deeper := strings.Cut(rest, "/")
		if !deeper { // the mount itself: shown as it is on disk
			if st, err := f.Stat(m.name); err == nil {
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

// dirInfo describes a synthetic folder of inputFS.
type dirInfo string

func (d dirInfo) Name() string       { return string(d) }
func (d dirInfo) Size() int64        { return 0 }
func (d dirInfo) Mode() fs.FileMode  { return fs.ModeDir | 0o555 }
func (d dirInfo) ModTime() time.Time { return time.Time{} }
func (d dirInfo) IsDir() bool        { return true }
func (d dirInfo) Sys() any           { return nil }

// dirFile is an open folder whose listing inputFS made.
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

func (f *inputFS) Open(name string) (fs.File, error) {
	if !fs.ValidPath(name) {
		return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrInvalid}
	}
	m, rest, ok := f.resolve(name)
	if !ok {
		if es, ok := f.parentEntries(name); ok {
			return &dirFile{info: dirInfo(path.Base(name)), entries: es}, nil
		}
		return nil, &fs.PathError{Op: "open", Path: name, Err: errOutside}
	}
	if m.isFile {
		file, err := os.Open(m.real)
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
	file, err := m.fsys.Open(rest)
	if err != nil || rest != "." {
		return file, err
	}
	return namedFile{file, path.Base(name)}, nil
}

// namedFile shows a mount's root under its name inside inputFS.
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
func (f *inputFS) holdsFileMount(name string) bool {
	for _, m := range f.mounts {
		if m.isFile && path.Dir(m.name) == name {
			return true
		}
	}
	return false
}

func (f *inputFS) ReadFile(name string) ([]byte, error) {
	if !fs.ValidPath(name) {
		return nil, &fs.PathError{Op: "read", Path: name, Err: fs.ErrInvalid}
	}
	m, rest, ok := f.resolve(name)
	if !ok {
		if _, ok := f.parentEntries(name); ok {
			return nil, &fs.PathError{Op: "read", Path: name, Err: errors.New("is a directory")}
		}
		return nil, &fs.PathError{Op: "read", Path: name, Err: errOutside}
	}
	var b []byte
	var err error
	if m.isFile {
		b, err = readCapped(fileFS(m.real), ".")
	} else {
		b, err = readCapped(m.fsys, rest)
	}
	if err != nil {
		return nil, &fs.PathError{Op: "read", Path: name, Err: unwrapPathErr(err)}
	}
	return b, nil
}

func (f *inputFS) Stat(name string) (fs.FileInfo, error) {
	if !fs.ValidPath(name) {
		return nil, &fs.PathError{Op: "stat", Path: name, Err: fs.ErrInvalid}
	}
	m, rest, ok := f.resolve(name)
	if !ok {
		if _, ok := f.parentEntries(name); ok {
			return dirInfo(path.Base(name)), nil
		}
		return nil, &fs.PathError{Op: "stat", Path: name, Err: errOutside}
	}
	var st fs.FileInfo
	var err error
	if m.isFile {
		st, err = os.Stat(m.real)
	} else {
		st, err = fs.Stat(m.fsys, rest)
	}
	if err != nil {
		return nil, &fs.PathError{Op: "stat", Path: name, Err: unwrapPathErr(err)}
	}
	if rest == "." {
		st = renamed{st, path.Base(name)}
	}
	return st, nil
}

func (f *inputFS) ReadDir(name string) ([]fs.DirEntry, error) {
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
		return nil, &fs.PathError{Op: "readdir", Path: name, Err: errOutside}
	}
	if m.isFile {
		return nil, &fs.PathError{Op: "readdir", Path: name, Err: errors.New("not a directory")}
	}
	es, err := fs.ReadDir(m.fsys, rest)
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
		if fm.isFile && path.Dir(fm.name) == name {
			if st, err := os.Stat(fm.real); err == nil {
				base := path.Base(fm.name)
				es = slices.DeleteFunc(es, func(e fs.DirEntry) bool { return e.Name() == base })
				es = append(es, fs.FileInfoToDirEntry(renamed{st, base}))
				slices.SortFunc(es, func(a, b fs.DirEntry) int { return strings.Compare(a.Name(), b.Name()) })
			}
		}
	}
	return es, nil
}

// renamed shows a mounted file under its name inside inputFS.
type renamed struct {
	fs.FileInfo
	name string
}

func (r renamed) Name() string { return r.name }

func unwrapPathErr(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// display turns an inputFS path into the path a user typed to reach it.
func (f *inputFS) display(name string) string {
	if name == "" {
		return ""
	}
	m, rest, ok := f.resolve(name)
	if !ok {
		return name
	}
	if rest == "." {
		return m.display
	}
	return filepath.Join(m.display, filepath.FromSlash(rest))
}
