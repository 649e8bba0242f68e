package main

import (
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/hieracc/hieracc/compiler"
)

// writeStages prints, for compile --verbose, where the compile's time went:
// each stage (compiler.Result.Stages), its time summed over the workers
// that ran it in parallel (so the total exceeds the wall time with more
// than one), and its share of that total.
func writeStages(w io.Writer, stages []compiler.StageTime) error {
	if len(stages) == 0 {
		return nil
	}
	var total time.Duration
	width := len("total")
	for _, st := range stages {
		total += st.Time
		width = max(width, len(st.Name))
	}
	var b strings.Builder
	row := func(name string, d time.Duration) {
		share := 0.0
		if total > 0 {
			share = 100 * float64(d) / float64(total)
		}
		fmt.Fprintf(&b, "  %-*s %10s %6.1f%%\n", width, name, roundDuration(d), share)
	}
	fmt.Fprintf(&b, "time per stage, summed over the workers:\n")
	for _, st := range stages {
		row(st.Name, st.Time)
	}
	row("total", total)
	_, err := io.WriteString(w, b.String())
	return err
}

// roundDuration keeps three significant digits of d (1.23s, 45.6ms, 789µs).
func roundDuration(d time.Duration) time.Duration {
	for unit := time.Duration(1); unit < time.Hour; unit *= 10 {
		if d < 1000*unit {
			return d.Round(unit)
		}
	}
	return d.Round(time.Second)
}
