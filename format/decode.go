package format

import (
	"crypto/sha256"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"math"
	"slices"
	"strings"
	"sync"

	"github.com/hieracc/hieracc/format/internal/wire"
	"github.com/hieracc/hieracc/format/trust"
)

// ReadHeader reads the header of the bundle in r and checks its magic,
// version and checksum; it reads a few hundred bytes, never the body, so
// comparing the digests of two bundles costs almost nothing.
func ReadHeader(r io.ReaderAt) (Header, error) {
	size := 512
	for {
		buf := make([]byte, size)
		n, err := r.ReadAt(buf, 0)
		if err != nil && err != io.EOF {
			return Header{}, err
		}
		h, _, herr := parseHeader(string(buf[:n]))
		// A header longer than what was read fails to parse: read more.
		if herr != nil && n == size && size < maxHeader && !errors.Is(herr, ErrNotBundle) && !errors.Is(herr, ErrVersion) {
			size = min(size*16, maxHeader)
			continue
		}
		return h, herr
	}
}

// Verify reads the bundle in r to its end and checks everything that does
// not need decoding the body: magic, version, header checksum, the length
// the header gives and the body's SHA-256 digest. It returns the header, so
// that a reader comparing digests (as `hieracc diff` does) trusts only
// digests that hold. It reads at most Size+1 bytes, in one buffer of 64 KiB.
func Verify(r io.ReaderAt) (Header, error) {
	bp := verifyBuf.Get().(*[]byte)
	defer verifyBuf.Put(bp)
	buf := *bp
	n, err := r.ReadAt(buf, 0)
	if err != nil && err != io.EOF {
		return Header{}, err
	}
	h, off, err := parseHeader(string(buf[:n]))
	if err != nil {
		if n == len(buf) && len(buf) < maxHeader && !errors.Is(err, ErrNotBundle) && !errors.Is(err, ErrVersion) {
			return ReadHeader(r) // a header longer than the buffer: its own error
		}
		return Header{}, err
	}
	// The body goes to the digest; what follows it (version 4's
	// signature, or trailing bytes) to tail, one byte beyond its bound at
	// most.
	sum := sha256.New()
	var tail []byte
	limit := h.Size + 1
	if has(h.Version, fSignature) {
		limit += maxSignature
	}
	size := int64(0)
	for {
		chunk := buf[:n]
		if size < int64(off) {
			chunk = chunk[int64(off)-size:]
		}
		start := max(size, int64(off))
		if body := min(int64(len(chunk)), max(h.Size-start, 0)); body > 0 {
			sum.Write(chunk[:body])
			chunk = chunk[body:]
		}
		tail = append(tail, chunk...)
		size += int64(n)
		if n < len(buf) || size >= limit {
			break
		}
		n, err = r.ReadAt(buf[:min(int64(len(buf)), limit-size)], size)
		if err != nil && err != io.EOF {
			return Header{}, err
		}
	}
	var digest [sha256.Size]byte
	sum.Sum(digest[:0])
	if err := checkBody(h, min(size, h.Size), digest); err != nil {
		return Header{}, err
	}
	if _, err := trailer(h, string(tail)); err != nil {
		return Header{}, err
	}
	return h, nil
}

// verifyBuf holds Verify's buffers: most bundles fit one.
var verifyBuf = sync.Pool{New: func() any { b := make([]byte, 64<<10); return &b }}

// checkBody checks a bundle's length and body digest against its header.
func checkBody(h Header, size int64, digest [sha256.Size]byte) error {
	if size != h.Size {
		if size < h.Size {
			return fmt.Errorf("format: %w: truncated: %d bytes, header says %d", ErrCorrupt, size, h.Size)
		}
		return fmt.Errorf("format: %w: %d bytes after the end of the bundle", ErrCorrupt, size-h.Size)
	}
	if digest != h.Digest {
		return fmt.Errorf("format: %w: body does not match its SHA-256 digest", ErrCorrupt)
	}
	return nil
}

