package reports

import (
	"cmp"
	"errors"
	"fmt"
	"io"
	"maps"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"
	"gonum.org/v1/plot/vg"

	"github.com/hcbench/hcbench/experiments/metric"
	"github.com/hcbench/hcbench/experiments/results"
	"github.com/hcbench/hcbench/internal/english"
	"github.com/hcbench/hcbench/reports/significance"
	"github.com/hcbench/hcbench/reports/table"
)

func init() {
	Register(Report{
		Name: ComparisonReport,
		Help: "compares the algorithms across data sets as a methods paper must: per metric, mean ranks and the Friedman test, and for every pair wins/ties/losses, the Wilcoxon signed-rank test with Holm's correction, the median difference with a bootstrap interval and the Bayesian signed-rank test with a region of practical equivalence (comparison/pairs.csv, comparison/ranks.csv); a critical-difference diagram, box plots, performance profiles and a scatter of two algorithms, as PDF, SVG and PNG",
		Build: func(in Input, dir string) ([]string, error) {
			return BuildComparison(in, optionsOf[ComparisonOptions](in, ComparisonReport), dir)
		},
		Plots:          []string{"comparison-"},
		NewOptions:     func() any { return NewComparisonOptions() },
		AcrossDatasets: true,
	})
}

// ComparisonReport is the name of the comparison report, which the page opens on when a run
// has it (the verdict of a comparison of methods).
const ComparisonReport = "comparison"

// ComparisonOptions are the options of the comparison report (a config's reports entry) and of
// hcbench compare -across.
type ComparisonOptions struct {
	Metrics      MetricKeys `yaml:"metrics" default:"[]" help:"the metrics compared, keys of the metric table (hcbench help metrics); default: every metric that compare tracks, has a direction and that the records hold"`
	ROPE         ROPEs      `yaml:"rope" default:"{}" help:"the region of practical equivalence of the Bayesian signed-rank test, per metric, a mapping {METRIC: HALF_WIDTH} in the metric's unit: differences within ±HALF_WIDTH count as equivalent; a metric not named gets 0.01 if its best value is 1 (a purity, NCA, ARI: one percentage point), else 0"`
	Seed         uint64     `yaml:"seed" default:"1" help:"seeds the bootstrap intervals and the Bayesian test (the same seed gives the same numbers, whatever the number of workers)"`
	Resamples    int        `yaml:"resamples" default:"10000" help:"bootstrap resamples of each interval of a median difference (percentile method), 100 to 1000000"`
	BayesSamples int        `yaml:"bayes_samples" default:"50000" help:"Monte-Carlo samples of the posterior of the Bayesian signed-rank test, 1000 to 10000000"`
	Scatter      []string   `yaml:"scatter" default:"[]" help:"the two algorithms (labels) of the scatter plots, x then y; default: the two of best mean rank on each metric"`
	Width        string     `yaml:"width" default:"column" help:"the figures' width: column (3.5 in, one column of a two-column journal) or page (7 in)"`
}

// NewComparisonOptions returns the options set to their defaults.
func NewComparisonOptions() *ComparisonOptions {
	return &ComparisonOptions{Seed: 1, Resamples: significance.DefaultResamples, BayesSamples: significance.DefaultBayesSamples, Width: "column"}
}

// MetricKeys are keys of the metric table, checked as the config is decoded.
type MetricKeys []string

// DecodeYAML reads a list of metric keys, refusing a key the table does not have.
func (k *MetricKeys) DecodeYAML(n *yaml.Node) error {
	if n.Kind != yaml.SequenceNode {
		return errors.New("want a list of metric keys")
	}
	var out MetricKeys
	for _, e := range n.Content {
		if e.Kind != yaml.ScalarNode {
			return errors.New("want a list of metric keys")
		}
		m, err := comparableMetric(e.Value)
		if err != nil {
			return err
		}
		if slices.Contains(out, m.Key) {
			return fmt.Errorf("metric %q listed twice", m.Key)
		}
		out = append(out, m.Key)
	}
	*k = out
	return nil
}

// YAMLType names the value for help.
func (*MetricKeys) YAMLType() string { return "list of metric keys" }

