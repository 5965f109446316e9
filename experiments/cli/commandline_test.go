package cli

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hcbench/hcbench/experiments/registry"
	"github.com/hcbench/hcbench/experiments/results"
	"github.com/hcbench/hcbench/experiments/results/resultstest"
)

// failingNow makes the test-only algorithm failing fail every task while it is set;
// failingInterrupt, while set, is called by its second success (the first has been recorded).
var (
	failingNow       atomic.Bool
	failingSuccesses atomic.Int32
	failingInterrupt atomic.Pointer[context.CancelFunc]
)

// failing is a test-only algorithm: the caterpillar tree, or a failure while failingNow is set,
// so that a test can fail tasks and then retry them.
func init() {
	registry.RegisterAlgorithm(registry.Algorithm{
		Name:      "failing",
		Help:      "test only: the caterpillar tree, or a failure while a test says so",
		NewParams: func() registry.Params { return &registry.NoParams{} },
		Start: registry.Simple(func(ctx context.Context, _ *registry.NoParams, t registry.Task, run registry.Run) (registry.Solution, error) {
			if failingNow.Load() {
				return registry.Solution{}, errors.New("failing, as the test asks")
			}
			if stop := failingInterrupt.Load(); stop != nil && failingSuccesses.Add(1) == 2 {
				(*stop)()
				return registry.Solution{}, ctx.Err()
			}
			return solveCaterpillar(ctx, &CaterpillarParams{Order: "index"}, t, run)
		}),
	})
}

const cmdlineConfig = `version: 1
name: cmdline
seed: 3
datasets:
  - {name: q, generator: ginkgo, jets: 4, min_leaves: 4, max_leaves: 7, t_cut: 16}
algorithms: [truth, greedy, {name: beam, beam_size: 2}]
`

// TestSetOverrides: -set changes the config of run, plan and validate as if the file said so;
// the run's config.yaml and manifest have the values and the flags, a resume with other values
// is refused as another config (naming the key that differs), one with the same values
// resumes, and a bad -set is reported naming the flag.
func TestSetOverrides(t *testing.T) {
	dir := t.TempDir()
	cfg := writeFile(t, dir, "c.yaml", cmdlineConfig)
	out := filepath.Join(dir, "run")
	ctx := context.Background()
	sets := []string{"-set", "seed=5", "-set", "datasets[0].jets=2", "-set", "algorithms[2].beam_size=3n"}
	code, stdout, stderr := run(t, ctx, append([]string{"run", cfg, "-out", out}, sets...)...)
	if code != ExitOK {
		t.Fatalf("exit %d\n%s%s", code, stdout, stderr)
	}
	resultstest.CheckRunDir(t, out) // the manifest's overrides match the schema
	resolved := mustRead(t, filepath.Join(out, results.ConfigFile))
	for _, want := range []string{"seed: 5\n", "jets: 2\n", "beam_size: 3n\n"} {
		if !strings.Contains(resolved, want) {
			t.Errorf("config.yaml has no %q:\n%s", want, resolved)
		}
	}
	m := readManifest(t, filepath.Join(out, results.ManifestFile))
	if want := []string{"seed=5", "datasets[0].jets=2", "algorithms[2].beam_size=3n"}; !slices.Equal(m.Overrides, want) || m.Seed != 5 {
		t.Errorf("manifest overrides %q, seed %d; want %q and 5", m.Overrides, m.Seed, want)
	}
	if recs := readRecords(t, out); len(recs) != 6 || recs["dataset=q|item=1|algorithm=beam"].Params["beam_size"] != "3n" {
		t.Errorf("%d records, want 6 (2 jets × 3 algorithms) with beam_size 3n", len(recs))
	}

	code, _, stderr = run(t, ctx, "run", cfg, "-out", out, "-set", "seed=6", "-set", "datasets[0].jets=2", "-set", "algorithms[2].beam_size=3n")
	if code != ExitFailure || !strings.Contains(stderr, "holds a run of a different config") || !strings.Contains(stderr, "seed: 5 → 6") {
		t.Errorf("resume with -set seed=6: exit %d, stderr\n%s\nwant a refusal naming seed: 5 → 6", code, stderr)
	}
	code, stdout, stderr = run(t, ctx, append([]string{"run", cfg, "-out", out}, sets...)...)
	if code != ExitOK || !strings.Contains(stdout, "(6 found finished and skipped)") {
		t.Errorf("resume with the same -set: exit %d\n%s%s", code, stdout, stderr)
	}

	code, stdout, stderr = run(t, ctx, "plan", cfg, "-set", "datasets[0].jets=1")
	if code != ExitOK || !strings.Contains(stdout, "# cmdline: 3 tasks") {
		t.Errorf("plan -set datasets[0].jets=1: exit %d\n%s%s", code, stdout, stderr)
	}
	for _, cmd := range []string{"run", "plan", "validate"} {
		code, _, stderr = run(t, ctx, cmd, cfg, "-out", out, "-set", "algorithms[2].beam_size=x")
		if cmd != "run" {
			code, _, stderr = run(t, ctx, cmd, cfg, "-set", "algorithms[2].beam_size=x")
		}
		if code != ExitFailure || !strings.HasPrefix(stderr, "-set algorithms[2].beam_size=x: want a number or one of 3n") {
			t.Errorf("%s -set algorithms[2].beam_size=x: exit %d, stderr %q", cmd, code, stderr)
		}
	}
	code, _, stderr = run(t, ctx, "validate", cfg, "-set", "sed=1")
	if code != ExitFailure || !strings.Contains(stderr, `-set sed=1: unknown key "sed" (did you mean "seed"?)`) {
		t.Errorf("validate -set sed=1: exit %d, stderr %q", code, stderr)
	}
}