// parseHeader parses the header at the start of s and returns where the
// body starts.
func parseHeader(s string) (Header, int, error) {
	if len(s) < len(magic) {
		if len(s) > 0 && strings.HasPrefix(magic, s) {
			return Header{}, 0, fmt.Errorf("format: %w: truncated in the magic number (%d bytes)", ErrCorrupt, len(s))
		}
		return Header{}, 0, fmt.Errorf("format: %w (%d bytes, too short)", ErrNotBundle, len(s))
	}
	if s[:len(magic)] != magic {
		return Header{}, 0, fmt.Errorf("format: %w (bad magic number)", ErrNotBundle)
	}
	r := &reader{s: s, off: len(magic)}
	v, err := r.integer()
	if err != nil {
		return Header{}, 0, err
	}
	if v < 1 || v > Version {
		return Header{}, 0, fmt.Errorf("format: %w %d (this reader reads versions 1 to %d)", ErrVersion, v, Version)
	}
	h := Header{Version: int(v)}
	fields := 6
	if has(h.Version, fSeal) {
		fields++ // seal
	}
	if has(h.Version, fSourceRevision) {
		fields++
	}
	if err := r.arrayOf(fields, "header"); err != nil {
		return Header{}, 0, err
	}
	d, err := r.bin()
	if err != nil {
		return Header{}, 0, err
	}
	if len(d) != len(h.Digest) {
		return Header{}, 0, r.errorf("digest of %d bytes, want %d", len(d), len(h.Digest))
	}
	copy(h.Digest[:], d)
	bodyLen, err := r.integer()
	if err != nil {
		return Header{}, 0, err
	}
	for _, f := range []*string{&h.Node, &h.Environment, &h.Revision} {
		if *f, err = r.str(); err != nil {
			return Header{}, 0, err
		}
	}
	if has(h.Version, fSourceRevision) {
		if h.SourceRevision, err = r.str(); err != nil {
			return Header{}, 0, err
		}
	}
	if has(h.Version, fSeal) {
		if h.Seal, err = readSeal(r); err != nil {
			return Header{}, 0, err
		}
	}
	end := r.off
	if end+5 > maxHeader {
		return Header{}, 0, r.errorf("header longer than %d bytes", maxHeader)
	}
	if r.left() < 5 || s[end] != mUint32 {
		return Header{}, 0, r.errorf("want header checksum (uint32)")
	}
	sum, _ := r.be(5)
	if uint32(sum) != crc32.Checksum([]byte(s[:end]), wire.Castagnoli) {
		return Header{}, 0, r.errorf("header checksum mismatch")
	}
	if bodyLen < 0 || bodyLen > math.MaxInt64-int64(r.off) {
		return Header{}, 0, r.errorf("body length %d out of range", bodyLen)
	}
	h.Size = int64(r.off) + bodyLen
	return h, r.off, nil
}

// Index is the part of a bundle that lookups need, decoded at once: the
// header, each key's value or error, and the node and module errors. The
// rest (merge options, contributions, hierarchies) stays encoded until
// Bundle is called. An Index is safe for concurrent use.
type Index struct {
	Header
	NodeError    *Error
	ModuleErrors []ModuleError // sorted by Module
	Keys         []IndexKey    // sorted by Name
	// Options are the lookup_options that fail keys the bundle does not
	// hold (see OptionScope; format version 4).
	Options []OptionScope

	// Signature is version 4's signature of the bundle, nil when it is
	// unsigned; VerifySignature checks it.
	Signature *trust.Signature

	signed   string       // the bytes the signature covers, after its context
	unsealed map[int]*Key // by key position: the keys Unseal opened
	slots    []uint64     // the index section: 0, or key number + 1 | hash tag
	values   valueTable
	errs     []*Error
	details  string
	detOff   int64 // offset of details in the file, for messages
	views    ViewStore
	view     *ViewTable // the view read through views
	keyTable reader     // the key table, not decoded (KeyReader)
	// lazyIndex builds slots on the first Find of an index read
	// through a ViewStore (a diff finds no key by name).
	lazyIndex sync.Once

	// The shared details file the details continue in (version 5), and
	// its body once attached.
	sharedRef     [32]byte
	hasShared     bool
	sharedBody    string
	sharedVersion int // the version of the shared details file attached
}

// IndexKey is one key's entry in an Index.
type IndexKey struct {
	Name  string
	Value Value  // nil when Err is set
	Err   *Error // the recorded failure of the configured lookup
	// Sensitive: lookups of the key return a Sensitive wrapping Value
	// (convert_to Sensitive; format version 2).
	Sensitive bool
	// Converts: the key has a convert_to (of any type; format version 2).
	Converts bool
	// Asked: the key's details hold Asked (see Key.Asked), for a dotted
	// lookup (format version 3).
	Asked bool
	// Ciphertext is the key's sealed blob (format version 4): its value,
	// error and details encrypted to the node; "" for a plain key.
	Ciphertext string
	// shared: its details are its record in the shared details file
	// (version 5).
	shared bool
	// Sealed: the key is sealed and Unseal has not opened it: Value and
	// Err are nil, its details empty.
	Sealed  bool
	secret  bool
	valueAt int32 // Value's index in the value table, -1 for none
}

