package compiler

// Templates: the keys whose values read the node's name. Package share
// keeps a slice's templates and tells which holds on a node (its
// templates.go); reading one's contributions for another node re-runs
// interpolation plans, which is the compiler's: this file
// (Node.Templatable, CompileTemplate, FromTemplate). A slot of a slice
// whose results read a per-node variable (trusted.certname,
// networking.hostname) is compiled by every node of its slice, yet most of
// that work is the same from one node to the next: the same data files,
// the same entries, the same strings interpolating the slice's facts
// (role, datacenter), only a few strings naming the node. So the slot
// keeps a template: the contributions one node read, and the variables it
// read doing so (a few templates, for the few values a variable such as an
// OS release takes in a slice). Another node whose variables give the same
// values, but for those naming the node (strings holding no "%{"), takes
// the template's contributions and writes again only the strings that name
// the node (rebindString), rebuilding the arrays and hashes on the way to
// them (a hash shares its keys with the data file's) and sharing
// everything else. Its key is then merged, converted and checked from
// those contributions exactly as any other (resolveTop): only reading the
// contributions is shortened, never the merge. A key whose value is its
// first contribution's (merged first found, nothing converted, no
// default_hierarchy: share.Template.First) is not merged at all: it is the
// template's key with the node's contributions.
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
	"slices"
	"strings"

	"github.com/hieracc/hieracc/compiler/internal/share"
	"github.com/hieracc/hieracc/format"
	"github.com/hieracc/hieracc/format/ruby"
)

// keyTmpl is a template: share's, and the compiler's part of it
// (share.Template.Ext is the keyTmpl).
type keyTmpl struct {
	share.Template
	// cs are the contributions, by position in the slot's locs: another
	// node's are a copy, but for the values of those at bound.
	cs []format.Contribution
	// bound are the contributions whose values name the node.
	bound []tmplBound
}

// tmplBound is a template's contribution whose value names the node:
// rebind writes it again for each node.
type tmplBound struct {
	i    int // its position in keyTmpl.cs
	v    any // the entry's value, as its data file holds it
	plan *interpPlan
	at   site // the entry's, for the messages rebinding it gives
}

// Templatable reports whether a per-node slot's key could have a
// template (see templatable).
func (sh *nodeShare) Templatable(t *share.Table, j int, mod string) bool {
	return sh.templatable(t.Ext.(*tableSlots).locs[j], mod)
}

// FromTemplate compiles a per-node slot's key from its template tm: the
// contributions are the template's, those naming the node written again
// (fromTemplate); the key is then compiled from them, or, when tm.First
// is set, is tm.First with them (only the worker key's Value and
// Contributions are written).
func (sh *nodeShare) FromTemplate(t *share.Table, j int, name, mod string, tm *share.Template) (*format.Key, *format.Error, bool) {
	rc := sh.fromTemplate(tm, name)
	if rc == nil {
		return nil, nil, false
	}
	if tm.First != nil {
		k := &sh.w.key
		k.Contributions, k.Value = rc.cs, rc.cs[0].Value
		sh.n.setKeyChecks(tm.Checks)
		return k, nil, true
	}
	x := t.Ext.(*tableSlots)
	k, err := sh.n.compileKey(name, mod, x.locs[j], &x.pre[j], rc)
	return k, err, true
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

// CompileTemplate compiles a per-node slot's key as compileKey does,
// recording what reading its contributions read, and makes them a
// template when it can serve other nodes.
func (sh *nodeShare) CompileTemplate(t *share.Table, j int, name, mod string) (*format.Key, *format.Error, *share.Template) {
	x := t.Ext.(*tableSlots)
	locs, pre := x.locs[j], &x.pre[j]
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
	var tm *share.Template
	if !rc.secret && len(warns) == 0 && sh.n.interp.aliases == aliases && len(rc.cs) == len(locs) {
		tm = sh.newTemplate(rc, deps, locs, layers)
	}
	k, err := sh.n.compileKey(name, mod, locs, pre, rc)
	if tm != nil && firstFound(k, err) && slices.Equal(sh.n.testedOf(len(sh.n.keys)), tm.Checks) {
		first := *k
		first.Contributions, first.Value = nil, nil
		tm.First = &first
	}
	return k, err, tm
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
// (see share.Run.TemplateVars, and the top of this file).
func (sh *nodeShare) newTemplate(rc *readContribs, deps []share.Dep, locs []keyLoc, layers [3]*layerRun) *share.Template {
	for _, c := range rc.cs {
		if c.Err != nil {
			return nil
		}
	}
	// The variables first: a key that looked another up never has a
	// template, and is told so before anything is made for it.
	vars := sh.TemplateVars(deps, nodeExpr, needsInterpolation)
	if vars == nil {
		return nil
	}
	t := &keyTmpl{cs: slices.Clone(rc.cs)}
	t.Template = share.Template{Vars: vars, Checks: sh.w.testedList(sh.n.stack.checks[rc.mark:]), Ext: t}
	for i, l := range locs {
		if df := l.df; df.bound[l.idx] {
			t.bound = append(t.bound, tmplBound{i: i, v: df.hash.Value(l.idx), plan: df.plans[l.idx],
				at: site{df.pos[l.idx].In(df.path), layers[l.layer].hier.Levels[l.level].Name}})
		}
	}
	return &t.Template
}

// fromTemplate reads the contributions of the key named name from its
// slot's template tm, whose variables hold on this node, nil when a
// string naming the node fails to interpolate (the key is then compiled
// as usual, which reports it). What it returns is the worker's until its
// next call.
func (sh *nodeShare) fromTemplate(tm *share.Template, name string) *readContribs {
	t := tm.Ext.(*keyTmpl)
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
	sh.n.stack.checks = append(sh.n.stack.checks[:rc.mark], tm.Checks...)
	rc.cs = cs
	return rc
}

// rebindString is interpolateExprs for a string naming the node, on a
// node where its template holds (share's holdFor): every variable it reads has
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