// comparableMetric looks up a metric by key for the comparison: one with a direction.
func comparableMetric(key string) (*metric.Metric, error) {
	m, ok := metric.Lookup(key)
	if !ok {
		return nil, fmt.Errorf("unknown metric %q%s", key, suggestion(key, metric.Keys(metric.All())))
	}
	if m.Better == metric.Neither {
		return nil, fmt.Errorf("metric %q has no better direction (%s), so no comparison ranks by it", key, m.Definition)
	}
	return m, nil
}

// suggestion is " (did you mean …?)" or " (known: …)".
func suggestion(key string, known []string) string {
	if best := english.Closest(key, known); best != "" {
		return fmt.Sprintf(" (did you mean %q?)", best)
	}
	return " (known: " + strings.Join(known, ", ") + ")"
}

// ROPEs are the regions of practical equivalence by metric key.
type ROPEs map[string]float64

// DecodeYAML reads a mapping {metric: half-width}.
func (r *ROPEs) DecodeYAML(n *yaml.Node) error {
	if n.Kind != yaml.MappingNode {
		return errors.New("want a mapping {METRIC: HALF_WIDTH}")
	}
	out := ROPEs{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		m, err := comparableMetric(k.Value)
		if err != nil {
			return err
		}
		var x float64
		if v.Kind != yaml.ScalarNode || v.Decode(&x) != nil || x < 0 || math.IsNaN(x) || math.IsInf(x, 0) {
			return fmt.Errorf("rope of %s: want a non-negative number, got %q", m.Key, v.Value)
		}
		out[m.Key] = x
	}
	*r = out
	return nil
}

// String writes the ROPEs as a YAML flow mapping, "{}" when none is set (the default's tag).
func (r ROPEs) String() string {
	var parts []string
	for _, k := range slices.Sorted(maps.Keys(r)) {
		parts = append(parts, fmt.Sprintf("%s: %g", k, r[k]))
	}
	return "{" + strings.Join(parts, ", ") + "}"
}

// YAMLType names the value for help.
func (*ROPEs) YAMLType() string { return "mapping {metric: half-width}" }

// MarshalYAML writes the mapping as it is (the resolved config).
func (r ROPEs) MarshalYAML() (any, error) { return map[string]float64(r), nil }

// Of returns the ROPE of metric m: the one set, else 0.01 for a score whose best is 1 (a purity, NCA, ARI), else 0.
func (r ROPEs) Of(m *metric.Metric) float64 {
	if v, ok := r[m.Key]; ok {
		return v
	}
	if len(m.Range) == 2 && m.Range[1] == 1 {
		return 0.01
	}
	return 0
}

// Check checks the options that DecodeYAML does not.
func (o *ComparisonOptions) Check() error {
	switch {
	case o.Resamples < 100 || o.Resamples > 1_000_000:
		return fmt.Errorf("resamples must be 100 to 1000000, got %d", o.Resamples)
	case o.BayesSamples < 1000 || o.BayesSamples > 10_000_000:
		return fmt.Errorf("bayes_samples must be 1000 to 10000000, got %d", o.BayesSamples)
	case o.Width != "column" && o.Width != "page":
		return fmt.Errorf("width must be column or page, got %q", o.Width)
	case len(o.Scatter) > 0 && (len(o.Scatter) != 2 || o.Scatter[0] == o.Scatter[1]):
		return fmt.Errorf("scatter names two different algorithms, got %v", o.Scatter)
	}
	return nil
}

// SetFlags sets the metrics and the ROPEs from compare -across's flags: "nca,ari" and
// "nca=0.02,ari=0.01" (empty: unchanged).
func (o *ComparisonOptions) SetFlags(metrics, rope string) error {
	if metrics != "" {
		o.Metrics = nil
		for _, k := range strings.Split(metrics, ",") {
			m, err := comparableMetric(strings.TrimSpace(k))
			if err != nil {
				return fmt.Errorf("-metrics: %w", err)
			}
			o.Metrics = append(o.Metrics, m.Key)
		}
	}
	if rope != "" {
		o.ROPE = ROPEs{}
		for _, kv := range strings.Split(rope, ",") {
			k, v, ok := strings.Cut(kv, "=")
			if !ok {
				return fmt.Errorf("-rope: want METRIC=HALF_WIDTH, got %q", kv)
			}
			m, err := comparableMetric(strings.TrimSpace(k))
			if err != nil {
				return fmt.Errorf("-rope: %w", err)
			}
			x, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
			if err != nil || x < 0 || math.IsNaN(x) || math.IsInf(x, 0) {
				return fmt.Errorf("-rope: %s: want a non-negative number, got %q", m.Key, v)
			}
			o.ROPE[m.Key] = x
		}
	}
	return o.Check()
}

