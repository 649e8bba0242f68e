package hiera

import (
	"math/rand"
	"testing"

	"github.com/hieracc/hieracc/format"
	"github.com/hieracc/hieracc/format/ptype"
)

// The messages below are Puppet 7.23's MergeStrategy#merge errors for these
// values (TypeAsserter with TypeMismatchDescriber), recorded by running
// Puppet's code on them.
func TestMergeTypeAssertions(t *testing.T) {
	const first, second = "The first element of the merge has wrong type, ", "The second element of the merge has wrong type, "
	tests := []struct {
		name   string
		merge  string
		e1, e2 any
		err    string
	}{
		{name: "unique nil first", merge: "unique", e1: nil, e2: a(int64(1)),
			err: first + "expects a value of type Scalar or Array, got Undef"},
		{name: "unique empty hash", merge: "unique", e1: a(int64(1)), e2: h(),
			err: second + "expects a value of type Scalar or Array, got Hash"},
		{name: "unique struct", merge: "unique", e1: a(int64(1)), e2: h("k", "v"),
			err: second + "expects a value of type Scalar or Array, got Struct"},
		{name: "unique hash with integer keys", merge: "unique", e1: h(int64(1), "x"), e2: a(int64(1)),
			err: first + "expects a value of type Scalar or Array, got Hash"},
		{name: "unique array holding a non-Data hash", merge: "unique", e1: a(h(int64(1), int64(2))), e2: a(int64(1)),
			err: " " + first + "variant 0 expects a Scalar value, got Tuple\n" +
				"  " + first + "variant 1 index 0 expects a Data value, got Hash"},
		{name: "unique nested array", merge: "unique", e1: a(int64(1)), e2: a(a(h(true, int64(1)))),
			err: " " + second + "variant 0 expects a Scalar value, got Tuple\n" +
				"  " + second + "variant 1 index 0 variant 0 expects a ScalarData value, got Tuple\n" +
				"  " + second + "variant 1 index 0 variant 1 expects a Hash value, got Tuple\n" +
				"  " + second + "variant 1 index 0 variant 2 index 0 expects a Data value, got Hash"},
		{name: "unique struct holding a non-Data hash", merge: "unique", e1: a(int64(1)), e2: a(h("a", h("b", h(int64(3), int64(4))))),
			err: " " + second + "variant 0 expects a Scalar value, got Tuple\n" +
				"  " + second + "variant 1 index 0 variant 0 expects a ScalarData value, got Struct\n" +
				"  " + second + "variant 1 index 0 variant 1 entry 'a' variant 0 expects a ScalarData value, got Struct\n" +
				"  " + second + "variant 1 index 0 variant 1 entry 'a' variant 1 entry 'b' expects a Data value, got Hash\n" +
				"  " + second + "variant 1 index 0 variant 1 entry 'a' variant 2 expects an Array value, got Struct\n" +
				"  " + second + "variant 1 index 0 variant 2 expects an Array value, got Struct"},
		{name: "unique accepts an empty-string key", merge: "unique", e1: a(int64(1)), e2: a(h("", int64(1)))},

		{name: "hash nil", merge: "hash", e1: h(), e2: nil, err: second + "expects a Hash value, got Undef"},
		{name: "hash string", merge: "hash", e1: "s", e2: a(int64(1)), err: first + "expects a Hash value, got String"},
		{name: "hash integer", merge: "hash", e1: h(), e2: int64(1), err: second + "expects a Hash value, got Integer"},
		{name: "hash float", merge: "hash", e1: h(), e2: 1.5, err: second + "expects a Hash value, got Float"},
		{name: "hash boolean", merge: "hash", e1: false, e2: h(), err: first + "expects a Hash value, got Boolean"},
		{name: "hash empty array", merge: "hash", e1: h(), e2: a(), err: second + "expects a Hash value, got Array"},
		{name: "hash array", merge: "hash", e1: h(), e2: a(nil), err: second + "expects a Hash value, got Tuple"},
		{name: "hash integer keys", merge: "hash", e1: h(), e2: h(int64(1), "x", int64(2), "y"),
			err: second + "expects a Hash[String, Data] value, got Hash[Integer[1, 2], Enum['x', 'y']]"},
		{name: "hash mixed keys", merge: "hash", e1: h(int64(1), "x", "a", 1.5), e2: h(),
			err: first + "expects a Hash[String, Data] value, got Hash[Variant[Integer[1, 1], String], Variant[String, Float[1.5, 1.5]]]"},
		{name: "hash boolean keys", merge: "hash", e1: h(), e2: h(true, nil, false, a()),
			err: second + "expects a Hash[String, Data] value, got Hash[Variant[Boolean[true], Boolean[false]], Optional[Array[0, 0]]]"},
		{name: "hash nil key", merge: "hash", e1: h(), e2: h(nil, int64(1)),
			err: second + "expects a Hash[String, Data] value, got Hash[Undef, Integer[1, 1]]"},
		{name: "hash nested types", merge: "hash", e1: h(), e2: h(int64(1), h("a", nil, "b", a(nil, int64(1)))),
			err: second + "expects a Hash[String, Data] value, got Hash[Integer[1, 1], Struct[{NotUndef['a'] => Undef, 'b' => Tuple[Undef, Integer[1, 1]]}]]"},
		{name: "hash nested hash keeps its size", merge: "hash", e1: h(), e2: h(1.0, h(int64(2), a())),
			err: second + "expects a Hash[String, Data] value, got Hash[Float[1.0, 1.0], Hash[Integer[2, 2], Array[0, 0], 1, 1]]"},
		{name: "hash tuple of everything", merge: "hash", e1: h(), e2: h(int64(1), a(int64(1), 2.5, "x", a(), h())),
			err: second + "expects a Hash[String, Data] value, got Hash[Integer[1, 1], Tuple[Integer[1, 1], Float[2.5, 2.5], String, Array[0, 0], Hash[0, 0]]]"},
		// Integer ranges merge when adjacent, popping from the end.
		{name: "hash integer ranges", merge: "hash", e1: h(), e2: h(int64(1), int64(1), int64(2), 2.0, int64(3), int64(3), int64(5), int64(5), int64(4), "a", int64(6), "b", int64(7), nil),
			err: second + "expects a Hash[String, Data] value, got Hash[Variant[Integer[6, 7], Integer[3, 5], Integer[1, 2]], Optional[Variant[Integer[5, 5], Integer[3, 3], Integer[1, 1], Float[2.0, 2.0], Enum['a', 'b']]]]"},
		// Nothing merged: the Variant keeps its order.
		{name: "hash float values unmerged", merge: "hash", e1: h(), e2: h(int64(1), 1.5, int64(2), 2.5, int64(3), 1.5),
			err: second + "expects a Hash[String, Data] value, got Hash[Variant[Integer[2, 3], Integer[1, 1]], Variant[Float[1.5, 1.5], Float[2.5, 2.5]]]"},
		{name: "hash quoting", merge: "hash", e1: h(), e2: h(int64(1), h("it's", int64(1), "a\tb", int64(2))),
			err: second + "expects a Hash[String, Data] value, got Hash[Integer[1, 1], Struct[{'it\\'s' => Integer[1, 1], \"a\\tb\" => Integer[2, 2]}]]"},
		{name: "hash enum quoting", merge: "hash", e1: h(), e2: h(int64(1), "it's", int64(2), `a\b`, int64(3), "x\ny"),
			err: second + "expects a Hash[String, Data] value, got Hash[Variant[Integer[2, 3], Integer[1, 1]], Enum['a\\b', 'it\\'s', \"x\\ny\"]]"},
		{name: "hash entry not Data", merge: "hash", e1: h("a", h(int64(1), "x")), e2: h(),
			err: first + "entry 'a' expects a Data value, got Hash"},
		{name: "hash entries not Data", merge: "hash", e1: h(), e2: h("a", a(h(int64(3), int64(4))), "b", h(int64(5), int64(6))),
			err: " " + second + "entry 'a' variant 0 expects a ScalarData value, got Tuple\n" +
				"  " + second + "entry 'a' variant 1 expects a Hash value, got Tuple\n" +
				"  " + second + "entry 'a' variant 2 index 0 expects a Data value, got Hash\n" +
				"  " + second + "entry 'b' expects a Data value, got Hash"},
		{name: "hash accepts an empty-string key", merge: "hash", e1: h(), e2: h("a", int64(1), "", a(int64(1), "x"))},
		{name: "deep accepts anything", merge: "deep", e1: h(int64(1), nil), e2: nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			m, err := parseMerge(tc.merge)
			if err != nil {
				t.Fatal(err)
			}
			_, err = MergeValues(m, tc.e1, tc.e2)
			switch {
			case tc.err == "" && err != nil:
				t.Fatalf("unexpected error %v", err)
			case tc.err != "" && (err == nil || err.Error() != tc.err):
				t.Fatalf("error = %v\nwant    %s", err, tc.err)
			}
		})
	}
}

