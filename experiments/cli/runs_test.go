package cli

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/hcbench/hcbench/experiments/results"
)

func readManifest(t *testing.T, path string) results.Manifest {
	t.Helper()
	m, err := results.ReadManifest(path)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func writeManifest(t *testing.T, path string, m results.Manifest) {
	t.Helper()
	if err := m.WriteFile(path); err != nil {
		t.Fatal(err)
	}
}

// lines counts the lines of a file.
func lines(t *testing.T, path string) int {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return bytes.Count(b, []byte{'\n'})
}

// runOK runs hcbench in-process and fails the test unless it exits 0.
func runOK(t *testing.T, args ...string) string {
	t.Helper()
	code, stdout, stderr := run(t, context.Background(), args...)
	if code != ExitOK {
		t.Fatalf("%s: exit %d\n%s%s", strings.Join(args, " "), code, stdout, stderr)
	}
	return stdout
}

// olderBuild stands for a build of other code than the one under test.
var olderBuild = results.Build{Revision: "1111111111111111111111111111111111111111", GoVersion: "go1.25.0", Executable: strings.Repeat("e", 64)}

// TestResumeWithOtherBuild resumes a run whose records another build wrote: refused, naming both
// builds, with nothing touched; with -allow-other-build it runs the rest, and the manifest, the
// bench.txt commit line and compare's header show both builds.
func TestResumeWithOtherBuild(t *testing.T) {
	dir := t.TempDir()
	cfg := writeFile(t, dir, "small.yaml", smallConfig)
	out := filepath.Join(dir, "run")
	runOK(t, "run", cfg, "-out", out)
	mpath, rpath := filepath.Join(out, results.ManifestFile), filepath.Join(out, results.ResultsFile)
	m := readManifest(t, mpath)
	this := m.Build()
	if len(m.Sessions) != 1 || m.Sessions[0].Build != this || m.Sessions[0].Records != 80 || m.Sessions[0].End.IsZero() {
		t.Fatalf("sessions %+v, want one of this build with 80 records", m.Sessions)
	}
	// The older build wrote 70 records and was killed.
	b, err := os.ReadFile(rpath)
	if err != nil {
		t.Fatal(err)
	}
	recs := bytes.SplitAfter(b, []byte{'\n'})
	if err := os.WriteFile(rpath, bytes.Join(recs[:70], nil), 0o644); err != nil {
		t.Fatal(err)
	}
	m.Sessions[0].Build, m.Sessions[0].Records = olderBuild, 70
	m.Revision, m.Modified, m.GoVersion, m.Executable, m.Status = olderBuild.Revision, false, olderBuild.GoVersion, olderBuild.Executable, results.StatusRunning
	writeManifest(t, mpath, m)

	code, _, stderr := run(t, context.Background(), "run", cfg, "-out", out)
	want := "records in " + out + " were written by another build than this one (" + this.String() + "): manifest.json records revision 111111111111, go1.25.0, executable sha256 eeeeeeeeeeee (the executables differ)"
	if code != ExitFailure || !strings.Contains(stderr, want) || !strings.Contains(stderr, "-allow-other-build") {
		t.Errorf("resume with another build: exit %d, want %d and %q\n%s", code, ExitFailure, want, stderr)
	}
	if n := lines(t, rpath); n != 70 || len(readManifest(t, mpath).Sessions) != 1 {
		t.Errorf("the refused resume touched the run: %d records, %d sessions", n, len(readManifest(t, mpath).Sessions))
	}

	stdout := runOK(t, "run", cfg, "-out", out, "-allow-other-build")
	if !strings.Contains(stdout, "tasks: 80 finished of 80, 0 failed (70 found finished and skipped)") {
		t.Errorf("resume: %s", stdout)
	}
	m = readManifest(t, mpath)
	if len(m.Sessions) != 2 || m.Sessions[0].Build != olderBuild || m.Sessions[0].Records != 70 || m.Sessions[1].Build != this || m.Sessions[1].Records != 10 {
		t.Errorf("sessions %+v, want the older build's 70 records and this build's 10", m.Sessions)
	}
	if !slices.Equal(m.Builds(), []results.Build{olderBuild, this}) {
		t.Errorf("builds %v", m.Builds())
	}
	bench, err := os.ReadFile(filepath.Join(out, results.BenchFile))
	if err != nil {
		t.Fatal(err)
	}
	if want := "commit: " + olderBuild.Commit() + "," + this.Commit() + "\n"; !strings.Contains(string(bench), want) {
		t.Errorf("bench.txt lacks %q:\n%.300s", want, bench)
	}
	if stdout := runOK(t, "compare", out, out); !strings.Contains(stdout, "mixed builds: revision 111111111111, go1.25.0, executable sha256 eeeeeeeeeeee + "+this.String()) {
		t.Errorf("compare header does not show the builds:\n%.400s", stdout)
	}
}

// TestResumeAfterEditingTrackedConfig runs hcbench as `go run` does (a binary without a VCS
// stamp, here the test binary) in a git checkout, adds a report to the run's tracked config and
// resumes: one executable is one build, so the resume is accepted although git now calls the
// tree modified; before, the modified flag made it "another build" and the resume was refused.
func TestResumeAfterEditingTrackedConfig(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git")
	}
	repo := t.TempDir()
	git := func(args ...string) {
		t.Helper()
		cmd := exec.Command("git", append([]string{"-c", "user.name=hcbench test", "-c", "user.email=test@example.invalid", "-c", "commit.gpgsign=false"}, args...)...)
		cmd.Dir = repo
		if b, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, b)
		}
	}
	writeFile(t, repo, "go.mod", "module github.com/hcbench/hcbench\n\ngo 1.26\n")
	writeFile(t, repo, "small.yaml", smallConfig)
	git("init", "-q")
	git("add", ".")
	git("commit", "-q", "-m", "checkout")
	out := filepath.Join(t.TempDir(), "run")
	hcbench := func() string {
		t.Helper()
		cmd := command(t, "run", "small.yaml", "-out", out)
		cmd.Dir = repo
		b, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("hcbench run in the checkout: %v\n%s", err, b)
		}
		return string(b)
	}
	hcbench()
	mpath := filepath.Join(out, results.ManifestFile)
	if m := readManifest(t, mpath); m.RevisionSource != "git" || m.Modified {
		t.Fatalf("first run: revision from %q, modified %v; want it from git, unmodified (the test binary carries no VCS stamp, as a go run binary)", m.RevisionSource, m.Modified)
	}
	writeFile(t, repo, "small.yaml", smallConfig+"reports: [summary, runtime]\n")
	if log := hcbench(); !strings.Contains(log, "(80 found finished and skipped)") {
		t.Errorf("resume after adding a report:\n%s", log)
	}
	m := readManifest(t, mpath)
	if len(m.Sessions) != 2 || !m.Sessions[1].Modified || m.Sessions[0].Executable != m.Sessions[1].Executable || len(m.Builds()) != 1 {
		t.Errorf("sessions %+v, builds %v; want two sessions of one executable, the second in a modified tree", m.Sessions, m.Builds())
	}
	if _, err := os.Stat(filepath.Join(out, "reports", "runtime.png")); err != nil {
		t.Errorf("the added report: %v", err)
	}
}

