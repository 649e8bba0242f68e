// Package bundleset finds the bundles that `hieracc diff` and `hieracc
// lookup` read in a folder: the folder 'hieracc compile' wrote (its --out),
// or a folder of such folders, as the shards of one fleet compiled apart
// (`compile --shard K/N`) come back from a CI system.
//
// A folder's bundles are its files <certname>.bundle and those of its
// subfolders, one level down: the union of the shards. Every entry named
// <certname>.bundle is read, or is trouble (bad): a certname may start
// with "." (compile's temporary files and state do not end in .bundle),
// and a folder, FIFO or socket of that name is no bundle, not a node
// removed. Other names starting with "." are not read, nor are the
// shared details files of a folder's details/ (format.SharedDetailsDir):
// the runtime reads a bundle's own, beside it, in its shard's folder. A
// node with two bundles in the union is an error, as is an incomplete set
// of shards: each shard's folder holds its state file,
// .hieracc-state-K-of-N.json, and when any is found, all N of one N must
// be, so that a missing shard is not read as nodes removed.
package bundleset

import (
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/hieracc/hieracc/compiler/build"
	"github.com/hieracc/hieracc/format"
)

// Ext ends the name of every bundle file: <certname>.bundle.
const Ext = ".bundle"

// Set is the bundles of a folder.
type Set struct {
	Dir   string            // the folder, as given
	Nodes []string          // the nodes with a bundle, sorted
	files map[string]string // node -> its bundle's file
}

// File is the bundle file of node: the one found, or where the folder
// would hold it (Dir/<node>.bundle) when there is none.
func (s *Set) File(node string) string {
	if f, ok := s.files[node]; ok {
		return f
	}
	return filepath.Join(s.Dir, node+Ext)
}

// Has reports whether node has a bundle in the set.
func (s *Set) Has(node string) bool {
	_, ok := s.files[node]
	return ok
}

// Read lists the bundles of dir and of its subfolders. bad lists the
// entries that look like bundles but cannot be read as files (a link to
// nothing, a FIFO): the caller decides whether they matter. err is for a
// dir that cannot be read, or a union that does not hold together.
func Read(dir string) (s *Set, bad []error, err error) {
	st, err := os.Stat(dir)
	if err != nil {
		return nil, nil, err
	}
	if !st.IsDir() {
		return nil, nil, fmt.Errorf("%s: not a folder (give the folders 'hieracc compile' wrote)", dir)
	}
	s = &Set{Dir: dir, files: map[string]string{}}
	shards := map[build.Shard]string{} // shard -> its state file
	var dup, sub []string              // sub: the subfolders of dir
	read := func(d string, top bool) error {
		entries, err := os.ReadDir(d) // sorted by name
		if err != nil {
			return err
		}
		for _, e := range entries {
			name := e.Name()
			p := filepath.Join(d, name)
			if sh, ok := build.ShardOfStateFile(name); ok {
				if first, ok := shards[sh]; ok {
					return fmt.Errorf("%s: shard %v is in %s and in %s: give each shard's folder once", dir, sh, filepath.Dir(first), d)
				}
				shards[sh] = p
				continue
			}
			node, ok := strings.CutSuffix(name, Ext)
			if !ok || node == "" {
				// Not a bundle's name: compile's temporary files and
				// staging folders, its state, a .bundle folder (Ruby
				// Bundler's); one level down, the shards' folders.
				if top && !strings.HasPrefix(name, ".") && isDir(e, p) {
					sub = append(sub, p)
				}
				continue
			}
			// Named as a bundle (".web" is a certname too): it is read, or
			// it is trouble. A FIFO would wait for ever, a device read for
			// ever, a folder is no bundle: none is skipped, which would
			// make a node's damaged or changed bundle look removed.
			if !e.Type().IsRegular() {
				st, err := os.Stat(p)
				switch {
				case err != nil:
					bad = append(bad, err)
					continue
				case !st.Mode().IsRegular():
					bad = append(bad, fmt.Errorf("%s: %w", p, format.NotRegular(st.Mode())))
					continue
				}
			}
			if first, ok := s.files[node]; ok {
				dup = append(dup, fmt.Sprintf("node %s has two bundles: %s and %s", node, first, p))
				continue
			}
			s.files[node] = p
			s.Nodes = append(s.Nodes, node)
		}
		return nil
	}
	if err := read(dir, true); err != nil {
		return nil, nil, err
	}
	for _, d := range sub {
		if err := read(d, false); err != nil {
			return nil, nil, err
		}
	}
	if len(dup) > 0 {
		more := ""
		if len(dup) > 3 {
			more = fmt.Sprintf(" (and %d more)", len(dup)-3)
			dup = dup[:3]
		}
		return nil, nil, fmt.Errorf("%s: %s%s: give each shard's folder once, and only the shards of one compile", dir, strings.Join(dup, "; "), more)
	}
	if err := complete(dir, shards); err != nil {
		return nil, nil, err
	}
	if err := whole(dir, shards, s.files); err != nil {
		return nil, nil, err
	}
	// Sorted by node, not by file name: "a.bundle" vs "a-b.bundle" sort
	// differently once the suffix is gone.
	slices.Sort(s.Nodes)
	return s, bad, nil
}

