package linkage

import (
	"context"
	"fmt"
	"math"

	"github.com/hcbench/hcbench/algorithms/tree"
)

// Vectors returns the linkage tree of the rows of x under Euclidean distance, and its merge
// heights, without a distance array: memory O(n·dims), where Run's array takes n(n−1)/2 float64
// (80 GB at n = 100,000). This is fastcluster's linkage_vector (Müllner 2013, J. Stat. Softw.
// 53(9), §3): the clusters are kept as their centroids and sizes, and the linkage distance of
// two clusters is computed from them when it is needed.
//
//   - Single: SingleEuclidean.
//   - Ward: the nearest-neighbour chain (as Run's) on the Ward distances
//     2·|A||B|/(|A|+|B|)·‖c_A − c_B‖² of the centroids, in O(n²·dims) time. The heights are
//     their roots, as scipy's linkage and fastcluster report them.
//   - Centroid: the distance of the centroids ‖c_A − c_B‖, the merged cluster at the
//     size-weighted mean of the two.
//   - Median (WPGMC): the same with the merged cluster at the midpoint of the two, whatever
//     their sizes.
//
// Centroid and median linkage are not reducible: a merge can be closer to a third cluster than
// either part was, so the nearest-neighbour chain does not apply, and the heights can decrease
// (inversions). They use the generic algorithm of scipy's fast_linkage and fastcluster
// (Müllner 2011, arXiv:1109.2378, Fig. 3): each cluster keeps its nearest neighbour among the
// clusters of higher slot, a lower bound of that distance in a heap, and a pair is merged when
// the smallest bound is the distance itself. Time O(n²·dims) in practice, O(n³·dims) at worst.
//
// Trees are numbered as Run's. Ward's merges are sorted by height as Run sorts them; centroid
// and median merges are kept in the order they are made, as scipy and fastcluster keep them, so
// that merge k still creates node n+k but heights[k] may be lower than heights[k−1].
//
// Tie rule. Ward: Run's (scipy's nearest-neighbour chain), on distances computed from the
// centroids, where scipy updates a distance matrix: exact ties (duplicate points, integer grids)
// are met in the same order as scipy meets them where both compute the tied distances exactly.
// Centroid and median: the pair merged is that of the smallest distance, at a tie the one whose
// lower slot is lowest, then the first higher slot. scipy takes the top of its heap, whose order
// among equal keys depends on the heap's history, so at an exact tie between two pairs the order
// of those merges can differ from scipy's (the tree is the same when the tied pairs are
// disjoint).
//
// Distances are computed as fastcluster computes them (squared, from the centroids; Ward's as
// the squared distance times |A||B|/(|A|+|B|)); scipy's linkage instead updates Euclidean
// distances by the Lance–Williams formulas. The two agree to a few ulps, and so do the trees
// except where two distances are within rounding of each other.
//
// The rows must have equal lengths and finite entries. Vectors returns an error otherwise, for
// no rows, for a method that needs the distances of the items (Average, Complete: use Run), or
// ctx.Err() if ctx is cancelled (looked at once per chain link or merge, O(n·dims) work each).
func Vectors(ctx context.Context, x [][]float64, m Method) (*tree.Tree, []float64, error) {
	return VectorsWork(ctx, x, m, &Work{})
}

// VectorsWork is Vectors, adding the work it did to w.
func VectorsWork(ctx context.Context, x [][]float64, m Method, w *Work) (*tree.Tree, []float64, error) {
	switch m {
	case Single:
		return singleEuclidean(ctx, x, w)
	case Ward, Centroid, Median:
	default:
		return nil, nil, fmt.Errorf("linkage: %v linkage is not defined on centroids; use Run on the distances", m)
	}
	if err := ctx.Err(); err != nil {
		return nil, nil, err
	}
	pts, err := flatten(x)
	if err != nil {
		return nil, nil, err
	}
	n, dims := len(x), len(x[0])
	if n == 1 {
		t, err := tree.FromMerges(1, nil)
		return t, []float64{}, err
	}
	scale := vectorScale(pts, n)
	if scale != 1 {
		for k := range pts {
			pts[k] *= scale
		}
	}
	c := newCentroids(n, dims, pts)
	var ms []merge
	if m == Ward {
		ms, err = wardChain(ctx, c, w)
	} else {
		ms, err = generic(ctx, c, m, w)
	}
	if err != nil {
		return nil, nil, err
	}
	for k := range ms {
		ms[k].h /= scale
	}
	if m == Ward {
		return dendrogram(n, ms, true)
	}
	return inOrder(n, ms)
}

// vectorScale returns 1, or a power of two that brings the largest coordinate of pts below
// 2^200: the squared distances, times cluster sizes up to n, then stay far from overflow. Scaling
// by it is exact unless coordinates become subnormal, and so are the centroids' updates.
func vectorScale(pts []float64, n int) float64 {
	top := 0.0
	for _, v := range pts {
		top = max(top, math.Abs(v))
	}
	return overflowScale(top, 0x1p200)
}

