package registry

import (
	"context"
	"math/rand/v2"

	"github.com/hcbench/hcbench/algorithms/brt"
	"github.com/hcbench/hcbench/algorithms/conjugate"
	"github.com/hcbench/hcbench/experiments/item"
)

func init() {
	RegisterAlgorithm(Algorithm{
		Name:      "brt",
		Help:      "Bayesian rose trees (Blundell, Teh & Heller 2010): greedy join, absorb and collapse merges; rose trees with any number of children",
		NewParams: func() Params { return &BRTParams{} },
		Start:     Simple(solveBRT),
		Memory:    func(p Params, s item.Size, n int) int64 { return pairMemory(p.(*BRTParams).ClusterModel, s, n) },
		// Join, absorb and collapse of every pair, kept in a heap: 6e-7 s·n², from 4.4e-7 on 4-D
		// points to 1.1e-6 on 64 binary features and 1.5e-6 on 13-D (wine) in the shipped
		// configs.
		Cost:     func(p Params, n int) float64 { return p.(*BRTParams).runs() * 6e-7 * square(n) },
		Counters: brtCounters,
	})
}

// brtCounters are BRT's work counters.
var brtCounters = []Counter{
	mlCounter("one per leaf, one per pair of trees scored, and one per pair tied with the best at a step, evaluated again for the tie rule"),
	mergesScoredCounter,
	{Key: "operations_scored", Help: "join, absorb and collapse operations whose likelihood ratio was computed, on the pairs scored and the tied pairs evaluated again, summed over the runs of cc: optimise"},
}

// BRTParams: `brt` is greedy Bayesian rose trees (Blundell, Teh & Heller 2010).
type BRTParams struct {
	Gamma        float64 `yaml:"gamma" default:"0.5" help:"γ in (0, 1): a node with c children has π = 1 − (1−γ)^(c−1)"`
	ClusterModel `yaml:",inline"`
	JoinOnly     bool `yaml:"join_only" default:"false" help:"allow joins only (no absorb or collapse): fixed-π BHC with π = γ"`
}

// Check checks BRT's parameters.
func (p *BRTParams) Check(v Checker) {
	if !(p.Gamma > 0 && p.Gamma < 1) {
		v.Bad("gamma", "must lie in (0, 1), got %v", p.Gamma)
	}
	p.ClusterModel.check(v, 10)
}

func solveBRT(ctx context.Context, p *BRTParams, t Task, _ Run) (Solution, error) {
	run := func(ctx context.Context, m conjugate.Model, _ [][]float64, _ *rand.Rand) (bayesOutcome, error) {
		r, err := brt.Run(ctx, m, brt.Options{Gamma: p.Gamma, JoinOnly: p.JoinOnly})
		if err != nil {
			return bayesOutcome{}, err
		}
		w := r.Work
		return bayesOutcome{tree: r.Tree(), evidence: r.LogEvidence(), clusters: r.Clusters(), counters: workCounters(brtCounters, map[string]int64{
			"marginal_likelihoods": w.MarginalLikelihoods, "merges_scored": w.MergesScored, "operations_scored": w.OperationsScored,
		})}, nil
	}
	return solveBayes(ctx, p.ClusterModel, brt.TieRule, run, t, nil)
}
