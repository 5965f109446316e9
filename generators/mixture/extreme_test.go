package mixture

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"
)

// TestExtremeParams is the audit of the mixture generator for the values config validation
// accepts: at the ends of the separation and spread ranges every coordinate is finite and at most
// 1e100 in magnitude (what the cluster models take), Bernoulli features are 0 or 1 and their
// probabilities lie in [0, 1]; just beyond the ranges Draw refuses.
func TestExtremeParams(t *testing.T) {
	for _, tc := range []struct {
		name string
		p    Params
	}{
		{"gaussian, largest separation and spread", Params{Kind: Gaussian, Components: 50, Points: 200, Dims: 3, Separation: MaxSeparation, Spread: MaxSpread}},
		{"gaussian, smallest separation, tiny spread", Params{Kind: Gaussian, Components: 4, Points: 40, Dims: 3, Separation: MinSeparation, Spread: 1e-300}},
		{"bernoulli, largest separation", Params{Kind: Bernoulli, Components: 4, Points: 40, Dims: 30, Separation: MaxSeparation, Spread: 1}},
		{"bernoulli, smallest separation", Params{Kind: Bernoulli, Components: 4, Points: 40, Dims: 30, Separation: MinSeparation, Spread: 1}},
	} {
		d, err := Draw(t.Context(), rand.New(rand.NewPCG(1, 2)), tc.p)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		for i, row := range d.X {
			for k, v := range row {
				if math.IsNaN(v) || !(math.Abs(v) <= 1e100) || (tc.p.Kind == Bernoulli && v != 0 && v != 1) {
					t.Fatalf("%s: point %d feature %d is %v", tc.name, i, k, v)
				}
			}
		}
	}
	for _, tc := range []struct {
		name string
		p    Params
		want string
	}{
		{"separation 1e300", Params{Kind: Gaussian, Components: 2, Points: 4, Dims: 1, Separation: 1e300, Spread: 1}, "separation must lie in [1e-50, 1e+50]"},
		{"separation 1e-300", Params{Kind: Bernoulli, Components: 2, Points: 4, Dims: 1, Separation: 1e-300, Spread: 1}, "separation must lie in"},
		{"spread 1e300", Params{Kind: Gaussian, Components: 2, Points: 4, Dims: 1, Separation: 3, Spread: 1e300}, "spread must be at most 1e+50"},
	} {
		if _, err := Draw(t.Context(), rand.New(rand.NewPCG(1, 2)), tc.p); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want one containing %q", tc.name, err, tc.want)
		}
	}
}

// TestBetaSmallShapes: Beta(a, a) for small a puts its mass near 0 and 1 (P(θ < ε) → ½ as a → 0):
// with a = 1e-4 both Gamma draws underflow to 0 most of the time, and the draws must still be
// near 0 or 1, not the ½ that 0/0 was once taken as. For a = 1e-50 every draw is 0 or 1 to
// rounding, and no draw is NaN.
func TestBetaSmallShapes(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for _, a := range []float64{1e-4, 1e-50} {
		extreme := 0
		const n = 2000
		for range n {
			v := betaDraw(rng, a, a)
			if math.IsNaN(v) || v < 0 || v > 1 {
				t.Fatalf("a = %v: draw %v", a, v)
			}
			if v < 1e-6 || v > 1-1e-6 {
				extreme++
			}
		}
		if extreme < n*99/100 {
			t.Errorf("a = %v: only %d of %d draws within 1e-6 of 0 or 1", a, extreme, n)
		}
	}
	// Moderate shapes keep the plain quotient: Beta(2, 3) has mean 0.4.
	sum := 0.0
	for range 20000 {
		sum += betaDraw(rng, 2, 3)
	}
	if m := sum / 20000; math.Abs(m-0.4) > 0.01 {
		t.Errorf("Beta(2, 3) mean %v, want 0.4", m)
	}
}
