package cli

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/hcbench/hcbench/experiments/results"
	"github.com/hcbench/hcbench/internal/interrupt"
)

// TestMain lets a test run the hcbench command in a separate process: the test binary re-executed
// with HCBENCH_TEST_MAIN=1 is hcbench. With HCBENCH_TEST_FSIZE=BYTES that process runs under a
// file size limit (see limitFileSize), which must not be set on the test process itself: the
// testing package writes its own files after the tests; with HCBENCH_TEST_PEAK_FILE=PATH it writes
// its peak resident memory to PATH as it exits (measurePeak).
func TestMain(m *testing.M) {
	if os.Getenv("HCBENCH_TEST_MAIN") == "1" {
		if err := limitFileSize(os.Getenv("HCBENCH_TEST_FSIZE")); err != nil {
			fmt.Fprintln(os.Stderr, "hcbench test main:", err)
			os.Exit(3)
		}
		code := Main(os.Args[1:], os.Stdout, os.Stderr)
		writePeak()
		os.Exit(code)
	}
	// The tests do not run Main in this process: Ctrl-C and SIGTERM end it, as they end go test.
	interrupt.Release()
	os.Exit(m.Run())
}

// command returns hcbench with args as a separate process.
func command(t *testing.T, args ...string) *exec.Cmd {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(exe, args...)
	cmd.Env = append(os.Environ(), "HCBENCH_TEST_MAIN=1")
	for _, v := range []string{"SLURM_ARRAY_TASK_ID", "SLURM_ARRAY_TASK_COUNT", "SLURM_ARRAY_TASK_MIN", "JOB_COMPLETION_INDEX"} {
		cmd.Env = append(cmd.Env, v+"=") // an empty value is unset for hcbench
	}
	return cmd
}

// mixedConfig runs deterministic and randomized algorithms on generated jets and mixtures, so
// that sharding would show if a task's result depended on what else ran in its process.
const mixedConfig = `version: 1
name: mixed
seed: 11
datasets:
  - {name: qcd, generator: ginkgo, jets: 12, min_leaves: 4, max_leaves: 8, t_cut: 16}
  - {name: blobs, generator: mixture, items: 4, points: 30, components: 3, separation: 5}
algorithms:
  - {name: greedy, datasets: [qcd]}
  - {name: trellis, samples: 3, marginals: 2, datasets: [qcd]}
  - {name: beam, beam_size: 3n, datasets: [qcd]}
  - {name: sparse_trellis, all_pairs_max_size: 3, splits_tried: 4, splits_kept: 2, datasets: [qcd]}
  - {name: rbhc, m: 8, datasets: [blobs]}
  - {name: embhc, m: 4, steps: 2, datasets: [blobs]}
  - {name: brt, datasets: [blobs]}
reports: [summary, likelihood_gap, evidence, purity]
`

// TestShardsInProcessesEqualSingleRun runs a config as 3 shards in 3 concurrent processes that
// share one run directory, merges them, and checks that every record equals the single-process
// run's, task for task, in every field but the time; and that the reports are rebuilt.
func TestShardsInProcessesEqualSingleRun(t *testing.T) {
	dir := t.TempDir()
	cfg := writeFile(t, dir, "mixed.yaml", mixedConfig)
	single := filepath.Join(dir, "single")
	if code, stdout, stderr := run(t, context.Background(), "run", cfg, "-out", single); code != ExitOK {
		t.Fatalf("single run: exit %d\n%s%s", code, stdout, stderr)
	}
	shards := filepath.Join(dir, "shards")
	var cmds []*exec.Cmd
	var outs []*bytes.Buffer
	for i := range 3 {
		cmd := command(t, "run", cfg, "-out", shards, "-shard", strings.Replace("I/3", "I", string(rune('0'+i)), 1))
		var b bytes.Buffer
		cmd.Stdout, cmd.Stderr = &b, &b
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		cmds, outs = append(cmds, cmd), append(outs, &b)
	}
	for i, cmd := range cmds {
		if err := cmd.Wait(); err != nil {
			t.Fatalf("shard %d/3: %v\n%s", i, err, outs[i])
		}
	}
	merged := filepath.Join(dir, "merged")
	code, stdout, stderr := run(t, context.Background(), "merge", "-out", merged, shards)
	if code != ExitOK {
		t.Fatalf("merge: exit %d\n%s%s", code, stdout, stderr)
	}
	want, got := readRecords(t, single), readRecords(t, merged)
	if len(got) != len(want) || len(want) != 12*4+4*3 {
		t.Fatalf("%d merged records, %d single-run records, want %d", len(got), len(want), 12*4+4*3)
	}
	for k, w := range want {
		if !reflect.DeepEqual(got[k], w) {
			t.Errorf("task %s differs:\n single %+v\n merged %+v", k, w, got[k])
		}
	}
	m, err := results.ReadManifest(filepath.Join(merged, results.ManifestFile))
	if err != nil || m.Status != results.StatusComplete || len(m.MergedFrom) != 3 || m.Tasks != len(want) || m.Shard != nil {
		t.Errorf("merged manifest %+v, %v", m, err)
	}
	for _, f := range []string{"reports/summary.md", "reports/evidence.md", results.BenchFile} {
		if _, err := os.Stat(filepath.Join(merged, f)); err != nil {
			t.Error(err)
		}
	}
	// report DIR rebuilds from the records alone; on a directory of shards it says to merge.
	if err := os.RemoveAll(filepath.Join(merged, results.ReportsDir)); err != nil {
		t.Fatal(err)
	}
	if code, _, stderr := run(t, context.Background(), "report", merged); code != ExitOK {
		t.Fatalf("report: exit %d\n%s", code, stderr)
	}
	if _, err := os.Stat(filepath.Join(merged, "reports/purity.md")); err != nil {
		t.Error(err)
	}
	if code, _, stderr := run(t, context.Background(), "report", shards); code != ExitFailure || !strings.Contains(stderr, "merge them first") {
		t.Errorf("report on shards: exit %d\n%s", code, stderr)
	}
}

