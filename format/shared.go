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
	"unsafe"
)

// Shared details (SPEC.md, "Shared details"): nodes of one role,
// datacenter and OS share almost all of their keys' details (where each
// value came from, merge options), which take about half of a bundle. A
// compile writes the part of a bundle's details that holds no bound
// contribution (see Contribution.Bound) once, in a shared details file
// named by its digest, which every bundle with the same shared part
// refers to. A bundle still holds every value a lookup returns: only
// explanations and lookup-time merges read the shared file.

// SharedDetails is a shared details file: Data, whose body's SHA-256 is
// Digest, is written to SharedDetailsName(Digest) in the folder of the
// bundles that refer to it.
type SharedDetails struct {
	Digest [32]byte
	Data   []byte
}

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
const sharedFileVersion = 5

// sharedMagic opens every shared details file: the msgpack encoding of the
// string "hieracc-details" (fixstr, 15 bytes).
const sharedMagic = "\xafhieracc-details"

// sharing is what AppendShared keeps between calls: which keys of the
// bundle being encoded have their details in the shared file, the
// bundle of shared records, and the encoder that writes it (warm across
// bundles, as the bundle's own).
type sharing struct {
	on    bool   // encoding for AppendShared
	whole []bool // by key: its details are all in the shared file
	over  []bool // by key: its bound contributions are in the bundle, the rest in the shared file
	// The keys over holds, two ints each: the key's index and that of its
	// record (viewSkips reads them, not every key).
	overs []int32
	bound []Contribution // scratch: a key's bound contributions
	// The shared file's records: prev, the last bundle's file's own
	// (a recent file's keys: never written to), in their order (see
	// priorKey.record). planShared plans the bundle's as plan says: by
	// record, its index in prev, or -1-i for built[i], the record of a
	// key that is not the last bundle's; it gathers them (in keys, a
	// buffer no file holds, which the new file then takes) only for a
	// file that is not recent.
	prev, keys []Key
	plan       []int32
	built      []Key
	// While the keys are planned (planStart to planShared): the last
	// bundle's file, whether the records are its so far, and the file's
	// before it.
	last   *sharedFile
	same   bool
	before []Key
	sub    *Encoder
	tmp    []byte // the bundle sub writes
	out    SharedDetails
	exists bool     // the bundle being encoded refers to out
	mods   []Module // the shared file's modules: the bundle's, without errors
	// The shared files written last, the latest first, with their
	// records: nodes of a slice come one after the other and share one
	// of a few files.
	recent []*sharedFile
	// The last bundle's, when it has one (then recent[0]).
	prevFile *sharedFile
	files    uint64 // shared files written
}

// sharedFile is a shared file an encoder wrote, with what it holds.
type sharedFile struct {
	keys []Key
	mods []Module
	out  SharedDetails
	// Which file it holds (sharing.files when it was written), and which
	// of its records are those of other recent files at the same place.
	gen  uint64
	sims []similar
	// Its view (view.go), once built: the entries and their ids.
	view      []byte
	viewIDs   []int32
	viewBuilt bool
	viewSkip  []int32 // the records it leaves out (viewSkips)
	shaState  []byte  // SHA-256's state after the body's first bytes, to the end of the view; nil until a bundle is hashed with the view built last
	// The places its records take contributions from (locKey), sorted,
	// once known (locsKnown): a file's records come from a few files.
	locs      []uint64
	locsKnown bool
}

// similar says which records of the recent file from, while it holds
// the file of gen fromGen, are those of a file at the same place
// (sameRecord), by record of from: 0 if not known yet, 1 if they are, 2
// if not. Nodes of a slice switch back and forth between a few files:
// planned compares them through it, each record of a pair once.
type similar struct {
	from    *sharedFile
	fromGen uint64
	same    []uint8
}

// maxRecent bounds the shared files an encoder remembers.
const maxRecent = 8

// inShared reports whether the details of the i-th key of the bundle
// being encoded are all in its shared file.
func (e *Encoder) inShared(i int) bool {
	return e.share != nil && e.share.on && e.share.exists && e.share.whole[i]
}

// overlaid reports whether the i-th key of the bundle being encoded keeps
// only its bound contributions in the bundle, its record in the shared
// file holding the rest.
func (e *Encoder) overlaid(i int) bool {
	return e.share != nil && e.share.on && e.share.exists && e.share.over[i]
}

