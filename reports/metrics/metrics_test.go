package metrics

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/hcbench/hcbench/algorithms/model"
	"github.com/hcbench/hcbench/algorithms/model/modeltest"
	"github.com/hcbench/hcbench/algorithms/tree"
)

// bruteForce computes both dendrogram purities from their definitions (bayesian.md §10.1),
// without the P_k counting: for every labelled leaf ℓ of a class of ≥ 2 labelled leaves and every
// other leaf j of its class, it finds the lowest common ancestor by walking parent pointers and
// counts the labelled leaves below it by a traversal. The leaf-weighted purity averages over j,
// then over ℓ; the pair-weighted one averages over unordered pairs. O(n³) for a tree of n leaves.
func bruteForce(t *tree.Tree, labels []string) (leaf, pair float64, used int) {
	parent := make([]int, len(t.Nodes))
	parent[t.Root] = -1
	for v, nd := range t.Nodes {
		for _, c := range nd.Children {
			parent[c] = v
		}
	}
	depth := func(v int) int {
		d := 0
		for ; parent[v] >= 0; v = parent[v] {
			d++
		}
		return d
	}
	lca := func(u, v int) int {
		du, dv := depth(u), depth(v)
		for ; du > dv; du-- {
			u = parent[u]
		}
		for ; dv > du; dv-- {
			v = parent[v]
		}
		for u != v {
			u, v = parent[u], parent[v]
		}
		return u
	}
	// purity of node k for class c: labelled leaves of class c below k / labelled leaves below k.
	purity := func(k int, c string) float64 {
		in, all := 0, 0
		stack := []int{k}
		for len(stack) > 0 {
			v := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			nd := t.Nodes[v]
			if nd.IsLeaf() {
				if l := labels[nd.Item]; l != "" {
					all++
					if l == c {
						in++
					}
				}
				continue
			}
			stack = append(stack, nd.Children...)
		}
		return float64(in) / float64(all)
	}
	var leaves []int // labelled leaf nodes
	size := map[string]int{}
	for v, nd := range t.Nodes {
		if nd.IsLeaf() && labels[nd.Item] != "" {
			leaves = append(leaves, v)
			size[labels[nd.Item]]++
		}
	}
	used = len(leaves)
	lab := func(v int) string { return labels[t.Nodes[v].Item] }
	sumLeaf, drawn := 0.0, 0
	sumPair, pairs := 0.0, 0
	for _, l := range leaves {
		c := lab(l)
		if size[c] < 2 {
			continue
		}
		drawn++
		s := 0.0
		for _, j := range leaves {
			if j != l && lab(j) == c {
				p := purity(lca(l, j), c)
				s += p
				if l < j {
					sumPair += p
					pairs++
				}
			}
		}
		sumLeaf += s / float64(size[c]-1)
	}
	if drawn == 0 {
		return math.NaN(), math.NaN(), used
	}
	return sumLeaf / float64(drawn), sumPair / float64(pairs), used
}

// randomRose returns a random rose tree over the items 0..n−1: the item set is shuffled and cut
// into 2 to 4 non-empty parts, recursively. Nodes are numbered in pre-order, so the root is node
// 0 and leaves are not nodes 0..n−1, unlike FromMerges trees.
func randomRose(rng *rand.Rand, n int) *tree.Tree {
	t := &tree.Tree{}
	var build func(items []int) int
	build = func(items []int) int {
		v := len(t.Nodes)
		if len(items) == 1 {
			t.Nodes = append(t.Nodes, tree.Node{Item: items[0]})
			return v
		}
		t.Nodes = append(t.Nodes, tree.Node{Item: -1})
		k := 2 + rng.IntN(min(3, len(items)-1))
		// k−1 distinct cut points in 1..len−1.
		cuts := rng.Perm(len(items) - 1)[:k-1]
		for i := range cuts {
			cuts[i]++
		}
		slices.Sort(cuts)
		var ch []int
		prev := 0
		for _, c := range append(cuts, len(items)) {
			ch = append(ch, build(items[prev:c]))
			prev = c
		}
		t.Nodes[v].Children = ch
		return v
	}
	build(rng.Perm(n))
	return t
}

// randomLabels draws a label per item from the first k of "A".."E" or, with probability
// unknown, "".
func randomLabels(rng *rand.Rand, n, k int, unknown float64) []string {
	l := make([]string, n)
	for i := range l {
		if rng.Float64() >= unknown {
			l[i] = string(rune('A' + rng.IntN(k)))
		}
	}
	return l
}

func same(a, b float64) bool {
	if math.IsNaN(a) || math.IsNaN(b) {
		return math.IsNaN(a) && math.IsNaN(b)
	}
	return math.Abs(a-b) <= 1e-12
}

