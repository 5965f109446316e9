package metric

import (
	"math"

	"github.com/hcbench/hcbench/experiments/results"
	"github.com/hcbench/hcbench/reports/metrics"
)

// Keys of the built-in metrics.
const (
	LogLikelihood        = "log_likelihood"
	ExactGap             = "exact_gap"
	TruthGap             = "truth_gap"
	MAPShare             = "map_share"
	LogEvidence          = "log_evidence"
	DendrogramPurity     = "dendrogram_purity"
	DendrogramPurityPair = "dendrogram_purity_pair"
	FlatPurity           = "flat_purity"
	AdjustedPurity       = "adjusted_purity"
	LogZ                 = "log_z"
	// Time is the task time: in the table, with its own threshold rule (compare's Mann-Whitney
	// test, history's TimeTolerance) and bench.txt of its own.
	Time = "time"
	// Counters is the entry of the work counters (Metric.Counter).
	Counters = "counters"
)

// MAPTolerance is how close a tree must come to the exact MAP to reach it, relative to the
// MAP's magnitude: v ≥ MAP − MAPTolerance·max(1, |MAP|), the rule of the likelihood_gap report.
const MAPTolerance = 1e-6

// A gap is always the reference's log-likelihood minus the tree's, in nats, so that every gap
// reads the same way: 0 at the reference, positive where the tree falls short of it, lower is
// better. The summary report, purity_by_item.csv, bench-quality.txt, compare and the history
// database and page all show gaps through the ExactGap and TruthGap entries.

