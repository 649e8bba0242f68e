package encode

import (
	"crypto/sha256"
	"encoding"
	"encoding/binary"
	"fmt"
	"hash"
	"hash/crc32"
	"math"
	"sync"

	"github.com/hieracc/hieracc/format"
	"github.com/hieracc/hieracc/format/internal/wire"
	"github.com/hieracc/hieracc/format/trust"
	"github.com/hieracc/hieracc/format/trust/sign"
)

// Encode writes b in the newest format version. The output depends only on
// b: the same bundle always gives the same bytes.
//
// Encode rejects bundles that break the invariants documented on format.Bundle
// (Keys and Modules sorted and unique, values of the Value types only) and
// values beyond MaxDepth or MaxNodes.
//
// Encode remembers nothing between calls. To encode many bundles that share
// values (a fleet compiled at once), an Encoder is faster.
func Encode(b *format.Bundle) ([]byte, error) {
	e := encoderPool.Get().(*Encoder)
	out, err := e.Append(nil, b)
	e.Reset() // forget b's values: nothing of the caller's stays reachable
	if e.small() {
		encoderPool.Put(e)
	}
	return out, err
}

// encoderPool keeps the scratch memory of Encode's encoders.
var encoderPool = sync.Pool{New: func() any {
	e := NewEncoder()
	e.oneShot = true
	return e
}}

// An Encoder encodes bundles like Encode, byte for byte, but remembers
// across calls what the bundles of a fleet share, so that the second bundle
// holding it costs little:
//
//   - each variant of a key's contributions met in two bundles (the same
//     Contributions and Defaults slices, as a compiler that shares a key's
//     result between the nodes that resolve it alike hands out): the ids of
//     their values and their encoding, so that such a key costs a lookup;
//   - the values of those variants, each distinct value once, found again
//     by identity (the same *Hash, the same []any) or by content: a shared
//     subtree is never walked twice;
//   - the keys of the last bundle (memo.go): a key identical to the last
//     bundle's (the same name, value, contributions and the rest, by
//     identity), as most keys of consecutive nodes of one hierarchy slice
//     are, costs a few compares, and when all of them are, the last
//     bundle's shared details file (AppendShared) is found without
//     comparing records.
//
// Values held by one bundle only (those that interpolate a node's facts) are
// forgotten after it. A compiler that shares values but not contributions
// gains nothing over Encode.
//
// Because it recognises values and contributions by identity, what a bundle
// given to an Encoder holds (its values, its keys' Contributions, Defaults,
// ConvertTo and Asked) must not be modified afterwards while the Encoder is
// in use; the compiler never modifies them once built. The Keys slice
// itself may be reused for the next bundle: the Encoder keeps copies of
// the keys. Call Reset before encoding values that were modified, or use a
// new Encoder.
//
// An Encoder keeps what it remembers reachable, and forgets everything
// (Reset) between two bundles once it remembers about a million things, so
// it holds some tens of megabytes at most beyond its scratch buffers (a few
// times the largest bundle, with the memo of its keys). An Encoder is not
// safe for concurrent use: give each worker its own. Append into a reused
// buffer spares the allocation (and page faults) of a new output per
// bundle.
type Encoder struct {
	// What it remembers across bundles (see the package doc).
	in    interner // the values: their ids, and the bundle's value table (intern.go)
	recs  recTable // the variants of keys' contributions met before (recs.go)
	mem   memo     // the keys of the last bundle and what was found for them (memo.go)
	share *sharing // AppendShared's state (shared.go), nil until first used

	// One bundle's tables and scratch.
	fastBytes uint32       // the fast part's entries are in.vals[:fastBytes]
	errs      errTable     // the error table (errtable.go)
	tables    detailTables // merges and lookup_options sources (details.go)
	refs      []int32      // value and error index of each key, then of each contribution
	keyRecs   []keyMemo    // by key
	ids       []int32
	modErrs   []int32
	optIDs    []int32 // error references of the options section, see errTable.options
	// The bundle's view's file (view.go), when it has one; and whether
	// the body is written as version 5's (a shared details file's: no
	// view section; the encoder of shared files, sharing.sub, which
	// also remembers every record's contributions, see encodeBody, and
	// shares its global table with the Encoder it writes them for: see
	// newSub).
	viewFile *sharedFile
	v5Body   bool
	bodyLen  int    // the length of the body AppendWith wrote last
	head     []byte // body parts, see Append
	head2    []byte // version 6: the head of the values section, after the view
	mid      []byte
	tail     []byte
	sha      hash.Hash
	sum      [sha256.Size]byte

	// The bundle being encoded: how it is protected, the envelope of its
	// sealed keys (nil when none are) and their blobs, by key (nil for a
	// plain key; the scratch of encodeBody's, nil when there is no
	// envelope).
	protect  Protection
	envelope *trust.Envelope
	blobs    [][]byte

	maxRemembered int  // Reset beyond this
	oneShot       bool // Encode's: remember nothing across bundles
}

