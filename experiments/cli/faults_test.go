package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/hcbench/hcbench/experiments/memory"
	"github.com/hcbench/hcbench/experiments/registry"
	"github.com/hcbench/hcbench/experiments/results"
)

// jetsConfig reads jets.jsonl beside it.
const jetsConfig = `version: 1
name: j
datasets:
  - {name: q, file: jets.jsonl}
algorithms: [truth, greedy]
`

// writeJets generates jets with a run's save_data and returns the file: 10 jets of 5 to 7 leaves.
func writeJets(t *testing.T, dir string) string {
	t.Helper()
	cfg := writeFile(t, dir, "gen.yaml", "version: 1\nname: gen\nsave_data: true\ndatasets:\n  - {name: g, generator: ginkgo, jets: 10, min_leaves: 5, max_leaves: 7, t_cut: 16}\nalgorithms: [truth]\nreports: []\n")
	out := filepath.Join(dir, "gen")
	runOK(t, "run", cfg, "-out", out)
	b, err := os.ReadFile(filepath.Join(out, results.DataDir, "g.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	return writeFile(t, dir, "jets.jsonl", string(b))
}

// scaleMomenta multiplies every leaf momentum of a jets file by f (as a user re-exporting the
// data in other units would), and the stored tree contents with them.
func scaleMomenta(t *testing.T, path string, f float64) {
	t.Helper()
	var out bytes.Buffer
	for line := range strings.Lines(mustRead(t, path)) {
		var j map[string]any
		if err := json.Unmarshal([]byte(line), &j); err != nil {
			t.Fatal(err)
		}
		for _, key := range []string{"leaves", "content"} {
			rows, _ := j[key].([]any)
			for _, r := range rows {
				for k, x := range r.([]any) {
					r.([]any)[k] = x.(float64) * f
				}
			}
		}
		b, err := json.Marshal(j)
		if err != nil {
			t.Fatal(err)
		}
		out.Write(append(b, '\n'))
	}
	if err := os.WriteFile(path, out.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestChangedDataRefused changes a jets file's momenta by 1% between the sessions of a run and
// between the shards of one: the resume and the merge are refused, naming the file and both
// sums; the manifest records every data file's SHA-256.
func TestChangedDataRefused(t *testing.T) {
	dir := t.TempDir()
	jets := writeJets(t, dir)
	cfg := writeFile(t, dir, "j.yaml", jetsConfig)
	out := filepath.Join(dir, "run")
	runOK(t, "run", cfg, "-out", out)
	m := readManifest(t, filepath.Join(out, results.ManifestFile))
	if len(m.DataFiles) != 1 || m.DataFiles[0].File != "jets.jsonl" || len(m.DataFiles[0].SHA256) != 64 || m.DataFiles[0].Bytes == 0 {
		t.Fatalf("manifest data files %+v", m.DataFiles)
	}
	shards := filepath.Join(dir, "shards")
	runOK(t, "run", cfg, "-out", shards, "-shard", "0/2")

	scaleMomenta(t, jets, 1.01)
	// Resuming the finished run (a nightly rerun into the same directory) is refused.
	code, _, stderr := run(t, context.Background(), "run", cfg, "-out", out)
	if code != ExitFailure || !strings.Contains(stderr, "data set q: jets.jsonl has changed (sha256 "+results.Short(m.DataFiles[0].SHA256)) {
		t.Errorf("resume over changed data: exit %d\n%s", code, stderr)
	}
	// The second shard reads the changed file, into its own directory (a shard of another
	// node), and the merge refuses the pair.
	other := filepath.Join(dir, "shards-b")
	runOK(t, "run", cfg, "-out", other, "-shard", "1/2")
	code, _, stderr = run(t, context.Background(), "merge", "-out", filepath.Join(dir, "merged"), shards, other)
	if code != ExitFailure || !strings.Contains(stderr, "read different data: data set q: jets.jsonl has changed") {
		t.Errorf("merge of shards over different data: exit %d\n%s", code, stderr)
	}
	if _, err := os.Stat(filepath.Join(dir, "merged")); !os.IsNotExist(err) {
		t.Errorf("a refused merge left its output: %v", err)
	}
	// The changed shard in the first shard's directory is refused too.
	code, _, stderr = run(t, context.Background(), "run", cfg, "-out", shards, "-shard", "1/2")
	if code != ExitFailure || !strings.Contains(stderr, "have changed since manifest-shard-0-of-2.json was written") {
		t.Errorf("a shard over changed data beside another: exit %d\n%s", code, stderr)
	}
}

// TestForeignRecordsDropped: a record of a task the plan does not hold (a line pasted from another
// run) is dropped on resume with a warning, and not counted: 80 of 80, not 81 of 80.
func TestForeignRecordsDropped(t *testing.T) {
	dir := t.TempDir()
	cfg := writeFile(t, dir, "small.yaml", smallConfig)
	out := filepath.Join(dir, "run")
	runOK(t, "run", cfg, "-out", out)
	path := filepath.Join(out, results.ResultsFile)
	recs, err := results.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	foreign := recs[0]
	foreign.Key = "dataset=other|item=0|algorithm=greedy"
	b, err := json.Marshal(&foreign)
	if err != nil {
		t.Fatal(err)
	}
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.Write(append(b, '\n'))
	f.Close()
	code, stdout, stderr := run(t, context.Background(), "run", cfg, "-out", out)
	if code != ExitOK || !strings.Contains(stdout, "tasks: 80 finished of 80") || !strings.Contains(stderr, "dropped 1 record of tasks that this config does not plan (dataset=other|item=0|algorithm=greedy)") {
		t.Errorf("resume with a foreign record: exit %d\n%s%s", code, stdout, stderr)
	}
	if n := lines(t, path); n != 80 {
		t.Errorf("results.jsonl has %d lines, want 80", n)
	}
	if m := readManifest(t, filepath.Join(out, results.ManifestFile)); m.Finished != 80 || m.Tasks != 80 {
		t.Errorf("manifest: %d finished of %d", m.Finished, m.Tasks)
	}
}

// TestKillBetweenRecordsAndReports: a run killed after its last record but before its reports
// (simulated: a finished run's reports removed and its manifest put back to running) is not a
// finished run for compare, and the same command completes it, writing the reports; so does
// report.
func TestKillBetweenRecordsAndReports(t *testing.T) {
	dir := t.TempDir()
	cfg := writeFile(t, dir, "small.yaml", smallConfig)
	good, out := filepath.Join(dir, "good"), filepath.Join(dir, "run")
	runOK(t, "run", cfg, "-out", good)
	kill := func() {
		t.Helper()
		runOK(t, "run", cfg, "-out", out)
		for _, f := range []string{results.ReportsDir, results.BenchFile, "index.html"} {
			if err := os.RemoveAll(filepath.Join(out, f)); err != nil {
				t.Fatal(err)
			}
		}
		mp := filepath.Join(out, results.ManifestFile)
		m := readManifest(t, mp)
		m.Status, m.Finished, m.End = results.StatusRunning, 0, m.Start
		writeManifest(t, mp, m)
	}
	kill()
	if code, stdout, _ := run(t, context.Background(), "compare", good, out); code != ExitFailure || !strings.Contains(stdout, "NEW did not finish (running") {
		t.Errorf("compare with a run killed before its reports: exit %d\n%s", code, stdout)
	}
	stdout := runOK(t, "run", cfg, "-out", out)
	if m := readManifest(t, filepath.Join(out, results.ManifestFile)); m.Status != results.StatusComplete || !strings.Contains(stdout, "(80 found finished and skipped)") {
		t.Errorf("resume: status %q\n%s", m.Status, stdout)
	}
	for _, f := range []string{"reports/summary.md", results.BenchFile, "index.html"} {
		if _, err := os.Stat(filepath.Join(out, f)); err != nil {
			t.Errorf("resume did not write %s: %v", f, err)
		}
	}
	// report completes such a run too.
	os.RemoveAll(out)
	kill()
	if code, _, stderr := run(t, context.Background(), "report", out); code != ExitOK {
		t.Errorf("report on a run killed before its reports: exit %d\n%s", code, stderr)
	}
	if m := readManifest(t, filepath.Join(out, results.ManifestFile)); m.Status != results.StatusComplete || m.Finished != 80 {
		t.Errorf("after report: status %q, %d finished", m.Status, m.Finished)
	}
	runOK(t, "compare", good, out)
}

// TestMergeLeavesNothingPartial: an interrupted merge writes nothing to its -out (it writes into
// a temporary directory beside it and renames that), so the same command then succeeds.
func TestMergeLeavesNothingPartial(t *testing.T) {
	dir := t.TempDir()
	cfg := writeFile(t, dir, "small.yaml", smallConfig)
	shards := filepath.Join(dir, "shards")
	runOK(t, "run", cfg, "-out", shards, "-shard", "0/2")
	runOK(t, "run", cfg, "-out", shards, "-shard", "1/2")
	merged := filepath.Join(dir, "merged")
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if code, _, stderr := run(t, ctx, "merge", "-out", merged, shards); code != ExitInterrupted {
		t.Errorf("interrupted merge: exit %d\n%s", code, stderr)
	}
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if e.Name() == "merged" || strings.Contains(e.Name(), ".merging-") {
			t.Errorf("an interrupted merge left %s", e.Name())
		}
	}
	runOK(t, "merge", "-out", merged, shards)
	if m := readManifest(t, filepath.Join(merged, results.ManifestFile)); m.Status != results.StatusComplete {
		t.Errorf("merge: status %q", m.Status)
	}
}

// TestMemoryRefusedUpFront gives configs whose memory no machine has, in another process each:
// validate, plan and run refuse them with exit 1 and the estimate, the limit and what to change,
// before allocating (the process's peak memory stays small).
func TestMemoryRefusedUpFront(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, dir, "rows.csv", "x,y,label\n1,2,a\n3,4,b\n")
	cases := []struct {
		name, config string
		want         []string
	}{
		{"a trillion jets", "version: 1\nname: m\ndatasets:\n  - {name: q, generator: ginkgo, jets: 1000000000000, t_cut: 16}\nalgorithms: [truth]\n",
			[]string{"the run would take about", "the plan of data set q (1000000000000 items × 1 algorithm)", "this process may use", "lower the data sets' counts"}},
		{"1e8 jets", "version: 1\nname: m\ndatasets:\n  - {name: q, generator: ginkgo, jets: 100000000, t_cut: 16}\nalgorithms: [truth, greedy]\n",
			[]string{"the plan of data set q (100000000 items × 2 algorithms)"}},
		{"correlation weights of 2e6 points", "version: 1\nname: m\ndatasets:\n  - {name: p, generator: mixture, points: 2000000}\nalgorithms: [greedy]\n",
			[]string{"algorithms[0] (greedy) cannot run on data set p: an item of 2000000 leaves needs about 32.0 TiB"}},
		{"bhc on a million points", "version: 1\nname: m\ndatasets:\n  - {name: p, generator: mixture, points: 1000000, split_model: none}\nalgorithms: [bhc]\n",
			[]string{"algorithms[0] (bhc) cannot run on data set p: an item of 1000000 leaves needs about 4.0 TiB"}},
		{"2e7 jets, whose plan fits but whose items do not", "version: 1\nname: m\ndatasets:\n  - {name: q, generator: ginkgo, jets: 20000000, t_cut: 16}\nalgorithms: [truth]\n",
			[]string{"the run would take about", "the 20000000 items of data set q", "the records of data set q"}},
		{"a beam size whose estimate would overflow", "version: 1\nname: m\ndatasets:\n  - {name: q, generator: ginkgo, jets: 2, t_cut: 16, max_leaves: 9}\nalgorithms: [{name: beam, beam_size: 576460752303423488}]\n",
			[]string{"algorithms[0] (beam) cannot run on data set q", "lower beam_size"}},
		{"a CSV file whose rows would not fit", "version: 1\nname: m\ndatasets:\n  - {name: r, file: huge.csv, split_model: none}\nalgorithms: [bhc]\n",
			[]string{"m.yaml:4: datasets[0].file: ", "huge.csv holds", "that reading a data file may take; read a smaller file"}},
		{"a trellis memory limit beyond the machine", "version: 1\nname: m\ndatasets:\n  - {name: q, generator: ginkgo, jets: 2, t_cut: 16, max_leaves: 9}\nalgorithms: [{name: trellis, memory_limit: 100TiB}]\n",
			[]string{"m.yaml:5: algorithms[0].memory_limit: 100.0 TiB is more than this process may use"}},
		{"a trellis over 30 rows", "version: 1\nname: m\ndatasets:\n  - {name: r, file: rows40.csv}\nalgorithms: [trellis]\n",
			[]string{"algorithms[0] (trellis) cannot run on data set r: the exact trellis handles at most 30 items, and its items have 40"}},
	}
	var rows strings.Builder
	rows.WriteString("x,y,label\n")
	for i := range 40 {
		rows.WriteString(strings.Repeat("1", i+1) + ",2,a\n")
	}
	writeFile(t, dir, "rows40.csv", rows.String())
	// A sparse file larger than half the memory at registry.CSVBytesPerByte bytes a byte: refused by
	// its size, never read.
	huge, err := os.Create(filepath.Join(dir, "huge.csv"))
	if err != nil {
		t.Fatal(err)
	}
	if err := huge.Truncate(memory.Budget()/registry.CSVBytesPerByte + 1); err != nil {
		t.Skipf("no sparse file: %v", err)
	}
	huge.Close()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			cfg := writeFile(t, dir, "m.yaml", c.config)
			for _, cmdName := range []string{"validate", "plan", "run"} {
				args := []string{cmdName, cfg}
				if cmdName == "run" {
					args = append(args, "-out", filepath.Join(t.TempDir(), "run"))
				}
				cmd := command(t, args...)
				peak := measurePeak(t, cmd)
				var out bytes.Buffer
				cmd.Stdout, cmd.Stderr = &out, &out
				err := cmd.Run()
				var ee *exec.ExitError
				if !errors.As(err, &ee) || ee.ExitCode() != ExitFailure {
					t.Errorf("%s: %v, want exit %d\n%s", cmdName, err, ExitFailure, &out)
					continue
				}
				for _, w := range c.want {
					if !strings.Contains(out.String(), w) {
						t.Errorf("%s: output does not contain %q:\n%s", cmdName, w, &out)
					}
				}
				if peak, ok := peak(); ok && peak > 200<<10 {
					t.Errorf("%s: peak memory %s: it allocated before refusing", cmdName, memory.Format(peak<<10))
				} else if ok {
					t.Logf("%s: refused with peak memory %s", cmdName, memory.Format(peak<<10))
				}
			}
		})
	}
}

