package history

import (
	"cmp"
	"math"
	"slices"
	"strconv"

	"github.com/hcbench/hcbench/experiments/results"
)

// Direction says which way a metric gets better.
type Direction int

const (
	// Neither: a change either way is a change, not a regression (log Z depends on the model
	// and the data only, so any change of it means they changed).
	Neither Direction = iota
	// HigherIsBetter: a drop is a regression.
	HigherIsBetter
	// LowerIsBetter: a rise is a regression.
	LowerIsBetter
)

// Worse reports whether a change from a to b makes the metric worse.
func (d Direction) Worse(a, b float64) bool {
	switch d {
	case HigherIsBetter:
		return b < a
	case LowerIsBetter:
		return b > a
	}
	return false
}

// Metric is a quantity tracked per run, data set, algorithm and N: each record of a group gives
// a value (or none), and the group's values are summarised into one number per run.
type Metric struct {
	// Key names the metric in the database and in -bisect; Name says it on the page, and
	// Definition says there what one record's value is (results.Metric's, for the metrics
	// defined there).
	Key, Name, Unit string
	Definition      string
	Better          Direction
	// Median: the group's value is the median of its records' values; otherwise their mean.
	Median bool
	// Value returns a successful record's value; exact holds each item's exact MAP in the run.
	Value func(r *results.Record, exact map[results.ItemKey]float64) (float64, bool)
	// Tolerance is the smallest change that can be a step, given the thresholds of the
	// experiment's latest run (see DetectSteps).
	Tolerance func(th results.Thresholds) Tolerance
}

// Metric keys of the metrics that history adds to results.Metrics.
const (
	MetricTruthGap = results.MetricTruthGap
	MetricMAPShare = "map_share"
	MetricLogZ     = "log_z"
	MetricTime     = "time"
)

// TimeTolerance is the least change of a median task time that can be a step: more than 5 % of
// the level before (asv's default regression threshold), with the slower level at least 1 ms
// (compare's floor for a time regression: below it, a task's time is mostly the clock's, the
// scheduler's and the garbage collector's).
var TimeTolerance = Tolerance{Rel: 0.05, Floor: 1e-3}

// MAPTolerance is how close a tree must come to the exact MAP to reach it, relative to the
// MAP's magnitude: v ≥ MAP − MAPTolerance·max(1, |MAP|), the rule of the likelihood_gap report.
const MAPTolerance = 1e-6

// floatTolerance is the relative tolerance of every quality metric on top of its threshold:
// the rounding of a mean over items, as compare allows it.
const floatTolerance = 1e-12

// Metrics are the tracked metrics, in the order the page shows them: the quality metrics of
// results.Metrics (bench.txt's and compare's, with their thresholds), the gap to the generating
// tree, the share of items where the tree reaches the exact MAP, log Z, and the median task
// time.
var Metrics = buildMetrics()

