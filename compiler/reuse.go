package compiler

// Sharing work across nodes. A fleet has far fewer distinct hierarchy
// slices than nodes, so most keys resolve identically on most nodes. Each
// worker keeps caches keyed by what a result depends on — the data files
// that hold the key, where they sit in the hierarchy, the key's merge — and
// validated by what the first computation read from the node: scope
// variables and nested lookups. A result is reused only when every one of
// those reads gives the same answer on the new node, so sharing never
// changes a value, only its cost.

import (
	"encoding/binary"
	"hash/maphash"
	"slices"
	"time"

	"github.com/hieracc/hieracc/compiler/diagnostics"
	"github.com/hieracc/hieracc/format"
	"github.com/hieracc/hieracc/format/hiera"
	"github.com/hieracc/hieracc/format/ruby"
)

// maxVariants bounds the results kept per key signature: a key that
// interpolates a per-node fact (its hostname, say) has a result per node,
// and keeping them all would make every check scan a long list.
const maxVariants = 4

// worker holds the caches of one compiling goroutine (no locking needed).
type worker struct {
	shapes  map[string]uint32
	opts    map[string]*optsResult
	keys    map[uint64][]*sharedKey
	unions  map[[2]uint32]*keyList
	exprs   map[string]hiera.Key
	calls   map[string]*methodExpr
	scratch []uint32
	names   []string // a node's key names, when it has keys of its own
	// deltaAt is where each key of a node's per-node files is, or would
	// be, among its slice's keys (see placeDelta).
	deltaAt []int32
	// Buffers of findOrCompile and locsOf, reused from key to key.
	deps  []dep
	warns []diagnostics.Diagnostic
	locs  []keyLoc
	// ownLocs is withOwn's buffer.
	ownLocs []keyLoc
	// keyTested is nodeRun.keyTested's memory, for the next node.
	keyTested []testedAt
	// key is the key compileKey returns (see there).
	key format.Key
	// named remembers namesNode by location template.
	named map[string]bool
	// levels holds recent expansions of each hierarchy level (see
	// expandLevelShared); levelDeps is its buffer.
	levels    map[*levelConf][]*levelMemo
	levelDeps []dep
	// varSets interns the variable reads of results (see varSetOf), by
	// their names and values; varKey is its buffer.
	varSets map[string]*varSet
	varKey  []byte
	// tmplVars interns the variables of templates (see tmplVars); rc is
	// the contributions fromTemplate reads.
	tmplVars map[string]*tmplVars
	rc       readContribs
	anyBlock []any       // see anys
	dfBlock  []*dataFile // see dataFiles
	optSig   []byte      // see optionsSig
	// contribs is the chunk contributionsBuf cuts from.
	contribs []format.Contribution
	// nodes counts the nodes the worker compiled (see nodeShare.serial).
	nodes uint64
	// revBuf and revFacts are the buffers of nodeRun.revision.
	revBuf, revFacts []byte
	// tested holds the lists of names testedList returns, by their
	// names; testedBuf and testedKey are its buffers.
	tested    map[string][]string
	testedBuf []string
	testedKey []byte

	// With Input.Emit, each node's Keys reuse the memory of the last
	// node's: a fleet's compile then allocates no key table per node.
	reuseKeys bool
	keyBuf    []format.Key
	// keyMarks[p] is slot+1 when keyBuf's memory (keyMem, its first
	// element) holds keyTable.statics[slot] at position p, written there
	// for an earlier node and not written since; keptMark or firstMark
	// when it holds keyFrom[p] (see there); 0 when it holds anything
	// else. The nodes of a slice place most of their static keys alike, so
	// a node finds most of them in place and copies only the rest
	// (nodeShare.appendStatics).
	keyMarks []int32
	keyMem   *format.Key
	keyTable *sliceTable
	// keyFrom[p] is the key, never changed once made, that keyBuf's
	// memory holds at position p (but for some fields) when keyMarks[p]
	// is keptMark or firstMark: a slot key made from the same key as the
	// last node's at that position is not copied again (nodeShare.appendKey).
	keyFrom []*format.Key

	// noSharing (Input.NoSharing) compiles every key from
	// scratch.
	noSharing bool

	stats sliceStats
	// stageTime is the time spent in each of nodeStages (node.go).
	stageTime [numNodeStages]time.Duration

	// Slices (see reuse_slices.go); tableBuf is tableLocs' buffer; run
	// counts the runs of nodes the worker took (see startRun).
	slices   map[string]*sliceTable
	run      uint64
	tableBuf []keyAt
	sigBlock []uint32 // see keepSig
	pos      map[posKey]*posStat
	optIDs   map[*optsResult]uint32
	sliceBuf []byte
	vars     map[string]*varStat // by variable expression
	canon    []byte

	// mergeIDs and convertIDs number merges and convert_to specs for
	// keySig (see mergeID, convertID).
	mergeIDs     map[format.Merge]uint32
	convertIDs   map[string][]convertSpec // by the spec's Ruby inspection
	convertCount uint32
	keyLists     uint32 // the keyLists it made (see newKeyList)
}

