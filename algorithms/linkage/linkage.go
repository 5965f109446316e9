// Package linkage is classical agglomerative clustering: single, complete, average (UPGMA),
// Ward, centroid (UPGMC) and median (WPGMC) linkage. The first three are the baselines of the BHC paper (Table 1,
// ../shared/design/bayesian.md §11.1), and average linkage is the greedy baseline of the
// AstarTrellis code for the cancer-genomics experiment (../shared/design/pam50.md §4).
//
// The algorithms are those of scipy.cluster.hierarchy.linkage and fastcluster (Müllner 2011,
// "Modern hierarchical, agglomerative clustering algorithms", arXiv:1109.2378), on one condensed
// distance array of n(n−1)/2 float64 and no n×n matrix: the nearest-neighbour chain for average,
// complete and Ward linkage, with the Lance–Williams updates written into the array in place,
// and Prim's minimum spanning tree for single linkage. SingleEuclidean computes single linkage
// of feature vectors without any distance array, in O(n) memory, and Vectors Ward, centroid and
// median linkage of feature vectors from their centroids, in O(n·dims) memory (fastcluster's
// linkage_vector).
//
// Trees are numbered as scipy's linkage matrix Z and tree.FromMerges number them: the leaves
// 0..n−1 in input order, and merge k, the k-th in order of height, creates node n+k with
// children (smaller id, larger id). The heights are scipy's: for Ward linkage the Ward distance
// √(2|A||B|/(|A|+|B|))·‖c_A − c_B‖ of the merged clusters, computed by scipy's Lance–Williams
// update of Euclidean distances.
//
// Tie rule: scipy's (version 1.10). Average, complete and Ward linkage follow scipy's
// nearest-neighbour chain: a chain starts at the remaining cluster of lowest slot, where slot s
// first holds item s; its next link is the first slot, in increasing order, at the strictly
// smallest distance from the chain's tip, except that the previous link wins a tie; two
// reciprocal nearest neighbours merge, and the merged cluster takes the larger of their slots.
// Single linkage grows Prim's tree from item 0, adding the first item, in index order, at the
// smallest distance from the tree. The merges are then sorted by height, stably. Distances are
// compared exactly after the same floating-point operations as scipy's (its update formulas,
// evaluated in its order, never fused), so the trees are scipy's merge for merge, ties
// included: the tests compare them with trees written by scipy 1.10.1 (testdata/). There are
// two exceptions, both from rounding: a merge that rounding puts below one of its children's,
// which scipy's sort places first and its labelling then attaches to other clusters (another
// tree; Run keeps the one the algorithm built, see there), and a Ward update that rounding
// makes negative, NaN in scipy and 0 here.
package linkage

import (
	"context"
	"errors"
	"fmt"
	"math"

	"github.com/hcbench/hcbench/algorithms/tree"
)

// Method is a linkage criterion: the distance between two clusters as a function of the distances
// between their items.
type Method int

const (
	// Average is UPGMA: the mean of the |A|·|B| distances between the items of A and of B.
	Average Method = iota
	// Single is the minimum distance between an item of A and an item of B.
	Single
	// Complete is the maximum distance between an item of A and an item of B.
	Complete
	// Ward is Ward's minimum-variance criterion, √(2|A||B|/(|A|+|B|))·‖c_A − c_B‖ for the
	// centroids c_A and c_B: the Lance–Williams recurrence on squared Euclidean distances, in
	// the form scipy evaluates it (on the Euclidean distances, squaring and taking the root at
	// each update). It needs Euclidean distances between vectors.
	Ward
	// Centroid (UPGMC) is the distance ‖c_A − c_B‖ of the centroids. Only Vectors computes it.
	Centroid
	// Median (WPGMC) is Centroid with a merged cluster's centre at the midpoint of its parts'
	// centres, whatever their sizes. Only Vectors computes it.
	Median
)

// String returns "average", "single", "complete", "ward", "centroid" or "median".
func (m Method) String() string {
	switch m {
	case Average:
		return "average"
	case Single:
		return "single"
	case Complete:
		return "complete"
	case Ward:
		return "ward"
	case Centroid:
		return "centroid"
	case Median:
		return "median"
	}
	return fmt.Sprintf("Method(%d)", int(m))
}

// Run clusters n items with linkage m, given their distances as a condensed array d: the upper
// triangle of the symmetric n×n distance matrix, row by row, as scipy.spatial.distance.pdist
// writes it, so that the distance of items i < j is d[n·i − i(i+1)/2 + j − i − 1]. The entries
// may be any finite values, negative ones included, except for Ward linkage, which is meant for
// Euclidean distances and accepts any non-negative ones, as scipy does. It returns the binary
// tree and the merge heights: heights[k] is the linkage distance of the clusters joined by
// merge k, the one that creates node n+k.
//
// Run works in place: for average, complete and Ward linkage d is the working array and holds
// no distances afterwards; single linkage only reads it. Time is O(n²) (every nearest-neighbour
// chain link and every merge scans the remaining clusters once) and memory beyond d is O(n).
//
// The heights are non-decreasing in exact arithmetic. Rounding in the average and Ward updates
// can put a merge a few ulps below a merge of one of its children; such a merge is ordered
// after its children (scipy's stable sort would order it first and label the tree wrongly).
//
// Run returns an error for n < 1, len(d) ≠ n(n−1)/2, a NaN or ±Inf entry, a negative entry for
// Ward linkage, or an unknown method; and ctx.Err() if ctx is cancelled, looked at once per
// chain link or tree edge (O(n) work each).
func Run(ctx context.Context, n int, d []float64, m Method) (*tree.Tree, []float64, error) {
	return RunWork(ctx, n, d, m, &Work{})
}