// centroids is the working state of the vector linkages: m slots, each a cluster's centroid
// (dims coordinates), size and first item, the slots of the merged clusters marked dead. Slot s
// first holds item s; a merge keeps the merged cluster in the larger slot of the two, as Run's
// chain does.
type centroids struct {
	m, dims int
	cen     []float64 // m·dims: slot s's centroid at cen[s·dims:]; NaN once dead
	size    []float64 // by slot: its cluster's size
	item    []int32   // by slot: the item it first held, which names it in the merges
	live    int       // the number of live slots
}

func newCentroids(n, dims int, pts []float64) *centroids {
	c := &centroids{m: n, dims: dims, cen: pts, size: make([]float64, n), item: make([]int32, n), live: n}
	for s := range n {
		c.size[s], c.item[s] = 1, int32(s)
	}
	return c
}

// point returns slot s's centroid.
func (c *centroids) point(s int) []float64 { return c.cen[s*c.dims : (s+1)*c.dims] }

// dead reports whether slot s's cluster has been merged into another.
func (c *centroids) dead(s int) bool { return math.IsNaN(c.size[s]) }

// sq returns the squared distance of slots s and t's centroids.
func (c *centroids) sq(s, t int) float64 { return sqDist(c.point(s), c.point(t)) }

// ward returns the Ward distance of slots s and t, halved: |A||B|/(|A|+|B|)·‖c_A − c_B‖².
func (c *centroids) ward(s, t int) float64 {
	return wardOf(c.sq(s, t), c.size[s], c.size[t])
}

// wardOf is the halved Ward distance d2·(a·b)/(a+b) of clusters of sizes a and b whose
// centroids are at squared distance d2. It is symmetric bit for bit, as the chain needs: the
// product of the sizes (exact, below 2^53) and their sum do not depend on the order. For a dead
// slot (size NaN) it is NaN. The explicit conversion rounds the product, so that no compiler
// fuses it into a multiply-add that wardRow2AVX2 does not use.
func wardOf(d2, a, b float64) float64 { return float64(d2*float64(a*b)) / (a + b) }

// wardRow2Go is wardRow2 in Go.
func wardRow2Go(p0, p1, nx float64, q, size, row []float64) {
	q, size = q[:2*len(row)], size[:len(row)]
	for j := range row {
		u, w := q[2*j]-p0, q[2*j+1]-p1
		row[j] = wardOf(float64(u*u)+float64(w*w), nx, size[j])
	}
}

// join merges slot x's cluster into slot y's, its centroid at the size-weighted mean of the two
// (as fastcluster's merge_inplace computes it) or, for median linkage, at their midpoint, and
// marks x dead.
func (c *centroids) join(x, y int, m Method) {
	px, py := c.point(x), c.point(y)
	nx, ny := c.size[x], c.size[y]
	for k := range py {
		if m == Median {
			py[k] = (px[k] + py[k]) * 0.5
		} else {
			py[k] = (float64(px[k]*nx) + float64(py[k]*ny)) / (nx + ny)
		}
	}
	for k := range px {
		px[k] = math.NaN()
	}
	c.size[x], c.size[y] = math.NaN(), nx+ny
	c.live--
}

// wardChain is the nearest-neighbour chain of nnChain on the Ward distances of the centroids:
// the chain starts at the lowest live slot, a link's next is the first slot at the strictly
// smallest distance except that the previous link wins a tie, reciprocal nearest neighbours
// merge into the larger slot. It returns the merges in the order found, heights the Ward
// distances √(2·ward).
//
// A scan reads every slot, dead ones included (their distance is NaN, which no comparison
// selects), in slot order; when an eighth of the slots are dead they are compacted away, in
// order, which keeps the tie rule. A link that is the chain's tip again reuses its earlier scan
// where the merges since tell its answer (see scan and rescan in nnchain.go).
func wardChain(ctx context.Context, c *centroids, work *Work) ([]merge, error) {
	n := c.m
	ms := make([]merge, 0, n-1)
	chain := make([]int, 0, n)
	scans := make([]scan, 0, n)
	w := wardState{centroids: c, stamp: make([]int, n), ys: make([]int32, 0, n-1), work: work}
	for len(ms) < n-1 {
		if len(chain) == 0 {
			s := 0
			for c.dead(s) {
				s++
			}
			chain, scans = append(chain, s), append(scans, scan{})
		}
		var x, y int
		var dxy float64
		for {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
			x = chain[len(chain)-1]
			prev := -1
			if len(chain) > 1 {
				prev = chain[len(chain)-2]
			}
			sc := &scans[len(scans)-1]
			ok := false
			if sc.valid {
				y, dxy, ok = w.rescan(x, prev, sc)
			}
			if !ok {
				y, dxy = w.nearest(x, prev, sc)
			}
			if y == prev {
				break
			}
			chain, scans = append(chain, y), append(scans, scan{})
		}
		chain, scans = chain[:len(chain)-2], scans[:len(scans)-2]
		x, y = min(x, y), max(x, y)
		ms = append(ms, merge{c.item[x], c.item[y], math.Sqrt(2 * dxy)})
		c.join(x, y, Ward)
		w.merges++
		w.ys = append(w.ys, int32(y))
		w.stamp[y] = w.merges
		if c.live >= 64 && 8*(c.m-c.live) >= c.m {
			w.compact(chain)
			for i := range scans {
				scans[i].valid = false // the slots are renumbered
			}
		}
	}
	return ms, nil
}

