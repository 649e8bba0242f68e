package cputime

import (
	"runtime"
	"testing"
	"time"
)

// TestUsedGrowsWithWork: spinning shows as CPU time used. The spin ends
// when 10 ms of CPU show, or after 10 s of wall time, which only a clock
// that never moves takes (a busy machine gives a spinning thread a share
// of a core, not nothing).
func TestUsedGrowsWithWork(t *testing.T) {
	switch runtime.GOOS {
	case "windows", "plan9", "js", "wasip1":
		t.Skip("no CPU time on " + runtime.GOOS)
	}
	before := Used()
	deadline := time.Now().Add(10 * time.Second)
	rounds := 0
	for Used()-before < 10*time.Millisecond {
		if time.Now().After(deadline) {
			t.Fatalf("10 s of spinning (%d rounds) used %v of CPU, want 10 ms or more", rounds, Used()-before)
		}
		for range 100000 {
			rounds++
		}
	}
}
