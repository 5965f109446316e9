// Package compare is the core of `hcbench compare OLD NEW`: it joins two runs by task key and
// compares them per data set and algorithm label — quality (the metrics of package metric's
// table that compare tracks: log-likelihood, gap to the exact MAP, log evidence, dendrogram
// purity, …), work counters (exact counts, where any change is a change), time (median and a
// Mann-Whitney U test over every run of every task, as benchstat over bench.txt, or van Elteren's
// test stratified by item) and failures — names the regressions beyond the thresholds, and the
// problems that make the comparison itself unsound: a NEW run that did not finish, tasks of OLD
// missing from NEW, a task recorded twice. Findings turns a comparison into a gate's verdict
// (compare -check), which WriteFindingsText and WriteFindingsMarkdown print.
package compare

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/aclements/go-moremath/stats"

	"github.com/hcbench/hcbench/experiments/metric"
	"github.com/hcbench/hcbench/experiments/results"
	"github.com/hcbench/hcbench/internal/english"
)

// Alpha is the significance level of the time test (benchstat's default).
const Alpha = 0.05

// slack is the relative float tolerance of every quality comparison: two means closer than
// slack·max(1, |value|) are equal ("no change"), and a change must exceed its threshold by more
// than that to be a regression, so that a drop equal to the threshold is not one however the
// means round.
const slack = 1e-12

// Run is one run: its manifest and records.
type Run struct {
	Manifest results.Manifest
	Records  []results.Record
}

// Options configure a comparison.
type Options struct {
	// Thresholds are by metric key; a metric without one has its default (metric.Resolve).
	Thresholds results.Thresholds
	// AllowMissing accepts a NEW run that did not finish or lacks tasks of OLD: the tasks both
	// have are compared, and the others listed, without failing.
	AllowMissing bool
	// TimeTest names the test of a row's times (TimeTests lists them); "" is DefaultTimeTest.
	// Any other name is a precondition violation (the command checks its flag with
	// ValidTimeTest); Compare then uses DefaultTimeTest.
	TimeTest string
	// Alpha is the time test's significance level; 0 is Alpha.
	Alpha float64
}

// The tests of a row's times (Options.TimeTest).
const (
	// TestPooled is the Mann-Whitney U test over every timing of every task of the row, OLD's
	// against NEW's, as benchstat over bench.txt.
	TestPooled = "pooled"
	// TestStratified is van Elteren's stratified Wilcoxon rank-sum test with the items as
	// strata: each item's timings in OLD against its timings in NEW, so that the spread between
	// items (the trellis on 5 and on 12 leaves) does not hide a slowdown of every item.
	TestStratified = "stratified"
)

// DefaultTimeTest is the time test compare uses when Options.TimeTest is "". The stratified
// test is the default because, measured on pairs of real nightly runs (go run
// ./internal/gatecheck; docs/nightly.md, "How far to trust the gate"), it flagged a planted 10 %
// slowdown more often than the pooled test in every measurement, at a like rate of false alarms:
// the spread between items, which the pooled test ranks together, hides a slowdown of every item.
const DefaultTimeTest = TestStratified

// TimeTests are the names Options.TimeTest accepts besides "".
var TimeTests = []string{TestPooled, TestStratified}

// ValidTimeTest reports whether name is "" or one of TimeTests.
func ValidTimeTest(name string) bool { return name == "" || slices.Contains(TimeTests, name) }

// MinTimeSamples is the fewest timings (tasks × runs of each, see repeat) a row needs in both
// runs for a slowdown to be a regression. With n timings a side, the smallest two-sided
// Mann-Whitney p is 2/C(2n, n): 0.029 for n = 4, which one noisy night reaches by chance (the
// nightly suite once failed on six such rows while its quality was identical); for n = 8 it is
// 0.00016.
const MinTimeSamples = 8

