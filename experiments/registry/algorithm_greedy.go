package registry

import (
	"context"

	"github.com/hcbench/hcbench/algorithms/greedy"
	"github.com/hcbench/hcbench/experiments/results"
)

func init() {
	RegisterAlgorithm(Algorithm{
		Name:      "greedy",
		Role:      results.Baseline,
		Help:      "greedy agglomeration: merge the pair with the largest split log-likelihood until one cluster is left (ties: the pair with the smallest right position in the list of clusters, then the smallest left one, as StandardHC)",
		NewParams: func() Params { return &NoParams{} },
		Start:     Simple(solveGreedy),
		// The pairs' split scores, rescored where a merge changes them: 2.5e-7 s·n² on jets of 6
		// to 80 leaves and pam50's 12 in the shipped configs.
		Cost: func(_ Params, n int) float64 { return 2.5e-7 * square(n) },
		Counters: []Counter{
			{"energies", "pair evaluations: log ψ of a pair of current clusters, N(N−1)/2 at the start, then after each merge the new cluster's pairs and those of the clusters that lost their best partner"},
		},
	})
}

func solveGreedy(ctx context.Context, _ *NoParams, t Task, _ Run) (Solution, error) {
	m, err := NeedModel("greedy", t.Item)
	if err != nil {
		return Solution{}, err
	}
	r, err := greedy.Run(ctx, m)
	if err != nil {
		return Solution{}, err
	}
	return Solution{Tree: r.Tree, LogLikelihood: r.LogLikelihood, Counters: map[string]int64{"energies": r.Energies}}, nil
}
