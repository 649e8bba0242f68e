package compiler

// Slices: sharing a node's bookkeeping, not only its results. reuse.go
// reuses a key's result once the key's signature is known, but building
// that signature probes every data file of the node for the key, and most
// nodes repeat exactly the probes of their neighbours: they reach the same
// role, datacenter, OS and common files and differ only in a small file of
// their own. So the files of a node are split in two:
//
//   - per-node positions (see posStat): hierarchy locations where this
//     worker has seen a different file for most nodes, like
//     nodes/%{trusted.certname}.yaml (learnt as nodes come: a node before
//     that shares less, never wrongly);
//   - everything else, the node's slice, which many nodes share.
//
// A sliceTable, kept per slice, holds a slot per key of the slice's files:
// the key's merge and signature, computed once, and its recent results.
// A node then only walks its keys: a key that none of its per-node files
// holds has exactly the slot's signature (files that do not hold a key are
// not part of it), so its result is the slot's when the result's reads
// hold; a key in a per-node file takes the general path of reuse.go. The
// split decides only how much work is shared, never a value: every result
// reused is one reuse.go would have reused.

import (
	"encoding/binary"
	"hash/maphash"
	"slices"

	"github.com/hieracc/hieracc/format"
	"github.com/hieracc/hieracc/format/hiera"
)

// Bounds on the caches of a worker.
const (
	// maxSlices bounds the slice tables of a worker; beyond it nodes take
	// the general path (a fleet with that many slices shares little).
	maxSlices = 4096
	// perNodeMin is the number of distinct files a position must have
	// shown before it counts as per-node.
	perNodeMin = 4
	// giveUp: a slot whose results were seldom reused (less than one
	// time in five) after this many computations holds a per-node key (one
	// interpolating the hostname, say): checking the results of other
	// nodes costs more than it saves, so it stops checking and recording
	// (at its first result, when that read a per-node variable: see
	// readsPerNode).
	giveUp = 4
)

// sliceTable is the shared bookkeeping of the nodes of one slice.
type sliceTable struct {
	keys  []string // the keys of the slice's files, sorted
	slots []slot   // by position in keys
	// locs are the keys' locations (see locsOf), by position in keys: the
	// same for every node of the slice, found for all keys at once.
	locs [][]keyLoc
	// statics[j] is slot j's static result (slot.static's key), kept in
	// key order: most of a node's keys are static, and a node copies runs
	// of them in one go (see staticRun) instead of reading each from
	// memory of its own.
	statics []format.Key
	// runs[j] is the number of plain static slots from j on (see
	// plainStatic), as of when plain counted runsAt of them (countRuns).
	runs          []int32
	plain, runsAt int
	// run is the worker's run (worker.run) that last used the table.
	run uint64
}

// startRun starts a run of nodes (see compileRuns): the slice tables that
// neither the last run nor this one used are let go. A run is one slice's
// nodes, and its table serves no other (but another run of a slice cut
// into several, which would make it again: rarely on this worker), while
// the ~2,000 slots, results and locations of a table are the largest part
// of a worker's memory: kept to the compile's end, they made most of its
// live heap, and the memory pages a growing heap faults in.
func (w *worker) startRun() {
	w.run++
	for k, t := range w.slices {
		if t.run+1 < w.run {
			delete(w.slices, k)
		}
	}
}

// plainStatic reports whether a static result is taken as it is: no
// warnings to replay, no names tested (see nodeRun.keyTested), no error to
// report. Such results are copied in runs (staticRun).
func plainStatic(e *sharedKey) bool {
	return len(e.warns) == 0 && len(e.tested) == 0 && e.key.Err == nil
}

// countRuns brings runs up to date with the slots made static since it
// was last called. It is called once per node: a slot made static while a
// node compiles is copied from the next node on (runs counted earlier
// stay true: a static slot stays so).
func (t *sliceTable) countRuns() {
	if t.plain == t.runsAt {
		return
	}
	if t.runs == nil {
		t.runs = make([]int32, len(t.slots))
	}
	next := int32(0)
	for i := len(t.slots) - 1; i >= 0; i-- {
		if t.slots[i].plain {
			next++
		} else {
			next = 0
		}
		t.runs[i] = next
	}
	t.runsAt = t.plain
}

// staticRun returns the number of plain static slots from j on (as of the
// last countRuns), at most those before position stop: a node takes their
// results as they are, copied from statics. (A per-node file's key takes
// the general path, and its own keys come between the slice's: stop is
// where the next of them sits.)
func (t *sliceTable) staticRun(j, stop int) int {
	if t.runs == nil {
		return 0
	}
	return max(min(int(t.runs[j]), stop-j), 0)
}

