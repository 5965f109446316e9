package cli

import (
	"context"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/hcbench/hcbench/experiments/results"
)

// TestProgressLines: where stderr is not a terminal, a run logs a progress line per -progress
// period, while it makes its items (2000 conditioned 14-leaf jets, about 0.1 s here) and while it
// runs its tasks, so that a long run in a batch log shows how far it is.
func TestProgressLines(t *testing.T) {
	dir := t.TempDir()
	cfg := writeFile(t, dir, "p.yaml", `version: 1
name: p
datasets:
  - {name: q, generator: ginkgo, jets: 2000, min_leaves: 14, max_leaves: 14, t_cut: 4}
algorithms: [truth, greedy]
`)
	code, _, stderr := run(t, context.Background(), "run", cfg, "-out", filepath.Join(dir, "run"), "-progress", "1ms")
	if code != ExitOK {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	for _, want := range []string{"msg=progress of=items done=", "msg=progress of=tasks done="} {
		if !strings.Contains(stderr, want) {
			t.Errorf("stderr has no %q line:\n%s", want, stderr)
		}
	}
}

// TestSIGINTKeepsFinishedRecords interrupts a run in another process with SIGINT, as Ctrl-C does:
// it stops with exit code 130, the manifest says interrupted, every record written is whole, and
// the same command resumes the run to the records of an uninterrupted one.
func TestSIGINTKeepsFinishedRecords(t *testing.T) {
	dir := t.TempDir()
	cfg := writeFile(t, dir, "slow.yaml", slowConfig)
	out := filepath.Join(dir, "run")
	cmd, log := startRun(t, cfg, out, 20)
	if err := cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	if err := cmd.Wait(); cmd.ProcessState.ExitCode() != ExitInterrupted {
		t.Fatalf("exit %d (%v), want %d\n%s", cmd.ProcessState.ExitCode(), err, ExitInterrupted, log)
	}
	m, err := results.ReadManifest(filepath.Join(out, results.ManifestFile))
	if err != nil || m.Status != results.StatusInterrupted {
		t.Fatalf("manifest after SIGINT: status %q, %v", m.Status, err)
	}
	kept, err := results.ReadFile(filepath.Join(out, results.ResultsFile))
	if err != nil || len(kept) < 20 || len(kept) >= slowTasks {
		t.Fatalf("after SIGINT: %d records, %v; want whole records, at least 20 and not all %d", len(kept), err, slowTasks)
	}
	if code, stdout, stderr := run(t, context.Background(), "run", cfg, "-out", out); code != ExitOK {
		t.Fatalf("resume: exit %d\n%s%s", code, stdout, stderr)
	}
	if got := readRecords(t, out); len(got) != slowTasks {
		t.Errorf("%d records after resuming, want %d", len(got), slowTasks)
	}
}
