package cli

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hcbench/hcbench/experiments/config"
	"github.com/hcbench/hcbench/experiments/registry"
	"github.com/hcbench/hcbench/experiments/results"
)

// Two test-only algorithms, registered from this file alone (as plugin_test.go's caterpillar,
// whose tree both return): sleeper, which first sleeps 2 ms × 2^(0.75·(leaves − 4)), times a
// factor per label that a test sets (a planted slowdown that leaves the config, and so its
// hash, unchanged), either for every run (sleepFactor) or for the runs of one context
// (withSlowdown, for runs at once); and flaky, which builds the caterpillar in a different leaf
// order on every call, as a nondeterministic algorithm would; and tiring, which fails on every
// call for a task after its first in the runs of a context withTiring made.
func init() {
	registry.RegisterAlgorithm(registry.Algorithm{
		Name:      "sleeper",
		Help:      "sleeps 2 ms × 2^(0.75·(leaves − 4)), then builds the caterpillar tree: an algorithm of known time, for timing tests",
		NewParams: func() registry.Params { return &registry.NoParams{} },
		Start: registry.Simple(func(ctx context.Context, _ *registry.NoParams, t registry.Task, run registry.Run) (registry.Solution, error) {
			factor := 1.0
			_, label, _ := strings.Cut(t.Key, "|algorithm=")
			if f, ok := sleepFactor.Load(label); ok {
				factor = f.(float64)
			}
			if f, ok := ctx.Value(slowdownKey{label}).(float64); ok {
				factor *= f
			}
			time.Sleep(time.Duration(factor * math.Pow(2, 0.75*float64(t.Item.Leaves()-4)) * float64(2*time.Millisecond)))
			return solveCaterpillar(ctx, &CaterpillarParams{Order: "index"}, t, run)
		}),
	})
	registry.RegisterAlgorithm(registry.Algorithm{
		Name:      "tiring",
		Help:      "builds the caterpillar tree; in a run whose context withTiring made, it fails on every call for a task after the first: an algorithm that fails on a repeat, for tests",
		NewParams: func() registry.Params { return &registry.NoParams{} },
		Start: registry.Simple(func(ctx context.Context, _ *registry.NoParams, t registry.Task, run registry.Run) (registry.Solution, error) {
			if calls, ok := ctx.Value(tiringKey{}).(*sync.Map); ok {
				if _, again := calls.LoadOrStore(t.Key, true); again {
					return registry.Solution{}, errors.New("tired")
				}
			}
			return solveCaterpillar(ctx, &CaterpillarParams{Order: "index"}, t, run)
		}),
	})
	registry.RegisterAlgorithm(registry.Algorithm{
		Name:      "flaky",
		Help:      "builds the caterpillar tree, in leaf order on odd calls and reversed on even ones: a nondeterministic algorithm, for tests",
		NewParams: func() registry.Params { return &registry.NoParams{} },
		Start: registry.Simple(func(ctx context.Context, _ *registry.NoParams, t registry.Task, run registry.Run) (registry.Solution, error) {
			// A count per task: with one count for all, two workers taking turns would see the
			// same parity on both runs of a task, and the task would look deterministic.
			calls, _ := flakyCalls.LoadOrStore(t.Key, new(atomic.Int64))
			order := "index"
			if calls.(*atomic.Int64).Add(1)%2 == 0 {
				order = "reversed"
			}
			return solveCaterpillar(ctx, &CaterpillarParams{Order: order}, t, run)
		}),
	})
}

var (
	// sleepFactor maps a sleeper label to its factor (float64; absent: 1).
	sleepFactor sync.Map
	// flakyCalls maps a task key to the number of times flaky ran it (*atomic.Int64).
	flakyCalls sync.Map
)

// tiringKey is the context key of the task keys tiring has been called for (a *sync.Map).
type tiringKey struct{}

// withTiring returns ctx in whose runs tiring fails on every call for a task after its first.
func withTiring(ctx context.Context) context.Context {
	return context.WithValue(ctx, tiringKey{}, new(sync.Map))
}

// slowdownKey is the context key of a sleeper label's factor in the runs of one context.
type slowdownKey struct{ label string }

// withSlowdown returns ctx with the sleeper label's time multiplied by factor in the runs it
// starts.
func withSlowdown(ctx context.Context, label string, factor float64) context.Context {
	return context.WithValue(ctx, slowdownKey{label}, factor)
}