// probeKeys is how many keys of a bundle are searched in the memo when
// the last bundle found few there.
const probeKeys = 64

// keyMemo is what the bundle being encoded found for a key.
//
// Everything the passes over the keys find for a key by position is here,
// in one 32-byte entry (two a cache line), rather than in arrays of their
// own: a pass that reads two of its fields reads one line, not two.
type keyMemo struct {
	rec    int32 // keyRec, or -1
	value  int32 // node id of the key's value, -1 if the key has an error
	prior  int32 // the identical key of the last bundle in memo.prior, or -1
	named  int32 // the key of the same name in memo.prior, or -1
	global bool  // no keyRec, but the variant was seen in a bundle before: remember it
	// For AppendShared, whether a key that is not the last bundle's has a
	// bound contribution or default (1) or none (0), when the first pass
	// looked (else -1): planKey needs it, and a bound key's variant,
	// one node's, is not worth a findRec.
	bound int8

	// Its details' shape (keyShape), and the indexes of its merges and
	// lookup_options source in the details tables, where the shape says
	// it has them: found as the key is first read, so that the details
	// are written in one pass over the keys.
	shape                   uint8
	merge, defMerge, source int32
}

// freshMemo is a keyMemo before encodeBody fills it in.
var freshMemo = keyMemo{rec: -1, value: -1, prior: -1, named: -1, bound: -1}

// Bounds of what an Encoder remembers before it forgets everything, and of
// the scratch kept for Encode.
const (
	defaultMaxRemembered = 1 << 20 // global nodes, identity-cache entries and key variants
	maxScalarBytes       = 64 << 20
	maxKids              = 8 << 20
	maxOnce              = 1 << 16
	maxPooledScratch     = 8 << 20
)

// NewEncoder returns an Encoder that remembers nothing yet.
func NewEncoder() *Encoder {
	e := &Encoder{
		in:            interner{glob: newTable(0), loc: newTable(localBit)},
		recs:          recTable{maxOnce: maxOnce},
		errs:          errTable{of: map[format.Error]int32{}},
		sha:           sha256.New(),
		maxRemembered: defaultMaxRemembered,
	}
	e.Reset()
	return e
}

// Reset forgets every value and contribution the Encoder has met (keeping
// its scratch memory), for when some of them were modified.
func (e *Encoder) Reset() {
	e.in.reset()
	e.recs.reset()
	e.forgetPrior()
	if sh := e.share; sh != nil {
		clear(sh.recent)
		sh.recent = sh.recent[:0]
		if sh.sub != nil {
			sh.sub.Reset()
		}
	}
	e.forgetBundle()
}

// forgetBundle drops what only the bundle just encoded needed.
func (e *Encoder) forgetBundle() {
	e.in.loc.reset()
	e.tables.reset()
	e.errs.reset()
}

// remembered is how much the Encoder holds, against maxRemembered.
func (e *Encoder) remembered() int {
	return e.in.glob.size() + len(e.recs.recs)
}

// tooMuch reports whether the Encoder holds more than it may keep, with
// the encoder of its shared files (which shares its global table and is
// Reset with it, never alone: see newSub).
func (e *Encoder) tooMuch() bool {
	n, recData := e.remembered(), len(e.recs.data)
	if sh := e.share; sh != nil && sh.sub != nil {
		n += len(sh.sub.recs.recs)
		recData = max(recData, len(sh.sub.recs.data))
	}
	return n > e.maxRemembered || len(e.in.glob.scalars) > maxScalarBytes || len(e.in.glob.kids) > maxKids || recData > maxScalarBytes
}

