package share

// Slices: sharing a node's bookkeeping, not only its results. Results are
// reused once a key's signature is known, but building that signature
// probes every data file of the node for the key, and most nodes repeat
// exactly the probes of their neighbours: they reach the same role,
// datacenter, OS and common files and differ only in a small file of their
// own. So the files of a node are split in two:
//
//   - per-node positions (see posStat): hierarchy locations where this
//     worker has seen a different file for most nodes, like
//     nodes/%{trusted.certname}.yaml (learnt as nodes come: a node before
//     that shares less, never wrongly);
//   - everything else, the node's slice, which many nodes share.
//
// A Table, kept per slice, holds a slot per key of the slice's files: the
// key's merge and signature, computed once, and its recent results. A node
// then only walks its keys: a key that none of its per-node files holds
// has exactly the slot's signature (files that do not hold a key are not
// part of it), so its result is the slot's when the result's reads hold;
// a key in a per-node file takes the general path. The split decides only
// how much work is shared, never a value: every result reused is one the
// general path would have reused.

import (
	"encoding/binary"
	"slices"

	"github.com/hieracc/hieracc/format"
	"github.com/hieracc/hieracc/format/hiera"
)

// Bounds on the caches of a worker.
const (
	// maxSlices bounds the slice tables of a worker; beyond it nodes take
	// the general path (a fleet with that many slices shares little).
	maxSlices = 4096
	// GiveUp: a slot whose results were seldom reused (less than one
	// time in five) after this many computations holds a per-node key (one
	// interpolating the hostname, say): checking the results of other
	// nodes costs more than it saves, so it stops checking and recording
	// (at its first result, when that read a per-node variable: see
	// ReadsPerNode). A slot's templates give up alike.
	GiveUp = 4
)

// Table is the shared bookkeeping of the nodes of one slice.
type Table struct {
	Keys  []string // the keys of the slice's files, sorted
	slots []slot   // by position in Keys
	// Ext is what the node that made the table keeps for its slots (see
	// Node.NewTable), by position in Keys: the same for every node of
	// the slice.
	Ext any
	// statics[j] is slot j's static result (slot.static's key), kept in
	// key order: most of a node's keys are static, and a node copies runs
	// of them in one go (see staticRun) instead of reading each from
	// memory of its own.
	statics []format.Key
	// runs[j] is the number of plain static slots from j on (see
	// plainStatic), as of when plain counted runsAt of them (countRuns).
	runs          []int32
	plain, runsAt int
	// run is the worker's run (Worker.run) that last used the table.
	run uint64
}

// slot is one key of a slice. Its fields are laid out for the cache: a
// node taking a recent result reads only the first 64 bytes (a slot is
// 192, so each starts a cache line in a large table), a template's key the
// next 64 too; the rest is read when the slot is made or a key compiled
// afresh.
type slot struct {
	// The first cache line.
	reused  int32 // results taken (recent ones, or the worker's), against misses
	ready   bool
	perr    bool // its merge option is invalid: compiled afresh each time
	perNode bool
	plain   bool // static is plain (plainStatic): copied in runs
	// static is a result that read nothing from its node: it holds for
	// every node of the slice. Otherwise recent holds the latest results
	// (newest last, at most MaxVariants), to reuse where their reads hold.
	static *Result
	recent []*Result
	// recentVars are the recent results' variables (Result.vars), by
	// position in recent: whether one holds on a node is known without
	// reading the result (see recentHit).
	recentVars []*varSet

	// The second: the slot's module and, for a per-node slot, its
	// templates (templates.go, the newest last, at most MaxVariants), how
	// often one held and none did, and whether the slot gave up on
	// templates; then how often a result was compiled and its signature's
	// hash.
	mod                  string
	tmpls                []*Template
	tmplHits, tmplMisses int32
	misses               int32
	tmplOff              bool
	hash                 uint64

	sig []uint32
	// looked, when set, are the keys (sorted) the static result looked
	// up: it holds only for nodes whose per-node files hold none of them
	// (see lookupsStatic).
	looked []string
	_      [16]byte // (to 192 bytes)
}

// StartRun starts a run of nodes (see Runs): the slice tables that
// neither the last run nor this one used are let go. A run is one slice's
// nodes, and its table serves no other (but another run of a slice cut
// into several, which would make it again: rarely on this worker), while
// the ~2,000 slots, results and locations of a table are the largest part
// of a worker's memory: kept to the compile's end, they made most of its
// live heap, and the memory pages a growing heap faults in.
func (w *Worker) StartRun() {
	w.run++
	for k, t := range w.slices {
		if t.run+1 < w.run {
			delete(w.slices, k)
		}
	}
}