// keepSig returns a copy of a slot's signature s, cut from the worker's
// block: each slot of a slice table keeps one for the compile's length
// (~2,000 a table), so a block saves as many allocations.
func (w *worker) keepSig(s []uint32) []uint32 {
	if len(s) > sigBlock/8 {
		return slices.Clone(s)
	}
	if cap(w.sigBlock)-len(w.sigBlock) < len(s) {
		w.sigBlock = make([]uint32, 0, sigBlock)
	}
	i := len(w.sigBlock)
	w.sigBlock = append(w.sigBlock, s...)
	return w.sigBlock[i:len(w.sigBlock):len(w.sigBlock)]
}

// sigBlock is the size of the worker's blocks of signatures (see keepSig).
const sigBlock = 4096

// slot is one key of a slice. Its fields are laid out for the cache: a
// node taking a recent result reads only the first 64 bytes (a slot is
// 256, so each starts a cache line in a large table), a template's key
// the next 64 too; the rest is read when the slot is made or a key
// compiled afresh.
type slot struct {
	// The first cache line.
	reused  int32 // results taken (recent ones, or the worker's), against misses
	ready   bool
	perr    bool // its merge option is invalid: compiled afresh each time
	perNode bool
	plain   bool // static is plain (plainStatic): copied in runs
	// static is a result that read nothing from its node: it holds for
	// every node of the slice. Otherwise recent holds the latest results
	// (newest last, at most maxVariants), to reuse where their reads hold.
	static *sharedKey
	recent []*sharedKey
	// recentVars are the recent results' variables (sharedKey.vars), by
	// position in recent: whether one holds on a node is known without
	// reading the result (see recentHit).
	recentVars []*varSet

	// The second: the slot's module and, for a per-node slot, its
	// templates (template.go, the newest last, at most maxVariants), how
	// often one held and none did, and whether the slot gave up on
	// templates; then how often a result was compiled and its signature's
	// hash.
	mod                  string
	tmpls                []*keyTmpl
	tmplHits, tmplMisses int32
	misses               int32
	tmplOff              bool
	hash                 uint64

	sig  []uint32
	locs []keyLoc // where its data lies: the same for every node of the slice
	pre  keyPre   // for the nodes that compile the key themselves
	// looked, when set, are the keys (sorted) the static result looked
	// up: it holds only for nodes whose per-node files hold none of them
	// (see lookupsStatic).
	looked []string
	_      [32]byte // (to 256 bytes)
}

// sliceStats counts how nodes and keys were compiled, for tests.
type sliceStats struct {
	slices, noSlice       int // nodes
	static, slot, general int // keys: a slot's static result, other slot keys, the general path
	inPlace               int // static keys found in place in the key memory (appendStatics)
	keptInPlace           int // other kept results found in place there (appendKey)
	firstInPlace          int // template first keys found in place there (appendKey)
	templated             int // slot keys whose contributions came from a template (template.go)
	looked                int // static results taken that looked up other keys (slot.looked)
	released              int // per-node files released from the file cache
}

func (s *sliceStats) add(o sliceStats) {
	s.released += o.released
	s.slices += o.slices
	s.noSlice += o.noSlice
	s.static += o.static
	s.inPlace += o.inPlace
	s.keptInPlace += o.keptInPlace
	s.firstInPlace += o.firstInPlace
	s.slot += o.slot
	s.general += o.general
	s.templated += o.templated
	s.looked += o.looked
}

// varStat counts the values a variable expression has shown, one per
// node that read it: a variable with a value of its own on most nodes
// (trusted.certname, networking.hostname) is per-node, as posStat finds
// per-node files.
type varStat struct {
	nodes  int
	values map[uint64]struct{}
}

func (s *varStat) perNode() bool {
	return len(s.values) >= perNodeMin && 2*len(s.values) > s.nodes
}

// seeVar counts a node's value of a variable expression (read once per
// node: see scopeValue).
func (w *worker) seeVar(expr string, v any) {
	st := w.vars[expr]
	if st == nil {
		st = &varStat{values: map[uint64]struct{}{}}
		w.vars[expr] = st
	}
	st.nodes++
	w.canon = appendCanonical(w.canon[:0], v)
	st.values[maphash.Bytes(seed, w.canon)] = struct{}{}
}

// readsPerNode reports whether a result read a per-node variable: no
// other node can reuse it.
func (w *worker) readsPerNode(deps []dep) bool {
	for _, d := range deps {
		if st := w.vars[d.name]; !d.lookup && st != nil && st.perNode() {
			return true
		}
	}
	return false
}

