package reports

import (
	"fmt"
	"math"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/hcbench/hcbench/experiments/metric"
	"github.com/hcbench/hcbench/experiments/results"
	"github.com/hcbench/hcbench/reports/significance"
)

// comparisonRecord is a successful record of algorithm alg on item item of data set cb with the
// metrics nca and ari.
func comparisonRecord(alg, name, item string, nca, ari float64) results.Record {
	r := results.Record{Schema: results.RecordSchema, Dataset: "cb", Item: item, Algorithm: alg, AlgorithmName: name, Seconds: 0.01}
	setMetrics(&r, metric.NCA, nca, metric.ARI, ari)
	return r
}

// comparisonAlgs are the algorithms of comparisonInput, in config order.
var comparisonAlgs = []string{"single", "average", "complete", "ward"}

// comparisonInput is a run of the 4 comparisonAlgs (and the truth tree) on problems items of
// one data set: ward failed on p03 and complete has no record of p07. Its values are those of
// comparisonValue; the records name the suite, a data set left out and the preprocessing in
// data_params, as the clustbench source does.
func comparisonInput(problems int) Input {
	in := Input{Experiment: "cmp", Datasets: []string{"cb"}, Algorithms: append([]string{"truth"}, comparisonAlgs...)}
	params := map[string]any{"suite": "ClustBench v1.1.0", "left_out": []any{"sipu/worms_64 (its data file is absent)"}, "preprocess": "original"}
	for p := range problems {
		item := fmt.Sprintf("p%02d", p)
		truth := comparisonRecord("truth", "truth", item, 1, 1)
		truth.DataParams = params
		in.Records = append(in.Records, truth)
		for a, alg := range comparisonAlgs {
			switch {
			case alg == "complete" && p == 7:
				continue
			case alg == "ward" && p == 3:
				r := results.Record{Schema: results.RecordSchema, Dataset: "cb", Item: item, Algorithm: alg, AlgorithmName: "linkage", Error: "out of memory", DataParams: params}
				in.Records = append(in.Records, r)
				continue
			}
			r := comparisonRecord(alg, "linkage", item, comparisonValue(a, p, 0), comparisonValue(a, p, 1))
			r.DataParams = params
			in.Records = append(in.Records, r)
		}
	}
	return in
}

// comparisonValue is algorithm a's value of metric m (0 nca, 1 ari) on problem p: scattered
// in [0, 1), with algorithm 0 and 1 equal on every third problem (ties).
func comparisonValue(a, p, m int) float64 {
	if a == 1 && p%3 == 0 {
		a = 0
	}
	return math.Mod(float64(a*37+p*53+m*11)*0.618034, 1)
}

// fastComparison are options that keep the Monte-Carlo parts quick.
func fastComparison() *ComparisonOptions {
	o := NewComparisonOptions()
	o.Metrics = MetricKeys{metric.NCA, metric.ARI}
	o.Resamples, o.BayesSamples = 200, 2000
	return o
}