// TestResumeRefusesOtherExecutable resumes a run whose manifest names another executable with
// the same revision, modified flag and Go version, as two different uncommitted trees at one
// commit have: refused, since the executable is the build. A merge of shards of the two
// executables is refused likewise.
func TestResumeRefusesOtherExecutable(t *testing.T) {
	dir := t.TempDir()
	cfg := writeFile(t, dir, "small.yaml", smallConfig)
	out := filepath.Join(dir, "run")
	runOK(t, "run", cfg, "-out", out)
	mpath := filepath.Join(out, results.ManifestFile)
	m := readManifest(t, mpath)
	other := m.Build()
	if other.Executable == "" {
		t.Fatalf("the manifest has no executable hash: %+v (build warning %q)", other, m.BuildWarning)
	}
	other.Executable = strings.Repeat("0", 64)
	m.Sessions[0].Build, m.Executable = other, other.Executable
	writeManifest(t, mpath, m)
	code, _, stderr := run(t, context.Background(), "run", cfg, "-out", out)
	want := "manifest.json records " + other.String() + " (the executables differ)"
	if code != ExitFailure || !strings.Contains(stderr, want) || !strings.Contains(stderr, "-allow-other-build") {
		t.Errorf("resume with another executable: exit %d, want %d and %q\n%s", code, ExitFailure, want, stderr)
	}

	sh := filepath.Join(dir, "sh")
	for _, s := range []string{"0/2", "1/2"} {
		runOK(t, "run", cfg, "-out", sh, "-shard", s)
	}
	spath := filepath.Join(sh, "manifest-shard-1-of-2.json")
	m = readManifest(t, spath)
	m.Sessions[0].Build = other
	writeManifest(t, spath, m)
	code, _, stderr = run(t, context.Background(), "merge", "-out", filepath.Join(dir, "merged"), sh)
	if code != ExitFailure || !strings.Contains(stderr, "the shards were written by 2 different builds (the executables differ)") {
		t.Errorf("merge of two executables: exit %d\n%s", code, stderr)
	}
}

