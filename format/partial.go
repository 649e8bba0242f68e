package format

// Hooks for readers of many bundles at once (package format/bulk, which
// hieracc diff uses): a bundle's details for some of its keys only, the
// records of a shared details file (those of some keys only) decoded once
// for many bundles, and the views (format version 6) of bundles shared
// through a store. Each is the
// decoder's own code, selected or shared, never a second reader.

import (
	"fmt"
	"slices"
)

// SharedRecords are records of a shared details file (format version 5)
// and its modules, decoded, for PartialBundle. Read-only.
type SharedRecords struct {
	Digest [32]byte
	keys   []Key // sorted by name
	mods   []Module
}

// ReadSharedRecords checks a shared details file (magic, version, digest)
// and decodes its records: all of them, or, when names is not nil, those
// of the names given (sorted) only, which is what PartialBundle needs for
// the keys of those names; the others' details are skipped, not decoded.
func ReadSharedRecords(data []byte, names []string) (*SharedRecords, error) {
	d, v, body, err := parseShared(string(data))
	if err != nil {
		return nil, err
	}
	if names != nil && !slices.IsSorted(names) {
		return nil, fmt.Errorf("format: ReadSharedRecords: names not sorted")
	}
	x := &Index{sharedRef: d, hasShared: true, sharedBody: body, sharedVersion: int(v)}
	keys, mods, err := x.sharedKeys(names)
	if err != nil {
		return nil, err
	}
	return &SharedRecords{Digest: d, keys: keys, mods: mods}, nil
}

// Len is the number of records s holds.
func (s *SharedRecords) Len() int { return len(s.keys) }

// PartialBundle is Bundle with the details of the keys at the positions
// given (in x.Keys, increasing) only: its Keys are those keys, in order,
// with all of their details; its hierarchies, modules and the rest are
// the whole bundle's. The details of the other keys are skipped, not
// decoded. s must be the bundle's shared details file's records (at least
// those of the keys given) when it names one (SharedDigest). Bundles
// before version 5 are decoded whole, then cut.
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
	b := x.emptyBundle()
	recs := func() (*sharedRecords, error) { return &sharedRecords{s.keys, s.mods}, nil }
	if keys == nil {
		keys = []int{} // none, not all
	}
	if err := x.readKeysDetails4(r, b, vals.vals, keys, recs); err != nil {
		return nil, err
	}
	return b, nil
}

// ViewTable is a bundle's view decoded (format version 6, SPEC.md "Value
// table"), which DecodeIndexViews shares among the bundles that hold the
// same view. Read-only.
type ViewTable struct{ t valueTable }

// Len is the number of entries of the view.
func (v *ViewTable) Len() int { return len(v.t.vals) }

// ViewStore keeps the views that DecodeIndexViews decoded, by their
// encoded bytes (the view section's contents). Its methods may be called
// concurrently.
type ViewStore interface {
	// LoadView returns the view decoded from the bytes b, nil when the
	// store does not hold it.
	LoadView(b string) *ViewTable
	// StoreView offers v, just decoded from b (b is a slice of the
	// bundle: a store that keeps it copies it), and returns the view to
	// use: v, or one that the store holds for the same bytes.
	StoreView(b string, v *ViewTable) *ViewTable
}

// DecodeIndexViews is DecodeIndex, sharing decoded views through s: two
// bundles read through one store hold the same Go values for the entries
// of their common view (a container of one is pointer-equal to the
// other's). Keys are not indexed by name until the first Find.
func DecodeIndexViews(data []byte, s ViewStore) (*Index, error) { return decodeIndex(data, s) }

// readView reads the view section into x's value table, from x.views when
// it holds these bytes.
func (x *Index) readView(r *reader) error {
	s := x.views
	if s == nil {
		return x.values.readSection(r, x.Version)
	}
	start := r.off
	b, err := r.bin()
	if err != nil {
		return err
	}
	v := s.LoadView(b)
	if v == nil {
		r.off = start
		if err := x.values.readSection(r, x.Version); err != nil {
			return err
		}
		x.values.clip()
		v = s.StoreView(b, &ViewTable{t: x.values})
	}
	// Clipped: the values section appends to copies.
	x.values = v.t
	x.view = v
	return nil
}

// View returns the view x was read with through a ViewStore, nil when
// none. Bundles read through one store whose View is the same hold the
// same values at the same indexes of the view (ValueIndex).
func (x *Index) View() *ViewTable { return x.view }

// ValueIndex is the index of the key's value in the bundle's value table
// (the view's entries first), -1 for a key without one.
func (x *Index) ValueIndex(k *IndexKey) int { return int(k.valueAt) }

// InView reports whether the key's value is an entry of the view x was
// read with through a ViewStore.
func (x *Index) InView(k *IndexKey) bool {
	return x.view != nil && k.valueAt >= 0 && int(k.valueAt) < x.view.Len()
}

// DetailsShared reports whether the key's details are all its record in
// the bundle's shared details file (format version 5): the same for every
// bundle naming that file.
func (k *IndexKey) DetailsShared() bool { return k.shared }

// Secret reports whether the key holds text decrypted from ENC[...]
// (Key.Secret), without decoding the details.
func (k *IndexKey) Secret() bool { return k.secret }