// TestOnlyFilter: -only runs the tasks whose keys match; the run writes its reports over them
// but stays incomplete, and says which command runs the rest; that command, without -only,
// resumes it and runs only the others, to a complete run. plan -only lists the tasks it selects;
// a filter that selects nothing, or that is no regular expression, is a usage error.
func TestOnlyFilter(t *testing.T) {
	dir := t.TempDir()
	cfg := writeFile(t, dir, "c.yaml", cmdlineConfig)
	out := filepath.Join(dir, "run")
	ctx := context.Background()
	code, stdout, stderr := run(t, ctx, "run", cfg, "-out", out, "-only", "algorithm=greedy$")
	if code != ExitOK {
		t.Fatalf("exit %d\n%s%s", code, stdout, stderr)
	}
	resultstest.CheckRunDir(t, out)
	recs := readRecords(t, out)
	for k := range recs {
		if !strings.HasSuffix(k, "|algorithm=greedy") {
			t.Errorf("task %s ran, which -only does not select", k)
		}
	}
	m := readManifest(t, filepath.Join(out, results.ManifestFile))
	if len(recs) != 4 || m.Status != results.StatusIncomplete || m.Only != "algorithm=greedy$" || m.Finished != 4 || m.Tasks != 12 {
		t.Errorf("%d records; manifest status %s, only %q, %d of %d tasks; want 4 greedy records, incomplete, 4 of 12", len(recs), m.Status, m.Only, m.Finished, m.Tasks)
	}
	if bench := mustRead(t, filepath.Join(out, results.BenchFile)); !strings.Contains(bench, "greedy") || strings.Contains(bench, "beam") {
		t.Errorf("bench.txt does not report the tasks that ran, and only those:\n%s", bench)
	}
	if _, err := os.Stat(filepath.Join(out, "index.html")); err != nil {
		t.Errorf("no index.html over the filtered run: %v", err)
	}
	want := "-only algorithm=greedy$: its tasks have run; the other 8 run with: hcbench run " + cfg + " -out " + out + "\n"
	if !strings.Contains(stdout, want) {
		t.Errorf("stdout\n%s\nwant %q", stdout, want)
	}

	code, stdout, stderr = run(t, ctx, "run", cfg, "-out", out)
	if code != ExitOK || !strings.Contains(stdout, "tasks: 12 finished of 12, 0 failed (4 found finished and skipped)") {
		t.Errorf("the run without -only: exit %d\n%s%s", code, stdout, stderr)
	}
	if m := readManifest(t, filepath.Join(out, results.ManifestFile)); m.Status != results.StatusComplete || m.Only != "" {
		t.Errorf("after the run without -only: status %s, only %q", m.Status, m.Only)
	}

	code, stdout, _ = run(t, ctx, "plan", cfg, "-only", `item=1\|algorithm=(truth|beam)$`)
	if code != ExitOK || !strings.Contains(stdout, "# cmdline: 2 of 12 tasks (-only item=1\\|algorithm=(truth|beam)$)") || strings.Count(stdout, "dataset=q|item=1|") != 2 {
		t.Errorf("plan -only: exit %d\n%s", code, stdout)
	}
	for _, bad := range []string{"algorithm=bem$", "(unclosed"} {
		if code, _, stderr := run(t, ctx, "run", cfg, "-out", filepath.Join(dir, "other"), "-only", bad); code != ExitUsage || !strings.Contains(stderr, "-only") {
			t.Errorf("-only %q: exit %d, stderr %q", bad, code, stderr)
		}
	}
}

