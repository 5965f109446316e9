package registry

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"

	"github.com/hcbench/hcbench/algorithms/linkage"
	"github.com/hcbench/hcbench/algorithms/model"
	"github.com/hcbench/hcbench/algorithms/model/correlation"
	"github.com/hcbench/hcbench/algorithms/tree"
	"github.com/hcbench/hcbench/experiments/item"
	"github.com/hcbench/hcbench/experiments/memory"
	"github.com/hcbench/hcbench/internal/english"
)

func init() {
	RegisterAlgorithm(Algorithm{
		Name:      "linkage",
		Help:      "classical agglomerative clustering (average, single, complete, Ward, centroid or median linkage, the trees of scipy's linkage) of feature vectors or of the correlation-clustering weights; its tree is scored under the data set's model",
		NewParams: func() Params { return &LinkageParams{} },
		Start:     Simple(solveLinkage),
		// One condensed distance array, n(n−1)/2 float64; none for the linkages of vectors.
		Memory:     func(p Params, s item.Size, n int) int64 { return p.(*LinkageParams).memory(s.Dims, n) },
		MemoryHint: "use smaller items (points, rows, subsamples); " + vectorLinkages,
		CannotRun: func(p Params, s item.Size, n int, _ Run) string {
			return p.(*LinkageParams).cannotRun(s, n)
		},
		// The n×n distances, then the merges: 3e-8 s·n² (from 1e-8 on 4-D points to 1e-7 on 64
		// features in the shipped configs), beside 20 µs of a task's own (the tree, its score).
		// Fitted on the 68 ClustBench data sets of configs/clustbench.yaml (105 to 105,600
		// points, reference machine): the distance-array methods take about 1.5e-8·n² s, the
		// vector methods (Prim's tree, the centroid chains) about 2.6e-9·n² in the plane.
		Cost: func(p Params, n int) float64 {
			if p.(*LinkageParams).fromVectors() {
				return 2e-5 + 2.6e-9*square(n)
			}
			return 2e-5 + 1.5e-8*square(n)
		},
		Counters: []Counter{
			{Key: "distance_updates", Help: "distances to a merged cluster updated: Lance–Williams updates of the distance array (average, complete, ward; (n−1)(n−2)/2 on n points), updates of each point's distance to Prim's tree (single; n(n−1)/2), and the distances from lower slots to a merged cluster recomputed from the centroids (centroid, median); 0 for ward with vectors: true, which keeps no distances"},
			{Key: "neighbour_scans", Help: "scans of all remaining clusters for one cluster's nearest neighbour: nearest-neighbour chain links that an earlier scan could not answer (average, complete, ward), Prim's steps (single; n − 1), the generic algorithm's searches of the higher slots (centroid, median)"},
		},
	})
}

// LinkageParams: `linkage` is classical agglomerative clustering of feature vectors.
type LinkageParams struct {
	Method   string `yaml:"method" default:"average" help:"average (UPGMA; the authors' genomics baseline), single, complete, ward (Ward's minimum variance: the Lance–Williams recurrence on squared Euclidean distances), centroid (UPGMC: the distance of the clusters' centroids) or median (WPGMC: centroid linkage with a merged cluster at the midpoint of its parts); ward, centroid and median need feature vectors with distance: euclidean"`
	Distance string `yaml:"distance" default:"euclidean" help:"euclidean (between the feature vectors) or weights (max(w) − w_ij from the correlation-clustering weights, as AstarTrellis)"`
	Vectors  bool   `yaml:"vectors" default:"false" help:"ward only: true computes Ward linkage from the clusters' centroids and sizes, as fastcluster's linkage_vector, in O(n·d) memory (for items too large for n(n−1)/2 distances); false from the distances, scipy's tree bit for bit (the two differ only where rounding breaks an exact tie another way). Single, centroid and median linkage of feature vectors always run from the vectors"`
}

// vectorLinkages names the linkages that need no distance array, for the refusals of those that
// do.
const vectorLinkages = "ward (with vectors: true), centroid, median and single linkage of feature vectors run in O(n·d) memory"

