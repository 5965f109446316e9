package compare

import (
	"bytes"
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/hcbench/hcbench/experiments/metric"
	"github.com/hcbench/hcbench/experiments/results"
)

// Tolerances: means are compared with the package's float slack (1e-12 relative); the numbers
// the tests read back from regression lines are printed with 7 significant digits, so the tests
// compare them as text.

// defaults are the config's default thresholds.
var defaults = results.Thresholds{"log_likelihood": 1e-6, "exact_gap": 1e-6, "log_evidence": 1e-6, "dendrogram_purity": 0.001, "time": 0}

func key(ds, item, label string) string {
	return "dataset=" + ds + "|item=" + item + "|algorithm=" + label
}

func rec(ds, item, label, name string) results.Record {
	return results.Record{Schema: results.RecordSchema, Key: key(ds, item, label), Dataset: ds, Item: item, Algorithm: label, AlgorithmName: name, Params: map[string]any{}}
}

// baseRun is two data sets (jets, iris; config order not sorted) × three algorithms (trellis,
// greedy, the Bayesian bhc) × four items, with log-likelihoods (values that are not exact in
// binary), purity, evidence and times.
func baseRun() Run {
	m := results.Manifest{
		Experiment: "paper", Revision: "0123456789abcdef0123", Start: time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC),
		Host: "old-host", CPUs: 8, GoVersion: "go1.26.0", ConfigHash: "aaaaaaaaaaaaaaaa",
		Datasets: []string{"jets", "iris"}, Algorithms: []string{"trellis", "greedy", "bhc"}, Thresholds: defaults,
		Status: results.StatusComplete, Tasks: 24, Finished: 24,
	}
	var recs []results.Record
	for d, ds := range m.Datasets {
		for i := range 4 {
			item := fmt.Sprint(i)
			exact := -20.1 - 1.3*float64(i) - 7.7*float64(d)
			for a, alg := range m.Algorithms {
				r := rec(ds, item, alg, alg)
				r.N = 5 + i
				r.LogLikelihood = results.Log(exact - 0.3*float64(a) - 0.1*float64(a*i))
				r.Metrics = map[string]float64{metric.DendrogramPurity: 0.95 - 0.05*float64(a) - 0.01*float64(i)}
				if alg == "bhc" {
					r.LogEvidence = results.Log(-40.3 - 0.7*float64(i))
				}
				r.Seconds = 0.01 * float64(1+a) * (1 + 0.1*float64(i))
				recs = append(recs, r)
			}
		}
	}
	return Run{Manifest: m, Records: recs}
}

// clone deep-copies a run's records (the pointers they hold included).
func clone(r Run) Run {
	out := Run{Manifest: r.Manifest, Records: slices.Clone(r.Records)}
	out.Manifest.Host = "new-host"
	out.Manifest.Revision = "fedcba9876543210fedc"
	out.Manifest.Start = r.Manifest.Start.Add(24 * time.Hour)
	for i := range out.Records {
		x := &out.Records[i]
		if x.LogLikelihood != nil {
			x.LogLikelihood = results.Log(x.LogLikelihood.Value())
		}
		if x.LogEvidence != nil {
			x.LogEvidence = results.Log(x.LogEvidence.Value())
		}
		if x.Metrics != nil {
			x.Metrics = maps.Clone(x.Metrics)
		}
	}
	return out
}

// find returns the record of a task.
func find(t *testing.T, r Run, k string) *results.Record {
	t.Helper()
	for i := range r.Records {
		if r.Records[i].Key == k {
			return &r.Records[i]
		}
	}
	t.Fatalf("no record %s", k)
	return nil
}

func text(t *testing.T, res *Result) string {
	t.Helper()
	var buf bytes.Buffer
	if err := res.WriteText(&buf); err != nil {
		t.Fatal(err)
	}
	out := buf.String()
	if strings.Contains(out, "NaN") || strings.Contains(out, "+Inf") || strings.Contains(out, " Inf") {
		t.Errorf("output holds NaN or Inf:\n%s", out)
	}
	return out
}

// wantRegressions checks the regression lines: one per want, each containing all its parts.
func wantRegressions(t *testing.T, res *Result, want ...[]string) {
	t.Helper()
	got := res.Regressions()
	if len(got) != len(want) {
		t.Fatalf("%d regressions, want %d:\n%s", len(got), len(want), strings.Join(got, "\n"))
	}
	for i, parts := range want {
		for _, p := range parts {
			if !strings.Contains(got[i], p) {
				t.Errorf("regression %d: %q lacks %q", i, got[i], p)
			}
		}
	}
}

