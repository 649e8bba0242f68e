//go:build darwin || freebsd || netbsd

package build

import (
	"io/fs"
	"syscall"
)

// changeTime is the file's change time (ctime) and inode number.
func changeTime(st fs.FileInfo) (ctime int64, ino uint64, ok bool) {
	s, ok := st.Sys().(*syscall.Stat_t)
	if !ok {
		return 0, 0, false
	}
	return s.Ctimespec.Nano(), uint64(s.Ino), true
}
