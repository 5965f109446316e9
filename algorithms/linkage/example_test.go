package linkage_test

import (
	"context"
	"fmt"
	"log"

	"github.com/hcbench/hcbench/algorithms/linkage"
)

// The five-item example of the Wikipedia articles on UPGMA and single and complete linkage, as a
// condensed array (the upper triangle, row by row). Single linkage meets a tie at 21: c and e are
// both at 21 from {a, b}, and c, the first in index order, joins first.
func ExampleRun() {
	names := []string{"a", "b", "c", "d", "e"}
	d := []float64{
		17, 21, 31, 23, // a to b, c, d, e
		30, 34, 21, // b to c, d, e
		28, 39, // c to d, e
		43, // d to e
	}
	for _, m := range []linkage.Method{linkage.Average, linkage.Single, linkage.Complete, linkage.Ward} {
		// Run works in place; pass a copy to keep d.
		t, heights, err := linkage.Run(context.Background(), 5, append([]float64(nil), d...), m)
		if err != nil {
			log.Fatal(err)
		}
		fmt.Printf("%-8v %-22s %.4g\n", m, t.Newick(names), heights)
	}
	// Output:
	// average  ((e,(a,b)),(c,d));     [17 22 28 33]
	// single   (d,(e,(c,(a,b))));     [17 21 21 28]
	// complete ((e,(a,b)),(c,d));     [17 23 28 43]
	// ward     ((e,(a,b)),(c,d));     [17 23.46 28 43.88]
}

// Single linkage of points without a distance array: memory O(n), for hundreds of thousands of
// points.
func ExampleSingleEuclidean() {
	x := [][]float64{{0, 0}, {0, 1}, {5, 5}, {5, 7}, {0, 3}}
	t, heights, err := linkage.SingleEuclidean(context.Background(), x)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(t.Newick(nil), heights)
	// Output:
	// ((4,(0,1)),(2,3)); [1 2 2 5.385164807134504]
}
