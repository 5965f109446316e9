package linkage

import (
	"context"
	"errors"
	"fmt"
	"math"

	"github.com/hcbench/hcbench/algorithms/tree"
)

// gatherBlock is the number of column entries that primCondensed reads into a buffer at a
// time, before it compares them: the buffer stays in the first-level cache. Each entry of a
// column of the condensed array is in a cache line of its own, and a loop that only loads them,
// apart from the comparisons and stores that use them, keeps many of these cache misses in
// flight at once: at n = 20,000 Prim's tree took 1.75 CPU-s so, 2.8 loading each entry where it
// is used.
const gatherBlock = 512

// primCondensed is single linkage by Prim's minimum spanning tree on the condensed array d of n
// items, as scipy's mst_single_linkage: the tree grows from item 0, each step adds the first
// item, in index order, at the strictly smallest distance from the tree, and the step is recorded
// as the merge of (the item added before, the item added) at that distance. These n − 1 pairs
// form a path through all items; sorted by height they merge the right components (Müllner
// 2011, §2.3, Fig. 6).
//
// Each entry of d is read once, when the first of its two items joins the tree, and a NaN or
// ±Inf entry is reported then: Run has no pass of its own over d for single linkage.
func primCondensed(ctx context.Context, n int, d []float64, w *Work) ([]merge, error) {
	rest := make([]int32, n-1)   // the items not in the tree, increasing; −1 once added
	dist := make([]float64, n-1) // their distance to the tree
	for p := range rest {
		rest[p], dist[p] = int32(p+1), math.Inf(1)
	}
	off := make([]int, n) // the distance of items s < t is d[off[s]+t]
	for s := range off {
		off[s] = index(n, s, 0)
	}
	var col [gatherBlock]float64
	ms := make([]merge, 0, n-1)
	x, split := 0, 0 // the item added last; rest[:split] are below it
	for len(ms) < n-1 {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		w.NeighbourScans++
		w.DistanceUpdates += int64(n - 1 - len(ms)) // every item outside the tree
		best, bp := math.Inf(1), -1
		// Items below x, down column x: gathered first, a block at a time (see
		// gatherBlock). An item already added (−1) reads an entry of row 0, unused.
		for lo := 0; lo < split; lo += gatherBlock {
			blk := rest[lo:min(lo+gatherBlock, split)]
			for i, s := range blk {
				col[i] = d[off[max(s, 0)]+x]
			}
			dst := dist[lo : lo+len(blk)]
			for i, s := range blk {
				if s < 0 {
					continue
				}
				v := col[i]
				if v-v != 0 {
					return nil, badDistance(int(s), x, v)
				}
				if v < dst[i] {
					dst[i] = v
				}
				if dst[i] < best {
					best, bp = dst[i], lo+i
				}
			}
		}
		base := off[x] // row x: item t > x at base+t
		for p := split; p < len(rest); p++ {
			s := rest[p]
			if s < 0 {
				continue
			}
			v := d[base+int(s)]
			if v-v != 0 {
				return nil, badDistance(x, int(s), v)
			}
			if v < dist[p] {
				dist[p] = v
			}
			if dist[p] < best {
				best, bp = dist[p], p
			}
		}
		y := int(rest[bp])
		ms = append(ms, merge{int32(x), int32(y), best})
		rest[bp], x, split = -1, y, bp
		if dead := len(ms) - (n - 1 - len(rest)); 4*dead > len(rest) {
			rest, dist, split = compactRest(rest, dist, x)
		}
	}
	return ms, nil
}

// compactRest drops the entries −1 from rest and their distances, keeping the order, and
// returns the position of the first item above x.
func compactRest(rest []int32, dist []float64, x int) ([]int32, []float64, int) {
	k, split := 0, 0
	for p, s := range rest {
		if s < 0 {
			continue
		}
		if int(s) < x {
			split = k + 1
		}
		rest[k], dist[k] = s, dist[p]
		k++
	}
	return rest[:k], dist[:k], split
}

// SingleEuclidean returns the single-linkage tree of the rows of x under Euclidean distance, and
// its merge heights, without a distance array: Prim's tree of Run's single linkage, with the
// distances computed as needed, in O(n²·dims) time and O(n·dims) memory. Tree, heights and ties
// are those of Run(Euclidean(x), Single), and so scipy's.
//
// Distances are compared as squares, which saves a square root per pair: of two squares whose
// roots round to the same distance, the first in index order counts as the smaller, as scipy
// compares the roots.
//
// The rows must have equal lengths and finite entries. SingleEuclidean returns an error
// otherwise, for no rows, or ctx.Err() if ctx is cancelled (looked at once per tree edge).
func SingleEuclidean(ctx context.Context, x [][]float64) (*tree.Tree, []float64, error) {
	return singleEuclidean(ctx, x, &Work{})
}

