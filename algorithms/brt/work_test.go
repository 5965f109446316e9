package brt_test

import (
	"context"
	"math/rand/v2"
	"testing"

	"github.com/hcbench/hcbench/algorithms/brt"
	"github.com/hcbench/hcbench/algorithms/conjugate"
	"github.com/hcbench/hcbench/algorithms/conjugate/conjugatetest"
)

// TestWork checks BRT's work counts against an account kept outside the package: the calls of
// its model's stores (conjugatetest.Counting), and for the operations, one join per pair whose
// union's marginal likelihood was computed, one absorb per internal tree of the pair (nodes n
// and up are internal: every operation makes one) and a collapse when both are (joins only with
// JoinOnly). The pairs scored have the closed form (n−1)²: n(n−1)/2 at the start and m − 2 after
// the step that leaves m − 1 trees. On binary data with repeated rows many pairs tie, and the
// tied pairs are evaluated again at each step.
func TestWork(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 1))
	sets := map[string][][]float64{"gauss": gaussian(rng, 40, 3, 3, 2), "binary": binary(rng, 40, 4)}
	for name, x := range sets {
		n := len(x)
		for _, joinOnly := range []bool{false, true} {
			var calls conjugatetest.Calls
			var ops int64
			m := conjugatetest.Counting{Calls: &calls, Union: func(a, b int) {
				ops++
				if joinOnly {
					return
				}
				if a >= n {
					ops++
				}
				if b >= n {
					ops++
				}
				if a >= n && b >= n {
					ops++
				}
			}}
			if name == "binary" {
				a, b := conjugate.BernoulliFromData(x, 1)
				bm, err := conjugate.NewBernoulli(x, a, b)
				if err != nil {
					t.Fatal(err)
				}
				m.Model = bm
			} else {
				m.Model = niw(t, x, 10)
			}
			var first brt.Work
			for rep := range 2 {
				calls, ops = conjugatetest.Calls{}, 0
				r, err := brt.Run(context.Background(), m, brt.Options{Gamma: 0.5, JoinOnly: joinOnly})
				if err != nil {
					t.Fatal(err)
				}
				w := r.Work
				if want := int64(n-1) * int64(n-1); w.MergesScored != want {
					t.Errorf("%s join-only %v: %d pairs scored, want (n−1)² = %d", name, joinOnly, w.MergesScored, want)
				}
				if got, want := w.MarginalLikelihoods, calls.LogML+calls.LogMLUnion; got != want {
					t.Errorf("%s join-only %v: %d marginal likelihoods counted, the store was asked for %d", name, joinOnly, got, want)
				}
				if w.OperationsScored != ops {
					t.Errorf("%s join-only %v: %d operations counted, %d by the pairs' kinds", name, joinOnly, w.OperationsScored, ops)
				}
				if rep == 0 {
					first = w
					t.Logf("%s join-only %v: %+v", name, joinOnly, w)
				} else if w != first {
					t.Errorf("%s join-only %v: counts %+v, then %+v", name, joinOnly, first, w)
				}
			}
		}
	}
}