// wardState is the chain's bookkeeping beside the centroids, for rescan: as chainState's.
type wardState struct {
	*centroids
	merges int
	ys     []int32 // by merge: the slot that took the merged cluster
	stamp  []int   // by slot: the number of merges up to its latest one, 0 if none
	work   *Work
}

// nearest returns the live slot nearest to slot x and its halved Ward distance by
// chainState.nearest's rule, and records the nearest few in sc.
func (w *wardState) nearest(x, prev int, sc *scan) (int, float64) {
	*sc = scan{valid: true, merges: w.merges}
	w.work.NeighbourScans++
	for k := range sc.slot {
		sc.slot[k], sc.dist[k] = -1, math.Inf(1)
	}
	c := w.centroids
	nx := c.size[x]
	if c.dims == 2 {
		wardScan2(c.cen[2*x], c.cen[2*x+1], nx, c.cen[:2*x], c.size[:x], 0, sc)
		wardScan2(c.cen[2*x], c.cen[2*x+1], nx, c.cen[2*(x+1):2*c.m], c.size[x+1:c.m], int32(x+1), sc)
	} else {
		for s := range c.m {
			if s == x {
				continue
			}
			if v := c.ward(x, s); v < sc.dist[scanKeep-1] {
				sc.offer(int32(s), v)
			}
		}
	}
	if prev >= 0 && c.ward(x, prev) == sc.dist[0] {
		return prev, sc.dist[0]
	}
	return int(sc.slot[0]), sc.dist[0]
}

// wardScan2 offers to sc the slots base, base+1, … of the points in the plane cen (pairs of
// coordinates) with sizes size, at their halved Ward distance from the point (x0, x1) of size
// nx; dead slots (NaN) are never offered. The distances are computed a block at a time into a
// buffer (by wardRow2, four at a time where the processor has AVX2), then compared.
func wardScan2(x0, x1, nx float64, cen, size []float64, base int32, sc *scan) {
	var buf [gatherBlock]float64
	below := sc.dist[scanKeep-1]
	for lo := 0; lo < len(size); lo += gatherBlock {
		hi := min(lo+gatherBlock, len(size))
		row := buf[:hi-lo]
		wardRow2(x0, x1, nx, cen[2*lo:2*hi], size[lo:hi], row)
		for i, d := range row {
			if d < below {
				sc.offer(base+int32(lo+i), d)
				below = sc.dist[scanKeep-1]
			}
		}
	}
}

// rescan is chainState.rescan on the centroids: the distance of x to a cluster that no merge
// has touched since x's scan sc is the one the scan saw.
func (w *wardState) rescan(x, prev int, sc *scan) (int, float64, bool) {
	since := w.ys[sc.merges:]
	if len(since) > 16 {
		return 0, 0, false
	}
	c := w.centroids
	y, best := -1, math.Inf(1)
	for k, s := range sc.slot {
		if s >= 0 && !c.dead(int(s)) && w.stamp[s] <= sc.merges {
			y, best = int(s), sc.dist[k]
			break
		}
	}
	if y < 0 {
		return 0, 0, false
	}
	for _, s := range since {
		if int(s) == x || c.dead(int(s)) {
			continue
		}
		if v := c.ward(x, int(s)); v < best || v == best && int(s) < y {
			y, best = int(s), v
		}
	}
	if prev >= 0 && c.ward(x, prev) == best {
		return prev, best, true
	}
	return y, best, true
}

// compact moves the live slots to the front, in order, and renumbers the slots of chain; the
// merges' slots (ys) and stamps of the old numbering are dropped with the scans that use them.
func (w *wardState) compact(chain []int) {
	c := w.centroids
	renum := make([]int32, c.m)
	k := 0
	for s := range c.m {
		if c.dead(s) {
			continue
		}
		renum[s] = int32(k)
		copy(c.cen[k*c.dims:(k+1)*c.dims], c.point(s))
		c.size[k], c.item[k], w.stamp[k] = c.size[s], c.item[s], 0
		k++
	}
	for i, s := range chain {
		chain[i] = int(renum[s])
	}
	c.m = k
	c.cen, c.size, c.item = c.cen[:k*c.dims], c.size[:k], c.item[:k]
	w.stamp = w.stamp[:k]
	w.ys = w.ys[:0]
	w.merges = 0
}