// Check checks the linkage's parameters.
func (p *LinkageParams) Check(c Checker) {
	OneOf(c, "method", p.Method, "average", "single", "complete", "ward", "centroid", "median")
	OneOf(c, "distance", p.Distance, "euclidean", "weights")
	if p.needsVectors() && p.Distance == "weights" {
		c.Bad("method", "%s needs distance: euclidean (%s linkage is defined on Euclidean distances between feature vectors, and max(w) − w_ij are not)", p.Method, p.Method)
	}
	if p.Vectors && p.Method != "ward" {
		c.Bad("vectors", "is for method: ward (single, centroid and median linkage of feature vectors always run from the vectors; average and complete linkage need the distances)")
	}
}

// needsVectors says the method is defined on feature vectors only.
func (p *LinkageParams) needsVectors() bool {
	return p.Method == "ward" || p.Method == "centroid" || p.Method == "median"
}

// fromVectors says the tree is computed from the feature vectors without a distance array
// (linkage.Vectors).
func (p *LinkageParams) fromVectors() bool {
	return p.Distance == "euclidean" && (p.Method == "single" || p.Method == "centroid" || p.Method == "median" || p.Method == "ward" && p.Vectors)
}

// cannotRun says why the variant cannot run on an item of n leaves of a data set of size s: a
// method defined on feature vectors on data without them, or a distance array larger than the
// memory this process may use (refused before it is allocated, naming the linkages that need
// none).
func (p *LinkageParams) cannotRun(s item.Size, n int) string {
	if p.needsVectors() && (s.Jets || s.Dims == 0) {
		return p.Method + " linkage needs feature vectors (it is defined on Euclidean distances), which this data set does not have"
	}
	if p.fromVectors() {
		return ""
	}
	if need := p.memory(s.Dims, n); need > memory.Limit() {
		return fmt.Sprintf("%s linkage of %s points needs %s for its distance matrix, more than the %s this process may use; %s",
			p.Method, english.Thousands(n), memory.Format(need), memory.Describe(), vectorLinkages)
	}
	return ""
}

// memory is the working memory for n leaves of dims features: the condensed distances
// (n(n−1)/2 float64), or for the linkages of vectors, which compute distances as they need
// them, a copy of the points; and the merges, the dendrogram and the tree, about 128 bytes a
// leaf. Measured on linux/amd64: 100.2 MB live at n = 5000 (average linkage).
func (p *LinkageParams) memory(dims, n int) int64 {
	nn := int64(n)
	if p.fromVectors() {
		return memory.Mul(nn, memory.Add(128, memory.Mul(8, int64(dims))))
	}
	return memory.Add(memory.Mul(4, memory.Mul(nn, nn-1)), memory.Mul(128, nn))
}

func solveLinkage(ctx context.Context, p *LinkageParams, t Task, _ Run) (Solution, error) {
	it := t.Item
	method := map[string]linkage.Method{"average": linkage.Average, "single": linkage.Single, "complete": linkage.Complete, "ward": linkage.Ward,
		"centroid": linkage.Centroid, "median": linkage.Median}[p.Method]
	var tr *tree.Tree
	var heights []float64
	var work linkage.Work
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
		if p.fromVectors() {
			tr, heights, err = linkage.VectorsWork(ctx, it.Vectors, method, &work) // no distance array
			break
		}
		var d []float64
		if d, err = linkage.Euclidean(ctx, it.Vectors); err != nil {
			return Solution{}, err
		}
		tr, heights, err = linkage.RunWork(ctx, len(it.Vectors), d, method, &work)
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
		tr, heights, err = linkage.RunWork(ctx, len(w), d, method, &work)
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
	counters := map[string]int64{"distance_updates": work.DistanceUpdates, "neighbour_scans": work.NeighbourScans}
	return Solution{Tree: tr, LogLikelihood: ll, Heights: nodeHeights(tr, heights), Counters: counters}, nil
}

// nodeHeights returns the heights of a linkage tree by node (Solution.Heights): 0 for the leaves,
// and for node n+k, which merge k created (linkage's numbering), heights[k].
func nodeHeights(tr *tree.Tree, heights []float64) []float64 {
	n := len(tr.Nodes) - len(heights)
	return append(make([]float64, n, len(tr.Nodes)), heights...)
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
