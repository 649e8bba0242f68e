// Package stage writes bundles into OUT so that each appears whole or not
// at all, and a failed or killed run changes nothing: every file is
// written to a temporary file first (in a staging folder in OUT for
// bundles and their shared details files, beside the file for others),
// made durable, then renamed. One build at a time writes into OUT (Lock),
// and its commit also removes the bundles of nodes it was not given, and
// the shared details files no bundle refers to.
//
// Shared details files (encode.SharedDetails) go to OUT/details/, one per
// digest however many bundles refer to it, and are renamed into place
// before any bundle: OUT never holds a bundle whose shared details file
// is missing, even after a crash.
package stage

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/hieracc/hieracc/compiler/build/internal/inputfs"
	"github.com/hieracc/hieracc/format"
	"github.com/hieracc/hieracc/format/encode"
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
	out     string
	mu      sync.Mutex
	staged  []staged
	shared  map[[32]byte]*sharedFile // by digest: those of the bundles staged
	dirs    []string                 // staging folders
	dirOnce sync.Once
	dirErr  error
	// Encoders not in use. Not a sync.Pool: the garbage collector
	// empties one, and an Encoder dropped so takes with it what the
	// bundles it encoded shared (values, shared details files, views),
	// which the next one builds again. A compile keeps as many as it
	// encodes bundles at once, and gives each bundle the encoder of the
	// bundle before it in the same lane (see encoder).
	freeMu sync.Mutex
	free   []*encoderBuf
}

// NewWriter returns a Writer into the folder out (which LockDir created;
// Stage creates it again if it went).
func NewWriter(out string) *Writer { return &Writer{out: out} }

type staged struct {
	tmp, dst string
	node     string
	ref      Ref // the shared details file the bundle refers to
}

// Staged is a bundle staged: its digest (its header's, of its body) and
// the shared details file it refers to.
type Staged struct {
	Digest [32]byte
	Shared Ref
}

// Ref is what a bundle refers to: the shared details file of digest
// Digest, when Has.
type Ref struct {
	Digest [32]byte
	Has    bool
}

// sharedFile is a shared details file a staged bundle refers to: staged
// (tmp) by the first bundle that refers to it, or already in OUT.
type sharedFile struct {
	once sync.Once
	tmp  string // the staged file; "" when OUT holds it already
	dst  string
	err  error
}

// encoderBuf is an encoder with the buffer it reuses, the staging
// folder of the writer that holds it, and the lane of the last bundle it
// encoded.
type encoderBuf struct {
	enc  *encode.Encoder
	buf  []byte
	dir  string
	lane int
}

// encoder takes an encoder not in use for a bundle of lane, or a new one:
// the one that encoded the last bundle of the same lane, if free, else
// the one given back last. A compile worker is a lane (compiler.Input's
// Emit says which), and an Encoder saves most when it gets the nodes of
// one worker, one after the other (encode.Encoder: what the last bundle
// held).
func (w *Writer) encoder(lane int) *encoderBuf {
	w.freeMu.Lock()
	defer w.freeMu.Unlock()
	n := len(w.free)
	if n == 0 {
		return &encoderBuf{enc: encode.NewEncoder(), lane: -1}
	}
	i := n - 1
	for j, enc := range w.free {
		if enc.lane == lane {
			i = j
			break
		}
	}
	enc := w.free[i]
	w.free[i] = w.free[n-1]
	w.free = w.free[:n-1]
	return enc
}

