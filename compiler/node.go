package compiler

// Stage: compile one node. nodeStages is the whole per-node pipeline, in
// order; the steps of this file are below it, and the stages it calls
// live in the files the package doc lists.

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"hash"
	"slices"
	"strconv"
	"time"

	"github.com/hieracc/hieracc/format"
	"github.com/hieracc/hieracc/format/hiera"
)

// nodeStages is the per-node pipeline, in order: each stage reads what
// the ones before it left in the nodeStep, and returns false when the node
// is done (it failed as a whole). The stages themselves live in the files
// the package doc lists; Result.Stages says how long each took.
var nodeStages = [numNodeStages]struct {
	name string
	run  func(*nodeStep) bool
}{
	// The node's scope, and every layer's hierarchy expanded into data
	// files for it (scope.go, hierarchy.go, files.go).
	{"hierarchies", func(s *nodeStep) bool { s.n = newNodeRun(s.c, s.w, s.node); return true }},
	// The bundle's header: hierarchies and revision.
	{"header", func(s *nodeStep) bool { s.b = s.n.newBundle(); return true }},
	// lookup_options from every level (options.go): Puppet reads them
	// before any lookup, so a failure fails the node or a module.
	{"lookup_options", func(s *nodeStep) bool { s.modErr = s.n.checkOptions(s.b); return s.b.NodeError == nil }},
	// Every key the hierarchies reach, each resolved (emit.go: lookups,
	// interpolation, merges, convert_to).
	{"keys", func(s *nodeStep) bool { s.b.Keys = s.n.compileKeys(s.modErr); return true }},
	// The lookup_options entries whose merge fails a key no level holds
	// (options.go): the runtime answers such keys from them.
	{"options", func(s *nodeStep) bool { s.b.Options = s.n.optionScopes(s.modErr); return true }},
	// The node's own data files are not kept for others (files.go).
	{"release", func(s *nodeStep) bool { s.n.releaseOwn(); return true }},
}

// numNodeStages is len(nodeStages).
const numNodeStages = 6

// nodeStep is what the stages of one node hand on to each other.
type nodeStep struct {
	c      *compilation
	w      *worker
	node   Node
	n      *nodeRun
	b      *format.Bundle
	modErr map[string]bool // modules whose lookup_options failed
}

// compileNode compiles one node into its bundle, running nodeStages in
// order and adding each one's time to the worker's.
func (c *compilation) compileNode(w *worker, node Node) (*format.Bundle, []Diagnostic) {
	s := nodeStep{c: c, w: w, node: node}
	t0 := time.Now()
	for i := range nodeStages {
		ok := nodeStages[i].run(&s)
		t1 := time.Now()
		w.stageTime[i] += t1.Sub(t0)
		t0 = t1
		if !ok {
			break
		}
	}
	return s.b, s.n.diags
}

// releaseOwn lets go of the node's own data files (files.go).
func (n *nodeRun) releaseOwn() {
	for _, df := range n.own {
		if n.c.release(df) {
			n.w.stats.released++
		}
	}
}

// newBundle starts the node's bundle: everything but its keys and modules.
func (n *nodeRun) newBundle() *format.Bundle {
	b := &format.Bundle{
		Node:           n.node.Name,
		Environment:    n.c.environment,
		Revision:       n.c.revision,
		SourceRevision: n.c.sourceRev,
		Global:         hierarchyOf(n.global),
		Env:            hierarchyOf(n.env),
	}
	if b.Revision == "" {
		b.Revision = n.revision()
	}
	return b
}

// report records a key's (or the node's, or a module's) error.
func (n *nodeRun) report(err *format.Error, key string) {
	n.diags = append(n.diags, Diagnostic{Pos: err.Pos,
		Level: err.Level, Node: n.node.Name, Key: key, Message: err.Message})
}

// checkOptions assembles the node's lookup_options, and each module's:
// every lookup first reads them from every level, so a failure is the
// node's error, or every key of a module fails. It adds the modules to b
// and returns the modules that failed.
func (n *nodeRun) checkOptions(b *format.Bundle) map[string]bool {
	if _, err := n.envOptions(); err != nil {
		b.NodeError = err
		n.report(err, "")
	}
	modErr := map[string]bool{}
	for _, name := range n.c.moduleNames {
		lr := n.module(name)
		if lr == nil {
			continue
		}
		m := format.Module{Name: name, Hierarchy: lr.hier, Default: lr.def}
		if b.NodeError == nil {
			if _, err := n.moduleOptions(name); err != nil {
				m.Err = err
				modErr[name] = true
				n.report(err, name+"::*")
			}
		}
		if b.Modules == nil {
			b.Modules = make([]format.Module, 0, len(n.c.moduleNames))
		}
		b.Modules = append(b.Modules, m)
	}
	return modErr
}