// ComparisonDir is the folder, in the reports folder (or compare -across's output), of the
// comparison's CSV files: comparison/pairs.csv and comparison/ranks.csv.
const ComparisonDir = "comparison"

// comparisonTable is what the report compares on one metric: each algorithm's value on each
// problem (NaN where it failed or has none), and the cells for the statistics.
type comparisonTable struct {
	metric *metric.Metric
	values [][]float64 // [algorithm][problem]
	table  significance.Table
}

// BuildComparison writes the comparison of in's algorithms across its problems into dir:
// comparison.md, comparison/pairs.csv and comparison/ranks.csv, and the figures
// comparison-METRIC-{cd,distribution,profile,scatter} and comparison-time-profile. A problem
// is an item of a data set (a ClustBench data set is an item of the clustbench source); the
// truth tree takes no part. A failed task is a failed cell, a task that did not run (max_leaves,
// memory) a missing one: both are counted, neither imputed.
func BuildComparison(in Input, o *ComparisonOptions, dir string) ([]string, error) {
	if err := o.Check(); err != nil {
		return nil, err
	}
	algs, problems, at := comparisonGrid(in)
	if len(algs) < 2 {
		return writeComparisonNote(dir, in, fmt.Sprintf("The comparison needs two algorithms or more; the records have %d (the truth tree takes no part).", len(algs)))
	}
	metrics, err := comparisonMetrics(in, o)
	if err != nil {
		return nil, err
	}
	if len(metrics) == 0 {
		return writeComparisonNote(dir, in, "No metric to compare: no metric that compare tracks and that has a direction has a value in the records (set the report's metrics).")
	}
	run := metric.NewRun(in.Records)
	var tables []comparisonTable
	for _, m := range metrics {
		tables = append(tables, comparisonOf(m, o.ROPE.Of(m), algs, problems, at, run))
	}
	stats := make([]significance.Table, len(tables))
	for i, t := range tables {
		stats[i] = t.table
	}
	res, err := significance.CompareAll(stats, significance.Options{Seed: o.Seed, Resamples: o.Resamples, BayesSamples: o.BayesSamples})
	if err != nil {
		return nil, err
	}
	csvDir := filepath.Join(dir, ComparisonDir)
	if err := os.MkdirAll(csvDir, 0o755); err != nil {
		return nil, err
	}
	if err := significance.WriteFiles(csvDir, res); err != nil {
		return nil, err
	}
	files := []string{filepath.Join(csvDir, "pairs.csv"), filepath.Join(csvDir, "ranks.csv")}
	width := ColumnWidth
	if o.Width == "page" {
		width = PageWidth
	}
	var doc comparisonDoc
	for _, t := range tables {
		fs, err := comparisonFigures(dir, width, t, res, algs, problems, o, &doc)
		files = append(files, fs...)
		if err != nil {
			return files, err
		}
	}
	times := comparisonOf(metricTime(), 0, algs, problems, at, run)
	for _, row := range times.values {
		for p, v := range row {
			// A task faster than the clock's resolution has a time of 0, which no ratio takes:
			// it counts as 1 µs, below any time a real task is measured at.
			if v <= 0 {
				row[p] = 1e-6
			}
		}
	}
	fig, err := ProfileFigure(filepath.Join(dir, "comparison-time-profile"), width, Profile{Measure: "time", Unit: "s", Algorithms: algs, Values: times.values, Ratio: true})
	files = append(files, fig.Files...)
	if err != nil {
		return files, err
	}
	doc.timeCaption = fig.Caption
	md, err := writeComparisonMarkdown(dir, in, o, metrics, tables, res, algs, problems, &doc)
	return append(md, files...), err
}

// metricTime is the table's task time.
func metricTime() *metric.Metric {
	m, _ := metric.Lookup(metric.Time)
	return m
}

