package main

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/hcbench/hcbench/experiments/memory"
	"github.com/hcbench/hcbench/experiments/metric"
	"github.com/hcbench/hcbench/experiments/plan"
	"github.com/hcbench/hcbench/experiments/results"
)

// shippedConfigs are the configs of configs/, in the order docs/experiments.md lists them.
var shippedConfigs = []string{"quickstart", "ginkgo510", "ginkgo-large", "trellis-scaling", "pam50", "bhc-digits", "bhc-purity", "brt-evidence", "clustbench", "nightly", "external"}

// experimentRegions are the regions computed from runs of the shipped configs.
func experimentRegions() []region {
	return []region{
		{name: "configs.table", configs: shippedConfigs, machine: true, render: configsTable},
		{name: "plan.task-times", configs: shippedConfigs, machine: true, render: taskTimesTable},
		{name: "quickstart.time", configs: []string{"quickstart"}, machine: true, render: wallOf("quickstart")},
		{name: "ginkgo510.time", configs: []string{"ginkgo510"}, machine: true, render: wallOf("ginkgo510")},
		{name: "ginkgo510.table1", configs: []string{"ginkgo510"}, render: ginkgo510Table},
		{name: "ginkgo510.sem", configs: []string{"ginkgo510"}, render: ginkgo510SEM},
		{name: "ginkgo510.exact", configs: []string{"ginkgo510"}, render: ginkgo510Exact},
		{name: "ginkgo510.ranges", configs: []string{"ginkgo510"}, render: ginkgo510Ranges},
		{name: "ginkgo-large.time", configs: []string{"ginkgo-large"}, machine: true, render: wallOf("ginkgo-large")},
		{name: "ginkgo-large.gaps", configs: []string{"ginkgo-large"}, render: ginkgoLargeGaps},
		{name: "ginkgo-large.table", configs: []string{"ginkgo-large"}, render: ginkgoLargeTable},
		{name: "ginkgo-large.task-times", configs: []string{"ginkgo-large"}, machine: true, render: ginkgoLargeTaskTimes},
		{name: "pam50.time", configs: []string{"pam50"}, machine: true, render: wallOf("pam50")},
		{name: "pam50.map-trees", configs: []string{"pam50"}, render: pam50MAPTrees},
		{name: "pam50.purity-range", configs: []string{"pam50"}, render: pam50PurityRange},
		{name: "pam50.table", configs: []string{"pam50"}, render: pam50Table},
		{name: "bayesian.time", configs: []string{"bhc-digits", "bhc-purity", "brt-evidence"}, machine: true, render: bayesianTime},
		{name: "bhc-digits.table", configs: []string{"bhc-digits"}, render: bhcDigitsTable},
		{name: "bhc-purity.table", configs: []string{"bhc-purity"}, render: bhcPurityTable},
		{name: "bhc-purity.cuts", configs: []string{"bhc-purity"}, render: bhcPurityCuts},
		{name: "brt-evidence.table", configs: []string{"brt-evidence"}, render: brtEvidenceTable},
		{name: "brt-evidence.exact", configs: []string{"brt-evidence"}, render: brtEvidenceExact},
		{name: "nightly.time", configs: []string{"nightly"}, machine: true, render: wallOf("nightly")},
	}
}

// configsTable is the table of every shipped config: its tasks, what it took and what the plan
// expected, on the machine named below it. The peak is the one the run logged (its VmHWM); the
// memory estimates are meant to lie between 1 and 1.5 times it (.ci/memory checks them).
func configsTable(e *env) (string, error) {
	var rows [][]string
	for _, name := range shippedConfigs {
		r, err := e.run(name)
		if err != nil {
			return "", err
		}
		rows = append(rows, []string{
			"`" + name + ".yaml`",
			thousands(float64(r.manifest.Tasks)),
			strconv.Itoa(r.manifest.Workers),
			plan.FormatSeconds(r.wall.Seconds()),
			plan.FormatSeconds(r.cpu.Seconds()),
			memory.Format(r.peakRSS),
			plan.FormatSeconds(r.planSeconds),
			memory.Format(r.planMemory),
			fmt.Sprintf("%.2f", float64(r.planMemory)/float64(r.peakRSS)),
		})
	}
	t := markdownTable([]string{"config", "tasks", "workers", "wall time", "CPU time", "peak memory (RSS)", "plan: time", "plan: memory", "plan memory ÷ peak"}, rows)
	return t + "\n\n" + e.machine.sentence(), nil
}