// small reports whether the Encoder's scratch is small enough to keep in
// the pool.
func (e *Encoder) small() bool {
	return cap(e.in.vals)+cap(e.mid)+cap(e.tail)+4*cap(e.refs) <= maxPooledScratch && cap(e.in.loc.nodes) <= 1<<16
}

// Encode is like the package's Encode, using and adding to what e
// remembers.
func (e *Encoder) Encode(b *format.Bundle) ([]byte, error) {
	return e.Append(nil, b)
}

// Append appends the encoding of b to dst and returns the extended slice,
// like Encode; on error it returns dst unchanged. With a reused dst, it
// allocates nothing once e has seen a few bundles.
func (e *Encoder) Append(dst []byte, b *format.Bundle) ([]byte, error) {
	return e.AppendWith(dst, b, Protection{})
}

// AppendWith is Append with signing and sealing (see Protection).
func (e *Encoder) AppendWith(dst []byte, b *format.Bundle, p Protection) ([]byte, error) {
	var seal *trust.Seal
	e.envelope = nil
	if p.Recipient != nil {
		var err error
		if seal, e.envelope, err = sign.NewEnvelope(p.Recipient, p.Signer, b.Node, b.Environment); err != nil {
			return dst, err
		}
	}
	e.protect = p
	defer func() { e.envelope, e.protect = nil, Protection{} }()
	if !e.v5Body && e.tooMuch() { // the encoder of shared files never resets alone (newSub)
		e.Reset()
	}
	err := e.encodeBody(b)
	e.forgetBundle()
	if err != nil {
		e.forgetPrior() // it may be half replaced
		return dst, err
	}
	if !e.oneShot {
		e.mem.keepPrior()
	}
	// The body is e.head, the fast part of the value table, e.mid, the
	// rest of the value table and e.tail: hash the parts, then copy each
	// once, after the header.
	_, viewBytes := e.viewFile.viewSize()
	view, fast, rest := e.in.vals[:viewBytes], e.in.vals[viewBytes:e.fastEnd()], e.in.vals[e.fastEnd():]
	parts := [...][]byte{e.head, view, e.head2, fast, e.mid, rest, e.tail}
	bodyLen := 0
	for _, p := range parts {
		bodyLen += len(p)
	}
	// The body starts with the view's section, the same bytes in every
	// bundle of its shared file: its digest's state after them is
	// computed once per view.
	first := 0
	if f := e.viewFile; f != nil {
		if f.shaState == nil {
			e.sha.Reset()
			e.sha.Write(e.head)
			e.sha.Write(view)
			st, err := e.sha.(encoding.BinaryMarshaler).MarshalBinary()
			if err != nil {
				return dst, err
			}
			f.shaState = st
		} else if err := e.sha.(encoding.BinaryUnmarshaler).UnmarshalBinary(f.shaState); err != nil {
			return dst, err
		}
		first = 2
	} else {
		e.sha.Reset()
	}
	for _, p := range parts[first:] {
		e.sha.Write(p)
	}
	digest := e.sha.Sum(e.sum[:0])
	e.bodyLen = bodyLen

	start := len(dst)
	out := dst
	// The header takes at most 85 bytes besides its strings: magic 15,
	// version 1, array 1, digest 34, body length 9, string lengths 4×5,
	// CRC 5.
	if n := bodyLen + 85 + len(b.Node) + len(b.Environment) + len(b.Revision) + len(b.SourceRevision); cap(out)-len(out) < n {
		out = make([]byte, len(dst), len(dst)+n)
		copy(out, dst)
	}
	out = append(out, wire.Magic...)
	out = appendUint(out, format.Version)
	out = appendArrayLen(out, 8)
	out = appendBin(out, digest)
	out = appendUint(out, uint64(bodyLen))
	out = appendString(out, b.Node)
	out = appendString(out, b.Environment)
	out = appendString(out, b.Revision)
	out = appendString(out, b.SourceRevision)
	out = appendSeal(out, seal)
	out = appendFixed32(out, crc32.Checksum(out[start:], wire.Castagnoli))
	if n := len(out) - start; n > wire.MaxHeader {
		return dst, fmt.Errorf("format: header of %d bytes exceeds %d: node, environment, revision or source revision too long", n, wire.MaxHeader)
	}
	var sig *trust.Signature
	if p.Signer != nil {
		var err error
		if sig, err = p.Signer.Sign(wire.SignedMessage(string(out[start:]))); err != nil {
			return dst, err
		}
	}
	for _, p := range parts {
		out = append(out, p...)
	}
	return appendSignature(out, sig), nil
}

