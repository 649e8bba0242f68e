// Package cputime reads the CPU time the process has used, for benchmarks
// on shared machines: a compile on a fixed number of cores pays for its
// CPU, garbage collection included, and wall time, which other jobs on a
// busy machine distort more, says less about it.
package cputime

import "time"

// Used is the CPU time (user and system) the process has used so far, or
// 0 where the system does not tell.
func Used() time.Duration { return used() }