// complete checks that the shards whose state files were found are all
// the shards of one N.
func complete(dir string, shards map[build.Shard]string) error {
	if len(shards) == 0 {
		return nil
	}
	ns := map[int]bool{}
	n := 0
	for sh := range shards {
		ns[sh.N] = true
		n = sh.N
	}
	if len(ns) > 1 {
		var all []string
		for sh := range shards {
			all = append(all, sh.String())
		}
		slices.Sort(all)
		return fmt.Errorf("%s: holds shards of compiles split differently (%s): give the shards of one compile", dir, strings.Join(all, ", "))
	}
	var missing []string
	for k := 1; k <= n; k++ {
		if _, ok := shards[build.Shard{K: k, N: n}]; !ok {
			missing = append(missing, build.Shard{K: k, N: n}.String())
		}
	}
	if len(missing) > 0 {
		if len(missing) > 5 {
			missing = append(missing[:5], fmt.Sprintf("and %d more", len(missing)-5))
		}
		return fmt.Errorf("%s: holds %d of %d shards; missing %s (each shard's folder holds its state file, .hieracc-state-K-of-N.json)",
			dir, len(shards), n, strings.Join(missing, ", "))
	}
	return nil
}

// whole checks that each shard's folder holds the bundles its state says
// its compile left there: a folder that lost them (an upload of the state
// alone, say) is trouble, not its nodes removed.
func whole(dir string, shards map[build.Shard]string, files map[string]string) error {
	all := slices.Collect(maps.Keys(shards))
	slices.SortFunc(all, func(a, b build.Shard) int { return a.K - b.K })
	for _, sh := range all {
		state := shards[sh]
		nodes, ok := build.BundlesOfState(state)
		if !ok {
			continue // another hieracc's, or damaged: it says nothing
		}
		var missing []string
		for _, n := range nodes {
			if f, ok := files[n]; !ok || filepath.Dir(f) != filepath.Dir(state) {
				missing = append(missing, n)
			}
		}
		if len(missing) == 0 {
			continue
		}
		n := len(missing)
		if n > 5 {
			missing = append(missing[:5], fmt.Sprintf("and %d more", n-5))
		}
		return fmt.Errorf("%s: shard %v's folder %s lacks %d of the %d bundles its state file lists (%s): give each shard's folder whole",
			dir, sh, filepath.Dir(state), n, len(nodes), strings.Join(missing, ", "))
	}
	return nil
}

// isDir reports whether the entry e, at p, is a folder or a link to one.
func isDir(e os.DirEntry, p string) bool {
	if e.IsDir() {
		return true
	}
	if e.Type()&os.ModeSymlink == 0 {
		return false
	}
	st, err := os.Stat(p)
	return err == nil && st.IsDir()
}
