package item

import (
	"strings"
	"testing"

	"github.com/hcbench/hcbench/algorithms/model/modeltest"
	"github.com/hcbench/hcbench/algorithms/tree"
)

// TestPresent: an item renumbered by a permutation maps its leaves back to the data's order (an
// item in its data's order maps them to themselves); presenting an item twice, or one whose model
// cannot be renumbered, is an error, not a silent mix of orders.
func TestPresent(t *testing.T) {
	it := &Item{ID: "0", Dataset: "d", Vectors: [][]float64{{0}, {1}, {2}, {3}}, Labels: []string{"a", "a", "b", "b"}, Names: []string{"w", "x", "y", "z"}}
	tr, _ := tree.ParseNewick("((0,1),(2,3));", nil)
	if it.DataTree(tr) != tr || it.DataLeaf(2) != 2 || InData(it, it.Labels)[2] != "b" {
		t.Error("an item in its data's order does not map its leaves to themselves")
	}
	if err := it.Present([]int{2, 0, 3, 1}); err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(it.Names, ""); got != "ywzx" || it.Vectors[0][0] != 2 {
		t.Errorf("presented names %s, vectors %v", got, it.Vectors)
	}
	if got := it.DataTree(tr).Newick(InData(it, it.Names)); got != "((y,w),(z,x));" {
		t.Errorf("the tree ((0,1),(2,3)) of the presented leaves is %s in the data's", got)
	}
	if got := it.DataSets([][]int{{3, 0}, {1}}); len(got) != 2 || got[0][0] != 1 || got[0][1] != 2 || got[1][0] != 0 {
		t.Errorf("DataSets = %v, want [[1 2] [0]]", got)
	}
	if err := it.Present([]int{0, 1, 2, 3}); err == nil || !strings.Contains(err.Error(), "twice") {
		t.Errorf("presented twice: %v", err)
	}
	fixed := &Item{ID: "1", Dataset: "d", Model: modeltest.Constant(3, 0)}
	if err := fixed.Present([]int{1, 2, 0}); err == nil || !strings.Contains(err.Error(), "model.Relabeler") {
		t.Errorf("a model that cannot be renumbered: %v", err)
	}
}

// TestPresentReferences: the reference partitions follow the leaves as Labels do (each leaf keeps
// its label in every reference, noise 0 included), and an algorithm is not given them.
func TestPresentReferences(t *testing.T) {
	it := &Item{ID: "0", Dataset: "d", Vectors: [][]float64{{0}, {1}, {2}, {3}}, Labels: []string{"1", "1", "2", ""},
		References: [][]int{{1, 1, 2, 0}, {1, 2, 2, 3}}}
	data := it.References
	order := []int{2, 0, 3, 1}
	if err := it.Present(order); err != nil {
		t.Fatal(err)
	}
	for k, ref := range it.References {
		for i, l := range ref {
			if l != data[k][order[i]] || it.Vectors[i][0] != float64(order[i]) {
				t.Errorf("reference %d, leaf %d (data's %d): label %d, want %d", k, i, order[i], l, data[k][order[i]])
			}
		}
	}
	if got := InData(it, it.References[1]); got[0] != 1 || got[1] != 2 || got[3] != 3 {
		t.Errorf("reference 1 in the data's order: %v", got)
	}
	if data[0][0] != 1 || data[0][3] != 0 {
		t.Error("Present changed the data's reference slices in place")
	}
	if it.ForAlgorithm().References != nil {
		t.Error("an algorithm is given the references")
	}
}