// TestRetryFailed: failed tasks stay failed on a plain resume (their records are kept) and run
// again with -retry-failed, whose records replace the failed ones, one record per task. A retry
// interrupted after one task loses nothing: that task has its new record, the others their
// failed ones, and the next -retry-failed runs only those.
func TestRetryFailed(t *testing.T) {
	dir := t.TempDir()
	cfg := writeFile(t, dir, "c.yaml", strings.Replace(cmdlineConfig, "algorithms: [truth, greedy, {name: beam, beam_size: 2}]", "algorithms: [greedy, failing]", 1))
	out := filepath.Join(dir, "run")
	ctx := context.Background()
	failingNow.Store(true)
	t.Cleanup(func() { failingNow.Store(false) })
	if code, stdout, stderr := run(t, ctx, "run", cfg, "-out", out); code != ExitFailure || !strings.Contains(stdout, "tasks: 8 finished of 8, 4 failed") ||
		!strings.Contains(stderr, "run the 4 failed tasks again with: hcbench run "+cfg+" -out "+out+" -retry-failed\n") {
		t.Fatalf("first run: exit %d\n%s%s\nwant the command that retries the failed tasks", code, stdout, stderr)
	}
	failingNow.Store(false)
	if code, stdout, _ := run(t, ctx, "run", cfg, "-out", out); code != ExitFailure || !strings.Contains(stdout, "4 failed (8 found finished and skipped)") {
		t.Errorf("resume without -retry-failed: exit %d\n%s", code, stdout)
	}
	ictx, cancel := context.WithCancel(ctx)
	defer cancel()
	failingInterrupt.Store(&cancel)
	code, stdout, stderr := run(t, ictx, "run", cfg, "-out", out, "-retry-failed", "-workers", "1")
	failingInterrupt.Store(nil)
	if code != ExitInterrupted || !strings.Contains(stdout, "tasks: 8 finished of 8, 3 failed (7 found finished and skipped) (1 failed task run again)") {
		t.Errorf("-retry-failed interrupted after one task: exit %d\n%s%s", code, stdout, stderr)
	}
	recs := readRecords(t, out) // fails on a task recorded twice
	failed := 0
	for _, r := range recs {
		if r.Error != "" {
			failed++
		}
	}
	if len(recs) != 8 || failed != 3 {
		t.Errorf("after the interrupted retry: %d records, %d failed; want 8, of which 3 failed", len(recs), failed)
	}
	code, stdout, stderr = run(t, ctx, "run", cfg, "-out", out, "-retry-failed")
	if code != ExitOK || !strings.Contains(stdout, "tasks: 8 finished of 8, 0 failed (5 found finished and skipped) (3 failed tasks run again)") {
		t.Errorf("-retry-failed: exit %d\n%s%s", code, stdout, stderr)
	}
	recs = readRecords(t, out)
	for k, r := range recs {
		if r.Error != "" {
			t.Errorf("%s still failed: %s", k, r.Error)
		}
	}
	if len(recs) != 8 || lines(t, filepath.Join(out, results.ResultsFile)) != 8 {
		t.Errorf("%d records, %d lines; want 8 of each", len(recs), lines(t, filepath.Join(out, results.ResultsFile)))
	}
	if m := readManifest(t, filepath.Join(out, results.ManifestFile)); m.Status != results.StatusComplete || m.Failed != 0 {
		t.Errorf("manifest: status %s, %d failed", m.Status, m.Failed)
	}
}

