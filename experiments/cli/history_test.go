package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/hcbench/hcbench/experiments/history"
	"github.com/hcbench/hcbench/experiments/results"
)

const historyConfig = `version: 1
name: nightly
datasets:
  - {name: q, generator: ginkgo, jets: 8, min_leaves: 5, max_leaves: 7, t_cut: 16}
algorithms: [greedy, trellis, {name: sleeper, label: slow}]
reports: [summary]
`

// TestHistoryFlagsPlantedSlowdown runs hcbench 30 times on a tiny config with the test-only
// sleeper algorithm (repeat_test.go; label slow), whose sleep doubles from run 17 on, as a
// slowdown in the code would make it, the config unchanged. history ingests the 30 run directories and finds the step in the
// sleeper's median time at run 17, and no step in any quality metric (the code is otherwise
// the same, so they repeat exactly); -bisect time names run 16 and run 17, by directory; the
// page lists the regression. Ingesting again changes no row count.
//
// The sleeper's records are given the times its sleeps take on an idle machine (nominalTimes):
// on a loaded one the scheduler adds milliseconds to each, and a load that rises between two of
// the 30 runs makes a step of its own, which no step finder can tell from a slowdown.
func TestHistoryFlagsPlantedSlowdown(t *testing.T) {
	dir := t.TempDir()
	cfg := writeFile(t, dir, "nightly.yaml", historyConfig)
	t.Cleanup(func() { sleepFactor.Delete("slow") })
	var dirs []string
	start := time.Now()
	for i := range 30 {
		factor := 1.0
		if i >= 16 {
			factor = 2
		}
		sleepFactor.Store("slow", factor)
		d := filepath.Join(dir, "runs", fmt.Sprintf("nightly-%02d", i+1))
		runOK(t, "run", cfg, "-out", d)
		nominalTimes(t, d, "slow", factor)
		dirs = append(dirs, d)
	}
	t.Logf("30 runs in %v", time.Since(start).Round(time.Millisecond))
	db := filepath.Join(dir, "history.db")
	page := filepath.Join(dir, "history.html")
	out := runOK(t, append([]string{"history", "-db", db, "-o", page}, dirs...)...)
	if n := strings.Count(out, ": ingested ("); n != 30 {
		t.Errorf("%d runs ingested, want 30:\n%s", n, out)
	}
	if !regexp.MustCompile(`(?m)^  time: nightly · q · slow · all N: [0-9.]+ ms → [0-9.]+ ms from run 17 \(`).MatchString(out) {
		t.Errorf("history does not list the sleeper's slowdown at run 17:\n%s", out)
	}
	counts := historyCounts(t, db)

	out = runOK(t, "history", "-db", db, "-o", page, "-bisect", "time")
	bisect := out[strings.Index(out, "time (median task time"):]
	t.Logf("history -bisect time:\n%s", bisect)
	// The planted step among the sleeper's steps over all N (the machine's load may add one, a
	// noisy latest run say, which is logged above and not failed).
	entries := regexp.MustCompile(`(?m)^nightly · q · slow · all N: regression .*\n  last run before:  (.*)\n  first run after:  (.*)$`).FindAllStringSubmatch(bisect, -1)
	if !slices.ContainsFunc(entries, func(e []string) bool {
		return strings.HasSuffix(e[1], "  "+dirs[15]) && strings.HasSuffix(e[2], "  "+dirs[16])
	}) {
		t.Errorf("-bisect time does not name runs %s and %s around the sleeper's slowdown:\n%s", dirs[15], dirs[16], bisect)
	}

	// The quality of the same code repeats exactly: no step in any quality metric.
	d, err := history.Open(context.Background(), db)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	h, err := d.Load(context.Background(), 0)
	if err != nil {
		t.Fatal(err)
	}
	var planted bool
	for _, f := range h.Changes("") {
		s := f.Series
		switch {
		case s.Metric.Key != history.MetricTime:
			t.Errorf("a step in %s of %s %s at run %d", s.Metric.Key, s.Algorithm, history.NLabel(s.N), f.After+1)
		case s.Algorithm == "slow" && s.N == history.AllN && f.Regression && f.After == 16 && f.Before == 15:
			planted = true
			if r := f.To / f.From; r < 1.5 || r > 2.5 {
				t.Errorf("the step multiplies the time by %.3g, planted 2 (within 25 %%)", r)
			}
		default:
			// The machine's load can move the times of the other tasks; logged, not failed.
			t.Logf("also a time step: %s %s, %s at run %d (%.3g → %.3g s)", s.Algorithm, history.NLabel(s.N), f.Kind(), f.After+1, f.From, f.To)
		}
	}
	if !planted {
		t.Error("the slowdown at run 17 is not among the steps")
		for _, s := range h.Experiments[0].Series {
			if s.Metric.Key == history.MetricTime && s.Algorithm == "slow" && s.N == history.AllN {
				t.Logf("the sleeper's median times: %v; fit %+v", s.Points, s.Fit)
			}
		}
	}
	html := mustRead(t, page)
	if !strings.Contains(html, `<table id="regressions-table">`) || !strings.Contains(html, "q · slow · all N</a>") {
		t.Error("history.html does not list the planted regression")
	}

	// Idempotent: the runs again change no row count, and say they were there.
	out = runOK(t, append([]string{"history", "-db", db, "-o", page}, dirs[:3]...)...)
	if n := strings.Count(out, "already in the history"); n != 3 {
		t.Errorf("%d of 3 runs said to be in the history already:\n%s", n, out)
	}
	if again := historyCounts(t, db); fmt.Sprint(again) != fmt.Sprint(counts) {
		t.Errorf("rows after ingesting again: %v, before: %v", again, counts)
	}
	t.Logf("rows: %v", counts)
}

