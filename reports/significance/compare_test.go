package significance

import (
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"slices"
	"strings"
	"testing"
)

// pairRef is a reference pair row: algorithm indices, datasets, wins, ties, losses, Wilcoxon
// statistic and p-value, Holm-adjusted p-value, median difference, missing A, missing B.
type pairRef struct {
	a, b, datasets, wins, ties, losses int
	stat, p, holm, median              float64
	missingA, missingB                 int
}

// formulaPairs are the rows of the 69 × 8 formula table (formulaValue, formulaOK; higher is
// better), computed by a Python script with SciPy 1.10.1: wins/ties/losses and the median with
// numpy, scipy.stats.wilcoxon(d, method=m) with m = 'exact' when n ≤ 50 with no zero and no
// tied |d| else 'approx' (Wilcoxon's rule), Holm with statsmodels 0.13.5 over the 28 p-values.
// Tolerance: 1e-12 relative (p-values), exact (counts, statistics), 1e-15 (medians).
var formulaPairs = []pairRef{
	{0, 1, 64, 33, 0, 31, 1033.0, 0.9626626401635391, 1.0, 0.020927835051546412, 3, 2},
	{0, 2, 64, 32, 0, 32, 1001.0, 0.794236962958387, 1.0, -0.004536082474226849, 3, 2},
	{0, 3, 63, 31, 0, 32, 985.0, 0.8748820192277265, 1.0, -0.009381443298969061, 3, 3},
	{0, 4, 64, 28, 0, 36, 827.0, 0.1543195755703184, 1.0, -0.0812371134020619, 3, 2},
	{0, 5, 63, 29, 0, 34, 867.0, 0.3343942322149971, 1.0, -0.050000000000000044, 3, 3},
	{0, 6, 64, 29, 0, 35, 917.0, 0.41075650210426795, 1.0, -0.04969072164948457, 3, 2},
	{0, 7, 63, 28, 0, 35, 822.0, 0.20288487564803181, 1.0, -0.059690721649484635, 3, 3},
	{1, 2, 65, 32, 0, 33, 1035.0, 0.8064099017681527, 1.0, -0.010000000000000009, 2, 2},
	{1, 3, 64, 31, 0, 33, 1004.0, 0.8097487528554239, 1.0, -0.014845360824742249, 2, 3},
	{1, 4, 65, 29, 0, 36, 915.0, 0.30336108838299014, 1.0, -0.05061855670103094, 2, 2},
	{1, 5, 64, 30, 0, 34, 933.0, 0.474261225049591, 1.0, -0.05030927835051552, 2, 3},
	{1, 6, 65, 30, 0, 35, 943.0, 0.39739980318216794, 1.0, -0.050000000000000044, 2, 2},
	{1, 7, 64, 30, 0, 34, 899.0, 0.34571253321084827, 1.0, -0.04453608247422686, 2, 3},
	{2, 3, 64, 31, 0, 33, 1020.0, 0.8936001916804368, 1.0, -0.030618556701030933, 2, 3},
	{2, 4, 65, 29, 0, 36, 897.0, 0.2514307083038029, 1.0, -0.05092783505154641, 2, 2},
	{2, 5, 64, 29, 0, 35, 918.0, 0.414571303855538, 1.0, -0.04030927835051551, 2, 3},
	{2, 6, 65, 29, 0, 36, 885.0, 0.22046203255692387, 1.0, -0.07092783505154643, 2, 2},
	{2, 7, 64, 29, 0, 35, 874.0, 0.2669448293737333, 1.0, -0.0551546391752577, 2, 3},
	{3, 4, 64, 27, 0, 37, 870.0, 0.2555902102814971, 1.0, -0.07701030927835054, 3, 2},
	{3, 5, 63, 28, 0, 35, 856.0, 0.2980575988498725, 1.0, -0.040618556701030935, 3, 3},
	{3, 6, 64, 28, 0, 36, 900.0, 0.349144146221421, 1.0, -0.055773195876288637, 3, 2},
	{3, 7, 63, 29, 0, 34, 839.0, 0.24727579512510145, 1.0, -0.06061855670103089, 3, 3},
	{4, 5, 64, 32, 0, 32, 1023.0, 0.9094854584574152, 1.0, -0.004845360824742295, 2, 3},
	{4, 6, 65, 34, 0, 31, 998.0, 0.626362707323042, 1.0, 0.021237113402061913, 2, 2},
	{4, 7, 64, 33, 0, 31, 1039.0, 0.9946641830199255, 1.0, 0.011237113402061766, 2, 3},
	{5, 6, 64, 32, 0, 32, 1024.0, 0.9147889200699726, 1.0, -0.0048453608247422675, 3, 2},
	{5, 7, 63, 32, 0, 31, 996.0, 0.9345248494450984, 1.0, 0.0006185567010308923, 3, 3},
	{6, 7, 64, 32, 0, 32, 1039.0, 0.9946641830199255, 1.0, -0.004845360824742295, 2, 3},
}