func init() {
	Register(Metric{
		Key: Counters, Name: "work counters", Short: "work", Better: LowerIsBetter, Order: 95,
		Definition: "the algorithm's exact counts of its work on the task (split energies evaluated, subsets and splits visited, marginal likelihoods computed, …; docs/algorithms.md lists each algorithm's), by counter; a row's value of a counter is its total over the row's items, the same on every run of a build, so that any change is a change of the code.",
		Counter:    true,
		Threshold:  0, ThresholdHelp: "largest relative rise of a work counter's total over a row's items (0: any rise is a regression)",
		Track: Compare | History | Page, // bench.txt writes each counter as a unit of its own
	})
	Register(Metric{
		Key: LogLikelihood, Name: "mean log-likelihood", Short: "log-likelihood", Unit: "nats", Better: HigherIsBetter, Order: 10,
		Definition: "the log-likelihood of the tree under the data set's split model (natural log, nats); over the items where it is finite.",
		Value:      func(r *results.Record, _ *Run) (float64, bool) { return finiteLog(r.LogLikelihood) },
		Threshold:  1e-6, ThresholdHelp: "largest drop of the mean log-likelihood (nats)",
		Track:     Compare | History | Bench | Page,
		BenchUnit: "neg-loglik", BenchSign: -1,
	})
	Register(Metric{
		Key: ExactGap, Name: "mean gap to the exact MAP", Short: "gap to exact MAP", Unit: "nats", Better: LowerIsBetter, Order: 20,
		Definition: "the exact MAP log-likelihood (an exact trellis's, on the same item) minus the tree's, in nats: 0 when the tree reaches the MAP, positive when it falls short, lower is better; over the items where a trellis ran and both are finite, the trellis's own trees left out.",
		Value: func(r *results.Record, run *Run) (float64, bool) {
			e, ll, ok := exactAndTree(r, run)
			return e - ll, ok
		},
		Threshold: 1e-6, ThresholdHelp: "largest rise of the mean gap to the exact MAP (nats; items where a trellis ran)",
		Track:     Compare | History | Bench | Page,
		BenchUnit: "exact-gap", BenchSign: 1,
	})
	// The gap to the truth needs no threshold of its own: the truth tree's log-likelihood
	// depends on the data alone, so the log-likelihood's threshold bounds it.
	Register(Metric{
		Key: TruthGap, Name: "mean gap to the truth tree", Short: "gap to truth", Unit: "nats", Better: LowerIsBetter, Order: 30,
		Definition: "the truth (generating) tree's log-likelihood minus the tree's, in nats: positive when the tree is less likely than the truth, negative when more likely, lower is better; over the items with a truth tree where both are finite, the truth's own trees left out.",
		Value: func(r *results.Record, _ *Run) (float64, bool) {
			truth, ok1 := finiteLog(r.TruthLogLikelihood)
			ll, ok2 := finiteLog(r.LogLikelihood)
			if !ok1 || !ok2 || r.HasRole(results.Truth) {
				return 0, false
			}
			return truth - ll, true
		},
		ThresholdOf: LogLikelihood,
		Track:       History,
	})
	Register(Metric{
		Key: MAPShare, Name: "share of items reaching the exact MAP", Short: "reaches MAP", Better: HigherIsBetter, Order: 40,
		Definition: "1 when the tree's log-likelihood is at least the exact MAP's − 1e-6·max(1, |MAP|), else 0, so that the mean is the share of items; over the items where a trellis ran, the trellis's own trees left out.",
		Value: func(r *results.Record, run *Run) (float64, bool) {
			e, ll, ok := exactAndTree(r, run)
			if ll >= e-MAPTolerance*max(1, math.Abs(e)) {
				return 1, ok
			}
			return 0, ok
		},
		// Any item that stops (or starts) reaching the MAP changes the share.
		Threshold: 1e-9,
		Track:     History,
	})
	Register(Metric{
		Key: LogEvidence, Name: "mean log evidence", Short: "log evidence", Unit: "nats", Better: HigherIsBetter, Order: 50,
		Definition: "log p(D|T) of a Bayesian algorithm's tree under its cluster model (nats); over the items where it is finite.",
		Value:      func(r *results.Record, _ *Run) (float64, bool) { return finiteLog(r.LogEvidence) },
		Threshold:  1e-6, ThresholdHelp: "largest drop of the mean log evidence of the Bayesian algorithms (nats)",
		Track:     Compare | History | Bench | Page,
		BenchUnit: "neg-log-evidence", BenchSign: -1,
	})
	Register(Metric{
		Key: DendrogramPurity, OldKeys: []string{"purity"}, Name: "mean dendrogram purity", Short: "purity", Better: HigherIsBetter, Order: 60,
		Needs: NeedsLabels, Range: []float64{0, 1},
		Definition: "the leaf-weighted dendrogram purity of the tree (the BHC paper's), between 0 and 1, over the leaves of known class; absent when no class has two labelled leaves.",
		Compute:    func(in Input) (float64, bool) { leaf, _ := in.purities(); return leaf, true },
		Threshold:  0.001, ThresholdHelp: "largest drop of the mean dendrogram purity (leaf-weighted)",
		Track:     Compare | History | Bench | Page,
		BenchUnit: "purity", BenchSign: 1,
	})
	Register(Metric{
		Key: DendrogramPurityPair, Name: "mean pair-weighted dendrogram purity", Short: "pair purity", Better: HigherIsBetter, Order: 61,
		Needs: NeedsLabels, Range: []float64{0, 1},
		Definition: "the pair-weighted dendrogram purity of the tree (Kobren et al. 2017's), between 0 and 1, over the leaves of known class; absent when no class has two labelled leaves.",
		Compute:    func(in Input) (float64, bool) { _, pair := in.purities(); return pair, true },
	})
	Register(Metric{
		Key: FlatPurity, Name: "mean flat purity", Short: "flat purity", Better: HigherIsBetter, Order: 70,
		Needs: NeedsLabels | NeedsClusters, Range: []float64{0, 1},
		Definition: "the purity of the algorithm's own flat clustering, between 0 and 1, over the leaves of known class (algorithms with a flat clustering).",
		Compute:    func(in Input) (float64, bool) { p, _ := metrics.FlatPurity(in.Clusters, in.Labels); return p, true },
	})
	Register(Metric{
		Key: AdjustedPurity, Name: "mean adjusted purity", Short: "adjusted purity", Better: HigherIsBetter, Order: 71,
		Needs: NeedsLabels | NeedsClusters, Range: []float64{0, 1},
		Definition: "the adjusted (top-k) purity of the algorithm's own flat clustering (Voisin & Klus's), between 0 and 1, over the leaves of known class (algorithms with a flat clustering).",
		Compute:    func(in Input) (float64, bool) { _, adj := metrics.FlatPurity(in.Clusters, in.Labels); return adj, true },
	})
	Register(Metric{
		Key: LogZ, Name: "mean log Z", Short: "log Z", Unit: "nats", Better: Neither, Order: 80,
		Definition:  "the log of the sum over all trees of their likelihood (the exact trellis's log Z, nats); any change means the model or the data changed.",
		Value:       func(r *results.Record, _ *Run) (float64, bool) { return finiteLog(r.LogZ) },
		ThresholdOf: LogLikelihood,
		Track:       History,
	})
	Register(Metric{
		Key: Time, Name: "median task time", Short: "time", Unit: "s", Better: LowerIsBetter, Order: 90, Median: true,
		Definition: "the task's wall time in seconds (the median of its times when it was timed repeatedly); the median over the group's tasks.",
		// Seconds is the median of the record's Times when the task was timed repeatedly.
		Value:         func(r *results.Record, _ *Run) (float64, bool) { return r.Seconds, r.Seconds >= 0 },
		ThresholdHelp: "largest slowdown of the median task time, as a fraction (0.2: 20% slower), counted only when a Mann-Whitney U test finds the change significant (p < 0.05) and the slower median is at least 1 ms; counted only over at least 8 timings of the row in both runs (tasks × runs of each, see repeat), with both runs on one machine (host, CPUs and workers of their sessions); 0: time is reported, never a regression",
		Track:         Compare | History | Page,
	})
}

// exactAndTree returns the exact MAP log-likelihood of a record's item and the record's tree's,
// ok false when either is missing or not finite, or the record is the exact algorithm's own.
func exactAndTree(r *results.Record, run *Run) (exact, tree float64, ok bool) {
	e, has := run.Exact[results.ItemKey{Dataset: r.Dataset, Item: r.Item}]
	ll, finite := finiteLog(r.LogLikelihood)
	return e, ll, has && finite && !r.HasRole(results.Exact)
}

// finiteLog returns a log-probability's value when it is present and finite.
func finiteLog(l *results.LogProb) (float64, bool) {
	if l == nil {
		return 0, false
	}
	v := l.Value()
	return v, finite(v)
}

// purities returns the tree's leaf- and pair-weighted dendrogram purities, computed once per
// input for the two metrics that read them.
func (in *Input) purities() (leaf, pair float64) {
	if in.cache == nil {
		in.cache = &inputCache{}
	}
	c := in.cache
	if !c.purityDone {
		c.leaf, c.pair, _ = metrics.DendrogramPurity(in.Tree, in.Labels)
		c.purityDone = true
	}
	return c.leaf, c.pair
}
