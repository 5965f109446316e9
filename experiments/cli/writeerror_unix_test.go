//go:build unix

package cli

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"hcbench/experiments/results"
	"hcbench/experiments/runner"
)

// TestRecordWriteErrorLeavesRunIncomplete runs with a file size limit (RLIMIT_FSIZE, as a full
// disk would) that the results file outgrows: the writes past it fail, and the manifest must
// say incomplete, not complete, so that compare and report do not take the run for a finished
// one. Without the limit the same command resumes it to complete.
func TestRecordWriteErrorLeavesRunIncomplete(t *testing.T) {
	dir := t.TempDir()
	cfg := writeFile(t, dir, "small.yaml", smallConfig)
	full, out := filepath.Join(dir, "full"), filepath.Join(dir, "run")
	runOK(t, "run", cfg, "-out", full)

	// 16 KiB holds config.yaml, tasks.txt, the manifest and run.log, but not the 80 records
	// (about 45 KiB). Go ignores SIGXFSZ, so a write past the limit fails with EFBIG.
	const limit = 16 << 10
	var old syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_FSIZE, &old); err != nil {
		t.Skipf("no file size limit: %v", err)
	}
	if old.Cur < limit {
		t.Skipf("the file size limit is %d bytes already", old.Cur)
	}
	restore := func() {
		if err := syscall.Setrlimit(syscall.RLIMIT_FSIZE, &old); err != nil {
			t.Fatalf("cannot restore the file size limit: %v", err)
		}
	}
	lim := old
	lim.Cur = limit
	if err := syscall.Setrlimit(syscall.RLIMIT_FSIZE, &lim); err != nil {
		t.Skipf("cannot limit the file size: %v", err)
	}
	t.Cleanup(restore)
	code, stdout, stderr := run(t, context.Background(), "run", cfg, "-out", out)
	restore()

	m := readManifest(t, filepath.Join(out, runner.ManifestFile))
	if code != ExitFailure || m.Status != results.StatusIncomplete || m.Finished >= m.Tasks || !strings.Contains(stderr, "file too large") {
		t.Fatalf("run whose records could not all be written: exit %d, status %q, %d of %d tasks recorded; want exit %d, status %q\n%s%s",
			code, m.Status, m.Finished, m.Tasks, ExitFailure, results.StatusIncomplete, stdout, stderr)
	}
	// The write that crossed the limit left part of its line, as a full disk can; cut it off,
	// as a resume would, so that compare and report read the records and judge the status.
	rpath := filepath.Join(out, runner.ResultsFile)
	b, err := os.ReadFile(rpath)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(rpath, b[:bytes.LastIndexByte(b, '\n')+1], 0o644); err != nil {
		t.Fatal(err)
	}
	code, stdout, _ = run(t, context.Background(), "compare", full, out)
	if code != ExitFailure || !strings.Contains(stdout, "NEW did not finish (incomplete, ") {
		t.Errorf("compare with the incomplete run: exit %d\n%s", code, stdout)
	}
	if code, _, stderr := run(t, context.Background(), "report", out); code != ExitFailure || !strings.Contains(stderr, "is not a finished run (status incomplete") {
		t.Errorf("report on the incomplete run: exit %d\n%s", code, stderr)
	}

	stdout = runOK(t, "run", cfg, "-out", out)
	if m := readManifest(t, filepath.Join(out, runner.ManifestFile)); m.Status != results.StatusComplete || m.Finished != m.Tasks || !strings.Contains(stdout, "tasks: 80 finished of 80") {
		t.Errorf("resume: status %q, %d of %d tasks\n%s", m.Status, m.Finished, m.Tasks, stdout)
	}
	runOK(t, "compare", full, out)
}
