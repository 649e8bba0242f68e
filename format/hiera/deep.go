package hiera

import (
	"errors"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/hieracc/hieracc/format"
)

// This file ports DeepMerge.deep_merge! of the deep_merge gem 1.1.1, which
// Puppet's deep strategy calls as deep_merge!(e1, deep_clone(e2)) with
// preserve_unmergeables false. Ruby mutates its arguments; here nothing
// passed in is ever modified: every function returns the value Ruby's
// destination ends up holding, sharing unchanged parts with the inputs.
//
// Ruby's object identity leaks into the results in two places, reproduced
// as separate functions:
//
//   - A key the destination hash lacks (or holds nil/false) is merged as
//     deep_merge!(v, v.dup) (mergeIntoDup): a shallow copy, so the nested
//     values are merged with themselves.
//   - deep_merge!(x, x) on one object (mergeSelf): arrays become their own
//     union (duplicates dropped, sorted if asked), knockout deletes from the
//     array while Ruby's delete_if iterates it.

// deepOpts are the deep_merge options Puppet passes. They are immutable
// once built and cached per format.Merge.
type deepOpts struct {
	ko      string         // knockout_prefix; "" when unset
	koRe    *regexp.Regexp // %r{^#{knockout_prefix}} when the prefix is not literal
	sort    bool           // sort_merged_arrays
	mergeHA bool           // merge_hash_arrays
}

var (
	deepOptsCache sync.Map // format.Merge -> *deepOpts
	deepOptsCount atomic.Int32
)

func newDeepOpts(m format.Merge) (*deepOpts, error) {
	if o, ok := deepOptsCache.Load(m); ok {
		return o.(*deepOpts), nil
	}
	o := &deepOpts{ko: m.KnockoutPrefix, sort: m.SortMergedArrays, mergeHA: m.MergeHashArrays}
	if o.ko != "" && regexp.QuoteMeta(o.ko) != o.ko {
		// Ruby interpolates the prefix into a regexp unescaped, and ^ matches
		// at every line start.
		re, err := regexp.Compile("(?m)^" + o.ko)
		if err != nil {
			return nil, errors.New("invalid knockout_prefix regexp: " + err.Error())
		}
		o.koRe = re
	}
	if deepOptsCount.Add(1) <= 1024 { // options come from configuration: few
		deepOptsCache.Store(m, o)
	}
	return o, nil
}

// koMatch is String#match(%r{^prefix}): the prefix at some line start.
func (o *deepOpts) koMatch(s string) bool {
	if o.koRe != nil {
		return o.koRe.MatchString(s)
	}
	return strings.HasPrefix(s, o.ko) || strings.Contains(s, "\n"+o.ko)
}

// knockedOut is the test of the array branch's delete_if, `item != ko_item`
// where item is ko_item.gsub(prefix, "") for a string and ko_item itself
// otherwise: a string with the prefix at a line start, and what is left
// once every such prefix is removed; or a NaN, which is never == itself
// (item is then the NaN).
func (o *deepOpts) knockedOut(v any) (item any, ok bool) {
	if o.ko == "" {
		return nil, false
	}
	if isNaN(v) {
		return v, true
	}
	s, isStr := v.(string)
	if !isStr {
		return "", false
	}
	if o.koRe != nil {
		item = o.koRe.ReplaceAllLiteralString(s, "")
		return item, item != s
	}
	if !o.koMatch(s) {
		return "", false
	}
	// gsub scans left to right; a removed prefix is not searched again.
	var b strings.Builder
	for i := 0; i < len(s); {
		if (i == 0 || s[i-1] == '\n') && strings.HasPrefix(s[i:], o.ko) {
			i += len(o.ko)
			continue
		}
		b.WriteByte(s[i])
		i++
	}
	return b.String(), true
}

// merge is deep_merge!(src, dst) where dst is a separate object (Puppet's
// deep clone of the lower-priority value).
func (o *deepOpts) merge(src, dst any) (any, error) {
	if src == nil {
		return dst, nil // nil never overrides
	}
	if !Truthy(dst) {
		return src, nil // nothing (nil or false) to merge into
	}
	switch s := src.(type) {
	case *format.Hash:
		if s.Len() == 0 {
			return dst, nil
		}
		d, ok := dst.(*format.Hash)
		if !ok {
			// Ruby overwrites dest with the source hash itself on the first
			// key, then goes on merging the remaining keys into it: each
			// of those is merged with itself.
			return o.mergeSelfEntries(s, 1)
		}
		out := d.Clone()
		for i := 0; i < s.Len(); i++ {
			k, sv := s.Key(i), s.Value(i)
			var (
				v   any
				err error
			)
			if dv, _ := out.Get(k); Truthy(dv) {
				v, err = o.merge(sv, dv)
			} else {
				v, err = o.mergeIntoDup(sv)
			}
			if err != nil {
				return nil, err
			}
			out.Set(k, v)
		}
		return out, nil
	case []any:
		srcArr := s
		d, ok := dst.([]any)
		if !ok {
			// A non-array destination is overwritten (after a bare prefix
			// clears it, which changes nothing then).
			if o.ko != "" {
				srcArr = removeAll(srcArr, o.ko)
			}
			return o.overwrite(srcArr), nil
		}
		// d and srcArr are only ever replaced, never modified in place.
		if o.ko != "" && containsString(srcArr, o.ko) {
			// A bare prefix clears the destination and leaves the source.
			srcArr = removeAll(srcArr, o.ko)
			d = []any{}
		}
		srcArr, d = o.knockout(srcArr, d)
		return o.union(srcArr, d, o.merge)
	}
	return o.overwrite(src), nil
}

