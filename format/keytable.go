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

// keyScan reads a key table one key at a time.
type keyScan struct {
	reader
	x     *Index
	nvals int64 // entries of the value table
	// The last key's value entry; from version 6, the last of a key with
	// the shared bit and of one without, apart.
	lasts [2]int64
}

func (t *keyScan) fail(format string, args ...any) error {
	return t.errorf("key table: "+format, args...)
}

func (t *keyScan) next(what string) (uint64, error) {
	if t.off < len(t.s) && t.s[t.off] < 0x80 { // most are one byte
		t.off++
		return uint64(t.s[t.off-1]), nil
	}
	v, n, ok := uvarint(t.s, t.off)
	if !ok {
		return 0, t.fail("bad varint for %s", what)
	}
	t.off = n
	return v, nil
}

// name reads the i-th key's name, which follows prev, and returns the
// bytes it shares with prev and the rest. Names are sorted, and share
// with the name before them all that they can.
func (t *keyScan) name(i int, prev []byte) (int, string, error) {
	var shared, rest uint64
	var err error
	if o := t.off; o+1 < len(t.s) && t.s[o] < 0x80 && t.s[o+1] < 0x80 { // most: a byte each
		shared, rest, t.off = uint64(t.s[o]), uint64(t.s[o+1]), o+2
	} else if shared, err = t.next("a name's shared bytes"); err == nil {
		rest, err = t.next("a name's length")
	}
	if err != nil {
		return 0, "", err
	}
	if shared > uint64(len(prev)) {
		return 0, "", t.fail("key %d shares %d bytes of a name of %d", i, shared, len(prev))
	}
	if rest > uint64(t.left()) {
		return 0, "", t.fail("key %d: a name of %d bytes beyond the table", i, rest)
	}
	suffix := t.s[t.off : t.off+int(rest)]
	t.off += int(rest)
	if int(shared) < len(prev) && rest > 0 && suffix[0] == prev[shared] {
		return 0, "", t.fail("key %d shares fewer bytes with the name before it than it could", i)
	}
	if i > 0 && (rest == 0 || int(shared) < len(prev) && suffix[0] < prev[shared]) {
		name := append(prev[:shared:shared], suffix...)
		return 0, "", t.fail("keys not sorted: %q after %q", clip(name), clip(prev))
	}
	return int(shared), suffix, nil
}

// skip reads past the rest of a key, as entry does, checking less.
func (t *keyScan) skip() error {
	var head uint64
	var err error
	if t.off < len(t.s) && t.s[t.off] < 0x80 { // most: a byte
		head, t.off = uint64(t.s[t.off]), t.off+1
	} else {
		head, err = t.next("a key's head")
	}
	tag := head & 7
	if err == nil && tag&3 == kindFlagged {
		tag, err = t.next("a key's flags")
	}
	switch {
	case err != nil:
		return err
	case tag&3 == kindValue:
		v, last := int64(head>>4)^-int64(head>>3&1), &t.lasts[0]
		if tag&tagShared != 0 && has(t.x.Version, fView) {
			last = &t.lasts[1]
		}
		if v >= t.nvals-*last || v < -*last {
			return t.fail("value %d of %d", *last+v, t.nvals)
		}
		*last += v
	case tag&3 == kindSealed:
		_, err = t.take(int(min(head>>3, uint64(t.left())+1)))
	}
	return err
}