// TestRunCount: `run -count K` runs every algorithm entry without repeat K times per item and an
// entry's repeat wins; the record keeps each run's time (times) and their median (seconds), the
// resolved config says repeat, bench.txt has a line per run; a record of one run has no times.
// Each run draws the task's random stream afresh (the trellis's posterior samples) and reports
// its parameters afresh (beam's beam_size_used), so none is taken for nondeterminism.
func TestRunCount(t *testing.T) {
	dir := t.TempDir()
	cfg := writeFile(t, dir, "c.yaml", `version: 1
name: c
datasets:
  - {name: qcd, generator: ginkgo, jets: 5, min_leaves: 4, max_leaves: 7, t_cut: 16}
algorithms: [greedy, {name: beam, repeat: 2}, {name: truth, repeat: 1}, {name: trellis, samples: 3, marginals: 2}]
`)
	out := filepath.Join(dir, "run")
	runOK(t, "run", cfg, "-out", out, "-count", "3")
	want := map[string]int{"greedy": 3, "beam": 2, "truth": 1, "trellis": 3}
	recs, err := results.ReadFile(filepath.Join(out, results.ResultsFile))
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) != 20 {
		t.Fatalf("%d records, want 20", len(recs))
	}
	for _, r := range recs {
		k := want[r.Algorithm]
		switch {
		case r.Error != "":
			t.Errorf("%s: %s", r.Key, r.Error)
		case k == 1 && r.Times != nil:
			t.Errorf("%s: one run, yet times %v", r.Key, r.Times)
		case k > 1 && (len(r.Times) != k || r.Seconds != results.Median(r.Times)):
			t.Errorf("%s: times %v, seconds %v; want %d times and their median", r.Key, r.Times, r.Seconds, k)
		}
	}
	resolved := mustRead(t, filepath.Join(out, results.ConfigFile))
	if n := strings.Count(resolved, "repeat: 3"); n != 2 || strings.Count(resolved, "repeat:") != 3 || !strings.Contains(resolved, "repeat: 2") {
		t.Errorf("resolved config: %d entries with repeat: 3, want greedy's and trellis's, beam's repeat: 2 and none for truth:\n%s", n, resolved)
	}
	bench := mustRead(t, filepath.Join(out, results.BenchFile))
	for alg, k := range want {
		var times, counters int
		for line := range strings.Lines(bench) {
			if strings.HasPrefix(line, "BenchmarkHcbench/dataset=qcd/algorithm="+alg+" ") {
				if strings.HasSuffix(line, " sec/op\n") {
					times++
				} else {
					counters++
				}
			}
		}
		// One line of counter totals per row, for the algorithms that count (truth does not).
		if wantCounters := min(len(registryCounters(alg)), 1); times != 5*k || counters != wantCounters {
			t.Errorf("bench.txt: %d time lines and %d counter lines of %s, want %d (5 items × %d runs) and %d", times, counters, alg, 5*k, k, wantCounters)
		}
	}

	for _, bad := range []string{"-1", "1001"} {
		if code, _, stderr := run(t, context.Background(), "run", cfg, "-out", filepath.Join(dir, "bad"), "-count", bad); code != ExitUsage || !strings.Contains(stderr, "-count must be 1 to 1000, got "+bad) {
			t.Errorf("-count %s: exit %d\n%s", bad, code, stderr)
		}
	}
}

// TestRepeatCatchesNondeterminism: an algorithm that gives another tree on its second run fails
// the task, naming the run and what differs; with one run there is nothing to check.
func TestRepeatCatchesNondeterminism(t *testing.T) {
	dir := t.TempDir()
	src := "version: 1\nname: f\ndatasets:\n  - {name: qcd, generator: ginkgo, jets: 2, min_leaves: 4, max_leaves: 6, t_cut: 16}\nalgorithms: [{name: flaky, repeat: 2}]\n"
	cfg := writeFile(t, dir, "f.yaml", src)
	code, _, stderr := run(t, context.Background(), "run", cfg, "-out", filepath.Join(dir, "two"))
	if code != ExitFailure {
		t.Errorf("exit %d, want %d (failed tasks)\n%s", code, ExitFailure, stderr)
	}
	for k, r := range readRecords(t, filepath.Join(dir, "two")) {
		if !strings.HasPrefix(r.Error, "run 2 of 2 differs from run 1 in newick (") || !strings.Contains(r.Error, "not deterministic") || len(r.Times) != 2 || r.Newick != "" {
			t.Errorf("%s: error %q, times %v, newick %q; want the nondeterminism named, both times, no tree", k, r.Error, r.Times, r.Newick)
		}
	}
	cfg = writeFile(t, dir, "f1.yaml", strings.Replace(src, "repeat: 2", "repeat: 1", 1))
	runOK(t, "run", cfg, "-out", filepath.Join(dir, "one"))
}