// Result is the comparison of two runs.
type Result struct {
	Old, New     results.Manifest
	Thresholds   results.Thresholds
	AllowMissing bool
	// TimeTest is the time test used (TestPooled or TestStratified) and Alpha its level.
	TimeTest string
	Alpha    float64
	// DataChanges lists how NEW's data files differ from OLD's (results.Manifest.DataChanges):
	// what makes the runs' data different, so that the gate cannot decide.
	DataChanges []string
	// Rows are the (data set, algorithm label) pairs of either run, in NEW's config order.
	Rows []Row
	// OnlyOld and OnlyNew are the keys of the tasks in one run only, in plan order. Tasks only in
	// OLD are a problem unless AllowMissing; tasks only in NEW are reported.
	OnlyOld, OnlyNew []string
	// DuplicatesOld and DuplicatesNew are the keys recorded more than once in a run (its first
	// record is compared); always a problem.
	DuplicatesOld, DuplicatesNew []string
	// OldRecorded and NewRecorded count the distinct tasks with a record in each run (a killed
	// run's manifest does not know).
	OldRecorded, NewRecorded int
	// TimeNote says why no slowdown can be a regression whatever the rows show, "" if one can:
	// the runs ran on different machines, or with different workers.
	TimeNote string
}

// ConfigHashDiffers reports whether the runs come from different resolved configs: allowed (that
// is how two variants are compared) but worth saying.
func (r *Result) ConfigHashDiffers() bool { return r.Old.ConfigHash != r.New.ConfigHash }

// Row compares one algorithm label on one data set over the tasks present and successful in
// both runs.
type Row struct {
	Dataset, Algorithm string
	// AlgorithmName is the algorithm the label runs (NEW's, else OLD's).
	AlgorithmName string
	// Tasks counts the tasks present and successful in both runs; the metrics run over them.
	Tasks int
	// FailedBoth counts the tasks that failed in both runs.
	FailedBoth int
	// Quality holds each quality metric (Quality(), by key) over the items where both runs have
	// it: the log-likelihood where both are finite, the gap to the exact MAP (the trellis's MAP
	// minus this algorithm's log-likelihood, in the same run) where both runs have one, not for
	// the trellis itself; the log evidence; the leaf-weighted dendrogram purity; ….
	Quality map[string]Change
	// Counters are the work counters that some task of the row has in both runs, by key, each
	// totalled over the items where both runs have it.
	Counters []CounterChange
	// NewlyInfinite are the items whose log-likelihood was finite in OLD and is −Inf in NEW
	// (a regression: an infinite drop the mean leaves out).
	NewlyInfinite []string
	// Time compares the task times: every run of every task (a record's times, or its seconds
	// after one run).
	Time Time
	// TimeWaived says why a slowdown beyond the threshold is not a regression (too few tasks,
	// another machine), "" otherwise.
	TimeWaived string
	// NewFailures are the tasks that succeeded in OLD and fail in NEW; Fixed (keys) the reverse.
	NewFailures []Failure
	Fixed       []string

	// qualityRegressions are the regressions of quality and failures, counterRegressions those
	// of the work counters; timeRegression that of time, nil when there is none. The row's
	// status counts the first.
	qualityRegressions, counterRegressions []regression
	timeRegression                         *regression
}

// regression is one regression: its line in the report and its finding for a gate.
type regression struct {
	line    string
	finding Finding
}

// Change is a quality metric's mean over the items where both runs have it. Items = 0 means the
// metric does not apply.
type Change struct {
	Items    int
	Old, New float64 // means
	// Delta is the mean of the per-item differences NEW − OLD.
	Delta float64
	// Changed counts the items whose value differs beyond float noise.
	Changed int
}

// Time compares the task times of a row.
type Time struct {
	Tasks int
	// OldSamples and NewSamples count the timings of the Tasks in each run: a task that ran K
	// times (repeat, -count) gives K, one from a build before repeats gives 1.
	OldSamples, NewSamples int
	Old, New               float64 // medians over the samples, seconds
	// Ratio is New/Old (NaN when Old is 0).
	Ratio float64
	// Test is the test that computed P: TestPooled or TestStratified.
	Test string
	// P is the two-sided p-value of the test (1 when every time is equal, NaN without tasks);
	// Significant is P < the comparison's alpha. TestPooled: the Mann-Whitney U test over the
	// samples, as benchstat computes it from bench.txt; the samples of a task's runs are not
	// independent of each other as the test assumes, but both runs hold the same items, so the
	// spread between items, the same on both sides, makes the test conservative, not lax.
	// TestStratified: van Elteren's test with the items as strata (vanElteren).
	P           float64
	Significant bool
	// Effect is the row's slowdown as a ratio: the geometric mean over its items of the item's
	// median time in NEW over its median time in OLD (NaN without items timed in both).
	Effect float64
	// bestP is the smallest p the stratified test can reach with the row's strata.
	bestP float64
}

