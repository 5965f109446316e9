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