// TestComparisonFiles builds the comparison of comparisonInput(10) and checks its CSV files:
// the columns in its order; a row per metric and pair, and per metric and algorithm
// (the truth tree in none); wins + ties + losses = datasets; the failed and the missing cell
// counted, not imputed (a pair with ward or complete is over 9 data sets, complete–ward over 8,
// the ranks over the 8 complete ones); and every value what significance.CompareAll gives on
// the table built here from the same values, byte for byte.
func TestComparisonFiles(t *testing.T) {
	dir := t.TempDir()
	o := fastComparison()
	in := comparisonInput(10)
	if _, err := BuildComparison(in, o, dir); err != nil {
		t.Fatal(err)
	}
	pairs := readCSV(t, filepath.Join(dir, ComparisonDir, "pairs.csv"))
	ranks := readCSV(t, filepath.Join(dir, ComparisonDir, "ranks.csv"))
	wantPairs := []string{"metric", "algorithm_a", "algorithm_b", "datasets", "wins", "ties", "losses", "wilcoxon_statistic", "p_value", "p_holm", "median_difference", "ci_low", "ci_high", "p_a_better", "p_equivalent", "p_b_better"}
	wantRanks := []string{"metric", "algorithm", "datasets", "mean_rank", "friedman_statistic", "friedman_p"}
	if !slices.Equal(pairs[0], wantPairs) || !slices.Equal(ranks[0], wantRanks) {
		t.Fatalf("headers\n%q\n%q\nwant the issue's\n%q\n%q", pairs[0], ranks[0], wantPairs, wantRanks)
	}
	if len(pairs)-1 != 2*6 || len(ranks)-1 != 2*4 {
		t.Fatalf("%d pair rows, %d rank rows; want 2 metrics × 6 pairs, 2 metrics × 4 algorithms", len(pairs)-1, len(ranks)-1)
	}
	for _, row := range pairs[1:] {
		n := make([]int, 4)
		for i := range n {
			n[i], _ = strconv.Atoi(row[3+i])
		}
		want := 10
		switch {
		case row[1] == "complete" && row[2] == "ward":
			want = 8
		case row[1] == "complete" || row[2] == "complete" || row[1] == "ward" || row[2] == "ward":
			want = 9
		}
		if n[0] != want || n[1]+n[2]+n[3] != n[0] {
			t.Errorf("%v: datasets %d (want %d), wins+ties+losses %d", row[:7], n[0], want, n[1]+n[2]+n[3])
		}
		if row[1] == "single" && row[2] == "average" && n[2] != 4 {
			t.Errorf("single–average: %d ties, want the 4 planted", n[2])
		}
		if row[8] == "" || row[9] == "" {
			t.Errorf("%v: untested over %d data sets", row[:4], n[0])
		}
	}
	for _, row := range ranks[1:] {
		if row[1] == "truth" || row[2] != "8" {
			t.Errorf("rank row %v: want no truth and the 8 complete data sets", row)
		}
	}

	// The same table, built here from the values and the two holes.
	var tables []significance.Table
	for m, key := range []string{metric.NCA, metric.ARI} {
		tb := significance.Table{Metric: significance.Metric{Name: key, HigherBetter: true, ROPE: 0.01}, Algorithms: comparisonAlgs}
		for p := range 10 {
			item := fmt.Sprintf("p%02d", p)
			tb.Problems = append(tb.Problems, item)
			for a, alg := range comparisonAlgs {
				switch {
				case alg == "complete" && p == 7:
				case alg == "ward" && p == 3:
					tb.Cells = append(tb.Cells, significance.Cell{Problem: item, Algorithm: alg, Value: math.NaN()})
				default:
					tb.Cells = append(tb.Cells, significance.Cell{Problem: item, Algorithm: alg, Value: comparisonValue(a, p, m), OK: true})
				}
			}
		}
		tables = append(tables, tb)
	}
	res, err := significance.CompareAll(tables, significance.Options{Seed: o.Seed, Resamples: o.Resamples, BayesSamples: o.BayesSamples})
	if err != nil {
		t.Fatal(err)
	}
	want := t.TempDir()
	if err := significance.WriteFiles(want, res); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"pairs.csv", "ranks.csv"} {
		if got, want := mustReadFile(t, filepath.Join(dir, ComparisonDir, f)), mustReadFile(t, filepath.Join(want, f)); got != want {
			t.Errorf("%s differs from significance.CompareAll's:\n%s\nwant\n%s", f, got, want)
		}
	}
	md := mustReadFile(t, filepath.Join(dir, ComparisonReport+".md"))
	for _, s := range []string{"ward: 1 of 10 data sets failed, 0 missing", "complete: 0 of 10 data sets failed, 1 missing", "![Critical-difference diagram", "(comparison-nca-cd.svg)", "\n## nca\n", "\n## ari\n"} {
		if !strings.Contains(md, s) {
			t.Errorf("comparison.md lacks %q", s)
		}
	}
}

