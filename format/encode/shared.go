package encode

import (
	"fmt"
	"slices"

	"github.com/hieracc/hieracc/format"
	"github.com/hieracc/hieracc/format/internal/wire"
)

// SharedDetails is a shared details file: Data, whose body's SHA-256 is
// Digest, is written to SharedDetailsName(Digest) in the folder of the
// bundles that refer to it.
type SharedDetails struct {
	Digest [32]byte
	Data   []byte
}

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
	bound []format.Contribution // scratch: a key's bound contributions
	// The shared file's records: prev, the last bundle's file's own
	// (a recent file's keys: never written to), in their order (see
	// priorKey.record). planShared plans the bundle's as plan says: by
	// record, its index in prev, or -1-i for built[i], the record of a
	// key that is not the last bundle's; it gathers them (in keys, a
	// buffer no file holds, which the new file then takes) only for a
	// file that is not recent.
	prev, keys []format.Key
	plan       []int32
	built      []format.Key
	// While the keys are planned (planStart to planShared): the last
	// bundle's file, whether the records are its so far, and the file's
	// before it.
	last   *sharedFile
	same   bool
	before []format.Key
	sub    *Encoder
	tmp    []byte // the bundle sub writes
	out    SharedDetails
	exists bool            // the bundle being encoded refers to out
	mods   []format.Module // the shared file's modules: the bundle's, without errors
	// The shared files written last, the latest first, with their
	// records: nodes of a slice come one after the other and share one
	// of a few files.
	recent []*sharedFile
	// The last bundle's, when it has one (then recent[0]).
	prevFile *sharedFile
	files    uint64  // shared files written
	skip     []int32 // scratch of viewSkips
}

