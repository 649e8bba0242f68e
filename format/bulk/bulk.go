// Package bulk reads the bundles of a whole fleet at once (hieracc diff):
// the bundles that name one shared details file hold the same view
// (format version 6), decoded once for all of them (ViewCache), and the
// same records, decoded once per file and kept only for the keys asked
// (SharedCache). It sits outside package format, whose hooks it uses
// (format.DecodeIndexViews, format.ReadSharedRecords,
// format.Index.PartialBundle), so that agents, which import runtime and
// format, do not compile it.
package bulk

import (
	"strings"
	"sync"

	"github.com/hieracc/hieracc/format"
)

// ViewCache remembers the views (format version 6, see SPEC.md "Value
// table") that DecodeIndex decoded, by their bytes: a bundle whose view is
// byte for byte one already decoded shares its values (read-only, as every
// decoded value). It holds at most the number of views given to
// NewViewCache, forgetting the least recently used first. Safe for
// concurrent use.
type ViewCache struct {
	mu    sync.Mutex
	max   int
	views map[string]*cachedView
	ids   map[*format.ViewTable]uint64 // of the views held
	order []string                     // least recently used first
	next  uint64
}

type cachedView struct {
	v  *format.ViewTable
	id uint64
}

// NewViewCache returns a cache of at most n views (at least 1).
func NewViewCache(n int) *ViewCache {
	return &ViewCache{max: max(n, 1), views: map[string]*cachedView{}, ids: map[*format.ViewTable]uint64{}}
}

// DecodeIndex is format.DecodeIndex, sharing decoded views through c
// (format.DecodeIndexViews): two bundles read through one cache hold the
// same Go values for the entries of their common view.
func DecodeIndex(data []byte, c *ViewCache) (*format.Index, error) {
	return format.DecodeIndexViews(data, c)
}

// LoadView implements format.ViewStore.
func (c *ViewCache) LoadView(b string) *format.ViewTable {
	c.mu.Lock()
	defer c.mu.Unlock()
	v := c.views[b]
	if v == nil {
		return nil
	}
	c.touch(b)
	return v.v
}

// StoreView implements format.ViewStore.
func (c *ViewCache) StoreView(b string, v *format.ViewTable) *format.ViewTable {
	c.mu.Lock()
	defer c.mu.Unlock()
	if w, ok := c.views[b]; ok {
		return w.v // decoded meanwhile: its values are v's
	}
	if len(c.order) >= c.max {
		delete(c.ids, c.views[c.order[0]].v)
		delete(c.views, c.order[0])
		c.order = c.order[1:]
	}
	key := strings.Clone(b) // not the bundle's bytes, which b is a slice of
	c.next++
	c.views[key] = &cachedView{v: v, id: c.next}
	c.ids[v] = c.next
	c.order = append(c.order, key)
	return v
}

// touch makes the view of bytes b the last to be forgotten.
func (c *ViewCache) touch(b string) {
	for i, k := range c.order {
		if k == b {
			c.order = append(append(c.order[:i:i], c.order[i+1:]...), k)
			return
		}
	}
}

// View identifies the view x was read with through c (a number c gave
// it, never 0) and tells its length in entries; 0, 0 when none, or when
// c no longer holds it. Bundles read through one cache whose View is the
// same hold the same values at the same indexes of the view
// (format.Index.ValueIndex).
func (c *ViewCache) View(x *format.Index) (id uint64, entries int) {
	v := x.View()
	if v == nil {
		return 0, 0
	}
	c.mu.Lock()
	id = c.ids[v]
	c.mu.Unlock()
	if id == 0 {
		return 0, 0
	}
	return id, v.Len()
}
