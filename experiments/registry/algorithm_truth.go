package registry

import (
	"context"
	"errors"

	"github.com/hcbench/hcbench/experiments/results"
)

func init() {
	RegisterAlgorithm(Algorithm{
		Name:      Truth,
		Role:      results.Truth,
		Help:      "scores the generating tree (data sets that have one; other items get no truth task)",
		NewParams: func() Params { return &NoParams{} },
		Start:     Simple(solveTruth),
		// One pass over the generating tree: 6e-8 s·n.
		Cost: func(_ Params, n int) float64 { return 6e-8 * float64(n) },
	})
}

// Truth is the name of the algorithm that scores an item's generating tree (results.Truth its
// role).
const Truth = "truth"

func solveTruth(_ context.Context, _ *NoParams, t Task, _ Run) (Solution, error) {
	if t.Item.Truth == nil {
		return Solution{}, errors.New("the item has no generating tree")
	}
	return Solution{Tree: t.Item.Truth, LogLikelihood: t.Item.TruthLogLikelihood}, nil
}
