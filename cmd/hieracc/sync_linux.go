package main

import (
	"os"

	"golang.org/x/sys/unix"
)

// syncFiles makes files (all inside dir) durable. On Linux one syncfs(2)
// of dir's filesystem does it for all of them in a single flush; when the
// call fails, each file is synced on its own.
func syncFiles(dir string, files []string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	if unix.Syncfs(int(d.Fd())) == nil {
		return nil
	}
	return fsyncEach(files)
}
