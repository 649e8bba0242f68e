package compiler

// Sharing work across nodes (see reuse.go), the keys stage: a node's keys
// compiled from the results of other nodes where they hold, and written
// into the memory of the last node's keys. compileKeys (node.go) is the
// same without sharing.

import (
	"slices"

	"github.com/hieracc/hieracc/compiler/diagnostics"
	"github.com/hieracc/hieracc/format"
	"github.com/hieracc/hieracc/format/hiera"
)

// nodeShare is sharing work across nodes as one node sees it: what it keeps
// of the node (the reads and warnings of the key being compiled, recorded
// by the semantic stages' hooks: record, emitWarning; where the node's
// slice puts it), and the methods of reuse*.go and template.go that act for
// the node. It is nodeRun.share, the one way the stages reach the sharing
// (the package's documentation lists its hooks).
type nodeShare struct {
	n *nodeRun // the node, whose stages compile what is not reused
	w *worker  // n.w, whose caches hold what is shared
	// serial numbers the worker's nodes: what is found out for a node
	// (varSet) says for which.
	serial uint64
	// own are the node's files at per-node positions (see slice), which
	// the file cache releases once the node is compiled.
	own []*dataFile
	// delta are the sorted keys of own (see nodeSlice).
	delta []string
	// firstOf is set by perNodeKey when the key it returns (the
	// worker's) is a template's first key but for its Value and
	// Contributions, the only fields written in it (appendKey takes the
	// rest from firstOf); compileKeysShared clears it before each slot key.
	firstOf *format.Key
	shapes  map[string]uint32 // shapeID by module
	deps    *[]dep            // reads of the key being compiled, when recording
	nested  int               // depth of nested lookups (their reads are not recorded)
	// keyWarns collects the warnings of the key being compiled, so that a
	// node reusing the result reports them too; quiet > 0 while checking
	// whether a result can be reused (its warnings are replayed instead).
	keyWarns *[]diagnostics.Diagnostic
	quiet    int
}

// sharedKey compiles a key, or reuses the result of a node whose data for
// the key lies in the same files, at the same places, and whose reads
// (variables, nested lookups) give the same answers (see reuse.go). The
// result is kept for other nodes.
func (sh *nodeShare) sharedKey(name, mod string) (*format.Key, *format.Error) {
	merge, perr := sh.n.opts.optionsFor(mod).mergeOf(name)
	conv, cerr := sh.n.opts.optionsFor(mod).convertTo(name)
	if perr != nil || cerr != nil || sh.w.noSharing || sh.w.optID(sh.n.opts.optsOf(mod)) == 0 {
		// Options computed for this node alone (see optID) may set the
		// key's merge in a place of their own: nothing is shared.
		return sh.n.compileKey(name, mod, nil, nil, nil)
	}
	layers := sh.n.layers.of(mod)
	locs := sh.n.locsOf(name, layers)
	sig := sh.w.keySig(sh.shapeID(mod, layers), merge, sh.w.convertID(conv), locs)
	h := hashSig(name, sig)
	e, reused, k, err := sh.findOrCompile(name, mod, sig, h, locs)
	if e != nil && !reused {
		sh.w.remember(h, sig, e)
	}
	return k, err
}