func row(t *testing.T, res *Result, ds, alg string) *Row {
	t.Helper()
	for i := range res.Rows {
		if res.Rows[i].Dataset == ds && res.Rows[i].Algorithm == alg {
			return &res.Rows[i]
		}
	}
	t.Fatalf("no row %s/%s", ds, alg)
	return nil
}

func TestIdenticalRuns(t *testing.T) {
	old := baseRun()
	res := Compare(old, clone(old), Options{TimeTest: TestPooled, Thresholds: defaults})
	wantRegressions(t, res)
	var order []string
	for _, r := range res.Rows {
		order = append(order, r.Dataset+"/"+r.Algorithm)
		if !r.Unchanged() || r.Tasks != 4 {
			t.Errorf("%s/%s: unchanged %v, %d tasks; want unchanged over 4", r.Dataset, r.Algorithm, r.Unchanged(), r.Tasks)
		}
		if r.Time.Significant || r.Time.P != 1 || r.Time.Ratio != 1 {
			t.Errorf("%s/%s: time %+v, want ratio 1, p 1", r.Dataset, r.Algorithm, r.Time)
		}
	}
	want := []string{"jets/trellis", "jets/greedy", "jets/bhc", "iris/trellis", "iris/greedy", "iris/bhc"}
	if !slices.Equal(order, want) {
		t.Errorf("rows %v, want %v (config order)", order, want)
	}
	// The metrics: greedy is 0.3 + 0.1·i below the trellis on item i, so its mean gap is 0.45.
	g := row(t, res, "jets", "greedy")
	if g.Quality[metric.ExactGap].Items != 4 || math.Abs(g.Quality[metric.ExactGap].Old-0.45) > 1e-12 || g.Quality[metric.ExactGap].Delta != 0 {
		t.Errorf("jets/greedy gap %+v, want mean 0.45 over 4 items", g.Quality[metric.ExactGap])
	}
	if tr := row(t, res, "jets", "trellis"); tr.Quality[metric.ExactGap].Items != 0 || tr.Quality[metric.LogEvidence].Items != 0 {
		t.Errorf("jets/trellis has a gap to itself %+v or evidence %+v", tr.Quality[metric.ExactGap], tr.Quality[metric.LogEvidence])
	}
	if b := row(t, res, "iris", "bhc"); b.Quality[metric.LogEvidence].Items != 4 || b.Quality[metric.DendrogramPurity].Items != 4 {
		t.Errorf("iris/bhc evidence %+v, purity %+v", b.Quality[metric.LogEvidence], b.Quality[metric.DendrogramPurity])
	}

	out := text(t, res)
	t.Logf("\n%s", out)
	if n := strings.Count(out, "no change"); n != 6 {
		t.Errorf("%d rows say \"no change\", want 6", n)
	}
	for _, s := range []string{"no regressions", "revision 0123456789ab", "revision fedcba987654", "started 2026-03-01 10:00:00 UTC", "started 2026-03-02 10:00:00 UTC", "~ (p=1.000 n=4)", "data set jets", "data set iris"} {
		if !strings.Contains(out, s) {
			t.Errorf("output lacks %q", s)
		}
	}
	for _, s := range []string{"REGRESSION", "note:"} {
		if strings.Contains(out, s) {
			t.Errorf("output of identical runs holds %q", s)
		}
	}
}

func TestWorseLogLikelihood(t *testing.T) {
	old := baseRun()
	new := clone(old)
	// greedy on jets loses 0.5 on items 1 and 3: the mean drops by 0.25 and the gap to the
	// exact MAP rises by 0.25.
	for _, item := range []string{"1", "3"} {
		r := find(t, new, key("jets", item, "greedy"))
		r.LogLikelihood = results.Log(r.LogLikelihood.Value() - 0.5)
	}
	res := Compare(old, new, Options{TimeTest: TestPooled, Thresholds: defaults})
	wantRegressions(t, res,
		[]string{"jets/greedy: mean log-likelihood fell by 0.25 nats", "(-22.5 → -22.75 over 4 items; threshold 1e-06)", "over 4 items", "threshold 1e-06"},
		[]string{"jets/greedy: mean gap to the exact MAP rose by 0.25 nats", "0.45 → 0.7", "over 4 items"})
	out := text(t, res)
	t.Logf("\n%s", out)
	for _, s := range []string{"2 REGRESSIONS", "REGRESSION (drop by 0.25 > 1e-06); 2 of 4 items differ", "REGRESSION (rise by 0.25 > 1e-06); 2 of 4 items differ", "2 regressions:"} {
		if !strings.Contains(out, s) {
			t.Errorf("output lacks %q", s)
		}
	}
	if n := strings.Count(out, "no change"); n != 5 {
		t.Errorf("%d rows say \"no change\", want 5 (all but jets/greedy)", n)
	}
}