// slowConfig takes a second or two on one worker: slowTasks tasks, exact trellises of jets of 11
// to 13 leaves, so that a test sees it write its first records long before its last.
const slowConfig = `version: 1
name: slow
seed: 5
workers: 1
datasets:
  - {name: qcd, generator: ginkgo, jets: 60, min_leaves: 11, max_leaves: 13, t_cut: 16}
algorithms: [greedy, {name: trellis, samples: 2}]
reports: [summary]
`

// slowTasks is the number of tasks of slowConfig.
const slowTasks = 120

// startRun starts `run cfg -out out` in another process and returns once its results file holds
// at least n records, with the process's combined output.
func startRun(t *testing.T, cfg, out string, n int) (*exec.Cmd, *bytes.Buffer) {
	t.Helper()
	cmd := command(t, "run", cfg, "-out", out)
	log := new(bytes.Buffer)
	cmd.Stdout, cmd.Stderr = log, log
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(2 * time.Minute)
	for {
		if b, err := os.ReadFile(filepath.Join(out, results.ResultsFile)); err == nil && bytes.Count(b, []byte{'\n'}) >= n {
			return cmd, log
		}
		if time.Now().After(deadline) {
			cmd.Process.Kill()
			t.Fatalf("the run wrote no %d records in time\n%s", n, log)
		}
		time.Sleep(2 * time.Millisecond)
	}
}

