package registry

import (
	"context"
	"errors"
	"math"
	"slices"

	"github.com/hcbench/hcbench/algorithms/linkage"
	"github.com/hcbench/hcbench/algorithms/model"
	"github.com/hcbench/hcbench/algorithms/model/correlation"
	"github.com/hcbench/hcbench/experiments/item"
	"github.com/hcbench/hcbench/experiments/memory"
)

func init() {
	RegisterAlgorithm(Algorithm{
		Name:      "linkage",
		Help:      "classical agglomerative clustering (average, single or complete linkage) of feature vectors; its tree is scored under the data set's model",
		NewParams: func() Params { return &LinkageParams{} },
		Start:     Simple(solveLinkage),
		// Two n×n float64 matrices: the distances and the routine's working copy.
		Memory: func(_ Params, _ item.Size, n int) int64 { return memory.Mul(16, memory.Mul(int64(n), int64(n))) },
	})
}

// LinkageParams: `linkage` is classical agglomerative clustering of feature vectors.
type LinkageParams struct {
	Method   string `yaml:"method" default:"average" help:"average (UPGMA; the authors' genomics baseline), single or complete"`
	Distance string `yaml:"distance" default:"euclidean" help:"euclidean (between the feature vectors) or weights (max(w) − w_ij from the correlation-clustering weights, as AstarTrellis)"`
}

// Check checks the linkage's parameters.
func (p *LinkageParams) Check(c Checker) {
	OneOf(c, "method", p.Method, "average", "single", "complete")
	OneOf(c, "distance", p.Distance, "euclidean", "weights")
}

func solveLinkage(ctx context.Context, p *LinkageParams, t Task, _ Run) (Solution, error) {
	it := t.Item
	var d [][]float64
	var err error
	switch p.Distance {
	case "euclidean":
		if it.Vectors == nil {
			return Solution{}, errors.New("linkage needs feature vectors, which this data set does not have")
		}
		for _, row := range it.Vectors {
			if slices.ContainsFunc(row, math.IsNaN) {
				return Solution{}, errors.New("euclidean linkage needs complete vectors; use missing: zero")
			}
		}
		if d, err = linkage.Euclidean(ctx, it.Vectors); err != nil {
			return Solution{}, err
		}
	case "weights":
		cm, ok := it.Model.(*correlation.Model)
		if !ok {
			return Solution{}, errors.New("distance: weights needs the correlation-clustering model of a vector data set")
		}
		if d, err = weightDistances(ctx, cm.Weights()); err != nil {
			return Solution{}, err
		}
	}
	method := map[string]linkage.Method{"average": linkage.Average, "single": linkage.Single, "complete": linkage.Complete}[p.Method]
	tr, _, err := linkage.Run(ctx, d, method)
	if err != nil {
		return Solution{}, err
	}
	ll := math.NaN()
	if it.Model != nil {
		if ll, err = model.TreeLogLikelihood(it.Model, tr); err != nil {
			return Solution{}, err
		}
	}
	return Solution{Tree: tr, LogLikelihood: ll}, nil
}

// weightDistances turns correlation-clustering weights into distances, d_ij = max(w) − w_ij
// (AstarTrellis Tree.execute_search), with a zero diagonal. It looks at ctx once per row.
func weightDistances(ctx context.Context, w [][]float64) ([][]float64, error) {
	top := math.Inf(-1)
	for i, row := range w {
		for j, v := range row {
			if i != j {
				top = max(top, v)
			}
		}
	}
	d := make([][]float64, len(w))
	for i, row := range w {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		d[i] = make([]float64, len(row))
		for j, v := range row {
			if i != j {
				d[i][j] = top - v
			}
		}
	}
	return d, nil
}