func newWorker() *worker {
	return &worker{
		shapes: map[string]uint32{},
		opts:   map[string]*optsResult{},
		keys:   map[uint64][]*sharedKey{},
		unions: map[[2]uint32]*keyList{},
		exprs:  map[string]hiera.Key{},
		calls:  map[string]*methodExpr{},
		slices: map[string]*sliceTable{},
		pos:    map[posKey]*posStat{},
		optIDs: map[*optsResult]uint32{},
		vars:   map[string]*varStat{},
	}
}

// dep is one thing a key's resolution read from the node.
type dep struct {
	lookup bool   // a nested lookup() (else a scope variable)
	alias  bool   // the lookup was alias()'s (see aliasWithDefault)
	global bool   // the lookup was confined to the global layer (see confinesLookups)
	name   string // key text or variable expression
	value  any
	err    string // the error message the read gave, "" if none
	// stack is the lookup stack of a nested lookup made deeper than the
	// key itself (while a looked-up value was interpolated again): its
	// answer depends on it.
	stack []string
}

// sharedKey is a compiled key with what it depends on.
type sharedKey struct {
	// What reusable and reuse read comes first, next to the key it
	// copies, so that checking a result and taking it touch one cache
	// line as far as the key's name: a node reusing 1,500 results touches
	// each once, mostly out of the cache.

	// vars is deps when they are all variables, shared with every result
	// that read the same values (see varSet); nil otherwise.
	vars *varSet
	// tested are the names its computation tested against the lookup
	// stack: a nested lookup reuses the key only where none is on it.
	tested []string
	warns  []diagnostics.Diagnostic // reported while computing it; replayed on reuse
	key    format.Key
	sig    []uint32
	deps   []dep
}

// varSet is a list of variable reads, as results record them, shared by
// every result of a worker that read the same values: whether they hold on
// a node is found out once for all of them.
type varSet struct {
	deps  []dep
	node  uint64 // the node (nodeShare.serial) holds was found for
	holds bool
}

// Bounds on the varSets a worker keeps: how many, and how long their
// names and values may be (a result that read a whole facts hash has
// reads of its own, seldom shared).
const (
	maxVarSets   = 1 << 12
	maxVarSetKey = 512
)

// varSetOf returns the worker's varSet for deps (not kept: it copies
// them), nil when one of them is a nested lookup (whose answer depends on
// the key asking) or when there are none.
func (w *worker) varSetOf(deps []dep) *varSet {
	if len(deps) == 0 {
		return nil
	}
	b := w.varKey[:0]
	for _, d := range deps {
		if d.lookup {
			return nil
		}
		b = binary.AppendUvarint(b, uint64(len(d.name)))
		b = appendCanonical(append(b, d.name...), d.value)
		b = append(binary.AppendUvarint(b, uint64(len(d.err))), d.err...)
	}
	w.varKey = b
	if s, ok := w.varSets[string(b)]; ok {
		return s
	}
	s := &varSet{deps: slices.Clone(deps)}
	if len(w.varSets) < maxVarSets && len(b) <= maxVarSetKey {
		if w.varSets == nil {
			w.varSets = map[string]*varSet{}
		}
		w.varSets[string(b)] = s
	}
	return s
}