// curAt is the memo entry of the i-th key of the bundle being encoded
// in cur, nil for Encode's (which remembers nothing).
func (e *Encoder) curAt(cur []priorKey, i int) *priorKey {
	if e.oneShot {
		return nil
	}
	return &cur[i]
}

// fastEnd is where the fast part of the value table ends in e.in.vals.
func (e *Encoder) fastEnd() int { return int(e.fastBytes) }

// encodeBody builds the body of b in parts (see Append), in passes over
// its keys: their checks (checkKeys), what is known of them and their
// sealing (readKeys), their values (internValues), their contributions
// (contributionRefs); then the sections around the value table.
func (e *Encoder) encodeBody(b *format.Bundle) error {
	memo := e.keyRecs[:0] // by key, what is found for it
	refs := e.refs[:0]
	defer func() { e.refs, e.keyRecs = refs, memo }()
	var err error
	if memo, err = e.checkKeys(b, memo); err != nil {
		return err
	}
	useRecs, sharing := e.startBody(b)
	cur := e.mem.cur[:0]
	defer func() { e.mem.cur = cur }()

	// Fast part first, so that its values take the low indexes and a
	// reader can decode them without the details.
	// Each key's sealed blob (nil for a key not sealed), only when keys
	// may be sealed (an envelope): else blobs stays nil, and none of the
	// passes over the keys reads 24 bytes a key to find it so.
	var blobs [][]byte
	if e.envelope != nil {
		blobs = e.blobs[:0]
		defer func() { clear(blobs); e.blobs = blobs[:0] }()
	}
	if sharing {
		e.share.planStart() // each key planned as it is read (planKey)
	}
	if cur, blobs, refs, err = e.readKeys(b, memo, cur, blobs, refs, useRecs, sharing); err != nil {
		return err
	}
	e.mem.cur = cur // addRec completes it
	if err := e.share.planShared(b, &e.in); err != nil {
		return err
	}
	// The value table starts with the view of the shared file, if any
	// (view.go); then come the values of the keys, in their order.
	if e.viewFile, e.ids, err = e.share.startWithView(b, &e.in, e.ids); err != nil {
		return err
	}
	if err := e.internValues(b, memo, refs, blobs, cur); err != nil {
		return err
	}
	nFast := e.in.nVals
	e.fastBytes = uint32(len(e.in.vals))
	nodeErr := e.errs.add(b.NodeError)
	modErrs := e.modErrs[:0]
	for i := range b.Modules {
		modErrs = append(modErrs, e.errs.add(b.Modules[i].Err))
	}
	e.modErrs = modErrs
	optIDs := e.errs.options(e.optIDs[:0], b.Options)
	e.optIDs = optIDs
	if refs, err = e.contributionRefs(b, memo, refs, blobs, useRecs); err != nil {
		return err
	}
	// The details, but for their value table.
	e.tail = e.appendDetails(e.tail[:0], b, memo, refs, blobs)
	e.appendSections(b, memo, refs, blobs, nFast, nodeErr, optIDs)
	return nil
}

