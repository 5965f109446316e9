package metrics

import (
	"fmt"
	"math"

	"github.com/hcbench/hcbench/algorithms/tree"
)

// crossPairs calls f(v, i, j) once for every unordered pair of items i, j with v their lowest
// common ancestor (leaves of different children of v), in O(n²) calls and O(N) memory: the
// items are laid out in depth-first order, so that every node's items are one run of it.
func crossPairs(t *tree.Tree, f func(v, i, j int)) {
	order := make([]int, 0, len(t.Nodes))
	start := make([]int, len(t.Nodes)) // a node's run is order[start[v]:end[v]]
	end := make([]int, len(t.Nodes))
	for _, v := range t.PostOrder() {
		nd := t.Nodes[v]
		if nd.IsLeaf() {
			start[v] = len(order)
			order = append(order, nd.Item)
			end[v] = len(order)
			continue
		}
		// Post-order appends the children's runs one after another.
		start[v], end[v] = start[nd.Children[0]], end[nd.Children[len(nd.Children)-1]]
		for a, ca := range nd.Children {
			for _, cb := range nd.Children[a+1:] {
				for _, i := range order[start[ca]:end[ca]] {
					for _, j := range order[start[cb]:end[cb]] {
						f(v, i, j)
					}
				}
			}
		}
	}
}

// DasguptaCost returns Dasgupta's cost (STOC 2016) of t for the similarity sim,
//
//	cost = Σ_{i<j} sim(i, j)·|leaves(lca(i, j))|,
//
// the sum over pairs of items of their similarity times the number of items below their lowest
// common ancestor: a tree that separates similar items low down costs little; lower is better.
// For a node of more than two children (a rose tree), the pairs it separates are those in
// different children. ratio is cost / (n·Σ_{i<j} sim(i, j)), the cost relative to the flat tree
// (every item a child of the root), the largest cost any tree can have: it lies in (0, 1] and
// does not grow with n as the raw cost (O(n³)) does, so it is the one to compare across data
// sets. ratio is NaN when no pair has a non-zero similarity (and for a single item).
//
// sim must be symmetric and non-negative. DasguptaCost calls it once per pair, n(n−1)/2 times,
// and needs O(N) memory for N nodes. t must be valid (tree.Validate).
func DasguptaCost(t *tree.Tree, sim func(i, j int) float64) (cost, ratio float64) {
	size := make([]int, len(t.Nodes))
	for _, v := range t.PostOrder() {
		if t.Nodes[v].IsLeaf() {
			size[v] = 1
		}
		for _, c := range t.Nodes[v].Children {
			size[v] += size[c]
		}
	}
	// Each node's similarities are summed, then weighted once by its size.
	nodeSum := make([]float64, len(t.Nodes))
	crossPairs(t, func(v, i, j int) { nodeSum[v] += sim(i, j) })
	total := 0.0
	for v, s := range nodeSum {
		cost += s * float64(size[v])
		total += s
	}
	n := size[t.Root]
	return cost, cost / (float64(n) * total)
}

// GaussianSimilarity is the similarity of vector items that the benchmark's Dasgupta cost uses:
// the Gaussian kernel sim(i, j) = exp(−‖x_i − x_j‖²/(2σ²)), with σ² the mean squared Euclidean
// distance over the pairs of distinct items. That bandwidth equals 2n/(n−1) times the total
// variance (the sum of the columns' population variances), so it costs O(n·d), not the O(n²)
// time and memory of a median pairwise distance; it makes the similarity invariant to a common
// scale of the data, and it keeps the similarity in (0, 1], so no pair dominates the cost as
// the unbounded 1/d would. x holds one vector per item, all of one length, with no NaN. With
// fewer than two items, or all vectors equal, every similarity is 1.
func GaussianSimilarity(x [][]float64) func(i, j int) float64 {
	n := len(x)
	sigma2 := 0.0
	if n >= 2 {
		for k := range x[0] {
			mean := 0.0
			for _, v := range x {
				mean += v[k]
			}
			mean /= float64(n)
			ss := 0.0
			for _, v := range x {
				ss += (v[k] - mean) * (v[k] - mean)
			}
			sigma2 += ss / float64(n)
		}
		sigma2 *= 2 * float64(n) / float64(n-1)
	}
	if sigma2 == 0 {
		return func(i, j int) float64 { return 1 }
	}
	return func(i, j int) float64 {
		d2 := 0.0
		for k, a := range x[i] {
			d := a - x[j][k]
			d2 += d * d
		}
		return math.Exp(-d2 / (2 * sigma2))
	}
}

// CopheneticCorrelation returns the cophenetic correlation coefficient of t with heights (by
// node, len(t.Nodes), as Cut takes them): the Pearson correlation over the pairs of items of
// their distance dist(i, j) and their cophenetic distance, the height of their lowest common
// ancestor, as scipy.cluster.hierarchy.cophenet(Z, Y) returns it. Higher is better: 1 when the
// tree's heights reproduce the distances up to a linear map. A rose tree's node gives all the
// pairs it separates its height. The result is NaN when either distance is constant over the
// pairs (fewer than two pairs, a flat tree, or equal distances).
//
// It calls dist once per pair, n(n−1)/2 times, and needs O(N) memory: the moments are updated
// one pair at a time (Welford's update, which is as accurate as the two passes of scipy's
// centred sums). t must be valid; an error is returned when len(heights) ≠ len(t.Nodes) or an
// internal node's height is not finite.
func CopheneticCorrelation(t *tree.Tree, heights []float64, dist func(i, j int) float64) (float64, error) {
	if len(heights) != len(t.Nodes) {
		return math.NaN(), fmt.Errorf("metrics: cophenetic correlation: %d heights for %d nodes", len(heights), len(t.Nodes))
	}
	for v, nd := range t.Nodes {
		if !nd.IsLeaf() && (math.IsNaN(heights[v]) || math.IsInf(heights[v], 0)) {
			return math.NaN(), fmt.Errorf("metrics: cophenetic correlation: node %d has height %v", v, heights[v])
		}
	}
	var m, mx, my, sxx, syy, sxy float64
	crossPairs(t, func(v, i, j int) {
		x, y := dist(i, j), heights[v]
		m++
		dx := x - mx
		mx += dx / m
		dy := y - my
		my += dy / m
		sxx += dx * (x - mx)
		syy += dy * (y - my)
		sxy += dx * (y - my)
	})
	if sxx == 0 || syy == 0 {
		return math.NaN(), nil
	}
	return sxy / math.Sqrt(sxx*syy), nil
}
