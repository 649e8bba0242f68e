package compiler

// Templates: the keys whose values read the node's name, the one part of
// sharing work across nodes that package share leaves to the compiler
// (Node.Template): it re-runs interpolation plans. A slot of a slice whose
// results read a per-node variable (trusted.certname, networking.hostname:
// share's slotKey finds it) is compiled by every node of its slice, yet
// most of that work is the same from one node to the next: the same data
// files, the same entries, the same strings interpolating the slice's
// facts (role, datacenter), only a few strings naming the node. So the
// slot keeps a template: the contributions one node read, and the
// variables it read doing so (a few templates, for the few values a
// variable such as an OS release takes in a slice). Another node whose
// variables give the same values, but for those naming the node (strings
// holding no "%{"), takes the template's contributions and writes again
// only the strings that name the node (rebindString), rebuilding the
// arrays and hashes on the way to them (a hash shares its keys with the
// data file's) and sharing everything else. Its key is then merged,
// converted and checked from those contributions exactly as any other
// (resolveTop): only reading the contributions is shortened, never the
// merge. A key whose value is its first contribution's (merged first
// found, nothing converted, no default_hierarchy: keyTmpl.first) is not
// merged at all: it is the template's key with the node's contributions.
//
// What makes reading them the same but for those strings: the entries read
// are the slot's (its locations), each string's expressions are fixed, a
// variable's value that holds no "%{" is inserted as it is (nothing is
// interpolated again, so the names tested are the template's), and a hash
// whose keys are interpolated on the way to a string naming the node (its
// keys could collide) never takes part. A template is not made from a
// compile that read a nested lookup (its answer may depend on the node),
// warned, failed, or read decrypted text.

import (
	"encoding/binary"
	"slices"
	"strings"

	"github.com/hieracc/hieracc/compiler/internal/canon"
	"github.com/hieracc/hieracc/compiler/internal/share"
	"github.com/hieracc/hieracc/format"
	"github.com/hieracc/hieracc/format/ruby"
)

// keyTmpl is a per-node slot's template (see the top of this file).
type keyTmpl struct {
	vars *tmplVars
	// checks are the names reading the contributions tested (see since).
	checks []string
	// cs are the contributions, by position in the slot's locs: another
	// node's are a copy, but for the values of those at bound.
	cs []format.Contribution
	// bound are the contributions whose values name the node.
	bound []tmplBound
	// first, when set, is the template's key but for its value and
	// contributions: its value is its first contribution's (see
	// firstFound), on every node.
	first *format.Key
}

// tmplBound is a template's contribution whose value names the node:
// rebind writes it again for each node.
type tmplBound struct {
	i    int // its position in keyTmpl.cs
	v    any // the entry's value, as its data file holds it
	plan *interpPlan
	at   site // the entry's, for the messages rebinding it gives
}

// tmplVars are the variables a template's contributions read, shared by
// the worker's templates that read the same (most read the node's name
// and a fact or two of the slice's): whether they hold on a node is found
// out once for all of them.
type tmplVars struct {
	same  []share.Dep // variables that must give the same value here
	node  []string    // variables naming the node: any string without "%{" will do
	at    uint64      // the node (share.Run.Serial) holds was found for
	holds bool
}

// maxTmplVars bounds the tmplVars a worker keeps, and maxTmplKey the
// length of their names and values.
const (
	maxTmplVars = 1 << 12
	maxTmplKey  = 512
)

// slotTemplates are a per-node slot's templates (the newest last, at most
// share.MaxVariants), how often one held and none did, and whether the
// slot gave up on templates.
type slotTemplates struct {
	tmpls        []*keyTmpl
	hits, misses int32
	off          bool
}

