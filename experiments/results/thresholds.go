package results

import (
	"math"
	"reflect"
)

// Thresholds are the largest changes that compare accepts, per data set and algorithm, between
// the means of an earlier and a later run over the tasks both finished. A quality metric that
// gets worse by more than its threshold is a regression (exit 1), as is a task that succeeded
// before and fails now.
type Thresholds struct {
	LogLikelihood float64 `yaml:"log_likelihood" json:"log_likelihood" default:"1e-6" help:"largest drop of the mean log-likelihood (nats)"`
	ExactGap      float64 `yaml:"exact_gap" json:"exact_gap" default:"1e-6" help:"largest rise of the mean gap to the exact MAP (nats; items where a trellis ran)"`
	LogEvidence   float64 `yaml:"log_evidence" json:"log_evidence" default:"1e-6" help:"largest drop of the mean log evidence of the Bayesian algorithms (nats)"`
	Purity        float64 `yaml:"purity" json:"purity" default:"0.001" help:"largest drop of the mean dendrogram purity (leaf-weighted)"`
	Time          float64 `yaml:"time" json:"time" default:"0" help:"largest slowdown of the median task time, as a fraction (0.2: 20% slower), counted only when a Mann-Whitney U test finds the change significant (p < 0.05) and the slower median is at least 1 ms; counted only over at least 8 timings of the row in both runs (tasks × runs of each, see repeat), with both runs on one machine (host, CPUs and workers of their sessions); 0: time is reported, never a regression"`
}

// Metric is a quality metric of the records: what bench-quality.txt writes of a row, what
// compare compares between two runs and a threshold bounds. Metrics is the table that
// bench-quality.txt, compare, its flags and its output read; a new metric is a row there and its
// threshold's field of Thresholds, whose tags give the config key, its default and its help.
type Metric struct {
	// Key names the metric: its threshold's key (Thresholds' yaml tag) and, with '-' for '_',
	// compare's flag.
	Key string
	// Name says it in compare's regressions ("mean log-likelihood"), Short in its table
	// ("log-likelihood"), Unit is its unit there ("nats", or "" for none).
	Name, Short, Unit string
	// Definition says what one record's value is, with its sign, in a sentence that every output
	// showing the metric repeats (report notes, the history page, docs): the one definition of
	// its name.
	Definition string
	// Higher: a higher value is better (a drop beyond the threshold is a regression).
	Higher bool
	// BenchUnit is its unit in bench-quality.txt, BenchBetter "lower" or "higher" there, and
	// BenchSign the sign it is written with there: benchstat's text tables show a change as
	// new/old − 1 and ignore better=, so a log-likelihood falling from −52.88 to −52.93 would
	// read "+0.09%", as if it had risen; negated, it is positive and rises when it gets worse,
	// as sec/op does.
	BenchUnit, BenchBetter string
	BenchSign              float64
	// Value returns a successful record's value, ok false where it has none; exact holds the
	// exact MAP of each item of the run (ExactMAP).
	Value func(r *Record, exact map[ItemKey]float64) (v float64, ok bool)
}

// Threshold returns the metric's threshold in t.
func (m Metric) Threshold(t Thresholds) float64 {
	v, _ := t.Get(m.Key)
	return v
}

// Metric keys.
const (
	MetricLogLikelihood = "log_likelihood"
	MetricExactGap      = "exact_gap"
	MetricLogEvidence   = "log_evidence"
	MetricPurity        = "purity"
	MetricTruthGap      = "truth_gap"
)

// TruthAlgorithm is the algorithm_name of the generating tree, the reference of the truth-gap
// metric.
const TruthAlgorithm = "truth"

// A gap is always the reference's log-likelihood minus the tree's, in nats, so that every gap
// reads the same way: 0 at the reference, positive where the tree falls short of it, lower is
// better. The summary report, purity_by_item.csv, bench-quality.txt, compare and the history
// database and page all show gaps through ExactGap and TruthGap.