// TestRepeatFailure: a run that fails fails its task, the error naming the run; the record keeps
// the times of the runs up to it.
func TestRepeatFailure(t *testing.T) {
	dir := t.TempDir()
	cfg := writeFile(t, dir, "t.yaml", "version: 1\nname: t\ndatasets:\n  - {name: qcd, generator: ginkgo, jets: 2, min_leaves: 4, max_leaves: 6, t_cut: 16}\nalgorithms: [{name: tiring, repeat: 3}]\n")
	if code, _, stderr := run(t, withTiring(context.Background()), "run", cfg, "-out", filepath.Join(dir, "run")); code != ExitFailure {
		t.Errorf("exit %d, want %d (failed tasks)\n%s", code, ExitFailure, stderr)
	}
	recs, err := results.ReadFile(filepath.Join(dir, "run", results.ResultsFile))
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) != 2 {
		t.Errorf("%d records, want 2", len(recs))
	}
	for _, r := range recs {
		if r.Error != "run 2 of 3: tired" || len(r.Times) != 2 || r.Seconds != results.Median(r.Times) || r.Newick != "" {
			t.Errorf("%s: error %q, times %v, seconds %v, newick %q; want run 2's error, two times and their median, no tree", r.Key, r.Error, r.Times, r.Seconds, r.Newick)
		}
	}
}

// benchstatTool builds benchstat (golang.org/x/perf/cmd/benchstat, at the version go.mod
// requires) once for the tests; it skips a test when no go command is at hand. go test puts its
// own go command first on the PATH of the tests, so that one builds it.
var benchstatTool = sync.OnceValues(func() (string, error) {
	goCmd, err := exec.LookPath("go")
	if err != nil {
		return "", fmt.Errorf("no go command to build benchstat with: %v", err)
	}
	dir, err := os.MkdirTemp("", "benchstat")
	if err != nil {
		return "", err
	}
	bin := filepath.Join(dir, "benchstat")
	if out, err := exec.Command(goCmd, "build", "-o", bin, "golang.org/x/perf/cmd/benchstat").CombinedOutput(); err != nil {
		return "", fmt.Errorf("building benchstat: %v\n%s", err, out)
	}
	return bin, nil
})

// benchstat runs benchstat with its default flags on the files, returning its output.
func benchstat(t *testing.T, files ...string) string {
	t.Helper()
	bin, err := benchstatTool()
	if err != nil {
		t.Skip(err)
	}
	out, err := exec.Command(bin, files...).CombinedOutput()
	if err != nil {
		t.Fatalf("benchstat: %v\n%s", err, out)
	}
	return string(out)
}

// benchstatRow is a comparison row of benchstat's text output.
type benchstatRow struct {
	name, delta string
	p           float64
	n           int
}

var benchstatRowPattern = regexp.MustCompile(`^(\S+)\s.*\s(~|[+-][0-9.]+%|0\.00%) \((?:p=([0-9.]+) )?n=(\d+)\)$`)

func benchstatRows(t *testing.T, out string) []benchstatRow {
	t.Helper()
	var rows []benchstatRow
	for line := range strings.Lines(out) {
		m := benchstatRowPattern.FindStringSubmatch(strings.TrimSpace(line))
		if m == nil {
			continue
		}
		r := benchstatRow{name: m[1], delta: m[2], p: -1}
		if m[3] != "" {
			r.p, _ = strconv.ParseFloat(m[3], 64)
		}
		r.n, _ = strconv.Atoi(m[4])
		rows = append(rows, r)
	}
	return rows
}