// knockout is the source.delete_if loop of the array branch, for a source
// and destination that are different arrays: each prefixed string (and
// each NaN, see knockedOut) leaves the source and removes itself and its
// unprefixed form from the destination.
func (o *deepOpts) knockout(src, dst []any) ([]any, []any) {
	if o.ko == "" {
		return src, dst
	}
	var kept []any
	for _, e := range src {
		if item, ko := o.knockedOut(e); ko {
			dst = removeAll(dst, item)
			dst = removeAll(dst, e)
			continue
		}
		kept = append(kept, e)
	}
	return kept, dst
}

// emptyHash stands for the `{}` in `source[i] || {}`; never modified.
var emptyHash = format.NewHash(0)

// union ends the array branch: arrays of hashes merged by position when
// merge_hash_arrays is set and both sides hold only hashes (vacuously true
// for an empty side), otherwise dst | src; then sorted if asked.
func (o *deepOpts) union(src, dst []any, pair func(src, dst any) (any, error)) (any, error) {
	var out []any
	if o.mergeHA && allHashes(src) && allHashes(dst) {
		out = make([]any, len(dst), max(len(dst), len(src)))
		for i, dv := range dst {
			var sv any = emptyHash // source[i] || {}
			if i < len(src) {
				sv = src[i]
			}
			v, err := pair(sv, dv)
			if err != nil {
				return nil, err
			}
			out[i] = v
		}
		if len(src) > len(dst) {
			out = append(out, src[len(dst):]...)
		}
	} else {
		out = uniqAppend(uniqAppend(make([]any, 0, len(dst)+len(src)), dst), src)
	}
	if o.sort {
		return rubySort(out)
	}
	return out, nil
}

// overwrite is overwrite_unmergeables: the source replaces the
// destination, except that with a knockout prefix a prefixed string
// becomes "" and an array loses its prefixed strings. Ruby tells the
// source is unchanged by src_tmp == source, which NaN never is: it becomes
// "" too. (An array is the source itself once delete_if has run, and
// Array#== holds for one object, NaN elements or not.)
func (o *deepOpts) overwrite(src any) any {
	if o.ko == "" {
		return src
	}
	switch s := src.(type) {
	case string:
		if _, ko := o.knockedOut(s); ko {
			return ""
		}
	case float64:
		if isNaN(s) {
			return "" // Ruby keeps the source only if src_tmp == source
		}
	case []any:
		// Here Ruby tests String#match, not whether gsub changed anything.
		var kept []any
		for _, e := range s {
			if es, ok := e.(string); !ok || !o.koMatch(es) {
				kept = append(kept, e)
			}
		}
		if len(kept) == len(s) {
			return src
		}
		if kept == nil {
			kept = []any{}
		}
		return kept
	}
	return src
}

// mergeIntoDup is deep_merge!(v, v.dup): how a key new to the destination
// is added.
func (o *deepOpts) mergeIntoDup(v any) (any, error) {
	switch s := v.(type) {
	case *format.Hash:
		// The dup is shallow: every truthy value is merged with itself.
		return o.mergeSelfEntries(s, 0)
	case []any:
		srcArr := s
		d := s // the dup; like srcArr, replaced but never modified in place
		if o.ko != "" && containsString(srcArr, o.ko) {
			srcArr = removeAll(srcArr, o.ko)
			d = []any{}
		}
		srcArr, d = o.knockout(srcArr, d)
		// With only hashes left on both sides they are the same objects,
		// pairwise: each is merged with itself.
		return o.union(srcArr, d, func(_, dv any) (any, error) { return o.mergeSelf(dv) })
	case nil, bool:
		return v, nil
	}
	return o.overwrite(v), nil
}

// mergeSelfEntries merges the values of h from index from on with
// themselves, as deep_merge! does once the destination is h itself.
func (o *deepOpts) mergeSelfEntries(h *format.Hash, from int) (any, error) {
	var out *format.Hash
	for i := from; i < h.Len(); i++ {
		v := h.Value(i)
		if !Truthy(v) {
			continue
		}
		nv, err := o.mergeSelf(v)
		if err != nil {
			return nil, err
		}
		if out == nil {
			out = h.Clone()
		}
		out.Set(h.Key(i), nv)
	}
	if out == nil {
		return h, nil
	}
	return out, nil
}

