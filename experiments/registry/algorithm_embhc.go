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
		Name:      "embhc",
		Help:      "EMBHC (2005 note, Fig. 5): m clusters from a subsample, refined by hard EM, each resolved into a subtree (greedy BHC or RBHC), the subtrees merged by BHC",
		NewParams: func() Params { return &EMBHCParams{} },
		Start:     Simple(solveEMBHC),
		// BHC on m clusters and RBHC on each; greedy BHC on a cluster (resolve_m 0) costs its n_c².
		Memory: func(p Params, s item.Size, n int) int64 {
			e := p.(*EMBHCParams)
			if e.M < 2 || e.M >= n || e.ResolveM == 0 {
				return pairMemory(e.ClusterModel, s, n)
			}
			greedy := n // the largest set that gets greedy BHC; both factors below n cannot overflow
			if e.ResolveM < n && e.ResolveBase < n {
				greedy = min(e.ResolveM*e.ResolveBase, n)
			}
			return memory.Add(pairMemory(e.ClusterModel, s, max(min(e.M, n), greedy)), memory.Mul(embhcPointBytes, int64(n)))
		},
		// EM over m clusters, then RBHC within each: 3e-6 s·n·log₂ n, never less than BHC on m
		// points, so that the estimate does not fall as n grows; BHC's bhcPairSeconds·n² where
		// it is BHC, or resolves its clusters by greedy BHC (resolve_m 0).
		Cost: func(p Params, n int) float64 {
			e := p.(*EMBHCParams)
			if e.M < 2 || e.M >= n || e.ResolveM == 0 {
				return bhcPairSeconds * square(n)
			}
			return max(3e-6*float64(n)*math.Log2(float64(n)), bhcPairSeconds*square(e.M))
		},
		Counters: embhcCounters,
	})
}

// embhcCounters are EMBHC's work counters.
var embhcCounters = []Counter{
	mlCounter("one per point and subsample cluster of the first assignment, then those of the clusters' RBHC and of the final greedy BHC"),
	mergesScoredCounter,
	pointsFilteredCounter,
	{Key: "predictive_densities", Help: "posterior predictive densities of a point given a cluster computed by the hard-EM steps, one per point and cluster in each step, summed over the runs of cc: optimise"},
}

// EMBHCParams: `embhc` is BHC on clusters refined by hard EM (the 2005 note, Fig. 5).
type EMBHCParams struct {
	BHCParams   `yaml:",inline"`
	M           int `yaml:"m" default:"50" help:"number of clusters; with m < 2 or m ≥ n, embhc is bhc"`
	Steps       int `yaml:"steps" default:"10" help:"hard-EM steps k (≥ 0); EM stops early when no point moves"`
	ResolveM    int `yaml:"resolve_m" default:"100" help:"each cluster becomes a subtree by RBHC with this subsample size (greedy BHC for clusters of at most resolve_base·resolve_m points; 0: always greedy BHC, which costs Σ n_c²)"`
	ResolveBase int `yaml:"resolve_base" default:"4" help:"that RBHC's base (see rbhc): sets of at most resolve_base·resolve_m points get greedy BHC (≥ 1)"`
}

// Check checks EMBHC's parameters.
func (p *EMBHCParams) Check(v Checker) {
	p.BHCParams.Check(v)
	if p.M < 0 {
		v.Bad("m", "must be 0 or positive, got %d", p.M)
	}
	if p.Steps < 0 {
		v.Bad("steps", "must be 0 or positive, got %d", p.Steps)
	}
	if p.ResolveM < 0 {
		v.Bad("resolve_m", "must be 0 or positive, got %d", p.ResolveM)
	}
	if p.ResolveBase < 1 {
		v.Bad("resolve_base", "must be 1 or more, got %d", p.ResolveBase)
	}
}

func solveEMBHC(ctx context.Context, p *EMBHCParams, t Task, _ Run) (Solution, error) {
	run := func(ctx context.Context, m conjugate.Model, x [][]float64, rng *rand.Rand) (bayesOutcome, error) {
		h, err := bhc.EM(ctx, m, x, bhcPrior(p.Prior, p.Alpha, p.Pi), rng, bhc.EMOptions{M: p.M, Steps: p.Steps, ResolveM: p.ResolveM, ResolveBase: p.ResolveBase})
		if err != nil {
			return bayesOutcome{}, err
		}
		return hierarchyOutcome(h, p.Cut, p.Merges, embhcCounters), nil
	}
	return solveBayes(ctx, p.ClusterModel, bhc.TieRule, run, t, keepPrior)
}
