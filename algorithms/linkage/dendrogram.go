package linkage

import (
	"cmp"
	"slices"

	"github.com/hcbench/hcbench/algorithms/tree"
)

// merge is one merge as an algorithm finds it: the clusters held by the slots (or, for Prim's
// tree, containing the items) a and b are joined at height h.
type merge struct {
	a, b int32
	h    float64
}

// dendrogram sorts the merges by height, stably, and numbers the clusters as scipy's label does:
// a union-find over the slots gives each merge's children as the nodes that hold a and b, and
// merge k of the sorted order creates node n+k.
//
// With slots (clusters), as from the nearest-neighbour chain, the merge that formed the cluster
// of a slot comes before every later merge of that slot, and a merge is sorted by the largest
// height among it and the merges below it: the height itself unless rounding made a merge
// lower than one of its children (see Run). Prim's merges join the components of two items
// along a path through all items, so any order of them is a tree.
func dendrogram(n int, ms []merge, slots bool) (*tree.Tree, []float64, error) {
	key := make([]float64, len(ms))
	if slots {
		last := make([]int32, n) // by slot: the merge that formed its cluster, or −1
		for i := range last {
			last[i] = -1
		}
		for k, m := range ms {
			key[k] = m.h
			for _, s := range [2]int32{m.a, m.b} {
				if c := last[s]; c >= 0 {
					key[k] = max(key[k], key[c])
				}
			}
			last[m.a], last[m.b] = -1, int32(k) // the merged cluster keeps the larger slot, b
		}
	} else {
		for k, m := range ms {
			key[k] = m.h
		}
	}
	order := make([]int32, len(ms))
	for k := range order {
		order[k] = int32(k)
	}
	slices.SortStableFunc(order, func(i, j int32) int { return cmp.Compare(key[i], key[j]) })

	parent := make([]int32, 2*n-1)
	for i := range parent {
		parent[i] = int32(i)
	}
	find := func(x int32) int32 {
		r := x
		for parent[r] != r {
			r = parent[r]
		}
		for parent[x] != r {
			parent[x], x = r, parent[x]
		}
		return r
	}
	merges := make([][2]int, len(ms))
	heights := make([]float64, len(ms))
	for k, o := range order {
		m := ms[o]
		a, b := find(m.a), find(m.b)
		c := int32(n + k)
		parent[a], parent[b] = c, c
		merges[k] = [2]int{int(min(a, b)), int(max(a, b))}
		heights[k] = m.h
	}
	t, err := tree.FromMerges(n, merges)
	if err != nil {
		return nil, nil, err
	}
	return t, heights, nil
}
