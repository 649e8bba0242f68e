package compiler

// Sharing work across nodes (see reuse.go), the hierarchies stage: a
// level's expansion reused by the nodes whose reads give the same answers
// (hierarchy.go's expandLevel is the expansion itself).

import (
	"github.com/hieracc/hieracc/format"
)

// levelMemo is a level's expansion for the nodes whose reads give the
// same answers (the level's variables, say role and datacenter): the
// locations it names and, once a node has looked its files up, the
// bundle's record of them (whether a file exists is the same for every
// node: the input does not change during a compile).
type levelMemo struct {
	deps  []dep
	locs  []location
	flocs []format.Location
}

// expandLevelShared is expandLevel, reusing the expansion of an earlier
// node of the worker whose reads (the variables the level interpolates)
// gave the same answers. Only expansions that warned of nothing and
// failed in nothing are kept, and none that read a per-node variable
// (nodes/%{trusted.certname}, say): no other node reads its value. A
// mapped_paths level reads its own variable, which no dep records: it is
// expanded for each node. The memo returned (nil if none) is the one the
// locations came from.
func (sh *nodeShare) expandLevelShared(c *config, lvl *levelConf) ([]location, *levelMemo, *format.Error) {
	w := sh.w
	if w.noSharing || lvl.kind == locMappedPaths || sh.deps != nil || sh.keyWarns != nil || sh.nested > 0 || sh.quiet > 0 {
		// Inside a key's computation (a module expanded late), its reads
		// and warnings are the key's: the expansion is done as it is.
		locs, err := sh.n.layers.expandLevel(c, lvl)
		return locs, nil, err
	}
	if memos := w.levels[lvl]; len(memos) > 0 {
		sh.quiet++ // a variable a memo read may be undefined here: its warning comes from the expansion below
		for _, m := range memos {
			if sh.depsHold(m.deps) {
				sh.quiet--
				return m.locs, m, nil
			}
		}
		sh.quiet--
	}
	w.levelDeps = w.levelDeps[:0]
	sh.deps = &w.levelDeps
	warned := sh.n.warnings
	locs, err := sh.n.layers.expandLevel(c, lvl)
	sh.deps = nil
	if err != nil || sh.n.warnings != warned || w.readsPerNode(w.levelDeps) {
		return locs, nil, err
	}
	m := &levelMemo{deps: cloneOrNil(w.levelDeps), locs: locs}
	if w.levels == nil {
		w.levels = map[*levelConf][]*levelMemo{}
	}
	list := w.levels[lvl]
	if len(list) >= maxVariants {
		list = list[1:]
	}
	w.levels[lvl] = append(list, m)
	return locs, m, nil
}