// ModuleError is the failure of one module's layer.
type ModuleError struct {
	Module string
	Err    *Error
}

// Decode decodes and verifies a whole bundle. A value stored once in the
// encoding is one Go value in the result, shared wherever it is used:
// treat the values as read-only.
func Decode(data []byte) (*Bundle, error) {
	x, err := DecodeIndex(data)
	if err != nil {
		return nil, err
	}
	return x.Bundle()
}

// DecodeIndex verifies data (magic, version, checksum, digest) and decodes
// the part of the bundle that lookups need. It does not keep data.
func DecodeIndex(data []byte) (*Index, error) { return decodeIndex(data, nil) }

func decodeIndex(data []byte, views ViewStore) (*Index, error) {
	return decodeIndexAs(data, views, false, nil)
}

// decodeIndexAs is decodeIndex; peek keeps the key table and the value
// table's sections undecoded (KeyReader); hashed is NewKeyReader's.
func decodeIndexAs(data []byte, views ViewStore, peek bool, hashed func([32]byte) bool) (*Index, error) {
	s := string(data) // one copy; every decoded string is a slice of it
	h, off, err := parseHeader(s)
	if err != nil {
		return nil, err
	}
	end := min(int64(len(s)), h.Size)
	digest := h.Digest
	if hashed == nil || !hashed(digest) {
		digest = sha256.Sum256(data[off:end])
	}
	if err := checkBody(h, end, digest); err != nil {
		return nil, err
	}
	sig, err := trailer(h, s[end:])
	if err != nil {
		return nil, err
	}
	x := &Index{Header: h, Signature: sig, signed: s[:off], views: views, values: valueTable{peek: peek}}
	r := &reader{s: s[off:end], base: int64(off)}
	if err := x.decodeBody(r); err != nil {
		return nil, err
	}
	return x, nil
}

func (x *Index) decodeBody(r *reader) error {
	// Versions 1 to 3: 7 fields; 4 adds options; 5 drops the index and
	// adds the shared details file.
	// 6 adds the view, a value table section before values.
	bodyFields := 7
	switch {
	case has(x.Version, fView):
		bodyFields = 9
	case has(x.Version, fOptions):
		bodyFields = 8
	}
	if err := r.arrayOf(bodyFields, "body"); err != nil {
		return err
	}
	if has(x.Version, fView) {
		if err := x.readView(r); err != nil {
			return err
		}
	}
	if err := x.values.readSection(r, x.Version); err != nil {
		return err
	}
	x.values.clip()

	n, err := r.arrayLen()
	if err != nil {
		return err
	}
	errs := make([]Error, n)
	x.errs = make([]*Error, n)
	for i := range errs {
		if err := readError(r, &errs[i]); err != nil {
			return err
		}
		x.errs[i] = &errs[i]
	}

	i, err := r.optRef(len(x.errs), "error")
	if err != nil {
		return err
	}
	x.NodeError = x.err(i)

	if n, err = r.arrayLen(); err != nil {
		return err
	}
	x.ModuleErrors = make([]ModuleError, n)
	for j := range x.ModuleErrors {
		m := &x.ModuleErrors[j]
		if err := r.arrayOf(2, "module error"); err != nil {
			return err
		}
		if m.Module, err = r.str(); err != nil {
			return err
		}
		if j > 0 && m.Module <= x.ModuleErrors[j-1].Module {
			return r.errorf("module errors not sorted: %q after %q", m.Module, x.ModuleErrors[j-1].Module)
		}
		i, err := r.ref(len(x.errs), "error")
		if err != nil {
			return err
		}
		m.Err = x.errs[i]
	}

	if has(x.Version, fKeyTable) {
		if err := x.decodeKeyTable(r); err != nil {
			return err
		}
	} else if err := x.decodeKeys(r); err != nil {
		return err
	}
	if x.details, err = r.bin(); err != nil {
		return err
	}
	x.detOff = r.base + int64(r.off-len(x.details))
	if has(x.Version, fSharedDetails) && !r.nilNext() {
		d, err := r.bin()
		if err != nil {
			return err
		}
		if len(d) != len(x.sharedRef) {
			return r.errorf("shared details digest of %d bytes", len(d))
		}
		copy(x.sharedRef[:], d)
		x.hasShared = true
	}
	for i := range x.Keys {
		if x.Keys[i].shared && !x.hasShared {
			return r.errorf("key %q: details in a shared file the bundle does not name", x.Keys[i].Name)
		}
	}
	if has(x.Version, fOptions) {
		if err := x.readOptionScopes(r); err != nil {
			return err
		}
	}
	return r.done("body")
}

