package bundlediff

// Stage: show a changed array whole. Element-level changes of a list
// (/0 changed, /3 added...) say little on their own, and the same edit
// reads differently on nodes whose lists differ elsewhere; a reviewer
// wants the old list beside the new one. So the changes inside an array
// become one change at the array, whose sides hold the whole old and new
// arrays and whose Parts are the element-level changes.

import (
	"strings"

	"github.com/hieracc/hieracc/format"
)

// maxReorderCheck bounds the elements compared to tell an order-only
// change of an array (the check is quadratic).
const maxReorderCheck = 4096

// wholeChanges rewrites the changes of key name (cs, as diffKey found
// them; o and n are the key on each side) so that every change inside an
// array is a part of one change of the outermost array on its path. An
// array holding the same elements in another order is a Reordered change;
// with ignoreOrder, such changes and hash key order changes are left out.
func wholeChanges(name string, od *format.Bundle, o *format.Key, nd *format.Bundle, n *format.Key, cs []Change, ignoreOrder bool) []Change {
	if o == nil || n == nil || o.Err != nil || n.Err != nil || o.Sealed || n.Sealed {
		return cs
	}
	var out []Change
	at := map[string]int{} // an array's pointer: its change's index in out
	for _, c := range cs {
		if ignoreOrder && c.Kind == Reordered {
			continue
		}
		toks := tokens(c.Path)
		k := arrayOnPath(o.Value, n.Value, toks)
		if k < 0 {
			out = append(out, c)
			continue
		}
		p := pointer(toks[:k])
		if i, ok := at[p]; ok {
			out[i].Parts = append(out[i].Parts, c)
			continue
		}
		ov, _ := walk(o.Value, toks[:k])
		nv, _ := walk(n.Value, toks[:k])
		w := Change{Key: name, Path: p, Kind: Changed,
			Old:   &Side{Value: ov, Sources: sources(od, o, toks[:k], ov)},
			New:   &Side{Value: nv, Sources: sources(nd, n, toks[:k], nv)},
			Parts: []Change{c}}
		if sameElements(ov, nv) {
			w.Kind = Reordered
		}
		at[p] = len(out)
		out = append(out, w)
	}
	for _, c := range out {
		sortChanges(c.Parts)
	}
	if ignoreOrder {
		kept := out[:0]
		for _, c := range out {
			if c.Kind != Reordered {
				kept = append(kept, c)
			}
		}
		out = kept
	}
	return out
}

// arrayOnPath is the number of tokens of path that lead to the first
// array the path goes into (in either value), or -1 when it goes into
// none.
func arrayOnPath(a, b any, path []string) int {
	for i, tok := range path {
		_, aa := a.([]any)
		_, ba := b.([]any)
		if aa || ba {
			return i
		}
		a, _ = child1(a, tok)
		b, _ = child1(b, tok)
	}
	return -1
}

// walk follows hash keys from v along path.
func walk(v any, path []string) (any, bool) {
	for _, tok := range path {
		var ok bool
		if v, ok = child1(v, tok); !ok {
			return nil, false
		}
	}
	return v, true
}

// child1 is the entry of hash v whose key's token is tok.
func child1(v any, tok string) (any, bool) {
	h, ok := v.(*format.Hash)
	if !ok {
		return nil, false
	}
	for i := range h.Len() {
		if keyToken(h.Key(i)) == tok {
			return h.Value(i), true
		}
	}
	return nil, false
}

// tokens splits a JSON Pointer into its unescaped tokens.
func tokens(p string) []string {
	if p == "" {
		return nil
	}
	ts := strings.Split(p[1:], "/")
	for i, t := range ts {
		ts[i] = strings.ReplaceAll(strings.ReplaceAll(t, "~1", "/"), "~0", "~")
	}
	return ts
}

// sameElements reports whether two arrays hold the same elements (as many
// of each), in any order.
func sameElements(a, b any) bool {
	x, ok1 := a.([]any)
	y, ok2 := b.([]any)
	if !ok1 || !ok2 || len(x) != len(y) || len(x) > maxReorderCheck {
		return false
	}
	used := make([]bool, len(y))
next:
	for _, e := range x {
		for j, f := range y {
			if !used[j] && format.Identical(e, f) {
				used[j] = true
				continue next
			}
		}
		return false
	}
	return true
}