// taskTimesTable compares, algorithm by algorithm over the tasks of every shipped config, the
// task times of the runs with what the plan's cost model (registry.Algorithm.Cost) gives each
// task at its item's leaf count: the sums, so that the long tasks, which make up the plan's
// expected time, weigh most, and the median ratio over the tasks expected to take 10 ms or more,
// where a task's fixed costs no longer show.
func taskTimesTable(e *env) (string, error) {
	type sums struct {
		tasks              int
		measured, expected float64
		ratios             []float64
	}
	byAlg := map[string]*sums{}
	for _, name := range shippedConfigs {
		r, err := e.run(name)
		if err != nil {
			return "", err
		}
		for i := range r.records {
			rec := &r.records[i]
			alg, want, ok := r.expectedSeconds(rec)
			if !ok {
				return "", fmt.Errorf("%s: the plan has no task %s", name, rec.Key)
			}
			s := byAlg[alg]
			if s == nil {
				s = &sums{}
				byAlg[alg] = s
			}
			s.tasks++
			s.measured += rec.Seconds
			s.expected += want
			if want >= 0.01 {
				s.ratios = append(s.ratios, rec.Seconds/want)
			}
		}
	}
	var rows [][]string
	for _, alg := range slices.Sorted(maps.Keys(byAlg)) {
		s := byAlg[alg]
		median := "–"
		if len(s.ratios) > 0 {
			slices.Sort(s.ratios)
			median = fmt.Sprintf("%.2f (%s)", s.ratios[len(s.ratios)/2], thousands(float64(len(s.ratios))))
		}
		rows = append(rows, []string{alg, thousands(float64(s.tasks)), plan.FormatSeconds(s.measured), plan.FormatSeconds(s.expected),
			fmt.Sprintf("%.2f", s.measured/s.expected), median})
	}
	t := markdownTable([]string{"algorithm", "tasks", "task time", "plan: task time", "task time ÷ plan", "median ÷ plan, tasks ≥ 10 ms (count)"}, rows)
	return t + "\n\n" + e.machine.sentence(), nil
}

// wallOf renders "about 5.1 s wall time on 2 cores" for a config's run.
func wallOf(name string) func(e *env) (string, error) {
	return func(e *env) (string, error) {
		r, err := e.run(name)
		if err != nil {
			return "", err
		}
		return fmt.Sprintf("%s wall time on %d cores", plan.FormatSeconds(r.wall.Seconds()), e.machine.cores), nil
	}
}

// bayesianTime renders how long the three Bayesian configs take, the longest of them.
func bayesianTime(e *env) (string, error) {
	var longest float64
	for _, n := range []string{"bhc-digits", "bhc-purity", "brt-evidence"} {
		r, err := e.run(n)
		if err != nil {
			return "", err
		}
		longest = max(longest, r.wall.Seconds())
	}
	return fmt.Sprintf("at most %s wall time on %d cores", plan.FormatSeconds(longest), e.machine.cores), nil
}

// paired returns, for the items where data set ds has finite log-likelihoods from both algorithm
// labels a and b, the differences a − b.
func (r *configRun) paired(ds, a, b string, field func(*results.Record) *results.LogProb) []float64 {
	byItem := map[string]float64{}
	for _, rec := range r.recordsOf(ds, b) {
		if v, ok := logProb(field(&rec)); ok && !math.IsInf(v, 0) {
			byItem[rec.Item] = v
		}
	}
	var out []float64
	for _, rec := range r.recordsOf(ds, a) {
		v, ok := logProb(field(&rec))
		w, ok2 := byItem[rec.Item]
		if ok && ok2 && !math.IsInf(v, 0) {
			out = append(out, v-w)
		}
	}
	if len(out) == 0 {
		r.missing(fmt.Sprintf("no item of %s with finite values from both %s and %s", ds, a, b))
	}
	return out
}

func logLik(r *results.Record) *results.LogProb { return r.LogLikelihood }

