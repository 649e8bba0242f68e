package serve

// Stage: the bundles opened, kept in a least-recently-used cache by
// digest, so that a fleet of any size costs the memory of the bundles in
// use, not of every bundle. A digest names one bundle's bytes for ever:
// an entry is never stale, only unused.

import (
	"container/list"
	"errors"
	"os"
	"sync"

	"github.com/hieracc/hieracc/runtime"
)

// opened is a bundle and what the server learned of it: the Peek that
// answers plain keys without decoding the bundle, and the bundle opened
// whole once an answer needs it (an explanation, a node's every key).
type opened struct {
	p  *runtime.Peek
	mu sync.Mutex
	b  *runtime.Bundle
}

// bundle is the bundle opened whole, once: errStale when its file holds
// another bundle now.
func (o *opened) bundle() (*runtime.Bundle, error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.b == nil {
		b, err := o.p.Open()
		if errors.Is(err, os.ErrNotExist) || err == nil && b.Header().Digest != o.p.Header().Digest {
			return nil, errStale
		}
		if err != nil {
			return nil, err
		}
		o.b = b
	}
	return o.b, nil
}

// lookup is key's value, and whether it is secret (decrypted from
// ENC[...], or Sensitive): from the Peek when it can answer.
func (o *opened) lookup(key string) (v any, secret bool, err error) {
	v, secret, ok, err := o.p.Lookup(key)
	if ok || err != nil {
		return v, secret, err
	}
	b, err := o.bundle()
	if err != nil {
		return nil, false, err
	}
	v, err = b.Lookup(key)
	return v, b.Secret(key), err
}

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
