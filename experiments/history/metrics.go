package history

import (
	"cmp"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/hcbench/hcbench/experiments/metric"
	"github.com/hcbench/hcbench/experiments/results"
)

// Direction says which way a metric gets better (the table's, package metric).
type Direction = metric.Direction

// The directions.
const (
	Neither        = metric.Neither
	HigherIsBetter = metric.HigherIsBetter
	LowerIsBetter  = metric.LowerIsBetter
)

// Metric is a quantity tracked per run, data set, algorithm and N: each record of a group gives
// a value (or none), and the group's values are summarised into one number per run.
type Metric struct {
	// Key names the metric in the database and in -bisect; Name says it on the page, and
	// Definition says there what one record's value is (the table's).
	Key, Name, Unit string
	Definition      string
	Better          Direction
	// Median: the group's value is the median of its records' values; otherwise their mean.
	Median bool
	// Value returns a successful record's value in its run.
	Value func(r *results.Record, run *metric.Run) (float64, bool)
	// Tolerance is the smallest change that can be a step, given the thresholds of the
	// experiment's latest run (see DetectSteps); for a work counter, the largest rise that is
	// not a regression (its Rel: the `counters` threshold).
	Tolerance func(th results.Thresholds) Tolerance
	// Exact marks a work counter: an exact count, whose every change is a step (ExactSteps),
	// never noise.
	Exact bool
}

// Metric keys that history treats specially.
const (
	MetricTruthGap = metric.TruthGap
	MetricMAPShare = metric.MAPShare
	MetricLogZ     = metric.LogZ
	MetricTime     = metric.Time
)

// TimeTolerance is the least change of a median task time that can be a step: more than 5 % of
// the level before (asv's default regression threshold), with the slower level at least 1 ms
// (compare's floor for a time regression: below it, a task's time is mostly the clock's, the
// scheduler's and the garbage collector's). A run's `time` threshold above 5 % raises it
// (TimeToleranceIn).
var TimeTolerance = Tolerance{Rel: 0.05, Floor: 1e-3}

// TimeToleranceIn is the time's tolerance under a run's thresholds: TimeTolerance, its relative
// part raised to the `time` threshold where that is larger, so that history calls no step that
// compare would not flag. Its Rel is the least slowdown the gate resolves (see TimeNoise).
func TimeToleranceIn(th results.Thresholds) Tolerance {
	t := TimeTolerance
	t.Rel = max(t.Rel, metric.Builtin(metric.Time).ThresholdIn(th))
	return t
}

// CounterPrefix begins the metric key of a work counter's series: counters.<key>.
const CounterPrefix = metric.Counters + "."

// CounterMetric is the metric of the work counter key: its total over a group's items, lower is
// better, exact (any change is a step), a rise beyond the run's `counters` threshold (a
// fraction of the level before; 0: any rise) a regression.
func CounterMetric(key string) Metric {
	m := metric.Builtin(metric.Counters)
	return Metric{
		Key: CounterPrefix + key, Name: "work counter " + key, Definition: m.Definition, Better: m.Better, Exact: true,
		Tolerance: func(th results.Thresholds) Tolerance { return Tolerance{Rel: m.ThresholdIn(th)} },
	}
}

// MAPTolerance is how close a tree must come to the exact MAP to reach it (metric.MAPTolerance).
const MAPTolerance = metric.MAPTolerance

// floatTolerance is the relative tolerance of every quality metric on top of its threshold:
// the rounding of a mean over items, as compare allows it.
const floatTolerance = 1e-12

// Metrics returns the tracked metrics, in the table's order: the metrics of package metric's
// table that history tracks (the gaps to the exact MAP and to the truth, the share of items
// reaching the MAP, the log-likelihood, the log evidence, the dendrogram purity, log Z and the
// median task time, and any metric registered since). A quality metric's tolerance is its
// threshold in the run (metric.Metric.ThresholdIn); the time's is TimeToleranceIn, a rule of its
// own as compare's Mann-Whitney test is. The work counters' entry is not among them: each
// counter is a metric of its own (CounterMetric), named by the records.
func Metrics() []Metric {
	var out []Metric
	for _, m := range metric.Tracked(metric.History) {
		if m.Counter {
			continue
		}
		hm := Metric{Key: m.Key, Name: m.Name, Unit: m.Unit, Definition: m.Definition, Better: m.Better, Median: m.Median, Value: m.Of,
			Tolerance: func(th results.Thresholds) Tolerance { return Tolerance{Abs: m.ThresholdIn(th), Rel: floatTolerance} }}
		if m.Key == MetricTime {
			hm.Tolerance = TimeToleranceIn
		}
		out = append(out, hm)
	}
	return out
}

