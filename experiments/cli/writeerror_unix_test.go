//go:build unix

package cli

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/hcbench/hcbench/experiments/results"
	"github.com/hcbench/hcbench/reports"
)

// limitFileSize sets RLIMIT_FSIZE of this process to the number of bytes in spec ("" sets none).
// A write past it fails with EFBIG, as on a full disk (Go ignores SIGXFSZ).
func limitFileSize(spec string) error {
	if spec == "" {
		return nil
	}
	n, err := strconv.ParseUint(spec, 10, 64)
	if err != nil {
		return fmt.Errorf("HCBENCH_TEST_FSIZE=%q: %v", spec, err)
	}
	var lim syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_FSIZE, &lim); err != nil {
		return err
	}
	lim.Cur = min(n, lim.Max)
	return syscall.Setrlimit(syscall.RLIMIT_FSIZE, &lim)
}

// stopLine matches the log line of a run stopped by a write error, with the tasks it recorded
// and those it had started.
var stopLine = regexp.MustCompile(`msg="the run stops: a record could not be written".* recorded=(\d+) started=(\d+)`)

// checkStopped checks that a run stopped by a write error started no task after it: at most one
// task per worker was in flight when the write failed.
func checkStopped(t *testing.T, stderr string, workers int) {
	t.Helper()
	m := stopLine.FindStringSubmatch(stderr)
	if m == nil {
		t.Errorf("no log line of the run stopping:\n%s", lastLines(stderr, 20))
		return
	}
	recorded, _ := strconv.Atoi(m[1])
	started, _ := strconv.Atoi(m[2])
	t.Logf("%d tasks recorded, %d started", recorded, started)
	if started > recorded+workers {
		t.Errorf("%d tasks started, %d recorded, %d workers: tasks went on after the run stopped", started, recorded, workers)
	}
}

// TestRecordWriteErrorLeavesRunIncomplete runs, in another process, with a file size limit
// (RLIMIT_FSIZE, as a full disk would) that the results file outgrows: the first write past it
// stops the run at once with one message, and the manifest says incomplete, not complete, so that
// compare and report do not take the run for a finished one. Without the limit the same command
// resumes it to complete.
func TestRecordWriteErrorLeavesRunIncomplete(t *testing.T) {
	dir := t.TempDir()
	cfg := writeFile(t, dir, "small.yaml", smallConfig)
	full, out := filepath.Join(dir, "full"), filepath.Join(dir, "run")
	runOK(t, "run", cfg, "-out", full)

	// 16 KiB holds config.yaml, tasks.txt, the manifest and run.log, but not the 80 records
	// (about 45 KiB).
	cmd := command(t, "run", cfg, "-out", out, "-workers", "2")
	cmd.Env = append(cmd.Env, "HCBENCH_TEST_FSIZE=16384")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != ExitFailure {
		t.Fatalf("run: %v, want exit %d\n%s%s", err, ExitFailure, &stdout, &stderr)
	}
	m := readManifest(t, filepath.Join(out, results.ManifestFile))
	if m.Status != results.StatusIncomplete || m.Finished >= m.Tasks {
		t.Fatalf("run whose records could not all be written: status %q, %d of %d tasks recorded; want status %q\n%s%s",
			m.Status, m.Finished, m.Tasks, results.StatusIncomplete, &stdout, &stderr)
	}
	// One message, not one per task; and no task finished after the failed write but those that
	// were in flight (one per worker).
	if n := strings.Count(stderr.String(), "file too large"); n != 2 { // the log's error line and the command's
		t.Errorf("the write error is reported %d times, want once in the log and once by the command:\n%s", n, &stderr)
	}
	checkStopped(t, stderr.String(), 2)
	// The write that crossed the limit left part of its line, as a full disk can; cut it off,
	// as a resume would, so that compare and report read the records and judge the status.
	rpath := filepath.Join(out, results.ResultsFile)
	b, err := os.ReadFile(rpath)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(rpath, b[:bytes.LastIndexByte(b, '\n')+1], 0o644); err != nil {
		t.Fatal(err)
	}
	code, out2, _ := run(t, context.Background(), "compare", full, out)
	if code != ExitFailure || !strings.Contains(out2, "NEW did not finish (incomplete, ") {
		t.Errorf("compare with the incomplete run: exit %d\n%s", code, out2)
	}
	if code, _, stderr := run(t, context.Background(), "report", out); code != ExitFailure || !strings.Contains(stderr, "is not a finished run (status incomplete") {
		t.Errorf("report on the incomplete run: exit %d\n%s", code, stderr)
	}

	resumed := runOK(t, "run", cfg, "-out", out)
	if m := readManifest(t, filepath.Join(out, results.ManifestFile)); m.Status != results.StatusComplete || m.Finished != m.Tasks || !strings.Contains(resumed, "tasks: 80 finished of 80") {
		t.Errorf("resume: status %q, %d of %d tasks\n%s", m.Status, m.Finished, m.Tasks, resumed)
	}
	runOK(t, "compare", full, out)
}