func TestWorsePurity(t *testing.T) {
	old := baseRun()
	new := clone(old)
	r := find(t, new, key("iris", "2", "bhc"))
	r.Metrics[metric.DendrogramPurity] -= 0.1
	res := Compare(old, new, Options{TimeTest: TestPooled, Thresholds: defaults})
	wantRegressions(t, res, []string{"iris/bhc: mean dendrogram purity fell by 0.025 (0.835 → 0.81 over 4 items; threshold 0.001)"})
	if out := text(t, res); !strings.Contains(out, "1 REGRESSION") {
		t.Errorf("output lacks the row's regression:\n%s", out)
	}
}

func TestNewFailure(t *testing.T) {
	old := baseRun()
	new := clone(old)
	r := find(t, new, key("iris", "2", "greedy"))
	r.Error = "greedy: out of memory\nstack …"
	r.LogLikelihood = nil
	delete(r.Metrics, metric.DendrogramPurity)
	// A task that failed in OLD and succeeds in NEW is fixed, not a regression; one failing in
	// both is counted.
	find(t, old, key("jets", "0", "bhc")).Error = "boom"
	find(t, old, key("jets", "1", "bhc")).Error = "boom"
	find(t, new, key("jets", "1", "bhc")).Error = "boom"
	res := Compare(old, new, Options{TimeTest: TestPooled, Thresholds: defaults})
	wantRegressions(t, res, []string{"iris/greedy: task dataset=iris|item=2|algorithm=greedy succeeded in OLD and fails in NEW: greedy: out of memory …"})
	if g := row(t, res, "iris", "greedy"); g.Tasks != 3 || g.Quality[metric.LogLikelihood].Items != 3 {
		t.Errorf("iris/greedy over %d tasks, %d items; want 3", g.Tasks, g.Quality[metric.LogLikelihood].Items)
	}
	b := row(t, res, "jets", "bhc")
	if !slices.Equal(b.Fixed, []string{key("jets", "0", "bhc")}) || b.FailedBoth != 1 || b.Tasks != 2 {
		t.Errorf("jets/bhc: fixed %v, failed in both %d, %d tasks", b.Fixed, b.FailedBoth, b.Tasks)
	}
	out := text(t, res)
	t.Logf("\n%s", out)
	for _, s := range []string{"fails in NEW", "REGRESSION: item 2: greedy: out of memory …", "fixed in NEW", "no change; 1 task fixed", "failed in both", "1 regression:"} {
		if !strings.Contains(out, s) {
			t.Errorf("output lacks %q", s)
		}
	}
}

// TestThresholdBoundary moves every item by exactly the threshold (not a regression, however the
// means round) and by 1.001 times it (a regression), for each quality threshold.
func TestThresholdBoundary(t *testing.T) {
	loose := results.Thresholds{"log_likelihood": 10, "exact_gap": 10, "log_evidence": 10, "dendrogram_purity": 10}
	for _, c := range []struct {
		name  string
		th    results.Thresholds
		label string
		move  func(r *results.Record, by float64)
		want  string
	}{
		{"log-likelihood", results.Thresholds{"log_likelihood": 0.1, "exact_gap": 10, "log_evidence": 10, "dendrogram_purity": 10}, "trellis",
			func(r *results.Record, by float64) { r.LogLikelihood = results.Log(r.LogLikelihood.Value() - by) }, "mean log-likelihood fell"},
		{"log-likelihood 1e-6", results.Thresholds{"log_likelihood": 1e-6, "exact_gap": 10, "log_evidence": 10, "dendrogram_purity": 10}, "trellis",
			func(r *results.Record, by float64) { r.LogLikelihood = results.Log(r.LogLikelihood.Value() - by) }, "mean log-likelihood fell"},
		{"exact gap", results.Thresholds{"log_likelihood": 10, "exact_gap": 1e-6, "log_evidence": 10, "dendrogram_purity": 10}, "greedy",
			func(r *results.Record, by float64) { r.LogLikelihood = results.Log(r.LogLikelihood.Value() - by) }, "mean gap to the exact MAP rose"},
		{"log evidence", results.Thresholds{"log_likelihood": 10, "exact_gap": 10, "log_evidence": 0.3, "dendrogram_purity": 10}, "bhc",
			func(r *results.Record, by float64) { r.LogEvidence = results.Log(r.LogEvidence.Value() - by) }, "mean log evidence fell"},
		{"purity", results.Thresholds{"log_likelihood": 10, "exact_gap": 10, "log_evidence": 10, "dendrogram_purity": 0.001}, "bhc",
			func(r *results.Record, by float64) { r.Metrics[metric.DendrogramPurity] -= by }, "mean dendrogram purity fell"},
	} {
		t.Run(c.name, func(t *testing.T) {
			th := c.th
			limit := map[string]float64{"log-likelihood": th["log_likelihood"], "log-likelihood 1e-6": th["log_likelihood"], "exact gap": th["exact_gap"], "log evidence": th["log_evidence"], "purity": th["dendrogram_purity"]}[c.name]
			for _, f := range []struct {
				factor float64
				want   int
			}{{1, 0}, {1.001, 1}} {
				old := baseRun()
				new := clone(old)
				for i := range new.Records {
					if r := &new.Records[i]; r.Dataset == "jets" && r.Algorithm == c.label {
						c.move(r, limit*f.factor)
					}
				}
				res := Compare(old, new, Options{TimeTest: TestPooled, Thresholds: th})
				if got := res.Regressions(); len(got) != f.want || f.want == 1 && !strings.Contains(got[0], "jets/"+c.label+": "+c.want) {
					t.Errorf("moved by %g × the threshold %g: regressions %q, want %d (%s)", f.factor, limit, got, f.want, c.want)
				}
				if f.want == 0 && row(t, res, "jets", c.label).Unchanged() {
					t.Errorf("moved by the threshold, yet the row is unchanged")
				}
			}
			// The same moves under loose thresholds are no regression at all.
			old := baseRun()
			new := clone(old)
			for i := range new.Records {
				if r := &new.Records[i]; r.Dataset == "jets" && r.Algorithm == c.label {
					c.move(r, limit*1.001)
				}
			}
			if got := Compare(old, new, Options{TimeTest: TestPooled, Thresholds: loose}).Regressions(); len(got) != 0 {
				t.Errorf("regressions %q under loose thresholds", got)
			}
		})
	}
}

