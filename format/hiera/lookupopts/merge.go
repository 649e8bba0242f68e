// Package lookupopts reads the settings of Hiera's lookup_options as the
// compiler meets them, with Puppet's messages:
//
//   - ParseMerge turns a merge setting (or lookup()'s merge argument) into
//     a format.Merge, and appends a hint to Puppet's message when a name
//     is misspelt ("Unknown merge strategy: 'deeep' (did you mean
//     'deep'?)"); Nearest, which finds those hints, also serves the
//     compiler's other messages about misspelt names;
//   - ParseConvertTo reads a convert_to setting, and refuses those hieracc
//     cannot apply ahead of time.
//
// Bundles hold these settings already read, so agents never parse one:
// this package is the compiler's, and package runtime does not link it.
// What a setting then does is package hiera's (MergeValues, Resolve,
// Convert), which both sides share.
package lookupopts

import (
	"errors"
	"fmt"

	"github.com/hieracc/hieracc/format"
	"github.com/hieracc/hieracc/format/hiera"
	"github.com/hieracc/hieracc/format/ptype"
	"github.com/hieracc/hieracc/format/ruby"
)

// deepOptionKeys are the keys of the deep strategy's options Struct, in the
// order Puppet declares (and so reports) them.
var deepOptionKeys = []string{"strategy", "knockout_prefix", "merge_debug", "merge_hash_arrays", "sort_merged_arrays"}

// The types Puppet asserts of merge options; package ptype words their
// mismatch messages, as Puppet's TypeAsserter and TypeMismatchDescriber do.
var (
	deepOptionsType = ptype.MustParse("Struct[{'strategy' => Optional[Pattern[/deep/]], 'knockout_prefix' => Optional[String], " +
		"'merge_debug' => Optional[Boolean], 'merge_hash_arrays' => Optional[Boolean], 'sort_merged_arrays' => Optional[Boolean]}]")
	unconstrainedType = ptype.MustParse("Hash[String[1], Any]") // unconstrained_deep's options
)

// mergeOptions is the subject of the options' type mismatch messages.
const mergeOptions = "The merge options"

// ParseMerge converts a lookup_options `merge` value (a string, or a hash
// with `strategy` and deep options) or a lookup-time merge into a
// format.Merge, validating it with Puppet's messages ("Unknown merge
// strategy: 'x'", options type errors, ...). A message about a name that
// does not exist ends with a hint after Puppet's text: "Unknown merge
// strategy: 'deeep' (did you mean 'deep'?)". nil (and false) give the zero
// Merge: first found.
//
// It follows MergeStrategy.strategy: "default" is first found; a hash with
// only `strategy` carries no options; other keys are checked against the
// strategy's options type (only deep has any). "unconstrained_deep" is deep
// with unchecked options. Options hieracc cannot represent fail: the
// "reverse_deep" strategy and the deep_merge options preserve_unmergeables,
// overwrite_arrays, unpack_arrays and extend_existing_arrays (which only
// unconstrained_deep admits). An empty knockout_prefix is taken as none,
// where Puppet fails once two values merge.
func ParseMerge(v any) (format.Merge, error) {
	name := v
	var opts *format.Hash
	switch x := v.(type) {
	case nil:
		return format.Merge{}, nil
	case bool:
		if !x {
			return format.Merge{}, nil
		}
	case *format.Hash:
		s, _ := x.Get("strategy")
		if s == nil {
			err := errors.New("The hash given as 'merge' must contain the name of a strategy in string form for the key 'strategy'")
			return format.Merge{}, withHint(err, didYouMean(misspelt(x, []string{"strategy"})))
		}
		name = s
		if x.Len() > 1 {
			opts = x
		}
	}
	str, _ := name.(string)
	switch format.Strategy(str) {
	case "default", format.MergeFirst, format.MergeHash, format.MergeUnique:
		if opts != nil {
			if err := checkStruct(opts, []string{"strategy"}, ptype.MustParse("Struct[{'strategy' => Optional[Pattern[/"+str+"/]]}]")); err != nil {
				return format.Merge{}, err
			}
		}
		if str == "default" {
			return format.Merge{}, nil
		}
		return format.Merge{Strategy: format.Strategy(str)}, nil
	case format.MergeDeep:
		m := format.Merge{Strategy: format.MergeDeep}
		if opts == nil {
			return m, nil
		}
		if err := checkStruct(opts, deepOptionKeys, deepOptionsType); err != nil {
			return format.Merge{}, err
		}
		return deepOptions(m, opts)
	case "unconstrained_deep":
		m := format.Merge{Strategy: format.MergeDeep}
		if opts == nil {
			return m, nil
		}
		if err := unconstrainedType.Check(mergeOptions, opts); err != nil {
			return format.Merge{}, err
		}
		return deepOptions(m, opts)
	case "reverse_deep":
		return format.Merge{}, errors.New("hieracc does not support the merge strategy 'reverse_deep'")
	}
	err := fmt.Errorf("Unknown merge strategy: '%s'", ruby.ToS(name))
	if w := nearest(str, strategyNames); w != "" {
		err = withHint(err, didYouMean([]misspelling{{str, w}}))
	}
	return format.Merge{}, err
}