// TestRunResumesLatestUnfinished: without -out, run resumes the latest unfinished run of the
// same config under runs/ and says so; a finished run is not resumed (a new directory is made),
// nor is a run of another config. An interrupted run says the exact command that resumes it, and
// that command does.
func TestRunResumesLatestUnfinished(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	cfg := writeFile(t, dir, "c.yaml", cmdlineConfig)
	ctx := context.Background()
	code, stdout, stderr := run(t, ctx, "run", cfg, "-only", "algorithm=truth$")
	if code != ExitOK {
		t.Fatalf("exit %d\n%s%s", code, stdout, stderr)
	}
	first := runDirOf(t, stdout)
	// Another config's unfinished run, named like this one's, is not taken.
	if code, stdout, stderr := run(t, ctx, "run", cfg, "-set", "seed=4", "-only", "algorithm=truth$"); code != ExitOK || runDirOf(t, stdout) == first || strings.Contains(stderr, "resuming") {
		t.Fatalf("-set seed=4: exit %d, resumed %s\n%s%s", code, first, stdout, stderr)
	}
	code, stdout, stderr = run(t, ctx, "run", cfg)
	want := "hcbench: resuming " + first + " (incomplete): 4 of 12 tasks done; -out DIR runs into another directory\n"
	if code != ExitOK || runDirOf(t, stdout) != first || !strings.Contains(stderr, want) || !strings.Contains(stdout, "(4 found finished and skipped)") {
		t.Fatalf("run without -out: exit %d\n%s%s\nwant it to resume %s, saying %q", code, stdout, stderr, first, want)
	}
	code, stdout, stderr = run(t, ctx, "run", cfg)
	if second := runDirOf(t, stdout); code != ExitOK || second == first || strings.Contains(stderr, "resuming") {
		t.Errorf("run after the complete run: exit %d, dir %s (the complete run is %s)\n%s", code, second, first, stderr)
	}

	// Interrupted once its first record is written, it prints the command that resumes it.
	long := writeFile(t, dir, "long.yaml", "version: 1\nname: cmdline\ndatasets:\n  - {name: q, generator: ginkgo, jets: 40, min_leaves: 15, max_leaves: 16, t_cut: 4}\nalgorithms: [trellis]\n")
	ictx, cancel := context.WithCancel(ctx)
	defer cancel()
	go func() {
		for ictx.Err() == nil {
			if recs, _ := filepath.Glob(filepath.Join("runs", "cmdline-*", results.ResultsFile)); len(recs) > 0 {
				for _, r := range recs {
					if st, err := os.Stat(r); err == nil && st.Size() > 0 {
						if b, _ := os.ReadFile(filepath.Join(filepath.Dir(r), results.ConfigFile)); strings.Contains(string(b), "jets: 40\n") {
							cancel()
							return
						}
					}
				}
			}
			time.Sleep(time.Millisecond)
		}
	}()
	code, stdout, stderr = run(t, ictx, "run", long, "-workers", "1")
	if code != ExitInterrupted {
		t.Fatalf("exit %d, want %d\n%s%s", code, ExitInterrupted, stdout, stderr)
	}
	m := regexp.MustCompile(`(?m)^resume with: hcbench (run \S+ -workers 1 -out (runs/cmdline-\S+))$`).FindStringSubmatch(stderr)
	if m == nil {
		t.Fatalf("no resume command in\n%s", stderr)
	}
	code, stdout, stderr = run(t, ctx, append(strings.Fields(m[1]), "-only", "item=0\\|")...)
	if code != ExitOK || runDirOf(t, stdout) != m[2] || !strings.Contains(stdout, "found finished and skipped") {
		t.Errorf("%s: exit %d\n%s%s", m[1], code, stdout, stderr)
	}
}