// Template compiles the key of a per-node slot j of t for this node, from
// one of the slot's templates that holds here (the newest first), or
// afresh, making a template of it when it can serve other nodes.
func (sh *nodeShare) Template(t *share.Table, j int, name, mod string) (*format.Key, *format.Error, *format.Key) {
	x := t.Ext.(*tableSlots)
	if x.tmpls == nil {
		x.tmpls = make([]slotTemplates, len(x.locs))
	}
	s, locs, pre := &x.tmpls[j], x.locs[j], &x.pre[j]
	if len(s.tmpls) > 0 {
		for i := len(s.tmpls) - 1; i >= 0; i-- {
			t := s.tmpls[i]
			rc := sh.fromTemplate(t, name)
			if rc == nil {
				continue
			}
			sh.w.share.Stats.Templated++
			s.hits++
			if t.first != nil {
				// The key is *t.first with the node's Value and
				// Contributions: only those are written in the worker's
				// key, the rest is taken from t.first (see Node.Template).
				k := &sh.w.key
				k.Contributions, k.Value = rc.cs, rc.cs[0].Value
				sh.n.setKeyChecks(t.checks)
				return k, nil, t.first
			}
			k, err := sh.n.compileKey(name, mod, locs, pre, rc)
			return k, err, nil
		}
		s.misses++
		if s.misses >= share.GiveUp && 4*s.hits < s.misses {
			s.off, s.tmpls = true, nil
		}
	}
	if s.off || !sh.templatable(locs, mod) {
		s.off = true
		k, err := sh.n.compileKey(name, mod, locs, pre, nil)
		return k, err, nil
	}
	k, err := sh.compileTemplate(s, name, mod, locs, pre)
	return k, err, nil
}

// templatable reports whether a key's contributions could come from a
// template, from what its locations are: every one an entry of a data
// file that loaded, neither invalid nor decrypted, no hash on the way to
// a string naming the node interpolating its keys (see rebindable), and
// no default_hierarchy in the key's module.
func (sh *nodeShare) templatable(locs []keyLoc, mod string) bool {
	if lr := sh.n.layers.module(mod); lr != nil && lr.def != nil {
		return false
	}
	for _, l := range locs {
		if l.def || l.idx < 0 {
			return false
		}
		df := l.df
		if df.invalid[l.idx] != "" || df.secret != nil && df.secret[l.idx] || !rebindable(df.plans[l.idx]) {
			return false
		}
	}
	return len(locs) > 0
}

// rebindable reports whether no hash along the plan's strings that name
// the node interpolates its keys.
func rebindable(p *interpPlan) bool {
	if !p.readsNode() {
		return true
	}
	for i, kp := range p.kids {
		if len(p.keys) > 0 && p.keys[i] || !rebindable(kp) {
			return false
		}
	}
	return true
}

// compileTemplate compiles the key of a per-node slot s as compileKey
// does, recording what reading its contributions read, and makes them the
// slot's template when it can serve other nodes.
func (sh *nodeShare) compileTemplate(s *slotTemplates, name, mod string, locs []keyLoc, pre *keyPre) (*format.Key, *format.Error) {
	layers := sh.n.layers.of(mod)
	rc := &readContribs{mark: len(sh.n.stack.checks)}
	outer := sh.n.secret
	sh.n.secret = false
	sh.Capture()
	aliases := sh.n.interp.aliases
	fr := sh.n.stack.enter(name)
	rc.cs = sh.n.contributions(name, locs, false, layers)
	sh.n.stack.leave(fr)
	deps, warns := sh.Captured()
	rc.secret, sh.n.secret = sh.n.secret, outer
	var t *keyTmpl
	if !rc.secret && len(warns) == 0 && sh.n.interp.aliases == aliases && len(rc.cs) == len(locs) {
		if t = sh.newTemplate(rc, deps, locs, layers); t != nil {
			if len(s.tmpls) >= share.MaxVariants {
				s.tmpls = s.tmpls[1:]
			}
			s.tmpls = append(s.tmpls, t)
		}
	}
	k, err := sh.n.compileKey(name, mod, locs, pre, rc)
	if t != nil && firstFound(k, err) && slices.Equal(sh.n.testedOf(len(sh.n.keys)), t.checks) {
		first := *k
		first.Contributions, first.Value = nil, nil
		t.first = &first
	}
	return k, err
}

// firstFound reports whether a key compiled without error (from
// templatable locations) has its first contribution's value: merged first
// found, nothing converted or asked. The value must be that
// contribution's own, not an equal one.
func firstFound(k *format.Key, err *format.Error) bool {
	if k == nil || err != nil || k.Err != nil || !k.Merge.Strategy.IsFirst() ||
		k.ConvertTo != nil || k.Defaults != nil || k.Asked != nil || k.Secret || len(k.Contributions) == 0 {
		return false
	}
	switch v := k.Contributions[0].Value.(type) {
	case []any:
		kv, ok := k.Value.([]any)
		return ok && len(kv) == len(v) && (len(v) == 0 || &kv[0] == &v[0])
	case *format.Hash:
		kv, ok := k.Value.(*format.Hash)
		return ok && kv == v
	case string:
		kv, ok := k.Value.(string)
		return ok && sameString(kv, v)
	}
	return k.Value == k.Contributions[0].Value
}

