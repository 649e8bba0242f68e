package share

import "slices"

// KeyList is a sorted, duplicate-free list of key names (Keys), numbered
// by the worker that made it.
type KeyList struct {
	id   uint32
	Keys []string
}

// newKeyList makes a list numbered by the worker (see Union).
func (w *Worker) newKeyList(keys []string) *KeyList {
	w.keyLists++
	return &KeyList{id: w.keyLists, Keys: keys}
}

// Union adds the keys of a data file (numbered file, its keys sorted) to a
// list (nil for none), reusing cached results: nodes that share most of
// their files share most of this work. The lists are the worker's, shared:
// never modify one.
func (w *Worker) Union(acc *KeyList, file uint32, keys []string) *KeyList {
	if len(keys) == 0 {
		return acc
	}
	accID := uint32(0)
	if acc != nil {
		accID = acc.id
	}
	k := [2]uint32{accID, file}
	if u, ok := w.unions[k]; ok {
		return u
	}
	var u *KeyList
	switch {
	case acc == nil:
		u = w.newKeyList(keys)
	default:
		u = w.newKeyList(MergeSorted(acc.Keys, keys))
		if len(u.Keys) == len(acc.Keys) {
			u = acc // nothing new: keep sharing the same list
		}
	}
	if w.unions == nil {
		w.unions = map[[2]uint32]*KeyList{}
	}
	w.unions[k] = u
	return u
}

// MergeSorted merges two sorted duplicate-free lists. The result may be
// one of them: it is read, never written.
func MergeSorted(a, b []string) []string {
	out, _ := mergeSortedInto(nil, a, b)
	return out
}

// mergeSortedInto is MergeSorted building a new list, when it must, in
// dst's memory; built says whether it did (the result is then dst's).
func mergeSortedInto(dst, a, b []string) (out []string, built bool) {
	switch {
	case len(a) == 0:
		return b, false
	case len(b) == 0:
		return a, false
	}
	if len(b) < 32 {
		// The common case: a small file's keys are mostly in a already.
		missing := 0
		for _, k := range b {
			if _, ok := slices.BinarySearch(a, k); !ok {
				missing++
			}
		}
		if missing == 0 {
			return a, false
		}
	}
	out = slices.Grow(dst[:0], len(a)+len(b))
	i, j := 0, 0
	for i < len(a) && j < len(b) {
		switch {
		case a[i] < b[j]:
			out = append(out, a[i])
			i++
		case a[i] > b[j]:
			out = append(out, b[j])
			j++
		default:
			out = append(out, a[i])
			i++
			j++
		}
	}
	out = append(out, a[i:]...)
	return append(out, b[j:]...), true
}

// placeDelta finds where each key of delta is, or would be, among shared
// (both sorted and duplicate-free): at[d] is the position of delta[d] in
// shared or, if shared lacks it, of the first key after it. It returns
// the two lists merged: shared itself when it holds every key of delta,
// else a list built in dst's memory (built). at is built in atBuf's.
// One binary search a key of delta, each from the last one's position.
func placeDelta(dst []string, atBuf []int32, shared, delta []string) (names []string, at []int32, built bool) {
	at = atBuf[:0]
	missing, lo := 0, 0
	for _, k := range delta {
		i, found := slices.BinarySearch(shared[lo:], k)
		lo += i
		at = append(at, int32(lo))
		if !found {
			missing++
		}
	}
	if missing == 0 {
		return shared, at, false
	}
	names = slices.Grow(dst[:0], len(shared)+missing)
	prev := 0
	for d, k := range delta {
		p := int(at[d])
		names = append(names, shared[prev:p]...)
		if p == len(shared) || shared[p] != k {
			names = append(names, k)
		}
		prev = p
	}
	return append(names, shared[prev:]...), at, true
}