// timeRuns is one data set and one algorithm, an item per task time given, both runs on the same
// machine (a manifest without sessions stands for one session on its host).
func timeRuns(oldSecs, newSecs []float64) (Run, Run) {
	mk := func(secs []float64) Run {
		r := Run{Manifest: results.Manifest{Experiment: "timing", Datasets: []string{"t"}, Algorithms: []string{"greedy"}, ConfigHash: "h",
			Status: results.StatusComplete, Tasks: len(secs), Host: "box", CPUs: 2, Workers: 2, Start: time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)}}
		for i, s := range secs {
			x := rec("t", fmt.Sprint(i), "greedy", "greedy")
			x.LogLikelihood = results.Log(-10 - float64(i))
			x.Seconds = s
			r.Records = append(r.Records, x)
		}
		return r
	}
	return mk(oldSecs), mk(newSecs)
}

func TestTime(t *testing.T) {
	oldSecs := []float64{1.00, 1.08, 0.97, 1.02, 1.11, 0.95, 1.05, 0.99, 1.03, 1.07}
	scaled := func(f float64) []float64 {
		out := make([]float64, len(oldSecs))
		for i, s := range oldSecs {
			out[i] = s * f
		}
		return out
	}
	// Noisy but equal: the same times shuffled, each moved by at most 3%.
	noisy := []float64{1.07 * 1.01, 1.00 * 0.98, 1.11 * 0.99, 0.95 * 1.03, 1.02, 1.08 * 0.97, 0.99 * 1.02, 1.05, 0.97 * 1.01, 1.03 * 0.99}

	slowTh := results.Thresholds{"log_likelihood": 1e-6, "exact_gap": 1e-6, "log_evidence": 1e-6, "dendrogram_purity": 0.001, "time": 0.1}
	for _, c := range []struct {
		name   string
		new    []float64
		th     results.Thresholds
		regs   int
		sig    bool
		output []string
	}{
		{"50% slower, threshold 10%", scaled(1.5), slowTh, 1, true, []string{"+50.0%", "REGRESSION (slower by 50.0% > 10%) p=0.000 n=10", "t/greedy: median time rose by 50.0% (1.025s → 1.5375s, p=0.000 n=10; threshold 10%)"}},
		// The same slowdown of microsecond tasks is timer noise, below MinTimed: not a regression.
		{"50% slower, microseconds", scaled(1.5e-5), slowTh, 0, true, []string{"no regressions"}},
		{"50% slower, threshold 0", scaled(1.5), defaults, 0, true, []string{"+50.0%  p=0.000 n=10", "time not checked (0)", "no regressions"}},
		{"20% slower, threshold 50%", scaled(1.2), results.Thresholds{"time": 0.5}, 0, true, []string{"+20.0%  p=0.000 n=10", "time 50% slower with p < 0.05", "no regressions"}},
		{"noisy, equal", noisy, slowTh, 0, false, []string{"~ (p=0.", "no regressions", "no change"}},
		// Just short of significance (p = 0.055): slower than the threshold, yet not a regression.
		{"5% slower, not significant", scaled(1.05), results.Thresholds{"time": 0.01}, 0, false, []string{"+5.0%  ~ (p=0.055 n=10)", "no regressions"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			olds := oldSecs
			if c.name == "50% slower, microseconds" {
				olds = scaled(1e-5)
			}
			old, new := timeRuns(olds, c.new)
			res := Compare(old, new, Options{TimeTest: TestPooled, Thresholds: c.th})
			if got := res.Regressions(); len(got) != c.regs {
				t.Errorf("regressions %q, want %d", got, c.regs)
			}
			tm := res.Rows[0].Time
			if tm.Significant != c.sig || tm.Significant != (tm.P < 0.05) || tm.Tasks != 10 {
				t.Errorf("time %+v, want significant %v", tm, c.sig)
			}
			if c.sig && tm.P >= 0.001 {
				t.Errorf("p = %g for fully separated samples of 10, want < 0.001", tm.P)
			}
			if c.name == "noisy, equal" && tm.P < 0.5 {
				t.Errorf("p = %g for a noisy equal sample, want ≥ 0.5", tm.P)
			}
			out := text(t, res)
			for _, s := range c.output {
				if !strings.Contains(out, s) {
					t.Errorf("output lacks %q:\n%s", s, out)
				}
			}
		})
	}
}

