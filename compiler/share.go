package compiler

// The seam between Hiera's rules and sharing work across nodes. Sharing
// (package compiler/internal/share) decides what one node reuses of
// another's work: results, slices of keys, hierarchy level expansions,
// lookup_options; the order nodes are compiled in. It reaches the
// compiler only through share.Node, which nodeShare implements here, and
// the stages reach it only through nodeShare's hooks (doc.go lists them).
// Templates are share's, but for reading a key's contributions again for
// another node, which re-runs interpolation plans (interpolate.go's
// internals): template.go does it.

import (
	"encoding/binary"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/hieracc/hieracc/compiler/diagnostics"
	"github.com/hieracc/hieracc/compiler/internal/share"
	"github.com/hieracc/hieracc/format"
	"github.com/hieracc/hieracc/format/hiera"
)

// nodeShare is sharing work across nodes as one node sees it
// (nodeRun.share): share.Run, whose hooks the stages call (Record,
// Nested, Warned, Quiet), and the node as sharing sees it (share.Node).
type nodeShare struct {
	share.Run
	n *nodeRun
	w *worker
	// own are the node's files at per-node positions (see Slice), which
	// the file cache releases once the node is compiled (releaseOwn).
	own []*dataFile
}

var _ share.Node = (*nodeShare)(nil)

// start starts the node's sharing.
func (sh *nodeShare) start(n *nodeRun) {
	sh.n, sh.w = n, n.w
	sh.Run.Start(&n.w.share, sh)
}

// tableSlots is what a slice's table keeps of the compiler's for its
// slots (share.Table.Ext), by slot: where the key's data lies (the same
// for every node of the slice), and the options its nodes found.
type tableSlots struct {
	locs [][]keyLoc
	pre  []keyPre
}

// KeyList is the node's keys (nodeRun.keys).
func (sh *nodeShare) KeyList() *[]format.Key { return &sh.n.keys }

// KeyNames lists the keys of the node's data files: with slice, those of
// the files Slice did not mask; without, all (the node has no slice: none
// of its files is its own).
func (sh *nodeShare) KeyNames(slice bool) []string {
	if !slice {
		sh.own = nil
		return sh.n.keyNames(nil)
	}
	return sh.n.keyNames(func(df *dataFile) bool { return !slices.Contains(sh.own, df) })
}

// Slice describes the node's layers and files: the lookup_options its
// keys are resolved under, and every layer's files, its own (per-node
// files) kept in own.
func (sh *nodeShare) Slice(s *share.SliceText) bool {
	n := sh.n
	sh.own = nil
	files := func(layer uint32, def bool, fs [][]*dataFile) bool {
		s.Count(len(fs))
		for li, lvl := range fs {
			s.Count(len(lvl))
			for fi, df := range lvl {
				if df == nil {
					s.Missing()
					continue
				}
				own, ok := s.File(share.Pos{Layer: layer, Def: def, Level: uint32(li), Loc: uint32(fi)}, df.id, df.keys, df.err != nil)
				if !ok {
					return false
				}
				if own {
					sh.own = append(sh.own, df)
				}
			}
		}
		return true
	}
	layer := func(i uint32, lr *layerRun) bool {
		switch {
		case lr == nil:
			s.Byte('n')
		case !lr.hier.Present:
			s.Byte('a')
		case lr.err != nil:
			s.Byte('e')
		default:
			s.Byte('p')
			if !files(i, false, lr.files) {
				return false
			}
			if lr.def != nil {
				s.Byte('d')
				return files(i, true, lr.defFiles)
			}
		}
		return true
	}
	ok := s.Options(optsID(n.opts.envOpts)) && layer(0, n.layers.global) && layer(1, n.layers.env)
	for i, name := range n.c.moduleNames {
		if !ok {
			break
		}
		ok = layer(uint32(2+i), n.layers.module(name))
		if r, found := n.opts.modOpts[name]; ok && found {
			ok = s.Options(optsID(r))
		}
	}
	if !ok {
		sh.own = nil
	}
	return ok
}

// optsID is a lookup_options result's number in the worker's cache, 0
// for one computed for its node alone (or none).
func optsID(r *optsResult) uint32 {
	if r == nil {
		return 0
	}
	return r.id
}

