//go:build !linux

package stage

import "os"

// syncFiles makes files (all inside dir) durable, one at a time.
func syncFiles(dir string, files []string) error {
	return fsyncEach(files)
}

// startWriteback is a no-op here: Commit syncs each file.
func startWriteback(*os.File) {}

// umask is not read here: Stage sets every bundle's mode.
func umask() (os.FileMode, bool) { return 0, false }
