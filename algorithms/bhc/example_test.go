package bhc_test

import (
	"context"
	"fmt"
	"log"
	"math"

	"github.com/hcbench/hcbench/algorithms/bhc"
	"github.com/hcbench/hcbench/algorithms/conjugate"
)

// The same three groups of three points as the brt example, under NIW with the data-driven
// hyperparameters (g = 20, κ0 = 0.001) and the DP prior with α = 1. Each merge prints its node,
// children, size, r_k and log p(D_k|T_k). The top-level merges have r_k far below 1/2, so the
// top-down cut returns the three groups.
func ExampleRun() {
	x := [][]float64{{0}, {0.1}, {0.25}, {5}, {5.1}, {5.3}, {10}, {10.2}, {10.3}}
	p, err := conjugate.NIWFromData(x, 20, 0.001)
	if err != nil {
		log.Fatal(err)
	}
	m, err := conjugate.NewNIW(x, p)
	if err != nil {
		log.Fatal(err)
	}
	h, err := bhc.Run(context.Background(), m, bhc.Prior{Alpha: 1})
	if err != nil {
		log.Fatal(err)
	}
	for k, nd := range h.Nodes[h.Items():] {
		fmt.Printf("node %2d = %d + %d, n %d, r %.3g, log p %.3f\n", h.Items()+k, nd.Left, nd.Right, nd.Size, math.Exp(nd.LogR()), nd.LogP)
	}
	lb, _ := h.LowerBound()
	fmt.Printf("log p(D|T) = %.4f, lower bound %.4f\n", h.LogEvidence(), lb)
	fmt.Println("clusters:", h.Clusters(bhc.TopDown))
	// Output:
	// node  9 = 7 + 8, n 2, r 0.967, log p -5.616
	// node 10 = 6 + 9, n 3, r 0.986, log p -6.217
	// node 11 = 0 + 1, n 2, r 0.967, log p -5.615
	// node 12 = 2 + 11, n 3, r 0.986, log p -6.180
	// node 13 = 3 + 4, n 2, r 0.966, log p -5.561
	// node 14 = 5 + 13, n 3, r 0.985, log p -6.154
	// node 15 = 10 + 14, n 6, r 0.0018, log p -14.509
	// node 16 = 12 + 15, n 9, r 0.000212, log p -25.008
	// log p(D|T) = -25.0078, lower bound -27.1916
	// clusters: [[0 1 2] [3 4 5] [6 7 8]]
}