func TestTasksInOneRunAndConfigHash(t *testing.T) {
	old := baseRun()
	new := clone(old)
	new.Manifest.ConfigHash = "bbbbbbbbbbbbbbbbbbbb"
	// OLD has an item more on iris; NEW a new algorithm (beam) on jets, items 0–3 and 10.
	for _, alg := range old.Manifest.Algorithms {
		r := rec("iris", "7", alg, alg)
		r.LogLikelihood = results.Log(-50)
		old.Records = append(old.Records, r)
	}
	new.Manifest.Algorithms = []string{"trellis", "beam", "greedy", "bhc"}
	for _, item := range []string{"10", "0", "1", "2", "3"} {
		r := rec("jets", item, "beam", "beam")
		r.LogLikelihood = results.Log(-100)
		new.Records = append(new.Records, r)
	}
	res := Compare(old, new, Options{TimeTest: TestPooled, Thresholds: defaults})
	wantRegressions(t, res)
	wantOld := []string{key("iris", "7", "trellis"), key("iris", "7", "greedy"), key("iris", "7", "bhc")}
	wantNew := []string{key("jets", "0", "beam"), key("jets", "1", "beam"), key("jets", "2", "beam"), key("jets", "3", "beam"), key("jets", "10", "beam")}
	if !slices.Equal(res.OnlyOld, wantOld) || !slices.Equal(res.OnlyNew, wantNew) {
		t.Errorf("only in OLD %q, only in NEW %q; want %q, %q", res.OnlyOld, res.OnlyNew, wantOld, wantNew)
	}
	if !res.ConfigHashDiffers() {
		t.Error("config hashes differ, ConfigHashDiffers says no")
	}
	// Tasks of OLD missing from NEW fail the comparison, unless allowed; tasks only in NEW never.
	if p := res.Problems(); len(p) != 1 || !strings.Contains(p[0], "3 tasks of OLD are missing from NEW ("+strings.Join(wantOld, ", ")+")") || !res.Failed() {
		t.Errorf("problems %q, failed %v; want the 3 tasks only in OLD", p, res.Failed())
	}
	if allowed := Compare(old, new, Options{TimeTest: TestPooled, Thresholds: defaults, AllowMissing: true}); len(allowed.Problems()) != 0 || allowed.Failed() {
		t.Errorf("with AllowMissing: problems %q", allowed.Problems())
	}
	pos := slices.IndexFunc(res.Rows, func(r Row) bool { return r.Algorithm == "beam" })
	if b := row(t, res, "jets", "beam"); b.Tasks != 0 || pos != 1 {
		t.Errorf("jets/beam: %d tasks at position %d; want 0 tasks, second row (NEW's config order)", b.Tasks, pos)
	}
	out := text(t, res)
	t.Logf("\n%s", out)
	for _, s := range []string{
		"note: the config hashes differ (old aaaaaaaaaaaa, new bbbbbbbbbbbb)",
		"note: 3 tasks only in OLD (not compared): " + strings.Join(wantOld, ", "),
		"note: 5 tasks only in NEW (not compared): " + strings.Join(wantNew, ", "),
		"no task in both runs", "no regressions", "1 problem:",
	} {
		if !strings.Contains(out, s) {
			t.Errorf("output lacks %q", s)
		}
	}
	// A longer list is cut after five keys.
	for _, item := range []string{"11", "12"} {
		new.Records = append(new.Records, rec("jets", item, "beam", "beam"))
	}
	if out := text(t, Compare(old, new, Options{TimeTest: TestPooled, Thresholds: defaults})); !strings.Contains(out, "7 tasks only in NEW (not compared): "+strings.Join(wantNew[:4], ", ")+", "+key("jets", "10", "beam")+", … (2 more)") {
		t.Errorf("long list not cut:\n%s", out)
	}
}