// The ML4PS 2020 paper's Table 1 (mean ± std over its jets).
var ginkgo510Paper = map[string]string{
	"trellis-beam":   "0.4 ± 0.5",
	"trellis-greedy": "1.5 ± 1.1",
	"beam-greedy":    "1.1 ± 1.1",
}

// ginkgo510Pairs are Table 1's rows: the two algorithms whose log-likelihoods are subtracted.
var ginkgo510Pairs = []struct{ key, label, a, b string }{
	{"trellis-beam", "Trellis − Beam Search", "trellis", "beam"},
	{"trellis-greedy", "Trellis − Greedy", "trellis", "greedy"},
	{"beam-greedy", "Beam Search − Greedy", "beam", "greedy"},
}

func ginkgo510Table(e *env) (string, error) {
	r, err := e.run("ginkgo510")
	if err != nil {
		return "", err
	}
	var rows [][]string
	for _, p := range ginkgo510Pairs {
		d := r.paired("ginkgo510", p.a, p.b, logLik)
		if len(d) == 0 {
			return "", fmt.Errorf("ginkgo510: no items with both %s and %s", p.a, p.b)
		}
		rows = append(rows, []string{p.label, ginkgo510Paper[p.key], meanStd(d, 2)})
	}
	return markdownTable([]string{"", "paper", "ours"}, rows), nil
}

func ginkgo510SEM(e *env) (string, error) {
	r, err := e.run("ginkgo510")
	if err != nil {
		return "", err
	}
	var parts []string
	for _, p := range ginkgo510Pairs {
		d := r.paired("ginkgo510", p.a, p.b, logLik)
		parts = append(parts, fmt.Sprintf("%s for %s", fixed(sampleStd(d)/math.Sqrt(float64(len(d))), 3), p.label))
	}
	return joinAnd(parts), nil
}

// reachesMAP counts the items on which alg's log-likelihood is within 1e-9 of the exact MAP's.
func (r *configRun) reachesMAP(ds, alg string) (k, n int) {
	for _, d := range r.paired(ds, alg, "trellis", logLik) {
		n++
		if math.Abs(d) <= 1e-9 { // the same tree, summed in another order
			k++
		}
	}
	return k, n
}

func ginkgo510Exact(e *env) (string, error) {
	r, err := e.run("ginkgo510")
	if err != nil {
		return "", err
	}
	kb, nb := r.reachesMAP("ginkgo510", "beam")
	kg, ng := r.reachesMAP("ginkgo510", "greedy")
	gain := r.paired("ginkgo510", "beam-structure", "beam", logLik)
	return fmt.Sprintf("Beam search reaches the exact MAP on %s of the jets, greedy on %s; our structure rule adds %s on average",
		percent(kb, nb), percent(kg, ng), fixed(mean(gain), 3)), nil
}

// byN groups a data set's finite values of field for alg by the items' leaf counts.
func (r *configRun) byN(ds, alg string, field func(*results.Record) *results.LogProb) map[int][]float64 {
	out := map[int][]float64{}
	for _, rec := range r.recordsOf(ds, alg) {
		if v, ok := logProb(field(&rec)); ok && !math.IsInf(v, 0) {
			out[rec.N] = append(out[rec.N], v)
		}
	}
	return out
}

func ginkgo510Ranges(e *env) (string, error) {
	r, err := e.run("ginkgo510")
	if err != nil {
		return "", err
	}
	z := r.byN("ginkgo510", "trellis", func(rec *results.Record) *results.LogProb { return rec.LogZ })
	m := r.byN("ginkgo510", "trellis", logLik)
	lo, hi := 5, 10
	if len(z[lo]) == 0 || len(z[hi]) == 0 {
		return "", fmt.Errorf("ginkgo510: no trellis records at N = %d or %d", lo, hi)
	}
	return fmt.Sprintf("the mean log Z runs from %s (N = %d) to %s (N = %d) and the mean MAP from %s to %s",
		fixed(mean(z[lo]), 1), lo, fixed(mean(z[hi]), 1), hi, fixed(mean(m[lo]), 1), fixed(mean(m[hi]), 1)), nil
}

// joinAnd joins phrases as prose: "a", "a and b", "a, b and c".
func joinAnd(parts []string) string {
	switch len(parts) {
	case 0:
		return ""
	case 1:
		return parts[0]
	}
	return strings.Join(parts[:len(parts)-1], ", ") + " and " + parts[len(parts)-1]
}

