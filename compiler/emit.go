package compiler

// Stage: compile one node — every key its hierarchy reaches, resolved under
// its lookup_options, with the contributions that explain it.

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"slices"
	"strconv"

	"github.com/hieracc/hieracc/format"
	"github.com/hieracc/hieracc/format/hiera"
)

func (c *compilation) compileNode(w *worker, node Node) (*format.Bundle, []Diagnostic) {
	n := newNodeRun(c, w, node)
	b := &format.Bundle{
		Node:        node.Name,
		Environment: c.environment,
		Revision:    c.revision,
		Global:      hierarchyOf(n.global),
		Env:         hierarchyOf(n.env),
	}
	if b.Revision == "" {
		b.Revision = n.revision()
	}
	report := func(err *format.Error, key string) {
		n.diags = append(n.diags, Diagnostic{File: err.File, Line: err.Line, Column: err.Column,
			Level: err.Level, Node: node.Name, Key: key, Message: err.Message})
	}

	// Every lookup first assembles lookup_options from every level: when
	// that fails, every lookup on the node fails.
	if _, err := n.envOptions(); err != nil {
		b.NodeError = err
		report(err, "")
	}
	modErr := map[string]bool{}
	for _, name := range c.moduleNames {
		lr := n.module(name)
		if lr == nil {
			continue
		}
		m := format.Module{Name: name, Hierarchy: lr.hier, Default: lr.def}
		if b.NodeError == nil {
			if _, err := n.moduleOptions(name); err != nil {
				m.Err = err
				modErr[name] = true
				report(err, name+"::*")
			}
		}
		b.Modules = append(b.Modules, m)
	}
	if b.NodeError != nil {
		return b, n.diags
	}

	// Keys are walked in order; the slice's keys are a subset of the
	// node's, so a second cursor finds each key's slot without a lookup.
	var names, shared, delta []string
	var slots []slot
	sl := n.slice()
	if sl != nil {
		w.stats.slices++
		shared, slots, delta = sl.table.keys, sl.table.slots, sl.delta
		names = shared
		if len(delta) > 0 {
			var built bool
			if names, built = mergeSortedInto(w.names, shared, delta); built {
				w.names = names
			}
		}
	} else {
		w.stats.noSlice++
		names = n.keyNames(nil)
	}
	if w.reuseKeys {
		n.keys = slices.Grow(w.keyBuf[:0], len(names))
	} else {
		n.keys = make([]format.Key, 0, len(names))
	}
	j, d := 0, 0
	for _, name := range names {
		var s *slot
		if j < len(shared) && shared[j] == name {
			s = &slots[j]
			j++
		}
		if d < len(delta) && delta[d] == name {
			s = nil // a per-node file holds it: the general path
			d++
		}
		var mod string
		if s != nil && s.ready {
			mod = s.mod
		} else {
			mod = hiera.ModuleOf(name)
		}
		if mod != "" && modErr[mod] {
			continue
		}
		var k *format.Key
		var err *format.Error
		if s != nil {
			k, err = n.slotKey(s, name)
		} else {
			// A key of a per-node file is seldom shared: keep it only
			// when the node has no slice at all.
			w.stats.general++
			k, err = n.sharedKey(name, mod, sl == nil)
		}
		if err != nil {
			report(err, name)
		}
		if k != nil {
			n.keys = append(n.keys, *k)
		}
	}
	b.Keys = n.keys
	return b, n.diags
}