// compileKeysShared is compileKeys sharing work across nodes: the keys
// of the node's slice (reuse_slices.go) take the slot's result when it
// holds on the node (a static one is copied as is), the others go through
// sharedKey. It gives the keys compileKeys gives, in the same order.
func (sh *nodeShare) compileKeysShared(modErr map[string]bool) []format.Key {
	w := sh.w
	// Keys are walked in order; the slice's keys are a subset of the
	// node's, so a second cursor finds each key's slot without a lookup.
	var names, shared, delta []string
	var t *sliceTable
	sl := sh.slice()
	if sl != nil {
		w.stats.slices++
		sh.own, sh.delta = sl.masked, sl.delta
		t = sl.table
		t.countRuns()
		shared, delta = t.keys, sl.delta
		var built bool
		names, w.deltaAt, built = placeDelta(w.names, w.deltaAt, shared, delta)
		if built {
			w.names = names
		}
	} else {
		w.stats.noSlice++
		names = sh.n.keyNames(nil)
	}
	if w.reuseKeys {
		sh.n.keys = slices.Grow(w.keyBuf[:0], len(names))
		w.markKeys(sh.n.keys, t)
	} else {
		sh.n.keys = make([]format.Key, 0, len(names))
	}
	sh.n.keyTested = w.keyTested[:0]
	defer func() { w.keyTested = sh.n.keyTested[:0] }()
	j, d := 0, 0
	// stop is where the next key of a per-node file (delta[stopFor])
	// would sit among the slice's keys: static runs end before it.
	stop, stopFor := 0, -1
	for i := 0; i < len(names); i++ {
		name := names[i]
		sh.n.stack.checks = sh.n.stack.checks[:0]
		slot := -1 // the key's slot in t
		if j < len(shared) && shared[j] == name {
			slot = j
			j++
		}
		own := -1 // the slot of a key a per-node file holds too
		if d < len(delta) && delta[d] == name {
			slot, own = -1, slot // a per-node file holds it: the general path
			d++
		} else if slot >= 0 && len(modErr) == 0 {
			// Slice keys whose results hold for every node of the
			// slice, up to the next key of a per-node file: copied.
			if stopFor != d {
				stop, stopFor = len(shared), d
				if d < len(delta) {
					stop = int(w.deltaAt[d])
				}
			}
			if r := t.staticRun(slot, stop); r > 0 {
				sh.appendStatics(t, slot, r)
				w.stats.static += r
				i, j = i+r-1, slot+r
				continue
			}
		}
		// A slot key's module is the slot's, read only when a module
		// failed (slotKey reads what else it needs of the slot).
		var mod string
		switch {
		case slot < 0:
			mod = hiera.ModuleOf(name)
		case len(modErr) == 0:
		case t.slots[slot].ready:
			mod = t.slots[slot].mod
		default:
			mod = hiera.ModuleOf(name)
		}
		if mod != "" && modErr[mod] {
			continue
		}
		var k *format.Key
		var err *format.Error
		switch {
		case slot >= 0:
			sh.firstOf = nil
			k, err = sh.slotKey(t, slot, name)
		case sl != nil && own >= 0:
			// A per-node file holds the key, and so do the slice's: its
			// options are the slot's, and its locations the slot's and
			// the per-node files'.
			w.stats.general++
			locs := sh.withOwn(t.locs[own], name, mod, sl.masked)
			k, err = sh.n.compileKey(name, mod, locs, &t.slots[own].pre, nil)
		case sl != nil:
			// A per-node file holds the key: its signature names that
			// file, which no other node reaches (or one loaded again, under
			// another id, once released): no result to look for or keep.
			w.stats.general++
			k, err = sh.n.compileKey(name, mod, nil, nil, nil)
		default:
			w.stats.general++
			k, err = sh.sharedKey(name, mod)
		}
		if err != nil {
			sh.n.report(err, name)
		}
		if k != nil {
			// A slot key is either a kept result's or compiled for this
			// node in the worker's key (w.key), possibly from a
			// template's first key (see perNodeKey).
			switch {
			case slot < 0:
				sh.appendKey(k, nil)
			case k != &w.key:
				sh.appendKey(k, k)
			default:
				sh.appendKey(k, sh.firstOf)
			}
		} else {
			sh.n.dropChecks()
		}
	}
	return sh.n.keys
}

