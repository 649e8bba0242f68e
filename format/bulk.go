package format

// Reading the bundles of a whole fleet (hieracc diff): the bundles that
// name one shared details file hold the same view (format version 6), so
// a reader of many of them decodes it once.

import (
	"fmt"
	"slices"
	"strings"
	"sync"
)

// ViewCache remembers the views (format version 6, see SPEC.md "Value
// table") that DecodeIndexCached decoded, by their bytes: a bundle whose
// view is byte for byte one already decoded shares its values (read-only,
// as every decoded value). It holds at most the number of views given to
// NewViewCache, forgetting the least recently used first. Safe for concurrent use.
type ViewCache struct {
	mu    sync.Mutex
	max   int
	views map[string]*cachedView
	order []string // least recently used first
	ids   uint64
}

type cachedView struct {
	vals []Value
	meta []uint64
	id   uint64
}

// NewViewCache returns a cache of at most max views (at least 1).
func NewViewCache(n int) *ViewCache {
	return &ViewCache{max: max(n, 1), views: map[string]*cachedView{}}
}

// DecodeIndexCached is DecodeIndex, sharing decoded views through c (nil:
// none). Two bundles read through one cache hold the same Go values for
// the entries of their common view: a container of one is pointer-equal to
// the other's.
func DecodeIndexCached(data []byte, c *ViewCache) (*Index, error) { return decodeIndex(data, c) }

// readView reads the view section into x's value table, from x.views when
// it holds these bytes.
func (x *Index) readView(r *reader) error {
	c := x.views
	if c == nil {
		return x.values.readSection(r, x.Version)
	}
	start := r.off
	b, err := r.bin()
	if err != nil {
		return err
	}
	defer func() { x.viewLen = len(x.values.vals) }()
	c.mu.Lock()
	v := c.views[b]
	if v != nil {
		c.touch(b)
	}
	c.mu.Unlock()
	if v != nil {
		// Clipped: the values section appends to copies.
		x.values.vals, x.values.meta, x.values.varints = v.vals, v.meta, true
		x.viewID = v.id
		return nil
	}
	r.off = start
	if err := x.values.readSection(r, x.Version); err != nil {
		return err
	}
	v = &cachedView{vals: x.values.vals[:len(x.values.vals):len(x.values.vals)], meta: x.values.meta[:len(x.values.meta):len(x.values.meta)]}
	key := strings.Clone(b)
	c.mu.Lock()
	defer c.mu.Unlock()
	if w, ok := c.views[key]; ok {
		x.viewID = w.id // its values are this x's: the same entries
		return nil
	}
	if len(c.order) >= c.max {
		delete(c.views, c.order[0])
		c.order = c.order[1:]
	}
	c.ids++
	v.id = c.ids
	x.viewID = v.id
	c.views[key] = v
	c.order = append(c.order, key)
	return nil
}

// View identifies the view x was read with through a ViewCache (a number
// the cache gave it, never 0) and tells its length in entries; 0, 0 when
// none. Bundles read through one cache whose View is the same hold the
// same values at the same indexes of the view (ValueIndex).
func (x *Index) View() (id uint64, entries int) {
	if x.viewID == 0 {
		return 0, 0
	}
	return x.viewID, x.viewLen
}

// ValueIndex is the index of the key's value in the bundle's value table
// (the view's entries first), -1 for a key without one.
func (x *Index) ValueIndex(k *IndexKey) int { return int(k.valueAt) }

// InView reports whether the key's value is an entry of the bundle's view
// (format version 6), read through a ViewCache: the same Go value for
// every bundle read through that cache that holds the same view, as long
// as the cache keeps it.
func (x *Index) InView(k *IndexKey) bool { return k.valueAt >= 0 && int(k.valueAt) < x.viewLen }

// touch makes the view of bytes b the last to be forgotten.
func (c *ViewCache) touch(b string) {
	for i, k := range c.order {
		if k == b {
			c.order = append(append(c.order[:i:i], c.order[i+1:]...), k)
			return
		}
	}
}

// DetailsShared reports whether the key's details are all its record in
// the bundle's shared details file (format version 5): the same for every
// bundle naming that file.
func (k *IndexKey) DetailsShared() bool { return k.shared }

// Secret reports whether the key holds text decrypted from ENC[...]
// (Key.Secret), without decoding the details.
func (k *IndexKey) Secret() bool { return k.secret }