// compileKeys compiles every key the node's hierarchies reach, but those
// of failed modules, in order.
func (n *nodeRun) compileKeys(modErr map[string]bool) []format.Key {
	w := n.w
	// Keys are walked in order; the slice's keys are a subset of the
	// node's, so a second cursor finds each key's slot without a lookup.
	var names, shared, delta []string
	var t *sliceTable
	sl := n.slice()
	if sl != nil {
		w.stats.slices++
		n.own, n.delta = sl.masked, sl.delta
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
		names = n.keyNames(nil)
	}
	if w.reuseKeys {
		n.keys = slices.Grow(w.keyBuf[:0], len(names))
		w.markKeys(n.keys, t)
	} else {
		n.keys = make([]format.Key, 0, len(names))
	}
	n.keyTested = w.keyTested[:0]
	defer func() { w.keyTested = n.keyTested[:0] }()
	j, d := 0, 0
	// stop is where the next key of a per-node file (delta[stopFor])
	// would sit among the slice's keys: static runs end before it.
	stop, stopFor := 0, -1
	for i := 0; i < len(names); i++ {
		name := names[i]
		n.checks = n.checks[:0]
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
				n.appendStatics(t, slot, r)
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
			n.firstOf = nil
			k, err = n.slotKey(t, slot, name)
		case sl != nil && own >= 0:
			// A per-node file holds the key, and so do the slice's: its
			// options are the slot's, and its locations the slot's and
			// the per-node files'.
			w.stats.general++
			locs := n.withOwn(t.locs[own], name, mod, sl.masked)
			k, err = n.compileKey(name, mod, locs, &t.slots[own].pre, nil)
		case sl != nil:
			// A per-node file holds the key: its signature names that
			// file, which no other node reaches (or one loaded again, under
			// another id, once released): no result to look for or keep.
			w.stats.general++
			k, err = n.compileKey(name, mod, nil, nil, nil)
		default:
			w.stats.general++
			k, err = n.sharedKey(name, mod)
		}
		if err != nil {
			n.report(err, name)
		}
		if k != nil {
			// A slot key is either a kept result's or compiled for this
			// node in the worker's key (w.key), possibly from a
			// template's first key (see perNodeKey).
			switch {
			case slot < 0:
				n.appendKey(k, nil)
			case k != &w.key:
				n.appendKey(k, k)
			default:
				n.appendKey(k, n.firstOf)
			}
		} else {
			n.dropChecks()
		}
	}
	return n.keys
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

// appendKey appends a key to n.keys: *k, or, when from is a template's
// first key (keyTmpl.first), *from with k's Value and Contributions (k's
// other fields are not set). from, when not nil, is a key nothing changes
// once made: k itself (a kept result's, sharedKey.key) or that first key.
// Reusing the last node's memory (Input.Emit), a key found there in place
// (the last node's key at the same position came from the same, as
// consecutive nodes of a slice mostly do) is not copied again: at most its
// Value and Contributions are written.
func (n *nodeRun) appendKey(k, from *format.Key) {
	w, p := n.w, len(n.keys)
	mark := int32(0)
	switch {
	case from == k:
		mark = keptMark
	case from != nil:
		mark = firstMark
	}
	switch {
	case w.reuseKeys && mark != 0 && w.keyMarks[p] == mark && w.keyFrom[p] == from:
		n.keys = n.keys[:p+1]
		if mark == keptMark {
			w.stats.keptInPlace++
			return
		}
		w.stats.firstInPlace++
	case mark == firstMark:
		n.keys = append(n.keys, *from)
	default:
		n.keys = append(n.keys, *k)
	}
	if mark == firstMark {
		n.keys[p].Value, n.keys[p].Contributions = k.Value, k.Contributions
	}
	if w.reuseKeys {
		w.keyMarks[p], w.keyFrom[p] = mark, from
	}
}

// appendStatics appends the static results of t's slots slot to slot+r-1
// to n.keys. Reusing the last node's memory (Input.Emit), it copies only
// those not found in place (see worker.keyMarks): most nodes of a slice
// copy a few of their ~2,000 keys of 256 bytes, not all.
func (n *nodeRun) appendStatics(t *sliceTable, slot, r int) {
	w, p := n.w, len(n.keys)
	if !w.reuseKeys {
		n.keys = append(n.keys, t.statics[slot:slot+r]...)
		return
	}
	n.keys = n.keys[:p+r]
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
		copy(n.keys[p+i:p+e], t.statics[slot+i:slot+e])
		for ; i < e; i++ {
			marks[i] = int32(slot + i + 1)
		}
	}
}

