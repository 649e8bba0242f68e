package compiler

import (
	"testing"

	"github.com/hieracc/hieracc/format"
)

// TestContributionsBufIsItsOwn: slices cut from one chunk never overlap,
// even when one is appended to past its size.
func TestContributionsBufIsItsOwn(t *testing.T) {
	var w worker
	for _, n := range []int{1, 2, contribChunk - 3, contribChunk, contribChunk + 1} {
		a := w.contributionsBuf(n)
		b := w.contributionsBuf(n)
		if len(a) != 0 || cap(a) != n || len(b) != 0 || cap(b) != n {
			t.Fatalf("contributionsBuf(%d): len %d, %d, cap %d, %d; want 0, %d", n, len(a), len(b), cap(a), cap(b), n)
		}
		b = append(b, format.Contribution{Line: 1})
		for range n {
			a = append(a, format.Contribution{Line: 2})
		}
		a = append(a, format.Contribution{Line: 2})
		if len(a) != n+1 || a[n].Line != 2 {
			t.Errorf("contributionsBuf(%d): append gave %d entries", n, len(a))
		}
		if b[0].Line != 1 {
			t.Errorf("contributionsBuf(%d): appending to one slice changed the next", n)
		}
	}
}