// entry reads the rest of key k (name, for messages): its head, value
// entry (valueAt), error or sealed blob, and flags.
func (t *keyScan) entry(k *IndexKey, name []byte) error {
	head, err := t.next("a key's head")
	if err != nil {
		return err
	}
	ref, tag := head>>3, head&7
	if tag&3 == kindFlagged {
		if tag != kindFlagged {
			return t.fail("key %q: a flagged head with the shared bit", name)
		}
		if tag, err = t.next("a key's flags"); err != nil {
			return err
		}
		if tag>>3 == 0 || tag&3 == kindFlagged {
			return t.fail("key %q: flags %#x of kind %d after a flagged head", name, tag>>3, tag&3)
		}
	}
	flags := tag >> 3
	k.shared = tag&tagShared != 0
	name = clip(name)
	if flags&^uint64(keySecret|keySensitive|keyConverts|keyAsked|keySealed) != 0 {
		return t.fail("key %q: unknown flags %#x", name, flags)
	}
	k.valueAt = -1
	switch tag & 3 {
	case kindValue:
		// A zigzag distance from the last key's value entry.
		v := int64(ref>>1) ^ -int64(ref&1)
		last := &t.lasts[0]
		if k.shared && has(t.x.Version, fView) {
			last = &t.lasts[1]
		}
		if v >= t.nvals-*last || v < -*last {
			return t.fail("key %q: value %d of %d", name, *last+v, t.nvals)
		}
		*last += v
		k.valueAt = int32(*last)
	case kindError:
		if ref >= uint64(len(t.x.errs)) {
			return t.fail("key %q: error %d of %d", name, ref, len(t.x.errs))
		}
		k.Err = t.x.errs[ref]
	case kindSealed:
		if ref > uint64(t.left()) {
			return t.fail("key %q: a sealed blob of %d bytes beyond the table", name, ref)
		}
		k.Ciphertext, _ = t.take(int(ref))
		k.Sealed = true
	default:
		return t.fail("key %q: unknown kind %d", name, tag&3)
	}
	if (flags&keySealed != 0) != k.Sealed {
		return t.fail("key %q: the sealed flag and the kind disagree", name)
	}
	if k.shared && k.Sealed {
		return t.fail("key %q: sealed, its details in the shared file", name)
	}
	k.secret, k.Sensitive, k.Converts = flags&keySecret != 0, flags&keySensitive != 0, flags&keyConverts != 0
	k.Asked = flags&keyAsked != 0
	if k.Sensitive && !k.Converts {
		return t.fail("key %q: sensitive without convert_to", name)
	}
	return nil
}

// decodeKeyTable reads the key table into x.Keys, and builds the index
// that Find uses.
func (x *Index) decodeKeyTable(r *reader) error {
	tb, err := r.bin()
	if err != nil {
		return err
	}
	at := r.base + int64(r.off-len(tb)) // the table's offset, for messages
	if x.values.peek {
		x.keyTable = reader{s: tb, base: at}
		return nil
	}
	t := &keyScan{reader: reader{s: tb, base: at}, x: x, nvals: int64(len(x.values.vals)), lasts: [2]int64{-1, -1}}
	n, err := t.next("the key count")
	if err != nil {
		return err
	}
	// Each key takes at least three bytes: shared, length, head.
	if n > uint64(t.left())/3 {
		return t.fail("%d keys in %d bytes", n, t.left())
	}
	x.Keys = make([]IndexKey, n)
	// The names, expanded into one buffer, then one string that every
	// name is a slice of.
	limit := maxNameBytes(len(tb))
	buf := make([]byte, 0, min(limit, 2*len(tb)))
	ends := make([]int32, n)
	prevStart := 0
	for i := range x.Keys {
		k := &x.Keys[i]
		shared, suffix, err := t.name(i, buf[prevStart:])
		if err != nil {
			return err
		}
		if len(buf)+shared+len(suffix) > limit {
			return t.fail("names expand beyond %d bytes", limit)
		}
		start := len(buf)
		buf = append(buf, buf[prevStart:prevStart+shared]...)
		buf = append(buf, suffix...)
		prevStart = start
		ends[i] = int32(len(buf))
		if err := t.entry(k, buf[start:]); err != nil {
			return err
		}
		if k.valueAt >= 0 {
			k.Value = x.values.vals[k.valueAt]
		}
	}
	if t.left() != 0 {
		return t.fail("%d bytes after the last key", t.left())
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
