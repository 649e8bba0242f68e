//go:build unix

package rubybackend

import (
	"os"
	"os/exec"
	"syscall"
)

// ownGroup starts the helper in a process group of its own, so that
// killGroup reaches what its functions started too.
func ownGroup(cmd *exec.Cmd) { cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true} }

// killGroup kills the helper and every process left in its group (a
// function's fork, a daemon it started): none outlives the compile.
func killGroup(p *os.Process) {
	if syscall.Kill(-p.Pid, syscall.SIGKILL) != nil {
		p.Kill()
	}
}