// boundRefs adds the values and errors of k's bound contributions to the
// bundle's tables, and their indexes to refs (two each), in the order
// appendOverlay writes them. k is the i-th key of the bundle, m what
// encodeBody found for it (m.value: the node id of its value, -1 for none).
//
// The values of bound contributions are one node's, built anew for each
// (its own data file, or its facts interpolated), yet those interpolated
// share most of their children with the last node's: the values of the
// bound Contributions of the last bundle's key of the same name, with
// their children's ids (likeBound), make them cost what a key's value
// costs internLike.
func (e *Encoder) boundRefs(refs []int32, i int, k *Key, m *keyMemo) ([]int32, error) {
	valueID := m.value
	var like likeBound
	keep := i < len(e.cur) // not Encode's
	if keep {
		like = e.likeBound(m.named)
		e.cur[i].boundAt = uint32(len(e.boundKids))
	}
	lists := [][]Contribution{k.Contributions, k.Defaults}
	for j := range k.Asked {
		lists = append(lists, k.Asked[j].Contributions, k.Asked[j].Defaults)
	}
	for x, cs := range lists {
		b := e.share.bound[:0]
		for _, c := range cs {
			if c.Bound {
				b = append(b, c)
			}
		}
		e.share.bound = b
		var err error
		if x == 0 && keep {
			refs, err = e.boundContributions(refs, b, &like, k.Value, valueID)
		} else {
			refs, e.ids, _, err = e.contributions(refs, e.ids[:0], b, false, k.Value, valueID)
		}
		if err != nil {
			return refs, fmt.Errorf("format: key %q: %w", k.Name, err)
		}
	}
	if keep {
		e.cur[i].boundN = uint32(len(e.boundKids)) - e.cur[i].boundAt
	}
	return refs, nil
}

// boundContributions is contributions for the bound Contributions cs of
// a key (not global), like holding the last bundle's of the key of the
// same name: it keeps, in e.boundKids, the ids of each one's value's
// children for the next bundle.
func (e *Encoder) boundContributions(refs []int32, cs []Contribution, like *likeBound, own any, ownID int32) ([]int32, error) {
	for i := range cs {
		c := &cs[i]
		if err := checkPlace(i, c); err != nil {
			return refs, err
		}
		w, kids, ok := like.next()
		val, cerr, id := int32(-1), e.err(c.Err), int32(-1)
		if c.Err == nil {
			var err error
			switch {
			case ownID >= 0 && sameIface(c.Value, own):
				id = ownID
			case ok:
				// Met in two bundles, the very value is worth
				// remembering (as internKid's children).
				id, err = e.internLike(c.Value, w, kids, e.lastBound, sameIface(c.Value, w), 0)
			default:
				id, err = e.intern(c.Value, 0, false)
			}
			if err != nil {
				return refs, fmt.Errorf("contribution %d: %w", i, err)
			}
			val = e.entry(id)
		}
		e.keepBoundKids(id)
		refs = append(refs, val, cerr)
	}
	return refs, nil
}

// likeBound walks the bound Contributions of a key of the last bundle,
// with the ids of their values' children.
type likeBound struct {
	cs []Contribution // the key's Contributions, from the next bound one on
	// By bound contribution, its record (see keepBoundKids).
	kids []int32
}

// likeBound returns the bound Contributions of e.prior[n] (none if n is
// -1, or if they were not kept).
func (e *Encoder) likeBound(n int32) likeBound {
	if n < 0 {
		return likeBound{}
	}
	p := &e.prior[n]
	if p.boundN == 0 || p.nc == 0 {
		return likeBound{}
	}
	return likeBound{cs: unsafe.Slice(p.contribs, p.nc), kids: e.lastBound[p.boundAt : p.boundAt+p.boundN]}
}

// next returns the value of the next bound contribution and its
// children's ids; ok is false when there is none.
func (l *likeBound) next() (v any, kids []int32, ok bool) {
	for len(l.cs) > 0 && !l.cs[0].Bound {
		l.cs = l.cs[1:]
	}
	if len(l.cs) == 0 || len(l.kids) < 2 {
		*l = likeBound{}
		return nil, nil, false
	}
	n, m := int(l.kids[0]), int(l.kids[1])
	if n < 1 || n >= len(l.kids) || m < 0 || m >= n {
		*l = likeBound{}
		return nil, nil, false
	}
	v = l.cs[0].Value
	kids, l.cs, l.kids = l.kids[2:2+m], l.cs[1:], l.kids[1+n:]
	return v, kids, true
}