// Hierarchies decodes the global and environment hierarchies of the
// bundle's details, and nothing else of them (from format version 5, the
// details' values are skipped unread).
func (x *Index) Hierarchies() (global, env Hierarchy, err error) {
	if !has(x.Version, fValueVarints) {
		b, err := x.Bundle()
		if err != nil {
			return global, env, err
		}
		return b.Global, b.Env, nil
	}
	r := &reader{s: x.details, base: x.detOff}
	fields := 5
	if has(x.Version, fDetails4) {
		fields = 7
	}
	if err := r.arrayOf(fields, "details"); err != nil {
		return global, env, err
	}
	if _, err := r.bin(); err != nil { // the details' values
		return global, env, err
	}
	if err := readHierarchy(r, x.Version, &global); err != nil {
		return global, env, err
	}
	if err := readHierarchy(r, x.Version, &env); err != nil {
		return global, env, err
	}
	return global, env, nil
}

// SharedRecords is a shared details file decoded (format version 5), for
// PartialBundle: the records and modules every bundle naming the file
// shares, decoded once for all of them. Read-only.
type SharedRecords struct {
	Digest [32]byte
	keys   []Key
	mods   []Module
}

// ReadSharedRecords checks a shared details file (magic, version, digest)
// and decodes its records.
func ReadSharedRecords(data []byte) (*SharedRecords, error) {
	d, v, body, err := parseShared(string(data))
	if err != nil {
		return nil, err
	}
	x := &Index{sharedRef: d, hasShared: true, sharedBody: body, sharedVersion: int(v)}
	keys, mods, err := x.sharedKeys()
	if err != nil {
		return nil, err
	}
	return &SharedRecords{Digest: d, keys: keys, mods: mods}, nil
}

// PartialBundle is Bundle with the details of the keys at the positions
// given (in x.Keys, increasing) only: its Keys are those keys, in order,
// with all of their details; its hierarchies, modules and the rest are
// the whole bundle's. The details of the other keys are skipped, not
// decoded. s must be the bundle's shared details file when it names one
// (SharedDigest). Bundles before version 5 are decoded whole, then cut.
func (x *Index) PartialBundle(keys []int, s *SharedRecords) (*Bundle, error) {
	for i, k := range keys {
		if k < 0 || k >= len(x.Keys) || i > 0 && k <= keys[i-1] {
			return nil, fmt.Errorf("format: PartialBundle: key positions not increasing within [0, %d)", len(x.Keys))
		}
	}
	if !has(x.Version, fSharedDetails) {
		b, err := x.Bundle()
		if err != nil {
			return nil, err
		}
		out := make([]Key, len(keys))
		for i, k := range keys {
			out[i] = b.Keys[k]
		}
		b.Keys = out
		return b, nil
	}
	if x.hasShared && (s == nil || s.Digest != x.sharedRef) {
		return nil, fmt.Errorf("format: bundle of node %s: its details continue in %s: %w", x.Node, SharedDetailsName(x.sharedRef), ErrNoSharedDetails)
	}
	// Most keys' details need no value of the details' own values
	// section: try without it, then, on any trouble, with it.
	if b, err := x.partialBundle(keys, s, false); err == nil {
		return b, nil
	}
	return x.partialBundle(keys, s, true)
}

