//go:build !unix

package benchmarks

import "os"

// peakRSS is 0 where the system does not say.
func peakRSS(*os.ProcessState) int64 { return 0 }