// singleEuclidean is SingleEuclidean, adding the work it did to w.
func singleEuclidean(ctx context.Context, x [][]float64, w *Work) (*tree.Tree, []float64, error) {
	if err := ctx.Err(); err != nil {
		return nil, nil, err
	}
	pts, err := flatten(x)
	if err != nil {
		return nil, nil, err
	}
	n := len(x)
	if n == 1 {
		t, err := tree.FromMerges(1, nil)
		return t, []float64{}, err
	}
	ms, err := primVectors(ctx, n, len(x[0]), pts, w)
	if err != nil {
		return nil, nil, err
	}
	return dendrogram(n, ms, false)
}

// flatten checks the rows of x and returns them as one row-major array.
func flatten(x [][]float64) ([]float64, error) {
	if len(x) == 0 {
		return nil, errors.New("linkage: no items")
	}
	dims := len(x[0])
	pts := make([]float64, 0, len(x)*dims)
	for i, row := range x {
		if len(row) != dims {
			return nil, fmt.Errorf("linkage: row %d has %d entries, row 0 has %d", i, len(row), dims)
		}
		for k, v := range row {
			if v-v != 0 {
				return nil, fmt.Errorf("linkage: entry %d of row %d is %v", k, i, v)
			}
		}
		pts = append(pts, row...)
	}
	return pts, nil
}

// primVectors is primCondensed on the squared Euclidean distances of the n points of dims
// coordinates in pts, row-major, computed as needed. The points not yet in the tree are kept in
// order with their coordinates beside them, so that each step reads them front to back; an
// added point's distance becomes NaN, which no comparison selects, until the next compaction.
func primVectors(ctx context.Context, n, dims int, pts []float64, w *Work) ([]merge, error) {
	rest := make([]int32, n-1)
	dist := make([]float64, n-1) // squared
	coord := make([]float64, (n-1)*dims)
	for p := range rest {
		rest[p], dist[p] = int32(p+1), math.Inf(1)
	}
	copy(coord, pts[dims:])
	ms := make([]merge, 0, n-1)
	x := make([]float64, dims)
	copy(x, pts[:dims])
	xi, dead := 0, 0
	for len(ms) < n-1 {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		w.NeighbourScans++
		w.DistanceUpdates += int64(n - 1 - len(ms)) // every point outside the tree
		var bp int
		if dims == 2 {
			bp = nearest2(x[0], x[1], coord, dist)
		} else {
			bp = nearestDims(x, coord, dist)
		}
		best := dist[bp]
		y := int(rest[bp])
		ms = append(ms, merge{int32(xi), int32(y), math.Sqrt(best)})
		copy(x, coord[bp*dims:(bp+1)*dims])
		dist[bp], xi = math.NaN(), y
		if dead++; 8*dead > len(rest) {
			k := 0
			for p, s := range rest {
				if math.IsNaN(dist[p]) {
					continue
				}
				rest[k], dist[k] = s, dist[p]
				copy(coord[k*dims:(k+1)*dims], coord[p*dims:(p+1)*dims])
				k++
			}
			rest, dist, coord, dead = rest[:k], dist[:k], coord[:k*dims], 0
		}
	}
	return ms, nil
}

// nearest2 lowers dist[p] to the squared distance of the p-th point of coord (pairs of
// coordinates) from (x0, x1) and returns the first p whose distance has the smallest root.
func nearest2(x0, x1 float64, coord, dist []float64) int {
	bp, below := -1, math.Inf(1)
	coord = coord[:2*len(dist)]
	for p, dp := range dist {
		u, w := coord[2*p]-x0, coord[2*p+1]-x1
		if s := float64(u*u) + float64(w*w); s < dp {
			dp = s
			dist[p] = s
		}
		if dp < below {
			bp, below = p, sqrtClassStart(dp)
		}
	}
	return bp
}

// nearestDims is nearest2 for points of any number of coordinates.
func nearestDims(x, coord, dist []float64) int {
	dims := len(x)
	bp, below := -1, math.Inf(1)
	for p, dp := range dist {
		if s := sqDist(x, coord[p*dims:(p+1)*dims]); s < dp {
			dp = s
			dist[p] = s
		}
		if dp < below {
			bp, below = p, sqrtClassStart(dp)
		}
	}
	return bp
}

// sqrtClassStart returns the smallest v ≥ 0 with √v = √s (rounded), for s ≥ 0: a square below it
// has a strictly smaller root, one at or above it a root at least as large. Consecutive squares
// share a rounded root in runs of about two to four, so the loop steps a few times at most.
func sqrtClassStart(s float64) float64 {
	r := math.Sqrt(s)
	for s > 0 {
		below := math.Nextafter(s, 0)
		if math.Sqrt(below) != r {
			break
		}
		s = below
	}
	return s
}