// nominalTimes sets the time of every record of the sleeper label in run directory dir to the
// time its sleep takes on an idle machine: factor × 2 ms × 2^(0.75·(leaves − 4)).
func nominalTimes(t *testing.T, dir, label string, factor float64) {
	t.Helper()
	editRecords(t, dir, func(_ int, rec map[string]any) {
		if rec["algorithm"] == label {
			rec["seconds"] = factor * 0.002 * math.Pow(2, 0.75*float64(leavesOf(t, rec)-4))
		}
	})
}

func historyCounts(t *testing.T, path string) map[string]int {
	t.Helper()
	d, err := history.Open(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	c, err := d.Counts(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// TestHistoryProblems: a directory that is no run, an interrupted run, a bad -bisect metric,
// a database without runs and Ctrl-C are each said clearly, with their exit codes; a run skipped
// does not keep the others from being ingested.
func TestHistoryProblems(t *testing.T) {
	dir := t.TempDir()
	cfg := writeFile(t, dir, "nightly.yaml", historyConfig)
	good := filepath.Join(dir, "good")
	runOK(t, "run", cfg, "-out", good)
	// An interrupted run: its manifest says so.
	part := filepath.Join(dir, "part")
	runOK(t, "run", cfg, "-out", part)
	m, err := results.ReadManifest(filepath.Join(part, results.ManifestFile))
	if err != nil {
		t.Fatal(err)
	}
	m.Status, m.Finished = results.StatusInterrupted, 5
	if err := m.WriteFile(filepath.Join(part, results.ManifestFile)); err != nil {
		t.Fatal(err)
	}
	empty := filepath.Join(dir, "empty")
	if err := os.Mkdir(empty, 0o755); err != nil {
		t.Fatal(err)
	}
	db := filepath.Join(dir, "h.db")
	page := filepath.Join(dir, "h.html")
	code, stdout, stderr := run(t, context.Background(), "history", "-db", db, "-o", page, empty, part, good)
	if code != ExitFailure {
		t.Errorf("exit %d, want %d", code, ExitFailure)
	}
	for _, want := range []string{
		"hcbench: skipped " + empty + ": " + empty + " is not a run directory (no manifest.json)",
		"hcbench: skipped " + part + ": not a finished run (status interrupted, 5 of 24 tasks finished)",
		"-out " + part + " resumes it",
	} {
		if !strings.Contains(stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, stderr)
		}
	}
	if !strings.Contains(stdout, good+": ingested") || !strings.Contains(stdout, "history: 1 run of 1 experiment") {
		t.Errorf("the good run was not ingested:\n%s", stdout)
	}
	if _, err := os.Stat(page); err != nil {
		t.Errorf("no page written: %v", err)
	}

	if code, _, stderr := run(t, context.Background(), "history", "-db", db, "-bisect", "tme"); code != ExitUsage ||
		!strings.Contains(stderr, `unknown metric "tme"; did you mean "time"?`) {
		t.Errorf("-bisect tme: exit %d\n%s", code, stderr)
	}
	if code, _, stderr := run(t, context.Background(), "history", "-db", filepath.Join(dir, "new.db"), "-o", filepath.Join(dir, "new.html")); code != ExitFailure ||
		!strings.Contains(stderr, "holds no run yet") {
		t.Errorf("empty database: exit %d\n%s", code, stderr)
	}
	// help history: the usage, what the command does, and every metric -bisect takes.
	code, stdout, _ = run(t, context.Background(), "help", "history")
	if code != ExitOK || !strings.Contains(stdout, "Usage: hcbench history") || !strings.Contains(stdout, "the git bisect command") {
		t.Errorf("help history: exit %d\n%s", code, stdout)
	}
	for _, m := range history.Metrics() {
		if !regexp.MustCompile(`(?m)^  ` + m.Key + ` +` + regexp.QuoteMeta(m.Name) + ` \(`).MatchString(stdout) {
			t.Errorf("help history does not list the metric %s", m.Key)
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	other := filepath.Join(dir, "other.html")
	if code, stdout, stderr := run(t, ctx, "history", "-db", db, "-o", other, good); code != ExitInterrupted {
		t.Errorf("interrupted: exit %d, want %d\n%s%s", code, ExitInterrupted, stdout, stderr)
	}
	if _, err := os.Stat(other); err == nil {
		t.Error("an interrupted history wrote its page")
	}
}

// checkConfig is a quickstart in small: the truth, greedy and the trellis on 4 jets.
const checkConfig = `version: 1
name: quickstart
datasets:
  - {name: q, generator: ginkgo, jets: 4, min_leaves: 5, max_leaves: 6, t_cut: 16}
algorithms: [truth, greedy, trellis]
reports: [summary]
`

// smallQuickstarts runs checkConfig n times into dir/quickstart-1, … and returns the run
// directories in time order.
func smallQuickstarts(t *testing.T, dir string, n int) []string {
	t.Helper()
	cfg := writeFile(t, dir, "quickstart.yaml", checkConfig)
	var dirs []string
	for i := range n {
		d := filepath.Join(dir, fmt.Sprintf("quickstart-%d", i+1))
		runOK(t, "run", cfg, "-out", d)
		dirs = append(dirs, d)
	}
	return dirs
}

// leavesOf is the N of a record as editRecords gives it.
func leavesOf(t *testing.T, rec map[string]any) int64 {
	t.Helper()
	n, err := rec["n"].(json.Number).Int64()
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// TestHistoryCheckExitCodes is the CI contract of history -check over real runs: four runs of
// one config, each record given a work counter "planted" (1000 + N, beside any counter the
// algorithm keeps). The first three (an A/A history) exit 0; the fourth, with one more count on
// one greedy task, exits 1 and prints that counter's row, old → new, +1; the Markdown file holds
// the same row. Too few runs, a missing directory, a run of another config and a usage error
// exit 2.
func TestHistoryCheckExitCodes(t *testing.T) {
	dir := t.TempDir()
	dirs := smallQuickstarts(t, dir, 4)
	for i, d := range dirs {
		first := true
		editRecords(t, d, func(_ int, rec map[string]any) {
			if rec["error"] != nil {
				return
			}
			counters, _ := rec["counters"].(map[string]any)
			if counters == nil {
				counters = map[string]any{}
				rec["counters"] = counters
			}
			planted := 1000 + leavesOf(t, rec)
			if i == 3 && rec["algorithm"] == "greedy" && first {
				planted++
				first = false
			}
			counters["planted"] = planted
		})
	}
	ctx := context.Background()
	check := func(want int, args ...string) string {
		t.Helper()
		code, stdout, stderr := run(t, ctx, append([]string{"history", "-check"}, args...)...)
		if code != want {
			t.Errorf("history -check %s: exit %d, want %d\n%s%s", strings.Join(args, " "), code, want, stdout, stderr)
		}
		return stdout + stderr
	}
	out := check(ExitOK, dirs[:3]...)
	if !strings.Contains(out, "against 2 runs before it") || !strings.HasSuffix(out, "check: pass (nothing regressed)\n") || strings.Contains(out, "\nregression ") {
		t.Errorf("A/A:\n%s", out)
	}
	md := filepath.Join(dir, "check.md")
	out = check(ExitFailure, append([]string{"-markdown", md}, dirs...)...)
	recs, err := results.ReadFile(filepath.Join(dirs[2], results.ResultsFile))
	if err != nil {
		t.Fatal(err)
	}
	var total int64
	for _, r := range recs {
		if r.Algorithm == "greedy" && r.Error == "" {
			total += 1000 + int64(r.N)
		}
	}
	line := fmt.Sprintf("\nregression counters.planted q/greedy %d → %d (+1 (", total, total+1)
	if !strings.Contains(out, line) || strings.Count(out, "\nregression ") != 1 || !strings.HasSuffix(out, "check: regressed (1 regression)\n") {
		t.Errorf("planted: want one line %q…:\n%s", line, out)
	}
	if m := mustRead(t, md); !strings.Contains(m, fmt.Sprintf("| regression | `counters.planted` | q | greedy | %d | %d | +1 (", total, total+1)) {
		t.Errorf("the Markdown lacks the planted row:\n%s", m)
	}

	for _, c := range []struct {
		name, want string
		args       []string
	}{
		{"too few runs", "1 run before the run under test, 2 needed", dirs[2:]},
		{"missing", "no such run directory", append([]string{filepath.Join(dir, "quickstart-0")}, dirs[:3]...)},
		{"usage", "-db takes no part in it", []string{"-db", filepath.Join(dir, "h.db"), dirs[0]}},
		{"no directories", "give the run directories", nil},
	} {
		if out := check(ExitUsage, c.args...); !strings.Contains(out, c.want) {
			t.Errorf("%s: output lacks %q:\n%s", c.name, c.want, out)
		}
	}
	// A run of another config in the history: left out and said, and the rest still judged.
	m, err := results.ReadManifest(filepath.Join(dirs[0], results.ManifestFile))
	if err != nil {
		t.Fatal(err)
	}
	m.ConfigHash = strings.Repeat("0", 64)
	if err := m.WriteFile(filepath.Join(dirs[0], results.ManifestFile)); err != nil {
		t.Fatal(err)
	}
	if out := check(ExitUsage, dirs[:3]...); !strings.Contains(out, "undecided: "+dirs[0]+": another config") || !strings.Contains(out, "\ncheck: undecided (") {
		t.Errorf("another config:\n%s", out)
	}
	if out := check(ExitFailure, dirs...); !strings.Contains(out, line) {
		t.Errorf("another config beside the planted rise:\n%s", out)
	}
}
