package share

// Templates: the keys whose values read the node's name. A slot whose
// results read a per-node variable (slot.perNode: trusted.certname,
// networking.hostname) is compiled by every node of its slice, yet most
// of that work is the same from one node to the next: the same entries,
// the same strings interpolating the slice's facts (role, datacenter),
// only a few strings naming the node. So the slot keeps a template of
// what one node read (a few templates, for the few values a variable such
// as an OS release takes in a slice), with the variables it read doing
// so. Another node whose variables give the same values, but for those
// naming the node (strings holding no "%{"), has its key's contributions
// read from the template (Node.FromTemplate: the compiler writes again
// only the strings naming the node, compiler/template.go). Only reading
// the contributions is shortened, never the merge.

import (
	"encoding/binary"
	"slices"
	"strings"

	"github.com/hieracc/hieracc/compiler/internal/canon"
	"github.com/hieracc/hieracc/format"
)

// Template is a per-node slot's template: what one node's compile of the
// key read, for the nodes of its slice whose variables give what it needs.
type Template struct {
	// Vars are the variables reading the contributions read (see
	// Run.TemplateVars).
	Vars *TemplateVars
	// Checks are the names reading the contributions tested.
	Checks []string
	// First, when set, is the key the template's node compiled but for its
	// Value and Contributions: its value is its first contribution's, on
	// every node (see Node.FromTemplate).
	First *format.Key
	// Ext is the compiler's (it holds the Template): the contributions
	// read, and how to write again those that name the node.
	Ext any
}

// TemplateVars are the variables a template's contributions read, shared
// by the worker's templates that read the same (most read the node's name
// and a fact or two of the slice's): whether they hold on a node is found
// out once for all of them.
type TemplateVars struct {
	same  []Dep  // variables that must give the same value here
	node  []Dep  // variables naming the node: any string without "%{" will do
	at    uint64 // the node (Run.serial) holds was found for
	holds bool
}

// maxTmplVars bounds the TemplateVars a worker keeps.
const maxTmplVars = 1 << 12

// TemplateVars returns the variables of a template of contributions whose
// reading read deps (the worker's, shared), nil when another node could
// not take them: they looked a key up (its answer may depend on the
// node), a read failed, or a variable's value would be interpolated again
// (interpolates); a variable naming the node (namesNode) must have a
// string value, which other nodes replace with theirs.
func (r *Run) TemplateVars(deps []Dep, namesNode func(expr string) bool, interpolates func(v any) bool) *TemplateVars {
	w := r.w
	b := w.tmplKey[:0]
	var same, node []Dep
	for _, d := range deps {
		if d.Lookup || d.Err != "" || interpolates(d.Value) {
			return nil
		}
		if namesNode(d.Name) {
			if _, isStr := d.Value.(string); !isStr {
				return nil
			}
			if !slices.ContainsFunc(node, func(o Dep) bool { return o.Name == d.Name }) {
				node = append(node, Dep{Name: d.Name})
				b = append(binary.AppendUvarint(append(b, 'n'), uint64(len(d.Name))), d.Name...)
			}
			continue
		}
		if !slices.ContainsFunc(same, func(o Dep) bool { return o.Name == d.Name }) {
			same = append(same, d)
			b = append(binary.AppendUvarint(append(b, 's'), uint64(len(d.Name))), d.Name...)
			b = canon.Append(b, d.Value)
		}
	}
	w.tmplKey = b
	if vs := w.tmplVars[string(b)]; vs != nil {
		return vs
	}
	vs := &TemplateVars{same: same, node: node}
	if len(w.tmplVars) < maxTmplVars && len(b) <= maxVarSetKey {
		if w.tmplVars == nil {
			w.tmplVars = map[string]*TemplateVars{}
		}
		w.tmplVars[string(b)] = vs
	}
	return vs
}

// holdFor reports whether the variables give what a template needs on
// this node, found out once per node.
func (r *Run) holdFor(vs *TemplateVars) bool {
	if vs.at == r.serial {
		return vs.holds
	}
	vs.at, vs.holds = r.serial, true
	r.quiet++ // an undefined variable warns where the key is compiled
	for i := range vs.same {
		d := &vs.same[i]
		if v, err := r.n.Reread("", d); err != nil || !format.Identical(v, d.Value) {
			vs.holds = false
			break
		}
	}
	for i := range vs.node {
		if !vs.holds {
			break
		}
		v, err := r.n.Reread("", &vs.node[i])
		str, isStr := v.(string)
		vs.holds = err == nil && isStr && !strings.Contains(str, "%{")
	}
	r.quiet--
	return vs.holds
}

// perNodeKey compiles the key of a per-node slot j of t for this node:
// from one of the slot's templates that holds here (the newest first), or
// afresh, making a template of it when it can serve other nodes. A slot
// whose templates seldom hold gives up on them (see GiveUp), as does one
// whose key cannot have one (Node.Templatable).
func (r *Run) perNodeKey(t *Table, j int, name string) (*format.Key, *format.Error, *format.Key) {
	s := &t.slots[j]
	if len(s.tmpls) > 0 {
		for i := len(s.tmpls) - 1; i >= 0; i-- {
			tm := s.tmpls[i]
			if !r.holdFor(tm.Vars) {
				continue
			}
			k, err, ok := r.n.FromTemplate(t, j, name, s.mod, tm)
			if !ok {
				continue
			}
			r.w.Stats.Templated++
			s.tmplHits++
			return k, err, tm.First
		}
		s.tmplMisses++
		if s.tmplMisses >= GiveUp && 4*s.tmplHits < s.tmplMisses {
			s.tmplOff, s.tmpls = true, nil
		}
	}
	if s.tmplOff || !r.n.Templatable(t, j, s.mod) {
		s.tmplOff = true
		k, err := r.n.CompileSlot(t, j, name, s.mod, false)
		return k, err, nil
	}
	k, err, tm := r.n.CompileTemplate(t, j, name, s.mod)
	if tm != nil {
		if len(s.tmpls) >= MaxVariants {
			s.tmpls = s.tmpls[1:]
		}
		s.tmpls = append(s.tmpls, tm)
	}
	return k, err, nil
}