// keepBoundKids appends to e.boundKids the record of node id (-1 for
// none: an error) for likeBound.next: the number of ids that follow it,
// then the number of the node's children and their ids (see appendKids:
// the lists of its local children follow).
func (e *Encoder) keepBoundKids(id int32) {
	at := len(e.boundKids)
	e.boundKids = append(e.boundKids, 1, 0)
	if id < 0 {
		return
	}
	if t, x := e.tableOf(id); t.nodes[x].kind != kindScalar {
		e.boundKids[at+1] = int32(t.nodes[x].n)
		e.boundKids = e.appendKids(e.boundKids, id)
		e.boundKids[at] = int32(len(e.boundKids) - at - 1)
	}
}

// appendOverlay appends the details of a key whose record in the shared
// file holds its unbound contributions (SPEC.md, "Shared details"):
// array(4) [true, contributions, defaults, asked], each list its bound
// contributions as their position in the whole list followed by the five
// ints of contributions4. own is the index of the key's value; refs holds
// the bound contributions' value and error indexes, two each, and the
// rest of the bundle's, which it returns.
func appendOverlay(w []byte, k *Key, own int32, refs []int32) ([]byte, []int32) {
	w = append(w, 0x94, mTrue)
	list := func(w []byte, cs []Contribution) []byte {
		n := 0
		for i := range cs {
			if cs[i].Bound {
				n++
			}
		}
		w = appendArrayLen(w, 6*n)
		for i := range cs {
			if c := &cs[i]; c.Bound {
				w = appendUint(w, uint64(i))
				w = appendPlace(w, c)
				w = appendUint(w, contribRef(refs[0], refs[1], own))
				refs = refs[2:]
			}
		}
		return w
	}
	w = list(w, k.Contributions)
	w = list(w, k.Defaults)
	w = appendArrayLen(w, len(k.Asked))
	for j := range k.Asked {
		w = append(w, 0x92) // array(2)
		w = list(w, k.Asked[j].Contributions)
		w = list(w, k.Asked[j].Defaults)
	}
	return w, refs
}

// planStart starts planning the bundle's shared file: encodeBody plans
// each key (planKey) in its first pass over the keys to encode, which
// reads what the plan reads (the key's memo entries, the key itself when
// it is not the last bundle's), rather than in a pass of its own; then
// planShared decides. Only for AppendShared (sharing.on).
func (sh *sharing) planStart() {
	sh.whole = sh.whole[:0]
	sh.over = sh.over[:0]
	sh.overs = sh.overs[:0]
	sh.exists = false
	sh.plan, sh.built = sh.plan[:0], sh.built[:0] // overwritten, not cleared (see keepPrior)
	sh.last = sh.prevFile
	sh.prevFile = nil
	sh.same = sh.last != nil && len(sh.recent) > 0 && sh.recent[0] == sh.last // so far, the records are last's
	// The records of the file before last, if any.
	sh.before = nil
	if sh.same && len(sh.recent) > 1 {
		sh.before = sh.recent[1].keys
	}
}

// planKey plans the i-th key k of the bundle (planStart): sealed, or
// found m by encodeBody's first pass; c is its memo entry (nil for
// Encode's, which remembers nothing), which it completes.
func (e *Encoder) planKey(i int, k *Key, sealed bool, m *keyMemo, c *priorKey) {
	sh := e.share
	if sealed {
		sh.whole = append(sh.whole, false)
		sh.over = append(sh.over, false)
		return
	}
	var p *priorKey
	if m.prior >= 0 && e.prior[m.prior].bound != 0 {
		p = &e.prior[m.prior]
	}
	var whole, rest bool // rest: not whole, and its record holds its unbound contributions
	if p != nil {
		whole, rest = p.bound&boundWhole != 0, p.bound&boundRest != 0
	} else {
		sh.built, whole, rest = sh.appendRecord(sh.built, k, m.bound, len(sh.plan), sh.before)
	}
	sh.whole = append(sh.whole, whole)
	sh.over = append(sh.over, rest)
	bound, record := uint8(boundKnown), int32(-1)
	if whole {
		bound |= boundWhole
	}
	if rest {
		bound |= boundRest
	}
	if whole || rest {
		x := len(sh.plan)
		if p != nil {
			sh.same = sh.same && p.record == int32(x)
			sh.plan = append(sh.plan, p.record)
		} else {
			built := sh.built
			sh.same = sh.same && x < len(sh.prev) && sameRecord(&sh.prev[x], &built[len(built)-1])
			sh.plan = append(sh.plan, -1-int32(len(built)-1))
		}
		record = int32(x)
		if rest {
			sh.overs = append(sh.overs, int32(i), int32(x))
		}
	}
	if c != nil {
		c.bound, c.record = bound, record
	}
}

