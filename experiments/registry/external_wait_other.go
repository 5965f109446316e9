//go:build !linux

package registry

import "os/exec"

// waitProgram waits for a started program to exit and reaps it, then kills what it left in its
// process group (a child holding its stdout): without waitid's WNOWAIT, after the reaping (the
// pid, which names the group, stays reserved while the group has members, so the kill reaches
// them).
func waitProgram(cmd *exec.Cmd) error {
	err := cmd.Wait()
	killProcessGroup(cmd)
	return err
}