// Slowdown is the row's slowdown as a ratio as its test judges it: Ratio (the pooled medians)
// under TestPooled, Effect under TestStratified.
func (t Time) Slowdown() float64 {
	if t.Test == TestStratified {
		return t.Effect
	}
	return t.Ratio
}

// Failure is a task that succeeded in OLD and fails in NEW.
type Failure struct {
	Key, Item, Error string
}

// Quality returns the quality metrics that compare compares: those of the table it tracks, but
// time, which has a rule of its own (a test over the timings), and the work counters, each
// compared by its total (CounterChange).
func Quality() []*metric.Metric {
	var out []*metric.Metric
	for _, m := range metric.Tracked(metric.Compare) {
		if m.Key != metric.Time && !m.Counter {
			out = append(out, m)
		}
	}
	return out
}

// Compare joins the two runs by task key and compares them per data set and algorithm label.
func Compare(old, new Run, o Options) *Result {
	th := metric.Resolve(o.Thresholds)
	res := &Result{Old: old.Manifest, New: new.Manifest, Thresholds: th, AllowMissing: o.AllowMissing, TimeTest: o.TimeTest, Alpha: o.Alpha}
	if !ValidTimeTest(res.TimeTest) || res.TimeTest == "" {
		res.TimeTest = DefaultTimeTest
	}
	if res.Alpha <= 0 || res.Alpha >= 1 || math.IsNaN(res.Alpha) {
		res.Alpha = Alpha
	}
	res.DataChanges = new.Manifest.DataChanges(&old.Manifest)
	var oldBy, newBy map[string]results.Record
	oldBy, res.DuplicatesOld = byKey(old.Records)
	newBy, res.DuplicatesNew = byKey(new.Records)
	res.OldRecorded, res.NewRecorded = len(oldBy), len(newBy)
	res.TimeNote = differentMachines(old.Manifest, new.Manifest)
	runOld, runNew := metric.NewRun(old.Records), metric.NewRun(new.Records)
	quality := Quality()

	type rowKey struct{ ds, alg string }
	rows := map[rowKey]*Row{}
	common := map[rowKey][]pair{}
	row := func(r results.Record) *Row {
		k := rowKey{r.Dataset, r.Algorithm}
		if rows[k] == nil {
			rows[k] = &Row{Dataset: r.Dataset, Algorithm: r.Algorithm}
		}
		if rows[k].AlgorithmName == "" {
			rows[k].AlgorithmName = r.AlgorithmName
		}
		return rows[k]
	}
	// NEW's records first, so that a row takes NEW's algorithm name.
	var onlyOld, onlyNew []results.Record
	for _, n := range planOrder(newBy, new.Manifest) {
		o, inOld := oldBy[n.Key]
		rw := row(n)
		switch {
		case !inOld:
			onlyNew = append(onlyNew, n)
		case o.Error == "" && n.Error == "":
			rw.Tasks++
			common[rowKey{n.Dataset, n.Algorithm}] = append(common[rowKey{n.Dataset, n.Algorithm}], pair{o, n})
		case o.Error == "":
			rw.NewFailures = append(rw.NewFailures, Failure{Key: n.Key, Item: n.Item, Error: n.Error})
		case n.Error == "":
			rw.Fixed = append(rw.Fixed, n.Key)
		default:
			rw.FailedBoth++
		}
	}
	for _, o := range planOrder(oldBy, new.Manifest) {
		row(o)
		if _, inNew := newBy[o.Key]; !inNew {
			onlyOld = append(onlyOld, o)
		}
	}
	for _, r := range onlyOld {
		res.OnlyOld = append(res.OnlyOld, r.Key)
	}
	for _, r := range onlyNew {
		res.OnlyNew = append(res.OnlyNew, r.Key)
	}

	dsRank := rankOf(new.Manifest.Datasets, old.Manifest.Datasets)
	algRank := rankOf(new.Manifest.Algorithms, old.Manifest.Algorithms)
	for k, rw := range rows {
		ps := common[k]
		var strata [][2][]float64
		olds, news := make([][]float64, len(quality)), make([][]float64, len(quality))
		for _, p := range ps {
			strata = append(strata, [2][]float64{p.old.Timings(), p.new.Timings()})
			for i, m := range quality {
				vo, okO := m.Of(&p.old, runOld)
				vn, okN := m.Of(&p.new, runNew)
				if okO && okN {
					olds[i], news[i] = append(olds[i], vo), append(news[i], vn)
				}
			}
			if lo, ln := p.old.LogLikelihood, p.new.LogLikelihood; lo != nil && ln != nil && finite(lo.Value()) && math.IsInf(ln.Value(), -1) {
				rw.NewlyInfinite = append(rw.NewlyInfinite, p.new.Item)
			}
		}
		rw.Quality = map[string]Change{}
		for i, m := range quality {
			rw.Quality[m.Key] = change(olds[i], news[i])
		}
		rw.Counters = counterChanges(ps)
		rw.Time = timing(strata, res.TimeTest, res.Alpha)
		rw.Time.Tasks = len(ps)
		var slower bool
		slower, rw.TimeWaived = timeVerdict(rw.Time, th, res.TimeNote)
		if slower {
			rw.timeRegression = timeRegression(rw, th)
		}
		rw.qualityRegressions = qualityRegressions(rw, th)
		rw.counterRegressions = counterRegressions(rw, th)
		res.Rows = append(res.Rows, *rw)
	}
	slices.SortFunc(res.Rows, func(a, b Row) int {
		if c := dsRank(a.Dataset, b.Dataset); c != 0 {
			return c
		}
		return algRank(a.Algorithm, b.Algorithm)
	})
	return res
}

