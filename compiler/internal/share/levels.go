package share

// Sharing a hierarchy level's expansion, and lookup_options results,
// across the nodes whose reads give the same answers.

import "github.com/hieracc/hieracc/format"

// Level is a level's expansion for the nodes whose reads give the same
// answers (the level's variables, say role and datacenter): the locations
// it names and, once a node has looked its files up, the bundle's record
// of them (Locations: whether a file exists is the same for every node,
// the input does not change during a compile).
type Level struct {
	deps      []Dep
	locs      any
	Locations []format.Location
}

// ExpandLevel is expand (a level's expansion, false when it failed),
// reusing the expansion of an earlier node of the worker whose reads (the
// variables the level interpolates) gave the same answers; lvl names the
// level. Only expansions that warned of nothing and failed in nothing are
// kept, and none that read a per-node variable (nodes/%{trusted.certname},
// say): no other node reads its value. A level that reads a variable
// of its own, which no Dep records (mapped_paths: own), is expanded for
// each node, as is one expanded inside a key's computation (a module
// expanded late): its reads and warnings are the key's. The Level
// returned (nil if none) is the one the locations came from.
func ExpandLevel[L any](r *Run, lvl any, own bool, expand func() (L, bool)) (L, *Level) {
	w := r.w
	if w.Off || own || r.recording() {
		locs, _ := expand()
		return locs, nil
	}
	if memos := w.levels[lvl]; len(memos) > 0 {
		r.quiet++ // a variable a memo read may be undefined here: its warning comes from the expansion below
		for _, m := range memos {
			if r.depsHold("", m.deps) {
				r.quiet--
				return m.locs.(L), m
			}
		}
		r.quiet--
	}
	w.levelDeps = w.levelDeps[:0]
	r.deps = &w.levelDeps
	warned := r.n.Warnings()
	locs, ok := expand()
	r.deps = nil
	if !ok || r.n.Warnings() != warned || w.ReadsPerNode(w.levelDeps) {
		return locs, nil
	}
	m := &Level{deps: cloneOrNil(w.levelDeps), locs: locs}
	if w.levels == nil {
		w.levels = map[any][]*Level{}
	}
	list := w.levels[lvl]
	if len(list) >= MaxVariants {
		list = list[1:]
	}
	w.levels[lvl] = append(list, m)
	return locs, m
}

// Options returns the worker's lookup_options result for the data sig
// identifies (the files they come from, see the compiler's optionsSig),
// computing it once, and its number (for slices and shapes); nil sig
// means the options depend on the node: they are computed for it alone,
// numbered 0.
func Options[R any](w *Worker, sig []byte, compute func() R) (R, uint32) {
	if sig == nil || w.Off {
		return compute(), 0
	}
	if o, ok := w.opts[string(sig)]; ok {
		return o.r.(R), o.id
	}
	key := string(sig) // compute may ask for other signatures
	r := compute()
	if w.opts == nil {
		w.opts = map[string]optsEntry{}
	}
	id := uint32(len(w.opts) + 1)
	w.opts[key] = optsEntry{r, id}
	return r, id
}

// optsEntry is a lookup_options result a worker keeps.
type optsEntry struct {
	r  any
	id uint32
}
