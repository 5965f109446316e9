package linkage

import (
	"context"
	"math"
	"slices"
)

// nnChain is the nearest-neighbour chain of scipy's nn_chain (Müllner 2011, §3.2) for the
// reducible methods Average, Complete and Ward, on the condensed array d of n items, which it
// overwrites. It returns the merges in the order found, each with the items of the two slots
// (smaller first, whose slot is retired; the larger slot holds the merged cluster).
//
// The work is in two loops over the remaining clusters, a row of the condensed array read
// partly down a column: the full scan for the nearest neighbour of a new chain link, about
// twice per merge, and the Lance–Williams update of the merged cluster's distances, once per
// merge. A link that is the chain's tip again after the merges above it is not scanned again
// when the few nearest clusters its scan kept tell its nearest neighbour (see scan); at
// n = 5,000 that spares a fifth of the scans. When half the slots are retired, the array is
// compacted to the remaining ones (in place, in slot order, so that scans meet clusters in the
// same order), which keeps the later scans in cache and costs O(n²/6) moves in all.
func nnChain(ctx context.Context, n int, d []float64, m Method, w *Work) ([]merge, error) {
	c := newChainState(n, d, m)
	c.work = w
	ms := make([]merge, 0, n-1)
	chain := make([]int, 0, n)
	scans := make([]scan, 0, n) // by chain link: its last full scan
	for len(ms) < n-1 {
		if len(chain) == 0 {
			chain, scans = append(chain, int(c.act[0])), append(scans, scan{})
		}
		// Extend the chain until its last two links are reciprocal nearest neighbours.
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
				y, dxy, ok = c.rescan(x, prev, sc)
			}
			if !ok {
				y, dxy = c.nearest(x, prev, sc)
			}
			if y == prev {
				break
			}
			chain, scans = append(chain, y), append(scans, scan{})
		}
		chain, scans = chain[:len(chain)-2], scans[:len(scans)-2]
		x, y = min(x, y), max(x, y)
		ms = append(ms, merge{c.item[x], c.item[y], dxy})
		c.merge(x, y, dxy, m)
		if len(c.act) >= 64 && 2*len(c.act) <= c.m {
			c.compact(chain)
			for i := range scans {
				scans[i].valid = false // the slots are renumbered
			}
		}
	}
	return ms, nil
}

// scanKeep is the number of nearest clusters a scan keeps for later rescans.
const scanKeep = 4

// scan is what a full scan for the nearest neighbours of a chain link found: the scanKeep
// remaining clusters nearest to it, in the order (distance, slot), and when. When the link is
// the chain's tip again, after the merges of the links above it, only the clusters those merges
// formed have new distances to it; the others keep theirs, and the first of them in this list
// is their nearest (see rescan).
type scan struct {
	valid  bool
	merges int               // the number of merges before the scan
	slot   [scanKeep]int32   // −1 past the remaining clusters
	dist   [scanKeep]float64 // +Inf past the remaining clusters
}

// offer adds slot s at distance v, which is smaller than sc.dist[scanKeep−1], and comes after
// the slots already in the list at the same distance.
func (sc *scan) offer(s int32, v float64) {
	k := scanKeep - 1
	for k > 0 && v < sc.dist[k-1] {
		sc.slot[k], sc.dist[k] = sc.slot[k-1], sc.dist[k-1]
		k--
	}
	sc.slot[k], sc.dist[k] = s, v
}

// chainState is the working state of the nearest-neighbour chain: a condensed array of m slots,
// of which the slots in act hold the remaining clusters.
type chainState struct {
	m    int
	d    []float64
	off  []int     // the distance of slots s < t is d[off[s]+t]; row(s)[t−s−1]
	size []float64 // by slot: the size of its cluster (a float64, as the updates use it)
	item []int32   // by slot: the item it first held, which names it in the merges
	act  []int32   // the slots of the remaining clusters, increasing

	inv   []float64 // for Ward linkage, inv[k] = 1/k: the update's division
	ident []int     // for Ward linkage, ident[s] = s: wardSpan's offsets along a row

	merges int     // the number of merges so far
	ys     []int32 // by merge: the slot that took the merged cluster
	stamp  []int   // by slot: the number of merges up to its latest one, 0 if none

	work *Work
}