// planShared decides, for AppendShared, which keys' details go to the
// shared file, and writes it: a key none of whose contributions is bound
// has all its details there (the bundle marks it); a key with bound
// contributions keeps its details in the bundle, and the shared file
// holds the rest of them (its unbound contributions), so that a node
// whose own data file holds a key shares the file of a node whose own
// file does not. Sealed keys (blobs) have nothing in it.
//
// A key identical to the last bundle's (memo) has the record it had; when
// every record is the last bundle's, or equal to it, so is the file, and
// the records are not even gathered; nor are they when they are those of
// another recent file (planned), which is then the one referred to.
// The keys were planned one by one before (planStart, planKey).
func (e *Encoder) planShared(b *Bundle) error {
	sh := e.share
	if sh == nil || !sh.on {
		return nil
	}
	plan, built, same, last := sh.plan, sh.built, sh.same, sh.last
	sh.last, sh.before = nil, nil // the planning is done (planKey)
	// The modules, without their errors (the bundle's own).
	sh.mods = sh.mods[:0]
	for _, m := range b.Modules {
		m.Err = nil
		sh.mods = append(sh.mods, m)
	}
	if len(plan) > 0 && same && len(plan) == len(sh.prev) && sameModules(last.mods, sh.mods) {
		// sh.prev stays: the records are equal to it, in its order.
		sh.out, sh.exists, sh.prevFile = last.out, true, last
		return nil
	}
	if len(plan) == 0 {
		sh.prev = nil
		return nil // no key has a record: nothing is shared
	}
	// A recent file whose records are the plan's: compared as planned,
	// not gathered. The last bundle's is not one (same says it differs,
	// in its records or its modules).
	for i, f := range sh.recent {
		if f == last || !sameModules(f.mods, sh.mods) || !sh.planned(f, last, plan, built) {
			continue
		}
		copy(sh.recent[1:i+1], sh.recent[:i]) // the latest first
		sh.recent[0] = f
		sh.prev = f.keys
		sh.out, sh.exists, sh.prevFile = f.out, true, f
		return nil
	}
	// The records of a new file.
	recs := sh.keys[:0]
	for _, x := range plan {
		if x >= 0 {
			recs = append(recs, sh.prev[x])
		} else {
			recs = append(recs, built[-1-x])
		}
	}
	sh.keys = recs
	if sh.sub == nil {
		sh.sub = e.newSub()
	}
	sh.sub.gen, sh.sub.weakHash = e.gen, e.weakHash // see newSub
	body, err := sh.sub.AppendWith(sh.tmp[:0], &Bundle{Keys: recs, Modules: sh.mods}, Protection{})
	e.gen = sh.sub.gen
	e.nextGen()
	sh.tmp = body
	if err != nil {
		return fmt.Errorf("format: the shared details: %w", err)
	}
	// The sub-encoder wrote a bundle: its body (before the nil signature)
	// and digest are the shared file's.
	n := sh.sub.bodyLen
	body = body[len(body)-1-n : len(body)-1]
	// Remember it in place of the oldest.
	var f *sharedFile
	if len(sh.recent) < maxRecent {
		f = &sharedFile{}
		sh.recent = append(sh.recent, nil)
	} else {
		f = sh.recent[len(sh.recent)-1]
	}
	copy(sh.recent[1:], sh.recent[:len(sh.recent)-1])
	sh.recent[0] = f
	sh.files++
	f.gen, f.sims = sh.files, f.sims[:0]
	f.view, f.viewIDs, f.viewBuilt, f.locs, f.locsKnown = f.view[:0], f.viewIDs[:0], false, f.locs[:0], false
	f.out.Digest = sh.sub.sum
	w := append(f.out.Data[:0], sharedMagic...)
	w = appendUint(w, sharedFileVersion)
	w = append(w, 0x92) // array(2)
	w = appendBin(w, f.out.Digest[:])
	w = appendUint(w, uint64(n))
	w = append(w, body...)
	f.out.Data = w
	// The file keeps the records, sh.keys takes its old buffer (no
	// longer read: the oldest file is not the last bundle's).
	f.keys, sh.keys, sh.prev = recs, f.keys[:0], recs
	f.mods = append(f.mods[:0], sh.mods...)
	sh.out, sh.exists, sh.prevFile = f.out, true, f
	return nil
}

