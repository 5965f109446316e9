package trellis

import (
	"context"
	"errors"
	"math"
	"math/bits"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/hcbench/hcbench/algorithms/model"
	"github.com/hcbench/hcbench/algorithms/model/correlation"
	"github.com/hcbench/hcbench/algorithms/model/ginkgo"
	"github.com/hcbench/hcbench/algorithms/model/ginkgo/ginkgotest"
	"github.com/hcbench/hcbench/algorithms/model/modeltest"
	"github.com/hcbench/hcbench/algorithms/tree"
)

// splitScore is an additive test score: a fixed pseudo-random value per split, so that the trees
// tied for the MAP have different totals.
var splitScore = modeltest.Random(0, 99, 0).Psi

// treeScore is the total of a symmetric score over the splits of tr.
func treeScore(tr *tree.Tree, score func(l, r uint32) float64) float64 {
	s, err := model.TreeLogLikelihood(modeltest.Func{N: tr.Items(), Psi: score}, tr)
	if err != nil {
		panic(err)
	}
	return s
}

// bruteTies enumerates every binary tree of m and returns the number within tol of the best
// log-potential, and the least and greatest treeScore over them.
func bruteTies(t *testing.T, m model.Model, tol float64) (count int, lo, hi float64) {
	t.Helper()
	best := math.Inf(-1)
	type scored struct{ ll, s float64 }
	var all []scored
	for tr := range tree.AllBinary(m.Items()) {
		ll, err := model.TreeLogLikelihood(m, tr)
		if err != nil {
			t.Fatal(err)
		}
		all = append(all, scored{ll, treeScore(tr, splitScore)})
		best = max(best, ll)
	}
	lo, hi = math.Inf(1), math.Inf(-1)
	for _, x := range all {
		if x.ll > math.Inf(-1) && best-x.ll <= tol {
			count++
			lo, hi = min(lo, x.s), max(hi, x.s)
		}
	}
	return count, lo, hi
}

func TestMAPTiesAgainstBruteForce(t *testing.T) {
	// The DP over the tables against enumeration of all (2N−3)!! trees, N ≤ 7: the count exactly,
	// the score range to 1e-12 (sums of ≤ 6 terms in another order). Models: every tree tied
	// (constant), integer potentials (many partial ties, exact in float), continuous potentials
	// with −Inf splits (ties unlikely), and the correlation-clustering energy, whose ties are exact
	// in real arithmetic and ~1e−15 apart in float, far inside the tolerance 1e-9.
	const tol = 1e-9
	rng := rand.New(rand.NewPCG(7, 8))
	for n := 1; n <= 7; n++ {
		x := make([][]float64, n)
		for i := range x {
			x[i] = []float64{rng.NormFloat64(), rng.NormFloat64(), rng.NormFloat64()}
		}
		cc, err := correlation.New(t.Context(), x, correlation.Params{Beta: 1})
		if err != nil {
			t.Fatal(err)
		}
		continuous := modeltest.Random(n, uint64(n), 0)
		integer := modeltest.Func{N: n, Psi: func(l, r uint32) float64 { return math.Floor(continuous.Psi(l, r)) }}
		for name, m := range map[string]model.Model{
			"constant": modeltest.Constant(n, 0), "integer": integer,
			"random": modeltest.Random(n, uint64(n), 0.2), "correlation": cc,
		} {
			count, lo, hi := bruteTies(t, m, tol)
			for _, w := range []int{1, 3} {
				tr := build(t, m, Options{Workers: w, blockBits: 2})
				got, err := tr.MAPTies(context.Background(), tol, splitScore)
				if err != nil {
					t.Fatal(err)
				}
				if got.Trees != float64(count) {
					t.Errorf("%s N=%d workers %d: %v MAP trees, brute force %d", name, n, w, got.Trees, count)
				}
				if count > 0 && (math.Abs(got.Min-lo) > 1e-12 || math.Abs(got.Max-hi) > 1e-12) {
					t.Errorf("%s N=%d workers %d: score range [%v, %v], brute force [%v, %v]", name, n, w, got.Min, got.Max, lo, hi)
				}
				if count == 0 && !(math.IsNaN(got.Min) && math.IsNaN(got.Max)) {
					t.Errorf("%s N=%d: no MAP tree, but a score range [%v, %v]", name, n, got.Min, got.Max)
				}
			}
		}
	}
}

