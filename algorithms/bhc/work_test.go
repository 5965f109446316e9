package bhc

import (
	"context"
	"math/rand/v2"
	"testing"

	"github.com/hcbench/hcbench/algorithms/conjugate"
	"github.com/hcbench/hcbench/algorithms/conjugate/conjugatetest"
)

// checkCalls checks that the work counts of h are the calls its search made to the model's
// stores, as a conjugatetest.Counting model counted them outside the package's code.
func checkCalls(t *testing.T, name string, w Work, c *conjugatetest.Calls) {
	t.Helper()
	if got, want := w.MarginalLikelihoods, c.LogML+c.LogMLUnion; got != want {
		t.Errorf("%s: %d marginal likelihoods counted, the store was asked for %d (%d LogML, %d LogMLUnion)", name, got, want, c.LogML, c.LogMLUnion)
	}
	if w.Predictives != c.LogPredictive {
		t.Errorf("%s: %d predictive densities counted, the store was asked for %d", name, w.Predictives, c.LogPredictive)
	}
}

// TestWorkGreedyClosedForm checks greedy BHC's counts against their closed forms: n(n−1)/2 pairs
// scored at the start and m − 2 after the merge that leaves m − 1 trees, (n−1)² in all; n leaves
// and n − 1 merges, each one marginal likelihood, beside the (n−1)² of the pairs: n² in all.
func TestWorkGreedyClosedForm(t *testing.T) {
	x := gaussian(t, 5, 60, 3, 2)
	for _, n := range []int{1, 2, 3, 17, 60} {
		var calls conjugatetest.Calls
		m := conjugatetest.Counting{Model: conjugatetest.NIW(t, x[:n], x, 20), Calls: &calls}
		for _, p := range []Prior{{Alpha: 1}, {Fixed: true, Pi: 0.5}} {
			calls = conjugatetest.Calls{}
			h, err := Run(context.Background(), m, p)
			if err != nil {
				t.Fatal(err)
			}
			w := h.Work
			n64 := int64(n)
			if want := (n64 - 1) * (n64 - 1); w.MergesScored != want {
				t.Errorf("n = %d: %d merges scored, want (n−1)² = %d", n, w.MergesScored, want)
			}
			if want := n64 * n64; w.MarginalLikelihoods != want {
				t.Errorf("n = %d: %d marginal likelihoods, want n² = %d", n, w.MarginalLikelihoods, want)
			}
			if w.PointsFiltered != 0 || w.Predictives != 0 || w.Splits != 0 {
				t.Errorf("n = %d: greedy BHC counted work it does not do: %+v", n, w)
			}
			checkCalls(t, "greedy", w, &calls)
		}
	}
}

// TestWorkRandomized checks RBHC's and EMBHC's counts against the calls their stores saw, and
// their repeatability with the same random stream. On two far groups of 30 points, RBHC with
// M = 20 and Base 2 subsamples only the whole set (its top split separates the groups, each
// then at most Base·M = 40 points) and sends its other 40 points to a side.
func TestWorkRandomized(t *testing.T) {
	x := append(gaussian(t, 7, 30, 1, 2), gaussian(t, 8, 30, 1, 2)...)
	for i := 30; i < 60; i++ {
		x[i][0] += 1000
	}
	var calls conjugatetest.Calls
	m := conjugatetest.Counting{Model: niw(t, x, 20), Calls: &calls}
	for _, f := range []Filter{FilterNote, FilterLogOdds} {
		var first Work
		for rep := range 2 {
			calls = conjugatetest.Calls{}
			h, err := Randomized(context.Background(), m, Prior{Alpha: 1}, rand.New(rand.NewPCG(4, 2)), RandomizedOptions{M: 20, Filter: f, Base: 2})
			if err != nil {
				t.Fatal(err)
			}
			checkCalls(t, "rbhc", h.Work, &calls)
			if h.Work.PointsFiltered != 40 {
				t.Errorf("filter %d: %d points filtered, want the 40 outside the one subsample", f, h.Work.PointsFiltered)
			}
			if rep == 0 {
				first = h.Work
			} else if h.Work != first {
				t.Errorf("filter %d: counts %+v, then %+v with the same stream", f, first, h.Work)
			}
		}
	}
	var first Work
	for rep := range 2 {
		calls = conjugatetest.Calls{}
		h, err := EM(context.Background(), m, x, Prior{Alpha: 1}, rand.New(rand.NewPCG(4, 3)), EMOptions{M: 6, Steps: 3, ResolveM: 5})
		if err != nil {
			t.Fatal(err)
		}
		checkCalls(t, "embhc", h.Work, &calls)
		if h.Work.Predictives == 0 || h.Work.PointsFiltered == 0 {
			t.Errorf("embhc: %+v, want EM steps and per-cluster RBHC counted", h.Work)
		}
		if rep == 0 {
			first = h.Work
		} else if h.Work != first {
			t.Errorf("embhc: counts %+v, then %+v with the same stream", first, h.Work)
		}
	}
}

// TestWorkExactClosedForm checks the exact program's counts: one marginal likelihood per
// non-empty subset (2ⁿ − 1) and 2n − 1 more to score the optimal tree, and every unordered split
// of every subset, (3ⁿ − 2ⁿ⁺¹ + 1)/2.
func TestWorkExactClosedForm(t *testing.T) {
	_, x := binary(t, 3, 9, 2, 5)
	for _, n := range []int{1, 2, 3, 9} {
		var calls conjugatetest.Calls
		a, b := conjugate.BernoulliFromData(x, 1)
		bm, err := conjugate.NewBernoulli(x[:n], a, b)
		if err != nil {
			t.Fatal(err)
		}
		m := conjugatetest.Counting{Model: bm, Calls: &calls}
		h, err := ExactFixed(context.Background(), m, 0.5)
		if err != nil {
			t.Fatal(err)
		}
		pow := func(b, e int) int64 {
			r := int64(1)
			for range e {
				r *= int64(b)
			}
			return r
		}
		if want := (pow(3, n) - pow(2, n+1) + 1) / 2; h.Work.Splits != want {
			t.Errorf("n = %d: %d splits, want (3ⁿ − 2ⁿ⁺¹ + 1)/2 = %d", n, h.Work.Splits, want)
		}
		if want := pow(2, n) - 1 + int64(2*n-1); h.Work.MarginalLikelihoods != want {
			t.Errorf("n = %d: %d marginal likelihoods, want 2ⁿ − 1 + 2n − 1 = %d", n, h.Work.MarginalLikelihoods, want)
		}
		checkCalls(t, "exact", h.Work, &calls)
	}
}
