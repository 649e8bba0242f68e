package stage

// A run that is killed leaves its temporary files behind; the next run
// that writes to OUT removes them. They are named ".<name>.tmp-<pid>-<random>"
// (staging folders ".stage.tmp-<pid>-<random>"), so that a run can tell them
// from anything else in OUT and from the files of a run still going on.

import (
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"syscall"
)

// tempPattern is os.CreateTemp's pattern for a temporary file of dst.
func tempPattern(dst string) string {
	return "." + filepath.Base(dst) + tempSuffix()
}

// tempSuffix ends every temporary name: ".tmp-<pid>-*".
func tempSuffix() string { return ".tmp-" + strconv.Itoa(os.Getpid()) + "-*" }

// tempName matches the names tempPattern gives; the group is the pid.
var tempName = regexp.MustCompile(`^\..+\.tmp-([0-9]+)-[0-9]+$`)

// IsTemp reports whether name is a temporary file (or staging folder) of
// hieracc's.
func IsTemp(name string) bool { return tempName.MatchString(name) }

// RemoveStale removes from dir the temporary files of hieracc runs
// that are over: those of a process that no longer exists. It does its
// best and reports nothing: a file it cannot remove is tried again next time.
func RemoveStale(dir string) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	for _, e := range entries {
		m := tempName.FindStringSubmatch(e.Name())
		if m == nil || !(e.Type().IsRegular() || e.IsDir()) {
			continue
		}
		if pid, err := strconv.Atoi(m[1]); err == nil && processGone(pid) {
			os.RemoveAll(filepath.Join(dir, e.Name())) // a file, or a staging folder
		}
	}
}

// processGone reports whether no process pid runs. When that cannot be
// told (another user's process, a system without signals), it is taken to
// run: a temporary file too many is better than one removed under a run.
func processGone(pid int) bool {
	if pid == os.Getpid() {
		return false
	}
	p, err := os.FindProcess(pid)
	if err != nil {
		return errors.Is(err, os.ErrProcessDone)
	}
	return errors.Is(p.Signal(syscall.Signal(0)), os.ErrProcessDone)
}
