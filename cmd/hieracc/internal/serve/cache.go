package serve

// Stage: the bundles opened, kept in a least-recently-used cache by
// digest, so that a fleet of any size costs the memory of the bundles in
// use, not of every bundle. A digest names one bundle's bytes for ever:
// an entry is never stale, only unused.

import (
	"container/list"
	"sync"

	"github.com/hieracc/hieracc/runtime"
)

// opened is a bundle and what the server learned of it.
type opened struct {
	b *runtime.Bundle
}

// isSecret reports whether key's value is secret: decrypted from
// ENC[...], or Sensitive.
func (o *opened) isSecret(key string) (bool, error) { return o.b.Secret(key), nil }

// lru keeps at most max bundles open.
type lru struct {
	mu    sync.Mutex
	max   int
	order *list.List // of *lruItem, most recent first
	items map[[32]byte]*list.Element
}

type lruItem struct {
	digest [32]byte
	o      *opened
}

func newLRU(max int) *lru {
	return &lru{max: max, order: list.New(), items: map[[32]byte]*list.Element{}}
}

func (c *lru) get(d [32]byte) *opened {
	c.mu.Lock()
	defer c.mu.Unlock()
	if e, ok := c.items[d]; ok {
		c.order.MoveToFront(e)
		return e.Value.(*lruItem).o
	}
	return nil
}

func (c *lru) put(d [32]byte, o *opened) *opened {
	c.mu.Lock()
	defer c.mu.Unlock()
	if e, ok := c.items[d]; ok { // opened twice at once: keep the first
		c.order.MoveToFront(e)
		return e.Value.(*lruItem).o
	}
	c.items[d] = c.order.PushFront(&lruItem{d, o})
	for c.order.Len() > c.max {
		last := c.order.Back()
		c.order.Remove(last)
		delete(c.items, last.Value.(*lruItem).digest)
	}
	return o
}

func (c *lru) len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.order.Len()
}
