//go:build unix

package externaltest

import (
	"os/exec"
	"syscall"
)

// detach starts cmd in a session of its own, out of its parent's process group.
func detach(cmd *exec.Cmd) { cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true} }