// TestFullDisk runs into a 2 MiB tmpfs (as root, where mounting one is allowed; skipped
// elsewhere) a config whose records need more: the first failed write stops the run with one
// message, and the final manifest, which a full disk would refuse too, is still written from the
// space the run reserved: it says incomplete. The run resumes to complete where there is room.
func TestFullDisk(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("mounting a tmpfs needs root")
	}
	mnt := t.TempDir()
	if out, err := exec.Command("mount", "-t", "tmpfs", "-o", "size=2m", "tmpfs", mnt).CombinedOutput(); err != nil {
		t.Skipf("cannot mount a tmpfs: %v %s", err, out)
	}
	t.Cleanup(func() {
		if out, err := exec.Command("umount", mnt).CombinedOutput(); err != nil {
			t.Errorf("umount %s: %v %s", mnt, err, out)
		}
	})
	dir := t.TempDir()
	cfg := writeFile(t, dir, "big.yaml", `version: 1
name: big
seed: 4
datasets:
  - {name: qcd, generator: ginkgo, jets: 5000, min_leaves: 5, max_leaves: 9, t_cut: 16}
algorithms: [truth, greedy]
`)
	out := filepath.Join(mnt, "run")
	code, stdout, stderr := run(t, context.Background(), "run", cfg, "-out", out)
	if code != ExitFailure {
		t.Fatalf("exit %d, want %d\n%s%s", code, ExitFailure, stdout, stderr)
	}
	if n := strings.Count(stderr, "no space left on device"); n != 2 { // the log's error line and the command's
		t.Errorf("the write error is reported %d times, want twice (log and command):\n%s", n, lastLines(stderr, 20))
	}
	m := readManifest(t, filepath.Join(out, results.ManifestFile))
	if m.Status != results.StatusIncomplete || m.Finished >= m.Tasks {
		t.Errorf("manifest on a full disk: status %q, %d of %d tasks; want incomplete\n%s", m.Status, m.Finished, m.Tasks, lastLines(stderr, 20))
	}
	checkStopped(t, stderr, m.Workers)
	// Resume where there is room: the torn last record is dropped, and the run completes.
	moved := filepath.Join(dir, "run")
	if out, err := exec.Command("cp", "-a", out, moved).CombinedOutput(); err != nil {
		t.Fatalf("cp: %v %s", err, out)
	}
	resumed := runOK(t, "run", cfg, "-out", moved)
	if m := readManifest(t, filepath.Join(moved, results.ManifestFile)); m.Status != results.StatusComplete || !strings.Contains(resumed, "tasks: 10000 finished of 10000") {
		t.Errorf("resume: status %q\n%s", m.Status, resumed)
	}
}

// blockingReportEnv names, in a test's hcbench process, the file that the report "blocking"
// reads to its end before it returns, writing nothing (see init): a FIFO holds the run in the
// writing of its reports until the test opens the FIFO to write and then closes it.
const blockingReportEnv = "HCBENCH_TEST_BLOCKING_REPORT"

func init() {
	if path := os.Getenv(blockingReportEnv); path != "" {
		reports.Register(reports.Report{Name: "blocking", Help: "a test's: reads $" + blockingReportEnv, Build: func(reports.Input, string) ([]string, error) {
			b, err := os.ReadFile(path)
			if len(b) > 0 {
				err = errors.New("the blocking report read data")
			}
			return nil, err
		}})
	}
}