// varsHold is depsHold for a varSet, found out once per node.
func (sh *nodeShare) varsHold(s *varSet) bool {
	if s.node != sh.serial {
		s.node, s.holds = sh.serial, sh.depsHold(s.deps)
	}
	return s.holds
}

var seed = maphash.MakeSeed()

// keySig describes where a key's data lies for a node: the merge and, for
// every location holding the key (its locs, see locsOf), its layer (3 for
// a module's default_hierarchy), level, location and file. The hierarchy
// shape is part of it through the caller (see shapeID).
func (w *worker) keySig(shape uint32, m format.Merge, conv uint32, locs []keyLoc) []uint32 {
	s := append(w.scratch[:0], shape, w.mergeID(m), conv)
	for _, l := range locs {
		layer := uint32(l.layer)
		if l.def {
			layer = 3
		}
		s = append(s, layer, uint32(l.level), uint32(l.loc), l.df.id)
	}
	w.scratch = s
	return s
}

// hashSig hashes a key's name and signature. Collisions are harmless: an
// entry is used only when its name and signature are equal too.
func hashSig(name string, s []uint32) uint64 {
	h := maphash.String(seed, name)
	for _, x := range s {
		h = (h ^ uint64(x)) * 0x100000001b3 // FNV-1a step over whole words
	}
	return h
}

// mergeID numbers each distinct merge configuration, for the worker's
// key signatures (see keySig).
func (w *worker) mergeID(m format.Merge) uint32 {
	id, ok := w.mergeIDs[m]
	if !ok {
		if w.mergeIDs == nil {
			w.mergeIDs = map[format.Merge]uint32{}
		}
		id = uint32(len(w.mergeIDs) + 1)
		w.mergeIDs[m] = id
	}
	return id
}

// convertID numbers a key's convert_to (0 for none), so that keys are
// shared only between nodes whose lookup_options convert them alike: specs
// with the same Ruby inspection are told apart by format.Identical.
func (w *worker) convertID(spec []format.Value) uint32 {
	if len(spec) == 0 {
		return 0
	}
	k := ruby.Inspect(spec)
	for _, c := range w.convertIDs[k] {
		if slices.EqualFunc(c.spec, spec, format.Identical) {
			return c.id
		}
	}
	if w.convertIDs == nil {
		w.convertIDs = map[string][]convertSpec{}
	}
	w.convertCount++
	w.convertIDs[k] = append(w.convertIDs[k], convertSpec{spec, w.convertCount})
	return w.convertCount
}

// convertSpec is a convert_to a worker numbered (see convertID).
type convertSpec struct {
	spec []format.Value
	id   uint32
}

// shapeID numbers the shape of the layers a key is searched in: how many
// levels and locations each has. Merges nest by that shape (Puppet's
// merge_single applies where a level has one location), so two nodes share
// a key only when their shapes are equal. It numbers the lookup_options
// the key is resolved under too (see optID): the entry that sets a key's
// merge is part of its result (format.Key.MergeFrom), and two slices can
// set the same merge in different files. Computed once per node and module.
func (sh *nodeShare) shapeID(mod string, layers [3]*layerRun) uint32 {
	if id, ok := sh.shapes[mod]; ok {
		return id
	}
	b := binary.AppendUvarint([]byte{'o'}, uint64(sh.w.optID(sh.n.opts.optsOf(mod))))
	for _, lr := range layers {
		b = append(b, '|')
		if lr == nil || !lr.hier.Present {
			continue
		}
		for _, l := range lr.hier.Levels {
			b = binary.AppendUvarint(b, uint64(len(l.Locations)))
		}
		if lr.def != nil {
			b = append(b, 'd')
			for _, l := range lr.def.Levels {
				b = binary.AppendUvarint(b, uint64(len(l.Locations)))
			}
		}
	}
	id, ok := sh.w.shapes[string(b)]
	if !ok {
		id = uint32(len(sh.w.shapes) + 1)
		sh.w.shapes[string(b)] = id
	}
	if sh.shapes == nil {
		sh.shapes = map[string]uint32{}
	}
	sh.shapes[mod] = id
	return id
}