// Work counts what a linkage did: exact counts of its steps, the same on every run on the same
// input, and independent of the machine (hcbench's work counters).
type Work struct {
	// DistanceUpdates is the number of distances to a merged cluster updated: the Lance–Williams
	// updates of the distance array by the nearest-neighbour chain (average, complete and Ward
	// linkage of Run: one per other remaining cluster at each merge, (n−1)(n−2)/2 for n items),
	// Prim's updates of each point outside the tree to its distance from the tree (single
	// linkage: one per outside point at each step, n(n−1)/2), and the distances from the clusters
	// in lower slots to a merged cluster, computed again from the centroids (centroid and median
	// linkage). Ward linkage of Vectors keeps no distances to update: 0.
	DistanceUpdates int64
	// NeighbourScans is the number of scans of all remaining clusters for one cluster's nearest
	// neighbour: the nearest-neighbour chain's links whose earlier scan could not answer (average,
	// complete and Ward linkage), Prim's steps (single linkage: n − 1), and the generic
	// algorithm's searches for a cluster's nearest neighbour in the higher slots (centroid and
	// median linkage).
	NeighbourScans int64
}

// RunWork is Run, adding the work it did to w.
func RunWork(ctx context.Context, n int, d []float64, m Method, w *Work) (*tree.Tree, []float64, error) {
	if err := ctx.Err(); err != nil {
		return nil, nil, err
	}
	if m == Centroid || m == Median {
		return nil, nil, fmt.Errorf("linkage: %v linkage needs the vectors (Vectors), not their distances", m)
	}
	if m < Average || m > Ward {
		return nil, nil, fmt.Errorf("linkage: unknown method %d", int(m))
	}
	if n < 1 {
		return nil, nil, errors.New("linkage: no items")
	}
	if want := n * (n - 1) / 2; len(d) != want {
		return nil, nil, fmt.Errorf("linkage: %d distances for %d items, want n(n−1)/2 = %d", len(d), n, want)
	}
	// One pass that only compares, as the entries are nearly always in range; the second pass,
	// with the error message or the scale, only for an entry out of it. Single linkage has no
	// pass of its own: it never overflows, and Prim's tree checks each entry as it reads it.
	limit := overflowLimit(n, m)
	lo := -limit
	if m == Ward {
		lo = 0
	}
	scale := 1.0
	if m != Single && !within(d, lo, limit) {
		top := 0.0
		for k, v := range d {
			if v-v != 0 || m == Ward && v < 0 { // NaN or ±Inf, or a negative distance for Ward
				i, j := pairOf(n, k)
				return nil, nil, badDistance(i, j, v)
			}
			top = max(top, math.Abs(v))
		}
		scale = overflowScale(top, limit)
		for k := range d {
			d[k] *= scale
		}
	}
	if n == 1 {
		t, err := tree.FromMerges(1, nil)
		return t, []float64{}, err
	}
	var ms []merge
	var err error
	if m == Single {
		ms, err = primCondensed(ctx, n, d, w)
	} else {
		ms, err = nnChain(ctx, n, d, m, w)
	}
	if err != nil {
		return nil, nil, err
	}
	for k := range ms {
		ms[k].h /= scale
	}
	return dendrogram(n, ms, m != Single)
}

// overflowLimit returns the largest distance in absolute value that the updates of method m
// take without overflow for n items: the average update sums up to n distances, the Ward
// update squares them.
func overflowLimit(n int, m Method) float64 {
	switch m {
	case Average:
		return math.MaxFloat64 / float64(4*n)
	case Ward:
		return 0x1p500
	}
	return math.MaxFloat64
}

// overflowScale returns 1 for finite distances up to top ≤ limit in absolute value, or else a
// power of two that brings them below limit. Scaling by it is exact unless entries become
// subnormal, and scales every update and every Ward root exactly, so the tree is the same.
func overflowScale(top, limit float64) float64 {
	if top <= limit {
		return 1
	}
	_, e := math.Frexp(top / limit) // top/limit < 2^e
	return math.Ldexp(1, -e)
}

// within reports whether lo ≤ v ≤ hi for every v in d (and so none is NaN).
func within(d []float64, lo, hi float64) bool {
	for _, v := range d {
		if !(v >= lo && v <= hi) {
			return false
		}
	}
	return true
}

// badDistance is the error for the distance v of items i and j: NaN, ±Inf, or negative for Ward
// linkage.
func badDistance(i, j int, v float64) error {
	return fmt.Errorf("linkage: the distance of items %d and %d is %v", min(i, j), max(i, j), v)
}

// index returns the position of the distance of items i < j in the condensed array of n items.
func index(n, i, j int) int { return n*i - i*(i+1)/2 + j - i - 1 }

// pairOf returns the items i < j whose distance is at position k of the condensed array of n
// items (the inverse of index), for error messages.
func pairOf(n, k int) (int, int) {
	i := 0
	for k >= n-1-i {
		k -= n - 1 - i
		i++
	}
	return i, i + 1 + k
}