func TestInfiniteAndUnscored(t *testing.T) {
	old := baseRun()
	new := clone(old)
	negInf := math.Inf(-1)
	// jets item 0: every tree −Inf in both runs (no finite MAP); item 1: greedy unscored (nil)
	// in both; item 2: greedy finite in OLD, −Inf in NEW; and an algorithm scored by no one.
	for _, run := range []Run{old, new} {
		for _, alg := range run.Manifest.Algorithms {
			find(t, run, key("jets", "0", alg)).LogLikelihood = results.Log(negInf)
		}
		find(t, run, key("jets", "1", "greedy")).LogLikelihood = nil
	}
	find(t, new, key("jets", "2", "greedy")).LogLikelihood = results.Log(negInf)
	for i, run := range []*Run{&old, &new} {
		run.Manifest.Algorithms = append(run.Manifest.Algorithms, "distance")
		for item := range 3 {
			r := rec("jets", fmt.Sprint(item), "distance", "distance")
			r.Seconds = float64(i + item)
			run.Records = append(run.Records, r)
		}
	}
	res := Compare(old, new, Options{TimeTest: TestPooled, Thresholds: defaults})
	wantRegressions(t, res, []string{"jets/greedy: log-likelihood −Inf on 1 item finite in OLD (2)"})
	g := row(t, res, "jets", "greedy")
	if g.Quality[metric.LogLikelihood].Items != 1 || g.Quality[metric.ExactGap].Items != 1 || math.IsNaN(g.Quality[metric.LogLikelihood].Old) {
		t.Errorf("jets/greedy log-likelihood %+v, gap %+v; want item 3 only", g.Quality[metric.LogLikelihood], g.Quality[metric.ExactGap])
	}
	if tr := row(t, res, "jets", "trellis"); tr.Quality[metric.LogLikelihood].Items != 3 || !tr.Unchanged() {
		t.Errorf("jets/trellis log-likelihood %+v", tr.Quality[metric.LogLikelihood])
	}
	d := row(t, res, "jets", "distance")
	if d.Quality[metric.LogLikelihood].Items != 0 || d.Quality[metric.ExactGap].Items != 0 || d.Tasks != 3 || !d.Unchanged() {
		t.Errorf("jets/distance %+v", d)
	}
	out := text(t, res)
	t.Logf("\n%s", out)
	for _, s := range []string{"log-likelihood −Inf", "REGRESSION: 1 item (2)", "log-likelihood (1)", "gap to exact MAP (1)"} {
		if !strings.Contains(out, s) {
			t.Errorf("output lacks %q", s)
		}
	}
	// A row whose every task failed in both runs has no metrics and prints no NaN.
	for _, run := range []Run{old, new} {
		for item := range 3 {
			find(t, run, key("jets", fmt.Sprint(item), "distance")).Error = "no model"
		}
	}
	res = Compare(old, new, Options{TimeTest: TestPooled, Thresholds: defaults})
	if d := row(t, res, "jets", "distance"); d.Tasks != 0 || d.FailedBoth != 3 {
		t.Errorf("jets/distance: %d tasks, %d failed in both", d.Tasks, d.FailedBoth)
	}
	text(t, res)
}

