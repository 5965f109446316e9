package significance_test

import (
	"fmt"
	"log"
	"os"

	"github.com/hcbench/hcbench/reports/significance"
)

// Three algorithms scored by a higher-is-better metric on eight data sets; "slow" failed on one.
func Example() {
	scores := map[string][]float64{
		"ward":    {0.91, 0.85, 0.77, 0.95, 0.66, 0.88, 0.93, 0.71},
		"average": {0.84, 0.80, 0.75, 0.90, 0.60, 0.81, 0.86, 0.70},
		"slow":    {0.90, 0.79, 0.78, 0.96, 0.61, 0.85, 0.91, 0},
	}
	t := significance.Table{
		Metric:     significance.Metric{Name: "nca", HigherBetter: true, ROPE: 0.01},
		Algorithms: []string{"ward", "average", "slow"},
	}
	for p := range 8 {
		name := fmt.Sprintf("set%d", p)
		t.Problems = append(t.Problems, name)
		for _, a := range t.Algorithms {
			t.Cells = append(t.Cells, significance.Cell{Problem: name, Algorithm: a, Value: scores[a][p], OK: a != "slow" || p != 7})
		}
	}
	res, err := significance.Compare(t, significance.Options{Seed: 1})
	if err != nil {
		log.Fatal(err)
	}
	for _, p := range res.Pairs {
		fmt.Printf("%s vs %s: %d data sets, %d/%d/%d, Wilcoxon p = %.4f, Holm %.4f\n",
			p.A, p.B, p.Datasets, p.Wins, p.Ties, p.Losses, p.P, p.PHolm)
	}
	for _, note := range res.Notes {
		fmt.Println(note)
	}
	cd, err := significance.CriticalDifference(res, "nca", significance.Alpha)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("CD order %v, mean ranks %.3f, bars %v\n", cd.Algorithms, cd.MeanRanks, cd.Bars)
	if err := significance.WriteRanks(os.Stdout, res.Ranks); err != nil {
		log.Fatal(err)
	}
	// Output:
	// ward vs average: 8 data sets, 8/0/0, Wilcoxon p = 0.0115, Holm 0.0345
	// ward vs slow: 7 data sets, 5/0/2, Wilcoxon p = 0.0887, Holm 0.0887
	// average vs slow: 7 data sets, 1/0/6, Wilcoxon p = 0.0343, Holm 0.0686
	// nca: slow: 1 of 8 data sets failed, 0 missing (left out of its pairs, never imputed)
	// nca: ranks and Friedman over the 7 of 8 data sets every algorithm completed; 1 with a failed or missing cell left out
	// CD order [ward slow average], mean ranks [1.286 1.857 2.857], bars [[0 1] [1 2]]
	// metric,algorithm,datasets,mean_rank,friedman_statistic,friedman_p
	// nca,ward,7,1.2857142857142858,8.857142857142847,0.011931522535756207
	// nca,average,7,2.857142857142857,8.857142857142847,0.011931522535756207
	// nca,slow,7,1.8571428571428572,8.857142857142847,0.011931522535756207
}