// TestResumeWithLowerMemoryLimit: memory_limit and threads change no result, so a run may be
// resumed with another (a run killed for memory, resumed with a lower limit).
func TestResumeWithLowerMemoryLimit(t *testing.T) {
	dir := t.TempDir()
	src := "version: 1\nname: t\ndatasets:\n  - {name: q, generator: ginkgo, jets: 4, min_leaves: 5, max_leaves: 7, t_cut: 16}\nalgorithms: [{name: trellis, memory_limit: 1GiB, threads: 2}]\n"
	cfg := writeFile(t, dir, "t.yaml", src)
	out := filepath.Join(dir, "run")
	runOK(t, "run", cfg, "-out", out)
	writeFile(t, dir, "t.yaml", strings.NewReplacer("1GiB", "64MiB", "threads: 2", "threads: 1").Replace(src))
	stdout := runOK(t, "run", cfg, "-out", out)
	if !strings.Contains(stdout, "(4 found finished and skipped)") {
		t.Errorf("resume with a lower memory limit:\n%s", stdout)
	}
}

// TestSaveDataMixture: -save-data writes a mixture's items as CSV files (one per item) in the
// data's order, which read back as the same data: the same labels in the same order, and the
// exact trellis's log Z and MAP value as for the generated items (to 1e-12 relative: the file's
// item gives its leaves to the trellis in another order, which sums the same terms in another
// order; a value that did not round-trip, float32 say, would be 1e-8 off).
func TestSaveDataMixture(t *testing.T) {
	dir := t.TempDir()
	cfg := writeFile(t, dir, "m.yaml", "version: 1\nname: m\ndatasets:\n  - {name: mix, generator: mixture, points: 12, items: 2, dims: 3}\nalgorithms: [trellis]\nreports: []\n")
	out := filepath.Join(dir, "run")
	_, stderr := runOKErr(t, "run", cfg, "-out", out, "-save-data")
	if !strings.Contains(stderr, "msg=\"saved data\" dataset=mix") || !strings.Contains(stderr, "items=2") {
		t.Errorf("no log of the saved data:\n%s", stderr)
	}
	generated := readRecords(t, out)
	nearRel := func(a, b *results.LogProb) bool {
		return a != nil && b != nil && math.Abs(float64(*a-*b)) <= 1e-12*math.Abs(float64(*a))
	}
	for _, id := range []string{"0", "1"} {
		csv := filepath.Join(out, results.DataDir, "mix-"+id+".csv")
		back := writeFile(t, dir, "b"+id+".yaml", "version: 1\nname: b\ndatasets:\n  - {name: mix, file: "+csv+"}\nalgorithms: [trellis]\nreports: []\n")
		bout := filepath.Join(dir, "back"+id)
		runOK(t, "run", back, "-out", bout)
		g := generated["dataset=mix|item="+id+"|algorithm=trellis"]
		r := readRecords(t, bout)["dataset=mix|item=all|algorithm=trellis"]
		if !nearRel(g.LogLikelihood, r.LogLikelihood) || !nearRel(g.LogZ, r.LogZ) || !slices.Equal(g.LeafLabels, r.LeafLabels) || r.N != 12 {
			t.Errorf("item %s read back: MAP %v, log Z %v, labels %v; generated %v, %v, %v", id, r.LogLikelihood, r.LogZ, r.LeafLabels, g.LogLikelihood, g.LogZ, g.LeafLabels)
		}
	}
}