// checkKeys finds each key of b in the memo of the last bundle, into memo
// (by key), and checks the order of b's keys and modules and what the
// readers would refuse.
func (e *Encoder) checkKeys(b *format.Bundle, memo []keyMemo) ([]keyMemo, error) {
	// Each key's identical key of the last bundle, if any (memo.go), and
	// its key of the same name: two keys named as consecutive keys of the
	// last bundle are in order, and a key identical to the last bundle's
	// passed checkConvertTo and checkAsked. When the last bundle found
	// few, the search goes on only if the first keys find some: bundles
	// given in no particular order share few keys, and searching costs.
	// The first key refused by the checks is reported before the first
	// out of order.
	j := 0 // where the keys of the last bundle are searched from (priorOf)
	probe, hits := 4*e.mem.priorHits < len(e.mem.prior), 0
	var checkErr, orderErr error
	for i := range b.Keys {
		k := &b.Keys[i]
		p, n := int32(-1), int32(-1)
		if !e.oneShot && (!probe || i < probeKeys || 4*hits >= i) {
			if p, n = e.mem.priorOf(k, &j); p >= 0 {
				hits++
			}
		}
		if p < 0 && checkErr == nil {
			if checkErr = checkConvertTo(k); checkErr == nil {
				checkErr = checkAsked(k)
			}
		}
		// Written in place: a keyMemo built on the stack field by field,
		// then appended, would be read back whole from the store buffer,
		// which the processor cannot forward (see remember).
		memo = append(memo, freshMemo)
		memo[i].prior, memo[i].named = p, n
		if orderErr == nil && i > 0 && (n <= 0 || memo[i-1].named != n-1) && b.Keys[i-1].Name >= k.Name {
			orderErr = fmt.Errorf("format: Keys not sorted and unique: %q before %q", b.Keys[i-1].Name, k.Name)
		}
	}
	e.mem.priorHits = hits
	if checkErr != nil {
		return memo, checkErr
	}
	if orderErr != nil {
		return memo, orderErr
	}
	for i := 1; i < len(b.Modules); i++ {
		if b.Modules[i-1].Name >= b.Modules[i].Name {
			return memo, fmt.Errorf("format: Modules not sorted and unique: %q before %q", b.Modules[i-1].Name, b.Modules[i].Name)
		}
	}
	return memo, checkOptionScopes(b.Options)
}

// startBody readies e for the body of b: it reports whether the keyRecs
// are used for it, and whether it is written for AppendShared.
func (e *Encoder) startBody(b *format.Bundle) (useRecs, sharing bool) {
	e.in.nextGen()
	e.in.vals = e.in.vals[:0]
	e.in.nVals = 0
	useRecs = !e.oneShot && e.recs.pause == 0
	sharing = e.share != nil && e.share.on
	if useRecs && e.recs.reserve(len(b.Keys)) {
		for j := range e.mem.prior { // the keyRecs moved
			e.mem.prior[j].rec = -1
		}
	}
	if e.share != nil && !e.share.on {
		e.share.prevFile = nil // this bundle has no shared file
	}
	if !e.oneShot && e.in.strCache == nil {
		e.in.strCache = make([]strSlot, 1<<strCacheBits)
	}
	if e.recs.pause > 0 {
		e.recs.pause--
	}
	return useRecs, sharing
}

// readKeys is the first pass over b's keys: it remembers each (memo.go),
// seals those to seal (their blobs), and finds what the memo and the
// keyRecs know of the others' values and contributions.
func (e *Encoder) readKeys(b *format.Bundle, memo []keyMemo, cur []priorKey, blobs [][]byte, refs []int32, useRecs, sharing bool) ([]priorKey, [][]byte, []int32, error) {
	for i := range b.Keys {
		k := &b.Keys[i]
		m := &memo[i]
		if k.Sealed {
			return cur, blobs, refs, fmt.Errorf("format: key %q is sealed and was not unsealed: it cannot be written again", k.Name)
		}
		if !e.oneShot {
			cur = e.mem.remember(cur, k, m.prior)
		}
		if e.envelope != nil && e.protect.sealed(k) {
			blob, err := sealKey(e.envelope, b.Node, k)
			if err != nil {
				return cur, blobs, refs, fmt.Errorf("format: sealing key %q: %w", k.Name, err)
			}
			blobs = append(blobs, blob)
			refs = append(refs, -1, -1)
			if sharing {
				e.share.planKey(e.mem.prior, i, k, true, m, e.curAt(cur, i))
			}
			continue
		}
		if e.envelope != nil {
			blobs = append(blobs, nil)
		}
		if m.prior >= 0 {
			// The last bundle's key: met in two bundles, what it found
			// holds.
			p := &e.mem.prior[m.prior]
			m.global = true
			m.value = p.valueID
			if useRecs {
				m.rec = p.rec
			}
		} else if useRecs && k.Asked == nil { // a keyRec has no room for Asked
			// planKey reads a key's contributions anyway: reading them
			// now spares the keyRecs' index a variant never met again.
			if sharing {
				m.bound = 0
				if anyBound(k.Contributions) || anyBound(k.Defaults) {
					m.bound = 1
				}
			}
			if m.bound != 1 {
				m.rec, m.global = e.recs.findRec(i, k)
				// The encoder of shared files (v5Body) remembers
				// every record's variant from its first file on: the
				// next files of the slice's nodes hold most of them,
				// and those of other slices the same data files'
				// values, found then by identity in the global table.
				m.global = m.global || e.v5Body
			}
		}
		if !e.oneShot {
			// What the key's memo entry holds of what was found, written
			// now, while the entry is in the processor's cache: a key
			// identical to the last bundle's (m.value, a global node id,
			// or -1) needs nothing more. The values pass below completes
			// the others (keepValue), and addRec a new keyRec.
			c := &cur[i]
			c.usable, c.rec, c.valueID = true, m.rec, m.value
		}
		refs = append(refs, -1, e.errs.add(k.Err))
		if sharing {
			e.share.planKey(e.mem.prior, i, k, false, m, e.curAt(cur, i))
		}
	}
	return cur, blobs, refs, nil
}