// leafRange is the least and greatest N of a data set's records of alg.
func (r *configRun) leafRange(ds, alg string) (lo, hi int) {
	recs := r.recordsOf(ds, alg)
	if len(recs) == 0 {
		r.missing(fmt.Sprintf("no record of %s on %s", alg, ds))
		return 0, 0
	}
	lo = math.MaxInt
	for _, rec := range recs {
		lo, hi = min(lo, rec.N), max(hi, rec.N)
	}
	return lo, hi
}

// ginkgoLargeSets are the data sets of ginkgo-large, in config order.
func ginkgoLargeSets(r *configRun) []string { return r.manifest.Datasets }

func ginkgoLargeGaps(e *env) (string, error) {
	r, err := e.run("ginkgo-large")
	if err != nil {
		return "", err
	}
	var parts []string
	for i, ds := range ginkgoLargeSets(r) {
		d := r.paired(ds, "sparse_trellis", "beam", logLik)
		lo, hi := r.leafRange(ds, "sparse_trellis")
		p := fmt.Sprintf("%s for %d to %d", fixed(mean(d), 1), lo, hi)
		if i == 0 {
			p = fmt.Sprintf("%s nats on average for N = %d to %d", fixed(mean(d), 1), lo, hi)
		}
		parts = append(parts, p)
	}
	return "the sparse trellis is above beam search by " + joinAnd(parts), nil
}

func ginkgoLargeTable(e *env) (string, error) {
	r, err := e.run("ginkgo-large")
	if err != nil {
		return "", err
	}
	var rows [][]string
	for _, ds := range ginkgoLargeSets(r) {
		recs := r.recordsOf(ds, "sparse_trellis")
		if len(recs) == 0 {
			return "", fmt.Errorf("ginkgo-large: no sparse_trellis records of %s", ds)
		}
		lo, hi := r.leafRange(ds, "sparse_trellis")
		tcut := fmt.Sprint(recs[0].DataParams["t_cut"])
		rows = append(rows, []string{ds, tcut, strconv.Itoa(len(recs)), fmt.Sprintf("%d–%d", lo, hi),
			meanStd(r.paired(ds, "sparse_trellis", "beam", logLik), 2),
			meanStd(r.paired(ds, "sparse_trellis", "greedy", logLik), 1),
			meanStd(r.paired(ds, "beam", "greedy", logLik), 1)})
	}
	return markdownTable([]string{"data set", "t_cut", "jets", "N drawn", "sparse − beam", "sparse − greedy", "beam − greedy"}, rows), nil
}

func ginkgoLargeTaskTimes(e *env) (string, error) {
	r, err := e.run("ginkgo-large")
	if err != nil {
		return "", err
	}
	var all, medians, beam []float64
	for _, ds := range ginkgoLargeSets(r) {
		var secs []float64
		for _, rec := range r.recordsOf(ds, "sparse_trellis") {
			secs = append(secs, rec.Seconds)
		}
		all = append(all, secs...)
		medians = append(medians, median(secs))
		for _, rec := range r.recordsOf(ds, "beam") {
			beam = append(beam, rec.Seconds)
		}
	}
	return fmt.Sprintf("the sparse trellis took %s–%s per jet (medians %s–%s over the ranges), beam search at most %s",
		plan.FormatSeconds(slices.Min(all)), plan.FormatSeconds(slices.Max(all)),
		plan.FormatSeconds(slices.Min(medians)), plan.FormatSeconds(slices.Max(medians)), plan.FormatSeconds(slices.Max(beam))), nil
}

// floats returns the values of field over a data set's records of alg that have one.
func (r *configRun) floats(ds, alg string, field func(*results.Record) *float64) []float64 {
	var out []float64
	for _, rec := range r.recordsOf(ds, alg) {
		if p := field(&rec); p != nil {
			out = append(out, *p)
		}
	}
	if len(out) == 0 {
		r.missing(fmt.Sprintf("no record of %s on %s has the value", alg, ds))
	}
	return out
}