// TestComparisonRanksByHand: on 6 problems where single is always best, average second and
// complete third but for one problem on which average and complete tie, the mean ranks are
// 1, (5·2 + 2.5)/6 and (5·3 + 2.5)/6, computed here by hand; average beats complete 5 times
// and ties once. A lower-is-better metric (dasgupta_cost) turns the ranks over.
func TestComparisonRanksByHand(t *testing.T) {
	for _, c := range []struct {
		key  string
		want []float64
	}{
		{metric.NCA, []float64{1, 12.5 / 6, 17.5 / 6}},
		{metric.DasguptaCost, []float64{3, 11.5 / 6, 6.5 / 6}},
	} {
		in := Input{Experiment: "hand", Datasets: []string{"cb"}, Algorithms: []string{"single", "average", "complete"}}
		for p := range 6 {
			vals := []float64{0.9, 0.6, 0.3}
			if p == 2 {
				vals[2] = vals[1]
			}
			for a, alg := range in.Algorithms {
				r := results.Record{Schema: results.RecordSchema, Dataset: "cb", Item: fmt.Sprint("p", p), Algorithm: alg, AlgorithmName: "linkage", Seconds: 1}
				setMetrics(&r, c.key, vals[a]-0.01*float64(p))
				in.Records = append(in.Records, r)
			}
		}
		o := fastComparison()
		o.Metrics = MetricKeys{c.key}
		dir := t.TempDir()
		if _, err := BuildComparison(in, o, dir); err != nil {
			t.Fatal(err)
		}
		ranks := readCSV(t, filepath.Join(dir, ComparisonDir, "ranks.csv"))
		if len(ranks) != 4 {
			t.Fatalf("%s: ranks.csv %q", c.key, ranks)
		}
		for i, row := range ranks[1:] {
			got, err := strconv.ParseFloat(row[3], 64)
			if row[1] != in.Algorithms[i] || row[2] != "6" || err != nil || math.Abs(got-c.want[i]) > 1e-12 {
				t.Errorf("%s: rank row %q, want %s over 6 data sets at %.6f", c.key, row, in.Algorithms[i], c.want[i])
			}
		}
		for _, row := range readCSV(t, filepath.Join(dir, ComparisonDir, "pairs.csv"))[1:] {
			if row[1] == "average" && row[2] == "complete" && strings.Join(row[4:7], "/") != map[bool]string{true: "5/1/0", false: "0/1/5"}[c.key == metric.NCA] {
				t.Errorf("%s: average–complete wins/ties/losses %s", c.key, strings.Join(row[4:7], "/"))
			}
		}
	}
}

// TestComparisonDeterministic: two builds with one seed write the same bytes; another seed
// changes the Monte-Carlo columns only.
func TestComparisonDeterministic(t *testing.T) {
	in := comparisonInput(10)
	var dirs []string
	for _, seed := range []uint64{3, 3, 4} {
		o := fastComparison()
		o.Seed = seed
		dir := t.TempDir()
		if _, err := BuildComparison(in, o, dir); err != nil {
			t.Fatal(err)
		}
		dirs = append(dirs, dir)
	}
	for _, f := range []string{"comparison/pairs.csv", "comparison/ranks.csv", "comparison.md"} {
		if a, b := mustReadFile(t, filepath.Join(dirs[0], f)), mustReadFile(t, filepath.Join(dirs[1], f)); a != b {
			t.Errorf("%s differs between two builds with seed 3", f)
		}
	}
	if a, b := mustReadFile(t, filepath.Join(dirs[0], "comparison/pairs.csv")), mustReadFile(t, filepath.Join(dirs[2], "comparison/pairs.csv")); a == b {
		t.Error("seeds 3 and 4 give the same pairs.csv: the seed is not used")
	}
}

// TestComparisonFewProblems: over 5 problems no pair is tested (empty p-value cells) nor the
// Friedman test, and comparison.md says why.
func TestComparisonFewProblems(t *testing.T) {
	dir := t.TempDir()
	if _, err := BuildComparison(comparisonInput(5), fastComparison(), dir); err != nil {
		t.Fatal(err)
	}
	for _, row := range readCSV(t, filepath.Join(dir, ComparisonDir, "pairs.csv"))[1:] {
		if row[7] != "" || row[8] != "" || row[9] != "" || row[13] != "" || row[10] == "" {
			t.Errorf("pair %v over %s data sets: statistic %q, p %q, p_holm %q, P(A better) %q, median %q; want untested, the median given", row[:3], row[3], row[7], row[8], row[9], row[13], row[10])
		}
	}
	for _, row := range readCSV(t, filepath.Join(dir, ComparisonDir, "ranks.csv"))[1:] {
		if row[4] != "" || row[5] != "" || row[3] == "" {
			t.Errorf("rank row %v: want a mean rank and no Friedman test", row)
		}
	}
	md := mustReadFile(t, filepath.Join(dir, ComparisonReport+".md"))
	for _, s := range []string{"nca: single vs average: 5 paired data sets (fewer than 6): not tested", "(fewer than 6): Friedman not tested"} {
		if !strings.Contains(md, s) {
			t.Errorf("comparison.md lacks %q:\n%s", s, md)
		}
	}
}