// mergeSelf is deep_merge!(x, x) with one object as source and destination.
func (o *deepOpts) mergeSelf(x any) (any, error) {
	switch s := x.(type) {
	case *format.Hash:
		return o.mergeSelfEntries(s, 0)
	case []any:
		a := s
		if o.ko != "" {
			if containsString(a, o.ko) {
				a = []any{} // clearing dest clears the source too
			} else {
				a = o.selfKnockout(a)
			}
		}
		if o.mergeHA && allHashes(a) {
			out := make([]any, len(a))
			for i, e := range a {
				v, err := o.mergeSelf(e)
				if err != nil {
					return nil, err
				}
				out[i] = v
			}
			a = out
		} else {
			a = uniqAppend(nil, a)
			if a == nil {
				a = []any{}
			}
		}
		if o.sort {
			return rubySort(a)
		}
		return a, nil
	case nil, bool:
		return x, nil
	}
	return o.overwrite(x), nil // a string's prefix, a NaN
}

// selfKnockout runs source.delete_if { ... dest.delete(...) } where source
// and dest are the same array, replaying Ruby's reject! bookkeeping
// (ary_reject_bang with select_bang_ensure): deletions shift elements under
// the iteration, which skips some of them and can even drop kept ones.
func (o *deepOpts) selfKnockout(src []any) []any {
	a := append([]any(nil), src...)
	i1, i2 := 0, 0
	for ; i1 < len(a); i1++ {
		v := a[i1]
		if item, ko := o.knockedOut(v); ko {
			a = rubyDelete(a, item)
			a = rubyDelete(a, v)
			continue
		}
		if i1 != i2 {
			// rb_ary_store past the end pads with nil.
			for len(a) <= i2 {
				a = append(a, nil)
			}
			a[i2] = v
		}
		i2++
	}
	if n := len(a); i2 < n && i2 < i1 {
		tail := 0
		if i1 < n {
			tail = n - i1
			copy(a[i2:], a[i1:n])
		}
		a = a[:i2+tail]
	}
	return a
}

// rubyDelete is Array#delete(v) in place: every element deleted by v
// goes.
func rubyDelete(a []any, v any) []any {
	j := 0
	for _, e := range a {
		if deletes(v, e) {
			continue
		}
		a[j] = e
		j++
	}
	clear(a[j:])
	return a[:j]
}

// removeAll returns a without the elements deleted by v (Array#delete on
// a copy); a itself when nothing matches.
func removeAll(a []any, v any) []any {
	n := 0
	for _, e := range a {
		if !deletes(v, e) {
			n++
		}
	}
	if n == len(a) {
		return a
	}
	out := make([]any, 0, n)
	for _, e := range a {
		if !deletes(v, e) {
			out = append(out, e)
		}
	}
	return out
}

// deletes says whether Array#delete(v) removes e, for the v deep_merge
// deletes: a string removes equal strings; a NaN removes every NaN, as
// rb_equal tests identity first and every NaN Puppet reads from YAML is
// the one object Float::NAN.
func deletes(v, e any) bool {
	if isNaN(v) {
		return isNaN(e)
	}
	vs, ok := v.(string)
	es, eok := e.(string)
	return ok && eok && vs == es
}

func isNaN(v any) bool {
	f, ok := v.(float64)
	return ok && f != f
}

func containsString(a []any, s string) bool {
	for _, e := range a {
		if es, ok := e.(string); ok && es == s {
			return true
		}
	}
	return false
}

func allHashes(a []any) bool {
	for _, e := range a {
		if _, ok := e.(*format.Hash); !ok {
			return false
		}
	}
	return true
}

// uniqAppend appends the elements of src not already in dst (by eql?), as
// Array#| and Array#uniq do.
func uniqAppend(dst, src []any) []any {
	for _, e := range src {
		if !containsEql(dst, e) {
			dst = append(dst, e)
		}
	}
	return dst
}

func containsEql(a []any, v any) bool {
	switch v.(type) {
	case []any, *format.Hash:
		for _, e := range a {
			if format.Equal(e, v) {
				return true
			}
		}
		return false
	}
	for _, e := range a {
		switch e.(type) {
		case []any, *format.Hash:
			continue
		}
		if e == v || format.Equal(e, v) {
			return true
		}
	}
	return false
}

// Truthy is Ruby truthiness: only nil and false are false. deep_merge tests
// `if dest[key]` and `!(dest)`, so a false value behaves like a missing
// one; its options are read the same way (`options[:sort_merged_arrays]`).
func Truthy(v any) bool {
	switch v := v.(type) {
	case nil:
		return false
	case bool:
		return v
	}
	return true
}
