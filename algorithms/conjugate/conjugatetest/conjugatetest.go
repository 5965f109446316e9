// Package conjugatetest supplies the data and models that the tests of the Bayesian clustering
// packages (bhc, brt) share.
package conjugatetest

import (
	"testing"

	"github.com/hcbench/hcbench/algorithms/conjugate"
	"github.com/hcbench/hcbench/datasets/datadir/datatest"
	"github.com/hcbench/hcbench/datasets/labelled"
)

// Iris30 returns the 50 × 4 iris subset of our reference runs of the authors' Python code:
// rows 0–29, 50–59 and 100–109 (0-based) of ../shared/data/uci/iris.csv.
func Iris30(tb testing.TB) [][]float64 {
	tb.Helper()
	p := datatest.Path(tb, "uci/iris.csv")
	d, err := labelled.ReadFile(p, "csv", labelled.CSVOptions{Header: "sklearn"})
	if err != nil {
		tb.Fatal(err)
	}
	if d.Len() != 150 {
		tb.Fatalf("%s has %d rows, want the 150 of UCI iris", p, d.Len())
	}
	var x [][]float64
	for _, r := range [][2]int{{0, 30}, {50, 60}, {100, 110}} {
		x = append(x, d.X[r[0]:r[1]]...)
	}
	return x
}

// NIW returns the NIW model of the points x with the hyperparameters of caponetto's data recipe
// (NIWFromData with g and κ0 = 0.001) computed from the points from (often x itself).
func NIW(tb testing.TB, x, from [][]float64, g float64) *conjugate.NIW {
	tb.Helper()
	hp, err := conjugate.NIWFromData(from, g, 0.001)
	if err != nil {
		tb.Fatal(err)
	}
	m, err := conjugate.NewNIW(x, hp)
	if err != nil {
		tb.Fatal(err)
	}
	return m
}