// tiesValue and tiesOK define the 40 × 5 table of TestCompareTiesAndGuards: algorithm 3 ties
// algorithm 2 on every 4th problem, algorithm 4 completed only the first 5 problems.
func tiesValue(p, a int) float64 {
	if a == 3 && p%4 == 0 {
		a = 2
	}
	return float64((p*37+a*11+p*a*7)%23)/23 + 0.08*float64(a)
}

func tiesOK(p, a int) bool {
	if a == 4 {
		return p < 5
	}
	return (p*13+a*5)%17 != 0
}

// tiesPairs are that table's rows, from the same script (higher is better; pairs with fewer
// than 6 paired data sets untested and left out of Holm's family).
var tiesPairs = []pairRef{
	{0, 1, 35, 14, 0, 21, 236.0, 0.1955844554519336, 0.3911689109038672, -0.12347826086956523, 3, 2},
	{0, 2, 35, 14, 0, 21, 177.0, 0.023768391747718467, 0.11884195873859234, -0.16, 3, 2},
	{0, 3, 35, 9, 0, 26, 130.0, 0.0024419257441678764, 0.014651554465007259, -0.23999999999999996, 3, 2},
	{0, 4, 4, 1, 0, 3, nan(), nan(), nan(), -0.27652173913043476, 3, 35},
	{1, 2, 36, 14, 0, 22, 234.0, 0.11978921855533246, 0.3593676556659974, -0.1452173913043478, 2, 2},
	{1, 3, 36, 13, 0, 23, 199.0, 0.03525546682648615, 0.1410218673059446, -0.1817391304347826, 2, 2},
	{1, 4, 5, 0, 0, 5, nan(), nan(), nan(), -0.5008695652173911, 2, 35},
	{2, 3, 36, 12, 8, 16, 165.0, 0.3867740718376753, 0.3911689109038672, 0.0, 2, 2},
	{2, 4, 5, 2, 0, 3, nan(), nan(), nan(), -0.11652173913043473, 2, 35},
	{3, 4, 5, 2, 0, 3, nan(), nan(), nan(), -0.11652173913043473, 2, 35},
}

func formulaTable(name string, higher bool, problems, algorithms int, value func(p, a int) float64, ok func(p, a int) bool) Table {
	return gridTable(Metric{Name: name, HigherBetter: higher, ROPE: 0.01}, valueGrid(problems, algorithms, value, ok))
}