func buildMetrics() []Metric {
	// fromResults is a metric that results defines, with its threshold as the tolerance.
	fromResults := func(m results.Metric, threshold func(results.Thresholds) float64) Metric {
		better := LowerIsBetter
		if m.Higher {
			better = HigherIsBetter
		}
		return Metric{
			Key: m.Key, Name: m.Name, Unit: m.Unit, Definition: m.Definition, Better: better, Value: m.Value,
			Tolerance: func(th results.Thresholds) Tolerance {
				return Tolerance{Abs: threshold(th), Rel: floatTolerance}
			},
		}
	}
	quality := map[string]Metric{}
	for _, m := range results.Metrics {
		quality[m.Key] = fromResults(m, m.Threshold)
	}
	// The gap is a difference of log-likelihoods: the log-likelihood's threshold.
	truthGap := fromResults(results.TruthGap, func(th results.Thresholds) float64 { return th.LogLikelihood })
	mapShare := Metric{
		Key: MetricMAPShare, Name: "share of items reaching the exact MAP", Better: HigherIsBetter,
		Definition: "1 when the tree's log-likelihood is at least the exact MAP's − 1e-6·max(1, |MAP|), else 0, so that the mean is the share of items; over the items where a trellis ran, the trellis's own trees left out.",
		Value: func(r *results.Record, exact map[results.ItemKey]float64) (float64, bool) {
			e, has := exact[results.ItemKey{Dataset: r.Dataset, Item: r.Item}]
			ll, ok := finite(r.LogLikelihood)
			if !has || !ok || r.AlgorithmName == results.ExactAlgorithm {
				return 0, false
			}
			if ll >= e-MAPTolerance*max(1, math.Abs(e)) {
				return 1, true
			}
			return 0, true
		},
		// Any item that stops (or starts) reaching the MAP changes the share.
		Tolerance: func(results.Thresholds) Tolerance { return Tolerance{Abs: 1e-9} },
	}
	logZ := Metric{
		Key: MetricLogZ, Name: "mean log Z", Unit: "nats", Better: Neither,
		Definition: "the log of the sum over all trees of their likelihood (the exact trellis's log Z, nats); any change means the model or the data changed.",
		Value:      func(r *results.Record, _ map[results.ItemKey]float64) (float64, bool) { return finite(r.LogZ) },
		Tolerance: func(th results.Thresholds) Tolerance {
			return Tolerance{Abs: th.LogLikelihood, Rel: floatTolerance}
		},
	}
	timeM := Metric{
		Key: MetricTime, Name: "median task time", Unit: "s", Better: LowerIsBetter, Median: true,
		Definition: "the task's wall time in seconds (the median of its times when it was timed repeatedly); the median over the group's tasks.",
		// Seconds is the median of the record's Times when the task was timed repeatedly.
		Value: func(r *results.Record, _ map[results.ItemKey]float64) (float64, bool) {
			return r.Seconds, r.Seconds >= 0
		},
		Tolerance: func(results.Thresholds) Tolerance { return TimeTolerance },
	}
	var out []Metric
	add := func(m Metric, ok bool) {
		if ok {
			out = append(out, m)
		}
	}
	gap, ok := quality[results.MetricExactGap]
	add(gap, ok)
	add(truthGap, true)
	add(mapShare, true)
	// The rest of results.Metrics in their order, so that a metric added there is tracked.
	for _, m := range results.Metrics {
		if m.Key != results.MetricExactGap {
			out = append(out, quality[m.Key])
		}
	}
	add(logZ, true)
	add(timeM, true)
	return out
}

// MetricByKey returns the metric of a key.
func MetricByKey(key string) (Metric, bool) {
	i := slices.IndexFunc(Metrics, func(m Metric) bool { return m.Key == key })
	if i < 0 {
		return Metric{}, false
	}
	return Metrics[i], true
}

// MetricKeys returns the keys of Metrics, in order.
func MetricKeys() []string {
	var out []string
	for _, m := range Metrics {
		out = append(out, m.Key)
	}
	return out
}

func finite(l *results.LogProb) (float64, bool) {
	if l == nil {
		return 0, false
	}
	v := l.Value()
	return v, !math.IsInf(v, 0) && !math.IsNaN(v)
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
// and algorithm label over every N, and summarises each group by every metric.
func Summarise(recs []results.Record) []Group {
	// Plan order (by name: data sets, items, algorithms), so that the means of a run whose
	// records were written in another order have the same bits.
	recs = slices.Clone(recs)
	results.SortPlanOrder(recs, nil, nil)
	exact := results.ExactMAP(recs)
	type acc struct {
		g    Group
		vals map[string][]float64
	}
	groups := map[GroupKey]*acc{}
	get := func(k GroupKey, r *results.Record) *acc {
		a := groups[k]
		if a == nil {
			a = &acc{g: Group{GroupKey: k, AlgorithmName: r.AlgorithmName, Values: map[string]float64{}, Items: map[string]int{}}, vals: map[string][]float64{}}
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
			for _, m := range Metrics {
				if v, ok := m.Value(r, exact); ok && !math.IsNaN(v) && !math.IsInf(v, 0) {
					a.vals[m.Key] = append(a.vals[m.Key], v)
				}
			}
		}
	}
	var out []Group
	for _, a := range groups {
		for _, m := range Metrics {
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