// TestKilledWhileWritingReports kills, with SIGKILL, a run that is writing its reports (held
// there by the report "blocking", reading a FIFO that nobody writes to; report files are
// written through temporary files renamed into place, so a FIFO in place of one holds nothing):
// the manifest must not say complete then, nor after the kill, and the same command completes
// the run.
func TestKilledWhileWritingReports(t *testing.T) {
	dir := t.TempDir()
	cfg := writeFile(t, dir, "k.yaml", "version: 1\nname: k\ndatasets:\n  - {name: q, generator: ginkgo, jets: 1, min_leaves: 5, max_leaves: 7, t_cut: 16}\nalgorithms: [greedy]\n")
	out := filepath.Join(dir, "run")
	runOK(t, "run", cfg, "-out", out)
	// A run killed after its last record: no reports, and a manifest that says running.
	for _, f := range []string{results.ReportsDir, results.BenchFile, "index.html"} {
		if err := os.RemoveAll(filepath.Join(out, f)); err != nil {
			t.Fatal(err)
		}
	}
	mp := filepath.Join(out, results.ManifestFile)
	m := readManifest(t, mp)
	m.Status, m.End = results.StatusRunning, m.Start
	writeManifest(t, mp, m)
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skipf("no FIFO: %v", err)
	}

	// reports is a result-free key: the run resumes with the blocking report added.
	cmd := command(t, "run", cfg, "-out", out, "-set", "reports=[summary, blocking]")
	cmd.Env = append(cmd.Env, blockingReportEnv+"="+fifo)
	var output syncBuffer
	cmd.Stdout, cmd.Stderr = &output, &output
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// Opening the FIFO to write returns once the run opens it to read, in its reports; it then
	// waits there for data or their end.
	opened := make(chan *os.File, 1)
	go func() {
		f, err := os.OpenFile(fifo, os.O_WRONLY, 0)
		if err != nil {
			t.Error(err)
		}
		opened <- f
	}()
	var w *os.File
	select {
	case w = <-opened:
	case <-time.After(startLimit):
		cmd.Process.Kill()
		cmd.Wait()
		t.Fatalf("the resume never wrote its reports:\n%s", output.String())
	}
	defer w.Close()
	if m := readManifest(t, mp); m.Status == results.StatusComplete {
		t.Errorf("while its reports are written, the manifest says %s", m.Status)
	}
	cmd.Process.Kill()
	cmd.Wait()
	if m := readManifest(t, mp); m.Status == results.StatusComplete {
		t.Errorf("killed while writing its reports, the manifest says %s", m.Status)
	}
	// The same command completes it, the blocking report now reading an empty file.
	if err := os.Remove(fifo); err != nil {
		t.Fatal(err)
	}
	writeFile(t, dir, "fifo", "")
	cmd = command(t, "run", cfg, "-out", out, "-set", "reports=[summary, blocking]")
	cmd.Env = append(cmd.Env, blockingReportEnv+"="+fifo)
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("resume: %v\n%s", err, b)
	}
	if m := readManifest(t, mp); m.Status != results.StatusComplete {
		t.Errorf("resumed: status %s", m.Status)
	}
	for _, f := range []string{"reports/summary.md", results.BenchFile, "index.html"} {
		if _, err := os.Stat(filepath.Join(out, f)); err != nil {
			t.Errorf("resume did not write %s: %v", f, err)
		}
	}
}

// TestMergeKilled kills, with SIGKILL, a merge that is writing its output (held there by a FIFO in
// place of the shards' config.yaml, which it copies): the -out directory must not exist, so that
// the same command then succeeds; and the temporary directory the killed merge wrote in, which
// it left beside -out, must be gone after that merge, as after a run into -out.
func TestMergeKilled(t *testing.T) {
	dir := t.TempDir()
	cfg := writeFile(t, dir, "small.yaml", smallConfig)
	shards := filepath.Join(dir, "shards")
	runOK(t, "run", cfg, "-out", shards, "-shard", "0/2")
	runOK(t, "run", cfg, "-out", shards, "-shard", "1/2")
	config := filepath.Join(shards, results.ConfigFile)
	text := mustRead(t, config)
	os.Remove(config)
	if err := syscall.Mkfifo(config, 0o644); err != nil {
		t.Skipf("no FIFO: %v", err)
	}
	merged := filepath.Join(dir, "merged")
	cmd := command(t, "merge", "-out", merged, shards)
	var output syncBuffer
	cmd.Stdout, cmd.Stderr = &output, &output
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// Opening the FIFO to write returns once the merge opens it to read; it then waits for data.
	opened := make(chan *os.File, 1)
	go func() {
		f, err := os.OpenFile(config, os.O_WRONLY, 0)
		if err != nil {
			t.Error(err)
		}
		opened <- f
	}()
	select {
	case w := <-opened:
		defer w.Close()
	case <-time.After(startLimit):
		cmd.Process.Kill()
		cmd.Wait()
		t.Fatalf("the merge never read the config:\n%s", output.String())
	}
	// The merge is reading the config, which never comes: kill it there.
	cmd.Process.Kill()
	cmd.Wait()
	if _, err := os.Stat(merged); !os.IsNotExist(err) {
		t.Errorf("a killed merge left %s: %v", merged, err)
	}
	temporaries := func() []string {
		t.Helper()
		m, err := filepath.Glob(filepath.Join(dir, ".merged.merging-*"))
		if err != nil {
			t.Fatal(err)
		}
		return m
	}
	if len(temporaries()) != 1 {
		t.Fatalf("the killed merge left %q beside -out, want its temporary directory", temporaries())
	}
	os.Remove(config)
	writeFile(t, shards, results.ConfigFile, text)
	stdout, stderr := runOKErr(t, "merge", "-out", merged, shards)
	if m := readManifest(t, filepath.Join(merged, results.ManifestFile)); m.Status != results.StatusComplete {
		t.Errorf("merge after the killed one: status %q", m.Status)
	}
	if left := temporaries(); len(left) > 0 || !strings.Contains(stderr, "removed the temporary directory of a merge that was killed") {
		t.Errorf("after the next merge, %q are left beside -out\n%s%s", left, stdout, stderr)
	}
	// A run into the merge's -out removes them too.
	if err := os.MkdirAll(filepath.Join(dir, ".again.merging-123"), 0o755); err != nil {
		t.Fatal(err)
	}
	runOK(t, "run", cfg, "-out", filepath.Join(dir, "again"))
	if left, _ := filepath.Glob(filepath.Join(dir, ".again.merging-*")); len(left) > 0 {
		t.Errorf("after a run into its -out, %q are left", left)
	}
}
