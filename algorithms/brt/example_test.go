package brt_test

import (
	"context"
	"fmt"
	"log"

	"github.com/hcbench/hcbench/algorithms/brt"
	"github.com/hcbench/hcbench/algorithms/conjugate"
)

// Three groups of three points on a line, under NIW with the data-driven hyperparameters
// (g = 10, κ0 = 0.001) and γ = 1/2. Greedy BRT joins the closest two points of each group and
// then absorbs the third into the same node, so each group is one node of three children, where
// BHC would nest two binary splits. Nodes 9, 11 and 13 are retired by the absorbs and are not in
// the final tree. The top-down cut at r < 1/2 gives the three groups.
func ExampleRun() {
	x := [][]float64{{0}, {0.1}, {0.25}, {5}, {5.1}, {5.3}, {10}, {10.2}, {10.3}}
	p, err := conjugate.NIWFromData(x, 10, 0.001)
	if err != nil {
		log.Fatal(err)
	}
	m, err := conjugate.NewNIW(x, p)
	if err != nil {
		log.Fatal(err)
	}
	r, err := brt.Run(context.Background(), m, brt.Options{Gamma: 0.5})
	if err != nil {
		log.Fatal(err)
	}
	for _, s := range r.Steps {
		fmt.Printf("%-8v %2d %2d -> node %d, children %v\n", s.Op, s.A, s.B, s.New, r.Nodes[s.New].Children)
	}
	fmt.Printf("log p(D|T) = %.4f\n", r.LogEvidence())
	fmt.Println("tree:", r.Tree().Canonical().Newick(nil))
	fmt.Println("clusters:", r.Clusters())
	// Output:
	// join      7  8 -> node 9, children [7 8]
	// absorb    9  6 -> node 10, children [7 8 6]
	// join      0  1 -> node 11, children [0 1]
	// absorb   11  2 -> node 12, children [0 1 2]
	// join      3  4 -> node 13, children [3 4]
	// absorb   13  5 -> node 14, children [3 4 5]
	// join     12 14 -> node 15, children [12 14]
	// join     10 15 -> node 16, children [10 15]
	// log p(D|T) = -21.6595
	// tree: (((0,1,2),(3,4,5)),(6,7,8));
	// clusters: [[0 1 2] [3 4 5] [6 7 8]]
}
