//go:build unix

package registry

import (
	"bytes"
	"fmt"
	"os"
	"regexp"
	"strconv"
	"syscall"
	"testing"
	"time"
)

// TestExternalKillsProcessGroup: a program that started a child of its own and then timed out
// is killed with its whole process group: the child dies too.
func TestExternalKillsProcessGroup(t *testing.T) {
	it := testJets(t, 1)[0]
	s, _ := startExt(t, "spawn", extOptions{timeout: 500 * time.Millisecond})
	_, err := s.Solve(t.Context(), extTask(it))
	if err == nil {
		t.Fatal("a program that never answers did not time out")
	}
	m := regexp.MustCompile(`\| child (\d+)`).FindStringSubmatch(err.Error())
	if m == nil {
		t.Fatalf("the error does not quote the program's stderr (its child's pid):\n%v", err)
	}
	pid, _ := strconv.Atoi(m[1])
	deadline := time.Now().Add(5 * time.Second)
	for alive(pid) {
		if time.Now().After(deadline) {
			_ = syscall.Kill(pid, syscall.SIGKILL)
			t.Fatalf("the program's child %d outlived it by 5 s", pid)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// alive reports whether a process runs: it exists and is not a zombie waiting for its reaper.
func alive(pid int) bool {
	if err := syscall.Kill(pid, 0); err != nil {
		return false
	}
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return true // no /proc: trust kill
	}
	if i := bytes.LastIndexByte(stat, ')'); i >= 0 && i+2 < len(stat) {
		return stat[i+2] != 'Z'
	}
	return true
}
