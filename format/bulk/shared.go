package bulk

// Shared details files (format version 5) read for many bundles: each is
// read once (again only when a key not asked before is), and only the
// records of the keys asked for are decoded and kept, so that a cache of
// a hundred files holds a few records of each, not every record of every
// file (a file's records take about a megabyte decoded).

import (
	"fmt"
	"slices"
	"sync"

	"github.com/hieracc/hieracc/format"
)

// SharedCache keeps the records of shared details files that callers
// asked for, by the file's path, for at most the number of files given to
// NewSharedCache, forgetting the least recently used first. Safe for
// concurrent use.
type SharedCache struct {
	mu    sync.Mutex
	max   int
	files map[string]*sharedFile
	order []string // least recently used first
}

type sharedFile struct {
	mu    sync.Mutex
	recs  *format.SharedRecords // the records asked for so far
	names []string              // the names asked so far, sorted: those records and no other
	err   error
}

// NewSharedCache returns a cache of at most n files (at least 1).
func NewSharedCache(n int) *SharedCache {
	return &SharedCache{max: max(n, 1), files: map[string]*sharedFile{}}
}

// Records returns the records of the keys named (and maybe others) of the
// shared details file at path, whose digest must be d, with its modules,
// for format.Index.PartialBundle: the file is read and decoded when the
// cache does not hold every record asked.
func (c *SharedCache) Records(path string, d [32]byte, names []string) (*format.SharedRecords, error) {
	c.mu.Lock()
	f := c.files[path]
	if f != nil { // the last to be forgotten
		for i, q := range c.order {
			if q == path {
				c.order = append(append(c.order[:i:i], c.order[i+1:]...), path)
				break
			}
		}
	} else {
		if len(c.order) >= c.max {
			delete(c.files, c.order[0])
			c.order = c.order[1:]
		}
		f = &sharedFile{}
		c.files[path] = f
		c.order = append(c.order, path)
	}
	c.mu.Unlock()

	f.mu.Lock()
	defer f.mu.Unlock()
	if f.err != nil {
		return nil, f.err
	}
	asked := func(n string) bool { _, ok := slices.BinarySearch(f.names, n); return ok }
	if f.recs != nil && !slices.ContainsFunc(names, func(n string) bool { return !asked(n) }) {
		if f.recs.Digest != d {
			return nil, fmt.Errorf("%s: digest does not match the bundle's reference", path)
		}
		return f.recs, nil
	}
	// Those asked now and before: the cache's readers want them again.
	want := append(slices.Clone(f.names), names...)
	slices.Sort(want)
	want = slices.Compact(want)
	data, err := format.ReadFile(path)
	var recs *format.SharedRecords
	if err == nil {
		recs, err = format.ReadSharedRecords(data, want)
	}
	if err != nil {
		f.err = err
		return nil, err
	}
	if recs.Digest != d {
		return nil, fmt.Errorf("%s: digest does not match the bundle's reference", path)
	}
	f.recs, f.names = recs, want
	return f.recs, nil
}
