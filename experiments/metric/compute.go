package metric

import (
	"math"

	"github.com/hcbench/hcbench/experiments/results"
	"github.com/hcbench/hcbench/reports/metrics"
)

// inputCache holds what several metrics of one Input read, computed once.
type inputCache struct {
	purityDone bool
	leaf, pair float64
}

// ComputeAll returns the value of every computed metric of the table on in (Compute and
// Partition entries whose Needs in has), by key; a metric without a value (ok false, NaN or
// ±Inf) is left out. An item with Labels and no References is scored against one reference
// derived from the labels (LabelReferences). The runner stores the result as the record's
// Metrics.
func ComputeAll(in Input) map[string]float64 {
	if in.References == nil && in.Labels != nil {
		in.References = LabelReferences(in.Labels)
	}
	in.cache = &inputCache{}
	out := map[string]float64{}
	for _, m := range All() {
		if !m.Computed() || !in.has(m.Needs) {
			continue
		}
		var v float64
		var ok bool
		if m.Partition != nil {
			v, ok = partitionScore(m.Partition, in)
		} else {
			v, ok = m.Compute(in)
		}
		if ok && finite(v) {
			if len(m.Range) == 2 {
				// Rounding can put a score a few ulps past its bound (an AMI of
				// 1.0000000000000002 for identical partitions), which the schema refuses.
				v = min(max(v, m.Range[0]), m.Range[1])
			}
			out[m.Key] = v
		}
	}
	if len(out) == 0 {
		return nil
	}
	return out
}

// LabelReferences returns the one reference labelling of string class labels: the classes
// numbered 1, 2, … in the order of their first leaf, "" (unknown class) a noise point 0. It is
// nil when no leaf has a class.
func LabelReferences(labels []string) [][]int {
	ids := map[string]int{}
	ref := make([]int, len(labels))
	for i, l := range labels {
		if l == "" {
			continue
		}
		if ids[l] == 0 {
			ids[l] = len(ids) + 1
		}
		ref[i] = ids[l]
	}
	if len(ids) == 0 {
		return nil
	}
	return [][]int{ref}
}

// partitionScore is a partition metric of the tree on in: for each reference labelling, the tree
// cut at the reference's number of clusters k (its distinct non-zero labels; metrics.Cut, which
// says how heights, ties and rose trees are cut) and scored against it with its noise points (0)
// left out of both; the maximum over the references. ok is false when no reference has a cluster
// or none can be cut (k above the number of leaves).
func partitionScore(score func(pred, ref []int) float64, in Input) (float64, bool) {
	best, ok := math.Inf(-1), false
	for _, ref := range in.References {
		k := metrics.ReferenceClusters(ref)
		if k == 0 || len(ref) != in.Tree.Items() {
			continue
		}
		pred, err := metrics.Cut(in.Tree, in.Heights, k)
		if err != nil {
			continue
		}
		var p, r []int
		for i, c := range ref {
			if c != 0 {
				p, r = append(p, pred[i]), append(r, c)
			}
		}
		if v := score(p, r); finite(v) && v > best {
			best, ok = v, true
		}
	}
	return best, ok
}

// ThresholdKeys are the config keys of the thresholds: the metrics compare tracks, in table
// order (time included).
func ThresholdKeys() []string { return Keys(Tracked(Compare)) }

// DefaultThresholds returns the default thresholds of the metrics compare tracks.
func DefaultThresholds() results.Thresholds {
	th := results.Thresholds{}
	for _, m := range Tracked(Compare) {
		th[m.Key] = m.Threshold
	}
	return th
}

// ThresholdIn returns the metric's threshold in th: its own (under Key, else under one of its
// OldKeys, as an earlier build's manifest has it), else that of ThresholdOf, else its default.
func (m *Metric) ThresholdIn(th results.Thresholds) float64 {
	for _, k := range append([]string{m.Key}, m.OldKeys...) {
		if v, ok := th[k]; ok {
			return v
		}
	}
	if m.ThresholdOf != "" {
		if of, ok := Lookup(m.ThresholdOf); ok {
			return of.ThresholdIn(th)
		}
	}
	return m.Threshold
}

// Resolve returns th with every metric compare tracks under its current key: an old key renamed,
// a missing one its default. Keys the table does not know are dropped.
func Resolve(th results.Thresholds) results.Thresholds {
	out := results.Thresholds{}
	for _, m := range Tracked(Compare) {
		out[m.Key] = m.ThresholdIn(th)
	}
	return out
}

// BenchCounters returns the work counters that bench.txt writes for the records of a run: one
// per counter any record holds (CounterNames), with its unit (CounterUnit) and the direction of
// the counters' entry.
func BenchCounters(recs []results.Record) []results.BenchCounter {
	better := "lower"
	if Builtin(Counters).Better == HigherIsBetter {
		better = "higher"
	}
	var out []results.BenchCounter
	for _, k := range CounterNames(recs) {
		out = append(out, results.BenchCounter{Unit: CounterUnit(k), Better: better,
			Value: func(r *results.Record) (int64, bool) { return CounterOf(r, k) }})
	}
	return out
}

// BenchColumns returns the metrics that bench-quality.txt writes, for the records of a run.
func BenchColumns(recs []results.Record) []results.BenchColumn {
	run := NewRun(recs)
	var out []results.BenchColumn
	for _, m := range Tracked(Bench) {
		out = append(out, results.BenchColumn{Unit: m.BenchUnit, Better: m.BenchBetter(), Sign: m.BenchSign,
			Value: func(r *results.Record) (float64, bool) { return m.Of(r, run) }})
	}
	return out
}