// column reads a computed metric of the table (package metric) off a record, nil where it has none.
func column(key string) func(*results.Record) *float64 {
	return func(r *results.Record) *float64 {
		if v, ok := r.Metric(key); ok {
			return &v
		}
		return nil
	}
}

var purity = column(metric.DendrogramPurity)

func mapTrees(r *results.Record) *float64     { return r.MAPTrees }
func mapPurityMin(r *results.Record) *float64 { return r.MAPPurityPairMin }
func mapPurityMax(r *results.Record) *float64 { return r.MAPPurityPairMax }

// pam50Sets are the two weightings of the pam50 config, as the table's columns.
var pam50Sets = []string{"pam50", "pam50-pearson"}

func pam50MAPTrees(e *env) (string, error) {
	r, err := e.run("pam50")
	if err != nil {
		return "", err
	}
	t := r.floats("pam50", "trellis", mapTrees)
	if len(t) == 0 {
		return "", fmt.Errorf("pam50: no map_trees in the trellis records")
	}
	return fmt.Sprintf("%s to %s trees (median %s)", thousands(slices.Min(t)), thousands(slices.Max(t)), thousands(median(t))), nil
}

func pam50PurityRange(e *env) (string, error) {
	r, err := e.run("pam50")
	if err != nil {
		return "", err
	}
	lo, hi := r.floats("pam50", "trellis", mapPurityMin), r.floats("pam50", "trellis", mapPurityMax)
	if len(lo) == 0 || len(hi) == 0 {
		return "", fmt.Errorf("pam50: no MAP purity range in the trellis records")
	}
	return fmt.Sprintf("from %s to %s", fixed(mean(lo), 2), fixed(mean(hi), 2)), nil
}

func pam50Table(e *env) (string, error) {
	r, err := e.run("pam50")
	if err != nil {
		return "", err
	}
	rows := [][]string{
		{"MAP − greedy (nats)"}, {"MAP − beam"}, {"MAP − average linkage (in brackets: subsamples where it finds the MAP)"},
		{"dendrogram purity: greedy, beam, average linkage"}, {"dendrogram purity: the tie rule's MAP tree"},
		{"pair-weighted purity over the MAP trees: least, greatest"}, {"trees that reach the MAP: median (range)"},
	}
	for _, ds := range pam50Sets {
		// The prose around the table: greedy's purity is below a uniformly random tree's (0.339),
		// and average linkage comes within a nat of the MAP with the purest trees of the four.
		pur := map[string]float64{}
		for _, a := range []string{"trellis", "beam", "greedy", "average-linkage"} {
			pur[a] = mean(r.floats(ds, a, purity))
		}
		if pur["greedy"] >= 0.339 {
			return "", claimFails("pam50: greedy's purity %.3f on %s is not below a random tree's 0.339", pur["greedy"], ds)
		}
		if gap := mean(r.paired(ds, "trellis", "average-linkage", logLik)); gap >= 1 {
			return "", claimFails("pam50: average linkage is %.2f nats below the MAP on %s, not within a nat", gap, ds)
		}
		for a, v := range pur {
			if a != "average-linkage" && v >= pur["average-linkage"] {
				return "", claimFails("pam50: %s's purity %.3f is not below average linkage's %.3f on %s", a, v, pur["average-linkage"], ds)
			}
		}
		k, n := r.reachesMAP(ds, "average-linkage")
		trees := r.floats(ds, "trellis", mapTrees)
		if len(trees) == 0 {
			return "", fmt.Errorf("pam50: no map_trees in the trellis records of %s", ds)
		}
		cells := []string{
			meanStd(r.paired(ds, "trellis", "greedy", logLik), 2),
			meanStd(r.paired(ds, "trellis", "beam", logLik), 2),
			fmt.Sprintf("%s (%d of %d)", meanStd(r.paired(ds, "trellis", "average-linkage", logLik), 2), k, n),
			joinComma(fixed(mean(r.floats(ds, "greedy", purity)), 2), fixed(mean(r.floats(ds, "beam", purity)), 2), fixed(mean(r.floats(ds, "average-linkage", purity)), 2)),
			fixed(mean(r.floats(ds, "trellis", purity)), 2),
			joinComma(fixed(mean(r.floats(ds, "trellis", mapPurityMin)), 2), fixed(mean(r.floats(ds, "trellis", mapPurityMax)), 2)),
			fmt.Sprintf("%s (%s–%s)", thousands(median(trees)), thousands(slices.Min(trees)), thousands(slices.Max(trees))),
		}
		for i := range rows {
			rows[i] = append(rows[i], cells[i])
		}
	}
	return markdownTable([]string{"", "cosine, mean with diagonal", "Pearson, mean without diagonal"}, rows), nil
}