func checkPairs(t *testing.T, name string, got []Pair, want []pairRef, lowerBetter bool) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: %d pairs, want %d", name, len(got), len(want))
	}
	for i, w := range want {
		g := got[i]
		wins, losses := w.wins, w.losses
		if lowerBetter {
			wins, losses = losses, wins
		}
		if g.A != fmt.Sprintf("a%d", w.a) || g.B != fmt.Sprintf("a%d", w.b) || g.Datasets != w.datasets ||
			g.Wins != wins || g.Ties != w.ties || g.Losses != losses || g.MissingA != w.missingA || g.MissingB != w.missingB ||
			!near(g.WilcoxonStatistic, w.stat, 0) || !near(g.P, w.p, 1e-12) || !near(g.PHolm, w.holm, 1e-12) ||
			!near(g.MedianDifference, w.median, 1e-15) {
			t.Errorf("%s: row %d: got %+v\nwant %+v", name, i, g, w)
		}
		tested := !math.IsNaN(w.p)
		for _, x := range []float64{g.CILow, g.CIHigh, g.PABetter, g.PEquivalent, g.PBBetter} {
			if math.IsNaN(x) == tested {
				t.Errorf("%s: row %d: tested %v but CI/Bayesian field %v", name, i, tested, x)
			}
		}
		if tested && !(g.CILow <= g.MedianDifference && g.MedianDifference <= g.CIHigh) {
			t.Errorf("%s: row %d: median %v outside its interval (%v, %v)", name, i, g.MedianDifference, g.CILow, g.CIHigh)
		}
	}
}

func TestCompareAgainstScipy(t *testing.T) {
	higher := formulaTable("m", true, 69, 8, formulaValue, formulaOK)
	lower := formulaTable("m-lower", false, 69, 8, formulaValue, formulaOK)
	res, err := CompareAll([]Table{higher, lower}, Options{Seed: 1, Resamples: 1000, BayesSamples: 2000})
	if err != nil {
		t.Fatal(err)
	}
	checkPairs(t, "higher", res.Pairs[:28], formulaPairs, false)
	// The direction turns wins into losses and the ranks around; the two-sided test and the
	// raw median difference stay.
	checkPairs(t, "lower", res.Pairs[28:], formulaPairs, true)
	for i := range 28 {
		h, l := res.Pairs[i], res.Pairs[28+i]
		if h.PABetter != l.PBBetter && math.Abs(h.PABetter-l.PBBetter) > 0.05 {
			t.Errorf("pair %d: P(A better) %v higher-better, P(B better) %v lower-better", i, h.PABetter, l.PBBetter)
		}
	}
	// Ranks: scipy's rankdata on the 49 complete problems (see TestFriedmanAgainstScipy) and,
	// lower being better, the mean ranks k+1−r.
	want := []float64{5.224489795918367, 4.571428571428571, 4.591836734693878, 4.775510204081633,
		4.142857142857143, 4.163265306122449, 4.346938775510204, 4.183673469387755}
	wantLower := []float64{3.7755102040816326, 4.428571428571429, 4.408163265306122, 4.224489795918367,
		4.857142857142857, 4.836734693877551, 4.653061224489796, 4.816326530612245}
	if len(res.Ranks) != 16 {
		t.Fatalf("%d rank rows, want 16", len(res.Ranks))
	}
	for a := range 8 {
		for i, w := range [][]float64{want, wantLower} {
			r := res.Ranks[8*i+a]
			if r.Algorithm != fmt.Sprintf("a%d", a) || r.Datasets != 49 || !near(r.MeanRank, w[a], 1e-12) ||
				!near(r.FriedmanStatistic, 7.993197278911566, 1e-12) || !near(r.FriedmanP, 0.33319414322189234, 1e-12) {
				t.Errorf("rank row %+v, want algorithm a%d over 49 data sets, mean rank %v, Friedman 7.993197278911566, p 0.33319414322189234", r, a, w[a])
			}
		}
	}
	if !slices.ContainsFunc(res.Notes, func(s string) bool {
		return strings.Contains(s, "m: ranks and Friedman over the 49 of 69 data sets every algorithm completed; 20 with a failed or missing cell left out")
	}) {
		t.Errorf("no note on the 20 incomplete data sets: %q", res.Notes)
	}
}

