package registry

import (
	"context"
	"math/rand/v2"

	"github.com/hcbench/hcbench/algorithms/bhc"
	"github.com/hcbench/hcbench/algorithms/conjugate"
	"github.com/hcbench/hcbench/experiments/item"
)

func init() {
	RegisterAlgorithm(Algorithm{
		Name:      "bhc",
		Help:      "Bayesian hierarchical clustering (Heller & Ghahramani 2005): greedy merges by the posterior r_k under a conjugate cluster model; log p(D|T), the Corollary-1 lower bound and flat clusters at r < 0.5; feature vectors only",
		NewParams: func() Params { return &BHCParams{} },
		Start:     Simple(solveBHC),
		Memory:    func(p Params, s item.Size, n int) int64 { return pairMemory(p.(*BHCParams).ClusterModel, s, n) },
		// Every pair's merge is scored once and kept in a heap (bhcPairSeconds).
		Cost:     func(p Params, n int) float64 { return p.(*BHCParams).runs() * bhcPairSeconds * square(n) },
		Counters: bhcCounters,
	})
}

// bhcCounters are greedy BHC's work counters: n² marginal likelihoods and (n−1)² merges scored on
// n points.
var bhcCounters = []Counter{
	mlCounter("one per tree node made and one per candidate merge scored, n² on n points"),
	mergesScoredCounter,
}

// BHCParams: `bhc` is greedy Bayesian hierarchical clustering (Heller & Ghahramani 2005).
type BHCParams struct {
	Prior        string  `yaml:"prior" default:"dp" help:"merge prior π_k: dp (the Dirichlet-process prior, with alpha) or fixed (π_k = pi for every merge)"`
	Alpha        float64 `yaml:"alpha" default:"1" help:"prior dp: the concentration α > 0 (Bioconductor BHC hard-codes 0.001)"`
	Pi           float64 `yaml:"pi" default:"0.5" help:"prior fixed: π in (0, 1)"`
	ClusterModel `yaml:",inline"`
	Cut          string `yaml:"cut" default:"top_down" help:"flat clusters from r_k < 0.5: top_down (from the root, split while r < 0.5; Bioconductor) or cut_every (remove every edge below a merge with r < 0.5; samvoisin's prune_tree)"`
	Merges       bool   `yaml:"merges" default:"false" help:"record every merge's size, log p(D_k|H1), log π_k, log r_k and log p(D_k|T_k)"`
}

// Check checks BHC's parameters.
func (p *BHCParams) Check(v Checker) {
	checkPrior(v, p.Prior, p.Alpha, p.Pi)
	p.ClusterModel.check(v, 20)
	checkCut(v, p.Cut)
}

func solveBHC(ctx context.Context, p *BHCParams, t Task, _ Run) (Solution, error) {
	run := func(ctx context.Context, m conjugate.Model, _ [][]float64, _ *rand.Rand) (bayesOutcome, error) {
		h, err := bhc.Run(ctx, m, bhcPrior(p.Prior, p.Alpha, p.Pi))
		if err != nil {
			return bayesOutcome{}, err
		}
		return hierarchyOutcome(h, p.Cut, p.Merges, bhcCounters), nil
	}
	return solveBayes(ctx, p.ClusterModel, bhc.TieRule, run, t, keepPrior)
}