// pair is a task's records in OLD and NEW.
type pair struct{ old, new results.Record }

// byKey indexes records by key, keeping the first record of a task as a resume does, and lists
// the keys recorded more than once (each once).
func byKey(recs []results.Record) (map[string]results.Record, []string) {
	out := make(map[string]results.Record, len(recs))
	var dups []string
	for _, r := range recs {
		if _, dup := out[r.Key]; !dup {
			out[r.Key] = r
		} else if !slices.Contains(dups, r.Key) {
			dups = append(dups, r.Key)
		}
	}
	return out, dups
}

// machines lists where a run's sessions ran, each distinct "host, N CPUs, W workers" once; a
// merge of shards from a cluster has several, a manifest without sessions none.
func machines(m results.Manifest) []string {
	var out []string
	for _, s := range m.AllSessions() {
		host := s.Host
		if host == "" {
			host = "unknown host"
		}
		d := fmt.Sprintf("%s, %s, %s", host, english.Count(s.CPUs, "CPU", "CPUs"), english.Count(s.Workers, "worker", "workers"))
		if !slices.Contains(out, d) {
			out = append(out, d)
		}
	}
	return out
}

// differentMachines says why the task times of two runs do not compare, or "": both must have
// run on one machine, the same, with as many workers (other tasks running beside a task slow it).
func differentMachines(old, new results.Manifest) string {
	mo, mn := machines(old), machines(new)
	switch {
	case len(mo) == 0 || len(mn) == 0:
		return "a manifest does not say where its run ran"
	case len(mo) > 1 || len(mn) > 1:
		return fmt.Sprintf("a run ran on several machines or with several worker counts (OLD: %s; NEW: %s)", strings.Join(mo, "; "), strings.Join(mn, "; "))
	case mo[0] != mn[0]:
		return fmt.Sprintf("the runs ran on different machines or worker counts (OLD: %s; NEW: %s)", mo[0], mn[0])
	}
	return ""
}

// timeVerdict decides whether a row's times regressed: slower (Slowdown) by more than th's
// time, with p < alpha and a new median of at least MinTimed; and then only with enough timings
// (the pooled test: MinTimeSamples in both runs; the stratified test: strata that can reach
// p ≤ minStratifiedP) and on the same machine (machineNote ""), else waived says why not.
func timeVerdict(t Time, th results.Thresholds, machineNote string) (regressed bool, waived string) {
	limit := timeThreshold(th)
	slow := t.Slowdown()
	if limit <= 0 || !t.Significant || math.IsNaN(slow) || slow-1 <= limit || t.New < MinTimed {
		return false, ""
	}
	switch {
	case t.Test != TestStratified && min(t.OldSamples, t.NewSamples) < MinTimeSamples:
		return false, fmt.Sprintf("n=%s < %d", t.N(), MinTimeSamples)
	case t.Test == TestStratified && t.bestP > minStratifiedP:
		return false, fmt.Sprintf("n=%s over %s: p ≥ %.2g at best > %.2g", t.N(), english.Count(t.Tasks, "item", "items"), t.bestP, minStratifiedP)
	case machineNote != "":
		return false, "other machine"
	}
	return true, ""
}