// TestBenchstatAndCompareOnRepeats: two runs of one binary and config with -count 5 give
// bench.txt files that benchstat, with its default flags, shows in one short table of one row
// per data set and algorithm (n = 10 items × 5 runs), none significant, and whose quality rows
// are unchanged; a third run in which one algorithm sleeps twice as long (a planted slowdown)
// is flagged on that row alone, by benchstat and by compare.
//
// Tolerance: the sleeper's times spread over the items (4 to 9 leaves: 2 to 27 ms), much as real
// algorithms' do, and both runs have the same items, so benchstat's test is conservative against
// noise that is independent from timing to timing. A machine's load is not: on a loaded machine
// the scheduler adds milliseconds to every sleep (on 2 cores at a load of 15, runs one after the
// other came out significant in 1 of 4 tries, with +0.8% in the median), and a load that changes
// between two runs changes all their times, which no test can tell from a slowdown. So the three
// runs go at once, sharing the machine's load, the slowdown planted in the third run's context
// alone.
func TestBenchstatAndCompareOnRepeats(t *testing.T) {
	dir := t.TempDir()
	cfg := writeFile(t, dir, "s.yaml", `version: 1
name: s
datasets:
  - {name: qcd, generator: ginkgo, jets: 10, min_leaves: 4, max_leaves: 9, t_cut: 16}
algorithms: [{name: sleeper, label: steady}, {name: sleeper, label: planted}]
`)
	a, b, slow := filepath.Join(dir, "a"), filepath.Join(dir, "b"), filepath.Join(dir, "slow")
	var wg sync.WaitGroup
	for _, out := range []string{a, b, slow} {
		ctx := context.Background()
		if out == slow {
			ctx = withSlowdown(ctx, "planted", 2)
		}
		wg.Go(func() {
			if code, stdout, stderr := run(t, ctx, "run", cfg, "-out", out, "-count", "5", "-workers", "1"); code != ExitOK {
				t.Errorf("run -out %s: exit %d\n%s%s", out, code, stdout, stderr)
			}
		})
	}
	wg.Wait()
	if t.Failed() {
		t.FailNow()
	}

	same := benchstat(t, filepath.Join(a, results.BenchFile), filepath.Join(b, results.BenchFile))
	t.Logf("benchstat a b (%d lines):\n%s", strings.Count(same, "\n"), same)
	rows := benchstatRows(t, same)
	if len(rows) != 2 || strings.Count(same, "\n") > 15 {
		t.Errorf("benchstat: %d rows in %d lines, want 2 rows (steady, planted) in at most 15 lines", len(rows), strings.Count(same, "\n"))
	}
	for _, r := range rows {
		if r.n != 50 || r.delta != "~" {
			t.Errorf("same binary, row %s: %s (p=%v n=%d); want ~ over n=50", r.name, r.delta, r.p, r.n)
		}
	}
	quality := benchstat(t, filepath.Join(a, results.BenchQualityFile), filepath.Join(b, results.BenchQualityFile))
	if rows := benchstatRows(t, quality); len(rows) != 2 || rows[0].delta != "0.00%" || rows[1].delta != "0.00%" {
		t.Errorf("bench-quality.txt rows %+v, want 2 unchanged:\n%s", rows, quality)
	}
	if code, stdout, _ := run(t, context.Background(), "compare", a, b, "-time", "0.3"); code != ExitOK || !strings.Contains(stdout, "no regressions") {
		t.Errorf("compare a b: exit %d\n%s", code, stdout)
	}

	planted := benchstat(t, filepath.Join(a, results.BenchFile), filepath.Join(slow, results.BenchFile))
	t.Logf("benchstat a slow:\n%s", planted)
	rows = benchstatRows(t, planted)
	if len(rows) != 2 {
		t.Fatalf("benchstat a slow: %d rows, want 2", len(rows))
	}
	for _, r := range rows {
		flagged := r.delta != "~" && r.p < 0.05
		if want := strings.HasSuffix(r.name, "algorithm=planted"); flagged != want {
			t.Errorf("planted slowdown, row %s: %s (p=%v); want flagged %v", r.name, r.delta, r.p, want)
		}
		if flagged && !strings.HasPrefix(r.delta, "+") {
			t.Errorf("row %s: %s, want a rise", r.name, r.delta)
		}
	}
	code, stdout, _ := run(t, context.Background(), "compare", a, slow, "-time", "0.3")
	if code != ExitFailure || !strings.Contains(stdout, "qcd/planted: time (geometric mean of the items' median ratios) rose by") || strings.Contains(stdout, "qcd/steady: time") {
		t.Errorf("compare a slow: exit %d, want 1 with a time regression of planted alone\n%s", code, stdout)
	}
}

