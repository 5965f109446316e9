package cli

import (
	"bufio"
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// peakEnv names the file in which hcbench, run from the test binary (TestMain), writes its peak
// resident memory as it exits: its own, the VmHWM of Linux's /proc/self/status, in KiB. wait4's
// ru_maxrss would count the test process's too: Go starts a child with vfork, and Linux's exec
// keeps the resident size of the memory the child leaves, the parent's, in the child's maximum
// (a test binary grown to 270 MB, as under -race, made every child's peak 270 MB).
const peakEnv = "HCBENCH_TEST_PEAK_FILE"

// measurePeak makes cmd, a command(t, …), report its peak resident memory; the function returned
// reads it once cmd has ended: in KiB, and false where it is unknown (no /proc).
func measurePeak(t *testing.T, cmd *exec.Cmd) func() (int64, bool) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "peak")
	cmd.Env = append(cmd.Env, peakEnv+"="+path)
	return func() (int64, bool) {
		b, err := os.ReadFile(path)
		if err != nil {
			return 0, false
		}
		kib, err := strconv.ParseInt(strings.TrimSpace(string(b)), 10, 64)
		return kib, err == nil
	}
}

// writePeak writes the process's peak resident memory in KiB (VmHWM) to the file peakEnv names,
// if any; without /proc it writes nothing.
func writePeak() {
	path := os.Getenv(peakEnv)
	if path == "" {
		return
	}
	status, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return
	}
	sc := bufio.NewScanner(bytes.NewReader(status))
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "VmHWM:"); ok {
			os.WriteFile(path, []byte(strings.TrimSuffix(strings.TrimSpace(v), " kB")+"\n"), 0o644)
			return
		}
	}
}