// comparisonGrid returns the algorithms compared (labels in config order, the truth tree left
// out), the problems (items, in record order; "dataset/item" when the records have several data
// sets) and the record of each (problem, algorithm).
func comparisonGrid(in Input) (algs, problems []string, at map[[2]string]*results.Record) {
	datasets := map[string]bool{}
	for _, r := range in.Records {
		datasets[r.Dataset] = true
	}
	problemOf := func(r *results.Record) string {
		if len(datasets) > 1 {
			return r.Dataset + "/" + r.Item
		}
		return r.Item
	}
	at = map[[2]string]*results.Record{}
	seenAlg, seenProblem := map[string]bool{}, map[string]bool{}
	for i := range in.Records {
		r := &in.Records[i]
		if r.HasRole(results.Truth) {
			continue
		}
		p := problemOf(r)
		at[[2]string{p, r.Algorithm}] = r
		if !seenProblem[p] {
			seenProblem[p] = true
			problems = append(problems, p)
		}
		seenAlg[r.Algorithm] = true
	}
	for _, a := range in.Algorithms {
		if seenAlg[a] {
			algs = append(algs, a)
			delete(seenAlg, a)
		}
	}
	var rest []string
	for a := range seenAlg {
		rest = append(rest, a)
	}
	slices.Sort(rest)
	return append(algs, rest...), problems, at
}

// comparisonMetrics are the metrics the options name, or by default every metric that compare
// tracks, that has a direction and a value in some successful record.
func comparisonMetrics(in Input, o *ComparisonOptions) ([]*metric.Metric, error) {
	if len(o.Metrics) > 0 {
		var out []*metric.Metric
		for _, k := range o.Metrics {
			m, err := comparableMetric(k)
			if err != nil {
				return nil, err
			}
			out = append(out, m)
		}
		return out, nil
	}
	run := metric.NewRun(in.Records)
	var out []*metric.Metric
	for _, m := range metric.Tracked(metric.Compare) {
		if m.Better == metric.Neither || m.Key == metric.Time {
			continue
		}
		for i := range in.Records {
			r := &in.Records[i]
			if _, ok := m.Of(r, run); ok && r.Error == "" && !r.HasRole(results.Truth) {
				out = append(out, m)
				break
			}
		}
	}
	return out, nil
}

// comparisonOf collects metric m's cells: a successful record's value, a failed record's failure;
// a successful record without a value, or no record, is missing.
func comparisonOf(m *metric.Metric, rope float64, algs, problems []string, at map[[2]string]*results.Record, run *metric.Run) comparisonTable {
	t := comparisonTable{metric: m, table: significance.Table{
		Metric:     significance.Metric{Name: m.Key, HigherBetter: m.Better == metric.HigherIsBetter, ROPE: rope},
		Algorithms: algs, Problems: problems,
	}}
	t.values = make([][]float64, len(algs))
	for a, alg := range algs {
		t.values[a] = make([]float64, len(problems))
		for p, prob := range problems {
			t.values[a][p] = math.NaN()
			r := at[[2]string{prob, alg}]
			switch {
			case r == nil:
			case r.Error != "":
				t.table.Cells = append(t.table.Cells, significance.Cell{Problem: prob, Algorithm: alg, Value: math.NaN()})
			default:
				if v, ok := m.Of(r, run); ok {
					t.values[a][p] = v
					t.table.Cells = append(t.table.Cells, significance.Cell{Problem: prob, Algorithm: alg, Value: v, OK: true})
				}
			}
		}
	}
	return t
}

// comparisonDoc gathers the captions of the figures for comparison.md.
type comparisonDoc struct {
	captions    map[string][]figureCaption // by metric key
	timeCaption string
}

// figureCaption is a figure's file (its SVG, for the Markdown) and caption.
type figureCaption struct{ file, caption string }