// optID numbers the worker's shared lookup_options results (see
// worker.options): nodes whose options come from the same files share
// one. It returns 0 for nil or a result computed for one node alone.
func (w *worker) optID(r *optsResult) uint32 {
	if r == nil || !r.shared {
		return 0
	}
	id, ok := w.optIDs[r]
	if !ok {
		id = uint32(len(w.optIDs) + 1)
		w.optIDs[r] = id
	}
	return id
}

// findOrCompile returns a result for the key from the worker's cache, the
// entry of a node whose reads give the same answers here, or compiles it
// (from locs, when known).
// e is the entry (nil for a key the node does not have); reused says
// whether it came from the cache.
func (sh *nodeShare) findOrCompile(name, mod string, sig []uint32, h uint64, locs []keyLoc) (e *sharedKey, reused bool, k *format.Key, err *format.Error) {
	if hit := sh.reusable(name, sh.w.keys[h], sig); hit != nil {
		k, err := sh.reuse(hit)
		return hit, true, k, err
	}
	// Reads and warnings are collected in the worker's buffers (a key's
	// compile never compiles another top-level key) and copied out.
	w := sh.w
	w.deps, w.warns = w.deps[:0], w.warns[:0]
	sh.deps, sh.keyWarns = &w.deps, &w.warns
	k, err = sh.n.compileKey(name, mod, locs, nil, nil)
	sh.deps, sh.keyWarns = nil, nil
	if k == nil {
		return nil, false, nil, err
	}
	e = &sharedKey{key: *k, deps: cloneOrNil(w.deps), warns: cloneOrNil(w.warns), tested: sh.n.testedOf(len(sh.n.keys))}
	e.vars = w.varSetOf(e.deps)
	return e, false, &e.key, err
}

// cloneOrNil copies s into memory of its own, nil when empty.
func cloneOrNil[S ~[]E, E any](s S) S {
	if len(s) == 0 {
		return nil
	}
	return slices.Clone(s)
}

// remember caches a new result under its signature's hash, for other nodes.
func (w *worker) remember(h uint64, sig []uint32, e *sharedKey) {
	e.sig = slices.Clone(sig)
	list := w.keys[h]
	if len(list) >= maxVariants {
		list = list[1:]
	}
	w.keys[h] = append(list, e)
}

// reusable returns the first of candidates for key name (with signature
// sig, when given) whose reads give the same answers on this node.
func (sh *nodeShare) reusable(name string, candidates []*sharedKey, sig ...[]uint32) *sharedKey {
	if len(candidates) == 0 {
		return nil
	}
	var hit *sharedKey
	fr := sh.n.stack.enter(name)
	sh.quiet++
	for _, e := range candidates {
		if e.key.Name != name || len(sig) > 0 && !slices.Equal(e.sig, sig[0]) {
			continue
		}
		if e.vars != nil && sh.varsHold(e.vars) || e.vars == nil && sh.depsHold(e.deps) {
			hit = e
			break
		}
	}
	sh.quiet--
	sh.n.stack.leave(fr)
	return hit
}

// reuse takes a cached result, reporting its warnings for this node.
func (sh *nodeShare) reuse(e *sharedKey) (*format.Key, *format.Error) {
	sh.n.setKeyChecks(e.tested)
	for _, d := range e.warns {
		d.Node = sh.n.node.Name
		sh.n.emitWarning(d)
	}
	return &e.key, e.key.Err
}

// record notes a read the current top-level key depends on. Reads made
// inside a nested lookup are covered by the lookup's own dep.
func (sh *nodeShare) record(d dep) {
	if sh.deps != nil && sh.nested == 0 {
		if d.lookup && len(sh.n.stack.names) > 1 {
			d.stack = slices.Clone(sh.n.stack.names)
		}
		*sh.deps = append(*sh.deps, d)
	}
}

