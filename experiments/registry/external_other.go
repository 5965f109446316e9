//go:build !unix

package registry

import (
	"io/fs"
	"os/exec"
)

// setProcessGroup does nothing where there are no Unix process groups.
func setProcessGroup(*exec.Cmd) {}

// killProcessGroup kills the program (on Windows, without the processes it started).
func killProcessGroup(cmd *exec.Cmd) {
	if cmd.Process != nil {
		_ = cmd.Process.Kill()
	}
}

// isExecutable: the system decides by the file's extension.
func isExecutable(fs.FileInfo) bool { return true }
