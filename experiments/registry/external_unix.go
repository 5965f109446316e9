//go:build unix

package registry

import (
	"io/fs"
	"os/exec"
	"syscall"
)

// setProcessGroup starts the program in a process group of its own, so that killing it kills
// what it started too, and a terminal's Ctrl-C reaches hcbench alone (which then kills it).
func setProcessGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
}

// killProcessGroup kills the program's process group (the program and every process it started
// that stayed in it) with SIGKILL.
func killProcessGroup(cmd *exec.Cmd) {
	if cmd.Process == nil {
		return
	}
	_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	_ = cmd.Process.Kill() // in case the group could not be signalled
}

// isExecutable reports whether a file has an execute bit.
func isExecutable(fi fs.FileInfo) bool { return fi.Mode()&0o111 != 0 }
