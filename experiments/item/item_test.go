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