// planOrder returns the records of m in plan order under NEW's config order.
func planOrder(m map[string]results.Record, nm results.Manifest) []results.Record {
	out := make([]results.Record, 0, len(m))
	for _, r := range m {
		out = append(out, r)
	}
	slices.SortFunc(out, func(a, b results.Record) int { return strings.Compare(a.Key, b.Key) })
	results.SortPlanOrder(out, nm.Datasets, nm.Algorithms)
	return out
}

// rankOf orders names as in primary, then those of secondary not in primary, then the rest
// sorted.
func rankOf(primary, secondary []string) func(a, b string) int {
	order := slices.Clone(primary)
	for _, n := range secondary {
		if !slices.Contains(order, n) {
			order = append(order, n)
		}
	}
	return results.ConfigRank(order)
}

func finite(v float64) bool { return !math.IsInf(v, 0) && !math.IsNaN(v) }

func mean(xs []float64) float64 {
	s := 0.0
	for _, x := range xs {
		s += x
	}
	return s / float64(len(xs))
}

// change summarises paired values.
func change(old, new []float64) Change {
	if len(old) == 0 {
		return Change{}
	}
	d := make([]float64, len(old))
	changed := 0
	for i := range old {
		d[i] = new[i] - old[i]
		if !Same(old[i], new[i]) {
			changed++
		}
	}
	return Change{Items: len(old), Old: mean(old), New: mean(new), Delta: mean(d), Changed: changed}
}

// N is the sample count as benchstat writes it: "10", or "10+20" when the runs have different
// numbers of timings.
func (t Time) N() string {
	if t.OldSamples == t.NewSamples {
		return fmt.Sprint(t.OldSamples)
	}
	return fmt.Sprintf("%d+%d", t.OldSamples, t.NewSamples)
}

// timing compares the task times of a row, items holding each item's timings in OLD and in
// NEW, with the test named (TestPooled, TestStratified) at level alpha; the caller sets Tasks.
func timing(items [][2][]float64, test string, alpha float64) Time {
	var old, new []float64
	sizes := make([][2]int, len(items))
	for i, it := range items {
		old, new = append(old, it[0]...), append(new, it[1]...)
		sizes[i] = [2]int{len(it[0]), len(it[1])}
	}
	t := Time{Test: test, OldSamples: len(old), NewSamples: len(new), Old: math.NaN(), New: math.NaN(), Ratio: math.NaN(), P: math.NaN(), Effect: effect(items)}
	if len(old) == 0 || len(new) == 0 {
		return t
	}
	t.Old, t.New = results.Median(old), results.Median(new)
	if t.Old > 0 {
		t.Ratio = t.New / t.Old
	}
	if test == TestStratified {
		_, t.P = vanElteren(items)
		t.bestP = vanElterenBestP(sizes)
	} else {
		u, err := stats.MannWhitneyUTest(old, new, stats.LocationDiffers)
		switch {
		case err == nil:
			t.P = u.P
		case errors.Is(err, stats.ErrSamplesEqual):
			t.P = 1
		}
	}
	t.Significant = t.P < alpha
	return t
}

// effect is the geometric mean over the items timed in both runs (with medians above 0) of the
// item's median time in NEW over its median in OLD; NaN without such items. Unlike the ratio of
// the pooled medians, every item counts alike, whatever its size.
func effect(items [][2][]float64) float64 {
	sum, n := 0.0, 0
	for _, it := range items {
		if len(it[0]) == 0 || len(it[1]) == 0 {
			continue
		}
		o, nw := results.Median(it[0]), results.Median(it[1])
		if o > 0 && nw > 0 {
			sum += math.Log(nw / o)
			n++
		}
	}
	if n == 0 {
		return math.NaN()
	}
	return math.Exp(sum / float64(n))
}

// Same reports whether two values are equal up to float noise (slack).
func Same(a, b float64) bool {
	return math.Abs(a-b) <= slack*math.Max(1, math.Max(math.Abs(a), math.Abs(b)))
}

