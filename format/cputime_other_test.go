//go:build !unix

package format

import "time"

func cpuTime() time.Duration { return 0 }
