//go:build !linux

package main

// syncFiles makes files (all inside dir) durable, one at a time.
func syncFiles(dir string, files []string) error {
	return fsyncEach(files)
}
