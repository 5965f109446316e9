package compare

import (
	"math"
	"strings"
	"testing"

	"github.com/hcbench/hcbench/experiments/results"
)

// TestVanElteren checks the stratified test against a computation with SciPy 1.10.1 (Python):
// the ranks from scipy.stats.rankdata, the tie factor from scipy.stats.tiecorrect, the same
// weights 1/(N_i+1) and p = 2·scipy.stats.norm.sf(|Z|); on one stratum it is the Mann-Whitney
// normal approximation, which scipy.stats.mannwhitneyu(method="asymptotic",
// use_continuity=False) gives. Tolerance 1e-12 relative (the scripts print 16 digits).
func TestVanElteren(t *testing.T) {
	for _, c := range []struct {
		name   string
		strata [][2][]float64
		z, p   float64
	}{
		{"three items, 3 timings each", [][2][]float64{
			{{1.00, 1.08, 0.97}, {1.10, 1.15, 1.02}},
			{{5.0, 5.2, 4.9}, {5.1, 5.3, 5.6}},
			{{0.30, 0.31, 0.29}, {0.33, 0.30, 0.35}},
		}, 2.5318484177091665, 0.011346302958474845},
		{"ties, unequal sizes", [][2][]float64{
			{{1, 2, 2, 3}, {2, 3, 3, 4}},
			{{10, 10, 11}, {10, 12, 12, 13}},
			{{7, 8}, {6, 7, 9}},
		}, 1.7000510022951147, 0.08912133249537314},
		{"no shift", [][2][]float64{
			{{1.0, 1.1, 1.2, 1.3}, {1.05, 1.15, 1.25, 1.35}},
			{{2.0, 2.2}, {1.9, 2.1}},
		}, 0.047946330148538364, 0.9617590157064749},
		{"one stratum = Mann-Whitney", [][2][]float64{
			{{1.0, 1.08, 0.97, 1.02, 1.11}, {1.2, 1.05, 1.3, 1.25, 1.15}},
		}, 2.1933784650417927, 0.028280122568276955},
	} {
		z, p := vanElteren(c.strata)
		if math.Abs(z-c.z) > 1e-12*math.Abs(c.z) || math.Abs(p-c.p) > 1e-12*c.p {
			t.Errorf("%s: z = %.16g, p = %.16g; scipy: %.16g, %.16g", c.name, z, p, c.z, c.p)
		}
	}
	// A stratum with timings in one run only carries nothing; all ties: p = 1.
	if z, p := vanElteren([][2][]float64{{{1, 2}, nil}, {{3, 3}, {3, 3}}}); z != 0 || p != 1 {
		t.Errorf("all tied: z %v, p %v; want 0, 1", z, p)
	}
	if _, p := vanElteren([][2][]float64{{{1, 2}, nil}}); !math.IsNaN(p) {
		t.Errorf("no usable stratum: p %v, want NaN", p)
	}
}

// TestVanElterenBestP: the smallest p of fully separated strata is what vanElteren computes for
// them, and the rule's boundaries are those documented (15 items timed once, 4 timed 3 times).
func TestVanElterenBestP(t *testing.T) {
	separated := func(s, k int) ([][2][]float64, [][2]int) {
		var strata [][2][]float64
		var sizes [][2]int
		for i := range s {
			var o, n []float64
			for j := range k {
				o, n = append(o, float64(10*i+j)), append(n, float64(10*i+j)+5)
			}
			strata, sizes = append(strata, [2][]float64{o, n}), append(sizes, [2]int{k, k})
		}
		return strata, sizes
	}
	for _, c := range []struct {
		items, k int
		enough   bool
	}{{15, 1, true}, {14, 1, false}, {4, 3, true}, {3, 3, false}, {3, 5, true}, {2, 5, false}} {
		strata, sizes := separated(c.items, c.k)
		_, p := vanElteren(strata)
		best := vanElterenBestP(sizes)
		if math.Abs(p-best) > 1e-12*best {
			t.Errorf("%d×%d: separated p %g, best p %g", c.items, c.k, p, best)
		}
		if (best <= minStratifiedP) != c.enough {
			t.Errorf("%d items × %d timings: best p %g, enough %v; want %v", c.items, c.k, best, best <= minStratifiedP, c.enough)
		}
	}
}

