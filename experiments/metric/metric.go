// Package metric is hcbench's table of quality metrics: one entry per metric, registered from an
// init function (Register), declares its key, its words, its unit, its direction, what it needs of
// an item, how it is computed (from the tree on an item, from a cut of the tree at each reference
// labelling's number of clusters, or from a record and its run), its default regression
// threshold, and which outputs track it. Records (a metric computed from the tree is a top-level
// column of results.jsonl named by its key), the record JSON Schema, docs/results.md, the config's
// thresholds, compare, bench-quality.txt, history and the page all read this table, so adding a
// metric is one file; a test can register one from a _test.go file. docs/extending.md walks
// through an example.
//
// The table is ordered: All returns the entries in the order of their Order field (ties in the
// order of registration), which is the order every output lists them in.
package metric

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"sync"

	"github.com/hcbench/hcbench/algorithms/model"
	"github.com/hcbench/hcbench/algorithms/tree"
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

// Words says the direction in a sentence: "higher is better", "lower is better" or "neither
// direction is better".
func (d Direction) Words() string {
	switch d {
	case HigherIsBetter:
		return "higher is better"
	case LowerIsBetter:
		return "lower is better"
	}
	return "neither direction is better"
}

// Needs says what a computed metric needs of an item; the runner computes it only on the items
// that have all of it.
type Needs uint

const (
	// NeedsLabels: the item's class labels (Input.Labels).
	NeedsLabels Needs = 1 << iota
	// NeedsReferences: reference labellings (Input.References; an item with labels has one,
	// derived from them).
	NeedsReferences
	// NeedsModel: a split model (Input.Model).
	NeedsModel
	// NeedsVectors: the leaves' vectors, for distances (Input.Vectors).
	NeedsVectors
	// NeedsHeights: merge heights of the tree (Input.Heights).
	NeedsHeights
	// NeedsClusters: the algorithm's own flat clustering (Input.Clusters).
	NeedsClusters
)

// Track says which outputs track a metric.
type Track uint

const (
	// Compare: hcbench compare compares it between runs (its flag, its column, its regressions);
	// its threshold is a config key.
	Compare Track = 1 << iota
	// History: the history database and page track it.
	History
	// Bench: bench-quality.txt writes its mean per row (BenchUnit, BenchSign).
	Bench
	// Page: the run's page lists its threshold.
	Page
	// Summary: the summary report has a column of its mean ± std per data set and algorithm
	// (a computed metric; the purities have the purity report instead).
	Summary
)

// Input is what a computed metric is given of one task: the algorithm's tree on the item and
// the item's data, all in the item's leaf order (the order the algorithm was given the leaves).
type Input struct {
	// Tree is the returned tree (binary or rose) over the item's leaves 0..N−1.
	Tree *tree.Tree
	// Heights are the tree's merge heights by node (leaves 0); nil when the algorithm has none.
	Heights []float64
	// Clusters is the algorithm's flat clustering (lists of leaves); nil when it has none.
	Clusters [][]int
	// Labels are the leaves' classes ("" unknown); nil when the data have none.
	Labels []string
	// References are the reference labellings (each by leaf: 0 noise, 1..k clusters): the
	// item's own, or one derived from Labels (LabelReferences); nil when there are none.
	References [][]int
	// Vectors are the leaves' vectors; nil for jets.
	Vectors [][]float64
	// Model is the item's split model; nil when it has none.
	Model model.Model

	cache *inputCache // what several metrics read, computed once (ComputeAll makes it)
}

// has reports whether in holds everything of needs.
func (in *Input) has(needs Needs) bool {
	for _, c := range []struct {
		need Needs
		ok   bool
	}{
		{NeedsLabels, in.Labels != nil}, {NeedsReferences, len(in.References) > 0}, {NeedsModel, in.Model != nil},
		{NeedsVectors, in.Vectors != nil}, {NeedsHeights, in.Heights != nil}, {NeedsClusters, in.Clusters != nil},
	} {
		if needs&c.need != 0 && !c.ok {
			return false
		}
	}
	return true
}