// TestMergeChecksBuildsAndDirectories merges two shards: the same directory given twice is named
// as such; shards of two builds are refused with each shard's build listed, and merged with
// -allow-other-build into a manifest that lists each shard's sessions.
func TestMergeChecksBuildsAndDirectories(t *testing.T) {
	dir := t.TempDir()
	cfg := writeFile(t, dir, "small.yaml", smallConfig)
	sh := filepath.Join(dir, "sh")
	for _, s := range []string{"0/2", "1/2"} {
		runOK(t, "run", cfg, "-out", sh, "-shard", s)
	}
	if code, _, stderr := run(t, context.Background(), "merge", "-out", filepath.Join(dir, "m0"), sh, sh); code != ExitFailure || !strings.Contains(stderr, "merge: directory "+sh+" is given twice") {
		t.Errorf("merge sh sh: exit %d\n%s", code, stderr)
	}
	mpath := filepath.Join(sh, "manifest-shard-1-of-2.json")
	m := readManifest(t, mpath)
	this := m.Build()
	m.Sessions[0].Build = olderBuild
	writeManifest(t, mpath, m)
	code, _, stderr := run(t, context.Background(), "merge", "-out", filepath.Join(dir, "m1"), sh)
	for _, want := range []string{
		"the shards were written by 2 different builds",
		"shard 0/2 (" + filepath.Join(sh, "manifest-shard-0-of-2.json") + "): " + this.String(),
		"shard 1/2 (" + mpath + "): " + olderBuild.String(),
		"-allow-other-build",
	} {
		if code != ExitFailure || !strings.Contains(stderr, want) {
			t.Errorf("merge of two builds: exit %d, stderr lacks %q\n%s", code, want, stderr)
		}
	}
	merged := filepath.Join(dir, "m2")
	runOK(t, "merge", "-out", merged, "-allow-other-build", sh)
	mm := readManifest(t, filepath.Join(merged, results.ManifestFile))
	if len(mm.Sessions) != 2 || *mm.Sessions[0].Shard != (results.Shard{Index: 0, Count: 2}) || mm.Sessions[0].Build != this ||
		*mm.Sessions[1].Shard != (results.Shard{Index: 1, Count: 2}) || mm.Sessions[1].Build != olderBuild || mm.Sessions[1].Records != 40 {
		t.Errorf("merged sessions %+v", mm.Sessions)
	}
}