// decodeKeys reads the keys and the index of versions 1 to 4.
func (x *Index) decodeKeys(r *reader) error {
	n, err := r.arrayLen()
	if err != nil {
		return err
	}
	x.Keys = make([]IndexKey, n)
	for j := range x.Keys {
		k := &x.Keys[j]
		fields := 3
		if has(x.Version, fKeyFlags) {
			fields = 4 // flags
		}
		if err := r.arrayOf(fields, "key"); err != nil {
			return err
		}
		if k.Name, err = r.str(); err != nil {
			return err
		}
		if j > 0 && k.Name <= x.Keys[j-1].Name {
			return r.errorf("keys not sorted: %q after %q", k.Name, x.Keys[j-1].Name)
		}
		v := -1
		if c, err := r.peek(); err == nil && c >= mBin8 && c <= mBin32 && has(x.Version, fSeal) {
			if k.Ciphertext, err = r.bin(); err != nil {
				return err
			}
			k.Sealed = true
		} else if v, err = r.optRef(len(x.values.vals), "value"); err != nil {
			return err
		}
		e, err := r.optRef(len(x.errs), "error")
		if err != nil {
			return err
		}
		if k.Sealed && e >= 0 {
			return r.errorf("sealed key %q has an error", k.Name)
		}
		if !k.Sealed && (v < 0) == (e < 0) {
			return r.errorf("key %q must have exactly one of value and error", k.Name)
		}
		if v >= 0 {
			k.Value = x.values.vals[v]
		}
		k.valueAt = int32(v)
		k.Err = x.err(e)
		if fields == 4 {
			flags, err := r.integer()
			if err != nil {
				return err
			}
			known := uint64(keySecret | keySensitive | keyConverts)
			if has(x.Version, fAsked) {
				known |= keyAsked
			}
			if has(x.Version, fSeal) {
				known |= keySealed
			}
			if uint64(flags)&^known != 0 {
				return r.errorf("key %q: unknown flags %#x", k.Name, flags)
			}
			if (flags&keySealed != 0) != k.Sealed {
				return r.errorf("key %q: the sealed flag and the value disagree", k.Name)
			}
			k.secret, k.Sensitive, k.Converts = flags&keySecret != 0, flags&keySensitive != 0, flags&keyConverts != 0
			k.Asked = flags&keyAsked != 0
			if k.Sensitive && !k.Converts {
				return r.errorf("key %q: sensitive without convert_to", k.Name)
			}
		}
	}

	return x.decodeIndex(r)
}

// readOptionsEntry reads a key's mergeFrom (version 3): the same fields
// as an error, the entry's name in place of the message.
func readOptionsEntry(r *reader, o *OptionsEntry) error {
	var e Error
	if err := readError(r, &e); err != nil {
		return err
	}
	*o = OptionsEntry{Entry: e.Message, Pos: e.Pos, Level: e.Level}
	return nil
}

func readError(r *reader, e *Error) error {
	if err := r.arrayOf(5, "error"); err != nil {
		return err
	}
	var err error
	var line, col int64
	if e.Message, err = r.str(); err != nil {
		return err
	}
	if e.File, err = r.str(); err != nil {
		return err
	}
	if line, err = r.integer(); err != nil {
		return err
	}
	if col, err = r.integer(); err != nil {
		return err
	}
	e.Line, e.Column = int(line), int(col)
	e.Level, err = r.str()
	return err
}

func (x *Index) err(i int) *Error {
	if i < 0 {
		return nil
	}
	return x.errs[i]
}

func (x *Index) decodeIndex(r *reader) error {
	t, err := r.bin()
	if err != nil {
		return err
	}
	nk := len(x.Keys)
	if len(t) != 4*wire.SlotCount(nk) {
		return r.errorf("index of %d bytes, want %d for %d keys", len(t), 4*wire.SlotCount(nk), nk)
	}
	// In memory, each slot also holds the high half of its key's hash, so
	// that a probe compares names only when the hashes agree.
	x.slots = make([]uint64, len(t)/4)
	used := 0
	for i := range x.slots {
		s := uint32(t[4*i]) | uint32(t[4*i+1])<<8 | uint32(t[4*i+2])<<16 | uint32(t[4*i+3])<<24
		if s > uint32(nk) {
			return r.errorf("index slot %d names key %d of %d", i, s, nk)
		}
		if s != 0 {
			used++
		}
		x.slots[i] = uint64(s)
	}
	if used != nk {
		return r.errorf("index holds %d keys, want %d", used, nk)
	}
	// Each key must be reached from its hash before an empty slot; then,
	// with as many entries as keys, every entry is right (names are
	// unique), and lookups of absent keys end at an empty slot.
	mask := uint64(len(x.slots) - 1)
	for i := range x.Keys {
		h := wire.KeyHash(x.Keys[i].Name)
		j := h & mask
		for {
			s := x.slots[j]
			if s == 0 {
				return r.errorf("index does not find key %q", x.Keys[i].Name)
			}
			if uint32(s) == uint32(i+1) {
				x.slots[j] = s | h&^0xffffffff
				break
			}
			j = (j + 1) & mask
		}
	}
	return nil
}

