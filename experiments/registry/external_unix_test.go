//go:build unix

package registry

import (
	"bytes"
	"fmt"
	"os"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestExternalKillsProcessGroup: a program that started a child of its own and then timed out
// is killed with its whole process group: the child dies too. The timeout doubles until the
// program has started its child before it (on a loaded machine its start-up may take longer).
func TestExternalKillsProcessGroup(t *testing.T) {
	it := testJets(t, 1)[0]
	for timeout := 250 * time.Millisecond; ; timeout *= 2 {
		s, _ := startExt(t, "spawn", extOptions{timeout: timeout})
		_, err := s.Solve(t.Context(), extTask(it))
		if err == nil || !strings.Contains(err.Error(), "gave no answer within its timeout") {
			t.Fatalf("a program that never answers: %v", err)
		}
		m := regexp.MustCompile(`\| child (\d+)`).FindStringSubmatch(err.Error())
		if m == nil {
			if timeout > time.Minute {
				t.Fatalf("the error does not quote the program's stderr (its child's pid):\n%v", err)
			}
			t.Logf("timeout %v: the program had not started its child yet", timeout)
			continue
		}
		pid, _ := strconv.Atoi(m[1])
		waitGone(t, pid)
		return
	}
}

// TestExternalOrphan: a program that exits without answering while a child it started holds its
// stdout fails its task as one that exited, with its exit status, however long its timeout
// (none here): its exit is seen, and its child, in its process group, is killed with it, which
// ends its stdout. A fresh program serves the next item.
func TestExternalOrphan(t *testing.T) {
	jets := testJets(t, 2)
	s, _ := startExt(t, "orphan", extOptions{flags: []string{"-bad", "0"}})
	done := make(chan error, 1)
	go func() {
		_, err := s.Solve(t.Context(), extTask(jets[0]))
		done <- err
	}()
	var err error
	select {
	case err = <-done:
	case <-time.After(time.Minute):
		t.Fatal("Solve still waits a minute after the program exited (its child holds its stdout)")
	}
	if err == nil || !strings.Contains(err.Error(), "closed its stdout before answering (it exited: exit status 3)") {
		t.Fatalf("orphan: %v", err)
	}
	m := regexp.MustCompile(`\| child (\d+)`).FindStringSubmatch(err.Error())
	if m == nil {
		t.Fatalf("the error does not quote the program's stderr (its child's pid):\n%v", err)
	}
	pid, _ := strconv.Atoi(m[1])
	waitGone(t, pid)
	if _, err := s.Solve(t.Context(), extTask(jets[1])); err != nil {
		t.Errorf("the next item: %v", err)
	}
}

// TestExternalEscapedChild: a program that exits without answering while a child that left its
// process group (a session of its own) holds its stdout fails its task once its grace is over,
// saying so; hcbench cannot kill that child (the test does).
func TestExternalEscapedChild(t *testing.T) {
	it := testJets(t, 1)[0]
	s, _ := startExt(t, "escape", extOptions{grace: 100 * time.Millisecond}) // no event ends this wait
	_, err := s.Solve(t.Context(), extTask(it))
	m := regexp.MustCompile(`\| child (\d+)`).FindStringSubmatch(fmt.Sprint(err))
	if m != nil {
		pid, _ := strconv.Atoi(m[1])
		t.Cleanup(func() { _ = syscall.Kill(pid, syscall.SIGKILL) })
	}
	if err == nil || !strings.Contains(err.Error(), "exited (exit status 3) without answering, and its stdout stays open 100ms later: a process it started outside its process group holds it") || m == nil {
		t.Errorf("escaped child: %v", err)
	}
}

// waitGone waits for process pid to end (a minute at most, far beyond what load delays a kill
// by); it kills the process and fails the test if it does not.
func waitGone(t *testing.T, pid int) {
	t.Helper()
	for deadline := time.Now().Add(time.Minute); alive(pid); time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			_ = syscall.Kill(pid, syscall.SIGKILL)
			t.Fatalf("process %d still runs a minute after it was killed", pid)
		}
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