// plainStatic reports whether a static result is taken as it is: no
// warnings to replay, no names tested (see Node.SetChecks), no error to
// report. Such results are copied in runs (staticRun).
func plainStatic(e *Result) bool {
	return len(e.warns) == 0 && len(e.tested) == 0 && e.key.Err == nil
}

// countRuns brings runs up to date with the slots made static since it
// was last called. It is called once per node: a slot made static while a
// node compiles is copied from the next node on (runs counted earlier
// stay true: a static slot stays so).
func (t *Table) countRuns() {
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
func (t *Table) staticRun(j, stop int) int {
	if t.runs == nil {
		return 0
	}
	return max(min(int(t.runs[j]), stop-j), 0)
}

// keepSig returns a copy of a slot's signature s, cut from the worker's
// block: each slot of a slice table keeps one for the compile's length
// (~2,000 a table), so a block saves as many allocations.
func (w *Worker) keepSig(s []uint32) []uint32 {
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

// Pos names a hierarchy location: layer (0 global, 1 environment, 2+i
// the i-th module), whether in a default_hierarchy, level and location.
type Pos struct {
	Layer      uint32
	Def        bool
	Level, Loc uint32
}

// posStat counts the files seen at a position.
type posStat struct {
	nodes int
	files map[uint32]struct{}
}

func (s *posStat) perNode() bool {
	return len(s.files) >= PerNodeMin && 2*len(s.files) > s.nodes
}

// SliceText is the text naming a node's slice, which Node.Slice writes:
// what the node's keys are resolved under (the states of its layers, the
// lookup_options it shares) and the data file at each position, where
// File tells the per-node files apart.
type SliceText struct {
	w     *Worker
	b     []byte
	delta []string // the sorted keys of the per-node files
}

// Byte adds a mark (a layer's state, say).
func (s *SliceText) Byte(c byte) { s.b = append(s.b, c) }

// Count adds a count (a layer's levels, a level's locations).
func (s *SliceText) Count(n int) { s.b = binary.AppendUvarint(s.b, uint64(n)) }

// Options adds the number of lookup_options results (Worker.Options)
// the node's keys are resolved under. It reports false for 0, options
// computed for this node alone: the node has no slice.
func (s *SliceText) Options(id uint32) bool {
	s.b = binary.AppendUvarint(s.b, uint64(id))
	return id != 0
}

// Missing adds a position without a file.
func (s *SliceText) Missing() { s.b = append(s.b, 0) }

// File adds the data file at position p (numbered file, holding keys,
// failed to load when failed). It reports whether the file is per-node
// (own: a file at a position where most nodes have one of their own),
// which the slice leaves out; false (ok) when a per-node file failed: it
// would be in every key's signature, and the node has no slice.
func (s *SliceText) File(p Pos, file uint32, keys []string, failed bool) (own, ok bool) {
	st := s.w.pos[p]
	if st == nil {
		st = &posStat{files: map[uint32]struct{}{}}
		if s.w.pos == nil {
			s.w.pos = map[Pos]*posStat{}
		}
		s.w.pos[p] = st
	}
	st.nodes++
	st.files[file] = struct{}{}
	if st.perNode() {
		if failed {
			return false, false
		}
		s.b = append(s.b, 1)
		s.delta = MergeSorted(s.delta, keys)
		return true, true
	}
	s.b = binary.AppendUvarint(s.b, uint64(file)+2)
	return false, true
}

// slice finds or makes the node's slice table, and the sorted keys of its
// per-node files. It returns nil when the node cannot share one: its
// lookup_options or a per-node file depend on the node in ways the table
// cannot describe.
func (r *Run) slice() (*Table, []string) {
	w := r.w
	s := SliceText{w: w, b: w.sliceBuf[:0]}
	ok := r.n.Slice(&s)
	w.sliceBuf = s.b
	if !ok {
		return nil, nil
	}
	t := w.slices[string(s.b)]
	if t == nil {
		if len(w.slices) >= maxSlices {
			return nil, nil
		}
		t = &Table{Keys: r.n.KeyNames(true)}
		t.slots = make([]slot, len(t.Keys))
		t.Ext = r.n.NewTable(t.Keys)
		if w.slices == nil {
			w.slices = map[string]*Table{}
		}
		w.slices[string(s.b)] = t
	}
	t.run = w.run
	return t, s.delta
}

// slotKey compiles the key of slot j of t, which none of the node's
// per-node files holds, reusing the slot's signature and results. from,
// when set, is a key nothing changes once made, which k is (a result's) or
// whose fields but Value and Contributions k takes (a template's first
// key, Template.First).
func (r *Run) slotKey(t *Table, j int, name string) (k *format.Key, err *format.Error, from *format.Key) {
	s := &t.slots[j]
	w := r.w
	if !s.ready {
		s.ready = true
		s.mod = hiera.ModuleOf(name)
		var sig []uint32
		sig, ok := r.n.SlotSig(t, j, name, s.mod)
		s.perr = !ok
		if ok {
			s.sig = w.keepSig(sig)
			s.hash = hashSig(name, s.sig)
		}
	}
	if s.static != nil {
		if s.looked == nil {
			w.Stats.Static++
			k, err = r.reuse(s.static)
			return k, err, k
		}
		if !anyIn(r.delta, s.looked) {
			w.Stats.Looked++
			k, err = r.reuse(s.static)
			return k, err, k
		}
		// A per-node file holds a key the result looked up: its answer
		// is this node's own.
		w.Stats.Slot++
		_, _, k, err := r.findOrCompile(name, s.mod, s.sig, s.hash, t, j)
		return k, err, k
	}
	w.Stats.Slot++
	if s.perr {
		k, err = r.n.CompileSlot(t, j, name, s.mod, false)
		return k, err, nil
	}
	if s.perNode {
		return r.perNodeKey(t, j, name)
	}
	if hit := r.recentHit(s, name); hit != nil {
		if hit.vars == nil && s.reused < GiveUp {
			r.lookupsStatic(t, s, hit)
		}
		s.reused++
		k, err = r.reuse(hit)
		return k, err, k
	}
	e, reused, k, err := r.findOrCompile(name, s.mod, s.sig, s.hash, t, j)
	if e == nil {
		return k, err, nil
	}
	if len(e.deps) == 0 {
		// Kept for other slices too: a key found only in common data
		// resolves alike in all of them. Results that read the node are
		// kept in the slot only, where their reads are likeliest to hold.
		if !reused {
			w.remember(s.hash, s.sig, e)
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
		return k, err, k
	}
	if reused {
		s.reused++
	} else {
		s.misses++
	}
	// A result that read a per-node variable (its first, usually) says
	// at once what GiveUp finds out after a few.
	if s.misses >= GiveUp && 4*s.reused < s.misses || s.reused == 0 && w.ReadsPerNode(e.deps) {
		s.perNode, s.recent, s.recentVars = true, nil, nil
		return k, err, k
	}
	if len(s.recent) >= MaxVariants {
		s.recent, s.recentVars = s.recent[1:], s.recentVars[1:]
	}
	s.recent, s.recentVars = append(s.recent, e), append(s.recentVars, e.vars)
	return k, err, k
}

// lookupOptionsKey is the key of lookup_options, which no result's
// lookups can reach.
const lookupOptionsKey = "lookup_options"

// lookupsStatic makes e, a result of slot s of t that held on a node, the
// slot's static result when all it read from the node are nested lookups
// of keys whose own results are static in t: each a lookup made by the
// key itself (not one nested deeper, whose stack is another), without
// error, of a key of t by its name (a text that is its own root) whose
// slot holds a plain static result (one that looked up nothing, see
// plainStatic) of the value it gave. Such a lookup gives that value on
// every node of the slice whose per-node files do not hold the key (a
// nested lookup of a compiled key gives its value, as Puppet's lookup of
// a key already resolved does, and the slot's static result is the key's
// on those nodes), so e holds there: the slot keeps the keys (slot.looked)
// and a node holding one in a file of its own compiles the key as any
// other. A result of a key that is looked up with another (a %{lookup()}
// of a string, an %{alias()}) is then taken as a static one, not checked
// by looking the keys up again on every node (depsHold).
func (r *Run) lookupsStatic(t *Table, s *slot, e *Result) {
	var buf [4]string
	looked := buf[:0]
	for _, d := range e.deps {
		if !d.Lookup || d.Global || d.Stack != nil || d.Err != "" || d.Name == lookupOptionsKey {
			return
		}
		if k, err := hiera.ParseKey(d.Name); err != nil || len(k.Segments) > 0 || k.Root != d.Name {
			return
		}
		j, found := slices.BinarySearch(t.Keys, d.Name)
		if !found {
			return
		}
		st := t.slots[j].static
		if st == nil || !t.slots[j].plain || !format.Identical(st.key.Value, d.Value) {
			return
		}
		looked = append(looked, d.Name)
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
func (r *Run) recentHit(s *slot, name string) *Result {
	for i, v := range s.recentVars {
		if v == nil || v.node != r.serial {
			return r.reusable(name, s.recent[i:])
		}
		if v.holds {
			return s.recent[i]
		}
	}
	return nil
}

// Kept reports how many runs of nodes the worker took (StartRun), and the
// run each slice table it keeps was last used in.
func (w *Worker) Kept() (runs uint64, tables []uint64) {
	for _, t := range w.slices {
		tables = append(tables, t.run)
	}
	return w.run, tables
}