func joinComma(parts ...string) string { return strings.Join(parts, ", ") }

// best marks with bold the cells of texts whose value (vals, at the precision written) is the
// greatest: the best method of a row.
func best(texts []string, vals []float64, digits int) []string {
	top := math.Inf(-1)
	for _, v := range vals {
		top = max(top, v)
	}
	out := slices.Clone(texts)
	for i, v := range vals {
		if fixed(v, digits) == fixed(top, digits) {
			out[i] = "**" + out[i] + "**"
		}
	}
	return out
}

// The BHC paper's Table 1 (dendrogram purity, mean ± s.e.): single, complete, average linkage, BHC.
var bhcDigitsPaper = map[string][]string{
	"digits024": {"0.545 ± 0.015", "0.654 ± 0.013", "0.742 ± 0.018", "**0.807 ± 0.022**", "", ""},
	"digits":    {"0.224 ± 0.004", "0.299 ± 0.006", "0.342 ± 0.005", "**0.393 ± 0.015**", "", ""},
}

func bhcDigitsTable(e *env) (string, error) {
	r, err := e.run("bhc-digits")
	if err != nil {
		return "", err
	}
	algs := []string{"single-linkage", "complete-linkage", "average-linkage", "bhc", "bhc-bioconductor", "brt"}
	names := map[string]string{"digits024": "3Digits", "digits": "10Digits"}
	var rows [][]string
	for _, ds := range []string{"digits024", "digits"} {
		var texts []string
		var vals []float64
		for _, a := range algs {
			p := r.floats(ds, a, purity)
			if len(p) == 0 {
				return "", fmt.Errorf("bhc-digits: no purity of %s on %s", a, ds)
			}
			texts, vals = append(texts, meanStd(p, 3)), append(vals, mean(p))
		}
		// The prose after the table says BHC is ahead of every linkage on both sets, and that all
		// our purities are above the paper's.
		for i := range 3 {
			if vals[3] <= vals[i] {
				return "", claimFails("bhc-digits: BHC's purity %.3f is not above %s's %.3f on %s", vals[3], algs[i], vals[i], ds)
			}
		}
		for i, paper := range bhcDigitsPaper[ds][:4] {
			if p, _ := strconv.ParseFloat(strings.Trim(strings.Fields(paper)[0], "*"), 64); vals[i] <= p {
				return "", claimFails("bhc-digits: our %s purity %.3f on %s is not above the paper's %s", algs[i], vals[i], ds, paper)
			}
		}
		rows = append(rows, append([]string{names[ds] + ", paper"}, bhcDigitsPaper[ds]...))
		rows = append(rows, append([]string{names[ds] + ", ours"}, best(texts, vals, 3)...))
	}
	return markdownTable([]string{"", "single", "complete", "average", "BHC", "BHC (Bioconductor settings)", "BRT"}, rows), nil
}

// The Voisin & Klus report's purity table: BHC flat / adjusted, AHC flat / adjusted.
var voisinKlus = map[string][2]string{
	"gaussian":  {"0.95 / 0.52", "0.90 / 0.68"},
	"bernoulli": {"0.55 / 0.55", "0.55 / 0.55"},
	"iris":      {"0.53 / 0.35", "0.76 / 0.59"},
	"wine":      {"0.42 / 0.19", "0.80 / 0.60"},
}

var flat, adjusted = column(metric.FlatPurity), column(metric.AdjustedPurity)