// newTemplate makes a template of contributions read from locs (in
// layers) with the reads deps, nil when another node could not take them
// (see the top of this file).
func (sh *nodeShare) newTemplate(rc *readContribs, deps []share.Dep, locs []keyLoc, layers [3]*layerRun) *keyTmpl {
	for _, c := range rc.cs {
		if c.Err != nil {
			return nil
		}
	}
	// The variables first: a key that looked another up never has a
	// template, and is told so before anything is made for it.
	b := sh.w.tmplKey[:0]
	var same []share.Dep
	var node []string
	for _, d := range deps {
		if d.Lookup || d.Err != "" || needsInterpolation(d.Value) {
			return nil
		}
		if nodeExpr(d.Name) {
			if _, isStr := d.Value.(string); !isStr {
				return nil
			}
			if !slices.Contains(node, d.Name) {
				node = append(node, d.Name)
				b = append(binary.AppendUvarint(append(b, 'n'), uint64(len(d.Name))), d.Name...)
			}
			continue
		}
		if !slices.ContainsFunc(same, func(o share.Dep) bool { return o.Name == d.Name }) {
			same = append(same, d)
			b = append(binary.AppendUvarint(append(b, 's'), uint64(len(d.Name))), d.Name...)
			b = canon.Append(b, d.Value)
		}
	}
	sh.w.tmplKey = b
	t := &keyTmpl{checks: sh.w.testedList(sh.n.stack.checks[rc.mark:]), cs: slices.Clone(rc.cs)}
	for i, l := range locs {
		if df := l.df; df.bound[l.idx] {
			t.bound = append(t.bound, tmplBound{i: i, v: df.hash.Value(l.idx), plan: df.plans[l.idx],
				at: site{df.pos[l.idx].In(df.path), layers[l.layer].hier.Levels[l.level].Name}})
		}
	}
	if t.vars = sh.w.tmplVars[string(b)]; t.vars == nil {
		t.vars = &tmplVars{same: same, node: node}
		if len(sh.w.tmplVars) < maxTmplVars && len(b) <= maxTmplKey {
			if sh.w.tmplVars == nil {
				sh.w.tmplVars = map[string]*tmplVars{}
			}
			sh.w.tmplVars[string(b)] = t.vars
		}
	}
	return t
}

// holdFor reports whether the variables give what a template needs on
// this node, found out once per node.
func (sh *nodeShare) holdFor(vs *tmplVars) bool {
	if vs.at == sh.Serial() {
		return vs.holds
	}
	vs.at, vs.holds = sh.Serial(), true
	sh.Silence(1) // an undefined variable warns where the key is compiled
	for _, d := range vs.same {
		if v, err := sh.n.interp.scopeValue(d.Name, d.Name); err != nil || !format.Identical(v, d.Value) {
			vs.holds = false
			break
		}
	}
	for _, name := range vs.node {
		if !vs.holds {
			break
		}
		v, err := sh.n.interp.scopeValue(name, name)
		str, isStr := v.(string)
		vs.holds = err == nil && isStr && !strings.Contains(str, "%{")
	}
	sh.Silence(-1)
	return vs.holds
}

// fromTemplate reads the contributions of the key named name from its
// slot's template t, nil when t does not hold for this node (a variable
// it read gives another value here) or a string naming the node fails to
// interpolate (the key is then compiled as usual, which reports it).
// What it returns is the worker's until its next call.
func (sh *nodeShare) fromTemplate(t *keyTmpl, name string) *readContribs {
	if !sh.holdFor(t.vars) {
		return nil
	}
	rc := &sh.w.rc
	*rc = readContribs{mark: len(sh.n.stack.checks)}
	cs := append(sh.w.contributionsBuf(len(t.cs)), t.cs...)
	saved := sh.n.interp.at
	fr := sh.n.stack.enter(name)
	ok := true
	for _, b := range t.bound {
		sh.n.interp.at = b.at
		if cs[b.i].Value, ok = sh.rebind(b.v, b.plan, cs[b.i].Value); !ok {
			break
		}
	}
	sh.n.stack.leave(fr)
	sh.n.interp.at = saved
	if !ok {
		sh.n.stack.checks = sh.n.stack.checks[:rc.mark]
		return nil
	}
	// The names tested are the template's (rebinding tested some of them).
	sh.n.stack.checks = append(sh.n.stack.checks[:rc.mark], t.checks...)
	rc.cs = cs
	return rc
}

