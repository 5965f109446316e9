//go:build unix

package cli

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/hcbench/hcbench/experiments/results"
)

// TestReportWriteError rebuilds the reports of a run in another process under a file size limit
// (RLIMIT_FSIZE, as a full disk would) that the largest Markdown report and the plots exceed: the
// command fails naming the error, every report file is as it was (none cut or emptied: they were
// written in place), no temporary file is left, and the reports it lists as written are the
// whole ones (a Markdown report whose writes failed was listed).
func TestReportWriteError(t *testing.T) {
	dir := t.TempDir()
	cfg := writeFile(t, dir, "small.yaml", smallConfig+"reports: [summary, runtime, likelihood_gap]\n")
	out := filepath.Join(dir, "run")
	runOK(t, "run", cfg, "-out", out)
	reportsDir := filepath.Join(out, results.ReportsDir)
	before := map[string]string{}
	entries, err := os.ReadDir(reportsDir)
	if err != nil {
		t.Fatal(err)
	}
	largestMD, limit := "", 0
	for _, e := range entries {
		p := filepath.Join(reportsDir, e.Name())
		before[e.Name()] = mustRead(t, p)
		if n := len(before[e.Name()]); filepath.Ext(p) == ".md" && n > limit+1 {
			largestMD, limit = p, n-1
		}
	}
	var smaller []string
	for name, b := range before {
		if len(b) <= limit {
			smaller = append(smaller, name)
		}
	}
	if len(smaller) == 0 {
		t.Fatalf("no report file within the limit %d bytes that the largest Markdown report exceeds", limit)
	}
	t.Logf("limit %d bytes: %s is larger; within it: %s", limit, filepath.Base(largestMD), strings.Join(smaller, " "))

	cmd := command(t, "report", out)
	cmd.Env = append(cmd.Env, "HCBENCH_TEST_FSIZE="+strconv.Itoa(limit))
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err = cmd.Run()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != ExitFailure || !strings.Contains(stderr.String(), "file too large") {
		t.Fatalf("report under a file size limit: %v, want exit %d naming the error\n%s%s", err, ExitFailure, &stdout, &stderr)
	}
	after, err := os.ReadDir(reportsDir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range after {
		b := mustRead(t, filepath.Join(reportsDir, e.Name()))
		switch old, ok := before[e.Name()]; {
		case !ok:
			t.Errorf("report left %s behind", e.Name())
		case b != old:
			t.Errorf("%s: %d bytes, was %d: a failed write changed it", e.Name(), len(b), len(old))
		}
	}
	if len(after) != len(before) {
		t.Errorf("%d report files, were %d", len(after), len(before))
	}
	var listed []string
	for line := range strings.Lines(stdout.String()) {
		if p, ok := strings.CutPrefix(strings.TrimSpace(line), "report: "); ok {
			listed = append(listed, p)
		}
	}
	if slices.Contains(listed, largestMD) {
		t.Errorf("%s is listed as written, but no more than %d of its %d bytes could be", largestMD, limit, limit+1)
	}
	for _, name := range smaller {
		if p := filepath.Join(reportsDir, name); filepath.Ext(name) == ".md" && !slices.Contains(listed, p) {
			t.Errorf("%s, written whole, is not listed:\n%s", p, &stdout)
		}
	}
}
