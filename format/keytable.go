package format

import "github.com/hieracc/hieracc/format/internal/wire"

// The key table of format version 5 (SPEC.md, "Key table"): the keys in
// name order, each name written as the bytes it shares with the name
// before it and the rest, then a varint head with its value, error or
// sealed blob and its kind (and a second varint for its flags, if any). It replaces version 4's array of keys and its stored hash
// index, which a reader now builds when it opens the bundle: together they
// took about a third of a bundle.

// A key's head is its payload × 8 + the shared bit (tagShared: its
// details are its record in the shared details file) + its kind, which
// says what the payload is (see package wire):
const (
	kindValue   = wire.KindValue
	kindError   = wire.KindError
	kindSealed  = wire.KindSealed
	kindFlagged = wire.KindFlagged
	tagShared   = wire.TagShared
)

// maxNameBytes bounds the names of one key table once their shared
// prefixes are expanded, so that a small file cannot make a reader
// allocate much more than its size: at most 64 times the table's bytes,
// plus 64 KiB.
func maxNameBytes(table int) int { return 64*table + 1<<16 }

// uvarint reads a varint of the key table at off in t: at most 10 bytes,
// minimal (no needless trailing zero group), at most maxInt.
func uvarint(t string, off int) (uint64, int, bool) {
	var x uint64
	for i := 0; i < 10 && off+i < len(t); i++ {
		b := t[off+i]
		if i == 9 && b > 1 {
			return 0, 0, false // beyond 64 bits
		}
		x |= uint64(b&0x7f) << (7 * i)
		if b < 0x80 {
			if i > 0 && b == 0 {
				return 0, 0, false // not minimal
			}
			return x, off + i + 1, true
		}
	}
	return 0, 0, false
}