// comparisonFigures draws metric t's figures.
func comparisonFigures(dir string, width vg.Length, t comparisonTable, res significance.Result, algs, problems []string, o *ComparisonOptions, doc *comparisonDoc) ([]string, error) {
	if doc.captions == nil {
		doc.captions = map[string][]figureCaption{}
	}
	m := t.metric
	name := metricName(m)
	base := func(kind string) string { return filepath.Join(dir, "comparison-"+FileName(m.Key)+"-"+kind) }
	add := func(f Figure, err error, files *[]string) error {
		*files = append(*files, f.Files...)
		if err == nil && len(f.Files) > 0 {
			svg := slices.IndexFunc(f.Files, func(p string) bool { return strings.HasSuffix(p, ".svg") })
			doc.captions[m.Key] = append(doc.captions[m.Key], figureCaption{file: filepath.Base(f.Files[max(svg, 0)]), caption: f.Caption})
		}
		return err
	}
	var files []string
	higher := m.Better == metric.HigherIsBetter
	if cd, err := significance.CriticalDifference(res, m.Key, significance.Alpha); err == nil && len(cd.Algorithms) > 1 {
		var groups [][]int
		for _, b := range cd.Bars {
			var g []int
			for i := b[0]; i <= b[1]; i++ {
				g = append(g, i)
			}
			groups = append(groups, g)
		}
		f, err := CriticalDifferenceFigure(base("cd"), width, CriticalDifference{Metric: name, Algorithms: cd.Algorithms, MeanRanks: cd.MeanRanks, Groups: groups, Datasets: completeProblems(res, m.Key), Alpha: significance.Alpha})
		if err := add(f, err, &files); err != nil {
			return files, err
		}
	}
	f, err := BoxPlotFigure(base("distribution"), width, BoxPlots{Metric: name, Unit: m.Unit, Algorithms: algs, Values: t.values, HigherIsBetter: higher, Points: true})
	if err := add(f, err, &files); err != nil {
		return files, err
	}
	f, err = ProfileFigure(base("profile"), width, Profile{Measure: name, Unit: m.Unit, Algorithms: algs, Values: t.values, HigherIsBetter: higher})
	if err := add(f, err, &files); err != nil {
		return files, err
	}
	x, y := scatterPair(o, res, m.Key, algs)
	if x >= 0 && y >= 0 {
		f, err = ScatterFigure(base("scatter"), width, Scatter{Metric: name, Unit: m.Unit, X: algs[x], Y: algs[y], XValues: t.values[x], YValues: t.values[y], Labels: scatterLabels(t.values[x], t.values[y], problems, 5), HigherIsBetter: higher})
		if err := add(f, err, &files); err != nil {
			return files, err
		}
	}
	return files, nil
}

// metricName names a metric in figures: its short name.
func metricName(m *metric.Metric) string { return cmp.Or(m.Short, m.Key) }

// completeProblems is the number of problems the metric's ranks are over.
func completeProblems(res significance.Result, key string) int {
	for _, r := range res.Ranks {
		if r.Metric == key {
			return r.Datasets
		}
	}
	return 0
}

// scatterPair returns the indices of the scatter's algorithms: the options', else the two of
// best mean rank (x the best); −1 when there are none.
func scatterPair(o *ComparisonOptions, res significance.Result, key string, algs []string) (x, y int) {
	if len(o.Scatter) == 2 {
		return slices.Index(algs, o.Scatter[0]), slices.Index(algs, o.Scatter[1])
	}
	var ranks []significance.Rank
	for _, r := range res.Ranks {
		if r.Metric == key && !math.IsNaN(r.MeanRank) {
			ranks = append(ranks, r)
		}
	}
	if len(ranks) < 2 {
		return -1, -1
	}
	slices.SortStableFunc(ranks, func(a, b significance.Rank) int { return cmp.Compare(a.MeanRank, b.MeanRank) })
	return slices.Index(algs, ranks[0].Algorithm), slices.Index(algs, ranks[1].Algorithm)
}

// scatterLabels labels the n points farthest from y = x with their problems' names.
func scatterLabels(xs, ys []float64, problems []string, n int) []string {
	idx := make([]int, 0, len(xs))
	for i := range xs {
		if !math.IsNaN(xs[i]) && !math.IsNaN(ys[i]) && xs[i] != ys[i] {
			idx = append(idx, i)
		}
	}
	slices.SortStableFunc(idx, func(a, b int) int { return cmp.Compare(math.Abs(ys[b]-xs[b]), math.Abs(ys[a]-xs[a])) })
	labels := make([]string, len(xs))
	for _, i := range idx[:min(n, len(idx))] {
		labels[i] = problems[i]
	}
	return labels
}

// writeComparisonNote writes comparison.md saying why there is nothing to compare.
func writeComparisonNote(dir string, in Input, note string) ([]string, error) {
	return writeMarkdown(dir, ComparisonReport, figureTitle("Comparison of the algorithms", in.Experiment, nil), nil, []string{note})
}