// checkStruct is the assertion of a strategy's options Struct t (all
// entries optional, their names keys) on an options hash, with a hint when
// a key is not one of them.
func checkStruct(opts *format.Hash, keys []string, t *ptype.Type) error {
	err := t.Check(mergeOptions, opts)
	if err == nil || !ptype.IsStruct(opts) {
		return err
	}
	unknown := false
	for _, k := range opts.Keys() {
		if ks, _ := k.(string); !containsKey(keys, ks) {
			unknown = true
		}
	}
	switch {
	case !unknown:
		return err
	case len(keys) == 1: // first, unique, hash: only 'strategy'
		return withHint(err, " (only strategy 'deep' takes options)")
	}
	return withHint(err, didYouMean(misspelt(opts, keys)))
}

// misspelt lists the string keys of h that are not among known but near
// one of them.
func misspelt(h *format.Hash, known []string) []misspelling {
	var ms []misspelling
	for _, k := range h.Keys() {
		ks, _ := k.(string)
		if containsKey(known, ks) {
			continue
		}
		if w := nearest(ks, known); w != "" {
			ms = append(ms, misspelling{ks, w})
		}
	}
	return ms
}

func containsKey(keys []string, k string) bool {
	for _, x := range keys {
		if x == k {
			return true
		}
	}
	return false
}

// deepOptions reads deep_merge options with Ruby truthiness, as
// DeepMerge.deep_merge! does (`options[:sort_merged_arrays] || false`).
func deepOptions(m format.Merge, opts *format.Hash) (format.Merge, error) {
	for i := 0; i < opts.Len(); i++ {
		k, _ := opts.Key(i).(string)
		v := opts.Value(i)
		switch k {
		case "knockout_prefix":
			switch p := v.(type) {
			case string:
				m.KnockoutPrefix = p
			default:
				if hiera.Truthy(v) {
					return format.Merge{}, fmt.Errorf("hieracc does not support a %s knockout_prefix", ruby.ClassName(v))
				}
			}
		case "sort_merged_arrays":
			m.SortMergedArrays = hiera.Truthy(v)
		case "merge_hash_arrays":
			m.MergeHashArrays = hiera.Truthy(v)
		case "preserve_unmergeables", "overwrite_arrays", "unpack_arrays", "extend_existing_arrays":
			if hiera.Truthy(v) {
				return format.Merge{}, fmt.Errorf("hieracc does not support the deep merge option '%s'", k)
			}
		}
		// strategy, merge_debug (console output only) and keys deep_merge
		// does not know have no effect on the result.
	}
	return m, nil
}
