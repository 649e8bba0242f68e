package format

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"strings"

	"github.com/hieracc/hieracc/format/internal/wire"
)

// Shared details (SPEC.md, "Shared details"): nodes of one role,
// datacenter and OS share almost all of their keys' details (where each
// value came from, merge options), which take about half of a bundle. A
// compile writes the part of a bundle's details that holds no bound
// contribution (see Contribution.Bound) once, in a shared details file
// named by its digest, which every bundle with the same shared part
// refers to. A bundle still holds every value a lookup returns: only
// explanations and lookup-time merges read the shared file.

// SharedDetailsDir is the folder, inside a compile's output folder, that
// holds the shared details files of its bundles.
const SharedDetailsDir = "details"

// sharedSuffix ends the name of every shared details file.
const sharedSuffix = ".details"

// SharedDetailsName is the path, relative to the folder of the bundles
// that refer to it, of the shared details file of digest d:
// details/<64 hex digits>.details.
func SharedDetailsName(d [32]byte) string {
	return SharedDetailsDir + "/" + hex.EncodeToString(d[:]) + sharedSuffix
}

// ParseSharedDetailsName is the digest a shared details file's base name
// (<64 hex digits>.details) gives; ok is false for any other name.
func ParseSharedDetailsName(base string) (d [32]byte, ok bool) {
	h, found := strings.CutSuffix(base, sharedSuffix)
	if !found || len(h) != 2*len(d) || strings.ToLower(h) != h {
		return d, false
	}
	if _, err := hex.Decode(d[:], []byte(h)); err != nil {
		return d, false
	}
	return d, true
}

// ErrNoSharedDetails is the error of reading the details of a bundle
// whose shared details file was not attached (Index.AttachShared).
var ErrNoSharedDetails = errors.New("shared details file not attached")

// sharedFileVersion is the version a shared details file carries: that of
// the first bundle format with shared details files (fSharedDetails),
// which reads it.
const sharedFileVersion = wire.SharedFileVersion

// sharedMagic opens every shared details file: the msgpack encoding of the
// string "hieracc-details" (fixstr, 15 bytes).
const sharedMagic = wire.SharedMagic

// anyBound reports whether one of cs is bound.
func anyBound(cs []Contribution) bool {
	for i := range cs {
		if cs[i].Bound {
			return true
		}
	}
	return false
}

// SharedDigest is the digest of the shared details file the bundle's
// details continue in; ok is false when the bundle holds all of them.
func (x *Index) SharedDigest() (d [32]byte, ok bool) {
	return x.sharedRef, x.hasShared
}

// AttachShared gives x its shared details file: data must be the file
// SharedDigest names (its magic, version and digest are checked).
// Bundle, and so explanations and lookup-time merges, need it when
// SharedDigest reports one.
func (x *Index) AttachShared(data []byte) error {
	if !x.hasShared {
		return fmt.Errorf("format: bundle of node %s has no shared details file", x.Node)
	}
	d, v, body, err := parseShared(string(data))
	if err != nil {
		return err
	}
	if d != x.sharedRef {
		return fmt.Errorf("format: %w: the shared details file has digest %x, the bundle of node %s refers to %x", ErrCorrupt, d[:8], x.Node, x.sharedRef[:8])
	}
	x.sharedBody, x.sharedVersion = body, int(v)
	return nil
}

// VerifySharedDetails reads the shared details file in r to its end and
// checks its magic, version and digest, returning the digest (which its
// name must give). It reads at most maxShared bytes.
func VerifySharedDetails(r io.ReaderAt) ([32]byte, error) {
	var buf []byte
	chunk := make([]byte, 64<<10)
	for off := int64(0); ; {
		n, err := r.ReadAt(chunk, off)
		buf = append(buf, chunk[:n]...)
		off += int64(n)
		if len(buf) > maxShared {
			return [32]byte{}, fmt.Errorf("format: %w: shared details file larger than %d bytes", ErrCorrupt, maxShared)
		}
		if err == io.EOF || (err == nil && n == 0) {
			break
		}
		if err != nil {
			return [32]byte{}, err
		}
	}
	d, _, _, err := parseShared(string(buf))
	return d, err
}

// maxShared bounds a shared details file.
const maxShared = 1 << 30

// parseShared checks a shared details file and returns its digest and
// body.
func parseShared(s string) (d [32]byte, version int64, body string, err error) {
	if !strings.HasPrefix(s, sharedMagic) {
		if strings.HasPrefix(sharedMagic, s) {
			return d, 0, "", fmt.Errorf("format: %w: truncated shared details file", ErrCorrupt)
		}
		return d, 0, "", fmt.Errorf("format: %w: not a shared details file", ErrNotBundle)
	}
	r := &reader{s: s, off: len(sharedMagic)}
	v, err := r.integer()
	if err != nil {
		return d, 0, "", err
	}
	if v != sharedFileVersion {
		// Bundles of versions 5 and 6 refer to files of version 5.
		return d, 0, "", fmt.Errorf("format: %w: shared details file of version %d (this reader reads version %d)", ErrVersion, v, sharedFileVersion)
	}
	if err := r.arrayOf(2, "shared details header"); err != nil {
		return d, 0, "", err
	}
	dg, err := r.bin()
	if err != nil {
		return d, 0, "", err
	}
	if len(dg) != len(d) {
		return d, 0, "", r.errorf("digest of %d bytes", len(dg))
	}
	copy(d[:], dg)
	n, err := r.integer()
	if err != nil {
		return d, 0, "", err
	}
	if n != int64(r.left()) {
		return d, 0, "", r.errorf("body of %d bytes, %d follow", n, r.left())
	}
	body = s[r.off:]
	if sha256.Sum256([]byte(body)) != d {
		return d, 0, "", fmt.Errorf("format: %w: shared details file: body does not match its digest", ErrCorrupt)
	}
	return d, v, body, nil
}