// Metric is one entry of the table.
type Metric struct {
	// Key names the metric: its record column (a computed metric's), its threshold's config key
	// and, with '-' for '_', compare's flag. Lower-case letters, digits and '_'.
	Key string
	// OldKeys are keys the metric had in earlier builds: a config's thresholds, a manifest's and
	// a history database's series under one of them are read as Key.
	OldKeys []string
	// Name says it in compare's regressions and on the history page ("mean log-likelihood"),
	// Short in tables ("log-likelihood"), and Unit is its unit there ("nats", "s", or "" for none).
	Name, Short, Unit string
	// Definition says what one record's value is, with its sign, in a sentence that every output
	// showing the metric repeats (the schema, docs/results.md, report notes, the history page):
	// the one definition of its name.
	Definition string
	// Better is the direction in which the metric improves.
	Better Direction
	// Range is the closed interval of a computed metric's values ([0, 1] for a purity), which the
	// record schema states; nil: unbounded.
	Range []float64
	// Needs is what Compute and Partition need of an item.
	Needs Needs
	// Order places the metric in All (ascending; ties in registration order).
	Order int

	// Exactly one of Compute, Partition, Value and Counter computes the metric.
	//
	// Compute returns the metric of a tree on an item, ok false where it has none (NaN and ±Inf
	// count as none); the runner calls it for every successful task whose item has what Needs
	// says, and the value is the record's column Key.
	Compute func(in Input) (v float64, ok bool)
	// Partition scores a flat partition pred (1..k per leaf) against a reference labelling ref
	// (0 noise, 1..k clusters; noise points are left out of pred and ref before the call). The
	// table cuts the tree at each reference's number of clusters (its distinct non-zero labels)
	// and keeps the maximum over the references; the value is the record's column Key.
	Partition func(pred, ref []int) float64
	// Value derives the metric from a successful record and its run (log-likelihood, gaps, time):
	// ok false where the record has none. It is nil for a computed metric, whose value is its
	// column (ColumnValue).
	Value func(r *results.Record, run *Run) (v float64, ok bool)
	// Counter marks the entry of the work counters (Record.Counters): not one value but one
	// series per counter name an algorithm reports, each an exact count that is the same on
	// every run of a build on an item, so that any change of it is a change of the code, never
	// noise. Of has no value for it; compare, history and bench.txt read the counters by name
	// (CounterNames, CounterOf) under this entry's direction and threshold.
	Counter bool

	// Threshold is the default regression threshold: the largest worsening of the mean that
	// compare accepts (a metric tracked by compare; its config key is Key), and the least change
	// that history calls a step.
	Threshold float64
	// ThresholdOf names the metric whose threshold bounds this one, which has none of its own
	// (the gap to the truth tree and log Z are differences of log-likelihoods).
	ThresholdOf string
	// ThresholdHelp says what the threshold bounds, for `help config` and compare's flag.
	ThresholdHelp string
	// Median: a group's value is the median of its records' values (time); otherwise their mean.
	Median bool
	// Track says which outputs track the metric.
	Track Track
	// BenchUnit is the metric's unit in bench-quality.txt and BenchSign the sign it is written
	// with there: benchstat's text tables show a change as new/old − 1 and ignore better=, so a
	// log-likelihood falling from −52.88 to −52.93 would read "+0.09%", as if it had risen;
	// negated, it is positive and rises when it gets worse, as sec/op does.
	BenchUnit string
	BenchSign float64
}

// Run is the context of a run that a record-derived metric reads beside the record.
type Run struct {
	// Exact holds the exact MAP log-likelihood of each item where the exact algorithm ran
	// (results.ExactMAP).
	Exact map[results.ItemKey]float64
}

// NewRun returns the context of a run's records.
func NewRun(recs []results.Record) *Run { return &Run{Exact: results.ExactMAP(recs)} }

// Computed reports whether the metric is computed from the tree on an item (Compute or
// Partition), so that records hold it as their column Key.
func (m *Metric) Computed() bool { return m.Compute != nil || m.Partition != nil }

// Of returns a successful record's value of the metric, ok false where it has none.
func (m *Metric) Of(r *results.Record, run *Run) (float64, bool) {
	if m.Counter {
		return 0, false
	}
	if m.Value != nil {
		return m.Value(r, run)
	}
	v, ok := r.Metrics[m.Key]
	return v, ok && finite(v)
}

// BenchBetter is the metric's better= in bench-quality.txt: its direction, turned by BenchSign.
func (m *Metric) BenchBetter() string {
	if (m.Better == HigherIsBetter) == (m.BenchSign > 0) {
		return "higher"
	}
	return "lower"
}

var (
	mu    sync.RWMutex
	table []*Metric
)