// keyNames lists every key of every data file the node's hierarchies reach
// (those that keep allows, nil for all), sorted. Files are added lowest
// priority first, so nodes that share their common, OS and role files share
// the cached unions of those.
func (n *nodeRun) keyNames(keep func(*dataFile) bool) []string {
	var acc *keyList
	add := func(files [][]*dataFile) {
		for i := len(files) - 1; i >= 0; i-- {
			for j := len(files[i]) - 1; j >= 0; j-- {
				if df := files[i][j]; keep == nil || keep(df) {
					acc = n.w.union(acc, df)
				}
			}
		}
	}
	for _, name := range n.c.moduleNames {
		if lr := n.module(name); lr != nil {
			add(lr.defFiles)
			add(lr.files)
		}
	}
	for _, lr := range []*layerRun{n.env, n.global} {
		if lr != nil {
			add(lr.files)
		}
	}
	if acc == nil {
		return nil
	}
	return acc.keys
}

// revision identifies exactly what this node's bundle was compiled from:
// the environment, the node's facts, every hiera.yaml, and every location
// its hierarchies name (path, whether it exists, its content). Nodes whose
// inputs did not change keep their revision, so an unchanged node's bundle
// stays byte-identical when other nodes' data changes.
func (n *nodeRun) revision() string {
	w := n.w
	r := revWriter{h: sha256.New(), buf: w.revBuf[:0]}
	r.str("environment").str(n.c.environment).end()
	w.revFacts = appendCanonical(w.revFacts[:0], n.scope.vars)
	r.str("facts").bytes(w.revFacts).end()
	if n.c.keys.sum != [32]byte{} {
		r.str("eyaml keys").sum(&n.c.keys.sum).end()
	}
	layer := func(kind, name string, lr *layerRun) {
		r.str("layer").str2(kind, name)
		if lr == nil || lr.conf == nil {
			r.str("none").end()
			return
		}
		r.str(lr.conf.file).sum(&lr.conf.sum).end()
		hier := func(h *format.Hierarchy, files [][]*dataFile) {
			for i, lvl := range files {
				for j, df := range lvl {
					if df == nil {
						r.str("missing").str(h.Levels[i].Locations[j].Path).end()
					} else {
						r.str("file").str(df.path).sum(&df.sum).end()
					}
				}
			}
		}
		hier(&lr.hier, lr.files)
		if lr.def != nil {
			hier(lr.def, lr.defFiles)
		}
	}
	layer("", "global", n.global)
	layer("", "environment", n.env)
	for _, name := range n.c.moduleNames {
		layer("module ", name, n.module(name))
	}
	w.revBuf = r.buf
	return "sha256:" + hex.EncodeToString(r.h.Sum(nil))
}

// revWriter writes the lines a revision digests: each a list of parts,
// each part its length, ":" and its text, the line ended by "\n".
type revWriter struct {
	h   hash.Hash
	buf []byte // the line so far
}

// str adds a part.
func (r *revWriter) str(p string) *revWriter { return r.str2("", p) }

// str2 adds the part a+b.
func (r *revWriter) str2(a, b string) *revWriter {
	r.buf = append(strconv.AppendInt(r.buf, int64(len(a)+len(b)), 10), ':')
	r.buf = append(append(r.buf, a...), b...)
	return r
}

// bytes adds a part.
func (r *revWriter) bytes(p []byte) *revWriter {
	r.buf = append(strconv.AppendInt(r.buf, int64(len(p)), 10), ':')
	r.buf = append(r.buf, p...)
	return r
}

// sum adds a SHA-256 sum's hex text as a part.
func (r *revWriter) sum(s *[32]byte) *revWriter {
	r.buf = hex.AppendEncode(append(r.buf, "64:"...), s[:])
	return r
}

// end ends the line.
func (r *revWriter) end() {
	r.h.Write(append(r.buf, '\n'))
	r.buf = r.buf[:0]
}

// appendCanonical appends an unambiguous text of v (types, lengths and
// order included) for digests.
func appendCanonical(b []byte, v any) []byte {
	switch v := v.(type) {
	case nil:
		return append(b, 'n')
	case bool:
		if v {
			return append(b, 't')
		}
		return append(b, 'f')
	case int64:
		return append(strconv.AppendInt(append(b, 'i'), v, 10), ';')
	case float64:
		return append(strconv.AppendFloat(append(b, 'd'), v, 'g', -1, 64), ';')
	case string:
		return append(append(strconv.AppendInt(append(b, 's'), int64(len(v)), 10), ':'), v...)
	case []any:
		b = append(strconv.AppendInt(append(b, 'a'), int64(len(v)), 10), ':')
		for _, e := range v {
			b = appendCanonical(b, e)
		}
		return b
	case *format.Hash:
		b = append(strconv.AppendInt(append(b, 'h'), int64(v.Len()), 10), ':')
		for k, e := range v.All() {
			b = appendCanonical(appendCanonical(b, k), e)
		}
		return b
	}
	return fmt.Appendf(append(b, '?'), "%T:%v;", v, v)
}

func hierarchyOf(lr *layerRun) format.Hierarchy {
	if lr == nil {
		return format.Hierarchy{}
	}
	return lr.hier
}