// NewTable finds the locations of a new slice table's keys.
func (sh *nodeShare) NewTable(keys []string) any {
	return &tableSlots{locs: sh.tableLocs(keys, sh.own), pre: make([]keyPre, len(keys))}
}

// Shape writes the shape of the layers a key of module mod is searched
// in: the number of the lookup_options it is resolved under, and how many
// levels and locations each layer has.
func (sh *nodeShare) Shape(b []byte, mod string) []byte {
	b = binary.AppendUvarint(append(b, 'o'), uint64(optsID(sh.n.opts.optsOf(mod))))
	for _, lr := range sh.n.layers.of(mod) {
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
	return b
}

// sigOf is a key's signature over its locations (see share.Worker.KeySig).
func (sh *nodeShare) sigOf(mod string, m format.Merge, conv []format.Value, locs []keyLoc) []uint32 {
	shape := sh.ShapeID(mod)
	return sh.w.share.KeySig(shape, m, conv, len(locs), func(i int) share.Loc {
		l := &locs[i]
		layer := uint32(l.layer)
		if l.def {
			layer = 3
		}
		return share.Loc{Layer: layer, Level: uint32(l.level), Loc: uint32(l.loc), File: l.df.id}
	})
}

// KeySig is the signature of a key no slice holds: its options must be
// valid and shared with other nodes (options computed for this node alone
// may set the key's merge in a place of their own).
func (sh *nodeShare) KeySig(name, mod string) ([]uint32, bool) {
	opts := sh.n.opts.optionsFor(mod)
	merge, perr := opts.mergeOf(name)
	conv, cerr := opts.convertTo(name)
	if perr != nil || cerr != nil || optsID(sh.n.opts.optsOf(mod)) == 0 {
		return nil, false
	}
	locs := sh.n.locsIn(name, sh.n.layers.of(mod), nil)
	return sh.sigOf(mod, merge, conv, locs), true
}

// SlotSig finds the options of a slot's key (kept for the slice's nodes,
// see keyPre) and its signature.
func (sh *nodeShare) SlotSig(t *share.Table, j int, name, mod string) ([]uint32, bool) {
	x := t.Ext.(*tableSlots)
	ko := sh.n.opts.optionsFor(mod).of(name)
	x.pre[j].ko = ko // (what compileKey would find)
	if ko.mergeErr != nil || ko.convErr != nil {
		return nil, false
	}
	return sh.sigOf(mod, ko.merge, ko.conv, x.locs[j]), true
}

// Compile compiles a key from scratch.
func (sh *nodeShare) Compile(name, mod string) (*format.Key, *format.Error) {
	return sh.n.compileKey(name, mod, nil, nil, nil)
}

// CompileSlot compiles a slot's key from the slot's locations and
// options, and the node's own files' locations (own).
func (sh *nodeShare) CompileSlot(t *share.Table, j int, name, mod string, own bool) (*format.Key, *format.Error) {
	x := t.Ext.(*tableSlots)
	locs := x.locs[j]
	if own {
		locs = sh.withOwn(locs, name, mod)
	}
	return sh.n.compileKey(name, mod, locs, &x.pre[j], nil)
}

// Reread reads a variable, or looks a key up, again.
func (sh *nodeShare) Reread(top string, d *share.Dep) (any, error) {
	n := sh.n
	if !d.Lookup {
		return n.interp.scopeLookup(d.Name, d.Name)
	}
	var fr frame
	if top != "" {
		fr = n.stack.enter(top)
	}
	saved := n.stack.names
	if d.Stack != nil {
		n.stack.names = append(n.stack.names[len(n.stack.names):], d.Stack...)
	}
	if d.Global {
		n.globalOnly++
	}
	var v any
	var err error
	if d.Alias {
		v, err = n.aliasWithDefault(d.Name)
	} else {
		v, err = n.lookupWithDefault(d.Name)
	}
	if d.Global {
		n.globalOnly--
	}
	n.stack.names = saved
	if top != "" {
		n.stack.leave(fr)
	}
	return v, err
}

// Replay reports a reused result's warning for this node.
func (sh *nodeShare) Replay(d diagnostics.Diagnostic) {
	d.Node = sh.n.node.Name
	sh.n.emitWarning(d)
}

// Warnings counts the node's warnings.
func (sh *nodeShare) Warnings() int { return sh.n.warnings }

// Stack is the node's lookup stack.
func (sh *nodeShare) Stack() []string { return sh.n.stack.names }

// BeginKey clears the names tested against the lookup stack.
func (sh *nodeShare) BeginKey() { sh.n.stack.checks = sh.n.stack.checks[:0] }

// SetChecks is nodeRun.setKeyChecks.
func (sh *nodeShare) SetChecks(tested []string) { sh.n.setKeyChecks(tested) }

// DropChecks is nodeRun.dropChecks.
func (sh *nodeShare) DropChecks() { sh.n.dropChecks() }

// Tested is what the key compiled last tested.
func (sh *nodeShare) Tested() []string { return sh.n.testedOf(len(sh.n.keys)) }

// Report is nodeRun.report.
func (sh *nodeShare) Report(err *format.Error, key string) { sh.n.report(err, key) }

// expandLevel is the hierarchies stage's expandLevel, reusing an
// expansion of another node whose reads give the same answers
// (share.ExpandLevel). The Level returned, when set, is the one the
// locations came from: its Locations, once set, are the level's record in
// the bundle.
func (sh *nodeShare) expandLevel(c *config, lvl *levelConf) ([]location, *share.Level, *format.Error) {
	var err *format.Error
	locs, m := share.ExpandLevel(&sh.Run, lvl, lvl.kind == locMappedPaths, func() ([]location, bool) {
		var locs []location
		locs, err = sh.n.layers.expandLevel(c, lvl)
		return locs, err == nil
	})
	return locs, m, err
}

// options returns the lookup_options result for the data of layers,
// computing it once for the nodes whose options come from the same files
// (share.Options), or for this node alone when they depend on it.
func (sh *nodeShare) options(compute func() *optsResult, layers ...*layerRun) *optsResult {
	r, id := share.Options(&sh.w.share, sh.w.optionsSig(layers...), compute)
	r.id = id
	return r
}

// optionsSig identifies the data lookup_options come from: every location
// holding the key, per layer, and the layer's shape. nil means the
// options depend on the node (interpolation, or a layer the node's facts
// broke) and must be computed afresh. The signature is the worker's until
// its next call.
func (w *worker) optionsSig(layers ...*layerRun) []byte {
	b := w.optSig[:0]
	defer func() { w.optSig = b }()
	for _, lr := range layers {
		b = append(b, '|')
		if lr == nil || !lr.hier.Present {
			continue
		}
		if lr.err != nil {
			if lr.conf.err == nil {
				return nil // a node-specific failure (its facts broke a path)
			}
			b = fmt.Appendf(b, "E%p", lr.conf)
			continue
		}
		for li, lvl := range lr.files {
			b = strconv.AppendInt(append(b, 'L'), int64(len(lvl)), 10)
			for fi, df := range lvl {
				if df == nil {
					continue
				}
				if i, ok := df.index[lookupOptionsKey]; ok || df.err != nil {
					if ok && df.interp[i] {
						return nil
					}
					b = strconv.AppendInt(append(b, ','), int64(li), 10)
					b = strconv.AppendInt(append(b, '.'), int64(fi), 10)
					b = strconv.AppendUint(append(b, '.'), uint64(df.id), 10)
				}
			}
		}
	}
	if b == nil {
		b = []byte{} // not "depends on the node"
	}
	return b
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
	n := sh.n
	for li, lr := range [...]*layerRun{n.layers.global, n.layers.env} {
		if lr != nil && lr.hier.Present && lr.err == nil {
			add(format.Layer(li), false, &lr.hier, lr.files, "")
		}
	}
	for _, name := range n.c.moduleNames {
		if lr := n.layers.module(name); lr != nil && lr.hier.Present && lr.err == nil {
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

// withOwn is locsOf for a key that the node's per-node files (own) hold
// and so do its slice's files, where the key's locations are slice (see
// tableLocs): the two lists merged in the order a lookup reads them, in
// the worker's buffer until its next call (the caller compiles the key
// from them and keeps them no longer).
func (sh *nodeShare) withOwn(slice []keyLoc, name, mod string) []keyLoc {
	mine := sh.n.locsIn(name, sh.n.layers.of(mod), sh.own)
	out := slices.Grow(sh.w.ownLocs[:0], len(slice)+len(mine))
	for len(slice) > 0 && len(mine) > 0 {
		if locBefore(&mine[0], &slice[0]) {
			out, mine = append(out, mine[0]), mine[1:]
		} else {
			out, slice = append(out, slice[0]), slice[1:]
		}
	}
	out = append(append(out, slice...), mine...)
	sh.w.ownLocs = out
	return out
}

// locBefore reports whether a lookup reads location a before b: by
// layer, then the hierarchy before the module's default_hierarchy, then
// level and location.
func locBefore(a, b *keyLoc) bool {
	if a.layer != b.layer {
		return a.layer < b.layer
	}
	if a.def != b.def {
		return !a.def
	}
	if a.level != b.level {
		return a.level < b.level
	}
	return a.loc < b.loc
}

// compileOrder returns the indexes of nodes in the order they are
// compiled (share.Order): grouped by what their hierarchies interpolate.
func (c *compilation) compileOrder(nodes []Node) []int {
	order, _ := c.orderGroups(nodes)
	return order
}

// orderGroups is share.Order over the variables of every layer's
// hierarchy (hierarchyExprs), with each node's group.
func (c *compilation) orderGroups(nodes []Node) (order []int, group []string) {
	exprs := c.hierarchyExprs()
	return share.Order(len(nodes), len(exprs), func(i, e int) any { return orderValue(nodes[i], exprs[e]) })
}

// compileRuns cuts compileOrder's nodes into the runs workers take whole
// (share.Runs).
func (c *compilation) compileRuns(nodes []Node, jobs int) [][]int {
	order, group := c.orderGroups(nodes)
	return share.Runs(order, group, jobs)
}

// sortRun orders the nodes of a run for the worker compiling them
// (share.Worker.SortRun).
func (w *worker) sortRun(nodes []Node, run []int) {
	w.share.SortRun(run, func(i int, k hiera.Key) any { return orderValue(nodes[i], k) })
}

// hierarchyExprs lists the variable expressions of every layer's
// hierarchy paths, lowest-priority level first, each once.
func (c *compilation) hierarchyExprs() []hiera.Key {
	var out []hiera.Key
	seen := map[string]bool{}
	add := func(levels []levelConf) {
		for i := len(levels) - 1; i >= 0; i-- {
			lvl := &levels[i]
			texts := append([]string{lvl.datadir}, lvl.locs...)
			texts = append(texts, lvl.mapped[:]...)
			for _, t := range texts {
				for at := 0; ; {
					start, end := nextExpr(t, at)
					if start < 0 {
						break
					}
					at = end
					expr := strings.TrimSpace(t[start+2 : end-1])
					if seen[expr] {
						continue
					}
					seen[expr] = true
					if k, err := hiera.ParseKey(expr); err == nil {
						out = append(out, k)
					}
				}
			}
		}
	}
	configs := []*config{c.global, c.env}
	for _, name := range c.moduleNames {
		configs = append(configs, c.modules[name])
	}
	// Lowest priority first: modules, then the environment, the global layer.
	for i := len(configs) - 1; i >= 0; i-- {
		if conf := configs[i]; conf != nil && conf.present {
			add(conf.defaultHierarchy)
			add(conf.hierarchy)
		}
	}
	return out
}

// orderValue is roughly what a hierarchy's %{k} reads for node: only the
// order of the compile depends on it.
func orderValue(node Node, k hiera.Key) any {
	root := strings.TrimPrefix(k.Root, "::")
	var v any
	var ok bool
	switch {
	case root == "trusted":
		v, ok = node.Trusted, true
		if node.Trusted == nil {
			v = derivedTrusted(node.Name)
		}
	case root == "facts":
		v, ok = node.Facts, node.Facts != nil
	case node.Facts != nil:
		v, ok = node.Facts.Get(root)
	}
	if !ok {
		return nil
	}
	if len(k.Segments) > 0 {
		d, found, err := k.Dig(v)
		if err != nil || !found {
			return nil
		}
		v = d
	}
	if h, ok := v.(*format.Hash); ok && h.Len() > 8 {
		return nil // a whole facts hash: no grouping to find in it
	}
	return v
}
