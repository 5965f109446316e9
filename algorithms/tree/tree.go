// Package tree is the hierarchy type that every algorithm returns and every report reads: a rooted
// tree whose leaves are the items 0..n−1 of a data set item. Binary trees (every internal node has
// two children) come from the trellis, greedy and beam search; rose trees (any number ≥ 2 of
// children) come from Bayesian rose trees. The package also writes Newick, and gives a canonical
// form (the set of clusters) so that trees found by different algorithms can be compared.
package tree

import (
	"errors"
	"fmt"
	"slices"
)

// Node is one node of a Tree. A leaf has no children and Item ≥ 0; an internal node has at least
// two children and Item = −1.
type Node struct {
	Children []int
	Item     int
}

// IsLeaf reports whether the node is a leaf.
func (n Node) IsLeaf() bool { return len(n.Children) == 0 }

// Tree is a rooted tree over the items 0..Items()−1. Nodes reference each other by index into
// Nodes. Trees built by this package are valid (see Validate); a Tree assembled by hand should be
// checked with Validate before use.
type Tree struct {
	Nodes []Node
	Root  int
}

// Leaf returns a one-node tree holding item i.
func Leaf(i int) *Tree {
	return &Tree{Nodes: []Node{{Item: i}}, Root: 0}
}

// FromMerges builds a binary tree over n items from a merge sequence, the form that agglomerative
// algorithms produce: nodes 0..n−1 are the leaves (node i holds item i), and merge k creates node
// n+k with children merges[k][0] and merges[k][1]. The last merge is the root. It returns an error
// unless the merges form one binary tree over all n items.
func FromMerges(n int, merges [][2]int) (*Tree, error) {
	if n < 1 {
		return nil, errors.New("tree: no items")
	}
	if len(merges) != n-1 {
		return nil, fmt.Errorf("tree: %d merges for %d items, want %d", len(merges), n, n-1)
	}
	t := &Tree{Nodes: make([]Node, n, 2*n-1)}
	for i := range n {
		t.Nodes[i] = Node{Item: i}
	}
	for _, m := range merges {
		t.Nodes = append(t.Nodes, Node{Children: []int{m[0], m[1]}, Item: -1})
	}
	t.Root = len(t.Nodes) - 1
	if err := t.Validate(n); err != nil {
		return nil, err
	}
	return t, nil
}

// FromChildren builds a tree from a child table in the Ginkgo layout: children[i] holds the two
// child indices of node i, or [−1, −1] for a leaf. Leaves become items 0, 1, … in depth-first,
// left-to-right order from root, which is the order of a Ginkgo jet's `leaves`. Node indices are
// kept, so nodes unreachable from root are an error.
func FromChildren(children [][2]int, root int) (*Tree, error) {
	n := len(children)
	if root < 0 || root >= n {
		return nil, fmt.Errorf("tree: root %d outside the %d nodes", root, n)
	}
	t := &Tree{Nodes: make([]Node, n), Root: root}
	for i, c := range children {
		switch {
		case c[0] == -1 && c[1] == -1:
			t.Nodes[i] = Node{Item: -2} // numbered below
		case c[0] < 0 || c[1] < 0 || c[0] >= n || c[1] >= n:
			return nil, fmt.Errorf("tree: node %d has children %v outside the %d nodes", i, c, n)
		default:
			t.Nodes[i] = Node{Children: []int{c[0], c[1]}, Item: -1}
		}
	}
	// Number the leaves in DFS order; guard against cycles and shared nodes first.
	seen := make([]bool, n)
	item := 0
	var visit func(v int) error
	visit = func(v int) error {
		if seen[v] {
			return fmt.Errorf("tree: node %d is reached twice", v)
		}
		seen[v] = true
		if t.Nodes[v].IsLeaf() {
			t.Nodes[v].Item = item
			item++
			return nil
		}
		for _, c := range t.Nodes[v].Children {
			if err := visit(c); err != nil {
				return err
			}
		}
		return nil
	}
	if err := visit(root); err != nil {
		return nil, err
	}
	for i, s := range seen {
		if !s {
			return nil, fmt.Errorf("tree: node %d is not reachable from the root %d", i, root)
		}
	}
	return t, nil
}

// Items returns the number of leaves.
func (t *Tree) Items() int {
	n := 0
	for _, nd := range t.Nodes {
		if nd.IsLeaf() {
			n++
		}
	}
	return n
}