// posKey names a hierarchy location: layer (0 global, 1 environment, 2+i
// the i-th module), whether in a default_hierarchy, level and location.
type posKey struct {
	layer      uint32
	def        bool
	level, loc uint32
}

// posStat counts the files seen at a position.
type posStat struct {
	nodes int
	files map[uint32]struct{}
}

func (s *posStat) perNode() bool {
	return len(s.files) >= perNodeMin && 2*len(s.files) > s.nodes
}

// nodeSlice is a node's slice table and the keys of its per-node files.
type nodeSlice struct {
	table  *sliceTable
	delta  []string    // sorted keys of the per-node files
	masked []*dataFile // the per-node files
}

// slice finds or makes the node's slice table. It returns nil when the
// node cannot share one: its lookup_options or a per-node file depend on
// the node in ways the table cannot describe.
func (sh *nodeShare) slice() *nodeSlice {
	if sh.w.noSharing {
		return nil
	}
	w := sh.w
	var masked []*dataFile
	b := w.sliceBuf[:0]
	// The options the node's keys are resolved under are part of the
	// slice: only options shared across nodes can be.
	opts := func(r *optsResult) bool {
		id := w.optID(r)
		b = binary.AppendUvarint(b, uint64(id))
		return id != 0
	}
	if !opts(sh.n.opts.envOpts) {
		return nil
	}
	files := func(layer uint32, def bool, fs [][]*dataFile) bool {
		b = binary.AppendUvarint(b, uint64(len(fs)))
		for li, lvl := range fs {
			b = binary.AppendUvarint(b, uint64(len(lvl)))
			for fi, df := range lvl {
				if df == nil {
					b = append(b, 0)
					continue
				}
				st := w.pos[posKey{layer, def, uint32(li), uint32(fi)}]
				if st == nil {
					st = &posStat{files: map[uint32]struct{}{}}
					w.pos[posKey{layer, def, uint32(li), uint32(fi)}] = st
				}
				st.nodes++
				st.files[df.id] = struct{}{}
				if st.perNode() {
					if df.err != nil {
						return false // it would be in every key's signature
					}
					masked = append(masked, df)
					b = append(b, 1)
					continue
				}
				b = binary.AppendUvarint(b, uint64(df.id)+2)
			}
		}
		return true
	}
	layer := func(i uint32, lr *layerRun) bool {
		switch {
		case lr == nil:
			b = append(b, 'n')
		case !lr.hier.Present:
			b = append(b, 'a')
		case lr.err != nil:
			b = append(b, 'e')
		default:
			b = append(b, 'p')
			if !files(i, false, lr.files) {
				return false
			}
			if lr.def != nil {
				b = append(b, 'd')
				return files(i, true, lr.defFiles)
			}
		}
		return true
	}
	if !layer(0, sh.n.layers.global) || !layer(1, sh.n.layers.env) {
		return nil
	}
	for i, name := range sh.n.c.moduleNames {
		if !layer(uint32(2+i), sh.n.layers.module(name)) {
			return nil
		}
		if r, ok := sh.n.opts.modOpts[name]; ok && !opts(r) {
			return nil
		}
	}
	w.sliceBuf = b

	t := w.slices[string(b)]
	if t == nil {
		if len(w.slices) >= maxSlices {
			return nil
		}
		t = &sliceTable{keys: sh.n.keyNames(func(df *dataFile) bool { return !slices.Contains(masked, df) })}
		t.slots = make([]slot, len(t.keys))
		t.locs = sh.tableLocs(t.keys, masked)
		w.slices[string(b)] = t
	}
	t.run = w.run
	s := &nodeSlice{table: t, masked: masked}
	for _, df := range masked {
		s.delta = mergeSorted(s.delta, df.keys)
	}
	return s
}

// placeDelta finds where each key of delta is, or would be, among shared
// (both sorted and duplicate-free): at[d] is the position of delta[d] in
// shared or, if shared lacks it, of the first key after it. It returns
// the two lists merged: shared itself when it holds every key of delta,
// else a list built in dst's memory (built). at is built in atBuf's.
// One binary search a key of delta, each from the last one's position.
func placeDelta(dst []string, atBuf []int32, shared, delta []string) (names []string, at []int32, built bool) {
	at = atBuf[:0]
	missing, lo := 0, 0
	for _, k := range delta {
		i, found := slices.BinarySearch(shared[lo:], k)
		lo += i
		at = append(at, int32(lo))
		if !found {
			missing++
		}
	}
	if missing == 0 {
		return shared, at, false
	}
	names = slices.Grow(dst[:0], len(shared)+missing)
	prev := 0
	for d, k := range delta {
		p := int(at[d])
		names = append(names, shared[prev:p]...)
		if p == len(shared) || shared[p] != k {
			names = append(names, k)
		}
		prev = p
	}
	return append(names, shared[prev:]...), at, true
}

