package history

import (
	"context"
	"fmt"
	"html"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/hcbench/hcbench/experiments/compare"
	"github.com/hcbench/hcbench/experiments/results"
)

// lastRun is the index of the run under test among 6 fixture runs.
const lastRun = 5

// oneMoreEval plants one more evaluation of greedy on item 3 in the run under test.
func oneMoreEval(i int, r *results.Record) {
	if i == lastRun && r.Algorithm == "greedy" && r.Item == "3" {
		r.Counters["evals"]++
	}
}

func check(t *testing.T, dirs []string) *CheckResult {
	t.Helper()
	res, err := Check(context.Background(), dirs)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range res.Findings {
		t.Logf("finding %+v", f)
	}
	for _, n := range res.Notes {
		t.Logf("note %s", n)
	}
	return res
}

// TestCheckCounterOneUnit: one more evaluation on one item of one algorithm in the run under
// test is a regression of that counter's row, with the old and new totals, and nothing else
// is; the same runs without it (an A/A history) have no finding at all.
func TestCheckCounterOneUnit(t *testing.T) {
	aa := check(t, fixture{}.writeRuns(t, t.TempDir(), lastRun+1))
	if len(aa.Findings) != 0 || aa.Regressed() || aa.Undecided() || aa.History != lastRun {
		t.Errorf("A/A: %d findings, regressed %v, undecided %v, %d runs before", len(aa.Findings), aa.Regressed(), aa.Undecided(), aa.History)
	}
	res := check(t, fixture{plant: oneMoreEval}.writeRuns(t, t.TempDir(), lastRun+1))
	// greedy's evals: 10·N + 6 per item, N = 5, 6, 7 three times each.
	total := 3*(10*(5+6+7)) + 9*6
	want := compare.Finding{Metric: "counters.evals", Dataset: "qcd", Algorithm: "greedy", Old: fmt.Sprint(total), New: fmt.Sprint(total + 1)}
	if len(res.Findings) != 1 || !res.Regressed() || res.Undecided() {
		t.Fatalf("%d findings, want 1 regression", len(res.Findings))
	}
	got := res.Findings[0]
	if fig := got.Figure; !strings.HasPrefix(fig, "+1 (") || !strings.HasSuffix(fig, "any rise") {
		t.Errorf("figure %q, want +1 (…), any rise", fig)
	}
	got.Figure = ""
	if got != want {
		t.Errorf("finding %+v, want %+v", got, want)
	}
}

// TestCheckCounterFallIsNoRegression: one evaluation fewer is an improvement, not a finding;
// a counters threshold of 1 % lets a rise of one in ~600 pass.
func TestCheckCounterFallIsNoRegression(t *testing.T) {
	fewer := func(i int, r *results.Record) {
		if i == lastRun && r.Algorithm == "greedy" && r.Item == "3" {
			r.Counters["evals"]--
		}
	}
	if res := check(t, fixture{plant: fewer}.writeRuns(t, t.TempDir(), lastRun+1)); len(res.Findings) != 0 {
		t.Errorf("a fall: %d findings", len(res.Findings))
	}
	loose := func(i int, m *results.Manifest) { m.Thresholds["counters"] = 0.01 }
	if res := check(t, fixture{plant: oneMoreEval, manifest: loose}.writeRuns(t, t.TempDir(), lastRun+1)); len(res.Findings) != 0 {
		t.Errorf("a rise within the 1 %% threshold: %d findings", len(res.Findings))
	}
}

// timed sets the time threshold to 10 % and gives the trellis's times per-run noise of sd
// (log scale, every item alike) and a slowdown by factor in the run under test.
func timed(sd, factor float64) fixture {
	return fixture{
		manifest: func(i int, m *results.Manifest) { m.Thresholds["time"] = 0.1 },
		plant: func(i int, r *results.Record) {
			if r.Algorithm != "trellis" {
				return
			}
			night := rand.New(rand.NewPCG(uint64(i), 7)).NormFloat64()
			r.Seconds *= math.Exp(sd * night)
			if i == lastRun {
				r.Seconds *= factor
			}
		},
	}
}

// TestCheckTimeAndNoise: with a 10 % time threshold, a 30 % slowdown of the trellis in the run
// under test is a regression of its time while its series is quiet (the fixture's 2 % noise per
// task, about 0.8 % on the median), and none when the nights before spread by 10 %, more than
// ln(1.1)/3 ≈ 3.2 %: that series is noisy, said in a note, and its counters still gate. An
// A/A history of quiet times has no finding.
func TestCheckTimeAndNoise(t *testing.T) {
	if res := check(t, timed(0, 1).writeRuns(t, t.TempDir(), lastRun+1)); len(res.Findings) != 0 {
		t.Errorf("quiet A/A: %d findings", len(res.Findings))
	}
	res := check(t, timed(0, 1.3).writeRuns(t, t.TempDir(), lastRun+1))
	var trellis bool
	for _, f := range res.Findings {
		if f.Metric == MetricTime && f.Algorithm == "trellis" && f.Dataset == "qcd" && !f.Undecided {
			trellis = true
			if !strings.Contains(f.Figure, "quiet: spread") {
				t.Errorf("figure %q does not give the spread", f.Figure)
			}
		} else {
			t.Errorf("finding %+v", f)
		}
	}
	if !trellis {
		t.Error("the trellis's 30 % slowdown is not a regression")
	}

	noisy := timed(0.1, 1.3)
	noisy.plant = chain(noisy.plant, oneMoreEval)
	res = check(t, noisy.writeRuns(t, t.TempDir(), lastRun+1))
	if len(res.Findings) != 1 || res.Findings[0].Metric != "counters.evals" {
		t.Errorf("noisy: findings %+v, want the counter's alone", res.Findings)
	}
	if !strings.Contains(strings.Join(res.Notes, "\n"), "time · qcd · trellis: noisy: spread") {
		t.Errorf("no note says the trellis's time is noisy: %q", res.Notes)
	}
}