// IsBinary reports whether every internal node has exactly two children.
func (t *Tree) IsBinary() bool {
	for _, nd := range t.Nodes {
		if !nd.IsLeaf() && len(nd.Children) != 2 {
			return false
		}
	}
	return true
}

// Validate checks that t is a tree over exactly the items 0..n−1: every node is reached once from
// the root, leaves hold distinct items in range, and internal nodes have at least two children.
func (t *Tree) Validate(n int) error {
	if t == nil || len(t.Nodes) == 0 {
		return errors.New("tree: empty")
	}
	if t.Root < 0 || t.Root >= len(t.Nodes) {
		return fmt.Errorf("tree: root %d outside the %d nodes", t.Root, len(t.Nodes))
	}
	seen := make([]bool, len(t.Nodes))
	items := make([]bool, n)
	stack := []int{t.Root}
	for len(stack) > 0 {
		v := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if v < 0 || v >= len(t.Nodes) {
			return fmt.Errorf("tree: child index %d outside the %d nodes", v, len(t.Nodes))
		}
		if seen[v] {
			return fmt.Errorf("tree: node %d is reached twice", v)
		}
		seen[v] = true
		nd := t.Nodes[v]
		if nd.IsLeaf() {
			if nd.Item < 0 || nd.Item >= n {
				return fmt.Errorf("tree: leaf node %d holds item %d, want 0..%d", v, nd.Item, n-1)
			}
			if items[nd.Item] {
				return fmt.Errorf("tree: item %d appears twice", nd.Item)
			}
			items[nd.Item] = true
			continue
		}
		if len(nd.Children) < 2 {
			return fmt.Errorf("tree: internal node %d has %d child", v, len(nd.Children))
		}
		stack = append(stack, nd.Children...)
	}
	for i, s := range seen {
		if !s {
			return fmt.Errorf("tree: node %d is not reachable from the root", i)
		}
	}
	for i, ok := range items {
		if !ok {
			return fmt.Errorf("tree: item %d is missing", i)
		}
	}
	return nil
}

// PostOrder returns the node indices with every child before its parent; the root is last.
func (t *Tree) PostOrder() []int {
	order := make([]int, 0, len(t.Nodes))
	type frame struct{ v, next int }
	stack := []frame{{t.Root, 0}}
	for len(stack) > 0 {
		f := &stack[len(stack)-1]
		ch := t.Nodes[f.v].Children
		if f.next < len(ch) {
			c := ch[f.next]
			f.next++
			stack = append(stack, frame{c, 0})
			continue
		}
		order = append(order, f.v)
		stack = stack[:len(stack)-1]
	}
	return order
}

// Clusters returns the canonical form of t: the item set of every node (leaves and root
// included), each sorted ascending, the list sorted lexicographically. Two trees over the same
// items are the same unordered tree exactly when their Clusters are equal.
func (t *Tree) Clusters() [][]int {
	sets := make([][]int, len(t.Nodes))
	for _, v := range t.PostOrder() {
		nd := t.Nodes[v]
		if nd.IsLeaf() {
			sets[v] = []int{nd.Item}
			continue
		}
		var s []int
		for _, c := range nd.Children {
			s = append(s, sets[c]...)
		}
		slices.Sort(s)
		sets[v] = s
	}
	slices.SortFunc(sets, slices.Compare)
	return sets
}

// SameClusters reports whether a and b have the same canonical form, that is, the same clusters
// irrespective of child order and node numbering.
func SameClusters(a, b *Tree) bool {
	ca, cb := a.Clusters(), b.Clusters()
	return slices.EqualFunc(ca, cb, slices.Equal)
}

// Canonical returns a copy of t with the children of every node ordered by their smallest item,
// so that equal unordered trees give equal Newick strings.
func (t *Tree) Canonical() *Tree {
	minItem := make([]int, len(t.Nodes))
	for _, v := range t.PostOrder() {
		nd := t.Nodes[v]
		if nd.IsLeaf() {
			minItem[v] = nd.Item
			continue
		}
		m := minItem[nd.Children[0]]
		for _, c := range nd.Children[1:] {
			m = min(m, minItem[c])
		}
		minItem[v] = m
	}
	c := &Tree{Nodes: make([]Node, len(t.Nodes)), Root: t.Root}
	for i, nd := range t.Nodes {
		ch := slices.Clone(nd.Children)
		slices.SortFunc(ch, func(a, b int) int { return minItem[a] - minItem[b] })
		c.Nodes[i] = Node{Children: ch, Item: nd.Item}
	}
	return c
}