// tableLocs is locsOf for each of keys (sorted) over the node's files but
// masked, whose keys are not the slice's: the slice's keys are the keys of
// those files, so each file's keys are walked once instead of every key
// probing every file. The lists share one array.
func (sh *nodeShare) tableLocs(keys []string, masked []*dataFile) [][]keyLoc {
	// The locations in locsOf's order, each with its key's position, in
	// the worker's buffer.
	all := sh.w.tableBuf[:0]
	count := make([]int32, len(keys))
	// add adds the locations of files; a module's files (mod set) are
	// only its keys'. A file that failed to load is every key's of its
	// layer, as in locsOf (though no key reaches one: it fails the node's
	// or its module's lookup_options first, see checkOptions).
	add := func(layer format.Layer, def bool, h *format.Hierarchy, files [][]*dataFile, mod string) {
		for li, lvl := range files {
			for fi, df := range lvl {
				if df == nil || slices.Contains(masked, df) {
					continue
				}
				named := sh.w.namesNode(h.Levels[li].Locations[fi].Original)
				if df.err != nil {
					for i, k := range keys {
						if mod == "" || hiera.ModuleOf(k) == mod {
							all = append(all, keyAt{i, keyLoc{layer, def, li, fi, df, -1, named}})
							count[i]++
						}
					}
					continue
				}
				i := 0
				small := 16*len(df.keys) < len(keys)
				for _, k := range df.keys { // sorted, as keys
					if small {
						d, _ := slices.BinarySearch(keys[i:], k)
						i += d
					}
					for i < len(keys) && keys[i] < k {
						i++
					}
					if i < len(keys) && keys[i] == k {
						all = append(all, keyAt{i, keyLoc{layer, def, li, fi, df, df.index[k], named}})
						count[i]++
					}
				}
			}
		}
	}
	for li, lr := range [...]*layerRun{sh.n.layers.global, sh.n.layers.env} {
		if lr != nil && lr.hier.Present && lr.err == nil {
			add(format.Layer(li), false, &lr.hier, lr.files, "")
		}
	}
	for _, name := range sh.n.c.moduleNames {
		if lr := sh.n.layers.module(name); lr != nil && lr.hier.Present && lr.err == nil {
			add(format.LayerModule, false, &lr.hier, lr.files, name)
			if lr.def != nil {
				add(format.LayerModule, true, lr.def, lr.defFiles, name)
			}
		}
	}
	out := make([][]keyLoc, len(keys))
	backing := make([]keyLoc, len(all))
	off := 0
	for i, c := range count {
		out[i] = backing[off : off : off+int(c)]
		off += int(c)
	}
	for _, a := range all {
		out[a.key] = append(out[a.key], a.loc)
	}
	sh.w.tableBuf = all
	return out
}

// keyAt is a location of the key at position key of a table's keys.
type keyAt struct {
	key int
	loc keyLoc
}

