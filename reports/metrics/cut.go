package metrics

import (
	"cmp"
	"container/heap"
	"errors"
	"fmt"
	"math"
	"slices"

	"github.com/hcbench/hcbench/algorithms/tree"
)

// Cut returns the partition of the items of t into exactly k clusters, as labels[item] in 1..k,
// numbered in order of first appearance by item index (item 0 is in cluster 1, the first item not
// in cluster 1 is in cluster 2, and so on), so that equal partitions give equal slices.
//
// The partition is found from the top: starting from the root as one cluster, internal nodes are
// undone (replaced by their children) one at a time, in a priority order in which a parent always
// comes before its children, until there are k clusters.
//
// With heights (indexed by node of t, len(t.Nodes); an internal node's merge height, leaves
// ignored), this is the rule of scipy.cluster.hierarchy.cut_tree (scipy 1.10): cut_tree merges the
// nodes in the order of a stable sort by height of a breadth-first listing from the root that
// visits the right child before the left, each node inserted before the nodes of equal height
// (bisect.insort_left), so among equal heights the node listed later merges first, and it stops
// after n−k merges. Cut undoes the k−1 last of those merges: highest first, and among equal
// heights the node listed first (nearer the root, then right before left), Children[1] being
// scipy's right child Z[i,1] when t comes from tree.FromMerges of a linkage matrix. For a node of
// more than two children the listing visits them last to first. A node lower than one of its
// descendants (an inversion, as centroid and median linkage make) is ordered by the largest
// height in its subtree instead: scipy would merge such a node before its descendant, and its
// relabelling then no longer yields k clusters (for example 1 cluster at k = 2 for some centroid
// linkages of 12 random points), so no partition into exactly k clusters matches it. Without
// inversions the two orders are the same.
//
// Without heights (nil), the cluster of most items is split first, ties to the cluster holding the
// smallest item. With no scale to cut at, splitting the largest cluster is the divisive reading of
// the tree: it depends only on the unordered tree (not on node numbering or child order), and it
// never leaves a large cluster whole while splitting a small one, so a tree whose top splits shave
// off outliers gives those outliers their own clusters only as k grows.
//
// A node of c > 2 children (a rose tree) is undone into all c children at once, adding c−1
// clusters, since its children are one flat partition of the node's items. When that would pass k,
// the node is split only partly: with r clusters still to add, its r largest children (ties to the
// child holding the smallest item) become clusters and the other c−r children stay together as
// one, so k is reached exactly. Cut's partitions are nested: the partition at k+1 refines the one
// at k.
//
// t must be valid over its items (tree.Validate). Cut returns an error when k < 1 or k exceeds the
// number of items, when heights is non-nil with a length other than len(t.Nodes), or when an
// internal node's height is NaN. It costs O(N log N) time and O(N) memory for N nodes.
func Cut(t *tree.Tree, heights []float64, k int) ([]int, error) {
	if t == nil || len(t.Nodes) == 0 {
		return nil, errors.New("metrics: cut of an empty tree")
	}
	n := t.Items()
	if err := t.Validate(n); err != nil {
		return nil, fmt.Errorf("metrics: cut: %w", err)
	}
	if k < 1 || k > n {
		return nil, fmt.Errorf("metrics: cut into %d clusters of a tree of %d items, want 1..%d", k, n, n)
	}
	if heights != nil && len(heights) != len(t.Nodes) {
		return nil, fmt.Errorf("metrics: cut: %d heights for %d nodes", len(heights), len(t.Nodes))
	}

	// Per node: leaf count, smallest item, and (with heights) the largest height in the subtree.
	size := make([]int, len(t.Nodes))
	minItem := make([]int, len(t.Nodes))
	var top []float64
	if heights != nil {
		top = make([]float64, len(t.Nodes))
	}
	for _, v := range t.PostOrder() {
		nd := t.Nodes[v]
		if nd.IsLeaf() {
			size[v], minItem[v] = 1, nd.Item
			continue
		}
		minItem[v] = n
		if top != nil {
			if math.IsNaN(heights[v]) {
				return nil, fmt.Errorf("metrics: cut: node %d has height NaN", v)
			}
			top[v] = heights[v]
		}
		for _, c := range nd.Children {
			size[v] += size[c]
			minItem[v] = min(minItem[v], minItem[c])
			if top != nil && !t.Nodes[c].IsLeaf() {
				top[v] = max(top[v], top[c])
			}
		}
	}

	// The priority: undo first the node that compares smallest.
	var before func(u, v int) int
	if top != nil {
		visit := bfsRightFirst(t)
		before = func(u, v int) int {
			if c := cmp.Compare(top[v], top[u]); c != 0 {
				return c
			}
			return visit[u] - visit[v]
		}
	} else {
		before = func(u, v int) int {
			if c := size[v] - size[u]; c != 0 {
				return c
			}
			return minItem[u] - minItem[v]
		}
	}

	// The frontier holds the internal nodes that are clusters now; undone nodes are marked, and a
	// partly split node's peeled children are marked as clusters of their own.
	const (
		whole  = iota // default: part of its parent's cluster, or a cluster if a child of an undone node
		undone        // replaced by its children
		apart         // a cluster although its parent is only partly split
	)
	state := make([]int8, len(t.Nodes))
	front := &nodeHeap{less: func(u, v int) bool { return before(u, v) < 0 }}
	if !t.Nodes[t.Root].IsLeaf() {
		front.nodes = append(front.nodes, t.Root)
	}
	for clusters := 1; clusters < k; {
		v := heap.Pop(front).(int)
		ch := t.Nodes[v].Children
		if need := k - clusters; need < len(ch)-1 {
			// Partly: the need largest children become clusters, the rest stay one. The node
			// stays whole so that the rest inherits one label below.
			peel := slices.Clone(ch)
			slices.SortFunc(peel, func(a, b int) int {
				if c := size[b] - size[a]; c != 0 {
					return c
				}
				return minItem[a] - minItem[b]
			})
			for _, c := range peel[:need] {
				state[c] = apart
			}
			break
		}
		state[v] = undone
		clusters += len(ch) - 1
		for _, c := range ch {
			if !t.Nodes[c].IsLeaf() {
				heap.Push(front, c)
			}
		}
	}

	// Give every cluster-top node a fresh group, every other node its parent's, from the root
	// down; then number the groups by first appearance in item order.
	group := make([]int, len(t.Nodes))
	groups := 0
	order := t.PostOrder()
	group[t.Root] = groups
	groups++
	for i := len(order) - 1; i >= 0; i-- {
		v := order[i]
		for _, c := range t.Nodes[v].Children {
			if state[v] == undone || state[c] == apart {
				group[c] = groups
				groups++
			} else {
				group[c] = group[v]
			}
		}
	}
	itemGroup := make([]int, n)
	for v, nd := range t.Nodes {
		if nd.IsLeaf() {
			itemGroup[nd.Item] = group[v]
		}
	}
	return firstAppearance(itemGroup, groups), nil
}