// sharedFile is a shared file an encoder wrote, with what it holds.
type sharedFile struct {
	keys []format.Key
	mods []format.Module
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
func (sh *sharing) inShared(i int) bool {
	return sh != nil && sh.on && sh.exists && sh.whole[i]
}

// overlaid reports whether the i-th key of the bundle being encoded keeps
// only its bound contributions in the bundle, its record in the shared
// file holding the rest.
func (sh *sharing) overlaid(i int) bool {
	return sh != nil && sh.on && sh.exists && sh.over[i]
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
func (e *Encoder) boundRefs(refs []int32, i int, k *format.Key, m *keyMemo) ([]int32, error) {
	valueID := m.value
	var like likeBound
	keep := i < len(e.mem.cur) // not Encode's
	if keep {
		like = e.mem.likeBound(m.named)
		e.mem.cur[i].boundAt = uint32(len(e.mem.boundKids))
	}
	lists := [][]format.Contribution{k.Contributions, k.Defaults}
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
		e.mem.cur[i].boundN = uint32(len(e.mem.boundKids)) - e.mem.cur[i].boundAt
	}
	return refs, nil
}

// boundContributions is contributions for the bound Contributions cs of
// a key (not global), like holding the last bundle's of the key of the
// same name: it keeps, in e.mem.boundKids, the ids of each one's value's
// children for the next bundle.
func (e *Encoder) boundContributions(refs []int32, cs []format.Contribution, like *likeBound, own any, ownID int32) ([]int32, error) {
	for i := range cs {
		c := &cs[i]
		if err := checkPlace(i, c); err != nil {
			return refs, err
		}
		w, kids, ok := like.next()
		val, cerr, id := int32(-1), e.errs.add(c.Err), int32(-1)
		if c.Err == nil {
			var err error
			switch {
			case ownID >= 0 && sameIface(c.Value, own):
				id = ownID
			case ok:
				// Met in two bundles, the very value is worth
				// remembering (as internKid's children).
				id, err = e.in.internLike(c.Value, w, kids, e.mem.lastBound, sameIface(c.Value, w), 0)
			default:
				id, err = e.in.intern(c.Value, 0, false)
			}
			if err != nil {
				return refs, fmt.Errorf("contribution %d: %w", i, err)
			}
			val = e.in.entry(id)
		}
		e.mem.keepBoundKids(id, &e.in)
		refs = append(refs, val, cerr)
	}
	return refs, nil
}

// appendOverlay appends the details of a key whose record in the shared
// file holds its unbound contributions (SPEC.md, "Shared details"):
// array(4) [true, contributions, defaults, asked], each list its bound
// contributions as their position in the whole list followed by the five
// ints of contributions4. own is the index of the key's value; refs holds
// the bound contributions' value and error indexes, two each, and the
// rest of the bundle's, which it returns.
func appendOverlay(w []byte, k *format.Key, own int32, refs []int32) ([]byte, []int32) {
	w = append(w, 0x94, wire.True)
	list := func(w []byte, cs []format.Contribution) []byte {
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

// forgetPrior drops the last bundle's shared file and its records, and
// what the buffers of records still point to (with the memo: see
// Encoder.forgetPrior).
func (sh *sharing) forgetPrior() {
	if sh == nil {
		return
	}
	sh.prevFile, sh.prev = nil, nil // a recent file's records
	sh.last, sh.before = nil, nil   // likewise, if planning failed
	clear(sh.keys[:cap(sh.keys)])
	clear(sh.built[:cap(sh.built)])
	sh.keys, sh.built = sh.keys[:0], sh.built[:0]
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
// Encode's, which remembers nothing), which it completes, and prior the
// memo of the last bundle's keys.
func (sh *sharing) planKey(prior []priorKey, i int, k *format.Key, sealed bool, m *keyMemo, c *priorKey) {
	if sealed {
		sh.whole = append(sh.whole, false)
		sh.over = append(sh.over, false)
		return
	}
	var p *priorKey
	if m.prior >= 0 && prior[m.prior].bound != 0 {
		p = &prior[m.prior]
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
// The keys were planned one by one before (planStart, planKey). in is
// the bundle's encoder's, whose global table the encoder of shared files
// shares (newSub).
func (sh *sharing) planShared(b *format.Bundle, in *interner) error {
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
		sh.sub = newSub(in)
	}
	sh.sub.in.gen, sh.sub.in.weakHash = in.gen, in.weakHash // see newSub
	body, err := sh.sub.AppendWith(sh.tmp[:0], &format.Bundle{Keys: recs, Modules: sh.mods}, Protection{})
	in.gen = sh.sub.in.gen
	in.nextGen()
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
	w := append(f.out.Data[:0], wire.SharedMagic...)
	w = appendUint(w, wire.SharedFileVersion)
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

// newSub returns the encoder of the shared files of an Encoder e whose
// interner is in: it shares e's global table (and the cache of its
// strings), as the records' contributions hold the values e interns, the
// keys' (the winning contribution's, most often), and e interns again
// those of the records, for the view of each new file (buildView).
// Sharing the table, each is interned once.
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
func newSub(in *interner) *Encoder {
	sub := NewEncoder()
	sub.v5Body = true // a shared file's body is version 5's
	sub.in.glob, sub.in.strCache = in.glob, in.strCache
	return sub
}

// appendRecord appends to built the record of k, a key that is not the
// last bundle's (bound as keyMemo.bound says, if it looked), if k has one,
// the x-th of the file, and reports whether k has all its details in it
// (whole) or its unbound contributions (rest).
func (sh *sharing) appendRecord(built []format.Key, k *format.Key, bound int8, x int, before []format.Key) (_ []format.Key, whole, rest bool) {
	if bound >= 0 {
		whole = bound == 0 // k.Asked is nil
	} else {
		whole = !anyBound(k.Contributions) && !anyBound(k.Defaults)
	}
	for j := range k.Asked {
		whole = whole && !anyBound(k.Asked[j].Contributions) && !anyBound(k.Asked[j].Defaults)
	}
	if whole {
		return append(built, format.Key{Name: k.Name, Merge: k.Merge, MergeFrom: k.MergeFrom, DefaultMerge: k.DefaultMerge, ConvertTo: k.ConvertTo,
			Contributions: k.Contributions, Defaults: k.Defaults, Asked: k.Asked}), true, false
	}
	// The last bundle's record at this place, if it is the key's, else
	// the file's before (a node of the slice before it, often the next
	// one's): its unbound contributions, when equal, are taken as they
	// are (no new slice, compared in no time after). The file before's is
	// looked up only when the last's differ.
	like := recordAt(sh.prev, x, k.Name)
	built = append(built, format.Key{Name: k.Name, Merge: k.Merge, MergeFrom: k.MergeFrom, DefaultMerge: k.DefaultMerge, ConvertTo: k.ConvertTo})
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
		r.Asked = make([]format.Asked, len(k.Asked))
		for j, a := range k.Asked {
			r.Asked[j] = format.Asked{Text: a.Text, Contributions: unbound(a.Contributions, nil), Defaults: unbound(a.Defaults, nil)}
		}
	}
	if len(r.Contributions) == 0 && len(r.Defaults) == 0 {
		*r = format.Key{} // no record: its bound contributions are all it has
		return built[:len(built)-1], false, false
	}
	return built, false, true
}

// planned reports whether the records of f are those plan gives (see
// sharing.plan), in their order (sameRecord), without gathering them.
// last is the last bundle's file (or nil), whose records are sh.prev:
// those of the plan at their place in it are compared as last's and f's
// were before (sameAs).
func (sh *sharing) planned(f, last *sharedFile, plan []int32, built []format.Key) bool {
	a := f.keys
	if len(a) != len(plan) {
		return false
	}
	var same []uint8
	useSame := last != nil && len(sh.prev) == len(last.keys) && len(sh.prev) > 0 && &sh.prev[0] == &last.keys[0]
	for i, x := range plan {
		var r *format.Key
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
func sameModules(a, b []format.Module) bool {
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

func sameHierarchy(a, b *format.Hierarchy) bool {
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
func sameRecord(x, y *format.Key) bool {
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

func sameEntry(a, b *format.OptionsEntry) bool {
	return a == b || a != nil && b != nil && *a == *b
}

func sameValues(a, b []format.Value) bool {
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

func sameContribs(a, b []format.Contribution) bool {
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
func sameContrib(x, y *format.Contribution) bool {
	return x.Layer == y.Layer && x.Level == y.Level && x.Location == y.Location && x.Line == y.Line &&
		x.Column == y.Column && x.Bound == y.Bound && sameValue(x.Value, y.Value) &&
		(x.Err == nil) == (y.Err == nil) && (x.Err == nil || *x.Err == *y.Err)
}

// unbound returns the contributions of cs that are not bound: like if
// they are equal to it (equalUnbound), else a new slice (an Encoder
// remembers contributions by their address, so a slice it has seen is
// never written again), nil when there are none.
func unbound(cs, like []format.Contribution) []format.Contribution {
	if out, ok := unboundLike(cs, like); ok {
		return out
	}
	var out []format.Contribution
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
func unboundLike(cs, like []format.Contribution) (_ []format.Contribution, ok bool) {
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
func equalUnbound(cs, like []format.Contribution) bool {
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
func recordAt(recs []format.Key, x int, name string) *format.Key {
	if x < len(recs) && (sameString(recs[x].Name, name) || recs[x].Name == name) {
		return &recs[x]
	}
	return &noRecord
}

// noRecord is recordAt's record of no key.
var noRecord format.Key

// appendSharedRef appends the body's shared field: the shared file's
// digest, or nil.
func (sh *sharing) appendSharedRef(w []byte) []byte {
	if sh == nil || !sh.on || !sh.exists {
		return append(w, wire.Nil)
	}
	return appendBin(w, sh.out.Digest[:])
}

// AppendShared is AppendWith, writing the part of b's details that holds
// no bound contribution to a shared details file instead of the bundle:
// it returns that file (nil when nothing is shared), which the caller
// writes to SharedDetailsName(Digest) beside the bundle. Its Data is
// valid until e's next call.
func (e *Encoder) AppendShared(dst []byte, b *format.Bundle, p Protection) ([]byte, *SharedDetails, error) {
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
func EncodeShared(b *format.Bundle, p Protection) ([]byte, *SharedDetails, error) {
	out, sd, err := NewEncoder().AppendShared(nil, b, p)
	if sd != nil {
		sd = &SharedDetails{Digest: sd.Digest, Data: sd.Data}
	}
	return out, sd, err
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
	case *format.Hash:
		y, ok := b.(*format.Hash)
		if !ok || x.Len() != y.Len() {
			return false
		}
		for i := range x.Len() {
			if !sameValue(x.Key(i), y.Key(i)) || !sameValue(x.Value(i), y.Value(i)) {
				return false
			}
		}
		return true
	}
	return false
}

// anyBound reports whether one of cs is bound (the reader has the same
// test, for the records of a shared details file).
func anyBound(cs []format.Contribution) bool {
	for i := range cs {
		if cs[i].Bound {
			return true
		}
	}
	return false
}
