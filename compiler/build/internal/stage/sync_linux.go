package stage

import (
	"bytes"
	"os"
	"strconv"

	"golang.org/x/sys/unix"
)

// syncFiles makes files (all inside dir) durable. On Linux one syncfs(2)
// of dir's filesystem does it for all of them in a single flush; when the
// call fails, each file is synced on its own. A few files (an incremental
// build's) are synced on their own from the start: syncfs also waits for
// everything else written to the filesystem, by any process, which can
// take seconds on a busy machine.
func syncFiles(dir string, files []string) error {
	if len(files) <= fsyncEachMax {
		return fsyncEach(files)
	}
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

// fsyncEachMax is the most files syncFiles syncs one by one.
const fsyncEachMax = 32

// startWriteback asks the kernel to start writing f's data to disk now,
// without waiting: by the time Commit syncs, little is left to write.
func startWriteback(f *os.File) {
	_ = unix.SyncFileRange(int(f.Fd()), 0, 0, unix.SYNC_FILE_RANGE_WRITE)
}

// umask is the process's file mode creation mask, read without changing
// it (umask(2) can only be read by setting it, a race with files being
// created meanwhile); ok is false when it cannot be read.
func umask() (mask os.FileMode, ok bool) {
	status, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0, false
	}
	for line := range bytes.Lines(status) {
		if v, found := bytes.CutPrefix(line, []byte("Umask:")); found {
			m, err := strconv.ParseUint(string(bytes.TrimSpace(v)), 8, 32)
			return os.FileMode(m), err == nil
		}
	}
	return 0, false
}