// release gives enc back, after it encoded a bundle of lane.
func (w *Writer) release(enc *encoderBuf, lane int) {
	enc.lane = lane
	w.freeMu.Lock()
	w.free = append(w.free, enc)
	w.freeMu.Unlock()
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
// OUT, with the shared details file it refers to when OUT does not hold
// that one already (staged once, whatever the number of bundles that
// refer to it), and says which shared details file that is. lane is the
// stream b comes in (compiler.Input.Emit's lane: the compile worker):
// Stage encodes it with the encoder of the last bundle of that lane when
// it can, which then has least to do (any lane gives the same bytes).
func (w *Writer) Stage(lane int, b *format.Bundle, p encode.Protection) (Staged, error) {
	if err := w.mkdir(); err != nil {
		return Staged{}, err
	}
	// Encoders remember what earlier bundles shared (values, whole keys),
	// so each concurrent caller takes one from the pool with its buffer.
	enc := w.encoder(lane)
	defer w.release(enc, lane)
	var (
		shared *encode.SharedDetails
		err    error
	)
	enc.buf, shared, err = enc.enc.AppendShared(enc.buf[:0], b, p)
	if err != nil {
		return Staged{}, fmt.Errorf("encoding the bundle of %s: %v; nothing written", b.Node, err)
	}
	h, err := format.ReadHeader(bytes.NewReader(enc.buf))
	if err != nil {
		return Staged{}, fmt.Errorf("encoding the bundle of %s: %v; nothing written", b.Node, err)
	}
	if enc.dir == "" {
		dir, err := os.MkdirTemp(w.out, ".stage"+tempSuffix())
		if err != nil {
			return Staged{}, fmt.Errorf("--out: %v", inputfs.CleanPathErr(err))
		}
		w.mu.Lock()
		w.dirs = append(w.dirs, dir)
		w.mu.Unlock()
		enc.dir = dir
	}
	var ref Ref
	if shared != nil {
		// shared.Data is the encoder's until its next call: written now.
		ref = Ref{Digest: shared.Digest, Has: true}
		if err := w.stageShared(enc.dir, shared); err != nil {
			return Staged{}, err
		}
	}
	name := b.Node + ".bundle"
	tmp := filepath.Join(enc.dir, name)
	// Not synced one by one: a sync per file costs a disk flush each
	// (18 s of a 57 s compile of 10,000 nodes); Commit syncs them together.
	if err := writeStaged(tmp, enc.buf); err != nil {
		return Staged{}, err
	}
	w.mu.Lock()
	w.staged = append(w.staged, staged{tmp: tmp, dst: filepath.Join(w.out, name), node: b.Node, ref: ref})
	w.mu.Unlock()
	return Staged{Digest: h.Digest, Shared: ref}, nil
}

// stageShared makes sure the shared details file s is committed with the
// bundles: the first bundle that refers to it stages it in its staging
// folder dir, unless OUT holds it already, whole (its digest checked);
// the others wait for that and find it done.
func (w *Writer) stageShared(dir string, s *encode.SharedDetails) error {
	w.mu.Lock()
	if w.shared == nil {
		w.shared = map[[32]byte]*sharedFile{}
	}
	f := w.shared[s.Digest]
	if f == nil {
		f = &sharedFile{dst: filepath.Join(w.out, filepath.FromSlash(format.SharedDetailsName(s.Digest)))}
		w.shared[s.Digest] = f
	}
	w.mu.Unlock()
	f.once.Do(func() {
		if SharedIntact(f.dst, s.Digest) {
			return
		}
		tmp := filepath.Join(dir, filepath.Base(f.dst))
		if f.err = writeStaged(tmp, s.Data); f.err == nil {
			f.tmp = tmp
		}
	})
	return f.err
}

// SharedIntact reports whether the regular file p is a whole shared
// details file of digest d.
func SharedIntact(p string, d [32]byte) bool {
	if st, err := os.Lstat(p); err != nil || !st.Mode().IsRegular() {
		return false // not a symbolic link either: the file itself is OUT's
	}
	got, err := format.VerifySharedDetailsFile(p)
	return err == nil && got == d
}

// writeStaged writes data to the new file tmp, mode 0640, not synced.
func writeStaged(tmp string, data []byte) error {
	f, err := os.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o640)
	if err == nil {
		err = fill(f, data, false, !createdExact())
	}
	if err != nil {
		os.Remove(tmp)
	}
	return err
}

