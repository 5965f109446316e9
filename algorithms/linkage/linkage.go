// Package linkage is classical agglomerative clustering on a distance matrix: average linkage
// (UPGMA), single linkage and complete linkage. These are the baselines of the BHC paper (Table 1,
// ../shared/design/bayesian.md §11.1) and the greedy baseline of the AstarTrellis code for the
// cancer-genomics experiment (../shared/design/pam50.md §4).
//
// Starting from the singletons, Run repeatedly merges the two current clusters at the smallest
// linkage distance until one cluster remains. Clusters are numbered as tree.FromMerges numbers
// nodes: the leaves 0..n−1 in input order, and merged clusters n, n+1, … in creation order.
//
// Tie rule (the Bioconductor BHC order of bayesian.md §3): among the pairs at the minimal linkage
// distance, the pair with the lexicographically smallest (min id, max id) of current cluster ids is
// merged. Ties are exact comparisons of the computed distances. Single and complete linkage
// distances are input entries, so their ties are exact; average linkage distances are computed as
// (sum of the pairwise distances) / (product of the sizes), so for integer-valued distances (sums
// below 2⁵³) they are exact rationals correctly rounded, and equal averages tie exactly.
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
)

// String returns "average", "single" or "complete".
func (m Method) String() string {
	switch m {
	case Average:
		return "average"
	case Single:
		return "single"
	case Complete:
		return "complete"
	}
	return fmt.Sprintf("Method(%d)", int(m))
}