// Register adds a metric to the table. A bad entry is a mistake in the program, so it panics at
// start-up (registration runs from init functions): an empty or repeated key or old key, a key
// that is a field of results.Record, not exactly one of Compute, Partition and Value, a metric
// tracked by bench-quality.txt without its unit and sign, or a ThresholdOf that is not
// registered before it.
func Register(m Metric) {
	mu.Lock()
	defer mu.Unlock()
	fail := func(format string, args ...any) {
		panic(fmt.Sprintf("metric %q: %s", m.Key, fmt.Sprintf(format, args...)))
	}
	if !validKey(m.Key) {
		fail("a key must be lower-case letters, digits and '_'")
	}
	for _, k := range append([]string{m.Key}, m.OldKeys...) {
		if find(k) != nil {
			fail("key %q registered twice", k)
		}
	}
	if m.Computed() && results.IsRecordField(m.Key) {
		fail("a computed metric's column must not be a field of the record")
	}
	n := 0
	for _, f := range []bool{m.Compute != nil, m.Partition != nil, m.Value != nil, m.Counter} {
		if f {
			n++
		}
	}
	if n != 1 {
		fail("exactly one of Compute, Partition, Value and Counter must be set")
	}
	if m.Track&Bench != 0 && (m.BenchUnit == "" || m.BenchSign == 0) {
		fail("tracked by bench-quality.txt without BenchUnit and BenchSign")
	}
	if m.ThresholdOf != "" && find(m.ThresholdOf) == nil {
		fail("ThresholdOf %q is not registered", m.ThresholdOf)
	}
	if m.Name == "" || m.Short == "" || m.Definition == "" {
		fail("Name, Short and Definition are required")
	}
	e := m
	i := len(table)
	for i > 0 && table[i-1].Order > e.Order {
		i--
	}
	table = slices.Insert(table, i, &e)
}

// Unregister removes a metric registered by a test, so that the test leaves the table as it was.
func Unregister(key string) {
	mu.Lock()
	defer mu.Unlock()
	table = slices.DeleteFunc(table, func(m *Metric) bool { return m.Key == key })
}

func validKey(s string) bool {
	if s == "" {
		return false
	}
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '_') {
			return false
		}
	}
	return true
}

// find is Lookup with mu held.
func find(key string) *Metric {
	for _, m := range table {
		if m.Key == key || slices.Contains(m.OldKeys, key) {
			return m
		}
	}
	return nil
}

// All returns the metrics in table order (see the package doc). The entries are shared: do not
// modify them.
func All() []*Metric {
	mu.RLock()
	defer mu.RUnlock()
	return slices.Clone(table)
}

// Tracked returns the metrics that track t, in table order.
func Tracked(t Track) []*Metric {
	var out []*Metric
	for _, m := range All() {
		if m.Track&t != 0 {
			out = append(out, m)
		}
	}
	return out
}

// Lookup returns the metric of a key or of one of its old keys.
func Lookup(key string) (*Metric, bool) {
	mu.RLock()
	defer mu.RUnlock()
	m := find(key)
	return m, m != nil
}

// Keys returns the keys of metrics, in order.
func Keys(ms []*Metric) []string {
	out := make([]string, len(ms))
	for i, m := range ms {
		out[i] = m.Key
	}
	return out
}

// Flag is compare's flag of a metric: its key with '-' for '_'.
func (m *Metric) Flag() string { return strings.ReplaceAll(m.Key, "_", "-") }

func finite(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }

// Builtin returns the entry of a built-in metric's key (the constants of this package), which is
// always registered.
func Builtin(key string) *Metric {
	m, ok := Lookup(key)
	if !ok {
		panic("metric: no built-in metric " + key)
	}
	return m
}

// CounterNames returns the work counter keys that any of recs holds, sorted.
func CounterNames(recs []results.Record) []string {
	seen := map[string]bool{}
	for i := range recs {
		for k := range recs[i].Counters {
			seen[k] = true
		}
	}
	out := make([]string, 0, len(seen))
	for k := range seen {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// CounterOf returns a successful record's value of the work counter key, ok false where it has
// none (a failed task, an algorithm that does not count it, a build before counters).
func CounterOf(r *results.Record, key string) (int64, bool) {
	if r.Error != "" {
		return 0, false
	}
	v, ok := r.Counters[key]
	return v, ok
}

// CounterUnit is a work counter's unit in bench.txt: its key with '-' for '_' (benchfmt units
// are words; benchstat prints them as the tables' titles).
func CounterUnit(key string) string { return strings.ReplaceAll(key, "_", "-") }

// ValidCounterKey reports whether key can name a work counter: lower-case letters, digits and
// '_', as a metric key.
func ValidCounterKey(key string) bool { return validKey(key) }