// TestMergePredicates holds the merges' own tests of their values
// (isUniqueValue, a Data hash) to the types whose messages they give
// (uniqueType, hashType): a value one accepts and the other refuses would
// fail a merge without Puppet's message, or merge what Puppet refuses.
func TestMergePredicates(t *testing.T) {
	r := rand.New(rand.NewSource(1))
	var gen func(depth int) any
	gen = func(depth int) any {
		n := 9
		if depth > 3 {
			n = 5
		}
		switch r.Intn(n) {
		case 0:
			return nil
		case 1:
			return r.Intn(2) == 0
		case 2:
			return int64(r.Intn(3))
		case 3:
			return 1.5
		case 4:
			return []string{"", "a", "b"}[r.Intn(3)]
		case 5, 6:
			l := make([]any, r.Intn(3))
			for i := range l {
				l[i] = gen(depth + 1)
			}
			return l
		}
		m := format.NewHash(0)
		for range r.Intn(3) {
			keys := []any{"a", "b", "", int64(1), nil, true}
			m.Set(keys[r.Intn(len(keys))], gen(depth+1))
		}
		return m
	}
	for range 20000 {
		v := gen(0)
		if got, want := isUniqueValue(v), uniqueType.Match(v); got != want {
			t.Errorf("isUniqueValue(%v) = %v, %s.Match = %v", v, got, uniqueType, want)
		}
		hv, ok := v.(*format.Hash)
		if got, want := ok && ptype.IsData(hv), hashType.Match(v); got != want {
			t.Errorf("hash merge accepts %v: %v, %s.Match = %v", v, got, hashType, want)
		}
	}
}
