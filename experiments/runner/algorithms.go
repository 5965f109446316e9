package runner

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"

	"hcbench/algorithms/greedy"
	"hcbench/algorithms/tree"
	"hcbench/experiments/config"
	"hcbench/experiments/inputs"
)

// solution is what an algorithm returns for a record.
type solution struct {
	tree          *tree.Tree
	logLikelihood float64
	warnings      []string
}

// solve runs one algorithm variant on an item. rng is the task's own stream.
func solve(ctx context.Context, a config.Algorithm, it *inputs.Item, rng *rand.Rand) (solution, error) {
	_ = rng // no algorithm of this build draws random numbers yet
	switch a.Params.(type) {
	case *config.TruthParams:
		if it.Truth == nil {
			return solution{}, errors.New("the item has no generating tree")
		}
		return solution{tree: it.Truth, logLikelihood: it.TruthLogLikelihood}, nil
	case *config.GreedyParams:
		r, err := greedy.Run(ctx, it.Model)
		if err != nil {
			return solution{}, err
		}
		return solution{tree: r.Tree, logLikelihood: r.LogLikelihood}, nil
	}
	return solution{}, fmt.Errorf("algorithm %q is not implemented by the runner", a.Name)
}
