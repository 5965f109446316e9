package registry

import (
	"errors"
	"os/exec"

	"golang.org/x/sys/unix"
)

// waitProgram waits for a started program to exit, kills what it left in its process group (a
// child holding its stdout), and reaps it. The kill comes between its exit and its reaping
// (waitid with WNOWAIT), while its pid still names the group.
func waitProgram(cmd *exec.Cmd) error {
	var info unix.Siginfo
	for {
		err := unix.Waitid(unix.P_PID, cmd.Process.Pid, &info, unix.WEXITED|unix.WNOWAIT, nil)
		if !errors.Is(err, unix.EINTR) {
			break
		}
	}
	killProcessGroup(cmd)
	return cmd.Wait()
}