// TestKillAndResume kills a run with SIGKILL part-way, leaves a torn record behind as a crash
// mid-write would, resumes it, and checks that the result equals an uninterrupted run: no task
// lost or recorded twice, every field but the time equal.
func TestKillAndResume(t *testing.T) {
	dir := t.TempDir()
	cfg := writeFile(t, dir, "slow.yaml", slowConfig)
	whole := filepath.Join(dir, "whole")
	if code, stdout, stderr := run(t, context.Background(), "run", cfg, "-out", whole); code != ExitOK {
		t.Fatalf("uninterrupted run: exit %d\n%s%s", code, stdout, stderr)
	}
	want := readRecords(t, whole)
	out := filepath.Join(dir, "killed")
	cmd, _ := startRun(t, cfg, out, 20)
	// While it runs, the directory is locked: a second run into it is refused, naming the pid
	// and host.
	code, _, stderr := run(t, context.Background(), "run", cfg, "-out", out)
	host, _ := os.Hostname()
	if want := fmt.Sprintf("run directory %s is in use by another hcbench process (pid %d on host %s); wait for it to end, or stop it (kill %d: it marks its run interrupted", out, cmd.Process.Pid, host, cmd.Process.Pid); code != ExitFailure || !strings.Contains(stderr, want) {
		t.Errorf("second run while the first runs: exit %d, want %d and %q\n%s", code, ExitFailure, want, stderr)
	}
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	cmd.Wait()
	m, err := results.ReadManifest(filepath.Join(out, results.ManifestFile))
	if err != nil || m.Status != results.StatusRunning {
		t.Fatalf("manifest after SIGKILL: status %q, %v", m.Status, err)
	}
	before, err := results.ReadFile(filepath.Join(out, results.ResultsFile))
	if err != nil {
		t.Fatalf("records after SIGKILL are not whole: %v", err)
	}
	if len(before) >= len(want) {
		t.Fatalf("the run finished (%d records) before it was killed", len(before))
	}
	f, err := os.OpenFile(filepath.Join(out, results.ResultsFile), os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString(`{"schema":1,"key":"dataset=qcd|item=`)
	f.Close()

	// The lock died with the killed process: the resume takes it.
	code, stdout, stderr := run(t, context.Background(), "run", cfg, "-out", out)
	if code != ExitOK || !strings.Contains(stderr, "dropped a torn last record") || !strings.Contains(stdout, "found finished and skipped") {
		t.Fatalf("resume: exit %d\n%s%s", code, stdout, stderr)
	}
	got := readRecords(t, out)
	if len(got) != len(want) {
		t.Fatalf("%d records after resuming, want %d", len(got), len(want))
	}
	for k, w := range want {
		if !reflect.DeepEqual(got[k], w) {
			t.Errorf("task %s differs after resuming:\n whole   %+v\n resumed %+v", k, w, got[k])
		}
	}
	m, err = results.ReadManifest(filepath.Join(out, results.ManifestFile))
	if err != nil || m.Status != results.StatusComplete || m.Resumes != 1 || m.Finished != len(want) {
		t.Errorf("manifest after resuming: %+v, %v", m, err)
	}
	// The killed session never wrote its count; the resume credits it with the records it left.
	if len(m.Sessions) != 2 || m.Sessions[0].Records != len(before) || !m.Sessions[0].End.IsZero() || m.Sessions[1].Records != len(want)-len(before) {
		t.Errorf("sessions after resuming %+v; want the killed one with %d records, the resume with %d", m.Sessions, len(before), len(want)-len(before))
	}
	// A finished run resumed again does nothing and changes nothing.
	if code, stdout, _ := run(t, context.Background(), "run", cfg, "-out", out); code != ExitOK || !strings.Contains(stdout, fmt.Sprintf("tasks: %d finished of %[1]d, 0 failed (%[1]d found finished", slowTasks)) {
		t.Errorf("second resume: exit %d\n%s", code, stdout)
	}
	// Another config into the same directory is refused.
	other := writeFile(t, dir, "other.yaml", strings.Replace(slowConfig, "seed: 5", "seed: 6", 1))
	if code, _, stderr := run(t, context.Background(), "run", other, "-out", out); code != ExitFailure || !strings.Contains(stderr, "holds a run of a different config") {
		t.Errorf("changed config: exit %d\n%s", code, stderr)
	}
}

// TestShardAndMergeErrors checks the bad inputs of sharding and merging: each gives a clear
// message and exit code, never a panic.
func TestShardAndMergeErrors(t *testing.T) {
	dir := t.TempDir()
	cfg := writeFile(t, dir, "small.yaml", smallConfig)
	for _, spec := range []struct{ arg, want string }{
		{"3/2", "shard index 3 is outside 0 to 1"},
		{"x/4", `-shard wants I/N with integers`},
		{"1/0", "the number of shards must be at least 1"},
		{"2", `-shard wants I/N`},
	} {
		code, _, stderr := run(t, context.Background(), "run", cfg, "-out", filepath.Join(dir, "bad"), "-shard", spec.arg)
		if code != ExitUsage || !strings.Contains(stderr, spec.want) {
			t.Errorf("-shard %s: exit %d\n%s", spec.arg, code, stderr)
		}
	}
	shards := filepath.Join(dir, "shards")
	if code, _, stderr := run(t, context.Background(), "run", cfg, "-out", shards, "-shard", "0/2"); code != ExitOK {
		t.Fatalf("shard 0/2: exit %d\n%s", code, stderr)
	}
	// A missing shard: merge lists the missing tasks and names the shard.
	code, _, stderr := run(t, context.Background(), "merge", "-out", filepath.Join(dir, "m1"), shards)
	if code != ExitFailure || !strings.Contains(stderr, "40 of 80 planned tasks have no record (shards not given: 1/2)") || !strings.Contains(stderr, "dataset=qcd|item=0|algorithm=greedy") {
		t.Errorf("missing shard: exit %d\n%s", code, stderr)
	}
	if code, _, stderr := run(t, context.Background(), "merge", "-partial", "-out", filepath.Join(dir, "m2"), shards); code != ExitFailure || !strings.Contains(stderr, "merged with 40 of 80 tasks missing") {
		t.Errorf("partial merge: exit %d\n%s", code, stderr)
	}
	// A shard of another config (another seed: the same tasks, another hash).
	other := writeFile(t, dir, "other.yaml", strings.Replace(smallConfig, "seed: 3", "seed: 4", 1))
	otherShards := filepath.Join(dir, "other")
	if code, _, stderr := run(t, context.Background(), "run", other, "-out", otherShards, "-shard", "1/2"); code != ExitOK {
		t.Fatalf("other shard: exit %d\n%s", code, stderr)
	}
	if code, _, stderr := run(t, context.Background(), "merge", "-out", filepath.Join(dir, "m3"), shards, otherShards); code != ExitFailure || !strings.Contains(stderr, "are shards of different configs") {
		t.Errorf("different configs: exit %d\n%s", code, stderr)
	}
	// The other config into the first directory, and a shard count that does not match.
	if code, _, stderr := run(t, context.Background(), "run", other, "-out", shards, "-shard", "1/2"); code != ExitFailure || !strings.Contains(stderr, "holds a run of a different config") {
		t.Errorf("other config into a shard directory: exit %d\n%s", code, stderr)
	}
	if code, _, stderr := run(t, context.Background(), "run", cfg, "-out", shards, "-shard", "1/3"); code != ExitFailure || !strings.Contains(stderr, "holds shards of 2, this is shard 1/3") {
		t.Errorf("shard count mismatch: exit %d\n%s", code, stderr)
	}
	if code, _, stderr := run(t, context.Background(), "run", cfg, "-out", shards); code != ExitFailure || !strings.Contains(stderr, "holds shard 0/2 of a sharded run") {
		t.Errorf("whole run into a shard directory: exit %d\n%s", code, stderr)
	}
	// A corrupt line and a torn last line in a shard's results.
	results0 := filepath.Join(shards, "shard-0-of-2.jsonl")
	good, err := os.ReadFile(results0)
	if err != nil {
		t.Fatal(err)
	}
	lines := bytes.SplitAfter(good, []byte{'\n'})
	corrupt := bytes.Join([][]byte{lines[0], []byte("{not json\n"), bytes.Join(lines[1:], nil)}, nil)
	if err := os.WriteFile(results0, corrupt, 0o644); err != nil {
		t.Fatal(err)
	}
	if code, _, stderr := run(t, context.Background(), "merge", "-partial", "-out", filepath.Join(dir, "m4"), shards); code != ExitFailure || !strings.Contains(stderr, "shard-0-of-2.jsonl:2: not a result record") || !strings.Contains(stderr, "line 2 of "+results0+" is damaged") {
		t.Errorf("corrupt line: exit %d\n%s", code, stderr)
	}
	if err := os.WriteFile(results0, append(good, `{"schema":1,"ke`...), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, _, stderr := run(t, context.Background(), "merge", "-partial", "-out", filepath.Join(dir, "m5"), shards); code != ExitFailure || !strings.Contains(stderr, "torn last record (no newline)") {
		t.Errorf("torn line: exit %d\n%s", code, stderr)
	}
	if code, _, stderr := run(t, context.Background(), "merge", "-out", filepath.Join(dir, "m6"), filepath.Join(dir, "nothing")); code != ExitFailure || !strings.Contains(stderr, "holds no shards") {
		t.Errorf("no shards: exit %d\n%s", code, stderr)
	}
}

// TestChooseShard checks where a shard comes from: the flag first, then Slurm's array variables
// (relative to the array's minimum), then a Kubernetes Indexed Job's index with the count from
// the flag or the config; and the messages when the environment is incomplete.
func TestChooseShard(t *testing.T) {
	env := func(kv ...string) func(string) string {
		m := map[string]string{}
		for i := 0; i+1 < len(kv); i += 2 {
			m[kv[i]] = kv[i+1]
		}
		return func(k string) string { return m[k] }
	}
	cases := []struct {
		spec         string
		count, cfg   int
		getenv       func(string) string
		want, errHas string
	}{
		{spec: "2/5", getenv: env("SLURM_ARRAY_TASK_ID", "1", "SLURM_ARRAY_TASK_COUNT", "3"), want: "2/5"},
		{spec: "0/1", getenv: env(), want: "all"},
		{getenv: env(), want: "all"},
		{getenv: env("SLURM_ARRAY_TASK_ID", "1", "SLURM_ARRAY_TASK_COUNT", "3"), want: "1/3"},
		{getenv: env("SLURM_ARRAY_TASK_ID", "5", "SLURM_ARRAY_TASK_COUNT", "3", "SLURM_ARRAY_TASK_MIN", "4"), want: "1/3"},
		{getenv: env("SLURM_ARRAY_TASK_ID", "1"), errHas: "SLURM_ARRAY_TASK_COUNT is not set"},
		{getenv: env("SLURM_ARRAY_TASK_ID", "7", "SLURM_ARRAY_TASK_COUNT", "3"), errHas: "contiguous"},
		{getenv: env("JOB_COMPLETION_INDEX", "2"), count: 4, want: "2/4"},
		{getenv: env("JOB_COMPLETION_INDEX", "2"), cfg: 3, want: "2/3"},
		{getenv: env("JOB_COMPLETION_INDEX", "2"), count: 5, cfg: 3, want: "2/5"},
		{getenv: env("JOB_COMPLETION_INDEX", "2"), errHas: "pass -shards N"},
		{getenv: env("JOB_COMPLETION_INDEX", "x"), count: 2, errHas: "not an integer"},
	}
	for i, c := range cases {
		s, err := chooseShard(c.spec, c.count, c.cfg, c.getenv)
		switch {
		case c.errHas != "":
			if err == nil || !strings.Contains(err.Error(), c.errHas) {
				t.Errorf("case %d: error %v, want %q", i, err, c.errHas)
			}
		case err != nil:
			t.Errorf("case %d: %v", i, err)
		case shardText(s) != c.want:
			t.Errorf("case %d: shard %s, want %s", i, shardText(s), c.want)
		}
	}
}

func shardText(s *results.Shard) string {
	if s == nil {
		return "all"
	}
	return s.String()
}

// TestCompare compares two runs of one config (no regression, exit 0) and a run in which beam
// search was made worse on purpose (beam size 1 under the same label): compare must name that
// regression and exit 1. Every whole run also carries bench.txt and index.html.
func TestCompare(t *testing.T) {
	dir := t.TempDir()
	src := strings.Replace(smallConfig, "algorithms: [truth, greedy]", "algorithms: [truth, greedy, trellis, {name: beam, beam_size: 3n}]", 1)
	good := writeFile(t, dir, "good.yaml", src)
	worse := writeFile(t, dir, "worse.yaml", strings.Replace(src, "beam_size: 3n", "beam_size: 1", 1))
	dirs := map[string]string{}
	for name, cfg := range map[string]string{"a": good, "b": good, "worse": worse} {
		dirs[name] = filepath.Join(dir, name)
		if code, stdout, stderr := run(t, context.Background(), "run", cfg, "-out", dirs[name]); code != ExitOK {
			t.Fatalf("run %s: exit %d\n%s%s", name, code, stdout, stderr)
		}
		for _, f := range []string{results.BenchFile, "index.html"} {
			if _, err := os.Stat(filepath.Join(dirs[name], f)); err != nil {
				t.Error(err)
			}
		}
	}
	code, stdout, stderr := run(t, context.Background(), "compare", dirs["a"], dirs["b"])
	if code != ExitOK || !strings.Contains(stdout, "no regressions") {
		t.Errorf("identical runs: exit %d\n%s%s", code, stdout, stderr)
	}
	code, stdout, stderr = run(t, context.Background(), "compare", dirs["a"], dirs["worse"])
	if code != ExitFailure || !strings.Contains(stdout, "qcd/beam: mean log-likelihood fell") || strings.Contains(stdout, "qcd/greedy:") {
		t.Errorf("worse beam: exit %d\n%s%s", code, stdout, stderr)
	}
	// A generous threshold from the command line lets the same change pass.
	if code, stdout, _ := run(t, context.Background(), "compare", "-log-likelihood", "1000", "-exact-gap", "1000", dirs["a"], dirs["worse"]); code != ExitOK {
		t.Errorf("with thresholds 1000: exit %d\n%s", code, stdout)
	}
	if code, _, stderr := run(t, context.Background(), "compare", "-purity", "-1", dirs["a"], dirs["b"]); code != ExitUsage || !strings.Contains(stderr, "-purity must be a non-negative number") {
		t.Errorf("negative threshold: exit %d\n%s", code, stderr)
	}
	if code, _, stderr := run(t, context.Background(), "compare", dirs["a"], filepath.Join(dir, "none")); code != ExitFailure || !strings.Contains(stderr, "is not a run directory") {
		t.Errorf("missing run: exit %d\n%s", code, stderr)
	}
}