// Metrics are the quality metrics, in the order compare and bench-quality.txt show them.
var Metrics = []Metric{
	{
		Key: MetricLogLikelihood, Name: "mean log-likelihood", Short: "log-likelihood", Unit: "nats", Higher: true,
		Definition: "the log-likelihood of the tree under the data set's split model (natural log, nats); over the items where it is finite.",
		BenchUnit:  UnitNegLogLikelihood, BenchBetter: "lower", BenchSign: -1,
		Value: func(r *Record, _ map[ItemKey]float64) (float64, bool) { return finiteLog(r.LogLikelihood) },
	},
	ExactGap,
	{
		Key: MetricLogEvidence, Name: "mean log evidence", Short: "log evidence", Unit: "nats", Higher: true,
		Definition: "log p(D|T) of a Bayesian algorithm's tree under its cluster model (nats); over the items where it is finite.",
		BenchUnit:  UnitNegLogEvidence, BenchBetter: "lower", BenchSign: -1,
		Value: func(r *Record, _ map[ItemKey]float64) (float64, bool) { return finiteLog(r.LogEvidence) },
	},
	{
		Key: MetricPurity, Name: "mean dendrogram purity", Short: "purity", Higher: true,
		Definition: "the leaf-weighted dendrogram purity of the tree (the BHC paper's), between 0 and 1; over the labelled items.",
		BenchUnit:  UnitPurity, BenchBetter: "higher", BenchSign: 1,
		Value: func(r *Record, _ map[ItemKey]float64) (float64, bool) {
			if r.DendrogramPurity == nil || math.IsNaN(*r.DendrogramPurity) || math.IsInf(*r.DendrogramPurity, 0) {
				return 0, false
			}
			return *r.DendrogramPurity, true
		},
	},
}

// ExactGap is the gap to the exact MAP, one of Metrics.
var ExactGap = Metric{
	Key: MetricExactGap, Name: "mean gap to the exact MAP", Short: "gap to exact MAP", Unit: "nats",
	Definition: "the exact MAP log-likelihood (an exact trellis's, on the same item) minus the tree's, in nats: 0 when the tree reaches the MAP, positive when it falls short, lower is better; over the items where a trellis ran and both are finite, the trellis's own trees left out.",
	BenchUnit:  UnitExactGap, BenchBetter: "lower", BenchSign: 1,
	Value: func(r *Record, exact map[ItemKey]float64) (float64, bool) {
		e, has := exact[ItemKey{r.Dataset, r.Item}]
		ll, ok := finiteLog(r.LogLikelihood)
		if !has || !ok || r.AlgorithmName == ExactAlgorithm {
			return 0, false
		}
		return e - ll, true
	},
}

// TruthGap is the gap to the generating (truth) tree. It is not one of Metrics: compare needs no
// threshold of its own for it, since the truth tree's log-likelihood depends on the data alone,
// so that the log-likelihood's threshold bounds it; the summary report and history show it.
var TruthGap = Metric{
	Key: MetricTruthGap, Name: "mean gap to the truth tree", Short: "gap to truth", Unit: "nats",
	Definition: "the truth (generating) tree's log-likelihood minus the tree's, in nats: positive when the tree is less likely than the truth, negative when more likely, lower is better; over the items with a truth tree where both are finite, the truth's own trees left out.",
	Value: func(r *Record, _ map[ItemKey]float64) (float64, bool) {
		truth, ok1 := finiteLog(r.TruthLogLikelihood)
		ll, ok2 := finiteLog(r.LogLikelihood)
		if !ok1 || !ok2 || r.AlgorithmName == TruthAlgorithm {
			return 0, false
		}
		return truth - ll, true
	},
}

// finiteLog returns a log-probability's value when it is present and finite.
func finiteLog(l *LogProb) (float64, bool) {
	if l == nil {
		return 0, false
	}
	v := l.Value()
	return v, !math.IsInf(v, 0) && !math.IsNaN(v)
}

// Get returns the threshold of a metric key ("time" included), read off the field whose yaml
// tag is the key; ok is false for an unknown key.
func (t Thresholds) Get(key string) (v float64, ok bool) {
	f, ok := thresholdField(key)
	if !ok {
		return 0, false
	}
	return reflect.ValueOf(t).FieldByIndex(f.Index).Float(), true
}

// Set sets the threshold of a metric key ("time" included); ok is false for an unknown key.
func (t *Thresholds) Set(key string, v float64) bool {
	f, ok := thresholdField(key)
	if ok {
		reflect.ValueOf(t).Elem().FieldByIndex(f.Index).SetFloat(v)
	}
	return ok
}

// Help returns a threshold's help text (its help tag).
func (Thresholds) Help(key string) string {
	f, _ := thresholdField(key)
	return f.Tag.Get("help")
}

// thresholdField is the field of Thresholds whose yaml tag is key.
func thresholdField(key string) (reflect.StructField, bool) {
	t := reflect.TypeFor[Thresholds]()
	for i := range t.NumField() {
		if f := t.Field(i); f.Tag.Get("yaml") == key {
			return f, true
		}
	}
	return reflect.StructField{}, false
}
