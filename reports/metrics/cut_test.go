package metrics

import (
	"cmp"
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"testing"

	"github.com/hcbench/hcbench/algorithms/tree"
)

// scipyCut holds linkage matrices and the partitions of scipy 1.10.1's
// scipy.cluster.hierarchy.cut_tree(Z) for every k, computed with Debian's python3-scipy on the
// 12 points of a 5×5 integer grid below (numpy default_rng(19)), whose many equal distances
// make equal merge heights. Z's rows are [left, right, height]; the partition at k is written one
// character per item, scipy's 0-based label in base 36. For both methods, undoing the k−1 last rows
// of Z instead (row order for ties) differs from cut_tree at some k, so the tie rule is tested.
//
//	X = [[2,2],[1,4],[1,1],[4,0],[2,1],[0,3],[4,3],[1,2],[4,1],[2,4],[0,4],[3,2]]
var scipyCut = []struct {
	method string
	z      [][3]float64
	cuts   []string // cuts[k−1]
}{
	{"single", [][3]float64{
		{0, 4, 1}, {2, 12, 1}, {7, 13, 1}, {11, 14, 1}, {5, 10, 1}, {1, 16, 1}, {9, 17, 1},
		{3, 8, 1}, {15, 18, 1.4142135623730951}, {6, 20, 1.4142135623730951},
		{19, 21, 1.4142135623730951},
	}, []string{
		"000000000000", "000100001000", "000100201000", "010201302110", "010201304110",
		"010201304510", "010201304516", "010203405637", "010203456738", "010203456789",
		"01230456789a", "0123456789ab",
	}},
	{"average", [][3]float64{
		{0, 4, 1}, {1, 9, 1}, {2, 7, 1}, {3, 8, 1}, {5, 10, 1}, {12, 14, 1.2071067811865475},
		{6, 11, 1.4142135623730951}, {13, 16, 1.6625703849682212},
		{15, 18, 2.1625703849682214}, {17, 20, 2.5445797033311095},
		{19, 21, 3.254590168080392},
	}, []string{
		"000000000000", "010001000110", "010201202112", "010201302113", "010203402134",
		"010203402135", "012304523146", "012304523167", "012304523678", "012304526789",
		"01230456789a", "0123456789ab",
	}},
}

// linkageTree builds the tree and the by-node heights of a scipy linkage matrix.
func linkageTree(t *testing.T, z [][3]float64) (*tree.Tree, []float64) {
	t.Helper()
	n := len(z) + 1
	merges := make([][2]int, len(z))
	heights := make([]float64, 2*n-1)
	for k, row := range z {
		merges[k] = [2]int{int(row[0]), int(row[1])}
		heights[n+k] = row[2]
	}
	tr, err := tree.FromMerges(n, merges)
	if err != nil {
		t.Fatal(err)
	}
	return tr, heights
}

func TestCutScipy(t *testing.T) {
	for _, c := range scipyCut {
		tr, heights := linkageTree(t, c.z)
		for k := 1; k <= len(c.cuts); k++ {
			got, err := Cut(tr, heights, k)
			if err != nil {
				t.Fatal(err)
			}
			want := make([]int, len(c.cuts[k-1]))
			for i, ch := range c.cuts[k-1] {
				l, err := strconv.ParseInt(string(ch), 36, 0)
				if err != nil {
					t.Fatal(err)
				}
				want[i] = 1 + int(l)
			}
			if !slices.Equal(got, want) {
				t.Errorf("%s k=%d: got %v, scipy cut_tree %v", c.method, k, got, want)
			}
		}
	}
}

// bfsPositions lists the nodes as scipy's _order_cluster_tree visits them (breadth first, last
// child first), written independently of Cut's helper.
func bfsPositions(tr *tree.Tree) map[int]int {
	pos := map[int]int{}
	level := []int{tr.Root}
	for len(level) > 0 {
		var next []int
		for _, v := range level {
			pos[v] = len(pos)
			ch := slices.Clone(tr.Nodes[v].Children)
			slices.Reverse(ch)
			next = append(next, ch...)
		}
		level = next
	}
	return pos
}

// scipyBottomUp is cut_tree's own algorithm, bottom up: the internal nodes sorted by height and,
// among equal heights, last-listed first, merged by a union-find until k clusters are left.
// Heights must not have inversions.
func scipyBottomUp(tr *tree.Tree, heights []float64, k int) []int {
	n := tr.Items()
	pos := bfsPositions(tr)
	var internal []int
	for v, nd := range tr.Nodes {
		if !nd.IsLeaf() {
			internal = append(internal, v)
		}
	}
	slices.SortFunc(internal, func(u, v int) int {
		return cmp.Or(cmp.Compare(heights[u], heights[v]), pos[v]-pos[u])
	})
	parent := make([]int, n)
	for i := range parent {
		parent[i] = i
	}
	find := func(x int) int {
		for parent[x] != x {
			x = parent[x]
		}
		return x
	}
	for _, v := range internal[:n-k] {
		items := leafItems(tr, v)
		for _, i := range items[1:] {
			if a, b := find(items[0]), find(i); a != b {
				parent[b] = a
			}
		}
	}
	g := make([]int, n)
	for i := range g {
		g[i] = find(i)
	}
	return firstAppearance(g, n)
}