func TestMAPTiesWholeAndNone(t *testing.T) {
	// Under a constant potential all (2N−3)!! trees reach the MAP (N = 12: 13!! = 1.37e11, exact in
	// float64); when every split is −Inf none does.
	tr := build(t, modeltest.Constant(12, 0), Options{})
	got, err := tr.MAPTies(context.Background(), 0, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got.Trees != tree.NumBinary(12) || !math.IsNaN(got.Min) {
		t.Errorf("constant: %+v, want %v trees and no score", got, tree.NumBinary(12))
	}
	tr = build(t, modeltest.Constant(5, math.Inf(-1)), Options{})
	if got, _ := tr.MAPTies(context.Background(), 1, splitScore); got.Trees != 0 || !math.IsNaN(got.Max) {
		t.Errorf("impossible everywhere: %+v, want 0 trees", got)
	}
	// The score of a tree's splits counts every split once: with score ≡ 1 every tree sums to
	// N − 1 internal nodes.
	one := func(l, r uint32) float64 { return 1 }
	tr = build(t, modeltest.Constant(6, 0), Options{})
	if got, _ := tr.MAPTies(context.Background(), 0, one); got.Min != 5 || got.Max != 5 {
		t.Errorf("score ≡ 1: range [%v, %v], want [5, 5]", got.Min, got.Max)
	}
}

func TestMAPTiesHoldsTheMAPTree(t *testing.T) {
	// The tie rule's MAP tree is one of the counted trees: its score lies in the range, on a
	// model with many ties (N = 10, integer potentials).
	m := modeltest.Func{N: 10, Psi: func(l, r uint32) float64 { return -float64(bits.OnesCount32(l) % 2) }}
	tr := build(t, m, Options{})
	got, err := tr.MAPTies(context.Background(), 0, splitScore)
	if err != nil {
		t.Fatal(err)
	}
	if s := treeScore(tr.MAPTree(), splitScore); got.Trees < 2 || s < got.Min || s > got.Max {
		t.Errorf("%v MAP trees with score range [%v, %v]; the MAP tree scores %v", got.Trees, got.Min, got.Max, treeScore(tr.MAPTree(), splitScore))
	}
}

func TestMAPTiesCancel(t *testing.T) {
	tr := build(t, modeltest.Constant(10, 0), Options{})
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := tr.MAPTies(ctx, 0, nil); err != context.Canceled {
		t.Errorf("got %v, want context.Canceled", err)
	}
}

// TestMAPTiesMemoryGuard: with a limit that holds the trellis but not the ties' tables, MAPTies
// fails with ErrTooLarge before allocating, and with room for them it runs.
func TestMAPTiesMemoryGuard(t *testing.T) {
	m := modeltest.Constant(10, 0)
	tables := MemoryNeeded(m, Options{})
	tr := build(t, m, Options{MemoryLimit: tables})
	if _, err := tr.MAPTies(context.Background(), 0, nil); !errors.Is(err, ErrTooLarge) || !strings.Contains(err.Error(), "the MAP ties") {
		t.Errorf("got %v, want ErrTooLarge for the MAP ties", err)
	}
	tr = build(t, m, Options{MemoryLimit: tables + (tiesBytes+tiesScoreBytes)<<10})
	if _, err := tr.MAPTies(context.Background(), 0, splitScore); err != nil {
		t.Errorf("with room for the ties: %v", err)
	}
}

// TestMAPTiesFastKernel: on a Ginkgo jet the bottom-up pass's MAP comes from the fast kernel,
// whose inlined log can differ from the model's scorer in the last bits; MAPTies takes its best
// values from the scorer it scores splits with, so even at tol = 0 the MAP tree counts.
func TestMAPTiesFastKernel(t *testing.T) {
	rng := rand.New(rand.NewPCG(21, 22))
	for range 10 {
		m := ginkgotest.Model(t, ginkgotest.RandomJet(t, rng, 9), ginkgo.Version2020)
		for _, opts := range []Options{{}, {MAPOnly: true}} {
			tr := build(t, m, opts)
			got, err := tr.MAPTies(context.Background(), 0, nil)
			if err != nil || got.Trees < 1 {
				t.Fatalf("MAPOnly %v: %+v, %v; want at least the MAP tree", opts.MAPOnly, got, err)
			}
		}
	}
}
