//go:build !unix

package rubybackend

import (
	"os"
	"os/exec"
)

func ownGroup(*exec.Cmd) {}

func killGroup(p *os.Process) { p.Kill() }