func leafItems(tr *tree.Tree, v int) []int {
	if tr.Nodes[v].IsLeaf() {
		return []int{tr.Nodes[v].Item}
	}
	var out []int
	for _, c := range tr.Nodes[v].Children {
		out = append(out, leafItems(tr, c)...)
	}
	return out
}

// randomBinaryOrRose is randomTree or randomRose, with even odds.
func randomBinaryOrRose(rng *rand.Rand, n int) *tree.Tree {
	if rng.IntN(2) == 0 {
		return randomTree(rng, n)
	}
	return randomRose(rng, n)
}

// monotoneHeights gives every internal node a height above its children's, in steps drawn from
// a few values so that equal heights are common.
func monotoneHeights(rng *rand.Rand, tr *tree.Tree) []float64 {
	h := make([]float64, len(tr.Nodes))
	for _, v := range tr.PostOrder() {
		nd := tr.Nodes[v]
		if nd.IsLeaf() {
			continue
		}
		for _, c := range nd.Children {
			h[v] = max(h[v], h[c])
		}
		h[v] += float64(1 + rng.IntN(2))
	}
	return h
}

func TestCutHeightsAgainstBottomUp(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for range 300 {
		n := 1 + rng.IntN(25)
		tr := randomBinaryOrRose(rng, n)
		heights := monotoneHeights(rng, tr)
		for k := 1; k <= n; k++ {
			got, err := Cut(tr, heights, k)
			if err != nil {
				t.Fatal(err)
			}
			if tr.IsBinary() {
				if want := scipyBottomUp(tr, heights, k); !slices.Equal(got, want) {
					t.Fatalf("%s heights %v k=%d: got %v, bottom-up %v", tr.Newick(nil), heights, k, got, want)
				}
			}
		}
		checkNested(t, tr, heights)
	}
}

// bruteSizes is the rule without heights, by scanning: the clusters are node sets; the internal
// node of most leaves (ties: smallest item) is replaced by its children, or, when that would pass
// k, only its largest children (ties: smallest item) are taken out.
func bruteSizes(tr *tree.Tree, k int) []int {
	n := tr.Items()
	minOf := func(v int) int { return slices.Min(leafItems(tr, v)) }
	bigger := func(u, v int) int { // negative when u goes first
		return cmp.Or(len(leafItems(tr, v))-len(leafItems(tr, u)), minOf(u)-minOf(v))
	}
	clusters := [][]int{{tr.Root}}
	for len(clusters) < k {
		best := -1
		for i, c := range clusters {
			if len(c) == 1 && !tr.Nodes[c[0]].IsLeaf() && (best < 0 || bigger(c[0], clusters[best][0]) < 0) {
				best = i
			}
		}
		v := clusters[best][0]
		ch := slices.Clone(tr.Nodes[v].Children)
		slices.SortFunc(ch, bigger)
		need := k - len(clusters)
		clusters = slices.Delete(clusters, best, best+1)
		if need < len(ch)-1 {
			for _, c := range ch[:need] {
				clusters = append(clusters, []int{c})
			}
			clusters = append(clusters, ch[need:])
			break
		}
		for _, c := range ch {
			clusters = append(clusters, []int{c})
		}
	}
	g := make([]int, n)
	for id, c := range clusters {
		for _, v := range c {
			for _, i := range leafItems(tr, v) {
				g[i] = id
			}
		}
	}
	return firstAppearance(g, len(clusters))
}

func TestCutSizesAgainstBruteForce(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for range 300 {
		n := 1 + rng.IntN(25)
		tr := randomBinaryOrRose(rng, n)
		for k := 1; k <= n; k++ {
			got, err := Cut(tr, nil, k)
			if err != nil {
				t.Fatal(err)
			}
			if want := bruteSizes(tr, k); !slices.Equal(got, want) {
				t.Fatalf("%s k=%d: got %v, brute force %v", tr.Newick(nil), k, got, want)
			}
		}
		checkNested(t, tr, nil)
	}
}