// TestMergeWarnsWhenALockCannotBeProbed merges shards one of whose lock files cannot be opened
// (a symbolic link to itself), as a lock that cannot be probed on some network file system: the
// merge warns that it cannot tell whether the shard still runs and merges. Before, it stopped
// with the probe's error ("bad file descriptor" on NFS).
func TestMergeWarnsWhenALockCannotBeProbed(t *testing.T) {
	dir := t.TempDir()
	cfg := writeFile(t, dir, "small.yaml", smallConfig)
	sh := filepath.Join(dir, "sh")
	for _, s := range []string{"0/2", "1/2"} {
		runOK(t, "run", cfg, "-out", sh, "-shard", s)
	}
	lock := filepath.Join(sh, ".lock-shard-1-of-2")
	if err := os.Remove(lock); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Base(lock), lock); err != nil {
		t.Skipf("no symbolic link: %v", err)
	}
	code, stdout, stderr := run(t, context.Background(), "merge", "-out", filepath.Join(dir, "merged"), sh)
	if code != ExitOK || !strings.Contains(stderr, "cannot tell whether shard 1/2 in run directory "+sh+" is still being written") || !strings.Contains(stdout, "merged 2 shards") {
		t.Errorf("merge with a lock it cannot probe: exit %d\n%s%s", code, stdout, stderr)
	}
}

// TestConcurrentRunsIntoOneDirectory starts two processes running one config into one directory
// at once, as a Slurm requeue or a replaced pod can: whichever comes second is refused while the
// first runs (or, starting after it ended, finds nothing to do), and the results hold every task
// once. Before the lock, both exited 0 and left every task recorded twice.
func TestConcurrentRunsIntoOneDirectory(t *testing.T) {
	dir := t.TempDir()
	// About a second on one worker, so that the two processes overlap.
	cfg := writeFile(t, dir, "lock.yaml", `version: 1
name: lock
seed: 5
datasets:
  - {name: qcd, generator: ginkgo, jets: 80, min_leaves: 11, max_leaves: 13, t_cut: 16}
algorithms: [greedy, trellis]
`)
	out := filepath.Join(dir, "dup")
	var cmds []*exec.Cmd
	var logs []*bytes.Buffer
	for range 2 {
		cmd := command(t, "run", cfg, "-out", out, "-workers", "1")
		var b bytes.Buffer
		cmd.Stdout, cmd.Stderr = &b, &b
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		cmds, logs = append(cmds, cmd), append(logs, &b)
	}
	for i, cmd := range cmds {
		err := cmd.Wait()
		refused := strings.Contains(logs[i].String(), "run directory "+out+" is in use by another hcbench process (pid ")
		if err != nil && !refused {
			t.Errorf("process %d: %v\n%s", i, err, logs[i])
		}
		t.Logf("process %d: refused %v", i, refused)
	}
	if n := lines(t, filepath.Join(out, results.ResultsFile)); n != 160 {
		t.Errorf("%d records for 160 tasks", n)
	}
	readRecords(t, out) // fails on a task recorded twice
}

