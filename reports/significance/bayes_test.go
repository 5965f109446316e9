package significance

import (
	"math"
	"math/rand/v2"
	"testing"
)

// The references come from a numpy transcription of the Bayesian signed-rank test (pair sums
// d_i + d_j over the differences with a pseudo-observation 0 of weight 0.5, Heaviside with
// H(0) = ½, Dirichlet weights from numpy.random.RandomState(1).dirichlet, 200 000 samples, the
// share of samples in which each θ is largest; numpy 1.24.2). With the same draws the
// transcription gave exactly the probabilities of baycomp's SignedRankTest (janezd/baycomp at
// 0ce309b, called with x = 0, y = d, nsamples = 20 000, random_state = 3) on every case.
//
// Monte-Carlo tolerance: each probability is a mean of 200 000 indicators, standard error at
// most 0.0011; a difference of two independent estimates has standard error at most 0.0016, and
// the test allows 0.01 (over 6 standard errors).
var bayesCases = []struct {
	name                 string
	d                    []float64
	rope                 float64
	neg, equiv, positive float64
}{
	{"n20rope", bayesD20, 0.01, 0.01097, 0.02825, 0.96078},
	{"n20norope", bayesD20, 0, 0.02527, 0, 0.97473},
	// Differences in steps of 0.01 with rope 0.01: many pair sums fall exactly on ±2·rope.
	{"n69tied", []float64{-0.02, -0.04, 0.02, -0.02, -0.05, -0.02, -0.01, -0.03, -0.04, 0.01, 0.03, 0, -0.02,
		0.02, 0.03, 0, 0.02, 0.04, 0, -0.02, 0.02, 0.01, 0.04, -0.03, -0.01, -0.02, -0.05, 0.01, 0.02, -0.02,
		0.05, 0.03, 0.02, 0.02, 0.03, -0.03, 0.02, 0.02, -0.05, 0.02, 0, 0.03, -0.01, 0, 0.02, -0.02, 0.02, 0,
		0.02, -0.01, 0.04, 0.02, 0, 0.02, 0.04, 0.06, -0.04, 0.03, 0.02, 0, -0.03, 0.04, -0.03, 0.02, 0.04,
		-0.04, 0, -0.03, 0.01}, 0.01, 0.03247, 0.47757, 0.48997},
	{"n6", []float64{0.03, -0.01, 0.05, 0.02, 0, 0.04}, 0.02, 0, 0.49362, 0.50638},
}

var bayesD20 = []float64{0.0121, 0.0916, 0.0835, -0.0206, -0.0079, -0.0216, 0.0442, 0.0066, 0.0548, -0.1008,
	0.104, 0.0042, 0.0508, 0.0018, -0.0127, 0.0378, 0.0595, -0.0022, 0.0008, 0.0511}

func TestBayesianSignedRankAgainstTranscription(t *testing.T) {
	for _, c := range bayesCases {
		got, err := BayesianSignedRank(c.d, c.rope, 200000, DefaultPrior, rand.New(rand.NewPCG(21, 1)))
		if err != nil {
			t.Fatal(err)
		}
		if math.Abs(got.Negative-c.neg) > 0.01 || math.Abs(got.Equivalent-c.equiv) > 0.01 ||
			math.Abs(got.Positive-c.positive) > 0.01 {
			t.Errorf("%s: %+v, transcription (%v, %v, %v)", c.name, got, c.neg, c.equiv, c.positive)
		}
		if s := got.Negative + got.Equivalent + got.Positive; math.Abs(s-1) > 1e-12 {
			t.Errorf("%s: probabilities sum to %v", c.name, s)
		}
	}
}

// TestBayesianSignedRankProperties checks what holds whatever the draws: differences far above
// the rope give P(positive) ≈ 1 (the only pair sum not above is the pseudo-observation's with
// itself, weight w_0² with w_0 ~ Beta(0.5, n)); negating the differences swaps the sides
// exactly for the same seed; all differences zero with no rope is a tie, split ½, ½; and the
// result is fixed by the seed.
func TestBayesianSignedRankProperties(t *testing.T) {
	run := func(d []float64, rope float64, seed uint64) BayesResult {
		r, err := BayesianSignedRank(d, rope, 20000, DefaultPrior, rand.New(rand.NewPCG(seed, 9)))
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	far := []float64{0.5, 0.6, 0.55, 0.7, 0.52, 0.61, 0.58, 0.9}
	if r := run(far, 0.05, 1); r.Positive < 0.99 {
		t.Errorf("all differences ≥ 0.5 with rope 0.05: %+v, want P(positive) ≈ 1", r)
	}
	inside := []float64{0.001, -0.002, 0.0005, 0.003, -0.001, 0.002, 0}
	if r := run(inside, 0.05, 1); r.Equivalent < 0.99 {
		t.Errorf("all differences inside rope 0.05: %+v, want P(equivalent) ≈ 1", r)
	}
	neg := make([]float64, len(bayesD20))
	for i, x := range bayesD20 {
		neg[i] = -x
	}
	a, b := run(bayesD20, 0.01, 4), run(neg, 0.01, 4)
	if a.Positive != b.Negative || a.Negative != b.Positive || a.Equivalent != b.Equivalent {
		t.Errorf("negated differences: %+v, want the sides of %+v swapped", b, a)
	}
	if r := run([]float64{0, 0, 0, 0, 0, 0}, 0, 1); r.Positive != 0.5 || r.Negative != 0.5 {
		t.Errorf("all zero, no rope: %+v, want ½, 0, ½", r)
	}
	if x, y := run(bayesD20, 0.01, 7), run(bayesD20, 0.01, 7); x != y {
		t.Errorf("seed 7 twice: %+v, %+v", x, y)
	}
	for _, bad := range []struct {
		d           []float64
		rope, prior float64
		samples     int
	}{{nil, 0, 0.5, 10}, {far, -1, 0.5, 10}, {far, 0, 0, 10}, {far, 0, 0.5, 0}, {[]float64{nan()}, 0, 0.5, 10}} {
		if _, err := BayesianSignedRank(bad.d, bad.rope, bad.samples, bad.prior, rand.New(rand.NewPCG(1, 1))); err == nil {
			t.Errorf("BayesianSignedRank(%v, rope %v, %d samples, prior %v): no error", bad.d, bad.rope, bad.samples, bad.prior)
		}
	}
}