func TestAgainstBruteForce(t *testing.T) {
	// The P_k counting must equal the definitions to 1e-12 (both are sums of at most a few
	// hundred terms in [0, 1], added in different orders), and agree on NaN.
	rng := rand.New(rand.NewPCG(1, 2))
	check := func(tr *tree.Tree, labels []string) {
		t.Helper()
		leaf, pair, used := DendrogramPurity(tr, labels)
		wl, wp, wu := bruteForce(tr, labels)
		if !same(leaf, wl) || !same(pair, wp) || used != wu {
			t.Fatalf("tree %s labels %q: got (%v, %v, %d), want (%v, %v, %d)",
				tr.Newick(nil), labels, leaf, pair, used, wl, wp, wu)
		}
	}
	// Every binary tree over 6 items, each with two random labellings.
	for tr := range tree.AllBinary(6) {
		for range 2 {
			check(tr, randomLabels(rng, 6, 1+rng.IntN(3), 0.2))
		}
	}
	// Random rose trees up to 40 leaves, 1 to 5 classes, none to most leaves unknown.
	for range 500 {
		n := 1 + rng.IntN(40)
		tr := randomRose(rng, n)
		if err := tr.Validate(n); err != nil {
			t.Fatal(err)
		}
		check(tr, randomLabels(rng, n, 1+rng.IntN(5), []float64{0, 0.1, 0.5, 0.9}[rng.IntN(4)]))
	}
}

func newick(t *testing.T, s string, n int) *tree.Tree {
	t.Helper()
	tr, err := tree.ParseNewick(s, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := tr.Validate(n); err != nil {
		t.Fatal(err)
	}
	return tr
}

func TestDendrogramPurityExamples(t *testing.T) {
	third := 1.0 / 3
	cases := []struct {
		name       string
		tree       string
		labels     []string
		leaf, pair float64
		used       int
	}{
		// Each class is a subtree: every pair's LCA is pure.
		{"perfect", "((0,1),(2,3));", []string{"A", "A", "B", "B"}, 1, 1, 4},
		// Nodes X = (0,1) {A:2}, Y = (3,4) {B:2}, Z = (2,Y) {A:1,B:2}, root {A:3,B:2}. Pairs:
		// A (0,1) at X, purity 1; A (0,2) and (1,2) at the root, purity 3/5; B (3,4) at Y,
		// purity 1. dp_pair = (1 + 0.6 + 0.6 + 1)/4 = 0.8. dp_leaf: leaves 0 and 1 average
		// (1 + 0.6)/2 = 0.8, leaf 2 averages 0.6, leaves 3 and 4 score 1:
		// (0.8 + 0.8 + 0.6 + 1 + 1)/5 = 0.84. The small class weighs more per pair in dp_leaf.
		{"unbalanced", "((0,1),(2,(3,4)));", []string{"A", "A", "A", "B", "B"}, 0.84, 0.8, 5},
		// B has one leaf: no pairs, never drawn, but counted below the root. The only pair,
		// A (0,1), meets at the root: purity 2/3.
		{"singleton class", "((0,2),1);", []string{"A", "A", "B"}, 2 * third, 2 * third, 3},
		// The same with item 2 unknown: it is pruned, the root holds 2 labelled leaves, both A.
		{"singleton unknown", "((0,2),1);", []string{"A", "A", ""}, 1, 1, 2},
		// Item 1 unknown: as if the tree were (0,(2,3)); the pair A (0,2) meets at the root,
		// which has 3 labelled leaves: 2/3.
		{"unknown pruned", "((0,1),(2,3));", []string{"A", "", "A", "B"}, 2 * third, 2 * third, 3},
		// Rose tree: U = (0,1,2) {A:2,B:1}, V = (3,4) {A:1,B:1}, root (U,V,5) {A:3,B:3}, 6 leaves.
		// A: (0,1) meets at U, purity 2/3 (P_U[A] = (2² − 1 − 1 − 0)/2 = 1); (0,3), (1,3) at the
		// root, purity 3/6 (P_root[A] = (3² − 2² − 1² − 0)/2 = 2). B: (2,4), (2,5), (4,5) at the
		// root, purity 1/2 (P_root[B] = (9 − 1 − 1 − 1)/2 = 3); V is the LCA of no pair.
		// dp_pair = (2/3 + 5·1/2)/6 = 19/36; classes are balanced, so dp_leaf is the same.
		{"rose", "((0,1,2),(3,4),5);", []string{"A", "A", "B", "A", "B", "B"}, 19.0 / 36, 19.0 / 36, 6},
		// Nothing to draw: NaN.
		{"all unknown", "((0,1),2);", []string{"", "", ""}, math.NaN(), math.NaN(), 0},
		{"all singletons", "((0,1),2);", []string{"A", "B", "C"}, math.NaN(), math.NaN(), 3},
		{"one leaf", "0;", []string{"A"}, math.NaN(), math.NaN(), 1},
	}
	for _, c := range cases {
		tr := newick(t, c.tree, len(c.labels))
		leaf, pair, used := DendrogramPurity(tr, c.labels)
		if !same(leaf, c.leaf) || !same(pair, c.pair) || used != c.used {
			t.Errorf("%s: got (%v, %v, %d), want (%v, %v, %d)", c.name, leaf, pair, used, c.leaf, c.pair, c.used)
		}
	}
}

func TestFlatPurity(t *testing.T) {
	labels := []string{"A", "A", "A", "B", "B", "B", ""}
	cases := []struct {
		name          string
		clusters      [][]int
		labels        []string
		purity, adjst float64
	}{
		// Singletons are pure: purity 1. k = 2 classes, so only two maxima of 1 count: 2/5.
		{"singletons", [][]int{{0}, {1}, {2}, {3}, {4}}, []string{"A", "A", "B", "B", "B"}, 1, 0.4},
		// Maxima: {0,1,3} → 2 (A), {2} → 1, {4,5,6} → 2 (B; 6 is unknown and left out).
		// n = 6 labelled items. purity = 5/6; top k = 2 maxima: (2 + 2)/6 = 2/3.
		{"top k", [][]int{{0, 1, 3}, {2}, {4, 5, 6}}, labels, 5.0 / 6, 4.0 / 6},
		// One cluster: maximum 3 of 6. Fewer clusters than classes: adjusted = purity.
		{"one cluster", [][]int{{0, 1, 2, 3, 4, 5, 6}}, labels, 0.5, 0.5},
		// The true classes: 1.
		{"perfect", [][]int{{0, 1, 2}, {3, 4, 5}, {6}}, labels, 1, 1},
		// A subset of the items: {0, 3} → 1, {4, 5} → 2; n = 4, k = 2: 3/4 both.
		{"subset", [][]int{{0, 3}, {4, 5}}, labels, 0.75, 0.75},
		// Nothing labelled: NaN.
		{"unlabelled", [][]int{{6}}, labels, math.NaN(), math.NaN()},
		{"empty", nil, labels, math.NaN(), math.NaN()},
	}
	for _, c := range cases {
		p, a := FlatPurity(c.clusters, c.labels)
		if !same(p, c.purity) || !same(a, c.adjst) {
			t.Errorf("%s: got (%v, %v), want (%v, %v)", c.name, p, a, c.purity, c.adjst)
		}
	}
}

func TestFlatPurityPanics(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Error("no panic for an item in two clusters")
		}
	}()
	FlatPurity([][]int{{0, 1}, {1}}, []string{"A", "B"})
}

