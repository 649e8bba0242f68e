package lookupopts

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/hieracc/hieracc/format"
	"github.com/hieracc/hieracc/format/ruby"
)

// Messages (err) are Puppet 7.23's, from MergeStrategy.strategy on these
// inputs; hint is what hieracc appends to them.
func TestParseMerge(t *testing.T) {
	deepStruct := "Struct[{'strategy' => Optional[Pattern[/deep/]], 'knockout_prefix' => Optional[String], 'merge_debug' => Optional[Boolean], 'merge_hash_arrays' => Optional[Boolean], 'sort_merged_arrays' => Optional[Boolean]}]"
	tests := []struct {
		in   any
		want format.Merge
		err  string
		hint string
	}{
		{in: nil, want: format.Merge{}},
		{in: false, want: format.Merge{}},
		{in: "default", want: format.Merge{}},
		{in: "first", want: format.Merge{Strategy: "first"}},
		{in: "unique", want: format.Merge{Strategy: "unique"}},
		{in: "hash", want: format.Merge{Strategy: "hash"}},
		{in: "deep", want: format.Merge{Strategy: "deep"}},
		{in: "unconstrained_deep", want: format.Merge{Strategy: "deep"}},
		{in: h("strategy", "deep"), want: format.Merge{Strategy: "deep"}},
		{in: h("strategy", "deep", "knockout_prefix", "--", "sort_merged_arrays", true, "merge_hash_arrays", true),
			want: format.Merge{Strategy: "deep", KnockoutPrefix: "--", SortMergedArrays: true, MergeHashArrays: true}},
		// The form `puppet lookup --merge deep` builds.
		{in: h("strategy", "deep", "sort_merged_arrays", false, "merge_hash_arrays", false), want: format.Merge{Strategy: "deep"}},
		{in: h("strategy", "deep", "knockout_prefix", nil, "merge_debug", true, "sort_merged_arrays", nil),
			want: format.Merge{Strategy: "deep"}},
		{in: h("strategy", "unconstrained_deep", "knockout_prefix", "!!", "foo", int64(1)),
			want: format.Merge{Strategy: "deep", KnockoutPrefix: "!!"}},

		{in: true, err: "Unknown merge strategy: 'true'"},
		{in: "bogus", err: "Unknown merge strategy: 'bogus'"},
		{in: "Deep", err: "Unknown merge strategy: 'Deep'", hint: " (did you mean 'deep'?)"},
		{in: "deeep", err: "Unknown merge strategy: 'deeep'", hint: " (did you mean 'deep'?)"},
		{in: "uniq", err: "Unknown merge strategy: 'uniq'", hint: " (did you mean 'unique'?)"},
		{in: "hsah", err: "Unknown merge strategy: 'hsah'", hint: " (did you mean 'hash'?)"},
		{in: "unconstrained-deep", err: "Unknown merge strategy: 'unconstrained-deep'", hint: " (did you mean 'unconstrained_deep'?)"},
		{in: h("strategy", "fisrt"), err: "Unknown merge strategy: 'fisrt'", hint: " (did you mean 'first'?)"},
		{in: "merge", err: "Unknown merge strategy: 'merge'"},
		{in: "", err: "Unknown merge strategy: ''"},
		{in: int64(5), err: "Unknown merge strategy: '5'"},
		{in: 1.5, err: "Unknown merge strategy: '1.5'"},
		{in: a("a"), err: `Unknown merge strategy: '["a"]'`},
		{in: h("strategy", a("deep")), err: `Unknown merge strategy: '["deep"]'`},
		{in: h("strategy", h("a", int64(1))), err: `Unknown merge strategy: '{"a"=>1}'`},
		{in: h("strategy", false), err: "Unknown merge strategy: 'false'"},
		{in: h("a", int64(1)), err: "The hash given as 'merge' must contain the name of a strategy in string form for the key 'strategy'"},
		{in: h("strategy", nil), err: "The hash given as 'merge' must contain the name of a strategy in string form for the key 'strategy'"},
		{in: h("stratgy", "deep"), err: "The hash given as 'merge' must contain the name of a strategy in string form for the key 'strategy'",
			hint: " (did you mean 'strategy'?)"},
		{in: h("strategy", "hash", "knockout_prefix", "x"), err: "The merge options has wrong type, unrecognized key 'knockout_prefix'",
			hint: " (only strategy 'deep' takes options)"},
		// Puppet 3 ignored this misspelling; Puppet 7 rejects it.
		{in: h("strategy", "deep", "sort_merge_arrays", true), err: "The merge options has wrong type, unrecognized key 'sort_merge_arrays'",
			hint: " (did you mean 'sort_merged_arrays'?)"},
		{in: h("strategy", "deep", "knockout-prefix", "--", "merge_hash_arrays", true, "sort", true),
			err:  " The merge options has wrong type, unrecognized key 'knockout-prefix'\n  The merge options has wrong type, unrecognized key 'sort'",
			hint: " (did you mean 'knockout_prefix' for 'knockout-prefix', 'sort_merged_arrays' for 'sort'?)"},
		{in: h("strategy", "deep", "preserve_unmergeables", true), err: "The merge options has wrong type, unrecognized key 'preserve_unmergeables'"},
		{in: h("strategy", "deep", "knockout_prefix", int64(5)),
			err: "The merge options has wrong type, entry 'knockout_prefix' expects a value of type Undef or String, got Integer"},
		{in: h("strategy", "deep", "knockout_prefix", "--", "x", int64(1)), err: "The merge options has wrong type, unrecognized key 'x'"},
		{in: h("strategy", "deep", "knockout_prefix", "", "sort_merged_arrays", "yes"),
			err: "The merge options has wrong type, entry 'sort_merged_arrays' expects a value of type Undef or Boolean, got String"},
		{in: h("strategy", "deep", int64(5), int64(1)),
			err: "The merge options has wrong type, expects a " + deepStruct + " value, got Hash[Variant[String, Integer[5, 5]], Variant[String, Integer[1, 1]]]"},
		{in: h("strategy", "deep", "", int64(1)),
			err: "The merge options has wrong type, expects a " + deepStruct + " value, got Hash[Enum['', 'strategy'], Variant[String, Integer[1, 1]]]"},
		{in: h(nil, int64(1), "strategy", "deep"),
			err: "The merge options has wrong type, expects a " + deepStruct + " value, got Hash[Optional['strategy'], Variant[Integer[1, 1], String]]"},
		{in: h("strategy", "unique", "merge_hash_arrays", true, "sort_merged_arrays", int64(1)),
			err:  " The merge options has wrong type, unrecognized key 'merge_hash_arrays'\n  The merge options has wrong type, unrecognized key 'sort_merged_arrays'",
			hint: " (only strategy 'deep' takes options)"},
		{in: h("strategy", "deep", "knockout_prefix", a(int64(1)), "merge_hash_arrays", nil, "sort_merged_arrays", "x"),
			err: " The merge options has wrong type, entry 'knockout_prefix' expects a value of type Undef or String, got Tuple\n" +
				"  The merge options has wrong type, entry 'sort_merged_arrays' expects a value of type Undef or Boolean, got String"},
		{in: h("strategy", "deep", "knockout_prefix", a(), "sort_merged_arrays", h()),
			err: " The merge options has wrong type, entry 'knockout_prefix' expects a value of type Undef or String, got Array\n" +
				"  The merge options has wrong type, entry 'sort_merged_arrays' expects a value of type Undef or Boolean, got Hash"},
		{in: h("strategy", "deep", "knockout_prefix", h("a", int64(1))),
			err: "The merge options has wrong type, entry 'knockout_prefix' expects a value of type Undef or String, got Struct"},
		{in: h("strategy", "first", "", nil), err: "The merge options has wrong type, expects size to be at most 1, got 2"},
		{in: h("strategy", "unique", int64(1), int64(2), int64(3), int64(4)), err: "The merge options has wrong type, expects size to be at most 1, got 3"},
		{in: h("strategy", "unconstrained_deep", "knockout_prefix", "--", int64(5), int64(1)),
			err: "The merge options has wrong type, expects a Hash[String[1], Any] value, got Hash[Variant[Integer[5, 5], Enum['knockout_prefix', 'strategy']], Variant[Integer[1, 1], Enum['--', 'unconstrained_deep']]]"},

		// Valid in Puppet, but not representable in a format.Merge.
		{in: "reverse_deep", err: "hieracc does not support the merge strategy 'reverse_deep'"},
		{in: h("strategy", "unconstrained_deep", "preserve_unmergeables", true), err: "hieracc does not support the deep merge option 'preserve_unmergeables'"},
	}
	for _, tc := range tests {
		t.Run(ruby.Inspect(tc.in), func(t *testing.T) {
			got, err := ParseMerge(tc.in)
			if tc.err != "" {
				if err == nil || err.Error() != tc.err+tc.hint {
					t.Fatalf("ParseMerge error = %v\nwant %q", err, tc.err+tc.hint)
				}
				if got := PuppetMessage(err); got != tc.err {
					t.Fatalf("Puppet's part of the message = %q\nwant %q", got, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatalf("ParseMerge: %v", err)
			}
			if d := cmp.Diff(tc.want, got); d != "" {
				t.Fatalf("ParseMerge (-want +got):\n%s", d)
			}
		})
	}
}

// h builds a hash from alternating keys and values, keeping their order.
func h(kv ...any) *format.Hash {
	m := format.NewHash(len(kv) / 2)
	for i := 0; i+1 < len(kv); i += 2 {
		m.Set(kv[i], kv[i+1])
	}
	return m
}

// a builds an array.
func a(elems ...any) []any {
	if elems == nil {
		return []any{}
	}
	return elems
}