func chain(fs ...func(int, *results.Record)) func(int, *results.Record) {
	return func(i int, r *results.Record) {
		for _, f := range fs {
			f(i, r)
		}
	}
}

// TestTimeNoiseOf: the label of synthetic series. Spread σ̂ of Gaussian log noise σ is near σ;
// the threshold is ln(1 + E)/3; a step inside the window does not make a quiet series noisy; the
// latest run is left out; fewer than NoiseMinRuns runs before it leave the label unknown.
func TestTimeNoiseOf(t *testing.T) {
	series := func(sigma float64, n int, seed uint64) []float64 {
		r := rand.New(rand.NewPCG(seed, 1))
		y := make([]float64, n)
		for i := range y {
			y[i] = 0.01 * math.Exp(sigma*r.NormFloat64())
		}
		return y
	}
	limit := math.Log(1.05) / NoiseZ // 1.63 %
	noisy, quiet := 0, 0
	for seed := range uint64(200) {
		if TimeNoiseOf(series(0.005, 11, seed), 0.05).Noisy {
			quiet++ // σ = 0.5 %, a third of the limit
		}
		if TimeNoiseOf(series(0.05, 11, seed), 0.05).Noisy {
			noisy++ // σ = 5 %, three times the limit
		}
	}
	if quiet > 2 || noisy < 190 {
		t.Errorf("of 200 series, %d quiet ones noisy, %d noisy ones noisy", quiet, noisy)
	}
	n := TimeNoiseOf(series(0.02, 11, 1), 0.05)
	if !n.Known || n.Runs != NoiseWindow || math.Abs(n.Limit()-limit) > 1e-15 || n.Spread < 0.01 || n.Spread > 0.04 {
		t.Errorf("σ = 2 %%: %+v, limit %v", n, n.Limit())
	}
	// A quiet series with a step of ×2 in its window, and a latest run ×10: still quiet.
	y := series(0.005, 11, 3)
	for i := 5; i < 11; i++ {
		y[i] *= 2
	}
	y[10] *= 10
	if n := TimeNoiseOf(y, 0.05); !n.Known || n.Noisy {
		t.Errorf("a step in the window: %+v (%s)", n, n.Why())
	}
	if n := TimeNoiseOf(series(0.05, NoiseMinRuns, 1), 0.05); n.Known || n.Noisy || !strings.Contains(n.Why(), "unknown") {
		t.Errorf("%d runs: %+v", NoiseMinRuns, n)
	}
}

