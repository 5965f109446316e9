package registry

import (
	"context"
	"math"
	"math/rand/v2"

	"github.com/hcbench/hcbench/algorithms/bhc"
	"github.com/hcbench/hcbench/algorithms/conjugate"
	"github.com/hcbench/hcbench/experiments/item"
	"github.com/hcbench/hcbench/experiments/memory"
)

func init() {
	RegisterAlgorithm(Algorithm{
		Name:      "rbhc",
		Help:      "randomized BHC (2005 note, Fig. 3): BHC on a random subsample of m points, filter the rest to its two sides, recurse; O(n log n)",
		NewParams: func() Params { return &RBHCParams{} },
		Start:     Simple(solveRBHC),
		// BHC on sets of at most base·m points, then a pass over all n; with base·m ≥ n it is BHC.
		Memory: func(p Params, s item.Size, n int) int64 {
			r := p.(*RBHCParams)
			if r.isBHC(n) {
				return pairMemory(r.ClusterModel, s, n)
			}
			return memory.Add(pairMemory(r.ClusterModel, s, r.Base*r.M), memory.Add(rbhcBytes, memory.Mul(rbhcPointBytes, int64(n))))
		},
		// BHC on subsamples of m, each point filtered down about log₂ n levels: 1.5e-6 s·n·log₂ n
		// (BenchmarkRandomized*/base=4, 100k to 1M points, 4-D); where it is BHC, BHC's bhcPairSeconds·n²,
		// and never less than BHC on base·m points, so that the estimate does not fall as n grows.
		Cost: func(p Params, n int) float64 {
			r := p.(*RBHCParams)
			if r.isBHC(n) {
				return bhcPairSeconds * square(n)
			}
			return max(1.5e-6*float64(n)*math.Log2(float64(n)), bhcPairSeconds*square(r.Base*r.M))
		},
		Counters: rbhcCounters,
	})
}

// rbhcCounters are RBHC's work counters.
var rbhcCounters = []Counter{
	mlCounter("one per tree node made (the discarded subsample trees' included), one per candidate merge scored, two per point filtered"),
	{Key: "merges_scored", Help: "candidate merges scored: the pairs of each subsample and each greedy set (a pair of points that several subsamples share once), then each new tree with every remaining one, and with filter: logodds two per point filtered, summed over the runs of cc: optimise"},
	pointsFilteredCounter,
}

// RBHCParams: `rbhc` is randomized BHC (Heller & Ghahramani's 2005 note, Fig. 3).
type RBHCParams struct {
	BHCParams `yaml:",inline"`
	M         int    `yaml:"m" default:"50" help:"subsample size; with m < 2 or base·m ≥ n, rbhc is bhc"`
	Base      int    `yaml:"base" default:"4" help:"sets of at most base·m points get greedy BHC instead of a subsample (≥ 1; 1 is Bioconductor's rule; the default 4 keeps the time n log n where deep splits are lopsided)"`
	Filter    string `yaml:"filter" default:"note" help:"how points outside the subsample pick a side: note (π_L p(x|D_L) > π_R p(x|D_R), the note's Fig. 4) or logodds (the log-odds of merging x with each side, Bioconductor); ties go right"`
}

// Check checks RBHC's parameters.
func (p *RBHCParams) Check(v Checker) {
	p.BHCParams.Check(v)
	OneOf(v, "filter", p.Filter, "note", "logodds")
	if p.M < 0 {
		v.Bad("m", "must be 0 or positive, got %d", p.M)
	}
	if p.Base < 1 {
		v.Bad("base", "must be 1 or more, got %d", p.Base)
	}
}

// isBHC reports whether RBHC on n points is greedy BHC.
func (p *RBHCParams) isBHC(n int) bool {
	return p.M < 2 || p.M >= n || p.Base >= n || p.Base*p.M >= n // both factors below n: no overflow
}

func solveRBHC(ctx context.Context, p *RBHCParams, t Task, _ Run) (Solution, error) {
	filter := bhc.FilterNote
	if p.Filter == "logodds" {
		filter = bhc.FilterLogOdds
	}
	run := func(ctx context.Context, m conjugate.Model, _ [][]float64, rng *rand.Rand) (bayesOutcome, error) {
		h, err := bhc.Randomized(ctx, m, bhcPrior(p.Prior, p.Alpha, p.Pi), rng, bhc.RandomizedOptions{M: p.M, Filter: filter, Base: p.Base})
		if err != nil {
			return bayesOutcome{}, err
		}
		return hierarchyOutcome(h, p.Cut, p.Merges, rbhcCounters), nil
	}
	return solveBayes(ctx, p.ClusterModel, bhc.TieRule, run, t, keepPrior)
}