// writeComparisonMarkdown writes comparison.md: the methods paragraph (the page's verdict opens
// on it), then per metric its critical-difference diagram, the mean ranks and the Friedman test,
// the pairs, and the other figures.
func writeComparisonMarkdown(dir string, in Input, o *ComparisonOptions, metrics []*metric.Metric, tables []comparisonTable, res significance.Result, algs, problems []string, doc *comparisonDoc) ([]string, error) {
	path := filepath.Join(dir, ComparisonReport+".md")
	f, err := results.CreateAtomic(path)
	if err != nil {
		return nil, err
	}
	w := &strings.Builder{}
	fmt.Fprintf(w, "# %s\n\n", figureTitle("Comparison of the algorithms", in.Experiment, nil))
	fmt.Fprintf(w, "%s\n", methodsParagraph(in, o, metrics, res, algs, problems))
	for i, t := range tables {
		m := t.metric
		fmt.Fprintf(w, "\n## %s\n\n", m.Key)
		fmt.Fprintf(w, "%s (%s): %s\n\n", cmp.Or(m.Short, m.Key), m.Better.Words(), m.Definition)
		for _, c := range doc.captions[m.Key] {
			fmt.Fprintf(w, "![%s](%s)\n\n", c.caption, c.file)
		}
		rt := table.Table{Header: []string{"algorithm", "mean rank", "data sets", "median", "failed or missing"}}
		var fried string
		for _, r := range res.Ranks {
			if r.Metric != m.Key {
				continue
			}
			a := slices.Index(algs, r.Algorithm)
			rt.Rows = append(rt.Rows, []string{r.Algorithm, fixed(r.MeanRank, 2), strconv.Itoa(r.Datasets), fixed(medianOf(finiteOf(tables[i].values[a])), 3), strconv.Itoa(len(problems) - len(finiteOf(tables[i].values[a])))})
			fried = fmt.Sprintf("Friedman test over %d data sets: χ² = %s, p %s.", r.Datasets, fixed(r.FriedmanStatistic, 2), pEquals(r.FriedmanP))
		}
		slices.SortStableFunc(rt.Rows, func(a, b []string) int {
			x, _ := strconv.ParseFloat(a[1], 64)
			y, _ := strconv.ParseFloat(b[1], 64)
			return cmp.Compare(x, y)
		})
		if err := table.WriteMarkdown(w, rt); err != nil {
			f.Close()
			return nil, err
		}
		fmt.Fprintf(w, "\n%s\n\n", fried)
		pt := table.Table{Header: []string{"A", "B", "data sets", "wins/ties/losses of A", "median A − B [95% CI]", "Wilcoxon p (Holm)", "P(A better) / P(equiv.) / P(B better)"}}
		for _, p := range res.Pairs {
			if p.Metric != m.Key {
				continue
			}
			pt.Rows = append(pt.Rows, []string{p.A, p.B, strconv.Itoa(p.Datasets), fmt.Sprintf("%d/%d/%d", p.Wins, p.Ties, p.Losses),
				fmt.Sprintf("%s [%s, %s]", signed(p.MedianDifference), signed(p.CILow), signed(p.CIHigh)), pValue(p.PHolm),
				fmt.Sprintf("%s / %s / %s", fixed(p.PABetter, 2), fixed(p.PEquivalent, 2), fixed(p.PBBetter, 2))})
		}
		if err := table.WriteMarkdown(w, pt); err != nil {
			f.Close()
			return nil, err
		}
	}
	fmt.Fprintf(w, "\n## time\n\n![%s](comparison-time-profile.svg)\n", doc.timeCaption)
	if len(res.Notes) > 0 {
		fmt.Fprintln(w)
		for _, n := range res.Notes {
			fmt.Fprintf(w, "%s\n", n)
		}
	}
	if _, err := io.WriteString(f, w.String()); err != nil {
		f.Close()
		return nil, err
	}
	if err := f.Commit(); err != nil {
		return nil, err
	}
	return []string{path}, nil
}

