package linkage_test

import (
	"context"
	"fmt"
	"log"

	"github.com/hcbench/hcbench/algorithms/linkage"
)

// The five-item example of the Wikipedia articles on UPGMA and single and complete linkage. Single
// linkage meets a tie at 21, between (c, ab) and (e, ab); the tie rule takes the pair of smaller
// min id, c (item 2) before e (item 4).
func ExampleRun() {
	names := []string{"a", "b", "c", "d", "e"}
	d := [][]float64{
		{0, 17, 21, 31, 23},
		{17, 0, 30, 34, 21},
		{21, 30, 0, 28, 39},
		{31, 34, 28, 0, 43},
		{23, 21, 39, 43, 0},
	}
	for _, m := range []linkage.Method{linkage.Average, linkage.Single, linkage.Complete} {
		t, heights, err := linkage.Run(context.Background(), d, m)
		if err != nil {
			log.Fatal(err)
		}
		fmt.Printf("%-8v %-22s %v\n", m, t.Newick(names), heights)
	}
	// Output:
	// average  ((e,(a,b)),(c,d));     [17 22 28 33]
	// single   (d,(e,(c,(a,b))));     [17 21 21 28]
	// complete ((e,(a,b)),(c,d));     [17 23 28 43]
}