// beyond reports whether a worsening exceeds the threshold by more than float noise.
func beyond(worse, th float64, m Change) bool {
	return worse > th+slack*math.Max(1, math.Max(math.Abs(m.Old), math.Abs(m.New)))
}

// Unchanged reports whether the row's quality is the same in both runs: every metric equal on
// every item up to float noise, no tree newly −Inf and no task that changed between success and
// failure. Times are not part of it.
func (r *Row) Unchanged() bool {
	return r.qualityUnchanged() && len(r.NewFailures) == 0 && len(r.Fixed) == 0
}

// qualityUnchanged reports whether every metric is equal on every item and no tree is newly −Inf.
func (r *Row) qualityUnchanged() bool {
	for _, m := range r.Quality {
		if m.Changed > 0 {
			return false
		}
	}
	return len(r.NewlyInfinite) == 0
}

// Regressions returns the row's regressions, one line each: quality and failures, then work
// counters, then time.
func (r *Row) Regressions() []string {
	var out []string
	for _, g := range r.regressions() {
		out = append(out, g.line)
	}
	return out
}

// regressions lists the row's regressions in the order of Regressions.
func (r *Row) regressions() []regression {
	out := append(slices.Clone(r.qualityRegressions), r.counterRegressions...)
	if r.timeRegression != nil {
		out = append(out, *r.timeRegression)
	}
	return out
}

// MinTimed is the shortest median task time (seconds) whose slowdown can be a regression: below
// a millisecond a task's time is mostly timer and scheduler noise, which a run of hundreds of
// such tasks makes "significant".
const MinTimed = 1e-3

// TimeRegressed reports whether the median slowed by more than the time threshold with
// p < Alpha, the new median being at least MinTimed, over at least MinTimeSamples timings on the
// same machine (never when the threshold is 0).
func (r *Row) TimeRegressed() bool { return r.timeRegression != nil }

// Regressions returns one human-readable line per regression; empty = none.
func (r *Result) Regressions() []string {
	var out []string
	for i := range r.Rows {
		out = append(out, r.Rows[i].Regressions()...)
	}
	return out
}

// Problems returns what makes the comparison unsound, one line each; empty = none. A NEW run
// that did not finish, or that lacks tasks of OLD, is a problem unless AllowMissing; a task
// recorded twice always is.
func (r *Result) Problems() []string {
	var out []string
	if st := r.New.Status; st != results.StatusComplete && !r.AllowMissing {
		out = append(out, fmt.Sprintf("NEW did not finish (%s); finish it (resume or merge it), or compare with -allow-missing", status(r.New, r.NewRecorded)))
	}
	if n := len(r.OnlyOld); n > 0 && !r.AllowMissing {
		out = append(out, fmt.Sprintf("%d %s of OLD %s missing from NEW (%s); compare with -allow-missing to compare the tasks both have",
			n, results.Plural(n, "task", "tasks"), results.Plural(n, "is", "are"), firstFew(r.OnlyOld, 3)))
	}
	for _, d := range []struct {
		run  string
		keys []string
	}{{"OLD", r.DuplicatesOld}, {"NEW", r.DuplicatesNew}} {
		if n := len(d.keys); n > 0 {
			out = append(out, fmt.Sprintf("%s records %d %s twice (%s), as two processes running into one directory at once do; resume it (hcbench run with its -out) to keep the first record of each",
				d.run, n, results.Plural(n, "task", "tasks"), firstFew(d.keys, 3)))
		}
	}
	return out
}

// Failed reports whether the comparison should fail a nightly job: a regression or a problem.
func (r *Result) Failed() bool { return len(r.Regressions()) > 0 || len(r.Problems()) > 0 }

// status describes how a run ended and how many of its tasks have a record: "complete, 160 of
// 160 tasks" or "interrupted, 66 of 160 tasks".
func status(m results.Manifest, recorded int) string {
	st := m.Status
	switch st {
	case "":
		st = "status unknown"
	case results.StatusRunning:
		st = "running or killed"
	}
	return fmt.Sprintf("%s, %d of %s", st, recorded, english.Count(m.Tasks, "task", "tasks"))
}

// timeThreshold is the threshold of the task time in th.
func timeThreshold(th results.Thresholds) float64 { return metric.Builtin(metric.Time).ThresholdIn(th) }

