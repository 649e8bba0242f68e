package hiera

import (
	"testing"

	"github.com/hieracc/hieracc/format"
	"github.com/hieracc/hieracc/format/ruby"
)

// Expectations are Puppet 7.23's DeepMergeStrategy#merge (deep_merge gem
// 1.1.1) on these values: e1 is the higher-priority value.
func TestDeepMerge(t *testing.T) {
	ko := format.Merge{Strategy: "deep", KnockoutPrefix: "--"}
	mha := format.Merge{Strategy: "deep", MergeHashArrays: true}
	sorted := format.Merge{Strategy: "deep", SortMergedArrays: true}
	tests := []struct {
		name   string
		merge  format.Merge
		e1, e2 any
		want   any
		err    string
	}{
		{name: "nil does not override", merge: mDeep, e1: nil, e2: h("a", a("x", "x")), want: h("a", a("x", "x"))},
		{name: "nothing to merge into", merge: mDeep, e1: h("a", a("x", "x")), e2: nil, want: h("a", a("x", "x"))},
		{name: "false is nothing to merge into", merge: mDeep, e1: h("a", a("x", "x")), e2: false, want: h("a", a("x", "x"))},
		{name: "false overrides", merge: mDeep, e1: false, e2: h("a", int64(1)), want: false},
		{name: "empty hash leaves the lower value", merge: mDeep, e1: h(), e2: "str", want: "str"},
		{name: "empty array leaves the lower value", merge: mDeep, e1: a(), e2: a("x"), want: a("x")},
		// Ruby replaces the string with the source hash on the first key,
		// then merges the other keys into it, i.e. with themselves.
		{name: "hash over a scalar", merge: mDeep, e1: h("a", a("x", "x"), "b", a("y", "y")), e2: "str",
			want: h("a", a("x", "x"), "b", a("y"))},
		// A key new to the lower hash is merged with a shallow copy of
		// itself: arrays lose their duplicates.
		{name: "new key array deduplicated", merge: mDeep, e1: h("users", a("a", "a")), e2: h("x", int64(1)),
			want: h("x", int64(1), "users", a("a"))},
		{name: "new nested array deduplicated", merge: mDeep, e1: h("users", h("groups", a("a", "a"))), e2: h("x", int64(1)),
			want: h("x", int64(1), "users", h("groups", a("a")))},
		{name: "false lower value is replaced like a missing one", merge: mDeep, e1: h("users", a("a", "a")), e2: h("users", false),
			want: h("users", a("a"))},
		{name: "nil over false gives nil", merge: mDeep, e1: h("users", nil), e2: h("users", false), want: h("users", nil)},
		{name: "nil over a value keeps it", merge: mDeep, e1: h("users", nil), e2: h("users", int64(1)), want: h("users", int64(1))},
		{name: "new key sorted", merge: sorted, e1: h("n", a("b", "a", "b")), e2: h("o", int64(1)), want: h("o", int64(1), "n", a("a", "b"))},

		{name: "knockout in a new key's array", merge: ko, e1: h("groups", a("--wheel", "ops", "ops")), e2: h("x", int64(1)),
			want: h("x", int64(1), "groups", a("ops"))},
		// Nested one level deeper the array is merged with itself, and
		// delete_if loses elements as the array shifts under it.
		{name: "knockout in a new key's nested array", merge: ko, e1: h("users", h("bob", h("groups", a("--wheel", "ops")))), e2: h("x", int64(1)),
			want: h("x", int64(1), "users", h("bob", h("groups", a())))},
		{name: "self knockout skips elements", merge: ko, e1: h("users", h("groups", a("a", "--a", "b", "c"))), e2: h("x", int64(1)),
			want: h("x", int64(1), "users", h("groups", a("b")))},
		{name: "self knockout keeps some", merge: ko, e1: h("users", h("groups", a("a", "b", "--a", "c", "--c", "d"))), e2: h("x", int64(1)),
			want: h("x", int64(1), "users", h("groups", a("b", "c", "d")))},
		{name: "self knockout bare prefix", merge: ko, e1: h("users", h("groups", a("a", "--"))), e2: h("x", int64(1)),
			want: h("x", int64(1), "users", h("groups", a()))},
		{name: "knockout string in a new key", merge: ko, e1: h("users", "--x"), e2: h("x", int64(1)), want: h("x", int64(1), "users", "")},
		{name: "knockout string in a new nested key", merge: ko, e1: h("users", h("a", "--x")), e2: h("x", int64(1)),
			want: h("x", int64(1), "users", h("a", ""))},
		{name: "knockout array over a hash", merge: ko, e1: a("--", "a", "--b"), e2: h("k", int64(1)), want: a("a")},
		{name: "knockout array over a string", merge: ko, e1: a("--a", "b"), e2: "str", want: a("b")},
		// ^ matches at every line start.
		{name: "knockout on a later line", merge: ko, e1: "x\n--y", e2: a("a"), want: ""},

		{name: "hash arrays by position", merge: mha, e1: a(h("a", int64(1))), e2: a(h("b", int64(2)), h("c", int64(3))),
			want: a(h("b", int64(2), "a", int64(1)), h("c", int64(3)))},
		{name: "hash arrays over an empty array", merge: mha, e1: a(h("a", int64(1)), h("b", int64(2))), e2: a(),
			want: a(h("a", int64(1)), h("b", int64(2)))},
		{name: "hash arrays in a new key merge with themselves", merge: mha, e1: h("n", a(h("a", a("x", "x")), h("b", int64(1)))), e2: h("o", int64(1)),
			want: h("o", int64(1), "n", a(h("a", a("x")), h("b", int64(1))))},

		{name: "sort string with integer", merge: sorted, e1: a("b", int64(1)), e2: a("a"), err: "comparison of String with 1 failed"},
		{name: "sort integer with string", merge: sorted, e1: a(int64(2), "a"), e2: a(int64(1)), err: "comparison of Integer with String failed"},
		{name: "sort nil", merge: sorted, e1: a(nil), e2: a(int64(1)), err: "comparison of Integer with nil failed"},
		{name: "sort arrays", merge: sorted, e1: a(a(int64(1), "a")), e2: a(a(int64(1), int64(2))), err: "comparison of Array with Array failed"},
		{name: "sort float argument", merge: sorted, e1: a(1.5), e2: a("a"), err: "comparison of String with 1.5 failed"},
		{name: "sort boolean", merge: sorted, e1: a("a"), e2: a(true), err: "comparison of TrueClass with String failed"},
		// Hash#== holds (1 == 1.0): they compare as equal, stably.
		{name: "sort equal hashes", merge: sorted, e1: a(h("a", int64(1))), e2: a(h("a", 1.0)), want: a(h("a", 1.0), h("a", int64(1)))},
		{name: "sort numbers", merge: sorted, e1: a(int64(3), 1.5), e2: a(int64(10), -0.5), want: a(-0.5, 1.5, int64(3), int64(10))},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			before1, before2 := ruby.Inspect(tc.e1), ruby.Inspect(tc.e2)
			got, err := MergeValues(tc.merge, tc.e1, tc.e2)
			if tc.err != "" {
				if err == nil || err.Error() != tc.err {
					t.Fatalf("error = %v, want %q", err, tc.err)
				}
			} else if err != nil {
				t.Fatalf("unexpected error %v", err)
			} else if d := diffValues(tc.want, got); d != "" {
				t.Fatalf("(-want +got):\n%s", d)
			}
			// Inputs are shared across nodes: they must come out untouched.
			if ruby.Inspect(tc.e1) != before1 || ruby.Inspect(tc.e2) != before2 {
				t.Fatalf("inputs modified: %s, %s (were %s, %s)", ruby.Inspect(tc.e1), ruby.Inspect(tc.e2), before1, before2)
			}
		})
	}
}

func TestInvalidKnockoutPrefix(t *testing.T) {
	// A prefix is interpolated into a regexp; one that does not compile
	// fails the merge (Ruby would raise its own RegexpError).
	_, err := MergeValues(format.Merge{Strategy: "deep", KnockoutPrefix: "("}, a("a"), a("b"))
	if err == nil {
		t.Fatal("want an error for knockout_prefix '('")
	}
}