// decodeKeyTable reads the key table into x.Keys, and builds the index
// that Find uses.
func (x *Index) decodeKeyTable(r *reader) error {
	t, err := r.bin()
	if err != nil {
		return err
	}
	at := r.base + int64(r.off-len(t)) // the table's offset, for messages
	off := 0
	fail := func(format string, args ...any) error {
		return (&reader{s: t, off: off, base: at}).errorf("key table: "+format, args...)
	}
	next := func(what string) (uint64, error) {
		v, n, ok := uvarint(t, off)
		if !ok {
			return 0, fail("bad varint for %s", what)
		}
		off = n
		return v, nil
	}
	n, err := next("the key count")
	if err != nil {
		return err
	}
	// Each key takes at least three bytes: shared, length, head.
	if n > uint64(len(t)-off)/3 {
		return fail("%d keys in %d bytes", n, len(t)-off)
	}
	x.Keys = make([]IndexKey, n)
	// The names, expanded into one buffer, then one string that every
	// name is a slice of.
	limit := maxNameBytes(len(t))
	buf := make([]byte, 0, min(limit, 2*len(t)))
	ends := make([]int32, n)
	prevStart, prevEnd := 0, 0
	// The last key's value entry; from version 6, the last of a key with
	// the shared bit and of one without, apart.
	lasts := [2]int64{-1, -1}
	for i := range x.Keys {
		k := &x.Keys[i]
		shared, err := next("a name's shared bytes")
		if err != nil {
			return err
		}
		rest, err := next("a name's length")
		if err != nil {
			return err
		}
		if shared > uint64(prevEnd-prevStart) {
			return fail("key %d shares %d bytes of a name of %d", i, shared, prevEnd-prevStart)
		}
		if rest > uint64(len(t)-off) {
			return fail("key %d: a name of %d bytes beyond the table", i, rest)
		}
		if len(buf)+int(shared)+int(rest) > limit {
			return fail("names expand beyond %d bytes", limit)
		}
		suffix := t[off : off+int(rest)]
		off += int(rest)
		if int(shared) < prevEnd-prevStart && rest > 0 && suffix[0] == buf[prevStart+int(shared)] {
			return fail("key %d shares fewer bytes with the name before it than it could", i)
		}
		start := len(buf)
		buf = append(buf, buf[prevStart:prevStart+int(shared)]...)
		buf = append(buf, suffix...)
		name := buf[start:]
		if i > 0 && string(name) <= string(buf[prevStart:prevEnd]) {
			return fail("keys not sorted: %q after %q", clip(name), clip(buf[prevStart:prevEnd]))
		}
		prevStart, prevEnd = start, len(buf)
		ends[i] = int32(prevEnd)

		head, err := next("a key's head")
		if err != nil {
			return err
		}
		ref, tag := head>>3, head&7
		if tag&3 == kindFlagged {
			if tag != kindFlagged {
				return fail("key %d: a flagged head with the shared bit", i)
			}
			if tag, err = next("a key's flags"); err != nil {
				return err
			}
			if tag>>3 == 0 || tag&3 == kindFlagged {
				return fail("key %d: flags %#x of kind %d after a flagged head", i, tag>>3, tag&3)
			}
		}
		flags := tag >> 3
		k.shared = tag&tagShared != 0
		name = clip(name) // from here on, for messages only
		if flags&^uint64(keySecret|keySensitive|keyConverts|keyAsked|keySealed) != 0 {
			return fail("key %q: unknown flags %#x", name, flags)
		}
		k.valueAt = -1
		switch tag & 3 {
		case kindValue:
			// A zigzag distance from the last key's value entry.
			v := int64(ref>>1) ^ -int64(ref&1)
			last := &lasts[0]
			if k.shared && has(x.Version, fView) {
				last = &lasts[1]
			}
			if v >= int64(len(x.values.vals))-*last || v < -*last {
				return fail("key %q: value %d of %d", name, *last+v, len(x.values.vals))
			}
			*last += v
			k.valueAt = int32(*last)
			k.Value = x.values.vals[*last]
		case kindError:
			if ref >= uint64(len(x.errs)) {
				return fail("key %q: error %d of %d", name, ref, len(x.errs))
			}
			k.Err = x.errs[ref]
		case kindSealed:
			if ref > uint64(len(t)-off) {
				return fail("key %q: a sealed blob of %d bytes beyond the table", name, ref)
			}
			k.Ciphertext, k.Sealed = t[off:off+int(ref)], true
			off += int(ref)
		default:
			return fail("key %q: unknown kind %d", name, tag&3)
		}
		if (flags&keySealed != 0) != k.Sealed {
			return fail("key %q: the sealed flag and the kind disagree", name)
		}
		if k.shared && k.Sealed {
			return fail("key %q: sealed, its details in the shared file", name)
		}
		k.secret, k.Sensitive, k.Converts = flags&keySecret != 0, flags&keySensitive != 0, flags&keyConverts != 0
		k.Asked = flags&keyAsked != 0
		if k.Sensitive && !k.Converts {
			return fail("key %q: sensitive without convert_to", name)
		}
	}
	if off != len(t) {
		return fail("%d bytes after the last key", len(t)-off)
	}
	all := string(buf)
	start := int32(0)
	for i := range x.Keys {
		x.Keys[i].Name = all[start:ends[i]]
		start = ends[i]
	}
	if x.views == nil {
		x.buildIndex()
	} // else built by Find, when first asked (see DecodeIndexViews)
	return nil
}

// buildIndex builds the in-memory hash index of x.Keys (SPEC.md, "Index":
// the same table version 4 stores, each slot also holding the high half
// of its key's hash, so that a probe compares names only when the hashes
// agree).
func (x *Index) buildIndex() {
	n := wire.SlotCount(len(x.Keys))
	x.slots = make([]uint64, n)
	mask := uint64(n - 1)
	for i := range x.Keys {
		h := wire.KeyHash(x.Keys[i].Name)
		j := h & mask
		for x.slots[j] != 0 {
			j = (j + 1) & mask
		}
		x.slots[j] = uint64(i+1) | h&^0xffffffff
	}
}

// clip shortens a name for an error message.
func clip(name []byte) []byte {
	if len(name) > 80 {
		return append(name[:77:77], "..."...)
	}
	return name
}