// revision identifies exactly what this node's bundle was compiled from:
// the environment, the node's facts, every hiera.yaml, and every location
// its hierarchies name (path, whether it exists, its content). Nodes whose
// inputs did not change keep their revision, so an unchanged node's bundle
// stays byte-identical when other nodes' data changes.
func (n *nodeRun) revision() string {
	h := sha256.New()
	var buf []byte
	put := func(parts ...string) {
		buf = buf[:0]
		for _, p := range parts {
			buf = append(strconv.AppendInt(buf, int64(len(p)), 10), ':')
			buf = append(buf, p...)
		}
		h.Write(append(buf, '\n'))
	}
	put("environment", n.c.environment)
	put("facts", string(appendCanonical(nil, n.scope.vars)))
	if n.c.keys.sum != [32]byte{} {
		put("eyaml keys", hex.EncodeToString(n.c.keys.sum[:]))
	}
	layer := func(name string, lr *layerRun) {
		if lr == nil || lr.conf == nil {
			put("layer", name, "none")
			return
		}
		put("layer", name, lr.conf.file, hex.EncodeToString(lr.conf.sum[:]))
		hier := func(h *format.Hierarchy, files [][]*dataFile) {
			for i, lvl := range files {
				for j, df := range lvl {
					if df == nil {
						put("missing", h.Levels[i].Locations[j].Path)
					} else {
						put("file", df.path, hex.EncodeToString(df.sum[:]))
					}
				}
			}
		}
		hier(&lr.hier, lr.files)
		if lr.def != nil {
			hier(lr.def, lr.defFiles)
		}
	}
	layer("global", n.global)
	layer("environment", n.env)
	for _, name := range n.c.moduleNames {
		layer("module "+name, n.module(name))
	}
	return "sha256:" + hex.EncodeToString(h.Sum(nil))
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

// sharedKey compiles a key, or reuses the result of a node whose data for
// the key lies in the same files, at the same places, and whose reads
// (variables, nested lookups) give the same answers (see share.go). The
// result is kept for other nodes when store says so.
func (n *nodeRun) sharedKey(name, mod string, store bool) (*format.Key, *format.Error) {
	merge, perr := n.optionsFor(mod).mergeOf(name)
	conv, cerr := n.optionsFor(mod).convertTo(name)
	if perr != nil || cerr != nil || !sharing {
		return n.compileKey(name, mod, nil)
	}
	layers := n.layersFor(mod)
	sig := n.w.keySig(n.shapeID(mod, layers), merge, convertID(conv), name, layers)
	h := hashSig(name, sig)
	e, reused, k, err := n.findOrCompile(name, mod, sig, h, nil)
	if store && e != nil && !reused {
		n.w.remember(h, sig, e)
	}
	return k, err
}

// compileKey resolves one key at the top level. Every location's value is
// recorded (interpolated), and the configured merge is computed from those
// records with the same driver the runtime uses, so the two cannot differ.
// locs are the key's locations (see locsOf), nil to find them.
func (n *nodeRun) compileKey(name, mod string, locs []keyLoc) (*format.Key, *format.Error) {
	k := &format.Key{Name: name}
	merge, perr := n.optionsFor(mod).mergeOf(name)

	layers := n.layersFor(mod)
	if locs == nil {
		locs = n.locsOf(name, layers)
	}
	// Whether any value read for the key holds decrypted text.
	outer := n.secret
	n.secret = false
	defer func() {
		k.Secret = n.secret
		n.secret = outer || n.secret
	}()
	fr := n.enter(name)
	k.Contributions = n.contributions(name, locs, false, layers)
	n.leave(fr)

	var v any
	var found bool
	var err error
	if perr != nil {
		// Place it where the lookup_options entry sets the merge.
		entry, _ := n.optionsFor(mod).entryFor(name)
		err = n.placeOption(optionError(entry, true, "%s", perr.Error()), layers[:]...)
	} else {
		k.Merge = merge
		v, found, err = hiera.Resolve(merge, hierarchies(layers), contributionLeaf(k.Contributions))
	}
	if err == nil && !found {
		if lr := n.module(mod); lr != nil && lr.def != nil {
			dopts, derr := n.defaultOptions(mod, lr)
			if derr != nil {
				err = derr
			} else {
				dm, merr := dopts.mergeOf(name)
				if merr != nil {
					err = merr
				} else {
					k.DefaultMerge = dm
					fr := n.enter(name)
					k.Defaults = n.contributions(name, locs, true, layers)
					n.leave(fr)
					v, found, err = hiera.ResolveDefault(dm, lr.def, contributionLeaf(k.Defaults))
				}
			}
		}
	}
	if err == nil && found {
		// convert_to applies to the result, after merging (Puppet's
		// convert_result); Sensitive is applied by readers.
		if k.ConvertTo, err = n.optionsFor(mod).convertTo(name); err == nil {
			v, err = hiera.Convert(name, k.ConvertTo, v)
		}
	}
	if err != nil {
		k.Err = n.position(asFormatError(err), k, layers)
		return k, k.Err
	}
	if !found {
		return nil, nil
	}
	k.Value = v
	return k, nil
}

// keyLoc is a location a key's contribution comes from: a data file that
// holds the key (entry idx), or that failed to load (idx -1).
type keyLoc struct {
	layer      format.Layer
	def        bool // in the module's default_hierarchy
	level, loc int
	df         *dataFile
	idx        int
}

// locsOf lists the locations of a key's layers that hold it or fail to
// load, in order: the locations a lookup of the key reads something from.
func (n *nodeRun) locsOf(name string, layers [3]*layerRun) []keyLoc {
	var out []keyLoc
	add := func(layer format.Layer, def bool, files [][]*dataFile) {
		for li, lvl := range files {
			for fi, df := range lvl {
				if df == nil {
					continue
				}
				idx := -1
				if df.err == nil {
					i, ok := df.index[name]
					if !ok {
						continue
					}
					idx = i
				}
				out = append(out, keyLoc{layer, def, li, fi, df, idx})
			}
		}
	}
	for li, lr := range layers {
		if lr != nil && lr.hier.Present && lr.err == nil {
			add(format.Layer(li), false, lr.files)
			if li == int(format.LayerModule) {
				add(format.LayerModule, true, lr.defFiles)
			}
		}
	}
	return out
}

// contributions reads a key from its locations in the hierarchies, or in
// the module's default_hierarchy when def is set.
func (n *nodeRun) contributions(name string, locs []keyLoc, def bool, layers [3]*layerRun) []format.Contribution {
	count := 0
	for _, l := range locs {
		if l.def == def {
			count++
		}
	}
	if count == 0 {
		return nil
	}
	out := make([]format.Contribution, 0, count)
	for _, l := range locs {
		if l.def != def {
			continue
		}
		h := &layers[l.layer].hier
		if def {
			h = layers[l.layer].def
		}
		c := format.Contribution{Layer: l.layer, Level: l.level, Location: l.loc}
		var err error
		if l.idx < 0 {
			err = l.df.err
		} else {
			c.Line, c.Column = l.df.pos[l.idx].Line, l.df.pos[l.idx].Column
			c.Value, err = n.readEntry(l.df, l.idx, h.Levels[l.level].Name)
		}
		if err != nil {
			c.Value = nil
			c.Err = asFormatError(err)
		}
		out = append(out, c)
	}
	return out
}

// contributionLeaf answers the merge driver from recorded contributions.
func contributionLeaf(cs []format.Contribution) hiera.Leaf {
	return func(layer format.Layer, level, loc int) (any, bool, error) {
		for i := range cs {
			c := &cs[i]
			if c.Layer == layer && c.Level == level && c.Location == loc {
				if c.Err != nil {
					return nil, false, c.Err
				}
				return c.Value, true, nil
			}
		}
		return nil, false, nil
	}
}

// position gives a key error the place it arose. An error read from a
// location already names its file; it gets the level of the contribution
// that failed. Any other error (a merge that failed, say) gets the place
// of the highest-priority contribution.
func (n *nodeRun) position(err *format.Error, k *format.Key, layers [3]*layerRun) *format.Error {
	e := *err
	cs, useDefault := k.Contributions, false
	if len(cs) == 0 {
		cs, useDefault = k.Defaults, true
	}
	for _, c := range cs {
		if e.File != "" && (c.Err == nil || c.Err.Message != e.Message) {
			continue // not the contribution that failed
		}
		lr := layers[c.Layer]
		if lr == nil {
			break
		}
		h := &lr.hier
		if useDefault && lr.def != nil {
			h = lr.def
		}
		if c.Level < len(h.Levels) {
			lvl := h.Levels[c.Level]
			e.Level = lvl.Name
			if e.File == "" && c.Location < len(lvl.Locations) {
				e.File = lvl.Locations[c.Location].Path
				e.Line, e.Column = c.Line, c.Column
			}
		}
		break
	}
	return &e
}