// markKeys makes w.keyMarks describe keys, the memory (w.keyBuf, grown) a
// node whose slice table is t (nil for none) writes its keys in: what
// it held for the last node holds still, if that memory and table are the
// last node's.
func (w *worker) markKeys(keys []format.Key, t *sliceTable) {
	var mem *format.Key
	if cap(keys) > 0 {
		mem = &keys[:1][0]
	}
	if mem != w.keyMem || t != w.keyTable {
		clear(w.keyMarks)
		clear(w.keyFrom)
		w.keyMem, w.keyTable = mem, t
	}
	if len(w.keyMarks) < cap(keys) {
		w.keyMarks = append(w.keyMarks, make([]int32, cap(keys)-len(w.keyMarks))...)
		w.keyFrom = append(w.keyFrom, make([]*format.Key, cap(keys)-len(w.keyFrom))...)
	}
}

// Marks of worker.keyMarks for positions holding *keyFrom[p] (keptMark),
// or *keyFrom[p] but for its Value and Contributions (firstMark).
const (
	keptMark  = -1
	firstMark = -2
)

// appendKey appends a key to the node's keys: *k, or, when from is a
// template's first key (keyTmpl.first), *from with k's Value and
// Contributions (k's other fields are not set). from, when not nil, is a key nothing changes
// once made: k itself (a kept result's, sharedKey.key) or that first key.
// Reusing the last node's memory (Input.Emit), a key found there in place
// (the last node's key at the same position came from the same, as
// consecutive nodes of a slice mostly do) is not copied again: at most its
// Value and Contributions are written.
func (sh *nodeShare) appendKey(k, from *format.Key) {
	w, p := sh.w, len(sh.n.keys)
	mark := int32(0)
	switch {
	case from == k:
		mark = keptMark
	case from != nil:
		mark = firstMark
	}
	switch {
	case w.reuseKeys && mark != 0 && w.keyMarks[p] == mark && w.keyFrom[p] == from:
		sh.n.keys = sh.n.keys[:p+1]
		if mark == keptMark {
			w.stats.keptInPlace++
			return
		}
		w.stats.firstInPlace++
	case mark == firstMark:
		sh.n.keys = append(sh.n.keys, *from)
	default:
		sh.n.keys = append(sh.n.keys, *k)
	}
	if mark == firstMark {
		sh.n.keys[p].Value, sh.n.keys[p].Contributions = k.Value, k.Contributions
	}
	if w.reuseKeys {
		w.keyMarks[p], w.keyFrom[p] = mark, from
	}
}

// appendStatics appends the static results of t's slots slot to slot+r-1
// to the node's keys. Reusing the last node's memory (Input.Emit), it
// copies only those not found in place (see worker.keyMarks): most nodes of
// a slice copy a few of their ~2,000 keys of 256 bytes, not all.
func (sh *nodeShare) appendStatics(t *sliceTable, slot, r int) {
	w, p := sh.w, len(sh.n.keys)
	if !w.reuseKeys {
		sh.n.keys = append(sh.n.keys, t.statics[slot:slot+r]...)
		return
	}
	sh.n.keys = sh.n.keys[:p+r]
	marks := w.keyMarks[p : p+r]
	for i := 0; i < r; {
		if marks[i] == int32(slot+i+1) {
			w.stats.inPlace++
			i++
			continue
		}
		e := i + 1
		for e < r && marks[e] != int32(slot+e+1) {
			e++
		}
		copy(sh.n.keys[p+i:p+e], t.statics[slot+i:slot+e])
		for ; i < e; i++ {
			marks[i] = int32(slot + i + 1)
		}
	}
}

// withOwn is locsOf for a key that the node's per-node files (own) hold
// and so do its slice's files, where the key's locations are slice (see
// tableLocs): the two lists merged in the order a lookup reads them, in
// the worker's buffer until its next call (the caller compiles the key
// from them and keeps them no longer).
func (sh *nodeShare) withOwn(slice []keyLoc, name, mod string, own []*dataFile) []keyLoc {
	mine := sh.n.locsIn(name, sh.n.layers.of(mod), own)
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