// MetricByKey returns the metric of a key, or of one of its old keys (a database written by an
// earlier build names the dendrogram purity "purity"); counters.<key> is a work counter's
// (CounterMetric).
func MetricByKey(key string) (Metric, bool) {
	if c, ok := strings.CutPrefix(key, CounterPrefix); ok && metric.ValidCounterKey(c) {
		return CounterMetric(c), true
	}
	if m, ok := metric.Lookup(key); ok {
		key = m.Key
	}
	ms := Metrics()
	i := slices.IndexFunc(ms, func(m Metric) bool { return m.Key == key })
	if i < 0 {
		return Metric{}, false
	}
	return ms[i], true
}

// MetricKeys returns the keys of Metrics, in order.
func MetricKeys() []string {
	var out []string
	for _, m := range Metrics() {
		out = append(out, m.Key)
	}
	return out
}

// AllN is the N of a group of all the items of a data set and algorithm, whatever their size.
const AllN = 0

// GroupKey names a group of records of one run: a data set, an algorithm label and N (AllN for
// every item).
type GroupKey struct {
	Dataset, Algorithm string
	N                  int
}

// Group is the summary of a group of records.
type Group struct {
	GroupKey
	AlgorithmName string
	// Records counts the successful records and Failed the failed ones.
	Records, Failed int
	// Values holds each metric's value (by key) and Items the records it is over, for the
	// metrics that some record of the group has.
	Values map[string]float64
	Items  map[string]int
}

// Summarise groups the records of one run by data set, algorithm label and N, and by data set
// and algorithm label over every N, and summarises each group by every metric; the groups over
// every N also by each work counter that their successful records hold (counters.<key>: the
// total over those records, exact below 2⁵³).
func Summarise(recs []results.Record) []Group {
	// Plan order (by name: data sets, items, algorithms), so that the means of a run whose
	// records were written in another order have the same bits.
	recs = slices.Clone(recs)
	results.SortPlanOrder(recs, nil, nil)
	run := metric.NewRun(recs)
	ms := Metrics()
	type acc struct {
		g      Group
		vals   map[string][]float64
		counts map[string]int64
	}
	groups := map[GroupKey]*acc{}
	get := func(k GroupKey, r *results.Record) *acc {
		a := groups[k]
		if a == nil {
			a = &acc{g: Group{GroupKey: k, AlgorithmName: r.AlgorithmName, Values: map[string]float64{}, Items: map[string]int{}}, vals: map[string][]float64{}, counts: map[string]int64{}}
			groups[k] = a
		}
		return a
	}
	for i := range recs {
		r := &recs[i]
		for _, k := range []GroupKey{{r.Dataset, r.Algorithm, r.N}, {r.Dataset, r.Algorithm, AllN}} {
			a := get(k, r)
			if r.Error != "" {
				a.g.Failed++
				continue
			}
			a.g.Records++
			for _, m := range ms {
				if v, ok := m.Value(r, run); ok && !math.IsNaN(v) && !math.IsInf(v, 0) {
					a.vals[m.Key] = append(a.vals[m.Key], v)
				}
			}
			if k.N != AllN {
				continue
			}
			// A counter's series is over all N only: its total per N would repeat it.
			for c := range r.Counters {
				if v, ok := metric.CounterOf(r, c); ok {
					a.counts[c] += v
					a.g.Items[CounterPrefix+c]++
				}
			}
		}
	}
	var out []Group
	for _, a := range groups {
		for _, m := range ms {
			vs := a.vals[m.Key]
			if len(vs) == 0 {
				continue
			}
			if m.Median {
				a.g.Values[m.Key] = results.Median(vs)
			} else {
				a.g.Values[m.Key] = mean(vs)
			}
			a.g.Items[m.Key] = len(vs)
		}
		for c, v := range a.counts {
			a.g.Values[CounterPrefix+c] = float64(v)
		}
		out = append(out, a.g)
	}
	slices.SortFunc(out, func(a, b Group) int { return compareGroups(a.GroupKey, b.GroupKey) })
	return out
}

func compareGroups(a, b GroupKey) int {
	return cmp.Or(cmp.Compare(a.Dataset, b.Dataset), cmp.Compare(a.Algorithm, b.Algorithm), cmp.Compare(a.N, b.N))
}

// mean is the mean of xs, summed in order.
func mean(xs []float64) float64 {
	s := 0.0
	for _, x := range xs {
		s += x
	}
	return s / float64(len(xs))
}

// NLabel names a group's N in messages and on the page: "all N" or "N = 7".
func NLabel(n int) string {
	if n == AllN {
		return "all N"
	}
	return "N = " + strconv.Itoa(n)
}