// internValues is the pass over b's values: each key's value is found
// or interned, its entry in refs.
func (e *Encoder) internValues(b *format.Bundle, memo []keyMemo, refs []int32, blobs [][]byte, cur []priorKey) error {
	for i := range b.Keys {
		k := &b.Keys[i]
		if blobs != nil && blobs[i] != nil {
			continue
		}
		m := &memo[i]
		// The merges and lookup_options sources of the keys whose details
		// the bundle holds, in key order (not the sealed ones, nor those
		// in the shared file): found in this pass, which reads the keys
		// anyway, rather than in one of their own.
		if !e.share.inShared(i) && !e.share.overlaid(i) {
			e.tables.add(m, k)
		}
		if m.value >= 0 {
			// Found in the memo, and kept (see above): the last bundle's
			// key, identical, had this value, hence no error. Its Key is
			// not read.
			refs[2*i] = e.in.entry(m.value)
		} else if k.Err == nil {
			if r := m.rec; r >= 0 && e.recs.recs[r].valueID >= 0 && same(e.recs.recs[r].value, k.Value) {
				m.value = e.recs.recs[r].valueID
			} else if id := e.mem.namedValue(m.named, k.Value); id >= 0 {
				m.value = id
			} else {
				var like any
				var kids, tree []int32
				if n := m.named; n >= 0 {
					like, kids, tree = e.mem.likeOf(n, e.in.glob) // the last bundle's value of the key
				}
				var err error
				if m.value, err = e.in.internLike(k.Value, like, kids, tree, m.global, 0); err != nil {
					return fmt.Errorf("format: key %q: %w", k.Name, err)
				}
			}
			if !e.oneShot {
				e.mem.keepValue(&cur[i], m.value, &e.in)
			}
			refs[2*i] = e.in.entry(m.value)
		}
	}
	return nil
}

// contributionRefs is the pass over the contributions of the keys whose
// details the bundle holds: their values' and errors' entries, appended
// to refs.
func (e *Encoder) contributionRefs(b *format.Bundle, memo []keyMemo, refs []int32, blobs [][]byte, useRecs bool) ([]int32, error) {
	hits, misses := 0, 0
	for i := range b.Keys {
		k := &b.Keys[i]
		if blobs != nil && blobs[i] != nil || e.share.inShared(i) {
			continue // sealed, or its details are in the shared file
		}
		if e.share.overlaid(i) {
			// Its bound contributions only: the shared file has the rest.
			var err error
			if refs, err = e.boundRefs(refs, i, k, &memo[i]); err != nil {
				return refs, err
			}
			continue
		}
		if r := memo[i].rec; r >= 0 {
			// Contributions met before: their values' ids are known, and
			// none is an error.
			rec := &e.recs.recs[r]
			data := e.recs.data[rec.data:]
			for j := range int(rec.nc + rec.nd) {
				refs = append(refs, e.in.entry(int32(binary.LittleEndian.Uint32(data[4*j:]))), -1)
			}
			hits++
			continue
		}
		var err error
		var hasErr bool
		ids := e.ids[:0]
		if refs, ids, hasErr, err = e.contributions(refs, ids, k.Contributions, memo[i].global, k.Value, memo[i].value); err != nil {
			return refs, fmt.Errorf("format: key %q: %w", k.Name, err)
		}
		var defErr bool
		if refs, ids, defErr, err = e.contributions(refs, ids, k.Defaults, memo[i].global, k.Value, memo[i].value); err != nil {
			return refs, fmt.Errorf("format: key %q: defaults: %w", k.Name, err)
		}
		for j := range k.Asked {
			a := &k.Asked[j]
			for _, cs := range [2][]format.Contribution{a.Contributions, a.Defaults} {
				if refs, ids, _, err = e.contributions(refs, ids, cs, memo[i].global, k.Value, memo[i].value); err != nil {
					return refs, fmt.Errorf("format: key %q: asked as %q: %w", k.Name, a.Text, err)
				}
			}
		}
		e.ids = ids
		if useRecs && len(ids) > 0 {
			misses++
			// A keyRec has no room for Asked.
			if memo[i].global && k.Asked == nil && !hasErr && !defErr && allGlobal(memo[i].value, ids) {
				e.recs.addRec(e.mem.cur, i, k, memo[i].value, ids)
			}
		}
	}
	if useRecs && !e.v5Body { // shared files: remembering pays (see m.global)
		e.recs.judge(hits, misses)
	}
	return refs, nil
}