// Renumber returns labels renumbered 1, 2, … in order of first appearance, as Cut numbers its
// clusters: a partition put into another order of its items numbered as Cut would number it.
func Renumber(labels []int) []int {
	ids := map[int]int{}
	out := make([]int, len(labels))
	for i, l := range labels {
		if ids[l] == 0 {
			ids[l] = len(ids) + 1
		}
		out[i] = ids[l]
	}
	return out
}

// firstAppearance renumbers ids in 0..ids−1 as 1, 2, … in order of first appearance.
func firstAppearance(g []int, ids int) []int {
	label := make([]int, ids)
	out := make([]int, len(g))
	next := 0
	for i, x := range g {
		if label[x] == 0 {
			next++
			label[x] = next
		}
		out[i] = label[x]
	}
	return out
}

// bfsRightFirst returns each node's position in scipy's _order_cluster_tree listing: breadth first
// from the root, the children of a node queued last to first (right before left).
func bfsRightFirst(t *tree.Tree) []int {
	pos := make([]int, len(t.Nodes))
	queue := []int{t.Root}
	for i := 0; i < len(queue); i++ {
		v := queue[i]
		pos[v] = i
		ch := t.Nodes[v].Children
		for j := len(ch) - 1; j >= 0; j-- {
			queue = append(queue, ch[j])
		}
	}
	return pos
}

// nodeHeap is a heap of node indices under less, for container/heap.
type nodeHeap struct {
	nodes []int
	less  func(u, v int) bool
}

func (h *nodeHeap) Len() int           { return len(h.nodes) }
func (h *nodeHeap) Less(i, j int) bool { return h.less(h.nodes[i], h.nodes[j]) }
func (h *nodeHeap) Swap(i, j int)      { h.nodes[i], h.nodes[j] = h.nodes[j], h.nodes[i] }
func (h *nodeHeap) Push(x any)         { h.nodes = append(h.nodes, x.(int)) }
func (h *nodeHeap) Pop() any {
	x := h.nodes[len(h.nodes)-1]
	h.nodes = h.nodes[:len(h.nodes)-1]
	return x
}
