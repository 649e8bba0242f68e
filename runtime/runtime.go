// Package runtime reads compiled Hiera bundles: it is what agents import to
// answer lookups for their node. A bundle holds every key of one node
// already resolved and merged, so a lookup is one hash probe that allocates
// nothing; lookup-time merges and explanations decode the rest of the
// bundle on first use.
//
// Lookups follow Puppet's semantics: "lookup_options" is never found,
// a failure recorded for the node, for the key's module or for the key is
// returned as a *format.Error whose Error() is Puppet's message, and dotted
// keys ("a.b.0") dig into the root key's value.
//
// Values returned are shared with the bundle and with other callers: they
// must not be modified. A *Bundle is safe for concurrent use.
package runtime

import (
	"errors"
	"fmt"
	"os"
	"strings"
	"sync"

	"github.com/hieracc/hieracc/format"
	"github.com/hieracc/hieracc/format/hiera"
)

// ErrNotFound is returned for a key the bundle has no value for.
var ErrNotFound = errors.New("not found")

// Bundle is an opened bundle.
type Bundle struct {
	x *format.Index
	// simple is set when no node or module error can apply, so that a key
	// found in the index is the answer.
	simple bool
	// odd marks keys that a plain lookup must not return as they are:
	// names that parse as dotted or quoted keys, and "lookup_options". Nil
	// when there are none, as usual.
	odd []bool

	once    sync.Once
	details *format.Bundle
	derr    error
}

// Open reads and verifies the bundle at path (magic, version, checksums).
func Open(path string) (*Bundle, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("runtime: %w", err)
	}
	b, err := OpenBytes(data)
	if err != nil {
		return nil, fmt.Errorf("runtime: open %s: %w", path, err)
	}
	return b, nil
}

// OpenBytes verifies and opens an encoded bundle. It does not keep data.
func OpenBytes(data []byte) (*Bundle, error) {
	x, err := format.DecodeIndex(data)
	if err != nil {
		return nil, err
	}
	b := &Bundle{x: x, simple: x.NodeError == nil && len(x.ModuleErrors) == 0}
	for i := range x.Keys {
		if name := x.Keys[i].Name; name == lookupOptions || dottedOrQuoted(name) {
			if b.odd == nil {
				b.odd = make([]bool, len(x.Keys))
			}
			b.odd[i] = true
		}
	}
	return b, nil
}

// dottedOrQuoted reports whether hiera.ParseKey would split name.
func dottedOrQuoted(name string) bool {
	return strings.IndexByte(name, '.') >= 0 || strings.IndexByte(name, '\'') >= 0 || strings.IndexByte(name, '"') >= 0
}

// Header returns the bundle's header: node, environment, revision, digest.
func (b *Bundle) Header() format.Header { return b.x.Header }

// Keys returns the names of the keys the bundle holds, sorted.
func (b *Bundle) Keys() []string {
	out := make([]string, len(b.x.Keys))
	for i := range b.x.Keys {
		out[i] = b.x.Keys[i].Name
	}
	return out
}

// Details returns the whole decoded bundle: merge options, contributions
// and hierarchies. It is decoded on the first call and shared: do not
// modify it.
func (b *Bundle) Details() (*format.Bundle, error) {
	b.once.Do(func() {
		b.details, b.derr = b.x.Bundle()
	})
	return b.details, b.derr
}

// Lookup returns the value of key as Puppet's lookup(key) would. A key not
// found gives ErrNotFound. A plain key (no dots or quotes) costs one hash
// probe and allocates nothing.
func (b *Bundle) Lookup(key string) (any, error) {
	if b.simple {
		if i := b.x.Find(key); i >= 0 && (b.odd == nil || !b.odd[i]) {
			k := &b.x.Keys[i]
			if k.Err != nil {
				return nil, k.Err
			}
			return k.Value, nil
		}
	}
	return b.lookup(key, nil)
}

// Options are the arguments of Puppet's lookup() beyond the key.
type Options struct {
	// Merge, when set, replaces the merge strategy lookup_options give the
	// key: the value is merged again from the contributions.
	Merge *format.Merge
	// Default is returned instead of ErrNotFound when HasDefault is set.
	Default    any
	HasDefault bool
}

