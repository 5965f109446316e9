package registry

import (
	"context"
	"errors"
	"math"
	"slices"

	"github.com/hcbench/hcbench/algorithms/linkage"
	"github.com/hcbench/hcbench/algorithms/model"
	"github.com/hcbench/hcbench/algorithms/model/correlation"
	"github.com/hcbench/hcbench/algorithms/tree"
	"github.com/hcbench/hcbench/experiments/item"
	"github.com/hcbench/hcbench/experiments/memory"
)

func init() {
	RegisterAlgorithm(Algorithm{
		Name:      "linkage",
		Help:      "classical agglomerative clustering (average, single, complete or Ward linkage, the trees of scipy's linkage) of feature vectors or of the correlation-clustering weights; its tree is scored under the data set's model",
		NewParams: func() Params { return &LinkageParams{} },
		Start:     Simple(solveLinkage),
		// One condensed distance array, n(n−1)/2 float64; none for single linkage of vectors.
		Memory: func(p Params, s item.Size, n int) int64 { return p.(*LinkageParams).memory(s.Dims, n) },
		CannotRun: func(p Params, s item.Size, _ int, _ Run) string {
			if p.(*LinkageParams).Method == "ward" && (s.Jets || s.Dims == 0) {
				return "ward linkage needs feature vectors (it is defined on Euclidean distances), which this data set does not have"
			}
			return ""
		},
		// The n×n distances, then the merges: 3e-8 s·n² (from 1e-8 on 4-D points to 1e-7 on 64
		// features in the shipped configs), beside 20 µs of a task's own (the tree, its score).
		Cost: func(_ Params, n int) float64 { return 2e-5 + 3e-8*square(n) },
	})
}

// LinkageParams: `linkage` is classical agglomerative clustering of feature vectors.
type LinkageParams struct {
	Method   string `yaml:"method" default:"average" help:"average (UPGMA; the authors' genomics baseline), single, complete, or ward (Ward's minimum variance: the Lance–Williams recurrence on squared Euclidean distances, for feature vectors with distance: euclidean only)"`
	Distance string `yaml:"distance" default:"euclidean" help:"euclidean (between the feature vectors) or weights (max(w) − w_ij from the correlation-clustering weights, as AstarTrellis)"`
}

// Check checks the linkage's parameters.
func (p *LinkageParams) Check(c Checker) {
	OneOf(c, "method", p.Method, "average", "single", "complete", "ward")
	OneOf(c, "distance", p.Distance, "euclidean", "weights")
	if p.Method == "ward" && p.Distance == "weights" {
		c.Bad("method", "ward needs distance: euclidean (Ward linkage is defined on Euclidean distances between feature vectors, and max(w) − w_ij are not)")
	}
}

// memory is the working memory for n leaves of dims features: the condensed distances
// (n(n−1)/2 float64), or for single linkage of vectors, which computes distances as it needs
// them, a copy of the points; and the merges, the dendrogram and the tree, about 128 bytes a
// leaf. Measured on linux/amd64: 100.2 MB live at n = 5000 (average linkage).
func (p *LinkageParams) memory(dims, n int) int64 {
	nn := int64(n)
	if p.Method == "single" && p.Distance == "euclidean" {
		return memory.Mul(nn, memory.Add(128, memory.Mul(8, int64(dims))))
	}
	return memory.Add(memory.Mul(4, memory.Mul(nn, nn-1)), memory.Mul(128, nn))
}

func solveLinkage(ctx context.Context, p *LinkageParams, t Task, _ Run) (Solution, error) {
	it := t.Item
	method := map[string]linkage.Method{"average": linkage.Average, "single": linkage.Single, "complete": linkage.Complete, "ward": linkage.Ward}[p.Method]
	var tr *tree.Tree
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
		if method == linkage.Single {
			tr, _, err = linkage.SingleEuclidean(ctx, it.Vectors) // no distance array
			break
		}
		var d []float64
		if d, err = linkage.Euclidean(ctx, it.Vectors); err != nil {
			return Solution{}, err
		}
		tr, _, err = linkage.Run(ctx, len(it.Vectors), d, method)
	case "weights":
		var m model.Model
		if m, err = NeedModel("linkage with distance: weights", it); err != nil {
			return Solution{}, err
		}
		cm, ok := m.(*correlation.Model)
		if !ok {
			return Solution{}, errors.New("distance: weights needs the correlation-clustering model of a vector data set")
		}
		w := cm.Weights()
		var d []float64
		if d, err = weightDistances(ctx, w); err != nil {
			return Solution{}, err
		}
		tr, _, err = linkage.Run(ctx, len(w), d, method)
	}
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
// (AstarTrellis Tree.execute_search), as the condensed array of linkage.Run. It looks at ctx
// once per row.
func weightDistances(ctx context.Context, w [][]float64) ([]float64, error) {
	top := math.Inf(-1)
	for i, row := range w {
		for j, v := range row {
			if i != j {
				top = max(top, v)
			}
		}
	}
	d := linkage.NewCondensed(len(w))
	k := 0
	for i, row := range w {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		for _, v := range row[i+1:] {
			d[k] = top - v
			k++
		}
	}
	return d, nil
}