// slotKey compiles the key of slot j of t, which none of the node's
// per-node files holds, reusing the slot's signature and results. The key
// it returns is the worker's (w.key) or a result's (sharedKey.key), which
// nothing changes once made (appendKey relies on it).
func (sh *nodeShare) slotKey(t *sliceTable, j int, name string) (*format.Key, *format.Error) {
	s := &t.slots[j]
	if !s.ready {
		s.ready = true
		s.mod = hiera.ModuleOf(name)
		ko := sh.n.opts.optionsFor(s.mod).of(name)
		s.pre.ko = ko // (what compileKey would find)
		s.perr = ko.mergeErr != nil || ko.convErr != nil
		if !s.perr {
			layers := sh.n.layers.of(s.mod)
			s.locs = t.locs[j]
			s.sig = sh.w.keepSig(sh.w.keySig(sh.shapeID(s.mod, layers), ko.merge, sh.w.convertID(ko.conv), s.locs))
			s.hash = hashSig(name, s.sig)
		}
	}
	if s.static != nil {
		if s.looked == nil {
			sh.w.stats.static++
			return sh.reuse(s.static)
		}
		if !anyIn(sh.delta, s.looked) {
			sh.w.stats.looked++
			return sh.reuse(s.static)
		}
		// A per-node file holds a key the result looked up: its answer
		// is this node's own.
		sh.w.stats.slot++
		_, _, k, err := sh.findOrCompile(name, s.mod, s.sig, s.hash, s.locs)
		return k, err
	}
	sh.w.stats.slot++
	if s.perr {
		return sh.n.compileKey(name, s.mod, s.locs, &s.pre, nil)
	}
	if s.perNode {
		return sh.perNodeKey(s, name)
	}
	if hit := sh.recentHit(s, name); hit != nil {
		if hit.vars == nil && s.reused < giveUp {
			sh.lookupsStatic(t, s, hit)
		}
		s.reused++
		return sh.reuse(hit)
	}
	e, reused, k, err := sh.findOrCompile(name, s.mod, s.sig, s.hash, s.locs)
	if e == nil {
		return k, err
	}
	if len(e.deps) == 0 {
		// Kept for other slices too: a key found only in common data
		// resolves alike in all of them. Results that read the node are
		// kept in the slot only, where their reads are likeliest to hold.
		if !reused {
			sh.w.remember(s.hash, s.sig, e)
		}
		s.static, s.recent, s.recentVars = e, nil, nil
		if t.statics == nil {
			t.statics = make([]format.Key, len(t.slots))
		}
		t.statics[j] = e.key
		if plainStatic(e) {
			s.plain = true
			t.plain++
		}
		return k, err
	}
	if reused {
		s.reused++
	} else {
		s.misses++
	}
	// A result that read a per-node variable (its first, usually) says
	// at once what giveUp finds out after a few.
	if s.misses >= giveUp && 4*s.reused < s.misses || s.reused == 0 && sh.w.readsPerNode(e.deps) {
		s.perNode, s.recent, s.recentVars = true, nil, nil
		return k, err
	}
	if len(s.recent) >= maxVariants {
		s.recent, s.recentVars = s.recent[1:], s.recentVars[1:]
	}
	s.recent, s.recentVars = append(s.recent, e), append(s.recentVars, e.vars)
	return k, err
}

// lookupsStatic makes e, a result of slot s of t that held on a node, the
// slot's static result when all it read from the node are nested lookups
// of keys whose own results are static in t: each a lookup made by the
// key itself (not one nested deeper, whose stack is another), without
// error, of a key of t by its name (a text that is its own root) whose
// slot holds a plain static result (one that looked up nothing, see
// plainStatic) of the value it gave. Such a lookup gives that value on
// every node of the slice whose per-node files do not hold the key (a
// nested lookup of a compiled key gives its value, see lookup, and the
// slot's static result is the key's on those nodes), so e holds there:
// the slot keeps the keys (slot.looked) and a node holding one in a file
// of its own compiles the key as any other. A result of a key that is
// looked up with another (a %{lookup()} of a string, an %{alias()}) is
// then taken as a static one, not checked by looking the keys up again
// on every node (depsHold).
func (sh *nodeShare) lookupsStatic(t *sliceTable, s *slot, e *sharedKey) {
	var buf [4]string
	looked := buf[:0]
	for _, d := range e.deps {
		if !d.lookup || d.global || d.stack != nil || d.err != "" || d.name == lookupOptionsKey {
			return
		}
		if k, err := sh.w.parseExpr(d.name); err != nil || len(k.Segments) > 0 || k.Root != d.name {
			return
		}
		j, found := slices.BinarySearch(t.keys, d.name)
		if !found {
			return
		}
		st := t.slots[j].static
		if st == nil || !t.slots[j].plain || !format.Identical(st.key.Value, d.value) {
			return
		}
		looked = append(looked, d.name)
	}
	if len(looked) == 0 {
		return
	}
	slices.Sort(looked)
	s.static, s.looked, s.recent, s.recentVars = e, slices.Clone(slices.Compact(looked)), nil, nil
}

// anyIn reports whether any of keys is in sorted.
func anyIn(sorted, keys []string) bool {
	for _, k := range keys {
		if _, found := slices.BinarySearch(sorted, k); found {
			return true
		}
	}
	return false
}

// recentHit is reusable for the slot's recent results (all of its key):
// those whose variables are known to hold or not on this node (varSet's
// answer for this node, found for another slot's result that read the
// same) are taken or passed over without reading them; from the first
// that is not, reusable goes on.
func (sh *nodeShare) recentHit(s *slot, name string) *sharedKey {
	for i, v := range s.recentVars {
		if v == nil || v.node != sh.serial {
			return sh.reusable(name, s.recent[i:])
		}
		if v.holds {
			return s.recent[i]
		}
	}
	return nil
}
