package tree

import (
	"fmt"
	"math"
	"math/big"
	"strings"
	"testing"
)

func TestAllBinaryCountsAndDistinct(t *testing.T) {
	// (2n−3)!! binary trees over n labelled leaves: 1, 1, 3, 15, 105, 945, 10395, 135135.
	want := map[int]int{1: 1, 2: 1, 3: 3, 4: 15, 5: 105, 6: 945, 7: 10395, 8: 135135}
	for n := 1; n <= 8; n++ {
		seen := map[string]bool{}
		count := 0
		for tr := range AllBinary(n) {
			if err := tr.Validate(n); err != nil {
				t.Fatalf("n=%d: invalid tree %s: %v", n, tr.Newick(nil), err)
			}
			if !tr.IsBinary() {
				t.Fatalf("n=%d: not binary: %s", n, tr.Newick(nil))
			}
			seen[tr.Canonical().Newick(nil)] = true
			count++
		}
		if count != want[n] || len(seen) != want[n] {
			t.Errorf("n=%d: %d trees, %d distinct, want %d", n, count, len(seen), want[n])
		}
		if n >= 2 && NumBinary(n) != float64(want[n]) {
			t.Errorf("NumBinary(%d) = %v, want %d", n, NumBinary(n), want[n])
		}
	}
}

// TestNumBinaryExactness checks the doc's claim against exact big-integer double factorials:
// exact through n = 16, and from n = 17 (no float64 holds an odd integer above 2^53) within
// n·1.1e−16 relative.
func TestNumBinaryExactness(t *testing.T) {
	exact := big.NewInt(1)
	for n := 2; n <= 30; n++ {
		if n >= 3 {
			exact.Mul(exact, big.NewInt(int64(2*n-3)))
		}
		got := new(big.Float).SetFloat64(NumBinary(n))
		want := new(big.Float).SetInt(exact)
		if n <= 16 {
			if got.Cmp(want) != 0 {
				t.Errorf("NumBinary(%d) = %v, want exactly %v", n, got, exact)
			}
			continue
		}
		rel, _ := new(big.Float).Quo(new(big.Float).Sub(got, want), want).Float64()
		if math.Abs(rel) > float64(n)*1.1e-16 {
			t.Errorf("NumBinary(%d) relative error %g, beyond %g", n, rel, float64(n)*1.1e-16)
		}
	}
}

func TestAllBinaryStopsEarly(t *testing.T) {
	count := 0
	for range AllBinary(6) {
		count++
		if count == 10 {
			break
		}
	}
	if count != 10 {
		t.Fatalf("got %d trees before break, want 10", count)
	}
}

func TestFromMerges(t *testing.T) {
	tr, err := FromMerges(4, [][2]int{{0, 1}, {2, 4}, {3, 5}})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := tr.Newick(nil), "(3,(2,(0,1)));"; got != want {
		t.Errorf("Newick = %q, want %q", got, want)
	}
	if got, want := tr.Canonical().Newick(nil), "(((0,1),2),3);"; got != want {
		t.Errorf("canonical Newick = %q, want %q", got, want)
	}
	bad := [][][2]int{
		{{0, 1}, {0, 2}, {3, 5}}, // item 0 twice
		{{0, 1}, {2, 4}},         // too few merges
		{{0, 1}, {2, 9}, {3, 5}}, // node out of range
		{{0, 1}, {2, 3}, {4, 4}}, // node reached twice
		{{0, 1}, {2, 6}, {3, 5}}, // cycle through the root
	}
	for _, m := range bad {
		if _, err := FromMerges(4, m); err == nil {
			t.Errorf("FromMerges(4, %v) succeeded, want an error", m)
		}
	}
}

func TestFromChildrenGinkgoOrder(t *testing.T) {
	// The tree of truth_4-0 in ../shared/data/clustertrellis: node 0 → (1, 6), 1 → (2, 5),
	// 2 → (3, 4); leaves in DFS order are nodes 3, 4, 5, 6 = items 0..3.
	ch := [][2]int{{1, 6}, {2, 5}, {3, 4}, {-1, -1}, {-1, -1}, {-1, -1}, {-1, -1}}
	tr, err := FromChildren(ch, 0)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := tr.Newick(nil), "(((0,1),2),3);"; got != want {
		t.Errorf("Newick = %q, want %q", got, want)
	}
	for i, it := range map[int]int{3: 0, 4: 1, 5: 2, 6: 3} {
		if tr.Nodes[i].Item != it {
			t.Errorf("node %d holds item %d, want %d", i, tr.Nodes[i].Item, it)
		}
	}
	if _, err := FromChildren([][2]int{{1, 2}, {-1, -1}, {-1, -1}, {-1, -1}}, 0); err == nil {
		t.Error("unreachable node accepted")
	}
	if _, err := FromChildren([][2]int{{1, 1}, {-1, -1}}, 0); err == nil {
		t.Error("shared child accepted")
	}
	if _, err := FromChildren([][2]int{{1, 5}, {-1, -1}, {-1, -1}}, 0); err == nil {
		t.Error("child out of range accepted")
	}
}

