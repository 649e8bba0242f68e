package canon

import (
	"math"
	"testing"

	"github.com/hieracc/hieracc/format"
)

// TestCanonicalTellsValuesApart: a node's revision digests its facts
// through Append, so values that differ in any way (type, order,
// nesting, a boundary between strings) must give different texts.
func TestCanonicalTellsValuesApart(t *testing.T) {
	h := func(kv ...any) *format.Hash {
		out := format.NewHash(len(kv) / 2)
		for i := 0; i < len(kv); i += 2 {
			out.Set(kv[i], kv[i+1])
		}
		return out
	}
	values := []any{
		nil, true, false, int64(1), float64(1), "1", "", "n",
		[]any{}, []any{"a", "b"}, []any{"ab"}, []any{"a", []any{"b"}}, []any{[]any{"a"}, "b"},
		h(), h("a", "b"), h("b", "a"), h("a", "b", "c", "d"), h("c", "d", "a", "b"),
		h("a", []any{"b"}), []any{"a", "b", "c", "d"}, h(int64(1), "x"), h("1", "x"),
		float64(0.1), math.Copysign(0, -1), float64(0),
	}
	seen := map[string]int{}
	for i, v := range values {
		text := string(Append(nil, v))
		if j, dup := seen[text]; dup {
			t.Errorf("values %d (%#v) and %d (%#v) have the same canonical text %q", j, values[j], i, v, text)
		}
		seen[text] = i
	}
}