// methodsParagraph says what was compared and how, in text a user can paste into a paper: the
// suite and its version, the data sets used and left out, the metrics, the tests and their
// corrections, the ROPE and the seeds.
func methodsParagraph(in Input, o *ComparisonOptions, metrics []*metric.Metric, res significance.Result, algs, problems []string) string {
	var b strings.Builder
	suite, leftOut := suiteOf(in.Records)
	fmt.Fprintf(&b, "We compared %d algorithms (%s) on %d data sets", len(algs), strings.Join(algs, ", "), len(problems))
	if suite != "" {
		fmt.Fprintf(&b, " of %s", suite)
	}
	b.WriteString(".")
	if prep := preprocessingOf(in.Records); prep != "" {
		fmt.Fprintf(&b, " %s", prep)
	}
	if leftOut != "" {
		fmt.Fprintf(&b, " Left out: %s.", leftOut)
	}
	var names []string
	for _, m := range metrics {
		s := cmp.Or(m.Short, m.Key)
		if r := o.ROPE.Of(m); r > 0 {
			s += fmt.Sprintf(" (ROPE ±%g)", r)
		}
		names = append(names, s)
	}
	fmt.Fprintf(&b, " Metrics: %s; a partition metric scores the tree cut at each reference partition's number of clusters, noise points ignored, and keeps the best over the reference partitions (the suite's rule).", strings.Join(names, ", "))
	fmt.Fprintf(&b, " For each metric we give the algorithms' mean ranks over the data sets that every algorithm completed and the Friedman test (Demšar 2006); for every pair of algorithms, over the data sets both completed, the wins, ties and losses, the two-sided Wilcoxon signed-rank test with Holm's correction over all pairs of the metric (Benavoli, Corani & Mangili 2016), the median difference with a 95%% percentile bootstrap interval (%d resamples), and the Bayesian signed-rank test (Benavoli et al. 2017; prior strength %g, %d posterior samples). No test is made over fewer than %d paired data sets; failed and missing runs are counted, never imputed. The critical-difference diagram joins algorithms whose Holm-corrected difference is not significant at α = %g. Seed %d.",
		o.Resamples, significance.DefaultPrior, o.BayesSamples, significance.MinDatasets, significance.Alpha, o.Seed)
	return b.String()
}

// suiteOf names the data suite of the records (their data_params' suite, as the clustbench
// source records it) and the data sets it left out, "" when none says.
func suiteOf(recs []results.Record) (suite, leftOut string) {
	for _, r := range recs {
		if s, ok := r.DataParams["suite"].(string); ok && suite == "" {
			suite = s
		}
		if l, ok := r.DataParams["left_out"].([]any); ok && leftOut == "" {
			var names []string
			for _, x := range l {
				names = append(names, fmt.Sprint(x))
			}
			leftOut = strings.Join(names, "; ")
		}
	}
	return suite, leftOut
}

// preprocessingOf says how the clustbench source prepared the points (its data_params
// preprocess and jitter), "" for other data.
func preprocessingOf(recs []results.Record) string {
	for _, r := range recs {
		p, ok := r.DataParams["preprocess"].(string)
		if !ok {
			continue
		}
		s := "The points were used as the files hold them"
		if p == "original" {
			s = "The points were prepared as the suite's published results are (columns of zero variance dropped, each column centred, all divided by the standard deviation of all entries)"
		}
		if j, ok := r.DataParams["jitter"].(float64); ok && j > 0 {
			s += fmt.Sprintf(", with white noise of %g times that standard deviation added to break ties of distances", j)
		}
		return s + "."
	}
	return ""
}

// medianOf is the median of xs, NaN when there are none.
func medianOf(xs []float64) float64 {
	if len(xs) == 0 {
		return math.NaN()
	}
	return results.Median(xs)
}

// finiteOf returns the values that are not NaN.
func finiteOf(xs []float64) []float64 {
	var out []float64
	for _, x := range xs {
		if !math.IsNaN(x) && !math.IsInf(x, 0) {
			out = append(out, x)
		}
	}
	return out
}

// fixed writes x with d decimals, "–" for NaN.
func fixed(x float64, d int) string {
	if math.IsNaN(x) {
		return "–"
	}
	return strconv.FormatFloat(x, 'f', d, 64)
}

// signed writes x with 3 significant decimals and its sign.
func signed(x float64) string {
	if math.IsNaN(x) {
		return "–"
	}
	return strconv.FormatFloat(x, 'f', 3, 64)
}

// pEquals writes "= p" or "< 0.001".
func pEquals(p float64) string {
	v := pValue(p)
	if strings.HasPrefix(v, "<") {
		return v
	}
	return "= " + v
}

// pValue writes a p-value: "< 0.001" below it, "–" when not tested.
func pValue(p float64) string {
	switch {
	case math.IsNaN(p):
		return "–"
	case p < 0.001:
		return "< 0.001"
	}
	return strconv.FormatFloat(p, 'f', 3, 64)
}