// TestCheckUndecided: each case the gate cannot decide is a finding marked undecided and no
// regression: too few runs, a run of another config, of other data, with a failed task (before
// the run under test, or in it), an unfinished run, a missing directory, a run given out of
// time order, and time gated with too few runs to know its noise. Where enough runs remain, a
// planted counter rise beside such a part is still a regression.
func TestCheckUndecided(t *testing.T) {
	for _, c := range []struct {
		name string
		f    fixture
		runs int
		// edit changes the run directories before the check; plant: oneMoreEval is planted,
		// and must be found.
		edit  func(t *testing.T, dirs []string) []string
		want  string
		plant bool
	}{
		{name: "too few runs", runs: 2, want: "1 run before the run under test, 2 needed"},
		{name: "another config", runs: lastRun + 1, plant: true, want: "another config",
			f: fixture{manifest: func(i int, m *results.Manifest) {
				if i == 1 {
					m.ConfigHash = strings.Repeat("d", 64)
				}
			}}},
		{name: "other data", runs: lastRun + 1, plant: true, want: "other data",
			f: fixture{manifest: func(i int, m *results.Manifest) {
				m.DataFiles = []results.DataFile{{Dataset: "qcd", File: "qcd.json", SHA256: strings.Repeat(fmt.Sprint(min(i, 1)), 64), Bytes: 10}}
			}}},
		{name: "failed task before", runs: lastRun + 1, plant: true, want: "1 task failed: its means are over fewer items",
			f: fixture{
				manifest: func(i int, m *results.Manifest) { m.Failed = map[bool]int{true: 1}[i == 2] },
				plant: func(i int, r *results.Record) {
					if i == 2 && r.Algorithm == "beam" && r.Item == "4" {
						r.Error, r.Counters, r.LogLikelihood = "out of memory", nil, nil
					}
				}}},
		{name: "failed task in the run under test", runs: lastRun + 1, want: "1 task failed in the run under test",
			f: fixture{
				manifest: func(i int, m *results.Manifest) { m.Failed = map[bool]int{true: 1}[i == lastRun] },
				plant: func(i int, r *results.Record) {
					if i == lastRun && r.Algorithm == "beam" && r.Item == "4" {
						r.Error, r.Counters, r.LogLikelihood = "out of memory", nil, nil
					}
				}}},
		{name: "unfinished", runs: lastRun + 1, plant: true, want: "not a finished run",
			edit: func(t *testing.T, dirs []string) []string {
				fixture{}.writeRun(t, dirs[2], 2, results.StatusInterrupted)
				return dirs
			}},
		{name: "missing directory", runs: lastRun + 1, plant: true, want: "no such run directory",
			edit: func(t *testing.T, dirs []string) []string {
				return append([]string{filepath.Join(filepath.Dir(dirs[0]), "nightly-00")}, dirs...)
			}},
		{name: "not a run directory", runs: lastRun + 1, plant: true, want: "is not a run directory",
			edit: func(t *testing.T, dirs []string) []string {
				if err := os.Remove(filepath.Join(dirs[1], results.ManifestFile)); err != nil {
					t.Fatal(err)
				}
				return dirs
			}},
		{name: "run under test missing", runs: lastRun + 1, want: "no such run directory",
			edit: func(t *testing.T, dirs []string) []string { return append(dirs, dirs[0]+"x") }},
		{name: "out of order", runs: lastRun + 1, plant: true, want: "not before the run under test",
			edit: func(t *testing.T, dirs []string) []string {
				return append([]string{dirs[lastRun]}, dirs...)
			}},
		{name: "noise unknown", runs: 4, want: "the noise of 4 timing series is unknown",
			f: fixture{manifest: func(i int, m *results.Manifest) { m.Thresholds["time"] = 0.1 }}},
	} {
		t.Run(c.name, func(t *testing.T) {
			f := c.f
			if c.plant {
				f.plant = chain(func(int, *results.Record) {}, oneMoreEval)
				if c.f.plant != nil {
					f.plant = chain(c.f.plant, oneMoreEval)
				}
			}
			dirs := f.writeRuns(t, t.TempDir(), c.runs)
			if c.edit != nil {
				dirs = c.edit(t, dirs)
			}
			res := check(t, dirs)
			if !res.Undecided() {
				t.Error("not undecided")
			}
			var said bool
			for _, f := range res.Findings {
				said = said || f.Undecided && strings.Contains(f.Figure, c.want)
			}
			if !said {
				t.Errorf("no undecided finding says %q", c.want)
			}
			if res.Regressed() != c.plant {
				t.Errorf("regressed %v, want %v", res.Regressed(), c.plant)
			}
			if c.plant && (res.Findings[0].Undecided || res.Findings[0].Metric != "counters.evals") {
				t.Errorf("the first finding is %+v, want the planted counter's regression", res.Findings[0])
			}
		})
	}
}

// TestPageCountersAndNoise: the page lists greedy's counters on one line with the planted step,
// the table of regressions has the counter's row linked to that line, and the trellis's time
// panel is marked noisy with its spread and limit in the mark's title.
func TestPageCountersAndNoise(t *testing.T) {
	f := timed(0.1, 1)
	f.plant = chain(f.plant, oneMoreEval)
	db := openDB(t)
	ingestAll(t, db, f.writeRuns(t, t.TempDir(), lastRun+1))
	h, err := db.Load(context.Background(), 0)
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	if err := WritePage(&b, h, PageOptions{DB: "history.db"}); err != nil {
		t.Fatal(err)
	}
	page := html.UnescapeString(b.String())
	total := 3*(10*(5+6+7)) + 9*6
	row := regexp.MustCompile(`<tr id="(c0-\d+)" class="stepped"><td>qcd · greedy</td><td>(.*)</td></tr>`).FindStringSubmatch(page)
	if row == nil {
		t.Fatal("no stepped row of counters for qcd · greedy")
	}
	if want := fmt.Sprintf(`<code>evals</code> %d</span> <span class="bad">(regression %d → %d at run 6)</span>`, total+1, total, total+1); !strings.Contains(row[2], want) {
		t.Errorf("greedy's counters: %s\nwant %s", row[2], want)
	}
	if !strings.Contains(page, `<a class="reveal" href="#`+row[1]+`">qcd · greedy · all N</a>`) {
		t.Error("the table of regressions does not link the counter's step to its row")
	}
	if !regexp.MustCompile(`<span class="noisy" title="noisy: spread [0-9.]+ % per run over the last 5 runs > 3.2 %[^"]*">noisy</span> trellis · all N`).MatchString(page) {
		t.Error("the trellis's time panel is not marked noisy with its spread")
	}
}