// sharedKeys decodes the attached shared details file: its records,
// sorted by name: all of them, or when names is not nil, those of the
// names given only (the others' details are skipped, not decoded). Its
// body is a version 5 body of a bundle of those records alone: values
// nil, no hierarchies, modules, options or shared file of its own.
func (x *Index) sharedKeys(names []string) ([]Key, []Module, error) {
	name := SharedDetailsName(x.sharedRef)
	if x.sharedBody == "" {
		return nil, nil, fmt.Errorf("format: bundle of node %s: its details continue in %s: %w", x.Node, name, ErrNoSharedDetails)
	}
	y := &Index{Header: Header{Version: x.sharedVersion, Node: x.Node}}
	if err := y.decodeBody(&reader{s: x.sharedBody}); err != nil {
		return nil, nil, fmt.Errorf("shared details file %s: %w", name, err)
	}
	if y.hasShared || y.NodeError != nil || len(y.ModuleErrors) > 0 || len(y.Options) > 0 {
		return nil, nil, fmt.Errorf("format: %w: shared details file %s: not a file of records alone", ErrCorrupt, name)
	}
	var b *Bundle
	var err error
	if names == nil {
		b, err = y.Bundle()
	} else {
		sel := []int{}
		for i := range y.Keys {
			if _, ok := slices.BinarySearch(names, y.Keys[i].Name); ok {
				sel = append(sel, i)
			}
		}
		b, err = y.PartialBundle(sel, nil)
	}
	if err != nil {
		return nil, nil, fmt.Errorf("shared details file %s: %w", name, err)
	}
	if b.Global.Present || b.Env.Present || len(b.Global.Levels) > 0 || len(b.Env.Levels) > 0 {
		return nil, nil, fmt.Errorf("format: %w: shared details file %s has hierarchies", ErrCorrupt, name)
	}
	for i := range b.Keys {
		if k := &b.Keys[i]; k.Value != nil || k.Err != nil || k.Secret {
			return nil, nil, fmt.Errorf("format: %w: shared details file %s: record %q has a value", ErrCorrupt, name, k.Name)
		}
	}
	return b.Keys, b.Modules, nil
}

// readSharedDetails gives k (the bundle's key ik) the details of its
// record in the shared file, recs (sorted by name).
func readSharedDetails(recs []Key, k *Key, ik *IndexKey) error {
	i, found := slices.BinarySearchFunc(recs, k.Name, func(r Key, name string) int { return strings.Compare(r.Name, name) })
	if !found {
		return fmt.Errorf("format: %w: key %q has no record in the shared details file", ErrCorrupt, k.Name)
	}
	r := &recs[i]
	if anyBound(r.Contributions) || anyBound(r.Defaults) {
		return fmt.Errorf("format: %w: shared record %q holds a bound contribution", ErrCorrupt, k.Name)
	}
	if r.Sensitive() != ik.Sensitive || (len(r.ConvertTo) > 0) != ik.Converts || (r.Asked != nil) != ik.Asked {
		return fmt.Errorf("format: %w: key %q: its flags and its shared record disagree", ErrCorrupt, k.Name)
	}
	k.Merge, k.MergeFrom, k.DefaultMerge, k.ConvertTo = r.Merge, r.MergeFrom, r.DefaultMerge, r.ConvertTo
	k.Contributions, k.Defaults, k.Asked = r.Contributions, r.Defaults, r.Asked
	return nil
}

// readOverlay reads the bound contributions of key k (after the overlay's
// array header and true) into its lists, which hold its record's from the
// shared file (SPEC.md, "Shared details").
func (x *Index) readOverlay(r *reader, k *Key, vals []Value, own int) error {
	insert := func(cs []Contribution) ([]Contribution, error) {
		n, err := r.arrayLen()
		if err != nil {
			return nil, err
		}
		if n%6 != 0 {
			return nil, r.errorf("key %q: bound contributions of %d ints, not six each", k.Name, n)
		}
		if n == 0 {
			return cs, nil
		}
		out := make([]Contribution, 0, len(cs)+n/6)
		rest := cs
		for range n / 6 {
			pos, err := r.count(math.MaxInt32, "position")
			if err != nil {
				return nil, err
			}
			// The shared record's contributions before this position.
			for len(out) < pos && len(rest) > 0 {
				out, rest = append(out, rest[0]), rest[1:]
			}
			if pos != len(out) {
				return nil, r.errorf("key %q: bound contribution at position %d of %d", k.Name, pos, len(out))
			}
			var c Contribution
			if err := x.readContribution(r, &c, vals, own); err != nil {
				return nil, err
			}
			if !c.Bound {
				return nil, r.errorf("key %q: a bound contribution that is not bound", k.Name)
			}
			out = append(out, c)
		}
		return append(out, rest...), nil
	}
	var err error
	if k.Contributions, err = insert(k.Contributions); err != nil {
		return err
	}
	if k.Defaults, err = insert(k.Defaults); err != nil {
		return err
	}
	n, err := r.arrayLen()
	if err != nil {
		return err
	}
	if n != len(k.Asked) {
		return r.errorf("key %q: %d asked in its overlay, %d in its record", k.Name, n, len(k.Asked))
	}
	asked := slices.Clone(k.Asked)
	for j := range asked {
		if err := r.arrayOf(2, "asked overlay"); err != nil {
			return err
		}
		if asked[j].Contributions, err = insert(asked[j].Contributions); err != nil {
			return err
		}
		if asked[j].Defaults, err = insert(asked[j].Defaults); err != nil {
			return err
		}
	}
	k.Asked = asked
	return nil
}