// Find returns the position of key name in Keys, or -1. It allocates
// nothing and takes constant time.
func (x *Index) Find(name string) int {
	if x.views != nil && has(x.Version, fKeyTable) {
		x.lazyIndex.Do(x.buildIndex)
	}
	n := len(x.slots)
	if n == 0 {
		return -1
	}
	h := wire.KeyHash(name)
	tag := h &^ 0xffffffff
	mask := uint64(n - 1)
	j := h & mask
	for range n {
		s := x.slots[j]
		if s == 0 {
			return -1
		}
		if s&^0xffffffff == tag {
			if k := int(uint32(s) - 1); x.Keys[k].Name == name {
				return k
			}
		}
		j = (j + 1) & mask
	}
	return -1
}

// ModuleError returns the recorded failure of module's layer, or nil.
func (x *Index) ModuleError(module string) *Error {
	i, ok := slices.BinarySearchFunc(x.ModuleErrors, module, func(m ModuleError, name string) int {
		return strings.Compare(m.Module, name)
	})
	if !ok {
		return nil
	}
	return x.ModuleErrors[i].Err
}

// valueTable is the decoded value table: each entry's value, and for the
// limits, its nesting depth and expanded size.
type valueTable struct {
	vals []any
	meta []uint64 // depth<<32 | nodes (at most MaxNodes)
	// varints: children are varints (version 5), not msgpack ints.
	varints bool
	// peek: the sections are kept in secs, not decoded (KeyReader).
	peek bool
	secs []reader
}

// readSection appends a value table section to t: up to version 4 an
// array of entries; in version 5 a bin of the count (a varint) and the
// entries, whose children are varints.
func (t *valueTable) readSection(r *reader, version int) error {
	if !has(version, fValueVarints) {
		n, err := r.arrayLen()
		if err != nil {
			return err
		}
		return t.decode(r, n)
	}
	b, err := r.bin()
	if err != nil {
		return err
	}
	sub := &reader{s: b, base: r.base + int64(r.off-len(b))}
	if t.peek { // see KeyReader
		t.secs = append(t.secs, *sub)
		return nil
	}
	n, off, ok := uvarint(b, 0)
	if !ok || n > uint64(len(b)-off) {
		return sub.errorf("value table: bad count")
	}
	sub.off = off
	t.varints = true
	if err := t.decode(sub, int(n)); err != nil {
		return err
	}
	return sub.done("value table")
}

// kid reads a reference to an earlier entry than i: a msgpack int, or a
// varint in version 5.
func (t *valueTable) kid(r *reader, i int) (int, error) {
	if !t.varints {
		return r.ref(i, "value")
	}
	v, off, ok := uvarint(r.s, r.off)
	if !ok {
		return 0, r.errorf("bad varint for a value reference")
	}
	if v>>1 >= uint64(i) {
		return 0, r.errorf("value reference %d out of range [0, %d]", v, 2*i-1)
	}
	k := int(v >> 1)
	if v&1 != 0 {
		k = i - 1 - k // a distance back
	}
	if wire.KidRef(i, k) != v {
		return 0, r.errorf("value reference %d to entry %d not written the shortest way", v, k)
	}
	r.off = off
	return k, nil
}

func (t *valueTable) depth(i int) int32 { return int32(t.meta[i] >> 32) }
func (t *valueTable) nodes(i int) int64 { return int64(uint32(t.meta[i])) }

func (t *valueTable) clip() {
	t.vals, t.meta = slices.Clip(t.vals), slices.Clip(t.meta)
}