// runDirOf returns the run directory that the run command's output names.
func runDirOf(t *testing.T, stdout string) string {
	t.Helper()
	m := regexp.MustCompile(`(?m)^run directory: (.*)$`).FindStringSubmatch(stdout)
	if m == nil {
		t.Fatalf("no run directory in\n%s", stdout)
	}
	return m[1]
}

// TestRunPassesOverAnotherBuildsRun: without -out, an unfinished run of the same config that
// another build wrote is not resumed: the run says so and gives the exact command that resumes
// it anyway, and that command does.
func TestRunPassesOverAnotherBuildsRun(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	cfg := writeFile(t, dir, "c.yaml", cmdlineConfig)
	ctx := context.Background()
	code, stdout, stderr := run(t, ctx, "run", cfg, "-only", "algorithm=truth$")
	if code != ExitOK {
		t.Fatalf("exit %d\n%s%s", code, stdout, stderr)
	}
	first := runDirOf(t, stdout)
	path := filepath.Join(first, results.ManifestFile)
	m := readManifest(t, path)
	b := mustRead(t, path)
	if m.Executable == "" || !strings.Contains(b, m.Executable) {
		t.Fatalf("no executable hash in the manifest")
	}
	// Another executable wrote it.
	if err := os.WriteFile(path, []byte(strings.ReplaceAll(b, m.Executable, strings.Repeat("0", len(m.Executable)))), 0o644); err != nil {
		t.Fatal(err)
	}
	code, stdout, stderr = run(t, ctx, "run", cfg, "-only", "item=0\\|")
	want := "hcbench: not resuming " + first + ", an unfinished run of this config: another build wrote it; resume it with: hcbench run " + cfg + " -only 'item=0\\|' -out " + first + " -allow-other-build\n"
	if code != ExitOK || runDirOf(t, stdout) == first || !strings.Contains(stderr, want) {
		t.Fatalf("exit %d, dir %s\n%s\nwant a new run and\n%s", code, runDirOf(t, stdout), stderr, want)
	}
	words := strings.Fields(strings.TrimPrefix(want[strings.Index(want, "hcbench run "):], "hcbench "))
	words[3] = "item=0\\|" // unquoted, as the shell would
	code, stdout, stderr = run(t, ctx, words...)
	if code != ExitOK || runDirOf(t, stdout) != first || !strings.Contains(stdout, "(4 found finished and skipped)") {
		t.Errorf("%s: exit %d\n%s%s", strings.Join(words, " "), code, stdout, stderr)
	}
}

// TestRetryFailedWithoutOut: a run that finished with failed tasks is not resumed by a plain run
// without -out (it is finished), but is by one with -retry-failed, which says so and runs its
// failed tasks again.
func TestRetryFailedWithoutOut(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	cfg := writeFile(t, dir, "c.yaml", strings.Replace(cmdlineConfig, "algorithms: [truth, greedy, {name: beam, beam_size: 2}]", "algorithms: [greedy, failing]", 1))
	ctx := context.Background()
	failingNow.Store(true)
	t.Cleanup(func() { failingNow.Store(false) })
	code, stdout, stderr := run(t, ctx, "run", cfg)
	if code != ExitFailure || !strings.Contains(stdout, "4 failed") {
		t.Fatalf("exit %d\n%s%s", code, stdout, stderr)
	}
	first := runDirOf(t, stdout)
	failingNow.Store(false)
	code, stdout, stderr = run(t, ctx, "run", cfg, "-retry-failed")
	want := "hcbench: resuming " + first + " (complete, 4 failed): 8 of 8 tasks done; -out DIR runs into another directory\n"
	if code != ExitOK || runDirOf(t, stdout) != first || !strings.Contains(stderr, want) || !strings.Contains(stdout, "(4 failed tasks run again)") {
		t.Errorf("run -retry-failed: exit %d\n%s%s\nwant it to retry %s, saying %q", code, stdout, stderr, first, want)
	}
	if code, stdout, stderr := run(t, ctx, "run", cfg, "-retry-failed"); code != ExitOK || runDirOf(t, stdout) == first || strings.Contains(stderr, "resuming") {
		t.Errorf("run -retry-failed once no task failed: exit %d\n%s%s\nwant a new run", code, stdout, stderr)
	}
}