// newSub returns the encoder of e's shared files, which shares e's global
// table (and the cache of its strings): the records' contributions hold
// the values e interns, the keys' (the winning contribution's, most
// often), and e interns again those of the records, for the view of each
// new file (buildView). Sharing the table, each is interned once.
//
// The marks of the shared table say which nodes are in the value table
// being written, as of a generation: the two encoders take theirs from one
// count (planShared hands e's to the sub-encoder before it writes a file,
// and takes it back after), and e writes no entry while the sub-encoder
// writes a file (planShared runs before any value of e's bundle is
// interned: see startWithView). The sub-encoder never resets itself,
// which would clear a table e holds ids of: e resets both (tooMuch
// counts what they both hold; Reset resets the sub-encoder). Both
// encoders hash containers alike (weakHash), or one would not find the
// other's.
func (e *Encoder) newSub() *Encoder {
	sub := NewEncoder()
	sub.v5Body = true // a shared file's body is version 5's
	sub.glob, sub.strCache = e.glob, e.strCache
	return sub
}

// appendRecord appends to built the record of k, a key that is not the
// last bundle's (bound as keyMemo.bound says, if it looked), if k has one,
// the x-th of the file, and reports whether k has all its details in it
// (whole) or its unbound contributions (rest).
func (sh *sharing) appendRecord(built []Key, k *Key, bound int8, x int, before []Key) (_ []Key, whole, rest bool) {
	if bound >= 0 {
		whole = bound == 0 // k.Asked is nil
	} else {
		whole = !anyBound(k.Contributions) && !anyBound(k.Defaults)
	}
	for j := range k.Asked {
		whole = whole && !anyBound(k.Asked[j].Contributions) && !anyBound(k.Asked[j].Defaults)
	}
	if whole {
		return append(built, Key{Name: k.Name, Merge: k.Merge, MergeFrom: k.MergeFrom, DefaultMerge: k.DefaultMerge, ConvertTo: k.ConvertTo,
			Contributions: k.Contributions, Defaults: k.Defaults, Asked: k.Asked}), true, false
	}
	// The last bundle's record at this place, if it is the key's, else
	// the file's before (a node of the slice before it, often the next
	// one's): its unbound contributions, when equal, are taken as they
	// are (no new slice, compared in no time after). The file before's is
	// looked up only when the last's differ.
	like := recordAt(sh.prev, x, k.Name)
	built = append(built, Key{Name: k.Name, Merge: k.Merge, MergeFrom: k.MergeFrom, DefaultMerge: k.DefaultMerge, ConvertTo: k.ConvertTo})
	r := &built[len(built)-1]
	var cok, dok bool
	r.Contributions, cok = unboundLike(k.Contributions, like.Contributions)
	r.Defaults, dok = unboundLike(k.Defaults, like.Defaults)
	if !cok || !dok {
		alt := recordAt(before, x, k.Name)
		if !cok {
			r.Contributions = unbound(k.Contributions, alt.Contributions)
		}
		if !dok {
			r.Defaults = unbound(k.Defaults, alt.Defaults)
		}
	}
	if k.Asked != nil {
		r.Asked = make([]Asked, len(k.Asked))
		for j, a := range k.Asked {
			r.Asked[j] = Asked{Text: a.Text, Contributions: unbound(a.Contributions, nil), Defaults: unbound(a.Defaults, nil)}
		}
	}
	if len(r.Contributions) == 0 && len(r.Defaults) == 0 {
		*r = Key{} // no record: its bound contributions are all it has
		return built[:len(built)-1], false, false
	}
	return built, false, true
}