// Cleanup is what a commit removes from OUT once the staged bundles are
// in place.
type Cleanup struct {
	// Remove accepts the nodes whose bundles in OUT go (their facts are
	// gone); nil: none.
	Remove func(node string) bool
	// Prune removes from OUT/details/ the shared details files that no
	// bundle in OUT refers to once committed.
	Prune bool
	// Kept says, of the bundles in OUT that the build kept as they were
	// (an incremental build's), which shared details file each refers to,
	// so that Prune need not read them. A bundle in OUT neither staged
	// nor kept is read.
	Kept map[string]Ref
}

// Result is what a commit did.
type Result struct {
	Written, Removed             int // bundles
	SharedWritten, SharedRemoved int // shared details files
}

// Commit makes every staged bundle and shared details file durable, then
// renames the shared details files into OUT/details/, then each bundle
// over the old one. Then it removes what c says. Nothing is renamed when a
// bundle's or a shared details file's place is taken by a folder.
func (w *Writer) Commit(c Cleanup) (res Result, err error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	var shared []*sharedFile
	for _, f := range w.shared {
		if f.tmp != "" {
			shared = append(shared, f)
		}
	}
	slices.SortFunc(shared, func(a, b *sharedFile) int { return strings.Compare(a.dst, b.dst) })
	// A rename that fails half-way leaves a mix of generations: what can
	// be seen to fail fails before the first.
	for _, s := range w.staged {
		if st, err := os.Lstat(s.dst); err == nil && st.IsDir() {
			return res, fmt.Errorf("%s is a folder, where the bundle of node %s goes; nothing written", s.dst, s.node)
		}
	}
	details := filepath.Join(w.out, format.SharedDetailsDir)
	if len(shared) > 0 {
		if st, err := os.Stat(details); err == nil && !st.IsDir() {
			return res, fmt.Errorf("%s is not a folder: the shared details files of the bundles go there; nothing written", details)
		}
		for _, f := range shared {
			if st, err := os.Lstat(f.dst); err == nil && st.IsDir() {
				return res, fmt.Errorf("%s is a folder, where a shared details file goes; nothing written", f.dst)
			}
		}
	}
	// Every file's bytes are on disk before any rename: after a power
	// failure OUT holds old bundles or new ones, never an empty one.
	if len(w.staged)+len(shared) > 0 {
		tmps := make([]string, 0, len(w.staged)+len(shared))
		for _, f := range shared {
			tmps = append(tmps, f.tmp)
		}
		for _, s := range w.staged {
			tmps = append(tmps, s.tmp)
		}
		if err := syncFiles(w.out, tmps); err != nil {
			return res, fmt.Errorf("--out: syncing the new bundles: %v; nothing written", inputfs.CleanPathErr(err))
		}
	}
	// The shared details files first, made durable in their folder: a
	// bundle never appears before the file it refers to.
	if len(shared) > 0 {
		if err := os.MkdirAll(details, 0o750); err != nil {
			return res, fmt.Errorf("--out: %v; nothing written", inputfs.CleanPathErr(err))
		}
		for i, f := range shared {
			if err := os.Rename(f.tmp, f.dst); err != nil {
				return res, fmt.Errorf("%v (%d of %d shared details files, no bundle written)", err, i, len(shared))
			}
			f.tmp = ""
			res.SharedWritten++
		}
		syncDir(details)
	}
	for i, s := range w.staged {
		if err := os.Rename(s.tmp, s.dst); err != nil {
			w.staged = w.staged[i:]
			return res, fmt.Errorf("%v (%d of %d bundles written)", err, i, i+len(w.staged))
		}
		res.Written++
	}
	staged := w.staged
	w.staged = nil
	for _, dir := range w.dirs {
		os.Remove(dir) // empty now
	}
	w.dirs = nil
	if c.Remove != nil || c.Prune {
		res.Removed, res.SharedRemoved, err = w.cleanup(c, staged)
	}
	// Make the renames and removals durable too.
	syncDir(w.out)
	return res, err
}

