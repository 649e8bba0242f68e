// Package stage writes bundles into OUT so that each appears whole or not
// at all, and a failed or killed run changes nothing: every file is
// written to a temporary file first (in a staging folder in OUT for
// bundles, beside the file for others), made durable, then renamed. One
// build at a time writes into OUT (Lock), and its commit also removes the
// bundles of nodes it was not given.
package stage

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/hieracc/hieracc/compiler/build/internal/inputfs"
	"github.com/hieracc/hieracc/format"
)

// Writer writes the bundles of one run: Stage encodes a bundle into a
// temporary file as soon as it is compiled (safe for concurrent use);
// Commit makes them all durable at once, then renames them over the old
// ones; Discard removes what was not committed.
//
// The temporary files go to staging folders in OUT, one per concurrent
// writer: creating thousands of files in one folder from several threads
// makes them wait on the folder and search the same inode tables (on
// ext4, about a third of a full compile's system time); ext4 places a new
// folder in another block group, and its writer has it to itself.
type Writer struct {
	out      string
	mu       sync.Mutex
	staged   []staged
	dirs     []string // staging folders
	dirOnce  sync.Once
	dirErr   error
	encoders sync.Pool // of *encoderBuf
}

// NewWriter returns a Writer into the folder out (which LockDir created;
// Stage creates it again if it went).
func NewWriter(out string) *Writer { return &Writer{out: out} }

type staged struct{ tmp, dst string }

// encoderBuf is an encoder with the buffer it reuses, and the staging
// folder of the writer that holds it.
type encoderBuf struct {
	enc *format.Encoder
	buf []byte
	dir string
}

// mkdir makes sure OUT exists when the first bundle is staged.
func (w *Writer) mkdir() error {
	w.dirOnce.Do(func() {
		if err := os.MkdirAll(w.out, 0o750); err != nil {
			w.dirErr = fmt.Errorf("--out: %v", inputfs.CleanPathErr(err))
		}
	})
	return w.dirErr
}

// Stage encodes b, signed and sealed as p says, into a temporary file of
// OUT.
func (w *Writer) Stage(b *format.Bundle, p format.Protection) error {
	if err := w.mkdir(); err != nil {
		return err
	}
	// Encoders remember what earlier bundles shared (values, whole keys),
	// so each concurrent caller takes one from the pool with its buffer.
	enc, _ := w.encoders.Get().(*encoderBuf)
	if enc == nil {
		enc = &encoderBuf{enc: format.NewEncoder()}
	}
	defer w.encoders.Put(enc)
	var err error
	enc.buf, err = enc.enc.AppendWith(enc.buf[:0], b, p)
	if err != nil {
		return fmt.Errorf("encoding the bundle of %s: %v; nothing written", b.Node, err)
	}
	if enc.dir == "" {
		dir, err := os.MkdirTemp(w.out, ".stage"+tempSuffix())
		if err != nil {
			return fmt.Errorf("--out: %v", inputfs.CleanPathErr(err))
		}
		w.mu.Lock()
		w.dirs = append(w.dirs, dir)
		w.mu.Unlock()
		enc.dir = dir
	}
	name := b.Node + ".bundle"
	tmp := filepath.Join(enc.dir, name)
	// Not synced one by one: a sync per file costs a disk flush each
	// (18 s of a 57 s compile of 10,000 nodes); Commit syncs them together.
	f, err := os.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o640)
	if err == nil {
		err = fill(f, enc.buf, false, !createdExact())
	}
	if err != nil {
		os.Remove(tmp)
		return err
	}
	w.mu.Lock()
	w.staged = append(w.staged, staged{tmp, filepath.Join(w.out, name)})
	w.mu.Unlock()
	return nil
}

