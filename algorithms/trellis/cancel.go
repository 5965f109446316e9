package trellis

import (
	"context"

	"github.com/hcbench/hcbench/algorithms/model"
)

// contextScorerModel is a model.SubsetModel whose subset tables can be built under a context:
// they cost O(2^N) or O(N·2^N) (seconds at N = 28), a phase that has to stop when the trellis's
// context is done.
type contextScorerModel interface {
	NewSubsetScorerContext(ctx context.Context) (model.SubsetScorer, error)
}

// newSubsetScorer builds m's subset scorer under ctx where the model can, and otherwise builds it
// and then looks at ctx.
func newSubsetScorer(ctx context.Context, m model.SubsetModel) (model.SubsetScorer, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if c, ok := m.(contextScorerModel); ok {
		return c.NewSubsetScorerContext(ctx)
	}
	sc, err := m.NewSubsetScorer()
	if err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return sc, nil
}