// newChainState returns the state of n single items with distances d, for method m.
func newChainState(n int, d []float64, m Method) *chainState {
	c := &chainState{m: n, d: d, off: make([]int, n), size: make([]float64, n), item: make([]int32, n), act: make([]int32, n),
		ys: make([]int32, 0, n-1), stamp: make([]int, n), work: &Work{}}
	for s := range n {
		c.size[s], c.item[s], c.act[s] = 1, int32(s), int32(s)
	}
	if m == Ward {
		c.inv, c.ident = make([]float64, n+1), make([]int, n)
		for s := range c.ident {
			c.ident[s] = s
		}
		for k := 1; k <= n; k++ {
			c.inv[k] = 1 / float64(k)
		}
	}
	c.setOffsets()
	return c
}

func (c *chainState) setOffsets() {
	for s := range c.m {
		c.off[s] = index(c.m, s, 0)
	}
}

// row returns the distances of slot s to the slots t > s, at t−s−1.
func (c *chainState) row(s int) []float64 { return c.d[c.off[s]+s+1 : c.off[s]+c.m] }

// at returns the distance of slots s ≠ t.
func (c *chainState) at(s, t int) float64 {
	if s < t {
		return c.d[c.off[s]+t]
	}
	return c.d[c.off[t]+s]
}

// nearest returns the remaining cluster nearest to slot x, and its distance: the first in slot
// order at the strictly smallest distance, or prev (≥ 0: the chain's previous link) at a tie
// with it, as scipy's scan, which starts from prev and moves on at a strictly smaller
// distance. It scans all remaining clusters and records the nearest in sc.
func (c *chainState) nearest(x, prev int, sc *scan) (int, float64) {
	*sc = scan{valid: true, merges: c.merges}
	c.work.NeighbourScans++
	for k := range sc.slot {
		sc.slot[k], sc.dist[k] = -1, math.Inf(1)
	}
	p, _ := slices.BinarySearch(c.act, int32(x))
	d, off := c.d, c.off
	for _, s := range c.act[:p] { // slots s < x: down column x
		if v := d[off[s]+x]; v < sc.dist[scanKeep-1] {
			sc.offer(s, v)
		}
	}
	row := c.row(x)
	for _, t := range c.act[p+1:] {
		if v := row[int(t)-x-1]; v < sc.dist[scanKeep-1] {
			sc.offer(t, v)
		}
	}
	if prev >= 0 && c.at(x, prev) == sc.dist[0] {
		return prev, sc.dist[0]
	}
	return int(sc.slot[0]), sc.dist[0]
}

// rescan returns nearest(x, prev) from x's earlier scan sc and the merges since, with ok
// true, or ok false where it cannot tell, every cluster in sc having been merged since, or
// where more than 16 merges have passed (a full scan is then worth its cost).
//
// The clusters that no merge since the scan has touched are at the distances the scan saw, and
// the nearest of them, the first in slot order at the smallest distance, is the first of them
// in sc's list (if any is). The clusters formed since are in the slots y of those merges. The
// answer is the nearest of these candidates by nearest's rule.
func (c *chainState) rescan(x, prev int, sc *scan) (int, float64, bool) {
	since := c.ys[sc.merges:]
	if len(since) > 16 {
		return 0, 0, false
	}
	y, best := -1, math.Inf(1)
	for k, s := range sc.slot {
		if s >= 0 && c.size[s] > 0 && c.stamp[s] <= sc.merges {
			y, best = int(s), sc.dist[k]
			break
		}
	}
	if y < 0 {
		return 0, 0, false
	}
	for _, s := range since {
		if int(s) == x || c.size[s] == 0 {
			continue
		}
		if v := c.at(x, int(s)); v < best || v == best && int(s) < y {
			y, best = int(s), v
		}
	}
	if prev >= 0 && c.at(x, prev) == best {
		return prev, best, true
	}
	return y, best, true
}