// Commit makes every staged bundle durable, then renames each over the
// old one, and returns how many it wrote. Then it removes the bundles in
// OUT of the nodes remove accepts (their facts are gone; with remove nil,
// none), and says how many. Nothing is renamed when a bundle's place
// is taken by a folder.
func (w *Writer) Commit(remove func(node string) bool) (written, removed int, err error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	// A rename that fails half-way leaves a mix of generations: what can
	// be seen to fail fails before the first.
	for _, s := range w.staged {
		if st, err := os.Lstat(s.dst); err == nil && st.IsDir() {
			return 0, 0, fmt.Errorf("%s is a folder, where the bundle of node %s goes; nothing written",
				s.dst, strings.TrimSuffix(filepath.Base(s.dst), ".bundle"))
		}
	}
	// Every bundle's bytes are on disk before any rename: after a power
	// failure OUT holds old bundles or new ones, never an empty one.
	if len(w.staged) > 0 {
		tmps := make([]string, len(w.staged))
		for i, s := range w.staged {
			tmps[i] = s.tmp
		}
		if err := syncFiles(w.out, tmps); err != nil {
			return 0, 0, fmt.Errorf("--out: syncing the new bundles: %v; nothing written", inputfs.CleanPathErr(err))
		}
	}
	for i, s := range w.staged {
		if err := os.Rename(s.tmp, s.dst); err != nil {
			w.staged = w.staged[i:]
			return i, 0, fmt.Errorf("%v (%d of %d bundles written)", err, i, i+len(w.staged))
		}
	}
	written = len(w.staged)
	w.staged = nil
	for _, dir := range w.dirs {
		os.Remove(dir) // empty now
	}
	w.dirs = nil
	if remove != nil {
		removed, err = removeOthers(w.out, remove)
	}
	// Make the renames and removals durable too.
	if d, err := os.Open(w.out); err == nil {
		_ = d.Sync() // not supported everywhere; the files themselves are synced
		d.Close()
	}
	return written, removed, err
}

// removeOthers removes from out the bundles (files named *.bundle that
// start as bundles do) of the nodes remove accepts. Another file of that
// name (a git bundle, say) is left alone.
func removeOthers(out string, remove func(node string) bool) (int, error) {
	entries, err := os.ReadDir(out)
	if err != nil {
		return 0, fmt.Errorf("--out: %v", inputfs.CleanPathErr(err))
	}
	n := 0
	for _, e := range entries {
		node, ok := strings.CutSuffix(e.Name(), ".bundle")
		if !ok || !e.Type().IsRegular() || !remove(node) || !isBundle(filepath.Join(out, e.Name())) {
			continue
		}
		if err := os.Remove(filepath.Join(out, e.Name())); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return n, fmt.Errorf("removing the bundle of node %s, whose facts were not given: %v", node, inputfs.CleanPathErr(err))
		}
		n++
	}
	return n, nil
}

// Discard removes whatever was not committed.
func (w *Writer) Discard() {
	w.mu.Lock()
	defer w.mu.Unlock()
	for _, s := range w.staged {
		os.Remove(s.tmp)
	}
	for _, dir := range w.dirs {
		os.Remove(dir)
	}
	w.staged, w.dirs = nil, nil
}

// isBundle reports whether the regular file p starts as a hieracc bundle,
// whole or damaged.
func isBundle(p string) bool {
	f, err := os.Open(p)
	if err != nil {
		return false
	}
	defer f.Close()
	if st, err := f.Stat(); err != nil || !st.Mode().IsRegular() {
		return false
	}
	_, err = format.ReadHeader(f)
	return !errors.Is(err, format.ErrNotBundle)
}

// WriteAtomic writes data to dst through a synced temporary file.
func WriteAtomic(dst string, data []byte) error {
	tmp, err := writeTemp(dst, data, true)
	if err != nil {
		return err
	}
	if err := os.Rename(tmp, dst); err != nil {
		os.Remove(tmp)
		return err
	}
	return nil
}

// writeTemp writes data to a temporary file beside dst, mode 0640, synced
// if asked, and returns its name.
func writeTemp(dst string, data []byte, sync bool) (name string, err error) {
	tmp, err := os.CreateTemp(filepath.Dir(dst), tempPattern(dst))
	if err != nil {
		return "", err
	}
	if err := fill(tmp, data, sync, true); err != nil {
		os.Remove(tmp.Name())
		return "", err
	}
	return tmp.Name(), nil
}

// fill writes data to a new file and closes it: synced if asked, else
// with its writeback started. With chmod, it first sets the file's mode to
// 0640; without, the file must have been created so.
func fill(f *os.File, data []byte, sync, chmod bool) error {
	// Bundles carry whatever secrets the data holds: owner and group only.
	var err error
	if chmod {
		err = f.Chmod(0o640)
	}
	if err == nil {
		_, err = f.Write(data)
	}
	if err == nil && sync {
		err = f.Sync()
	} else if err == nil {
		startWriteback(f)
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// createdExact reports whether a file created with mode 0640 has that
// mode exactly (the umask takes none of its bits), so that Stage need not
// set it again: one system call less per bundle.
var createdExact = sync.OnceValue(func() bool {
	mask, ok := umask()
	return ok && mask&0o640 == 0
})

// fsyncEach syncs each file to disk.
func fsyncEach(files []string) error {
	for _, name := range files {
		f, err := os.Open(name)
		if err != nil {
			return err
		}
		err = f.Sync()
		f.Close()
		if err != nil {
			return err
		}
	}
	return nil
}