// Run clusters the n items whose symmetric distance matrix is d (n×n; d[i][i] is ignored, the other
// entries may be any finite values, negative ones included) with linkage m. It returns the binary
// tree, in which merge k creates node n+k with children (min id, max id) (the numbering of
// tree.FromMerges), and the merge heights: heights[k] is the linkage distance between the two
// clusters joined by merge k. For all three methods the heights are non-decreasing in exact
// arithmetic (the methods are monotone); rounding of average linkage sums may break this by a few
// ulps.
//
// Distances are updated by the Lance–Williams recurrences (average linkage keeps sums of item
// distances, updated by addition), and every cluster keeps its nearest neighbour among the
// clusters of smaller id, a variant of the generic algorithm of Müllner (2011, "Modern
// hierarchical, agglomerative clustering algorithms", arXiv:1109.2378). Pointing to smaller ids
// means that a new cluster is nobody's candidate, so a pointer needs repair only when its target
// is merged away. Repairs rescan; a cluster repaired more than a few times gets a heap of its
// candidates instead. Time is O(n² log n) at worst (each cluster is scanned a few times, gets at
// most one heap, and each heap entry is popped at most once), and close to O(n²) on the random
// data of the benchmarks. Memory is O(n²): an n×n float64 matrix, and the live heaps, at most
// about as much again and usually far less.
//
// Run returns an error for n < 1, a matrix that is not square or not exactly symmetric, NaN or ±Inf
// off-diagonal entries, or an unknown method; and ctx.Err() if ctx is cancelled (looked at every
// 64 rows of the copy of d, every row of the first nearest-neighbour scan, once per merge and
// every 16 nearest-neighbour repairs within a merge). It does not modify d.
func Run(ctx context.Context, d [][]float64, m Method) (*tree.Tree, []float64, error) {
	if err := ctx.Err(); err != nil {
		return nil, nil, err
	}
	if m != Average && m != Single && m != Complete {
		return nil, nil, fmt.Errorf("linkage: unknown method %d", int(m))
	}
	n := len(d)
	if n < 1 {
		return nil, nil, errors.New("linkage: no items")
	}
	for i, row := range d {
		if len(row) != n {
			return nil, nil, fmt.Errorf("linkage: row %d has %d entries, want %d", i, len(row), n)
		}
	}
	// D is the working matrix indexed by storage slot. A merged cluster takes over the slot of
	// the merged cluster of smaller id. Entry D[s*n+t] is the linkage distance between the
	// clusters in slots s and t, or for average linkage the sum of their item distances.
	// Copy d into D and check it, tile by tile so that the transposed reads stay in cache.
	D := make([]float64, n*n)
	maxAbs := 0.0
	const tile = 64
	for i0 := 0; i0 < n; i0 += tile {
		if err := ctx.Err(); err != nil { // 64 rows: at most 64·n entries
			return nil, nil, err
		}
		for j0 := 0; j0 <= i0; j0 += tile {
			for i := i0; i < min(i0+tile, n); i++ {
				for j := j0; j < min(j0+tile, i); j++ {
					v := d[i][j]
					if math.IsNaN(v) || math.IsInf(v, 0) {
						return nil, nil, fmt.Errorf("linkage: d[%d][%d] = %v is not finite", i, j, v)
					}
					if w := d[j][i]; v != w {
						return nil, nil, fmt.Errorf("linkage: d[%d][%d] = %v but d[%d][%d] = %v", i, j, v, j, i, w)
					}
					D[i*n+j], D[j*n+i] = v, v
					maxAbs = max(maxAbs, math.Abs(v))
				}
			}
		}
	}
	if n == 1 {
		t, err := tree.FromMerges(1, nil)
		return t, []float64{}, err
	}
	// Average linkage sums up to n²/4 distances. If the sums could overflow, scale the matrix by
	// a power of two (exact unless entries become subnormal) and undo it on the heights.
	scale := 1.0
	if m == Average && maxAbs > math.MaxFloat64/float64(n*n) {
		scale = math.Ldexp(1, -2*bitLen(n))
		for i := range D {
			D[i] *= scale
		}
	}

	id := make([]int, n)   // id[s]: the cluster id held in slot s
	size := make([]int, n) // size[s]: its number of items
	for s := range n {
		id[s], size[s] = s, 1
	}
	// dist is the linkage distance of slots s and t, as compared and reported.
	dist := func(s, t int) float64 {
		v := D[s*n+t]
		if m == Average {
			return v / float64(size[s]*size[t])
		}
		return v
	}

	// act lists the slots of the current clusters in increasing id order: a merged cluster has
	// the largest id so far, so it is appended. nn[s] is the slot of the nearest cluster before
	// s in act (the first of them at ties, so the smallest id) and md[s] its distance.
	//
	// A new cluster comes after all others, so the candidates of a cluster only ever leave, and
	// their distances to it do not change while both live. The first time a cluster's nearest
	// neighbour is merged away, its candidates are put in a heap ordered by (distance, id);
	// later repairs pop the entries of merged-away clusters off its top. Each cluster's heap is
	// built once in O(n) and each entry popped at most once, hence O(n² log n) time in all.
	act := make([]int, n)
	for s := range act {
		act[s] = s
	}
	nn := make([]int, n)
	md := make([]float64, n)
	alive := make([]bool, 2*n-1) // by cluster id
	for i := range n {
		alive[i] = true
	}
	heaps := make([]pairHeap, n) // by slot; nil until built
	repairs := make([]int, n)    // by slot: repairs of the cluster so far
	scan := func(p int) {
		s := act[p]
		best, bd := -1, math.Inf(1)
		for _, t := range act[:p] {
			if v := dist(s, t); best < 0 || v < bd {
				best, bd = t, v
			}
		}
		nn[s], md[s] = best, bd
	}
	repair := func(p int) {
		s := act[p]
		repairs[s]++
		if repairs[s] <= scanRepairs {
			scan(p)
			return
		}
		hs := heaps[s]
		if hs == nil {
			hs = make(pairHeap, 0, p)
			for _, t := range act[:p] {
				hs = append(hs, entry{dist(s, t), int32(id[t]), int32(t)})
			}
			hs.init()
		}
		for len(hs) > 0 && !alive[hs[0].id] {
			hs.pop()
		}
		heaps[s] = hs
		if len(hs) == 0 {
			nn[s], md[s] = -1, math.Inf(1)
			return
		}
		nn[s], md[s] = int(hs[0].slot), hs[0].d
	}
	for p := 1; p < n; p++ {
		if err := ctx.Err(); err != nil {
			return nil, nil, err
		}
		scan(p)
	}

	merges := make([][2]int, 0, n-1)
	heights := make([]float64, 0, n-1)
	for len(act) > 1 {
		if err := ctx.Err(); err != nil {
			return nil, nil, err
		}
		// The pair (nn[b], b) smallest in (distance, id of nn[b], id of b); act is in id order,
		// so the first b of minimal (distance, id of nn[b]) wins.
		b := act[1]
		for _, s := range act[2:] {
			if md[s] < md[b] || md[s] == md[b] && id[nn[s]] < id[nn[b]] {
				b = s
			}
		}
		a := nn[b]
		merges = append(merges, [2]int{id[a], id[b]})
		heights = append(heights, md[b]/scale)

		// The merged cluster c takes slot a; b is retired. Update distances to c.
		keep := 0
		for _, k := range act {
			if k == a || k == b {
				continue
			}
			act[keep] = k
			keep++
			dak, dbk := D[a*n+k], D[b*n+k]
			var v float64
			switch m {
			case Average:
				v = dak + dbk
			case Single:
				v = min(dak, dbk)
			case Complete:
				v = max(dak, dbk)
			}
			D[a*n+k], D[k*n+a] = v, v
		}
		act = append(act[:keep], a)
		alive[id[a]], alive[id[b]] = false, false
		id[a] = n + len(merges) - 1
		alive[id[a]] = true
		size[a] += size[b]

		// Repair nearest neighbours. c comes after every other cluster, so it is nobody's
		// candidate; a cluster loses its neighbour only if that was a or b. c itself is
		// scanned against all the others.
		repaired := 0
		for p, k := range act[:keep] {
			if nn[k] == a || nn[k] == b {
				// A repair rescans up to p clusters (or builds a heap of them), and a merge
				// may need one for nearly every cluster; most are a few heap pops.
				if repaired++; repaired%16 == 0 {
					if err := ctx.Err(); err != nil {
						return nil, nil, err
					}
				}
				repair(p)
			}
		}
		heaps[a], heaps[b] = nil, nil
		repairs[a] = 0
		scan(keep)
	}
	t, err := tree.FromMerges(n, merges)
	if err != nil {
		return nil, nil, err
	}
	return t, heights, nil
}

