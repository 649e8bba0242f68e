//go:build !unix

package stage

import "os"

// lockFile does nothing here: there is no flock(2).
func lockFile(*os.File) error { return nil }
