package tree

import "iter"

// AllBinary yields every binary tree over the items 0..n−1, each exactly once as an unordered
// tree: (2n−3)!! trees for n ≥ 2. It is the brute-force reference that tests of exact and
// approximate algorithms compare against; keep n ≤ 9 or so (2,027,025 trees at n = 9).
//
// Trees are built by inserting item k above each of the 2k−3 nodes of every tree over items
// 0..k−1. Nodes 0..n−1 are the leaves (node i holds item i), as in FromMerges. The yielded tree
// is reused between iterations; Clone it to keep it.
func AllBinary(n int) iter.Seq[*Tree] {
	return func(yield func(*Tree) bool) {
		if n < 1 {
			return
		}
		t := &Tree{Nodes: make([]Node, n, 2*n-1)}
		for i := range n {
			t.Nodes[i] = Node{Item: i}
		}
		if n == 1 {
			yield(t)
			return
		}
		parent := make([]int, 2*n-1)
		for i := range parent {
			parent[i] = -1
		}
		// Start from the tree (0,1): node n is its root.
		t.Nodes = append(t.Nodes, Node{Children: []int{0, 1}, Item: -1})
		parent[0], parent[1] = n, n
		t.Root = n
		var grow func(k int) bool
		grow = func(k int) bool {
			if k == n {
				return yield(t)
			}
			// Candidate positions: every node present (leaves 0..k−1 and internal nodes n..).
			present := make([]int, 0, 2*k-1)
			for i := range k {
				present = append(present, i)
			}
			for v := n; v < len(t.Nodes); v++ {
				present = append(present, v)
			}
			for _, v := range present {
				// New internal node u with children v and leaf k, in v's place.
				u := len(t.Nodes)
				p := parent[v]
				t.Nodes = append(t.Nodes, Node{Children: []int{v, k}, Item: -1})
				parent[v], parent[k], parent[u] = u, u, p
				oldRoot := t.Root
				if p < 0 {
					t.Root = u
				} else {
					ch := t.Nodes[p].Children
					if ch[0] == v {
						ch[0] = u
					} else {
						ch[1] = u
					}
				}
				if !grow(k + 1) {
					return false
				}
				// Undo.
				if p < 0 {
					t.Root = oldRoot
				} else {
					ch := t.Nodes[p].Children
					if ch[0] == u {
						ch[0] = v
					} else {
						ch[1] = v
					}
				}
				parent[v], parent[k] = p, -1
				t.Nodes = t.Nodes[:u]
			}
			return true
		}
		grow(2)
	}
}

// Clone returns a deep copy of t.
func (t *Tree) Clone() *Tree {
	c := &Tree{Nodes: make([]Node, len(t.Nodes)), Root: t.Root}
	for i, nd := range t.Nodes {
		c.Nodes[i] = Node{Children: append([]int(nil), nd.Children...), Item: nd.Item}
	}
	return c
}

// Relabel returns a deep copy of t whose leaf holding item i holds item to[i] instead: the same
// nodes, in the same order, with the same children, so that only the leaves' numbers change. It
// renumbers a tree between two orders of the same items (see experiments/item).
// Precondition: to is a permutation of 0..t.Items()−1 (indexed by every item of t).
func (t *Tree) Relabel(to []int) *Tree {
	c := t.Clone()
	for i, nd := range c.Nodes {
		if nd.IsLeaf() {
			c.Nodes[i].Item = to[nd.Item]
		}
	}
	return c
}

// NumBinary returns (2n−3)!!, the number of binary trees over n ≥ 2 items, as a float64. It is
// exact up to n = 16 (29!! ≈ 6.2e15 < 2^53). From n = 17 on the value is not representable
// (31!! = 191898783962510625, NumBinary(17) = 1.9189878396251066e17), and each of the n−2
// multiplications may round, so the result is within about n·1.1e−16 relative.
func NumBinary(n int) float64 {
	f := 1.0
	for k := 2*n - 3; k > 1; k -= 2 {
		f *= float64(k)
	}
	return f
}