// TestUnfinishedNew compares a full OLD with a NEW that was interrupted after 10 of its 24
// tasks: the tasks both have show no change, yet the comparison fails on two problems (NEW did
// not finish; 14 tasks of OLD are missing), and the header gives both statuses. -allow-missing
// accepts it.
func TestUnfinishedNew(t *testing.T) {
	old := baseRun()
	new := clone(old)
	new.Records = new.Records[:10]
	new.Manifest.Status, new.Manifest.Finished = results.StatusInterrupted, 10
	res := Compare(old, new, Options{TimeTest: TestPooled, Thresholds: defaults})
	wantRegressions(t, res)
	probs := res.Problems()
	if len(probs) != 2 || !strings.Contains(probs[0], "NEW did not finish (interrupted, 10 of 24 tasks)") ||
		!strings.Contains(probs[1], "14 tasks of OLD are missing from NEW") || !res.Failed() {
		t.Errorf("problems %q, failed %v", probs, res.Failed())
	}
	out := text(t, res)
	t.Logf("\n%s", out)
	for _, s := range []string{"complete, 24 of 24 tasks", "interrupted, 10 of 24 tasks", "no regressions", "2 problems:", "compare with -allow-missing"} {
		if !strings.Contains(out, s) {
			t.Errorf("output lacks %q", s)
		}
	}
	// A killed run's manifest still says 0 finished; the records say how far it got.
	new.Manifest.Status, new.Manifest.Finished = results.StatusRunning, 0
	if p := Compare(old, new, Options{TimeTest: TestPooled, Thresholds: defaults}).Problems(); len(p) == 0 || !strings.Contains(p[0], "(running or killed, 10 of 24 tasks)") {
		t.Errorf("killed NEW: problems %q", p)
	}
	allowed := Compare(old, new, Options{TimeTest: TestPooled, Thresholds: defaults, AllowMissing: true})
	if allowed.Failed() || !strings.Contains(text(t, allowed), "note: 14 tasks only in OLD (not compared)") {
		t.Errorf("-allow-missing: problems %q", allowed.Problems())
	}
}

// TestDuplicates records a task twice in NEW, the second time with another value: the first
// record is compared (as a resume keeps it), and the duplicate fails the comparison even with
// AllowMissing.
func TestDuplicates(t *testing.T) {
	old := baseRun()
	new := clone(old)
	dup := *find(t, new, key("jets", "1", "greedy"))
	dup.LogLikelihood = results.Log(dup.LogLikelihood.Value() - 5)
	new.Records = append(new.Records, dup, dup)
	for _, allow := range []bool{false, true} {
		res := Compare(old, new, Options{TimeTest: TestPooled, Thresholds: defaults, AllowMissing: allow})
		wantRegressions(t, res)
		if p := res.Problems(); len(p) != 1 || !strings.Contains(p[0], "NEW records 1 task twice ("+key("jets", "1", "greedy")+")") || !res.Failed() {
			t.Errorf("allow %v: problems %q", allow, p)
		}
		if !row(t, res, "jets", "greedy").Unchanged() {
			t.Errorf("allow %v: the second record was compared, not the first", allow)
		}
	}
}

// TestTimeNeedsSamplesAndOneMachine slows every task by 50% against a threshold of 10%, with all
// times separated (p < 0.05): over 4 tasks (smallest possible p 2/C(8,4) = 0.029) it is not a
// regression, nor over 10 tasks timed on different machines; over 10 tasks on one machine it is
// (TestTime), and the quality line of that row still says "no change".
func TestTimeNeedsSamplesAndOneMachine(t *testing.T) {
	th := results.Thresholds{"time": 0.1}
	few := []float64{1.00, 1.08, 0.97, 1.02}
	slower := func(xs []float64) []float64 {
		out := make([]float64, len(xs))
		for i, x := range xs {
			out[i] = 1.5 * x
		}
		return out
	}
	old, new := timeRuns(few, slower(few))
	res := Compare(old, new, Options{TimeTest: TestPooled, Thresholds: th})
	if tm := res.Rows[0].Time; !tm.Significant || math.Abs(tm.P-2.0/70) > 1e-9 || res.Rows[0].TimeRegressed() || res.Rows[0].TimeWaived != "n=4 < 8" {
		t.Errorf("n=4: time %+v, waived %q; want p = 2/70, no regression", tm, res.Rows[0].TimeWaived)
	}
	if out := text(t, res); !strings.Contains(out, "slower by 50.0% > 10%, not a regression (n=4 < 8) p=0.029 n=4") || !strings.Contains(out, "no regressions") {
		t.Errorf("n=4 output:\n%s", out)
	}

	ten := []float64{1.00, 1.08, 0.97, 1.02, 1.11, 0.95, 1.05, 0.99, 1.03, 1.07}
	old, new = timeRuns(ten, slower(ten))
	new.Manifest.Host = "other-box"
	res = Compare(old, new, Options{TimeTest: TestPooled, Thresholds: th})
	if res.Rows[0].TimeRegressed() || res.Rows[0].TimeWaived != "other machine" || len(res.Regressions()) != 0 {
		t.Errorf("other machine: regressions %q, waived %q", res.Regressions(), res.Rows[0].TimeWaived)
	}
	if out := text(t, res); !strings.Contains(out, "note: times are reported, not checked: the runs ran on different machines or worker counts (OLD: box, 2 CPUs, 2 workers; NEW: other-box, 2 CPUs, 2 workers)") {
		t.Errorf("other machine output:\n%s", out)
	}
	// Shards merged from two nodes: several machines in one run.
	new.Manifest.Sessions = []results.Session{{Host: "box", CPUs: 2, Workers: 2}, {Host: "node7", CPUs: 2, Workers: 2}}
	if res := Compare(old, new, Options{TimeTest: TestPooled, Thresholds: th}); res.Rows[0].TimeRegressed() || !strings.Contains(res.TimeNote, "several machines") {
		t.Errorf("merged shards: time note %q", res.TimeNote)
	}

	new.Manifest.Host, new.Manifest.Sessions = "box", nil
	res = Compare(old, new, Options{TimeTest: TestPooled, Thresholds: th})
	if !res.Rows[0].TimeRegressed() || len(res.Regressions()) != 1 {
		t.Fatalf("one machine, n=10: regressions %q", res.Regressions())
	}
	for line := range strings.Lines(text(t, res)) {
		if strings.Contains(line, "quality") && (strings.Contains(line, "REGRESSION") || !strings.Contains(line, "no change")) {
			t.Errorf("the quality line counts the time regression: %q", line)
		}
	}
	// A quality regression beside the time one: the quality line counts it alone, and the
	// regressions list quality before time.
	new.Records[0].LogLikelihood = results.Log(new.Records[0].LogLikelihood.Value() - 1)
	res = Compare(old, new, Options{TimeTest: TestPooled, Thresholds: th})
	wantRegressions(t, res, []string{"t/greedy: mean log-likelihood fell"}, []string{"t/greedy: median time rose"})
	out := text(t, res)
	for line := range strings.Lines(out) {
		if strings.Contains(line, "quality") && !strings.HasSuffix(line, " 1 REGRESSION\n") {
			t.Errorf("quality line with a quality and a time regression: %q, want it to count 1\n%s", line, out)
		}
	}
}

