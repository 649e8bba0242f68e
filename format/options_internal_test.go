package format

import (
	"strconv"
	"testing"
)

// TestOptionsPatternBounded: the process-wide cache of compiled patterns
// stops growing at maxPatterns (a server reading bundles for months), and
// patterns past it still compile and match.
func TestOptionsPatternBounded(t *testing.T) {
	for i := range maxPatterns + 100 {
		re, err := OptionsPattern("^bounded" + strconv.Itoa(i) + "$")
		if err != nil || !re.MatchString("bounded"+strconv.Itoa(i)) {
			t.Fatalf("pattern %d: %v, %v", i, re, err)
		}
	}
	n := 0
	patterns.Range(func(any, any) bool { n++; return true })
	if n > maxPatterns {
		t.Errorf("%d patterns cached, want at most %d", n, maxPatterns)
	}
	if _, err := OptionsPattern("^bad("); err == nil {
		t.Error("a bad pattern compiled once the cache is full")
	}
}
