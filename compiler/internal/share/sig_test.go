package share

import (
	"testing"

	"github.com/hieracc/hieracc/format"
)

// TestConvertIDByValue: a worker numbers convert_to specs by what they
// say, not by where they are in memory.
func TestConvertIDByValue(t *testing.T) {
	spec := func(to string) []format.Value {
		h := format.NewHash(1)
		h.Set("to", to)
		return []format.Value{"Array", h}
	}
	var w Worker
	a, b, c := w.convertID(spec("x")), w.convertID(spec("x")), w.convertID(spec("y"))
	if a == 0 || a != b || a == c {
		t.Errorf("convertID: %d and %d for equal specs, %d for another", a, b, c)
	}
	if w.convertID(nil) != 0 {
		t.Error("convertID(nil) is not 0")
	}
	deep, first := w.mergeID(format.Merge{Strategy: "deep"}), w.mergeID(format.Merge{})
	if again := w.mergeID(format.Merge{Strategy: "deep"}); deep == 0 || again != deep || first == deep {
		t.Errorf("mergeID: %d and %d for the same merge, %d for another", deep, again, first)
	}
}
