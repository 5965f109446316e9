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
		// BHC on the subsample of m points, then a pass over all n; with m ≥ n it is BHC.
		Memory: func(p Params, _ item.Size, n int) int64 {
			m := p.(*RBHCParams).M
			if m < 2 || m >= n {
				return pairMemory(n)
			}
			return memory.Add(pairMemory(m), memory.Mul(512, int64(n)))
		},
		// BHC on subsamples of m, each point filtered down about log₂ n levels: 5e-6 s·n·log₂ n;
		// with m ≥ n it is BHC.
		Cost: func(p Params, n int) float64 {
			if m := p.(*RBHCParams).M; m < 2 || m >= n {
				return 2.3e-7 * square(n)
			}
			return 5e-6 * float64(n) * math.Log2(float64(n))
		},
	})
}

// RBHCParams: `rbhc` is randomized BHC (Heller & Ghahramani's 2005 note, Fig. 3).
type RBHCParams struct {
	BHCParams `yaml:",inline"`
	M         int    `yaml:"m" default:"50" help:"subsample size; with m < 2 or m ≥ n, rbhc is bhc"`
	Filter    string `yaml:"filter" default:"note" help:"how points outside the subsample pick a side: note (π_L p(x|D_L) > π_R p(x|D_R), the note's Fig. 4) or logodds (the log-odds of merging x with each side, Bioconductor); ties go right"`
}

// Check checks RBHC's parameters.
func (p *RBHCParams) Check(v Checker) {
	p.BHCParams.Check(v)
	OneOf(v, "filter", p.Filter, "note", "logodds")
	if p.M < 0 {
		v.Bad("m", "must be 0 or positive, got %d", p.M)
	}
}

func solveRBHC(ctx context.Context, p *RBHCParams, t Task, _ Run) (Solution, error) {
	filter := bhc.FilterNote
	if p.Filter == "logodds" {
		filter = bhc.FilterLogOdds
	}
	run := func(ctx context.Context, m conjugate.Model, _ [][]float64, rng *rand.Rand) (bayesOutcome, error) {
		h, err := bhc.Randomized(ctx, m, bhcPrior(p.Prior, p.Alpha, p.Pi), rng, bhc.RandomizedOptions{M: p.M, Filter: filter})
		if err != nil {
			return bayesOutcome{}, err
		}
		return hierarchyOutcome(h, p.Cut, p.Merges), nil
	}
	return solveBayes(ctx, p.ClusterModel, bhc.TieRule, run, t, keepPrior)
}
