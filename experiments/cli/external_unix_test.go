//go:build unix

package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/hcbench/hcbench/internal/externaltest"
)

// TestExternalRunInterrupted: Ctrl-C during a run whose external program is busy (it started a
// child and never answers) stops the run (exit 130), and kills the program and its child. The
// cancel comes once the log shows the child started.
func TestExternalRunInterrupted(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	q, _ := json.Marshal(exe)
	dir := t.TempDir()
	cfg := writeFile(t, dir, "ext.yaml", fmt.Sprintf(`version: 1
name: ext
datasets:
  - {name: qcd, generator: ginkgo, jets: 2, min_leaves: 3, max_leaves: 5, t_cut: 16}
algorithms:
  - {name: external, label: busy, command: [%s, %s, spawn]}
`, q, externaltest.Arg))
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var stdout, stderr syncBuffer
	child := regexp.MustCompile(`pid=(\d+) line="child (\d+)"`)
	code := make(chan int, 1)
	go func() {
		code <- Run(ctx, []string{"run", cfg, "-out", filepath.Join(dir, "run"), "-workers", "1"}, &stdout, &stderr)
	}()
	var m []string
	for deadline := time.Now().Add(time.Minute); m == nil; time.Sleep(5 * time.Millisecond) {
		if m = child.FindStringSubmatch(stderr.String()); m == nil && time.Now().After(deadline) {
			cancel()
			t.Fatalf("the log does not show the program's child after a minute:\n%s", stderr.String())
		}
	}
	cancel()
	select {
	case c := <-code:
		if c != ExitInterrupted {
			t.Fatalf("exit %d, want %d\n%s%s", c, ExitInterrupted, stdout.String(), stderr.String())
		}
	case <-time.After(time.Minute):
		t.Fatal("the run still runs a minute after Ctrl-C")
	}
	for _, s := range m[1:] {
		pid, _ := strconv.Atoi(s)
		deadline := time.Now().Add(time.Minute)
		for syscall.Kill(pid, 0) == nil && !zombie(pid) {
			if time.Now().After(deadline) {
				_ = syscall.Kill(pid, syscall.SIGKILL)
				t.Fatalf("process %d still runs a minute after the run stopped", pid)
			}
			time.Sleep(5 * time.Millisecond)
		}
	}
}

// zombie reports whether a process has exited and waits for its parent to reap it.
func zombie(pid int) bool {
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false
	}
	i := len(stat) - 1
	for i >= 0 && stat[i] != ')' {
		i--
	}
	return i >= 0 && i+2 < len(stat) && stat[i+2] == 'Z'
}