// planned reports whether the records of f are those plan gives (see
// sharing.plan), in their order (sameRecord), without gathering them.
// last is the last bundle's file (or nil), whose records are sh.prev:
// those of the plan at their place in it are compared as last's and f's
// were before (sameAs).
func (sh *sharing) planned(f, last *sharedFile, plan []int32, built []Key) bool {
	a := f.keys
	if len(a) != len(plan) {
		return false
	}
	var same []uint8
	useSame := last != nil && len(sh.prev) == len(last.keys) && len(sh.prev) > 0 && &sh.prev[0] == &last.keys[0]
	for i, x := range plan {
		var r *Key
		switch {
		case x >= 0 && int(x) == i && useSame:
			if same == nil {
				same = f.sameAs(last)
			}
			if same[i] == 0 {
				same[i] = 2
				if sameRecord(&a[i], &last.keys[i]) {
					same[i] = 1
				}
			}
			if same[i] != 1 {
				return false
			}
			continue
		case x >= 0:
			r = &sh.prev[x]
		default:
			r = &built[-1-x]
		}
		if !sameRecord(&a[i], r) {
			return false
		}
	}
	return true
}

// sameAs returns what f knows of its records and g's at the same place
// (see similar), by record of g: nothing the first time f and g (the
// files they hold) meet.
func (f *sharedFile) sameAs(g *sharedFile) []uint8 {
	for _, s := range f.sims {
		if s.from == g && s.fromGen == g.gen {
			return s.same
		}
	}
	s := similar{from: g, fromGen: g.gen, same: make([]uint8, len(g.keys))}
	// In place of one whose file the memory no longer holds, else of the
	// oldest (f's are forgotten when its memory takes another file).
	for i := range f.sims {
		if x := &f.sims[i]; x.from.gen != x.fromGen {
			*x = s
			return s.same
		}
	}
	if len(f.sims) < maxRecent {
		f.sims = append(f.sims, s)
	} else {
		copy(f.sims, f.sims[1:])
		f.sims[len(f.sims)-1] = s
	}
	return s.same
}

// sameModules reports whether the modules a and b are the same, their
// hierarchies compared level by level.
func sameModules(a, b []Module) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i].Name != b[i].Name || !sameHierarchy(&a[i].Hierarchy, &b[i].Hierarchy) ||
			(a[i].Default == nil) != (b[i].Default == nil) || a[i].Default != nil && !sameHierarchy(a[i].Default, b[i].Default) {
			return false
		}
	}
	return true
}

func sameHierarchy(a, b *Hierarchy) bool {
	if a.Present != b.Present || len(a.Levels) != len(b.Levels) {
		return false
	}
	for i := range a.Levels {
		if a.Levels[i].Name != b.Levels[i].Name || !slices.Equal(a.Levels[i].Locations, b.Levels[i].Locations) {
			return false
		}
	}
	return true
}

// sameRecord reports whether the shared records x and y are the same,
// so that they encode alike: compared field by field, values as they
// encode (sameValue).
func sameRecord(x, y *Key) bool {
	if x.Name != y.Name || x.Merge != y.Merge || x.DefaultMerge != y.DefaultMerge ||
		!sameEntry(x.MergeFrom, y.MergeFrom) || !sameValues(x.ConvertTo, y.ConvertTo) ||
		!sameContribs(x.Contributions, y.Contributions) || !sameContribs(x.Defaults, y.Defaults) ||
		len(x.Asked) != len(y.Asked) || (x.Asked == nil) != (y.Asked == nil) {
		return false
	}
	for j := range x.Asked {
		p, q := &x.Asked[j], &y.Asked[j]
		if p.Text != q.Text || !sameContribs(p.Contributions, q.Contributions) || !sameContribs(p.Defaults, q.Defaults) {
			return false
		}
	}
	return true
}

func sameEntry(a, b *OptionsEntry) bool {
	return a == b || a != nil && b != nil && *a == *b
}

func sameValues(a, b []Value) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if !same(a[i], b[i]) {
			return false
		}
	}
	return true
}

func sameContribs(a, b []Contribution) bool {
	if len(a) != len(b) {
		return false
	}
	if len(a) == 0 || &a[0] == &b[0] {
		return true
	}
	for i := range a {
		if !sameContrib(&a[i], &b[i]) {
			return false
		}
	}
	return true
}

// sameContrib reports whether the contributions x and y encode alike.
func sameContrib(x, y *Contribution) bool {
	return x.Layer == y.Layer && x.Level == y.Level && x.Location == y.Location && x.Line == y.Line &&
		x.Column == y.Column && x.Bound == y.Bound && sameValue(x.Value, y.Value) &&
		(x.Err == nil) == (y.Err == nil) && (x.Err == nil || *x.Err == *y.Err)
}

