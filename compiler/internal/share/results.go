package share

// Sharing results across nodes. A fleet has far fewer distinct hierarchy
// slices than nodes, so most keys resolve identically on most nodes. A
// worker keeps results keyed by what a result depends on — the data files
// that hold the key, where they sit in the hierarchy, the key's merge
// (its signature, KeySig) — and validated by what the first computation
// read from the node: scope variables and nested lookups (Dep). A result
// is reused only when every one of those reads gives the same answer on
// the new node, so sharing never changes a value, only its cost.

import (
	"encoding/binary"
	"slices"

	"github.com/hieracc/hieracc/compiler/diagnostics"
	"github.com/hieracc/hieracc/compiler/internal/canon"
	"github.com/hieracc/hieracc/format"
)

// MaxVariants bounds the results kept per key signature (and the level
// expansions per level, the templates per slot): a key that interpolates
// a per-node fact (its hostname, say) has a result per node, and keeping
// them all would make every check scan a long list.
const MaxVariants = 4

// Result is a compiled key with what it depends on.
type Result struct {
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
	deps   []Dep
}

// varSet is a list of variable reads, as results record them, shared by
// every result of a worker that read the same values: whether they hold on
// a node is found out once for all of them.
type varSet struct {
	deps  []Dep
	node  uint64 // the node (Run.serial) holds was found for
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
func (w *Worker) varSetOf(deps []Dep) *varSet {
	if len(deps) == 0 {
		return nil
	}
	b := w.varKey[:0]
	for _, d := range deps {
		if d.Lookup {
			return nil
		}
		b = binary.AppendUvarint(b, uint64(len(d.Name)))
		b = canon.Append(append(b, d.Name...), d.Value)
		b = append(binary.AppendUvarint(b, uint64(len(d.Err))), d.Err...)
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
func (r *Run) varsHold(s *varSet) bool {
	if s.node != r.serial {
		s.node, s.holds = r.serial, r.depsHold("", s.deps)
	}
	return s.holds
}

// depsHold reports whether every read gives the same answer on this node,
// inside a lookup of top ("" for none).
func (r *Run) depsHold(top string, deps []Dep) bool {
	for i := range deps {
		d := &deps[i]
		v, err := r.n.Reread(top, d)
		if ErrText(err) != d.Err || !format.Identical(v, d.Value) {
			return false
		}
	}
	return true
}

// findOrCompile returns a result for the key from the worker's cache, the
// entry of a node whose reads give the same answers here, or compiles it:
// from slot j of t, or (t nil) afresh. e is the entry (nil for a key the
// node does not have); reused says whether it came from the cache.
func (r *Run) findOrCompile(name, mod string, sig []uint32, h uint64, t *Table, j int) (e *Result, reused bool, k *format.Key, err *format.Error) {
	if hit := r.reusable(name, r.w.keys[h], sig); hit != nil {
		k, err := r.reuse(hit)
		return hit, true, k, err
	}
	// Reads and warnings are collected in the worker's buffers (a key's
	// compile never compiles another top-level key) and copied out.
	r.Capture()
	if t == nil {
		k, err = r.n.Compile(name, mod)
	} else {
		k, err = r.n.CompileSlot(t, j, name, mod, false)
	}
	deps, warns := r.Captured()
	if k == nil {
		return nil, false, nil, err
	}
	e = &Result{key: *k, deps: cloneOrNil(deps), warns: cloneOrNil(warns), tested: r.n.Tested()}
	e.vars = r.w.varSetOf(e.deps)
	return e, false, &e.key, err
}

// remember caches a new result under its signature's hash, for other nodes.
func (w *Worker) remember(h uint64, sig []uint32, e *Result) {
	e.sig = slices.Clone(sig)
	if w.keys == nil {
		w.keys = map[uint64][]*Result{}
	}
	list := w.keys[h]
	if len(list) >= MaxVariants {
		list = list[1:]
	}
	w.keys[h] = append(list, e)
}

// reusable returns the first of candidates for key name (with signature
// sig, when given) whose reads give the same answers on this node.
func (r *Run) reusable(name string, candidates []*Result, sig ...[]uint32) *Result {
	if len(candidates) == 0 {
		return nil
	}
	var hit *Result
	r.quiet++
	for _, e := range candidates {
		if e.key.Name != name || len(sig) > 0 && !slices.Equal(e.sig, sig[0]) {
			continue
		}
		if e.vars != nil && r.varsHold(e.vars) || e.vars == nil && r.depsHold(name, e.deps) {
			hit = e
			break
		}
	}
	r.quiet--
	return hit
}

// reuse takes a cached result, reporting its warnings for this node.
func (r *Run) reuse(e *Result) (*format.Key, *format.Error) {
	r.n.SetChecks(e.tested)
	for _, d := range e.warns {
		r.n.Replay(d)
	}
	return &e.key, e.key.Err
}