// TestTimeUsesEveryRun: with tasks run several times (repeat, -count), the time test runs over
// every run of every task, as benchstat over bench.txt does: 4 tasks of 3 runs each are 12
// samples a side, enough for a regression where the 4 tasks alone (n=4 < 8) are not; the
// medians are over the runs; and a run from before repeats (seconds only) compares with one
// that has times, each of its tasks one sample.
func TestTimeUsesEveryRun(t *testing.T) {
	th := results.Thresholds{"time": 0.1}
	secs := []float64{1.00, 1.08, 0.97, 1.02}
	withRuns := func(r Run, factor float64) Run {
		for i := range r.Records {
			s := r.Records[i].Seconds * factor
			r.Records[i].Times = []float64{s * 1.01, s * 0.98, s}
			r.Records[i].Seconds = results.Median(r.Records[i].Times)
		}
		return r
	}
	old, new := timeRuns(secs, secs)
	old, new = withRuns(old, 1), withRuns(new, 1.5)
	res := Compare(old, new, Options{TimeTest: TestPooled, Thresholds: th})
	tm := res.Rows[0].Time
	if tm.Tasks != 4 || tm.OldSamples != 12 || tm.NewSamples != 12 || !tm.Significant || tm.P >= 0.001 {
		t.Errorf("time %+v; want 4 tasks, 12 samples a side, p < 0.001", tm)
	}
	var all []float64
	for _, r := range old.Records {
		all = append(all, r.Times...)
	}
	if tm.Old != results.Median(all) {
		t.Errorf("old median %v, want the median of every run, %v", tm.Old, results.Median(all))
	}
	wantRegressions(t, res, []string{"t/greedy: median time rose by 50.0%", "p=0.000 n=12;"})
	if out := text(t, res); !strings.Contains(out, "REGRESSION (slower by 50.0% > 10%) p=0.000 n=12") {
		t.Errorf("output:\n%s", out)
	}

	// OLD from before repeats: one sample per task against NEW's three.
	old, _ = timeRuns(secs, secs)
	res = Compare(old, new, Options{TimeTest: TestPooled, Thresholds: th})
	tm = res.Rows[0].Time
	if tm.OldSamples != 4 || tm.NewSamples != 12 || !tm.Significant || res.Rows[0].TimeWaived != "n=4+12 < 8" {
		t.Errorf("time %+v, waived %q; want 4+12 samples, significant, waived as n=4+12 < 8", tm, res.Rows[0].TimeWaived)
	}
	if out := text(t, res); !strings.Contains(out, "not a regression (n=4+12 < 8)") || !strings.Contains(out, "n=4+12") {
		t.Errorf("output:\n%s", out)
	}
}