func bhcPurityTable(e *env) (string, error) {
	r, err := e.run("bhc-purity")
	if err != nil {
		return "", err
	}
	rowNames := map[string]string{
		"gaussian":  "Gaussian (%d × %v, %v classes)",
		"bernoulli": "Bernoulli (%d × %v, %v classes)",
		"iris":      "iris (%d of 150)",
		"wine":      "wine (%d of 178, 13 features)",
	}
	algs := []string{"bhc", "brt", "average-linkage", "single-linkage", "complete-linkage"}
	withStd := map[string]bool{"bhc": true, "average-linkage": true}
	var rows [][]string
	for _, ds := range r.manifest.Datasets {
		recs := r.recordsOf(ds, "bhc")
		if len(recs) == 0 {
			return "", fmt.Errorf("bhc-purity: no bhc records of %s", ds)
		}
		rec := recs[0]
		var name string
		switch ds {
		case "gaussian", "bernoulli":
			name = fmt.Sprintf(rowNames[ds], rec.N, rec.DataParams["dims"], rec.DataParams["components"])
		default:
			name = fmt.Sprintf(rowNames[ds], rec.N)
		}
		var texts []string
		var vals []float64
		for _, a := range algs {
			p := r.floats(ds, a, purity)
			if len(p) == 0 {
				return "", fmt.Errorf("bhc-purity: no purity of %s on %s", a, ds)
			}
			t := fixed(mean(p), 3)
			if withStd[a] {
				t = meanStd(p, 3)
			}
			texts, vals = append(texts, t), append(vals, mean(p))
		}
		// The prose after the table: BHC does not beat average linkage on the Gaussian mixtures,
		// leads on the binary set, and linkage does better than BHC on iris and wine.
		bhc, avg := vals[0], vals[2]
		switch {
		case ds == "gaussian" && bhc >= avg:
			return "", claimFails("bhc-purity: BHC (%.3f) beats average linkage (%.3f) on the Gaussian mixtures", bhc, avg)
		case ds == "bernoulli" && bhc < slices.Max(vals):
			return "", claimFails("bhc-purity: BHC (%.3f) does not lead on the Bernoulli mixtures (%v)", bhc, vals)
		case (ds == "iris" || ds == "wine") && bhc >= avg:
			return "", claimFails("bhc-purity: BHC (%.3f) is not below average linkage (%.3f) on %s", bhc, avg, ds)
		}
		row := append([]string{name}, best(texts, vals, 3)...)
		row = append(row, fixed(mean(r.floats(ds, "bhc", flat)), 3), fixed(mean(r.floats(ds, "bhc", adjusted)), 3))
		row = append(row, voisinKlus[ds][0], voisinKlus[ds][1])
		rows = append(rows, row)
	}
	return markdownTable([]string{"", "BHC", "BRT", "average", "single", "complete", "BHC flat", "BHC adjusted", "V & K: BHC flat / adj", "V & K: AHC flat / adj"}, rows), nil
}

// cutSizes describes how BHC's top-down cut ends on a data set's draws: "at 2 clusters on every
// draw", or "at 1 cluster on 4 draws and at 4 clusters (85, 3, 1 and 1 points) on the other".
func cutSizes(recs []results.Record) string {
	byK := map[int][][]int{} // cluster count → the draws' cluster sizes, largest first
	var ks []int
	for _, rec := range recs {
		var sizes []int
		for _, c := range rec.Clusters {
			sizes = append(sizes, len(c))
		}
		slices.SortFunc(sizes, func(a, b int) int { return b - a })
		k := len(sizes)
		if _, ok := byK[k]; !ok {
			ks = append(ks, k)
		}
		byK[k] = append(byK[k], sizes)
	}
	// The most common count first.
	slices.SortStableFunc(ks, func(a, b int) int { return len(byK[b]) - len(byK[a]) })
	clusters := func(k int) string { return fmt.Sprintf("%d %s", k, results.Plural(k, "cluster", "clusters")) }
	if len(ks) == 1 {
		return "at " + clusters(ks[0]) + " on every draw"
	}
	var parts []string
	for i, k := range ks {
		draws := byK[k]
		p := "at " + clusters(k)
		if len(draws) == 1 && k > 1 {
			var s []string
			for _, n := range draws[0] {
				s = append(s, strconv.Itoa(n))
			}
			p += " (" + joinAnd(s) + " points)"
		}
		switch {
		case i == len(ks)-1 && len(draws) == 1 && len(ks) == 2:
			p += " on the other"
		default:
			p += fmt.Sprintf(" on %d %s", len(draws), results.Plural(len(draws), "draw", "draws"))
		}
		parts = append(parts, p)
	}
	return joinAnd(parts)
}

