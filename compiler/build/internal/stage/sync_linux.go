package stage

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

// startWriteback asks the kernel to start writing f's data to disk now,
// without waiting: by the time Commit syncs, little is left to write.
func startWriteback(f *os.File) {
	_ = unix.SyncFileRange(int(f.Fd()), 0, 0, unix.SYNC_FILE_RANGE_WRITE)
}