// decode appends n entries read from r. An entry's children are references
// to earlier entries, so the table is decoded in one pass without
// recursion, and it cannot hold a cycle.
func (t *valueTable) decode(r *reader, n int) error {
	t.vals = slices.Grow(t.vals, n)
	t.meta = slices.Grow(t.meta, n)
	for range n {
		i := len(t.vals)
		c, err := r.peek()
		if err != nil {
			return err
		}
		var v any
		var depth int32
		var nodes int64 = 1
		switch {
		case c >= 0x90 && c <= 0x9f || c == mArray16 || c == mArray32:
			m, err := r.arrayLen()
			if err != nil {
				return err
			}
			a := make([]any, m)
			depth = 1
			for j := range a {
				k, err := t.kid(r, i)
				if err != nil {
					return err
				}
				a[j] = t.vals[k]
				depth = max(depth, t.depth(k)+1)
				nodes += t.nodes(k)
			}
			v = a
		case c >= 0x80 && c <= 0x8f || c == mMap16 || c == mMap32:
			m, err := r.mapLen()
			if err != nil {
				return err
			}
			h := NewHash(m)
			depth = 1
			for range m {
				k, err := t.kid(r, i)
				if err != nil {
					return err
				}
				e, err := t.kid(r, i)
				if err != nil {
					return err
				}
				key := t.vals[k]
				if !validKey(key) {
					return r.errorf("hash key %d is not a scalar (or is NaN)", k)
				}
				if h.Has(key) {
					return r.errorf("duplicate hash key %d", k)
				}
				h.Set(key, t.vals[e])
				depth = max(depth, t.depth(k)+1, t.depth(e)+1)
				nodes += t.nodes(k) + t.nodes(e)
			}
			v = h
		default:
			if v, err = scalar(r, c); err != nil {
				return err
			}
		}
		if depth > MaxDepth {
			return r.errorf("value nested deeper than %d", MaxDepth)
		}
		if nodes > MaxNodes {
			return r.errorf("value has more than %d nodes", MaxNodes)
		}
		t.vals = append(t.vals, v)
		t.meta = append(t.meta, uint64(depth)<<32|uint64(nodes))
	}
	return nil
}

// scalar reads an entry of the value table that is no container; c is
// its first byte.
func scalar(r *reader, c byte) (any, error) {
	switch {
	case c == mNil:
		r.off++
		return nil, nil
	case c == mFalse || c == mTrue:
		return r.boolean()
	case c <= 0x7f || c >= 0xe0 || c >= mUint8 && c <= mInt64:
		return r.integer()
	case c == mFloat32 || c == mFloat64:
		r.off++
		b, err := r.be(4 << (c - mFloat32))
		if c == mFloat32 {
			return float64(math.Float32frombits(uint32(b))), err
		}
		return math.Float64frombits(b), err
	case c >= 0xa0 && c <= 0xbf || c >= mStr8 && c <= mStr32:
		return r.str()
	}
	return nil, r.errorf("value of unsupported %s", codeName(c))
}

// emptyBundle is the Bundle of x's header, node error and options, which
// the details decoders fill in.
func (x *Index) emptyBundle() *Bundle {
	return &Bundle{
		Node:           x.Node,
		Environment:    x.Environment,
		Revision:       x.Revision,
		SourceRevision: x.SourceRevision,
		NodeError:      x.NodeError,
		Options:        x.Options,
	}
}

// Bundle decodes the details section and returns the whole bundle. Each
// call decodes anew; values are shared with x.
func (x *Index) Bundle() (*Bundle, error) {
	r := &reader{s: x.details, base: x.detOff}
	fields := 5
	if has(x.Version, fDetails4) {
		fields = 7 // merges and sources
	}
	if err := r.arrayOf(fields, "details"); err != nil {
		return nil, err
	}
	vals := x.values // clipped: appending copies, x is left alone
	err := vals.readSection(r, x.Version)
	if err != nil {
		return nil, err
	}
	b := x.emptyBundle()
	if has(x.Version, fDetails4) {
		if err := x.readDetails4(r, b, vals.vals); err != nil {
			return nil, err
		}
		return b, nil
	}
	if err := x.readLayers(r, b); err != nil {
		return nil, err
	}
	if err := r.arrayOf(len(x.Keys), "key details"); err != nil {
		return nil, err
	}
	b.Keys = make([]Key, len(x.Keys))
	for i := range b.Keys {
		k := &b.Keys[i]
		ik := &x.Keys[i]
		k.Name, k.Value, k.Err = ik.Name, ik.Value, ik.Err
		k.Secret = ik.secret
		// Version 2 adds the key's convert_to; version 3, where its merge
		// comes from and what a dotted lookup reads (Asked).
		fields := 4
		switch {
		case has(x.Version, fAsked):
			fields = 7
		case has(x.Version, fKeyFlags):
			fields = 5
		}
		if err := r.arrayOf(fields, "key details"); err != nil {
			return nil, err
		}
		if k.Merge, err = readMerge(r); err != nil {
			return nil, err
		}
		if k.Contributions, err = x.readContributions(r, vals.vals); err != nil {
			return nil, err
		}
		if k.DefaultMerge, err = readMerge(r); err != nil {
			return nil, err
		}
		if k.Defaults, err = x.readContributions(r, vals.vals); err != nil {
			return nil, err
		}
		if fields >= 5 {
			if k.ConvertTo, err = readConvertTo(r); err != nil {
				return nil, err
			}
			if k.Sensitive() != ik.Sensitive || (len(k.ConvertTo) > 0) != ik.Converts {
				return nil, r.errorf("key %q: the key's flags and convert_to disagree", k.Name)
			}
		}
		if fields >= 6 && !r.nilNext() {
			k.MergeFrom = new(OptionsEntry)
			if err := readOptionsEntry(r, k.MergeFrom); err != nil {
				return nil, err
			}
		}
		if fields >= 7 {
			contribs := func(r *reader) ([]Contribution, error) { return x.readContributions(r, vals.vals) }
			if k.Asked, err = readAsked(r, contribs); err != nil {
				return nil, err
			}
		}
		if (k.Asked != nil) != ik.Asked {
			return nil, r.errorf("key %q: the key's flags and asked disagree", k.Name)
		}
	}
	if err := r.done("details"); err != nil {
		return nil, err
	}
	return b, nil
}