// LookupWith is Lookup with lookup() options.
func (b *Bundle) LookupWith(key string, o Options) (any, error) {
	return b.lookup(key, &o)
}

const lookupOptions = "lookup_options"

func (b *Bundle) lookup(key string, o *Options) (any, error) {
	if key == lookupOptions || strings.HasPrefix(key, lookupOptions+".") {
		return notFound(o)
	}
	// Puppet collects lookup_options from every level before any lookup,
	// so these fail a lookup even where data exists.
	if b.x.NodeError != nil {
		return nil, b.x.NodeError
	}
	k, err := hiera.ParseKey(key)
	if err != nil {
		return nil, err
	}
	if k.Module != "" {
		if err := b.x.ModuleError(k.Module); err != nil {
			return nil, err
		}
	}
	i := b.x.Find(k.Root)
	if i < 0 {
		return notFound(o)
	}
	if o != nil && o.Merge != nil {
		return b.merged(k, i, *o.Merge, o)
	}
	ik := &b.x.Keys[i]
	if ik.Err != nil {
		return nil, ik.Err
	}
	if len(k.Segments) == 0 {
		return ik.Value, nil
	}
	v, found, err := k.Dig(ik.Value)
	if err != nil || found {
		return v, err
	}
	// Puppet tries the module's default_hierarchy when digging into the
	// regular value finds nothing (the dig is inside its catch).
	d, err := b.Details()
	if err != nil {
		return nil, err
	}
	if dk := &d.Keys[i]; len(dk.Contributions) > 0 {
		return b.fromDefaults(d, k, dk, o)
	}
	return notFound(o)
}

// merged answers a lookup with a lookup-time merge, recomputed from the
// contributions; the key's recorded error belongs to the configured merge
// and does not apply.
func (b *Bundle) merged(k hiera.Key, i int, m format.Merge, o *Options) (any, error) {
	d, err := b.Details()
	if err != nil {
		return nil, err
	}
	dk := &d.Keys[i]
	layers := [3]*format.Hierarchy{&d.Global, &d.Env, nil}
	if mod := module(d, k.Module); mod != nil {
		layers[2] = &mod.Hierarchy
	}
	v, found, err := hiera.Resolve(m, layers, leaf(dk.Contributions))
	if err != nil {
		return nil, hiera.InLookupOf(k.Text, err)
	}
	if found {
		v, found, err = k.Dig(v)
		if err != nil || found {
			return v, err
		}
	}
	return b.fromDefaults(d, k, dk, o)
}

// fromDefaults looks k up in its module's default_hierarchy, with the
// merge the default_hierarchy's own lookup_options give (a lookup-time
// merge does not apply there).
func (b *Bundle) fromDefaults(d *format.Bundle, k hiera.Key, dk *format.Key, o *Options) (any, error) {
	mod := module(d, k.Module)
	if mod == nil || mod.Default == nil || len(dk.Defaults) == 0 {
		return notFound(o)
	}
	v, found, err := hiera.ResolveDefault(dk.DefaultMerge, mod.Default, leaf(dk.Defaults))
	if err != nil {
		return nil, err
	}
	if found {
		v, found, err = k.Dig(v)
		if err != nil || found {
			return v, err
		}
	}
	return notFound(o)
}

func notFound(o *Options) (any, error) {
	if o != nil && o.HasDefault {
		return o.Default, nil
	}
	return nil, ErrNotFound
}

// module returns the module named name, or nil.
func module(d *format.Bundle, name string) *format.Module {
	if name == "" {
		return nil
	}
	lo, hi := 0, len(d.Modules)
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if d.Modules[m].Name < name {
			lo = m + 1
		} else {
			hi = m
		}
	}
	if lo < len(d.Modules) && d.Modules[lo].Name == name {
		return &d.Modules[lo]
	}
	return nil
}

// leaf answers hiera.Resolve from a key's recorded contributions.
func leaf(cs []format.Contribution) hiera.Leaf {
	return func(layer format.Layer, level, loc int) (any, bool, error) {
		for i := range cs {
			c := &cs[i]
			if c.Layer == layer && c.Level == level && c.Location == loc {
				if c.Err != nil {
					return nil, false, c.Err
				}
				return c.Value, true, nil
			}
		}
		return nil, false, nil
	}
}
