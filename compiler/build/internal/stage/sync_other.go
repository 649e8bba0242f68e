//go:build !linux

package stage

import "os"

// syncFiles makes files (all inside dir) durable, one at a time.
func syncFiles(dir string, files []string) error {
	return fsyncEach(files)
}

// startWriteback is a no-op here: Commit syncs each file.
func startWriteback(*os.File) {}