func bhcPurityCuts(e *env) (string, error) {
	r, err := e.run("bhc-purity")
	if err != nil {
		return "", err
	}
	var parts []string
	for _, ds := range []string{"iris", "wine"} {
		recs := r.recordsOf(ds, "bhc")
		parts = append(parts, fmt.Sprintf("on %s it stops %s (flat purity %s)", ds, cutSizes(recs), fixed(mean(r.floats(ds, "bhc", flat)), 3)))
	}
	return "BHC's top-down cut: " + strings.Join(parts, "; "), nil
}

func evidence(r *results.Record) *results.LogProb { return r.LogEvidence }

// The BRT slides' quantitative table (log p(D|T), mean ± "±").
var brtSlides = map[string][]string{
	"toy":       {"−230 ± 0", "−169.4 ± 0", "−167 ± 0"},
	"digits024": {"−4154 ± 5.2", "−3759 ± 4.6", "−3748 ± 4.6"},
	"digits":    {"−4429 ± 3.3", "−3966 ± 3.1", "−3954 ± 3.1"},
}

func brtEvidenceTable(e *env) (string, error) {
	r, err := e.run("brt-evidence")
	if err != nil {
		return "", err
	}
	algs := []string{"bhc-dp", "bhc-fixed", "brt"}
	var rows [][]string
	for _, ds := range []string{"toy", "digits024", "digits"} {
		var texts []string
		var vals []float64
		n := 0
		for _, a := range algs {
			var xs []float64
			for _, rec := range r.recordsOf(ds, a) {
				if v, ok := logProb(rec.LogEvidence); ok && !math.IsInf(v, 0) {
					xs = append(xs, v)
				}
				n = rec.N
			}
			if len(xs) == 0 {
				return "", fmt.Errorf("brt-evidence: no log_evidence of %s on %s", a, ds)
			}
			texts, vals = append(texts, meanSE(xs, 1)), append(vals, mean(xs))
		}
		// The prose after the table says the slides' ordering holds: DP < fixed π < BRT.
		if !(vals[0] < vals[1] && vals[1] < vals[2]) {
			return "", claimFails("brt-evidence: on %s the evidence is not ordered BHC (DP) < BHC (fixed) < BRT (%v)", ds, vals)
		}
		what := map[string]string{"toy": "%d × 2 Gaussian, 4 classes", "digits024": "%d × 64", "digits": "%d × 64"}[ds]
		rows = append(rows, append([]string{ds + ", slides"}, brtSlides[ds]...))
		rows = append(rows, append([]string{ds + ", ours (" + fmt.Sprintf(what, n) + ")"}, best(texts, vals, 1)...))
	}
	return markdownTable([]string{"", "BHC (DP)", "BHC (fixed)", "BRT"}, rows), nil
}

func brtEvidenceExact(e *env) (string, error) {
	r, err := e.run("brt-evidence")
	if err != nil {
		return "", err
	}
	short := r.paired("small", "bhc-fixed-optimum", "bhc-fixed", evidence)
	found := 0
	for _, d := range short {
		if d <= 1e-9 {
			found++
		}
	}
	above := r.paired("small", "brt", "bhc-fixed-optimum", evidence)
	over := 0
	for _, d := range above {
		if d > 0 {
			over++
		}
	}
	recs := r.recordsOf("small", "bhc-fixed-optimum")
	if len(recs) == 0 {
		return "", fmt.Errorf("brt-evidence: no bhc_exact records")
	}
	return fmt.Sprintf("On %d sets of %d points, where `bhc_exact` finds the best binary tree under the fixed π, greedy fixed-π BHC finds it on %d of %d and falls short by %s nats on average. BRT is above that optimum on %d of the %d (%s nats on average)",
		len(recs), recs[0].N, found, len(short), meanStd(short, 2), over, len(above), meanStd(above, 2)), nil
}

// claimFails is the error of a renderer whose run contradicts what the prose around its region
// says: the prose is a person's reading of the numbers, which the script cannot rewrite.
func claimFails(format string, args ...any) error {
	return fmt.Errorf("%s, which the text around this region says it is (or is not): rewrite that text", fmt.Sprintf(format, args...))
}
