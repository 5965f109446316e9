package conjugate_test

import (
	"math/rand/v2"
	"testing"

	"github.com/hcbench/hcbench/algorithms/conjugate"
)

func TestNoAllocations(t *testing.T) {
	// A new store has room for 2n − 1 clusters, so the n − 1 merges of a binary tree, and every
	// LogML, LogMLUnion and LogPredictive, allocate nothing.
	rng := rand.New(rand.NewPCG(31, 31))
	n := 400
	x := randomPoints(rng, n, 4)
	p, err := conjugate.NIWFromData(x, 20, 0.001)
	if err != nil {
		t.Fatal(err)
	}
	niw, err := conjugate.NewNIW(x, p)
	if err != nil {
		t.Fatal(err)
	}
	xb := randomValues(rng, n, 16, 2)
	a, b := conjugate.BernoulliFromData(xb, 1)
	bern, err := conjugate.NewBernoulli(xb, a, b)
	if err != nil {
		t.Fatal(err)
	}
	xc := randomValues(rng, n, 8, 4)
	cat, err := conjugate.NewCategorical(xc, conjugate.CategoricalFromData(xc, 1))
	if err != nil {
		t.Fatal(err)
	}
	for name, tc := range map[string]struct {
		m conjugate.Model
		x []float64
	}{"NIW": {niw, x[0]}, "Bernoulli": {bern, xb[0]}, "Categorical": {cat, xc[0]}} {
		s := tc.m.NewStore()
		k := 0
		allocs := testing.AllocsPerRun(100, func() { // 101 runs, 202 merges < n − 1
			c := s.Merge(k, k+1)
			k += 2
			s.LogML(c)
			s.LogMLUnion(c, k)
			s.LogPredictive(c, tc.x)
			s.Merge(c, k)
		})
		if allocs != 0 {
			t.Errorf("%s: %v allocations per run", name, allocs)
		}
	}
}