// runOKErr is runOK that also returns stderr.
func runOKErr(t *testing.T, args ...string) (string, string) {
	t.Helper()
	code, stdout, stderr := run(t, context.Background(), args...)
	if code != ExitOK {
		t.Fatalf("%s: exit %d\n%s%s", strings.Join(args, " "), code, stdout, stderr)
	}
	return stdout, stderr
}

// TestEveryCommandInterrupted: with its context cancelled (Ctrl-C), every command that reads or
// writes exits 130 and writes no partial output.
func TestEveryCommandInterrupted(t *testing.T) {
	dir := t.TempDir()
	cfg := writeFile(t, dir, "small.yaml", smallConfig)
	done := filepath.Join(dir, "done")
	runOK(t, "run", cfg, "-out", done)
	shards := filepath.Join(dir, "shards")
	runOK(t, "run", cfg, "-out", shards, "-shard", "0/2")
	runOK(t, "run", cfg, "-out", shards, "-shard", "1/2")
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	for _, args := range [][]string{
		{"run", cfg, "-out", filepath.Join(dir, "run")},
		{"run", cfg, "-out", done}, // a resume, reading the records
		{"merge", "-out", filepath.Join(dir, "merged"), shards},
		{"validate", cfg},
		{"plan", cfg},
		{"report", done},
		{"compare", done, done},
		{"data", "fetch", "-data", filepath.Join(dir, "data"), "-mirror", "http://127.0.0.1:1"},
	} {
		if code, stdout, stderr := run(t, ctx, args...); code != ExitInterrupted {
			t.Errorf("%s: exit %d, want %d\n%s%s", strings.Join(args, " "), code, ExitInterrupted, stdout, stderr)
		}
	}
}