// checkNested checks that Cut gives k clusters numbered by first appearance, each refined by the
// cut at k+1.
func checkNested(t *testing.T, tr *tree.Tree, heights []float64) {
	t.Helper()
	n := tr.Items()
	var prev []int
	for k := 1; k <= n; k++ {
		got, err := Cut(tr, heights, k)
		if err != nil {
			t.Fatal(err)
		}
		next := 1
		for _, l := range got {
			if l > next || l < 1 {
				t.Fatalf("%s k=%d: labels %v not numbered by first appearance", tr.Newick(nil), k, got)
			}
			if l == next {
				next++
			}
		}
		if next-1 != k {
			t.Fatalf("%s k=%d: %d clusters", tr.Newick(nil), k, next-1)
		}
		// Refinement: items together at k are together at k−1.
		for i := range n {
			for j := range n {
				if got[i] == got[j] && prev != nil && prev[i] != prev[j] {
					t.Fatalf("%s: cut at %d is not a refinement of the cut at %d", tr.Newick(nil), k, k-1)
				}
			}
		}
		prev = got
	}
}

func TestCutExamples(t *testing.T) {
	// An inversion: node 6 = (node 5, 2) at height 1 lies below node 5 = (0, 1) at 2.5. Ordered by
	// the largest height in its subtree (2.5), node 6 is undone before node 7 = (3, 4) at 2; by its
	// own height it would come after.
	inv, err := tree.FromMerges(5, [][2]int{{0, 1}, {5, 2}, {3, 4}, {6, 7}})
	if err != nil {
		t.Fatal(err)
	}
	invH := []float64{0, 0, 0, 0, 0, 2.5, 1, 2, 3}
	// A rose root whose children hold 2, 1 and 3 leaves.
	rose := newick(t, "((0,1),2,(3,(4,5)));", 6)
	for _, c := range []struct {
		name    string
		tr      *tree.Tree
		heights []float64
		k       int
		want    []int
	}{
		{"inversion k=2", inv, invH, 2, []int{1, 1, 1, 2, 2}},
		{"inversion k=3", inv, invH, 3, []int{1, 1, 2, 3, 3}},
		{"inversion k=4", inv, invH, 4, []int{1, 2, 3, 4, 4}},
		// Splitting the root into 3 would pass k = 2: the largest child (3,(4,5)) is peeled off,
		// (0,1) and 2 stay together.
		{"rose k=2", rose, nil, 2, []int{1, 1, 1, 2, 2, 2}},
		{"rose k=3", rose, nil, 3, []int{1, 1, 2, 3, 3, 3}},
		// Then the largest cluster, (3,(4,5)), splits.
		{"rose k=4", rose, nil, 4, []int{1, 1, 2, 3, 4, 4}},
		// Equal sizes: (0,1) and (4,5) hold 2; the one holding the smaller item splits first.
		{"rose k=5", rose, nil, 5, []int{1, 2, 3, 4, 5, 5}},
		{"one item", tree.Leaf(0), nil, 1, []int{1}},
	} {
		got, err := Cut(c.tr, c.heights, c.k)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if !slices.Equal(got, c.want) {
			t.Errorf("%s: got %v, want %v", c.name, got, c.want)
		}
	}
}

func TestCutErrors(t *testing.T) {
	tr := newick(t, "((0,1),2);", 3)
	ok := []float64{0, 0, 0, 1, 2}
	nan := []float64{math.NaN(), math.NaN(), math.NaN(), math.NaN(), math.NaN()}
	broken := &tree.Tree{Nodes: []tree.Node{{Children: []int{1}, Item: -1}, {Item: 0}}}
	for _, c := range []struct {
		name    string
		tr      *tree.Tree
		heights []float64
		k       int
	}{
		{"k=0", tr, nil, 0},
		{"k>n", tr, ok, 4},
		{"short heights", tr, ok[:4], 2},
		{"NaN height", tr, nan, 2},
		{"nil tree", nil, nil, 1},
		{"invalid tree", broken, nil, 1},
	} {
		if _, err := Cut(c.tr, c.heights, c.k); err == nil {
			t.Errorf("%s: no error", c.name)
		}
	}
}

// TestRenumber: labels are renumbered 1, 2, … by first appearance, whatever they were (noise 0
// and negative ones included), and a partition renumbered twice stays as it is.
func TestRenumber(t *testing.T) {
	got := Renumber([]int{5, 5, 0, 9, -1, 0, 5})
	if want := []int{1, 1, 2, 3, 4, 2, 1}; !slices.Equal(got, want) {
		t.Errorf("Renumber: %v, want %v", got, want)
	}
	if again := Renumber(got); !slices.Equal(again, got) {
		t.Errorf("Renumber of a renumbered partition: %v, want %v", again, got)
	}
	if got := Renumber(nil); len(got) != 0 {
		t.Errorf("Renumber(nil): %v", got)
	}
}