func TestCompareTiesAndGuards(t *testing.T) {
	tb := formulaTable("nca", true, 40, 5, tiesValue, tiesOK)
	// Drop one cell altogether: missing (no cell) counts like failed.
	tb.Cells = slices.DeleteFunc(tb.Cells, func(c Cell) bool { return c.Problem == "p39" && c.Algorithm == "a4" })
	res, err := Compare(tb, Options{Seed: 3, Resamples: 1000, BayesSamples: 2000})
	if err != nil {
		t.Fatal(err)
	}
	checkPairs(t, "ties", res.Pairs, tiesPairs, false)
	for _, note := range []string{
		"nca: a0 vs a4: 4 paired data sets (fewer than 6): not tested",
		"nca: a4: 34 of 40 data sets failed, 1 missing (left out of its pairs, never imputed)",
		"nca: 4 complete data sets (fewer than 6): Friedman not tested",
	} {
		if !slices.Contains(res.Notes, note) {
			t.Errorf("no note %q in %q", note, res.Notes)
		}
	}
	// Mean ranks over the 4 complete problems (scipy rankdata), but no Friedman test.
	want := []float64{3.25, 4.25, 2.875, 2.375, 2.25}
	for a, r := range res.Ranks {
		if r.Datasets != 4 || !near(r.MeanRank, want[a], 1e-12) || !math.IsNaN(r.FriedmanStatistic) || !math.IsNaN(r.FriedmanP) {
			t.Errorf("rank row %+v, want 4 data sets, mean rank %v, no Friedman", r, want[a])
		}
	}
}

// TestCompareBayesian checks the pairs' Bayesian columns, drawn from weights shared by the
// pairs of a table, against BayesianSignedRank on each pair's own differences (itself checked
// against the transcription of baycomp): 50 000 samples each, standard error of a difference
// at most 0.0032, tolerance 0.02.
func TestCompareBayesian(t *testing.T) {
	tb := formulaTable("nca", true, 40, 5, tiesValue, tiesOK)
	tb.Metric.ROPE = 0.05
	res, err := Compare(tb, Options{Seed: 5, Resamples: 100})
	if err != nil {
		t.Fatal(err)
	}
	g := valueGrid(40, 5, tiesValue, tiesOK)
	for _, pr := range res.Pairs {
		if pr.Datasets < MinDatasets {
			continue
		}
		var a, b int
		fmt.Sscanf(pr.A+" "+pr.B, "a%d a%d", &a, &b)
		var d []float64
		for _, row := range g {
			if !math.IsNaN(row[a]) && !math.IsNaN(row[b]) {
				d = append(d, row[a]-row[b])
			}
		}
		want, err := BayesianSignedRank(d, 0.05, DefaultBayesSamples, DefaultPrior, rand.New(rand.NewPCG(8, 8)))
		if err != nil {
			t.Fatal(err)
		}
		if math.Abs(pr.PABetter-want.Positive) > 0.02 || math.Abs(pr.PEquivalent-want.Equivalent) > 0.02 ||
			math.Abs(pr.PBBetter-want.Negative) > 0.02 {
			t.Errorf("%s vs %s: (%v, %v, %v), alone %+v", pr.A, pr.B, pr.PABetter, pr.PEquivalent, pr.PBBetter, want)
		}
	}
}

// TestCompareDeterministic checks that the Monte-Carlo columns depend on the seed and on the
// pair alone: not on GOMAXPROCS, not on the other tables compared.
func TestCompareDeterministic(t *testing.T) {
	opt := Options{Seed: 42, Resamples: 500, BayesSamples: 1000}
	a := formulaTable("a", true, 30, 4, formulaValue, formulaOK)
	b := formulaTable("b", false, 30, 4, tiesValue, tiesOK)
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	runtime.GOMAXPROCS(1)
	one, err := CompareAll([]Table{a, b}, opt)
	if err != nil {
		t.Fatal(err)
	}
	runtime.GOMAXPROCS(8)
	many, err := CompareAll([]Table{a, b}, opt)
	if err != nil {
		t.Fatal(err)
	}
	alone, err := Compare(b, opt)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.EqualFunc(one.Pairs, many.Pairs, samePair) {
		t.Error("GOMAXPROCS 1 and 8 give different pairs")
	}
	if !slices.EqualFunc(one.Pairs[6:], alone.Pairs, samePair) {
		t.Error("table b compared alone gives other pairs than beside table a")
	}
	opt.Seed = 43
	other, err := CompareAll([]Table{a, b}, opt)
	if err != nil {
		t.Fatal(err)
	}
	if slices.EqualFunc(one.Pairs, other.Pairs, samePair) {
		t.Error("seeds 42 and 43 give the same pairs")
	}
}