// TestComparisonMethods: the methods paragraph names the suite and its version, the data sets
// used and left out, the preprocessing, the metrics with their ROPE, the tests and their
// correction, and the seed; the truth tree is not among the algorithms compared.
func TestComparisonMethods(t *testing.T) {
	dir := t.TempDir()
	o := fastComparison()
	o.Seed = 7
	o.ROPE = ROPEs{metric.ARI: 0.02}
	if _, err := BuildComparison(comparisonInput(10), o, dir); err != nil {
		t.Fatal(err)
	}
	md := mustReadFile(t, filepath.Join(dir, ComparisonReport+".md"))
	_, rest, _ := strings.Cut(md, "\n\n")
	para, _, _ := strings.Cut(rest, "\n")
	for _, s := range []string{
		"We compared 4 algorithms (single, average, complete, ward) on 10 data sets of ClustBench v1.1.0.",
		"Left out: sipu/worms_64 (its data file is absent).",
		"columns of zero variance dropped",
		"Metrics: NCA (ROPE ±0.01), ARI (ROPE ±0.02)",
		"Friedman test", "Wilcoxon signed-rank test with Holm's correction", "percentile bootstrap interval (200 resamples)",
		"Bayesian signed-rank test", "2000 posterior samples", "Seed 7.",
	} {
		if !strings.Contains(para, s) {
			t.Errorf("the methods paragraph lacks %q:\n%s", s, para)
		}
	}
	if strings.Contains(para, "truth") {
		t.Errorf("the methods paragraph names the truth tree:\n%s", para)
	}
}

// TestComparisonOptions: the options refuse a negative ROPE, an unknown metric (suggesting
// the key meant), a scatter of one algorithm, a width other than column or page; with width
// page the figures are 7 in wide (504 pt), with column 3.5 in; scatter picks its two algorithms.
func TestComparisonOptions(t *testing.T) {
	for _, c := range []struct {
		metrics, rope, want string
	}{
		{"nca,nac", "", `-metrics: unknown metric "nac" (did you mean "nca"?)`},
		{"", "nca=-0.1", `-rope: nca: want a non-negative number, got "-0.1"`},
		{"", "nca", `-rope: want METRIC=HALF_WIDTH, got "nca"`},
		{"", "ari=NaN", `-rope: ari: want a non-negative number`},
	} {
		if err := NewComparisonOptions().SetFlags(c.metrics, c.rope); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("SetFlags(%q, %q): %v, want %q", c.metrics, c.rope, err, c.want)
		}
	}
	for _, c := range []struct {
		set  func(*ComparisonOptions)
		want string
	}{
		{func(o *ComparisonOptions) { o.Scatter = []string{"ward"} }, "scatter names two different algorithms"},
		{func(o *ComparisonOptions) { o.Scatter = []string{"ward", "ward"} }, "scatter names two different algorithms"},
		{func(o *ComparisonOptions) { o.Width = "wide" }, `width must be column or page, got "wide"`},
		{func(o *ComparisonOptions) { o.Resamples = 10 }, "resamples must be 100 to 1000000"},
	} {
		o := fastComparison()
		c.set(o)
		if _, err := BuildComparison(comparisonInput(10), o, t.TempDir()); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("BuildComparison: %v, want %q", err, c.want)
		}
	}
	for width, pt := range map[string]float64{"column": 252, "page": 504} {
		o := fastComparison()
		o.Width, o.Scatter = width, []string{"ward", "single"}
		dir := t.TempDir()
		if _, err := BuildComparison(comparisonInput(10), o, dir); err != nil {
			t.Fatal(err)
		}
		for _, f := range []string{"comparison-nca-cd", "comparison-nca-distribution", "comparison-ari-profile", "comparison-nca-scatter", "comparison-time-profile"} {
			if w, _ := svgSize(t, filepath.Join(dir, f+".svg")); math.Abs(w-pt) > 0.01 {
				t.Errorf("width %s: %s.svg is %g pt wide, want %g", width, f, w, pt)
			}
		}
		if md := (mustReadFile(t, filepath.Join(dir, ComparisonReport+".md"))); !strings.Contains(md, "![NCA of single (y) against ward (x), a point per data set on the 9 data sets") {
			t.Errorf("width %s: comparison.md has no scatter of single against ward:\n%s", width, md)
		}
	}
}
