package hiera

import (
	"math"
	"testing"

	"github.com/hieracc/hieracc/format"
)

// TestUniqueMergeOfInfinityAndNaN pins hieracc's message where Puppet 7.23
// crashes: a unique merge of an array with a hash whose values are
// Infinity then NaN fails in Puppet with "Could not run: comparison of
// Float with nil failed" (its type of the hash, for the message, compares
// a NaN bound). hieracc gives the merge's message, as Puppet does when the
// NaN comes first (README: "Where hieracc differs from Puppet").
func TestUniqueMergeOfInfinityAndNaN(t *testing.T) {
	const want = "The second element of the merge has wrong type, expects a value of type Scalar or Array, got Hash"
	for _, second := range []*format.Hash{
		h(int64(1), math.Inf(1), int64(2), math.NaN()),
		h(int64(1), math.NaN(), int64(2), math.Inf(1)), // Puppet's own message
	} {
		_, err := MergeValues(format.Merge{Strategy: format.MergeUnique}, a(int64(1)), second)
		if err == nil || err.Error() != want {
			t.Errorf("unique merge of [1] and %v: %v, want %q", second, err, want)
		}
	}
}