// TestShippedBenchstatIsShort: benchstat's default output over the bench.txt of two runs of a
// shipped config is one row per data set and algorithm, tens of lines, not the hundreds of a
// row per task. The quickstart runs for real (with 20 jets and -count 3: two rows, truth and
// greedy, in at most 12 lines); only the line count is checked, as its times of nanoseconds to
// microseconds move with the machine's load. configs/nightly.yaml's tasks take minutes with
// -count 5, so its two runs are records made from its plan: every task, 5 timings each, a time
// per algorithm and item (∝ leaves², the leaves spread over the data set's range) with 10%
// lognormal noise drawn from fixed seeds. They must give one row per data set and algorithm of
// the plan (40) in at most 10 more lines, none significant, and a planted 1.5× slowdown of
// greedy must be flagged on greedy's rows alone. The nightly part needs the data directory
// (HCBENCH_DATA).
func TestShippedBenchstatIsShort(t *testing.T) {
	t.Run("quickstart", func(t *testing.T) {
		cfg := filepath.Join("..", "..", "configs", "quickstart.yaml")
		dir := t.TempDir()
		var files []string
		for _, name := range []string{"a", "b"} {
			out := filepath.Join(dir, name)
			runOK(t, "run", cfg, "-out", out, "-set", "datasets[0].jets=20", "-count", "3")
			files = append(files, filepath.Join(out, results.BenchFile))
		}
		out := benchstat(t, files...)
		t.Logf("benchstat (%d lines):\n%s", strings.Count(out, "\n"), out)
		// The time table first, then a table per work counter (greedy's), one total a row.
		times, counters, _ := strings.Cut(out, "\n\n")
		if rows, lines := benchstatRows(t, times), strings.Count(times, "\n"); len(rows) != 2 || lines > 12 {
			t.Errorf("%d rows in %d lines, want 2 (truth, greedy) in at most 12", len(rows), lines)
		}
		for _, r := range benchstatRows(t, times) {
			if r.n != 60 {
				t.Errorf("row %s: n=%d, want 60 (20 jets × 3 runs)", r.name, r.n)
			}
		}
		for _, r := range benchstatRows(t, counters) {
			if r.n != 1 || r.delta != "0.00%" {
				t.Errorf("counter row %s: n=%d, %s; want one total, unchanged", r.name, r.n, r.delta)
			}
		}
	})

	t.Run("nightly", func(t *testing.T) {
		cfg := filepath.Join("..", "..", "configs", "nightly.yaml")
		requireConfigData(t, cfg)
		var stderr strings.Builder
		p, code := load(context.Background(), cfg, "", config.Options{Repeat: 5}, false, nil, &stderr)
		if p == nil {
			t.Fatalf("loading %s: exit %d\n%s", cfg, code, stderr.String())
		}
		m := results.Manifest{Experiment: p.Config.Name, Revision: "abc", OS: "linux", Arch: "amd64", ConfigHash: "h"}
		for _, d := range p.Datasets {
			m.Datasets = append(m.Datasets, d.Name)
		}
		for _, a := range p.Config.Algorithms {
			m.Algorithms = append(m.Algorithms, a.Label)
		}
		rows := map[string]bool{}
		for _, task := range p.Tasks {
			rows[task.Dataset.Name+"/"+task.Algorithm.Label] = true
		}
		// bench writes the bench.txt of a run whose every task took a time set by its
		// algorithm and number of leaves, times noise drawn from seed, times slow for greedy.
		bench := func(name string, seed uint64, slow float64) string {
			rng := rand.New(rand.NewPCG(seed, 1))
			var recs []results.Record
			for _, task := range p.Tasks {
				// The leaves are not known before the items are made: the items take the data
				// set's range of leaves in turn.
				size := task.Dataset.Size()
				leaves := size.MinLeaves + task.Item%max(1, size.MaxLeaves-size.MinLeaves+1)
				base := 1e-6 * float64(1+len(task.Algorithm.Label)) * float64(leaves*leaves)
				if task.Algorithm.Name == "greedy" {
					base *= slow
				}
				r := results.Record{Key: task.Key, Dataset: task.Dataset.Name, Item: task.Dataset.ID(task.Item), Algorithm: task.Algorithm.Label}
				for range task.Algorithm.Repeat {
					r.Times = append(r.Times, base*math.Exp(0.1*rng.NormFloat64()))
				}
				r.Seconds = results.Median(r.Times)
				recs = append(recs, r)
			}
			var b strings.Builder
			if err := results.WriteBench(t.Context(), &b, m, recs, nil); err != nil {
				t.Fatal(err)
			}
			return writeFile(t, t.TempDir(), name, b.String())
		}
		a, b, slow := bench("a.txt", 1, 1), bench("b.txt", 2, 1), bench("slow.txt", 2, 1.5)

		out := benchstat(t, a, b)
		t.Logf("benchstat (%d lines):\n%s", strings.Count(out, "\n"), out)
		got := benchstatRows(t, out)
		if lines := strings.Count(out, "\n"); len(got) != len(rows) || len(rows) < 20 || lines > len(rows)+10 {
			t.Errorf("%d rows in %d lines; want one per data set and algorithm (%d) in at most %d lines", len(got), lines, len(rows), len(rows)+10)
		}
		for _, r := range got {
			if r.delta != "~" {
				t.Errorf("same times but for noise, row %s: %s (p=%v)", r.name, r.delta, r.p)
			}
		}
		got = benchstatRows(t, benchstat(t, a, slow))
		greedy := 0
		for _, r := range got {
			isGreedy := strings.HasSuffix(r.name, "/algorithm=greedy")
			if isGreedy {
				greedy++
			}
			if flagged := r.delta != "~" && r.p < 0.05; flagged != isGreedy {
				t.Errorf("greedy 1.5× slower, row %s: %s (p=%v); want flagged %v", r.name, r.delta, r.p, isGreedy)
			}
		}
		if greedy == 0 {
			t.Error("no greedy row")
		}
	})
}