// stratRuns is one row of items timed k times each: item i takes base[i]·(1 + 0.01·j) in OLD
// on its j-th run and factor times that in NEW.
func stratRuns(base []float64, k int, factor float64) (Run, Run) {
	old, new := timeRuns(base, base)
	for _, r := range []*Run{&old, &new} {
		f := 1.0
		if r == &new {
			f = factor
		}
		for i := range r.Records {
			s := r.Records[i].Seconds
			r.Records[i].Times = nil
			for j := range k {
				r.Records[i].Times = append(r.Records[i].Times, f*s*(1+0.01*float64(j)))
			}
			r.Records[i].Seconds = results.Median(r.Records[i].Times)
		}
	}
	return old, new
}

// TestStratifiedTime: items whose sizes span a factor 100 all slowed by 12%: the pooled test
// cannot see it (the spread between items swamps it), the stratified test can, and its effect
// is the slowdown of every item; with 3 items timed 3 times the same slowdown is waived.
func TestStratifiedTime(t *testing.T) {
	th := results.Thresholds{"time": 0.1}
	base := []float64{0.01, 0.03, 0.1, 0.3, 1}
	old, new := stratRuns(base, 3, 1.12)
	pooled := Compare(old, new, Options{Thresholds: th, TimeTest: TestPooled})
	strat := Compare(old, new, Options{Thresholds: th, TimeTest: TestStratified})
	if tm := pooled.Rows[0].Time; tm.Significant || pooled.Rows[0].TimeRegressed() || tm.Test != TestPooled {
		t.Errorf("pooled: %+v, want not significant", tm)
	}
	if out := text(t, pooled); !strings.Contains(out, "(pooled test)") {
		t.Errorf("a test other than the default is not named:\n%s", out)
	}
	tm := strat.Rows[0].Time
	if !tm.Significant || !strat.Rows[0].TimeRegressed() || tm.Test != TestStratified || math.Abs(tm.Effect-1.12) > 1e-12 {
		t.Fatalf("stratified: %+v, regressed %v; want significant, effect 1.12", tm, strat.Rows[0].TimeRegressed())
	}
	wantRegressions(t, strat, []string{"t/greedy: time (geometric mean of the items' median ratios) rose by 12.0%", "n=15;"})
	if fs := strat.Findings(); len(fs) != 1 || fs[0].String() != "regression time t/greedy 0.101s → 0.11312s (+12.0%, p=0.000 n=15 stratified (threshold 10%))" {
		t.Errorf("findings %q", fs)
	}
	if out := text(t, strat); !strings.Contains(out, "REGRESSION (slower by 12.0% > 10%) p=0.000 n=15 stratified") || strings.Contains(out, "(stratified test)") {
		t.Errorf("output:\n%s", out)
	}
	// Alpha below the p: not significant.
	if r := Compare(old, new, Options{Thresholds: th, TimeTest: TestStratified, Alpha: tm.P / 2}); r.Rows[0].Time.Significant || r.Rows[0].TimeRegressed() {
		t.Errorf("alpha %g: %+v", tm.P/2, r.Rows[0].Time)
	}
	// A slowdown below the threshold is no regression, though significant.
	if r := Compare(old, new, Options{Thresholds: results.Thresholds{"time": 0.15}, TimeTest: TestStratified}); r.Rows[0].TimeRegressed() {
		t.Errorf("threshold 15%%: regressed")
	}
	old, new = stratRuns(base[:3], 3, 1.5)
	r := Compare(old, new, Options{Thresholds: th, TimeTest: TestStratified})
	if r.Rows[0].TimeRegressed() || !strings.Contains(r.Rows[0].TimeWaived, "p ≥ 0.00067 at best") {
		t.Errorf("3 items × 3: regressed %v, waived %q", r.Rows[0].TimeRegressed(), r.Rows[0].TimeWaived)
	}
}