func TestClusters(t *testing.T) {
	a, _ := ParseNewick("((0,1),(2,3));", nil)
	b, _ := ParseNewick("((3,2),(1,0));", nil)
	c, _ := ParseNewick("(((0,1),2),3);", nil)
	if !SameClusters(a, b) {
		t.Error("child order changed the canonical form")
	}
	if SameClusters(a, c) {
		t.Error("different trees have the same canonical form")
	}
	got := fmt.Sprint(a.Clusters())
	want := "[[0] [0 1] [0 1 2 3] [1] [2] [2 3] [3]]"
	if got != want {
		t.Errorf("Clusters = %s, want %s", got, want)
	}
}

func TestNewickRoundTrip(t *testing.T) {
	names := []string{"a", "b c", "it's", "(x)", "e:1"}
	for tr := range AllBinary(5) {
		for _, nm := range [][]string{nil, names} {
			s := tr.Newick(nm)
			back, err := ParseNewick(s, nm)
			if err != nil {
				t.Fatalf("ParseNewick(%q): %v", s, err)
			}
			if !SameClusters(tr, back) {
				t.Fatalf("round trip of %q changed the tree to %q", s, back.Newick(nm))
			}
		}
	}
	// Rose trees, internal labels and branch lengths (ignored).
	rose, err := ParseNewick("((0:0.1,1:0.2,2)inner:1.5,3);", nil)
	if err != nil {
		t.Fatal(err)
	}
	if rose.IsBinary() || rose.Items() != 4 {
		t.Errorf("rose tree parsed as binary=%v with %d items", rose.IsBinary(), rose.Items())
	}
	if got := rose.Newick(nil); got != "((0,1,2),3);" {
		t.Errorf("rose Newick = %q", got)
	}
}

func TestParseNewickErrors(t *testing.T) {
	for _, s := range []string{"", "(0,1)", "(0,1));", "(0,x);", "(0,0);", "(0,2);", "(0,1);x", "('a,1);", "(0,(1));"} {
		_, err := ParseNewick(s, nil)
		if err == nil {
			t.Errorf("ParseNewick(%q) succeeded, want an error", s)
			continue
		}
		if !strings.HasPrefix(err.Error(), "newick") {
			t.Errorf("ParseNewick(%q) error %q does not say it is about Newick", s, err)
		}
	}
}

func TestPostOrder(t *testing.T) {
	tr, _ := ParseNewick("((0,1),(2,(3,4)));", nil)
	pos := map[int]int{}
	for i, v := range tr.PostOrder() {
		pos[v] = i
	}
	if len(pos) != len(tr.Nodes) {
		t.Fatalf("post-order has %d nodes, want %d", len(pos), len(tr.Nodes))
	}
	for v, nd := range tr.Nodes {
		for _, c := range nd.Children {
			if pos[c] > pos[v] {
				t.Errorf("child %d after parent %d", c, v)
			}
		}
	}
	if last := tr.PostOrder()[len(tr.Nodes)-1]; last != tr.Root {
		t.Errorf("post-order ends with %d, want the root %d", last, tr.Root)
	}
}

func ExampleTree_Newick() {
	t, _ := FromMerges(3, [][2]int{{2, 0}, {3, 1}})
	fmt.Println(t.Newick(nil))
	fmt.Println(t.Canonical().Newick([]string{"a", "b", "c"}))
	// Output:
	// ((2,0),1);
	// ((a,c),b);
}

// TestRelabel renumbers the leaves of every tree of 5 items by a permutation: the result is the
// tree written with each item i named to[i] (same nodes, same child order), relabelling it by the
// inverse gives the tree back, and the original is not changed.
func TestRelabel(t *testing.T) {
	to := []int{3, 0, 4, 1, 2}
	inv := make([]int, len(to))
	names := make([]string, len(to))
	for i, j := range to {
		inv[j] = i
		names[i] = fmt.Sprint(j)
	}
	for tr := range AllBinary(5) {
		before := tr.Newick(nil)
		r := tr.Relabel(to)
		if err := r.Validate(5); err != nil {
			t.Fatal(err)
		}
		if got, want := r.Newick(nil), tr.Newick(names); got != want {
			t.Fatalf("Relabel(%s) = %s, want %s", before, got, want)
		}
		if got := r.Relabel(inv).Newick(nil); got != before {
			t.Fatalf("Relabel by the inverse of Relabel(%s) = %s", before, got)
		}
		if tr.Newick(nil) != before {
			t.Fatalf("Relabel changed its receiver %s to %s", before, tr.Newick(nil))
		}
	}
	rose, _ := ParseNewick("((0,1,2),3);", nil)
	if got := rose.Relabel([]int{1, 2, 3, 0}).Newick(nil); got != "((1,2,3),0);" {
		t.Errorf("rose tree relabelled to %s", got)
	}
}
