package serve

// Stage: the folder served, read as a whole. A snapshot is the folder's
// bundles (package bundleset) and each one's digest, read between two
// looks at the compile's state files: a compile removes its state before
// its first rename and writes it after its last, so a snapshot whose state
// files were there, unchanged, before and after it was read is one
// compile's output, not a mix of two. A bundle opened later must still
// have the digest its snapshot recorded; when it does not, the folder has
// moved on, and the request is answered again from the next snapshot.

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/hieracc/hieracc/cmd/hieracc/internal/bundleset"
	"github.com/hieracc/hieracc/compiler/build"
	"github.com/hieracc/hieracc/format"
)

// snapshot is the folder's bundles at one time.
type snapshot struct {
	serial  uint64
	set     *bundleset.Set
	digests map[string][32]byte // node -> its bundle's digest
	stamps  []stamp             // the state files (and folders) read around it
	loaded  time.Time

	// Revision and SourceRevision of the bundles, when they all share
	// one; else "".
	revision, sourceRevision string

	keysMu sync.Mutex
	keys   []string // every key of the fleet, sorted (allKeys)
}

// stamp is what a file's stat says of its identity and content.
type stamp struct {
	path  string
	ino   os.FileInfo
	isDir bool
}

func (a stamp) same(b stamp) bool {
	return a.path == b.path && os.SameFile(a.ino, b.ino) &&
		(a.isDir || a.ino.Size() == b.ino.Size() && a.ino.ModTime().Equal(b.ino.ModTime())) &&
		(!a.isDir || a.ino.ModTime().Equal(b.ino.ModTime()))
}

func sameStamps(a, b []stamp) bool {
	return slices.EqualFunc(a, b, stamp.same)
}

// stamps lists the state files of dir and of its subfolders (the shards'),
// and the folders themselves, sorted by path. states says whether there
// were state files; temps whether a running compile's temporary files or
// staging folders were there.
func stamps(dir string) (out []stamp, states, temps bool, err error) {
	var walk func(d string, top bool) error
	walk = func(d string, top bool) error {
		st, err := os.Stat(d)
		if err != nil {
			return err
		}
		out = append(out, stamp{path: d, ino: st, isDir: true})
		entries, err := os.ReadDir(d)
		if err != nil {
			return err
		}
		for _, e := range entries {
			name := e.Name()
			p := filepath.Join(d, name)
			if build.IsTemp(name) {
				temps = temps || running(name)
				continue
			}
			if _, ok := build.ShardOfStateFile(name); ok || name == build.StateFile {
				st, err := os.Stat(p)
				if err != nil {
					continue // removed since: a compile began
				}
				states = true
				out = append(out, stamp{path: p, ino: st})
				continue
			}
			if top && !strings.HasPrefix(name, ".") && name != format.SharedDetailsDir && !strings.HasSuffix(name, bundleset.Ext) {
				if st, err := os.Stat(p); err == nil && st.IsDir() {
					if err := walk(p, false); err != nil {
						return err
					}
				}
			}
		}
		return nil
	}
	if err := walk(dir, true); err != nil {
		return nil, false, false, err
	}
	slices.SortFunc(out, func(a, b stamp) int { return strings.Compare(a.path, b.path) })
	return out, states, temps, nil
}

// running reports whether the compile whose temporary file is name (its
// process id in the name: .X.tmp-<pid>-<n>) still runs, as far as this
// system can tell.
func running(name string) bool {
	i := strings.LastIndex(name, ".tmp-")
	if i < 0 {
		return false
	}
	pidText, _, _ := strings.Cut(name[i+len(".tmp-"):], "-")
	pid, err := strconv.Atoi(pidText)
	if err != nil || pid <= 0 {
		return false
	}
	p, err := os.FindProcess(pid)
	return err == nil && p.Signal(syscall.Signal(0)) == nil
}

// errBusy is a folder being written: a compile is committing into it.
var errBusy = errors.New("a compile is writing into the folder")

// readSnapshot reads dir as a whole. prev, the snapshot served, tells
// whether dir had state files: a folder that had them and has none is
// being written (errBusy), as is one without state files that holds a
// compile's temporary files, unless anyway (a compile killed long ago
// may have left them).
func readSnapshot(dir string, prev *snapshot, anyway bool) (*snapshot, error) {
	before, states, temps, err := stamps(dir)
	if err != nil {
		return nil, err
	}
	if !states && (prev != nil && hasStates(prev.stamps) || temps && !anyway) {
		return nil, errBusy
	}
	set, _, err := bundleset.Read(dir)
	if err != nil {
		return nil, err
	}
	s := &snapshot{set: set, digests: make(map[string][32]byte, len(set.Nodes)), loaded: time.Now()}
	first := true
	for _, node := range set.Nodes {
		h, err := readHeader(set.File(node))
		if err != nil {
			if errors.Is(err, os.ErrNotExist) {
				return nil, errBusy // removed since it was listed
			}
			return nil, fmt.Errorf("%s: %v", set.File(node), err)
		}
		s.digests[node] = h.Digest
		if first {
			s.revision, s.sourceRevision, first = h.Revision, h.SourceRevision, false
		} else {
			if h.Revision != s.revision {
				s.revision = ""
			}
			if h.SourceRevision != s.sourceRevision {
				s.sourceRevision = ""
			}
		}
	}
	after, _, _, err := stamps(dir)
	if err != nil {
		return nil, err
	}
	if states && !sameStamps(statesOf(before), statesOf(after)) {
		return nil, errBusy
	}
	s.stamps = after
	return s, nil
}

func hasStates(ss []stamp) bool {
	for _, s := range ss {
		if !s.isDir {
			return true
		}
	}
	return false
}

// readHeader reads the header of the bundle file p.
func readHeader(p string) (format.Header, error) {
	f, err := os.Open(p)
	if err != nil {
		return format.Header{}, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return format.Header{}, err
	}
	if !st.Mode().IsRegular() {
		return format.Header{}, format.NotRegular(st.Mode())
	}
	return format.ReadHeader(f)
}

// statesOf is the state files' stamps of ss.
func statesOf(ss []stamp) []stamp {
	var out []stamp
	for _, s := range ss {
		if !s.isDir {
			out = append(out, s)
		}
	}
	return out
}

// changed reports whether dir looks otherwise than when s was read: for a
// compile's folder, whether its state files changed (a compile's staging
// inside it changes the folder, not its output); for another, whether
// the folders changed.
func (s *snapshot) changed(dir string) bool {
	now, _, _, err := stamps(dir)
	if err != nil {
		return true
	}
	if hasStates(s.stamps) {
		return !sameStamps(statesOf(now), statesOf(s.stamps))
	}
	return !sameStamps(now, s.stamps)
}