// appendSections writes the body's parts around the value table (see
// AppendWith) once the details are in e.tail: nFast values are in the
// fast part, nodeErr and optIDs are the error references of the node and
// the options section.
func (e *Encoder) appendSections(b *format.Bundle, memo []keyMemo, refs []int32, blobs [][]byte, nFast int, nodeErr int32, optIDs []int32) {
	t := e.tail
	modErrs := e.modErrs
	// Version 6: the view section, then the rest of the fast part's
	// entries (see AppendWith); version 5 (a shared file's body): one
	// section.
	if e.v5Body {
		e.head = appendArrayLen(e.head[:0], 8)
		e.head = appendValuesHead(e.head, nFast, e.fastEnd())
		e.head2 = e.head2[:0]
	} else {
		e.head = appendArrayLen(e.head[:0], 9)
		nView, viewBytes := e.viewFile.viewSize()
		e.head = appendValuesHead(e.head, nView, viewBytes)
		e.head2 = appendValuesHead(e.head2[:0], nFast-nView, e.fastEnd()-viewBytes)
	}

	w := e.mid[:0]
	w = e.errs.appendTable(w)
	w = appendRef(w, nodeErr)
	n := 0
	for _, i := range modErrs {
		if i >= 0 {
			n++
		}
	}
	w = appendArrayLen(w, n)
	for j, i := range modErrs {
		if i >= 0 {
			w = appendArrayLen(w, 2)
			w = appendString(w, b.Modules[j].Name)
			w = appendUint(w, uint64(i))
		}
	}
	e.mem.keyTab = e.appendKeyTable(e.mem.keyTab[:0], b.Keys, refs, blobs, memo)
	w = appendBin(w, e.mem.keyTab)
	// The details section: a bin holding array(7), the rest of the value
	// table, then e.tail.
	nRest, restLen := e.in.nVals-nFast, len(e.in.vals)-e.fastEnd()
	restHead := 1 + valuesHeadSize(nRest, restLen)
	w = appendBinLen(w, restHead+restLen+len(t))
	w = append(w, 0x97)
	w = appendValuesHead(w, nRest, restLen)
	e.mid = w
	// The shared details file's digest (version 5), then the options
	// section (version 4).
	e.tail = e.share.appendSharedRef(e.tail)
	e.tail = appendOptionScopes(e.tail, b.Options, optIDs)
}

// keyFlags is a key's flags field.
func keyFlags(k *format.Key) uint64 {
	var f uint64
	if k.Secret {
		f |= wire.KeySecret
	}
	if k.Sensitive() {
		f |= wire.KeySensitive
	}
	if len(k.ConvertTo) > 0 {
		f |= wire.KeyConverts
	}
	if k.Asked != nil {
		f |= wire.KeyAsked
	}
	return f
}

// checkAsked refuses a key's Asked that readers would reject: not nil, it
// starts with "" and is sorted and unique.
func checkAsked(k *format.Key) error {
	if k.Asked == nil {
		return nil
	}
	if len(k.Asked) == 0 || k.Asked[0].Text != "" {
		return fmt.Errorf("format: key %q: Asked does not start with \"\"", k.Name)
	}
	for i := 1; i < len(k.Asked); i++ {
		if k.Asked[i-1].Text >= k.Asked[i].Text {
			return fmt.Errorf("format: key %q: Asked not sorted and unique: %q before %q", k.Name, k.Asked[i-1].Text, k.Asked[i].Text)
		}
	}
	return nil
}