// TestDuplicateRecords appends a copy of 5 records to a finished run, as two unlocked processes
// would have: compare fails on it, naming the run; a resume drops the copies with a warning
// (keeping the first record of each task) and the comparison passes again.
func TestDuplicateRecords(t *testing.T) {
	dir := t.TempDir()
	cfg := writeFile(t, dir, "small.yaml", smallConfig)
	a, b := filepath.Join(dir, "a"), filepath.Join(dir, "b")
	runOK(t, "run", cfg, "-out", a)
	runOK(t, "run", cfg, "-out", b)
	rpath := filepath.Join(b, results.ResultsFile)
	data, err := os.ReadFile(rpath)
	if err != nil {
		t.Fatal(err)
	}
	first5 := bytes.Join(bytes.SplitAfter(data, []byte{'\n'})[:5], nil)
	if err := os.WriteFile(rpath, append(data, first5...), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ old, new, want string }{{a, b, "NEW records 5 tasks twice"}, {b, a, "OLD records 5 tasks twice"}} {
		if code, stdout, _ := run(t, context.Background(), "compare", c.old, c.new); code != ExitFailure || !strings.Contains(stdout, c.want) {
			t.Errorf("compare %s %s: exit %d, want 1 and %q\n%s", c.old, c.new, code, c.want, stdout)
		}
	}
	code, stdout, stderr := run(t, context.Background(), "run", cfg, "-out", b)
	if code != ExitOK || !strings.Contains(stderr, "dropped 5 duplicate records") || !strings.Contains(stdout, "tasks: 80 finished of 80, 0 failed (80 found finished and skipped)") {
		t.Errorf("resume: exit %d\n%s%s", code, stdout, stderr)
	}
	if n := lines(t, rpath); n != 80 {
		t.Errorf("%d records after the resume, want 80", n)
	}
	if st, err := os.Stat(rpath); err != nil || st.Mode().Perm() != 0o644 {
		t.Errorf("rewritten results file: %v, %v", st.Mode(), err)
	}
	runOK(t, "compare", a, b)
}

// TestResultFreeKeys adds workers, save_data, thresholds and a report to the config of a finished
// run and runs it into its directory again: accepted, nothing rerun, the new report written and
// the thresholds recorded. A change of seed and data set size is refused, naming both keys.
func TestResultFreeKeys(t *testing.T) {
	dir := t.TempDir()
	cfg := writeFile(t, dir, "small.yaml", smallConfig)
	out := filepath.Join(dir, "run")
	runOK(t, "run", cfg, "-out", out)
	more := writeFile(t, dir, "more.yaml", smallConfig+"workers: 1\nsave_data: true\nthresholds: {time: 0.25, purity: 0.01}\nreports: [summary, runtime]\n")
	stdout := runOK(t, "run", more, "-out", out)
	if !strings.Contains(stdout, "(80 found finished and skipped)") {
		t.Errorf("resume with result-free keys changed:\n%s", stdout)
	}
	for _, f := range []string{"reports/runtime.png", "data/qcd.jsonl"} {
		if _, err := os.Stat(filepath.Join(out, f)); err != nil {
			t.Error(err)
		}
	}
	if m := readManifest(t, filepath.Join(out, results.ManifestFile)); m.Thresholds["time"] != 0.25 || m.Thresholds["dendrogram_purity"] != 0.01 || !slices.Equal(m.Reports, []string{"summary", "runtime"}) {
		t.Errorf("manifest thresholds %+v, reports %v", m.Thresholds, m.Reports)
	}
	other := writeFile(t, dir, "other.yaml", strings.NewReplacer("seed: 3", "seed: 4", "jets: 40", "jets: 41").Replace(smallConfig))
	code, _, stderr := run(t, context.Background(), "run", other, "-out", out)
	if code != ExitFailure || !strings.Contains(stderr, "holds a run of a different config") ||
		!strings.Contains(stderr, "keys that differ (its config.yaml → this config): datasets[0].jets: 40 → 41; seed: 3 → 4)") {
		t.Errorf("changed config: exit %d\n%s", code, stderr)
	}
}