// merge joins the clusters of slots x < y at distance dxy: slot y takes the merged cluster,
// with its distances to the others by the Lance–Williams update of method m, and slot x is
// retired.
//
// Each method has a loop of its own, with the update written out in it: a loop without calls
// or branches that depend on the data keeps the loads down columns x and y of many clusters in
// flight at once, and the divisions and roots of the updates run while they wait (reading the
// entries into a buffer first, updating it and writing it back took a sixth longer at
// n = 20,000). Ward linkage's update, with a division and a root, runs four slots at a time
// where the processor has AVX2 (wardSpan), on the three spans of slots where the distances to x
// and y are down columns or along rows.
func (c *chainState) merge(x, y int, dxy float64, m Method) {
	nx, ny := c.size[x], c.size[y]
	px, _ := slices.BinarySearch(c.act, int32(x))
	c.act = slices.Delete(c.act, px, px+1)
	py, _ := slices.BinarySearch(c.act, int32(y))
	c.work.DistanceUpdates += int64(len(c.act) - 1) // every remaining slot but y
	d, off, size := c.d, c.off, c.size
	u := update{nx: nx, ny: ny, dxy: dxy, nxy: nx + ny, inv: c.inv}
	if m == Ward { // c.act[:px] are the slots below x, c.act[px:py] those between x and y
		wardSpan(d, off, off, x, y, c.act[:px], size, &u)                     // columns x and y
		wardSpan(d, c.ident, off, off[x], y, c.act[px:py], size, &u)          // row x, column y
		wardSpan(d, c.ident, c.ident, off[x], off[y], c.act[py+1:], size, &u) // rows x and y
	} else {
		for _, part := range [2][]int32{c.act[:py], c.act[py+1:]} {
			switch m {
			case Average:
				for _, s := range part {
					ix, iy := pos(off, x, int(s)), pos(off, y, int(s))
					d[iy] = u.average(d[ix], d[iy])
				}
			case Complete:
				for _, s := range part {
					ix, iy := pos(off, x, int(s)), pos(off, y, int(s))
					d[iy] = max(d[ix], d[iy])
				}
			}
		}
	}
	c.size[x], c.size[y] = 0, nx+ny
	c.merges++
	c.ys = append(c.ys, int32(y))
	c.stamp[y] = c.merges
}

// wardSpanGo is wardSpan in Go.
func wardSpanGo(d []float64, tx, ty []int, qx, qy int, slots []int32, size []float64, u *update) {
	for _, s := range slots {
		iy := ty[s] + qy
		d[iy] = u.ward(d[tx[s]+qx], d[iy], size[s])
	}
}

// pos returns the position of the distance of slots s ≠ t in the condensed array with row
// offsets off (chainState.off). Within a merge's loop the comparison goes the same way for all
// slots below x, then all between x and y, then all above y, so the branch is predicted.
func pos(off []int, s, t int) int {
	if s < t {
		return off[s] + t
	}
	return off[t] + s
}

// update is the Lance–Williams update of the distance from a cluster s at distances dxs and dys
// from the clusters x and y (sizes nx and ny, distance dxy) to their union, with scipy's
// formulas evaluated in scipy's order. The explicit float64 conversions round each product, so
// that no compiler fuses it into a multiply-add that scipy's build does not use. Complete
// linkage's update is max(dxs, dys).
type update struct {
	nx, ny, nxy float64
	dxy         float64
	inv         []float64 // Ward: inv[k] = 1/k, the same double as the division, and faster
}

// average is scipy's update (nx·dxs + ny·dys)/(nx+ny).
func (u *update) average(dxs, dys float64) float64 {
	return (float64(u.nx*dxs) + float64(u.ny*dys)) / u.nxy
}

// ward is scipy's update √(((ns+nx)·dxs² + (ns+ny)·dys² − ns·dxy²)/(nx+ny+ns)) for a cluster of
// size ns. x and y are reciprocal nearest neighbours, so for non-negative distances dxs, dys ≥
// dxy and the square is at least dxy² in exact arithmetic; only rounding, with dxy below about
// 1e−8·dxs, can make it negative, where scipy returns NaN and ward returns 0.
func (u *update) ward(dxs, dys, ns float64) float64 {
	t := u.inv[int(u.nxy+ns)] // 1/(nx+ny+ns)
	a := float64(float64(float64((ns+u.nx)*t)*dxs) * dxs)
	b := float64(float64(float64((ns+u.ny)*t)*dys) * dys)
	c := float64(float64(float64(ns*t)*u.dxy) * u.dxy)
	return math.Sqrt(max(a+b-c, 0))
}

// compact moves the distances of the remaining clusters to the front of d, as the condensed
// array of len(act) slots, and renumbers the slots of chain. Slot order is kept, so the scans
// meet the clusters in the same order. The k-th remaining pair moves from a position ≥ k, so
// the moves overwrite only entries already moved.
func (c *chainState) compact(chain []int) {
	m := len(c.act)
	k := 0
	for a, s := range c.act {
		row := c.row(int(s))
		for _, t := range c.act[a+1:] {
			c.d[k] = row[t-s-1]
			k++
		}
	}
	renum := make([]int32, c.m)
	for a, s := range c.act {
		renum[s] = int32(a)
		c.size[a], c.item[a] = c.size[s], c.item[s]
		c.act[a] = int32(a)
	}
	for i, s := range chain {
		chain[i] = int(renum[s])
	}
	c.m, c.d = m, c.d[:k]
	c.off, c.size, c.item = c.off[:m], c.size[:m], c.item[:m]
	c.setOffsets()
}
