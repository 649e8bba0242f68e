package share

// The keys stage with sharing: a node's keys compiled from the results of
// other nodes where they hold, and written into the memory of the last
// node's keys.

import (
	"slices"

	"github.com/hieracc/hieracc/format"
	"github.com/hieracc/hieracc/format/hiera"
)

// Keys compiles every key of the node but those of the modules that
// failed (modErr), in order, sharing work across nodes: the keys of the
// node's slice take the slot's result when it holds on the node (a static
// one is copied as is), the others are compiled through the worker's
// results (see generalKey). It gives the keys the node's stages give
// without sharing, in the same order, in the node's KeyList.
func (r *Run) Keys(modErr map[string]bool) []format.Key {
	w := r.w
	keys := r.n.KeyList()
	// Keys are walked in order; the slice's keys are a subset of the
	// node's, so a second cursor finds each key's slot without a lookup.
	var names, shared, delta []string
	t, delta := r.slice()
	if t != nil {
		w.Stats.Slices++
		r.delta = delta
		t.countRuns()
		shared = t.Keys
		var built bool
		names, w.deltaAt, built = placeDelta(w.names, w.deltaAt, shared, delta)
		if built {
			w.names = names
		}
	} else {
		w.Stats.NoSlice++
		names = r.n.KeyNames(false)
	}
	if w.ReuseKeys {
		*keys = slices.Grow(w.keyBuf[:0], len(names))
		w.markKeys(*keys, t)
	} else {
		*keys = make([]format.Key, 0, len(names))
	}
	j, d := 0, 0
	// stop is where the next key of a per-node file (delta[stopFor])
	// would sit among the slice's keys: static runs end before it.
	stop, stopFor := 0, -1
	for i := 0; i < len(names); i++ {
		name := names[i]
		r.n.BeginKey()
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
			if n := t.staticRun(slot, stop); n > 0 {
				w.appendStatics(keys, t, slot, n)
				w.Stats.Static += n
				i, j = i+n-1, slot+n
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
		var k, from *format.Key
		var err *format.Error
		switch {
		case slot >= 0:
			k, err, from = r.slotKey(t, slot, name)
		case t != nil && own >= 0:
			// A per-node file holds the key, and so do the slice's: its
			// options are the slot's, and its locations the slot's and
			// the per-node files'.
			w.Stats.General++
			k, err = r.n.CompileSlot(t, own, name, mod, true)
		case t != nil:
			// A per-node file holds the key: its signature names that
			// file, which no other node reaches (or one loaded again, under
			// another id, once released): no result to look for or keep.
			w.Stats.General++
			k, err = r.n.Compile(name, mod)
		default:
			w.Stats.General++
			k, err = r.generalKey(name, mod)
		}
		if err != nil {
			r.n.Report(err, name)
		}
		if k != nil {
			w.appendKey(keys, k, from)
		} else {
			r.n.DropChecks()
		}
	}
	return *keys
}

// generalKey compiles a key, or reuses the result of a node whose data
// for the key lies in the same files, at the same places, and whose reads
// (variables, nested lookups) give the same answers. The result is kept
// for other nodes.
func (r *Run) generalKey(name, mod string) (*format.Key, *format.Error) {
	sig, ok := r.n.KeySig(name, mod)
	if !ok {
		return r.n.Compile(name, mod)
	}
	h := hashSig(name, sig)
	e, reused, k, err := r.findOrCompile(name, mod, sig, h, nil, 0)
	if e != nil && !reused {
		r.w.remember(h, sig, e)
	}
	return k, err
}

// KeepKeys gives the worker the memory of the node's keys back once the
// bundle holding them is done with (compiler.Input.Emit): the next node writes its
// keys there, most of them found in place.
func (w *Worker) KeepKeys(keys []format.Key) {
	if keys != nil { // (a node that failed wrote none)
		w.keyBuf = keys[:0]
	}
}

// markKeys makes w.keyMarks describe keys, the memory (w.keyBuf, grown) a
// node whose slice table is t (nil for none) writes its keys in: what
// it held for the last node holds still, if that memory and table are the
// last node's.
func (w *Worker) markKeys(keys []format.Key, t *Table) {
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

// Marks of Worker.keyMarks for positions holding *keyFrom[p] (keptMark),
// or *keyFrom[p] but for its Value and Contributions (firstMark).
const (
	keptMark  = -1
	firstMark = -2
)

// appendKey appends a key to the node's keys: *k, or, when from is a
// template's first key (Template.First), *from with k's Value and
// Contributions (k's other fields are not set). from, when not nil, is a
// key nothing changes once made: k itself (a kept result's, Result.key)
// or that first key. Reusing the last node's memory (ReuseKeys), a key
// found there in place (the last node's key at the same position came
// from the same, as consecutive nodes of a slice mostly do) is not copied
// again: at most its Value and Contributions are written.
func (w *Worker) appendKey(keys *[]format.Key, k, from *format.Key) {
	p := len(*keys)
	mark := int32(0)
	switch {
	case from == k:
		mark = keptMark
	case from != nil:
		mark = firstMark
	}
	switch {
	case w.ReuseKeys && mark != 0 && w.keyMarks[p] == mark && w.keyFrom[p] == from:
		*keys = (*keys)[:p+1]
		if mark == keptMark {
			w.Stats.KeptInPlace++
			return
		}
		w.Stats.FirstInPlace++
	case mark == firstMark:
		*keys = append(*keys, *from)
	default:
		*keys = append(*keys, *k)
	}
	if mark == firstMark {
		(*keys)[p].Value, (*keys)[p].Contributions = k.Value, k.Contributions
	}
	if w.ReuseKeys {
		w.keyMarks[p], w.keyFrom[p] = mark, from
	}
}

// appendStatics appends the static results of t's slots slot to slot+n-1
// to the node's keys. Reusing the last node's memory (ReuseKeys), it
// copies only those not found in place (see Worker.keyMarks): most nodes
// of a slice copy a few of their ~2,000 keys of 256 bytes, not all.
func (w *Worker) appendStatics(keys *[]format.Key, t *Table, slot, n int) {
	p := len(*keys)
	if !w.ReuseKeys {
		*keys = append(*keys, t.statics[slot:slot+n]...)
		return
	}
	*keys = (*keys)[:p+n]
	marks := w.keyMarks[p : p+n]
	for i := 0; i < n; {
		if marks[i] == int32(slot+i+1) {
			w.Stats.InPlace++
			i++
			continue
		}
		e := i + 1
		for e < n && marks[e] != int32(slot+e+1) {
			e++
		}
		copy((*keys)[p+i:p+e], t.statics[slot+i:slot+e])
		for ; i < e; i++ {
			marks[i] = int32(slot + i + 1)
		}
	}
}