// worsening is how much worse NEW is than OLD on a metric (positive: worse; a metric better in
// neither direction is worse by any change).
func worsening(m *metric.Metric, c Change) float64 {
	switch m.Better {
	case metric.HigherIsBetter:
		return -c.Delta
	case metric.Neither:
		return math.Abs(c.Delta)
	}
	return c.Delta
}

// qualityRegressions lists the row's regressions of quality (a metric worse beyond its
// threshold, a tree newly −Inf) and its new failures.
func qualityRegressions(r *Row, th results.Thresholds) []regression {
	where := r.Dataset + "/" + r.Algorithm
	var out []regression
	add := func(metric, old, new, figure, line string) {
		out = append(out, regression{line: where + ": " + line, finding: Finding{Metric: metric, Dataset: r.Dataset, Algorithm: r.Algorithm, Old: old, New: new, Figure: figure}})
	}
	for _, m := range Quality() {
		c, lim := r.Quality[m.Key], m.ThresholdIn(th)
		if c.Items == 0 || !beyond(worsening(m, c), lim, c) {
			continue
		}
		verb := "rose"
		if c.Delta < 0 {
			verb = "fell"
		}
		unit := ""
		if m.Unit != "" {
			unit = " " + m.Unit
		}
		add(m.Key, num(c.Old), num(c.New), fmt.Sprintf("%s by %s%s over %s, threshold %g", verb, num(math.Abs(c.Delta)), unit, english.Count(c.Items, "item", "items"), lim),
			fmt.Sprintf("%s %s by %s%s (%s → %s over %s; threshold %g)",
				m.Name, verb, num(math.Abs(c.Delta)), unit, num(c.Old), num(c.New), english.Count(c.Items, "item", "items"), lim))
	}
	if n := len(r.NewlyInfinite); n > 0 {
		items := fmt.Sprintf("%d %s (%s)", n, results.Plural(n, "item", "items"), firstFew(r.NewlyInfinite, 5))
		add(metric.LogLikelihood, "finite", "−Inf", items, fmt.Sprintf("log-likelihood −Inf on %d %s finite in OLD (%s)",
			n, results.Plural(n, "item", "items"), firstFew(r.NewlyInfinite, 5)))
	}
	for _, f := range r.NewFailures {
		add(FailureMetric, "ok", "error", fmt.Sprintf("task %s: %s", f.Key, oneLine(f.Error)),
			fmt.Sprintf("task %s succeeded in OLD and fails in NEW: %s", f.Key, oneLine(f.Error)))
	}
	return out
}

// timeRegression is the regression of a row whose times regressed (timeVerdict).
func timeRegression(r *Row, th results.Thresholds) *regression {
	t := r.Time
	what := "median time"
	if t.Test == TestStratified {
		what = "time (geometric mean of the items' median ratios)"
	}
	return &regression{
		line: fmt.Sprintf("%s/%s: %s rose by %.1f%% (%ss → %ss, p=%.3f n=%s; threshold %g%%)",
			r.Dataset, r.Algorithm, what, 100*(t.Slowdown()-1), num(t.Old), num(t.New), t.P, t.N(), 100*timeThreshold(th)),
		finding: Finding{Metric: metric.Time, Dataset: r.Dataset, Algorithm: r.Algorithm, Old: num(t.Old) + "s", New: num(t.New) + "s",
			Figure: fmt.Sprintf("%+.1f%%, p=%.3f n=%s %s (threshold %g%%)", 100*(t.Slowdown()-1), t.P, t.N(), t.Test, 100*timeThreshold(th))},
	}
}

// num formats a mean or difference with enough digits to see a change at the default
// thresholds.
func num(v float64) string {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return "—"
	}
	return fmt.Sprintf("%.7g", v)
}

// firstFew lists up to n strings, saying how many more there are.
func firstFew(xs []string, n int) string {
	if len(xs) <= n {
		return strings.Join(xs, ", ")
	}
	return strings.Join(xs[:n], ", ") + fmt.Sprintf(", … (%d more)", len(xs)-n)
}

// oneLine keeps the first line of an error message.
func oneLine(s string) string {
	s, _, cut := strings.Cut(strings.TrimSpace(s), "\n")
	if cut {
		s += " …"
	}
	return s
}