// syncDir makes the renames and removals in dir durable, where the
// system can (the files themselves are synced).
func syncDir(dir string) {
	if d, err := os.Open(dir); err == nil {
		_ = d.Sync()
		d.Close()
	}
}

// cleanup removes from OUT the bundles of the nodes c.Remove accepts,
// then, with c.Prune, the shared details files no bundle left in OUT
// refers to. staged are the bundles just committed.
func (w *Writer) cleanup(c Cleanup, staged []staged) (removed, sharedRemoved int, err error) {
	entries, err := os.ReadDir(w.out)
	if err != nil {
		return 0, 0, fmt.Errorf("--out: %v", inputfs.CleanPathErr(err))
	}
	refs := map[[32]byte]bool{}
	written := make(map[string]bool, len(staged))
	for _, s := range staged {
		written[s.node] = true
		if s.ref.Has {
			refs[s.ref.Digest] = true
		}
	}
	known := true // every bundle left in OUT has its reference in refs
	for _, e := range entries {
		node, ok := strings.CutSuffix(e.Name(), ".bundle")
		if !ok || !e.Type().IsRegular() || written[node] {
			continue
		}
		p := filepath.Join(w.out, e.Name())
		if c.Remove != nil && c.Remove(node) && isBundle(p) {
			if err := os.Remove(p); err != nil && !errors.Is(err, fs.ErrNotExist) {
				return removed, 0, fmt.Errorf("removing the bundle of node %s, whose facts were not given: %v", node, inputfs.CleanPathErr(err))
			}
			removed++
			continue
		}
		if !c.Prune {
			continue
		}
		if ref, ok := c.Kept[node]; ok {
			if ref.Has {
				refs[ref.Digest] = true
			}
			continue
		}
		ref, isOurs, ok := readRef(p)
		switch {
		case !isOurs:
		case !ok:
			known = false // a damaged bundle: what it refers to is not known
		case ref.Has:
			refs[ref.Digest] = true
		}
	}
	if c.Prune && known {
		sharedRemoved, err = pruneShared(filepath.Join(w.out, format.SharedDetailsDir), refs)
	}
	return removed, sharedRemoved, err
}

// readRef reads which shared details file the bundle file p refers to;
// isOurs is false when p is not a hieracc bundle, ok false when it is one
// that cannot be read.
func readRef(p string) (ref Ref, isOurs, ok bool) {
	if !isBundle(p) {
		return Ref{}, false, false
	}
	data, err := format.ReadFile(p)
	if err != nil {
		return Ref{}, true, false
	}
	x, err := format.DecodeIndex(data)
	if err != nil {
		return Ref{}, true, false
	}
	ref.Digest, ref.Has = x.SharedDigest()
	return ref, true, true
}

// pruneShared removes from dir the shared details files (regular files
// with a name ParseSharedDetailsName accepts) whose digest is not in refs;
// nothing else in dir is touched.
func pruneShared(dir string, refs map[[32]byte]bool) (int, error) {
	entries, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return 0, nil
	}
	if err != nil {
		return 0, fmt.Errorf("--out: %v", inputfs.CleanPathErr(err))
	}
	n := 0
	for _, e := range entries {
		d, ok := format.ParseSharedDetailsName(e.Name())
		if !ok || !e.Type().IsRegular() || refs[d] {
			continue
		}
		if err := os.Remove(filepath.Join(dir, e.Name())); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return n, fmt.Errorf("removing %s, which no bundle refers to: %v", filepath.Join(dir, e.Name()), inputfs.CleanPathErr(err))
		}
		n++
	}
	if n > 0 {
		syncDir(dir)
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
	for _, f := range w.shared {
		if f.tmp != "" {
			os.Remove(f.tmp)
		}
	}
	for _, dir := range w.dirs {
		os.Remove(dir)
	}
	w.staged, w.shared, w.dirs = nil, nil, nil
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