// TestReportChosenReports adds a report to a finished run with report -reports, and refuses an
// unknown report name.
func TestReportChosenReports(t *testing.T) {
	dir := t.TempDir()
	cfg := writeFile(t, dir, "small.yaml", smallConfig)
	out := filepath.Join(dir, "run")
	runOK(t, "run", cfg, "-out", out)
	stdout := runOK(t, "report", "-reports", "likelihood_gap", out)
	if !strings.Contains(stdout, "report: "+filepath.Join(out, "reports", "likelihood_gap.md")) || strings.Contains(stdout, "summary.md") {
		t.Errorf("report -reports likelihood_gap wrote:\n%s", stdout)
	}
	if m := readManifest(t, filepath.Join(out, results.ManifestFile)); !slices.Equal(m.Reports, []string{"summary", "likelihood_gap"}) {
		t.Errorf("manifest reports %v, want summary and the added likelihood_gap", m.Reports)
	}
	if stdout := runOK(t, "report", out); !strings.Contains(stdout, "likelihood_gap.md") || !strings.Contains(stdout, "summary.md") {
		t.Errorf("report after adding one:\n%s", stdout)
	}
	if code, _, stderr := run(t, context.Background(), "report", "-reports", "summary,nope", out); code != ExitUsage || !strings.Contains(stderr, `unknown report "nope"`) || !strings.Contains(stderr, "Usage: hcbench report") {
		t.Errorf("unknown report: exit %d, want %d (a usage error) with the usage\n%s", code, ExitUsage, stderr)
	}
	// Resuming the finished run with its config, which lists summary only, keeps the added
	// report; a config that asks for another adds it after the config's.
	runOK(t, "run", cfg, "-out", out)
	if m := readManifest(t, filepath.Join(out, results.ManifestFile)); !slices.Equal(m.Reports, []string{"summary", "likelihood_gap"}) {
		t.Errorf("manifest reports after a resume %v, want summary and likelihood_gap", m.Reports)
	}
	more := writeFile(t, dir, "more.yaml", smallConfig+"reports: [runtime, summary]\n")
	if stdout := runOK(t, "run", more, "-out", out); !strings.Contains(stdout, "likelihood_gap.md") {
		t.Errorf("resume with another report:\n%s", stdout)
	}
	if m := readManifest(t, filepath.Join(out, results.ManifestFile)); !slices.Equal(m.Reports, []string{"runtime", "summary", "likelihood_gap"}) {
		t.Errorf("manifest reports after a resume with runtime %v, want runtime, summary, likelihood_gap", m.Reports)
	}
}

// TestUnfinishedRunIsNoPass compares a full run with a partial merge of half its shards: compare
// exits 1 naming NEW's status and the missing tasks (and passes with -allow-missing), and
// report on the partial run warns and exits 1. Before, compare printed "no regressions" and
// exited 0.
func TestUnfinishedRunIsNoPass(t *testing.T) {
	dir := t.TempDir()
	cfg := writeFile(t, dir, "small.yaml", smallConfig)
	full, sh, part := filepath.Join(dir, "full"), filepath.Join(dir, "sh"), filepath.Join(dir, "part")
	runOK(t, "run", cfg, "-out", full)
	runOK(t, "run", cfg, "-out", sh, "-shard", "0/2")
	if code, _, stderr := run(t, context.Background(), "merge", "-partial", "-out", part, sh); code != ExitFailure {
		t.Fatalf("partial merge: exit %d\n%s", code, stderr)
	}
	code, stdout, _ := run(t, context.Background(), "compare", full, part)
	for _, want := range []string{"complete, 80 of 80 tasks", "NEW did not finish (incomplete, 40 of 80 tasks)", "40 tasks of OLD are missing from NEW", "2 problems:"} {
		if code != ExitFailure || !strings.Contains(stdout, want) {
			t.Errorf("compare full partial: exit %d, output lacks %q\n%s", code, want, stdout)
		}
	}
	runOK(t, "compare", "-allow-missing", full, part)
	runOK(t, "compare", part, full) // OLD unfinished: its tasks are all in NEW
	code, _, stderr := run(t, context.Background(), "report", part)
	if code != ExitFailure || !strings.Contains(stderr, "is not a finished run (status incomplete, 40 of 80 tasks)") {
		t.Errorf("report on a partial run: exit %d\n%s", code, stderr)
	}
}

