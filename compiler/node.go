package compiler

// Stage: compile one node. nodeStages is the whole per-node pipeline, in
// order; the steps of this file are below it, and the stages it calls
// live in the files the package doc lists.

import (
	"crypto/sha256"
	"encoding/hex"
	"hash"
	"strconv"
	"time"

	"github.com/hieracc/hieracc/compiler/diagnostics"
	"github.com/hieracc/hieracc/compiler/internal/canon"
	"github.com/hieracc/hieracc/compiler/internal/share"
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
	{"options", func(s *nodeStep) bool { s.b.Options = s.n.opts.optionScopes(s.modErr); return true }},
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
func (c *compilation) compileNode(w *worker, node Node) (*format.Bundle, []diagnostics.Diagnostic) {
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
	for _, df := range n.share.own {
		if n.c.release(df) {
			n.w.share.Stats.Released++
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
		Global:         hierarchyOf(n.layers.global),
		Env:            hierarchyOf(n.layers.env),
	}
	if b.Revision == "" {
		b.Revision = n.revision()
	}
	return b
}

// report records a key's (or the node's, or a module's) error.
// An eyaml level's keys that cannot be used are reported once for the
// level, and ciphertexts are not quoted whole (eyaml.go).
func (n *nodeRun) report(err *format.Error, key string) {
	if d, ok := n.c.keys.keysFailure(err.Message); ok {
		d.Node = n.node.Name
		n.diags = append(n.diags, d)
		return
	}
	n.diags = append(n.diags, diagnostics.Diagnostic{Pos: err.Pos,
		Level: err.Level, Node: n.node.Name, Key: key, Message: shortenEncrypted(err.Message)})
}

// checkOptions assembles the node's lookup_options, and each module's:
// every lookup first reads them from every level, so a failure is the
// node's error, or every key of a module fails. It adds the modules to b
// and returns the modules that failed.
func (n *nodeRun) checkOptions(b *format.Bundle) map[string]bool {
	if _, err := n.opts.envOptions(); err != nil {
		b.NodeError = err
		n.report(err, "")
	}
	modErr := map[string]bool{}
	for _, name := range n.c.moduleNames {
		lr := n.layers.module(name)
		if lr == nil {
			continue
		}
		m := format.Module{Name: name, Hierarchy: lr.hier, Default: lr.def}
		if b.NodeError == nil {
			if _, err := n.opts.moduleOptions(name); err != nil {
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
// of failed modules, in order. Unless sharing is off (Input.NoSharing),
// share.Keys does it, reusing other nodes' results where they hold: the
// bundles are the same.
func (n *nodeRun) compileKeys(modErr map[string]bool) []format.Key {
	// keyTested is what each compiled key tested against the lookup
	// stack: nested lookups of a compiled key reuse it (see lookup).
	n.keyTested = n.w.keyTested[:0]
	defer func() { n.w.keyTested = n.keyTested[:0] }()
	if !n.w.share.Off {
		return n.share.Keys(modErr)
	}
	names := n.keyNames(nil)
	n.keys = make([]format.Key, 0, len(names))
	for _, name := range names {
		mod := hiera.ModuleOf(name)
		if mod != "" && modErr[mod] {
			continue
		}
		n.stack.checks = n.stack.checks[:0]
		k, err := n.compileKey(name, mod, nil, nil, nil)
		if err != nil {
			n.report(err, name)
		}
		if k == nil {
			n.dropChecks()
			continue
		}
		n.keys = append(n.keys, *k)
	}
	return n.keys
}

// keyNames lists every key of every data file the node's hierarchies reach
// (those that keep allows, nil for all), sorted. Files are added lowest
// priority first, so nodes that share their common, OS and role files share
// the cached unions of those.
func (n *nodeRun) keyNames(keep func(*dataFile) bool) []string {
	var acc *share.KeyList
	add := func(files [][]*dataFile) {
		for i := len(files) - 1; i >= 0; i-- {
			for j := len(files[i]) - 1; j >= 0; j-- {
				if df := files[i][j]; df != nil && df.hash != nil && (keep == nil || keep(df)) {
					acc = n.w.share.Union(acc, df.id, df.keys)
				}
			}
		}
	}
	for _, name := range n.c.moduleNames {
		if lr := n.layers.module(name); lr != nil {
			add(lr.defFiles)
			add(lr.files)
		}
	}
	for _, lr := range []*layerRun{n.layers.env, n.layers.global} {
		if lr != nil {
			add(lr.files)
		}
	}
	if acc == nil {
		return nil
	}
	return acc.Keys
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
	w.revFacts = canon.Append(w.revFacts[:0], n.scope.vars)
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
	layer("", "global", n.layers.global)
	layer("", "environment", n.layers.env)
	for _, name := range n.c.moduleNames {
		layer("module ", name, n.layers.module(name))
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

func hierarchyOf(lr *layerRun) format.Hierarchy {
	if lr == nil {
		return format.Hierarchy{}
	}
	return lr.hier
}
