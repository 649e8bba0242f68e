//go:build unix

package format

import (
	"syscall"
	"time"
)

// cpuTime is the CPU time the process has used, GC included: what a
// compile on a fixed number of cores pays. Benchmarks report it next to
// wall time, which a busy machine distorts more.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