// TestPlanCount: plan takes -count as run does, and its expected time per task grows with the
// runs: K times the time of one run (to the two digits plan prints: within 5%); a count out of
// range is a usage error.
func TestPlanCount(t *testing.T) {
	cfg := writeFile(t, t.TempDir(), "p.yaml", `version: 1
name: p
datasets:
  - {name: qcd, generator: ginkgo, jets: 3, min_leaves: 6, max_leaves: 6, t_cut: 16}
algorithms: [greedy, {name: trellis, repeat: 2}]
`)
	// perTask returns plan's time/task of each algorithm, in µs.
	perTask := func(args ...string) map[string]float64 {
		stdout := runOK(t, append([]string{"plan", cfg}, args...)...)
		got := map[string]float64{}
		row := regexp.MustCompile(`(?m)^qcd\s+(\S+)\s+3\s+6\s+([0-9.]+) (ns|µs|ms|s)\s`)
		for _, m := range row.FindAllStringSubmatch(stdout, -1) {
			v, _ := strconv.ParseFloat(m[2], 64)
			got[m[1]] = v * map[string]float64{"ns": 1e-3, "µs": 1, "ms": 1e3, "s": 1e6}[m[3]]
		}
		if len(got) != 2 {
			t.Fatalf("plan %v: time per task of %v, want greedy and trellis:\n%s", args, got, stdout)
		}
		return got
	}
	one, four := perTask(), perTask("-count", "4")
	// greedy runs 4 times instead of once; the trellis keeps its repeat: 2.
	for alg, want := range map[string]float64{"greedy": 4, "trellis": 1} {
		if r := four[alg] / one[alg]; math.Abs(r/want-1) > 0.05 {
			t.Errorf("%s: time per task %v µs with -count 4, %v µs without: ratio %.3f, want %v", alg, four[alg], one[alg], r, want)
		}
	}
	if code, _, stderr := run(t, context.Background(), "plan", cfg, "-count", "1001"); code != ExitUsage || !strings.Contains(stderr, "-count must be 1 to 1000, got 1001") {
		t.Errorf("plan -count 1001: exit %d\n%s", code, stderr)
	}
}
