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

// Calls counts the calls of a Counting model's stores.
type Calls struct {
	LogML, LogMLUnion, LogPredictive int64
}

// Counting wraps a model so that every store it makes counts the calls of LogML, LogMLUnion and
// LogPredictive into Calls: an account of the marginal likelihoods a clustering asks for, kept
// outside the clustering's own code, for the tests of its work counters.
type Counting struct {
	conjugate.Model
	Calls *Calls
	// Union, when not nil, is told the clusters of every LogMLUnion call.
	Union func(a, b int)
}

// NewStore returns the wrapped model's store, counting.
func (m Counting) NewStore() conjugate.Store {
	return countingStore{Store: m.Model.NewStore(), calls: m.Calls, union: m.Union}
}

type countingStore struct {
	conjugate.Store
	calls *Calls
	union func(a, b int)
}

func (s countingStore) LogML(c int) float64 {
	s.calls.LogML++
	return s.Store.LogML(c)
}

func (s countingStore) LogMLUnion(a, b int) float64 {
	s.calls.LogMLUnion++
	if s.union != nil {
		s.union(a, b)
	}
	return s.Store.LogMLUnion(a, b)
}

func (s countingStore) LogPredictive(c int, x []float64) float64 {
	s.calls.LogPredictive++
	return s.Store.LogPredictive(c, x)
}
