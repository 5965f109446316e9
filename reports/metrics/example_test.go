package metrics_test

import (
	"fmt"
	"log"

	"github.com/hcbench/hcbench/algorithms/tree"
	"github.com/hcbench/hcbench/reports/metrics"
)

// Three A leaves and two B leaves. The pairs of A meet at (0,1) (purity 1) and twice at the root
// (purity 3/5); the B pair meets at (3,4) (purity 1). Pair-weighted: (1 + 0.6 + 0.6 + 1)/4 = 0.8.
// Leaf-weighted, each leaf averages over its class mates, (0.8 + 0.8 + 0.6 + 1 + 1)/5 = 0.84.
func ExampleDendrogramPurity() {
	t, err := tree.ParseNewick("((0,1),(2,(3,4)));", nil)
	if err != nil {
		log.Fatal(err)
	}
	leaf, pair, used := metrics.DendrogramPurity(t, []string{"A", "A", "A", "B", "B"})
	fmt.Printf("dp_leaf %.2f, dp_pair %.2f, %d labelled leaves\n", leaf, pair, used)

	// Item 2 of unknown class is pruned: the A pairs (0,1) and the B pair are pure.
	leaf, pair, used = metrics.DendrogramPurity(t, []string{"A", "A", "", "B", "B"})
	fmt.Printf("dp_leaf %.2f, dp_pair %.2f, %d labelled leaves\n", leaf, pair, used)
	// Output:
	// dp_leaf 0.84, dp_pair 0.80, 5 labelled leaves
	// dp_leaf 1.00, dp_pair 1.00, 4 labelled leaves
}

// Cluster maxima 2, 1 and 2 over 6 labelled items (item 6 is unknown): purity 5/6. With k = 2
// classes, the adjusted purity keeps the two largest maxima: 4/6.
func ExampleFlatPurity() {
	labels := []string{"A", "A", "A", "B", "B", "B", ""}
	p, adj := metrics.FlatPurity([][]int{{0, 1, 3}, {2}, {4, 5, 6}}, labels)
	fmt.Printf("purity %.4f, adjusted %.4f\n", p, adj)
	// Output:
	// purity 0.8333, adjusted 0.6667
}

// Two reference labellings of six points, the second with a noise point (0). Each is compared
// with the tree's partition at its own number of clusters, and the best score is kept. The
// partition into 2 matches the first exactly. Against the second (k = 3, point 5 ignored),
// clusters {0,1} and {4} are recovered whole and {2,3} half: NCA = (1 + 1/2 + 1 − 1)/2.
func ExampleBestOverReferences() {
	t, err := tree.ParseNewick("(((0,1),2),((3,4),5));", nil)
	if err != nil {
		log.Fatal(err)
	}
	cut := func(k int) ([]int, error) { return metrics.Cut(t, nil, k) }
	for k := 1; k <= 3; k++ {
		labels, _ := cut(k)
		fmt.Println("cut at", k, labels)
	}
	refs := [][]int{
		{1, 1, 1, 2, 2, 2},
		{1, 1, 2, 2, 3, 0},
	}
	third, _ := cut(3)
	fmt.Printf("NCA of the second alone %.2f\n", metrics.NormalizedClusteringAccuracy(third, refs[1]))
	best, which, err := metrics.BestOverReferences(cut, refs, metrics.NormalizedClusteringAccuracy)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("NCA %.2f (reference %d)\n", best, which)
	// Output:
	// cut at 1 [1 1 1 1 1 1]
	// cut at 2 [1 1 1 2 2 2]
	// cut at 3 [1 1 2 3 3 3]
	// NCA of the second alone 0.75
	// NCA 1.00 (reference 0)
}