// readSealedDetails reads the details of key i, k, when it is sealed
// (format version 4): a nil, its details being in its blob, given to k
// when Unseal opened it. It reports whether the key is sealed.
func (x *Index) readSealedDetails(r *reader, i int, k *Key) (bool, error) {
	ik := &x.Keys[i]
	if ik.Ciphertext == "" {
		return false, nil
	}
	if !r.nilNext() {
		return true, r.errorf("sealed key %q has details", k.Name)
	}
	k.Ciphertext, k.Sealed = ik.Ciphertext, ik.Sealed
	if u := x.unsealed[i]; u != nil {
		k.Merge, k.MergeFrom, k.Contributions = u.Merge, u.MergeFrom, u.Contributions
		k.DefaultMerge, k.Defaults, k.ConvertTo, k.Asked = u.DefaultMerge, u.Defaults, u.ConvertTo, u.Asked
	}
	return true, nil
}

// readLayers reads the hierarchies of the details: global, environment
// and modules (with their errors from the fast part).
func (x *Index) readLayers(r *reader, b *Bundle) error {
	if err := readHierarchy(r, x.Version, &b.Global); err != nil {
		return err
	}
	if err := readHierarchy(r, x.Version, &b.Env); err != nil {
		return err
	}
	n, err := r.arrayLen()
	if err != nil {
		return err
	}
	if x.hasShared && has(x.Version, fSharedDetails) {
		// Version 5: the modules are the shared file's.
		if n != 0 {
			return r.errorf("%d modules in a bundle whose modules are in its shared file", n)
		}
		return nil
	}
	b.Modules = make([]Module, n)
	me := x.ModuleErrors
	for i := range b.Modules {
		m := &b.Modules[i]
		if err := r.arrayOf(3, "module"); err != nil {
			return err
		}
		if m.Name, err = r.str(); err != nil {
			return err
		}
		if i > 0 && m.Name <= b.Modules[i-1].Name {
			return r.errorf("modules not sorted: %q after %q", m.Name, b.Modules[i-1].Name)
		}
		if err := readHierarchy(r, x.Version, &m.Hierarchy); err != nil {
			return err
		}
		if !r.nilNext() {
			m.Default = new(Hierarchy)
			if err := readHierarchy(r, x.Version, m.Default); err != nil {
				return err
			}
		}
		if len(me) > 0 && me[0].Module == m.Name {
			m.Err, me = me[0].Err, me[1:]
		}
	}
	if len(me) > 0 {
		return r.errorf("error recorded for unknown module %q", me[0].Module)
	}
	return nil
}