// unbound returns the contributions of cs that are not bound: like if
// they are equal to it (equalUnbound), else a new slice (an Encoder
// remembers contributions by their address, so a slice it has seen is
// never written again), nil when there are none.
func unbound(cs, like []Contribution) []Contribution {
	if out, ok := unboundLike(cs, like); ok {
		return out
	}
	var out []Contribution
	for _, c := range cs {
		if !c.Bound {
			out = append(out, c)
		}
	}
	return out
}

// unboundLike returns what unbound(cs, like) does if that is like, or nil
// for cs without contributions that are not bound; ok is false otherwise
// (unbound then builds a new slice, or another like may be equal).
func unboundLike(cs, like []Contribution) (_ []Contribution, ok bool) {
	if equalUnbound(cs, like) {
		return like, true
	}
	for i := range cs {
		if !cs[i].Bound {
			return nil, false
		}
	}
	return nil, true
}

// equalUnbound reports whether the contributions of cs that are not
// bound are those of like, which holds some.
func equalUnbound(cs, like []Contribution) bool {
	n := 0
	for i := range cs {
		if !cs[i].Bound {
			if n == len(like) || !sameContrib(&cs[i], &like[n]) {
				return false
			}
			n++
		}
	}
	return n > 0 && n == len(like)
}

// recordAt returns recs[x] if it is the record of the key name, else a
// Key with no contributions.
func recordAt(recs []Key, x int, name string) *Key {
	if x < len(recs) && (sameString(recs[x].Name, name) || recs[x].Name == name) {
		return &recs[x]
	}
	return &noRecord
}

// noRecord is recordAt's record of no key.
var noRecord Key

func anyBound(cs []Contribution) bool {
	for i := range cs {
		if cs[i].Bound {
			return true
		}
	}
	return false
}

// appendSharedRef appends the body's shared field: the shared file's
// digest, or nil.
func (e *Encoder) appendSharedRef(w []byte) []byte {
	if e.share == nil || !e.share.on || !e.share.exists {
		return append(w, mNil)
	}
	return appendBin(w, e.share.out.Digest[:])
}

// AppendShared is AppendWith, writing the part of b's details that holds
// no bound contribution to a shared details file instead of the bundle:
// it returns that file (nil when nothing is shared), which the caller
// writes to SharedDetailsName(Digest) beside the bundle. Its Data is
// valid until e's next call.
func (e *Encoder) AppendShared(dst []byte, b *Bundle, p Protection) ([]byte, *SharedDetails, error) {
	if e.share == nil {
		e.share = &sharing{}
	}
	sh := e.share
	sh.on = true
	defer func() { sh.on = false }()
	out, err := e.AppendWith(dst, b, p)
	if err != nil || !sh.exists {
		return out, nil, err
	}
	return out, &sh.out, nil
}

// EncodeShared is Encode with AppendShared's shared details file.
func EncodeShared(b *Bundle, p Protection) ([]byte, *SharedDetails, error) {
	out, sd, err := NewEncoder().AppendShared(nil, b, p)
	if sd != nil {
		sd = &SharedDetails{Digest: sd.Digest, Data: sd.Data}
	}
	return out, sd, err
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
// sorted by name. Its body is a version 5 body of a bundle of those
// records alone: values nil, no hierarchies, modules, options or shared
// file of its own.
func (x *Index) sharedKeys() ([]Key, []Module, error) {
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
	b, err := y.Bundle()
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

// sameValue reports whether a and b encode alike: the same types, the
// same scalars (floats bit for bit, so 0.0 is not -0.0), arrays element
// by element, hashes key by key in the same order. The compiler builds a
// contribution's value again for each node, so identity (same) seldom
// holds where equality does.
func sameValue(a, b any) bool {
	if same(a, b) {
		return true
	}
	switch x := a.(type) {
	case []any:
		y, ok := b.([]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for i := range x {
			if !sameValue(x[i], y[i]) {
				return false
			}
		}
		return true
	case *Hash:
		y, ok := b.(*Hash)
		if !ok || x.Len() != y.Len() {
			return false
		}
		for i := range x.keys {
			if !sameValue(x.keys[i], y.keys[i]) || !sameValue(x.vals[i], y.vals[i]) {
				return false
			}
		}
		return true
	}
	return false
}