func samePair(x, y Pair) bool {
	return fmt.Sprintf("%+v", x) == fmt.Sprintf("%+v", y) // NaN-aware
}

func TestCompareErrors(t *testing.T) {
	ok := formulaTable("m", true, 8, 3, formulaValue, func(int, int) bool { return true })
	for _, c := range []struct {
		name  string
		edit  func(*Table)
		opt   Options
		wants string
	}{
		{"no name", func(t *Table) { t.Metric.Name = "" }, Options{}, "without a metric name"},
		{"negative rope", func(t *Table) { t.Metric.ROPE = -0.1 }, Options{}, "rope -0.1"},
		{"one algorithm", func(t *Table) { t.Algorithms = t.Algorithms[:1]; t.Cells = t.Cells[:0] }, Options{}, "1 algorithms"},
		{"duplicate algorithm", func(t *Table) { t.Algorithms = append(t.Algorithms, "a0") }, Options{}, `algorithm "a0" listed twice`},
		{"unlisted problem", func(t *Table) { t.Cells = append(t.Cells, Cell{Problem: "zz", Algorithm: "a0", OK: true}) }, Options{}, `unlisted problem "zz"`},
		{"unlisted algorithm", func(t *Table) { t.Cells = append(t.Cells, Cell{Problem: "p00", Algorithm: "zz", OK: true}) }, Options{}, `unlisted algorithm "zz"`},
		{"two cells", func(t *Table) { t.Cells = append(t.Cells, t.Cells[0]) }, Options{}, "two cells for a0 on p00"},
		{"OK NaN", func(t *Table) { t.Cells[0].Value = math.NaN() }, Options{}, "a0 on p00 is marked OK with value NaN"},
		{"negative resamples", func(*Table) {}, Options{Resamples: -1}, "must be ≥ 0"},
	} {
		tb := ok
		tb.Algorithms = slices.Clone(ok.Algorithms)
		tb.Cells = slices.Clone(ok.Cells)
		c.edit(&tb)
		_, err := Compare(tb, c.opt)
		if err == nil || !strings.Contains(err.Error(), c.wants) {
			t.Errorf("%s: error %v, want one containing %q", c.name, err, c.wants)
		}
	}
	if _, err := CompareAll([]Table{ok, ok}, Options{}); err == nil || !strings.Contains(err.Error(), `metric "m" has two tables`) {
		t.Errorf("two tables of one metric: error %v", err)
	}
}

// TestCompareDerivedNames checks that nil Algorithms and Problems take the cells' names, sorted.
func TestCompareDerivedNames(t *testing.T) {
	tb := formulaTable("m", true, 7, 3, formulaValue, func(int, int) bool { return true })
	slices.Reverse(tb.Cells)
	tb.Algorithms, tb.Problems = nil, nil
	res, err := Compare(tb, Options{Resamples: 10, BayesSamples: 10})
	if err != nil {
		t.Fatal(err)
	}
	if got := []string{res.Pairs[0].A, res.Pairs[0].B, res.Pairs[2].A, res.Pairs[2].B}; !slices.Equal(got, []string{"a0", "a1", "a1", "a2"}) || res.Pairs[0].Datasets != 7 {
		t.Errorf("derived pairs %v over %d data sets, want a0 a1 … a1 a2 over 7", got, res.Pairs[0].Datasets)
	}
}