// partialBundle is PartialBundle, reading the details' values section
// when detailValues is set, else skipping it (a contribution referring to
// one of its entries is then out of range).
func (x *Index) partialBundle(keys []int, s *SharedRecords, detailValues bool) (*Bundle, error) {
	r := &reader{s: x.details, base: x.detOff}
	if err := r.arrayOf(7, "details"); err != nil {
		return nil, err
	}
	vals := x.values // clipped: appending copies, x is left alone
	if detailValues {
		if err := vals.readSection(r, x.Version); err != nil {
			return nil, err
		}
	} else if _, err := r.bin(); err != nil {
		return nil, err
	}
	b := &Bundle{
		Node:           x.Node,
		Environment:    x.Environment,
		Revision:       x.Revision,
		SourceRevision: x.SourceRevision,
		NodeError:      x.NodeError,
		Options:        x.Options,
	}
	if err := x.readLayers(r, b); err != nil {
		return nil, err
	}
	n, err := r.arrayLen()
	if err != nil {
		return nil, err
	}
	merges := make([]Merge, n)
	for i := range merges {
		if r.nilNext() {
			return nil, r.errorf("merge %d is nil", i)
		}
		if merges[i], err = readMerge(r); err != nil {
			return nil, err
		}
	}
	if n, err = r.arrayLen(); err != nil {
		return nil, err
	}
	sources := make([]source, n)
	for i := range sources {
		if err := r.arrayOf(2, "lookup_options source"); err != nil {
			return nil, err
		}
		if sources[i].file, err = r.str(); err != nil {
			return nil, err
		}
		if sources[i].level, err = r.str(); err != nil {
			return nil, err
		}
	}
	n = len(x.Keys)
	for i := range x.Keys {
		if x.Keys[i].shared {
			n--
		}
	}
	if err := r.arrayOf(n, "key details"); err != nil {
		return nil, err
	}
	var shared []Key
	if x.hasShared {
		shared = s.keys
		b.Modules = slices.Clone(s.mods)
		me := x.ModuleErrors
		for i := range b.Modules {
			if m := &b.Modules[i]; len(me) > 0 && me[0].Module == m.Name {
				m.Err, me = me[0].Err, me[1:]
			}
		}
		if len(me) > 0 {
			return nil, fmt.Errorf("format: %w: error recorded for module %q, which the shared details file does not have", ErrCorrupt, me[0].Module)
		}
	}
	b.Keys = make([]Key, len(keys))
	next := 0 // in keys
	for i := range x.Keys {
		if next == len(keys) {
			break // the rest is not read
		}
		ik := &x.Keys[i]
		if keys[next] != i {
			if !ik.shared {
				if err := r.skip(); err != nil {
					return nil, err
				}
			}
			continue
		}
		k := &b.Keys[next]
		next++
		k.Name, k.Value, k.Err = ik.Name, ik.Value, ik.Err
		k.Secret = ik.secret
		if ik.shared {
			if err := readSharedDetails(shared, k, ik); err != nil {
				return nil, err
			}
			continue
		}
		if sealed, err := x.readSealedDetails(r, i, k); sealed || err != nil {
			if err != nil {
				return nil, err
			}
			continue
		}
		if r.left() >= 2 && r.s[r.off] == 0x94 && r.s[r.off+1] == mTrue {
			if !x.hasShared {
				return nil, r.errorf("key %q: details in a shared file the bundle does not name", k.Name)
			}
			if err := readSharedDetails(shared, k, ik); err != nil {
				return nil, err
			}
			r.off += 2
			if err := x.readOverlay(r, k, vals.vals, int(ik.valueAt)); err != nil {
				return nil, err
			}
			continue
		}
		if err := x.readKeyDetails4(r, k, ik, vals.vals, merges, sources); err != nil {
			return nil, err
		}
	}
	return b, nil
}

// skip passes over one msgpack value of any type, without recursion.
func (r *reader) skip() error {
	for pending := 1; pending > 0; pending-- {
		c, err := r.byte()
		if err != nil {
			return err
		}
		var n uint64 // bytes to pass
		switch {
		case c <= 0x7f || c >= 0xe0 || c == mNil || c == mFalse || c == mTrue:
		case c >= 0x80 && c <= 0x8f:
			pending += 2 * int(c&0x0f)
		case c >= 0x90 && c <= 0x9f:
			pending += int(c & 0x0f)
		case c >= 0xa0 && c <= 0xbf:
			n = uint64(c & 0x1f)
		case c >= mBin8 && c <= mBin32:
			if n, err = r.be(1 << (c - mBin8)); err != nil {
				return err
			}
		case c >= mStr8 && c <= mStr32:
			if n, err = r.be(1 << (c - mStr8)); err != nil {
				return err
			}
		case c == mFloat32:
			n = 4
		case c == mFloat64:
			n = 8
		case c >= mUint8 && c <= mUint64:
			n = 1 << (c - mUint8)
		case c >= mInt8 && c <= mInt64:
			n = 1 << (c - mInt8)
		case c == mArray16 || c == mArray32:
			m, err := r.length(2<<(c-mArray16), 1)
			if err != nil {
				return err
			}
			pending += m
		case c == mMap16 || c == mMap32:
			m, err := r.length(2<<(c-mMap16), 2)
			if err != nil {
				return err
			}
			pending += 2 * m
		default:
			r.off--
			return r.errorf("value of unsupported %s", codeName(c))
		}
		if n > uint64(r.left()) {
			return r.errorf("length %d exceeds the %d bytes left", n, r.left())
		}
		r.off += int(n)
	}
	return nil
}