// appendConvertTo writes a key's convert_to (checked by checkConvertTo).
func appendConvertTo(w []byte, c []format.Value) []byte {
	if len(c) == 0 {
		return append(w, wire.Nil)
	}
	w = appendArrayLen(w, len(c))
	for _, v := range c {
		switch v := v.(type) {
		case string:
			w = appendString(w, v)
		case int64:
			w = appendInt(w, v)
		case bool:
			w = appendBool(w, v)
		}
	}
	return w
}

// checkConvertTo refuses what appendConvertTo cannot write.
func checkConvertTo(k *format.Key) error {
	for i, v := range k.ConvertTo {
		switch v.(type) {
		case string:
			continue
		case int64, bool:
			if i > 0 {
				continue
			}
		}
		return fmt.Errorf("format: key %q: convert_to must be a type name and string, integer or boolean arguments", k.Name)
	}
	return nil
}

// contributions appends the value and error index of each contribution to
// refs, and its value's node id (-1 for an error) to ids, and reports
// whether one is an error. global is intern's. own is the key's value and
// ownID its node id (-1 for none): a contribution whose value is own (the
// winning one, most often) has that id without a lookup.
func (e *Encoder) contributions(refs, ids []int32, cs []format.Contribution, global bool, own any, ownID int32) ([]int32, []int32, bool, error) {
	hasErr := false
	for i := range cs {
		c := &cs[i]
		if err := checkPlace(i, c); err != nil {
			return refs, ids, hasErr, err
		}
		val, cerr, id := int32(-1), e.errs.add(c.Err), int32(-1)
		if c.Err == nil {
			var err error
			if ownID >= 0 && sameIface(c.Value, own) {
				id = ownID
			} else if id, err = e.in.intern(c.Value, 0, global); err != nil {
				return refs, ids, hasErr, fmt.Errorf("contribution %d: %w", i, err)
			}
			val = e.in.entry(id)
		} else {
			hasErr = true
		}
		refs = append(refs, val, cerr)
		ids = append(ids, id)
	}
	return refs, ids, hasErr, nil
}

// checkPlace refuses the i-th contribution of a list if its layer, level
// or location cannot be written.
func checkPlace(i int, c *format.Contribution) error {
	if c.Layer > format.LayerModule {
		return fmt.Errorf("contribution %d: unknown layer %d", i, c.Layer)
	}
	if c.Level < 0 || c.Location < 0 || c.Level > math.MaxInt32 || c.Location > math.MaxInt32 {
		return fmt.Errorf("contribution %d: level %d, location %d out of range", i, c.Level, c.Location)
	}
	return nil
}

// allGlobal reports whether the ids (and value, -1 for none) are all in
// the global table, as a keyRec's must be.
func allGlobal(value int32, ids []int32) bool {
	if value >= 0 && value&localBit != 0 {
		return false
	}
	for _, id := range ids {
		if id >= 0 && id&localBit != 0 {
			return false
		}
	}
	return true
}

func appendHierarchy(w []byte, h *format.Hierarchy) []byte {
	w = appendArrayLen(w, 2)
	w = appendBool(w, h.Present)
	w = appendArrayLen(w, len(h.Levels))
	for i := range h.Levels {
		l := &h.Levels[i]
		w = appendArrayLen(w, 2)
		w = appendString(w, l.Name)
		w = appendArrayLen(w, len(l.Locations))
		for _, loc := range l.Locations {
			w = appendArrayLen(w, 3)
			w = appendString(w, loc.Path)
			w = appendBool(w, loc.Exists)
			w = appendString(w, loc.Original)
		}
	}
	return w
}

func appendMerge(w []byte, m format.Merge) []byte {
	if m == (format.Merge{}) {
		return append(w, wire.Nil)
	}
	w = appendArrayLen(w, 4)
	w = appendString(w, string(m.Strategy))
	w = appendString(w, m.KnockoutPrefix)
	w = appendBool(w, m.SortMergedArrays)
	return appendBool(w, m.MergeHashArrays)
}
