package linkage

import (
	"context"
	"math"
	"slices"

	"github.com/hcbench/hcbench/algorithms/tree"
)

// generic is the generic algorithm (Müllner 2011, Fig. 3; scipy's fast_linkage) for centroid
// and median linkage on the centroids c: every live slot s but the last keeps next[s], its
// nearest live slot above it (the first at the smallest squared distance), and bound[s], at most
// the squared distance to any live slot above it; the bounds are in a heap. The smallest bound
// whose slot's next is live at exactly that distance is the closest pair: it merges, into the
// higher slot. Otherwise that slot's nearest neighbour is found again and the heap updated.
//
// After a merge of x < y into y only the distances to y change (x is dead): each live slot
// s < y whose distance to y is below its bound takes y as its next, and y's own next is found
// among the slots above it. A slot s whose next was x or y and is now farther keeps its bound,
// which stays a lower bound, and is searched again when it reaches the heap's top.
//
// It returns the merges in the order made, heights the distances' roots.
func generic(ctx context.Context, c *centroids, m Method, w *Work) ([]merge, error) {
	n := c.m
	act := make([]int32, n) // the live slots, increasing
	for s := range act {
		act[s] = int32(s)
	}
	next := make([]int32, n)
	h := newSlotHeap(n)
	// nearestAbove finds slot s's nearest live slot above it, at position p of act.
	nearestAbove := func(s, p int) {
		w.NeighbourScans++
		best, at := math.Inf(1), int32(-1)
		ps := c.point(s)
		for _, t := range act[p+1:] {
			if v := sqDist(ps, c.point(int(t))); v < best {
				best, at = v, t
			}
		}
		next[s] = at
		h.set(s, best)
	}
	for p := range n - 1 {
		if p%256 == 0 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
		nearestAbove(p, p)
	}
	h.set(n-1, math.Inf(1))
	ms := make([]merge, 0, n-1)
	for len(ms) < n-1 {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		x := h.top()
		y := int(next[x])
		d := h.key[x]
		if c.dead(y) || c.sq(x, y) != d {
			p, _ := slices.BinarySearch(act, int32(x))
			nearestAbove(x, p)
			continue
		}
		ms = append(ms, merge{c.item[x], c.item[y], math.Sqrt(d)})
		c.join(x, y, m)
		px, _ := slices.BinarySearch(act, int32(x))
		act = slices.Delete(act, px, px+1)
		h.set(x, math.Inf(1)) // dead: never on top again while a pair is left
		py, _ := slices.BinarySearch(act, int32(y))
		ps := c.point(y)
		w.DistanceUpdates += int64(py) // the live slots below y
		for _, s := range act[:py] {
			// At a tie with the bound, y wins if it comes first: the bound is then either
			// next[s]'s distance or below every distance, y's included.
			if v := sqDist(c.point(int(s)), ps); v < h.key[s] || v == h.key[s] && int32(y) < next[s] {
				next[s] = int32(y)
				h.set(int(s), v)
			}
		}
		if py+1 < len(act) {
			nearestAbove(y, py)
		} else {
			h.set(y, math.Inf(1))
		}
	}
	return ms, nil
}

// slotHeap is a binary min-heap of the slots by key, ties by the lower slot, with each slot's
// position so that a key can change in place.
type slotHeap struct {
	key  []float64 // by slot
	heap []int32   // slots in heap order
	pos  []int32   // by slot: its position in heap
}

// newSlotHeap returns the heap of slots 0..n−1, all at key +Inf.
func newSlotHeap(n int) *slotHeap {
	h := &slotHeap{key: make([]float64, n), heap: make([]int32, n), pos: make([]int32, n)}
	for s := range n {
		h.key[s], h.heap[s], h.pos[s] = math.Inf(1), int32(s), int32(s)
	}
	return h
}

// top returns the slot of the smallest key, the lowest such slot at a tie.
func (h *slotHeap) top() int { return int(h.heap[0]) }

func (h *slotHeap) less(a, b int32) bool {
	ka, kb := h.key[a], h.key[b]
	return ka < kb || ka == kb && a < b
}

// set changes slot s's key to v.
func (h *slotHeap) set(s int, v float64) {
	old := h.key[s]
	h.key[s] = v
	if v < old || v == old {
		h.up(int(h.pos[s]))
	}
	if v > old || v == old {
		h.down(int(h.pos[s]))
	}
}

func (h *slotHeap) swap(i, j int) {
	h.heap[i], h.heap[j] = h.heap[j], h.heap[i]
	h.pos[h.heap[i]], h.pos[h.heap[j]] = int32(i), int32(j)
}

func (h *slotHeap) up(i int) {
	for i > 0 {
		p := (i - 1) / 2
		if !h.less(h.heap[i], h.heap[p]) {
			return
		}
		h.swap(i, p)
		i = p
	}
}

func (h *slotHeap) down(i int) {
	for {
		l := 2*i + 1
		if l >= len(h.heap) {
			return
		}
		k := l
		if r := l + 1; r < len(h.heap) && h.less(h.heap[r], h.heap[l]) {
			k = r
		}
		if !h.less(h.heap[k], h.heap[i]) {
			return
		}
		h.swap(i, k)
		i = k
	}
}

// inOrder numbers the merges as scipy's fast_linkage and fastcluster number centroid and median
// merges: in the order made, merge k creating node n+k, its children the nodes of the slots
// joined (smaller id first), without sorting by height. The merges name slots by the item they
// first held (merge.a, merge.b), and a merge's cluster stays in slot b.
func inOrder(n int, ms []merge) (*tree.Tree, []float64, error) {
	node := make([]int32, n) // by slot, named by its first item: the node it holds
	for s := range node {
		node[s] = int32(s)
	}
	merges := make([][2]int, len(ms))
	heights := make([]float64, len(ms))
	for k, m := range ms {
		a, b := node[m.a], node[m.b]
		merges[k] = [2]int{int(min(a, b)), int(max(a, b))}
		heights[k] = m.h
		node[m.b] = int32(n + k)
	}
	t, err := tree.FromMerges(n, merges)
	if err != nil {
		return nil, nil, err
	}
	return t, heights, nil
}
