package cputime

import (
	"runtime"
	"testing"
	"time"
)

// TestUsedGrowsWithWork: spinning for a while shows as CPU time used.
func TestUsedGrowsWithWork(t *testing.T) {
	if runtime.GOOS == "windows" || runtime.GOOS == "plan9" || runtime.GOOS == "js" || runtime.GOOS == "wasip1" {
		t.Skip("no CPU time on " + runtime.GOOS)
	}
	before := Used()
	deadline := time.Now().Add(50 * time.Millisecond)
	x := 0
	for time.Now().Before(deadline) {
		x++
	}
	if got := Used() - before; got < 10*time.Millisecond {
		t.Errorf("50 ms of spinning (%d rounds) used %v of CPU, want 10 ms or more", x, got)
	}
}