// TestCorruptLineOnResume damages line 2 of a run's results: the resume says which line and how
// to recover; deleting the line as told reruns its task only.
func TestCorruptLineOnResume(t *testing.T) {
	dir := t.TempDir()
	cfg := writeFile(t, dir, "small.yaml", smallConfig)
	out := filepath.Join(dir, "run")
	runOK(t, "run", cfg, "-out", out)
	rpath := filepath.Join(out, results.ResultsFile)
	data, err := os.ReadFile(rpath)
	if err != nil {
		t.Fatal(err)
	}
	ls := bytes.SplitAfter(data, []byte{'\n'})
	ls[1] = []byte("{\"schema\":1,\"key\":\x00garbage\n")
	if err := os.WriteFile(rpath, bytes.Join(ls, nil), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, stderr := run(t, context.Background(), "run", cfg, "-out", out)
	if code != ExitFailure || !strings.Contains(stderr, rpath+":2: not a result record") || !strings.Contains(stderr, "line 2 of "+rpath+" is damaged") || !strings.Contains(stderr, "delete that line") {
		t.Errorf("corrupt line: exit %d\n%s", code, stderr)
	}
	if err := os.WriteFile(rpath, bytes.Join(append(ls[:1:1], ls[2:]...), nil), 0o644); err != nil {
		t.Fatal(err)
	}
	if stdout := runOK(t, "run", cfg, "-out", out); !strings.Contains(stdout, "(79 found finished and skipped)") {
		t.Errorf("after deleting the line:\n%s", stdout)
	}
}

// TestNightlyThresholdsPassOnSameCode runs a small config with the thresholds of
// configs/nightly.yaml twice, as two nights of the same code, and compares them: exit 0. Quality
// is deterministic for the seed, and times, however the machine's load moves them, must not
// fail a night.
func TestNightlyThresholdsPassOnSameCode(t *testing.T) {
	// Only the thresholds are read, so that the test needs none of the nightly's data sets.
	var nightly struct {
		Thresholds results.Thresholds `yaml:"thresholds"`
	}
	if err := yaml.Unmarshal([]byte(mustRead(t, "../../configs/nightly.yaml")), &nightly); err != nil {
		t.Fatal(err)
	}
	th := nightly.Thresholds
	if th["log_likelihood"] == 0 || th["dendrogram_purity"] == 0 {
		t.Fatalf("configs/nightly.yaml's thresholds were not read: %+v", th)
	}
	dir := t.TempDir()
	cfg := writeFile(t, dir, "n.yaml", fmt.Sprintf(`version: 1
name: nightly-small
seed: 9
thresholds: {log_likelihood: %g, exact_gap: %g, log_evidence: %g, dendrogram_purity: %g, time: %g}
datasets:
  - {name: qcd, generator: ginkgo, jets: 12, min_leaves: 4, max_leaves: 9, t_cut: 16}
  - {name: blobs, generator: mixture, items: 3, points: 12, components: 3, separation: 4}
algorithms:
  - {name: truth, datasets: [qcd]}
  - {name: greedy, datasets: [qcd]}
  - {name: beam, beam_size: 3n, datasets: [qcd]}
  - {name: trellis, datasets: [qcd]}
  - {name: bhc, datasets: [blobs]}
  - {name: rbhc, m: 4, datasets: [blobs]}
`, th["log_likelihood"], th["exact_gap"], th["log_evidence"], th["dendrogram_purity"], th["time"]))
	a, b := filepath.Join(dir, "night1"), filepath.Join(dir, "night2")
	runOK(t, "run", cfg, "-out", a)
	runOK(t, "run", cfg, "-out", b)
	code, stdout, stderr := run(t, context.Background(), "compare", a, b)
	if code != ExitOK || !strings.Contains(stdout, "no regressions") || strings.Contains(stdout, "problem") {
		t.Errorf("two nights of the same code: exit %d\n%s%s", code, stdout, stderr)
	}
}
