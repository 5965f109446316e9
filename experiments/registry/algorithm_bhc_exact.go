package registry

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/hcbench/hcbench/algorithms/bhc"
	"github.com/hcbench/hcbench/algorithms/conjugate"
	"github.com/hcbench/hcbench/experiments/item"
)

func init() {
	RegisterAlgorithm(Algorithm{
		Name:      "bhc_exact",
		Help:      "the best binary tree under BHC with a fixed π, by dynamic programming over all subsets (n ≤ 20; O(3^n)); its gap to bhc with prior fixed measures how far greedy search falls short",
		NewParams: func() Params { return &BHCExactParams{} },
		Start:     Simple(solveBHCExact),
		// 20 bytes a subset (bhc.MaxExactItems).
		Memory: func(_ Params, _ item.Size, n int) int64 {
			if n > bhc.MaxExactItems {
				return 0 // refused by CannotRun
			}
			return 20 << n
		},
		CannotRun: func(_ Params, _ item.Size, n int, _ Run) string {
			if n > bhc.MaxExactItems {
				return fmt.Sprintf("bhc_exact handles at most %d items, and its items have %d", bhc.MaxExactItems, n)
			}
			return ""
		},
		// Every split of every subset, 1.3e-9 s·3^n, and every subset's own work, 4e-7 s·2^n
		// (14 and 16 leaves in the shipped configs).
		Cost:     func(_ Params, n int) float64 { return 1.3e-9*math.Pow(3, float64(n)) + 4e-7*math.Pow(2, float64(n)) },
		Counters: bhcExactCounters,
	})
}

// bhcExactCounters are the exact program's work counters.
var bhcExactCounters = []Counter{
	mlCounter("one per non-empty subset of the n points, then 2n − 1 to score the optimal tree"),
	{Key: "splits", Help: "splits of a subset into two compared by the dynamic program, (3^n − 2^(n+1) + 1)/2 on n points, summed over the runs of cc: optimise"},
}

// BHCExactParams: `bhc_exact` is the best binary tree under a fixed π, by dynamic programming.
type BHCExactParams struct {
	Pi           float64 `yaml:"pi" default:"0.5" help:"the fixed merge prior π in (0, 1)"`
	ClusterModel `yaml:",inline"`
	Cut          string `yaml:"cut" default:"top_down" help:"flat clusters from r_k < 0.5, as for bhc"`
	Merges       bool   `yaml:"merges" default:"false" help:"record every merge's quantities, as for bhc"`
}

// Check checks bhc_exact's parameters.
func (p *BHCExactParams) Check(v Checker) {
	checkPi(v, p.Pi)
	p.ClusterModel.check(v, 20)
	checkCut(v, p.Cut)
}

func solveBHCExact(ctx context.Context, p *BHCExactParams, t Task, _ Run) (Solution, error) {
	run := func(ctx context.Context, m conjugate.Model, _ [][]float64, _ *rand.Rand) (bayesOutcome, error) {
		h, err := bhc.ExactFixed(ctx, m, p.Pi)
		if err != nil {
			return bayesOutcome{}, err
		}
		return hierarchyOutcome(h, p.Cut, p.Merges, bhcExactCounters), nil
	}
	return solveBayes(ctx, p.ClusterModel, bhc.ExactTieRule, run, t, nil)
}
