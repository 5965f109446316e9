//go:build unix

package cli

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/hcbench/hcbench/experiments/results"
)

// TestResumeInterruptedWhileReadingRecords: Ctrl-C while a resume reads the records already in
// the run directory (held there by a FIFO in place of results.jsonl, which the test feeds) exits
// 130 and says how to resume, as an interruption at any later point does.
func TestResumeInterruptedWhileReadingRecords(t *testing.T) {
	dir := t.TempDir()
	cfg := writeFile(t, dir, "small.yaml", smallConfig)
	out := filepath.Join(dir, "run")
	runOK(t, "run", cfg, "-out", out)
	path := filepath.Join(out, results.ResultsFile)
	recs := mustRead(t, path)
	if err := os.Remove(path); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(path, 0o644); err != nil {
		t.Skipf("no FIFO: %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	// Opening the FIFO to write returns once the resume opens it to read: it is reading the
	// records then. Ctrl-C comes then, and the records after it, whole: a read that waits for
	// them returns with them, and the next read sees the cancel (were they written first, a
	// reader that holds the FIFO open for writing too, and so never sees its end, could be
	// waiting for more when the cancel comes, deaf to it).
	fed := make(chan error, 1)
	go func() {
		w, err := os.OpenFile(path, os.O_WRONLY, 0)
		if err != nil {
			fed <- err
			return
		}
		cancel()
		// The resume may have stopped reading already: the write then fails, as it may.
		w.WriteString(recs)
		w.Close()
		fed <- nil
	}()
	var stdout, stderr syncBuffer
	done := make(chan int, 1)
	go func() { done <- Run(ctx, []string{"run", cfg, "-out", out}, &stdout, &stderr) }()
	var code int
	select {
	case code = <-done:
	case <-time.After(startLimit):
		t.Fatalf("the resume did not end:\n%s", stderr.String())
	}
	if code == ExitInterrupted { // the feeder cancelled: it is done
		if err := <-fed; err != nil {
			t.Fatal(err)
		}
	}
	want := "resume with: hcbench run " + cfg + " -out " + out + "\n"
	if code != ExitInterrupted || !strings.Contains(stderr.String(), want) {
		t.Errorf("exit %d, want %d and %q\n%s%s", code, ExitInterrupted, want, stdout.String(), stderr.String())
	}
}