// scanRepairs is the number of times a cluster's nearest neighbour is found again by a scan
// before its heap is built. Most clusters need few repairs, and a scan is cheaper than building
// a heap.
const scanRepairs = 4

// entry is a cluster, by id and slot, at distance d.
type entry struct {
	d        float64
	id, slot int32
}

func (x entry) less(y entry) bool { return x.d < y.d || x.d == y.d && x.id < y.id }

// pairHeap is a binary min-heap of entries.
type pairHeap []entry

func (p pairHeap) init() {
	for i := len(p)/2 - 1; i >= 0; i-- {
		p.down(i)
	}
}

func (p *pairHeap) pop() {
	q := *p
	last := len(q) - 1
	q[0] = q[last]
	*p = q[:last]
	if last > 0 {
		p.down(0)
	}
}

func (p pairHeap) down(i int) {
	n := len(p)
	e := p[i]
	for {
		j := 2*i + 1
		if j >= n {
			break
		}
		if r := j + 1; r < n && p[r].less(p[j]) {
			j = r
		}
		if !p[j].less(e) {
			break
		}
		p[i] = p[j]
		i = j
	}
	p[i] = e
}

// bitLen returns the number of bits of n > 0.
func bitLen(n int) int {
	b := 0
	for ; n > 0; n >>= 1 {
		b++
	}
	return b
}

// Euclidean returns the matrix of Euclidean distances between the rows of x, with a zero
// diagonal; it is exactly symmetric. The rows must have equal lengths; Euclidean panics otherwise.
// It returns ctx.Err() once ctx is done (looked at once per row).
func Euclidean(ctx context.Context, x [][]float64) ([][]float64, error) {
	n := len(x)
	d := make([][]float64, n)
	for i := range d {
		d[i] = make([]float64, n)
	}
	for i := range n {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if len(x[i]) != len(x[0]) {
			panic(fmt.Sprintf("linkage: row %d has length %d, row 0 has %d", i, len(x[i]), len(x[0])))
		}
		for j := range i {
			s := 0.0
			for k, v := range x[i] {
				u := v - x[j][k]
				s += u * u
			}
			s = math.Sqrt(s)
			d[i][j], d[j][i] = s, s
		}
	}
	return d, nil
}