func TestPanicsOnShortLabels(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Error("no panic for labels shorter than the items")
		}
	}()
	DendrogramPurity(newick(t, "(0,(1,2));", 3), []string{"A", "A"})
}

func TestPairPuritySplits(t *testing.T) {
	// The sum of PairPuritySplits over a tree's splits equals the pair-weighted purity of
	// DendrogramPurity, on random binary trees of 12 leaves with the pam50 label layout
	// (two per class, two unknown), unbalanced classes, a singleton class and unknown leaves
	// (1e-12: sums of ≤ 11 terms in another order).
	rng := rand.New(rand.NewPCG(11, 12))
	for _, labels := range [][]string{
		{"A", "A", "B", "B", "C", "C", "D", "D", "E", "E", "", ""},
		{"A", "A", "A", "A", "A", "B", "B", "C", "", "A", "B", ""},
		{"", "A", "", "A", "", "", "", "", "", "", "", ""},
	} {
		score := PairPuritySplits(labels)
		for range 200 {
			tr := randomTree(rng, len(labels))
			_, want, _ := DendrogramPurity(tr, labels)
			got := splitSum(tr, score)
			if math.Abs(got-want) > 1e-12 {
				t.Fatalf("labels %q, tree %s: split sum %v, metrics %v", labels, tr.Newick(nil), got, want)
			}
		}
	}
	if PairPuritySplits([]string{"A", "B", "", "C"}) != nil {
		t.Error("no class with two labelled leaves, but a score")
	}
}

// randomTree merges random pairs of the remaining clusters until one is left.
func randomTree(rng *rand.Rand, n int) *tree.Tree {
	roots := make([]int, n)
	for i := range roots {
		roots[i] = i
	}
	var merges [][2]int
	for len(roots) > 1 {
		i := rng.IntN(len(roots))
		roots[i], roots[len(roots)-1] = roots[len(roots)-1], roots[i]
		j := rng.IntN(len(roots) - 1)
		merges = append(merges, [2]int{roots[j], roots[len(roots)-1]})
		roots[j] = n + len(merges) - 1
		roots = roots[:len(roots)-1]
	}
	tr, err := tree.FromMerges(n, merges)
	if err != nil {
		panic(err)
	}
	return tr
}

// splitSum adds a symmetric score over the splits of a binary tree.
func splitSum(tr *tree.Tree, score func(l, r uint32) float64) float64 {
	s, err := model.TreeLogLikelihood(modeltest.Func{N: tr.Items(), Psi: score}, tr)
	if err != nil {
		panic(err)
	}
	return s
}