// readAsked reads a key's Asked: nil (versions 1 to 3 only; version 4
// leaves it out), or entries sorted by text, unique, the first "", whose
// contributions contribs reads.
func readAsked(r *reader, contribs func(*reader) ([]Contribution, error)) ([]Asked, error) {
	if r.nilNext() {
		return nil, nil
	}
	n, err := r.arrayLen()
	if err != nil {
		return nil, err
	}
	if n == 0 {
		return nil, r.errorf("empty asked")
	}
	out := make([]Asked, n)
	for i := range out {
		a := &out[i]
		if err := r.arrayOf(3, "asked"); err != nil {
			return nil, err
		}
		if a.Text, err = r.str(); err != nil {
			return nil, err
		}
		if i == 0 && a.Text != "" || i > 0 && a.Text <= out[i-1].Text {
			return nil, r.errorf("asked not sorted from \"\": %q", a.Text)
		}
		if a.Contributions, err = contribs(r); err != nil {
			return nil, err
		}
		if a.Defaults, err = contribs(r); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// readConvertTo reads a key's convert_to: nil, or an array of a type name
// and scalar arguments.
func readConvertTo(r *reader) ([]Value, error) {
	if r.nilNext() {
		return nil, nil
	}
	n, err := r.arrayLen()
	if err != nil {
		return nil, err
	}
	if n == 0 {
		return nil, r.errorf("empty convert_to")
	}
	out := make([]Value, n)
	for i := range out {
		c, err := r.peek()
		if err != nil {
			return nil, err
		}
		switch {
		case c == mTrue || c == mFalse:
			out[i], err = r.boolean()
		case i > 0 && (c <= 0x7f || c >= 0xe0 || c >= 0xcc && c <= 0xd3):
			out[i], err = r.integer()
		default:
			out[i], err = r.str()
		}
		if err != nil {
			return nil, err
		}
	}
	if _, ok := out[0].(string); !ok {
		return nil, r.errorf("convert_to type is not a string")
	}
	return out, nil
}

// readHierarchy reads a hierarchy of a bundle of the given version:
// version 3 adds each location's original path.
func readHierarchy(r *reader, version int, h *Hierarchy) error {
	if err := r.arrayOf(2, "hierarchy"); err != nil {
		return err
	}
	var err error
	if h.Present, err = r.boolean(); err != nil {
		return err
	}
	n, err := r.arrayLen()
	if err != nil {
		return err
	}
	h.Levels = make([]Level, n)
	for i := range h.Levels {
		l := &h.Levels[i]
		if err := r.arrayOf(2, "level"); err != nil {
			return err
		}
		if l.Name, err = r.str(); err != nil {
			return err
		}
		if n, err = r.arrayLen(); err != nil {
			return err
		}
		l.Locations = make([]Location, n)
		for j := range l.Locations {
			loc := &l.Locations[j]
			fields := 2
			if has(version, fOriginalPaths) {
				fields = 3 // original
			}
			if err := r.arrayOf(fields, "location"); err != nil {
				return err
			}
			if loc.Path, err = r.str(); err != nil {
				return err
			}
			if loc.Exists, err = r.boolean(); err != nil {
				return err
			}
			if fields == 3 {
				if loc.Original, err = r.str(); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

func readMerge(r *reader) (Merge, error) {
	var m Merge
	if r.nilNext() {
		return m, nil
	}
	if err := r.arrayOf(4, "merge"); err != nil {
		return m, err
	}
	strategy, err := r.str()
	if err != nil {
		return m, err
	}
	m.Strategy = Strategy(strategy)
	if m.KnockoutPrefix, err = r.str(); err != nil {
		return m, err
	}
	if m.SortMergedArrays, err = r.boolean(); err != nil {
		return m, err
	}
	m.MergeHashArrays, err = r.boolean()
	return m, err
}

func (x *Index) readContributions(r *reader, vals []any) ([]Contribution, error) {
	n, err := r.arrayLen()
	if err != nil || n == 0 {
		return nil, err
	}
	cs := make([]Contribution, n)
	for i := range cs {
		c := &cs[i]
		if err := r.arrayOf(7, "contribution"); err != nil {
			return nil, err
		}
		layer, err := r.count(int(LayerModule), "layer")
		if err != nil {
			return nil, err
		}
		c.Layer = Layer(layer)
		if c.Level, err = r.count(math.MaxInt32, "level"); err != nil {
			return nil, err
		}
		if c.Location, err = r.count(math.MaxInt32, "location"); err != nil {
			return nil, err
		}
		line, err := r.integer()
		if err != nil {
			return nil, err
		}
		col, err := r.integer()
		if err != nil {
			return nil, err
		}
		c.Line, c.Column = int(line), int(col)
		v, err := r.optRef(len(vals), "value")
		if err != nil {
			return nil, err
		}
		e, err := r.optRef(len(x.errs), "error")
		if err != nil {
			return nil, err
		}
		if (v < 0) == (e < 0) {
			return nil, r.errorf("contribution must have exactly one of value and error")
		}
		if v >= 0 {
			c.Value = vals[v]
		}
		c.Err = x.err(e)
	}
	return cs, nil
}