// depsHold reports whether every read gives the same answer on this node.
func (sh *nodeShare) depsHold(deps []dep) bool {
	for _, d := range deps {
		var v any
		var err error
		if d.lookup {
			saved := sh.n.stack.names
			if d.stack != nil {
				sh.n.stack.names = append(sh.n.stack.names[len(sh.n.stack.names):], d.stack...)
			}
			if d.global {
				sh.n.globalOnly++
			}
			if d.alias {
				v, err = sh.n.aliasWithDefault(d.name)
			} else {
				v, err = sh.n.lookupWithDefault(d.name)
			}
			if d.global {
				sh.n.globalOnly--
			}
			sh.n.stack.names = saved
		} else {
			v, err = sh.n.interp.scopeLookup(d.name, d.name)
		}
		if errText(err) != d.err || !format.Identical(v, d.value) {
			return false
		}
	}
	return true
}

func errText(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

// parseExpr parses a scope or lookup expression once per worker.
func (w *worker) parseExpr(expr string) (hiera.Key, error) {
	if k, ok := w.exprs[expr]; ok {
		return k, nil
	}
	k, err := hiera.ParseKey(expr)
	if err == nil {
		w.exprs[expr] = k
	}
	return k, err
}

// testedList returns checks (names tested against a lookup stack, see
// lookupStack.checks) sorted and without duplicates, for a result to keep
// (nil when none). The lists are the worker's, shared by every result that
// tested the same names (most that test any test one variable or key):
// never modify one.
func (w *worker) testedList(checks []string) []string {
	if len(checks) == 0 {
		return nil
	}
	t := append(w.testedBuf[:0], checks...)
	slices.Sort(t)
	t = slices.Compact(t)
	w.testedBuf = t
	b := w.testedKey[:0]
	for _, name := range t {
		b = append(binary.AppendUvarint(b, uint64(len(name))), name...)
	}
	w.testedKey = b
	if l, ok := w.tested[string(b)]; ok {
		return l
	}
	l := slices.Clone(t)
	if len(w.tested) < maxTestedLists {
		if w.tested == nil {
			w.tested = map[string][]string{}
		}
		w.tested[string(b)] = l
	}
	return l
}

// keyList is a sorted, duplicate-free list of key names.
type keyList struct {
	id   uint32
	keys []string
}

// newKeyList makes a list numbered by the worker (see union).
func (w *worker) newKeyList(keys []string) *keyList {
	w.keyLists++
	return &keyList{id: w.keyLists, keys: keys}
}

// union adds a file's keys to a list, reusing cached results: nodes that
// share most of their files share most of this work.
func (w *worker) union(acc *keyList, df *dataFile) *keyList {
	if df == nil || df.hash == nil || len(df.keys) == 0 {
		return acc
	}
	accID := uint32(0)
	if acc != nil {
		accID = acc.id
	}
	k := [2]uint32{accID, df.id}
	if u, ok := w.unions[k]; ok {
		return u
	}
	var u *keyList
	switch {
	case acc == nil:
		u = w.newKeyList(df.keys)
	default:
		u = w.newKeyList(mergeSorted(acc.keys, df.keys))
		if len(u.keys) == len(acc.keys) {
			u = acc // nothing new: keep sharing the same list
		}
	}
	w.unions[k] = u
	return u
}

// mergeSorted merges two sorted duplicate-free lists. The result may be
// one of them: it is read, never written.
func mergeSorted(a, b []string) []string {
	out, _ := mergeSortedInto(nil, a, b)
	return out
}

// mergeSortedInto is mergeSorted building a new list, when it must, in
// dst's memory; built says whether it did (the result is then dst's).
func mergeSortedInto(dst, a, b []string) (out []string, built bool) {
	switch {
	case len(a) == 0:
		return b, false
	case len(b) == 0:
		return a, false
	}
	if len(b) < 32 {
		// The common case: a small file's keys are mostly in a already.
		missing := 0
		for _, k := range b {
			if _, ok := slices.BinarySearch(a, k); !ok {
				missing++
			}
		}
		if missing == 0 {
			return a, false
		}
	}
	out = slices.Grow(dst[:0], len(a)+len(b))
	i, j := 0, 0
	for i < len(a) && j < len(b) {
		switch {
		case a[i] < b[j]:
			out = append(out, a[i])
			i++
		case a[i] > b[j]:
			out = append(out, b[j])
			j++
		default:
			out = append(out, a[i])
			i++
			j++
		}
	}
	out = append(out, a[i:]...)
	return append(out, b[j:]...), true
}