// rebindString is interpolateExprs for a string naming the node, on a
// node where its template holds (holdFor): every variable it reads has
// been read for this node (scopeMemo) and holds no "%{", so an
// expression inserts its value's text (ruby.ToS) and nothing is
// interpolated again (the names it would test are the template's). It
// reports false where interpolateExprs has more to do (a method other
// than scope() and literal(), a literal holding "%{", a variable not read,
// a string too long, a "%{" never closed): the caller then interpolates the
// string as usual.
func (sh *nodeShare) rebindString(s string, exprs []interpExpr) (any, bool) {
	var buf [8]string
	texts := buf[:0]
	size, last := 0, 0
	for _, e := range exprs {
		size += e.start - last
		last = e.end
		var v any
		if c := e.call; c != nil {
			switch {
			case c.method == "literal" && !strings.Contains(c.arg, "%{"):
				v = c.arg
			case c.method == "scope":
				var read bool
				if v, read = sh.n.interp.scopeMemo[c.arg]; !read {
					return nil, false
				}
			default:
				return nil, false
			}
		}
		if _, isStr := v.(string); isStr && len(exprs) == 1 && e.start == 0 && e.end == len(s) {
			return v, true // the string is this expression (see interpolateExprs)
		}
		text := ""
		if v != nil {
			if _, isStr := v.(string); !isStr && inspectSize(v, maxInterpolated) > maxInterpolated {
				return nil, false
			}
			text = ruby.ToS(v)
		}
		if size += len(text); size > maxInterpolated {
			return nil, false
		}
		texts = append(texts, text)
	}
	if strings.Contains(s[last:], "%{") {
		return nil, false
	}
	return joinTexts(s, exprs, texts, size+len(s)-last), true
}

// anys returns room for n values, cut from the worker's block: the arrays
// and hash values rebind makes live as long as their node's bundle, so a block is let go
// soon after its last node (a large array has memory of its own).
func (w *worker) anys(n int) []any {
	if n > anyBlock/8 {
		return make([]any, n)
	}
	if cap(w.anyBlock)-len(w.anyBlock) < n {
		w.anyBlock = make([]any, 0, anyBlock)
	}
	i := len(w.anyBlock)
	w.anyBlock = w.anyBlock[:i+n]
	return w.anyBlock[i : i+n : i+n]
}

// anyBlock is the size of the worker's blocks of values (see anys).
const anyBlock = 512

// rebind is interpolatePlanned for a value whose interpolation for
// another node gave t: the strings that name the node are interpolated
// again, the arrays and hashes holding them rebuilt, and all else taken
// from t (a container's elements are t's but for its plan's nodeKids).
// It reports false when a string fails to interpolate or t is not of v's
// shape.
func (sh *nodeShare) rebind(v any, p *interpPlan, t any) (any, bool) {
	if !p.readsNode() {
		return t, true
	}
	switch v := v.(type) {
	case string:
		x, ok := sh.rebindString(v, p.exprs)
		if !ok {
			var err error
			x, err = sh.n.interp.interpolateExprs(v, p.exprs, true)
			ok = err == nil
		}
		return x, ok
	case []any:
		tv, ok := t.([]any)
		if !ok || len(tv) != len(v) {
			return nil, false
		}
		out := sh.w.anys(len(v))
		copy(out, tv)
		for _, i := range p.nodeKids {
			if out[i], ok = sh.rebind(v[i], p.kids[i], tv[i]); !ok {
				return nil, false
			}
		}
		return out, true
	case *format.Hash:
		th, ok := t.(*format.Hash)
		if !ok || th.Len() != v.Len() {
			return nil, false
		}
		vals := sh.w.anys(v.Len())
		for i := range vals {
			vals[i] = th.Value(i)
		}
		for _, i := range p.nodeKids {
			if vals[i], ok = sh.rebind(v.Value(int(i)), p.kids[i], vals[i]); !ok {
				return nil, false
			}
		}
		// Its keys are v's, as interpolated (rebindable): shared, as its
		// values are with other nodes, never changed.
		return v.WithValues(vals), true
	}
	return nil, false
}
