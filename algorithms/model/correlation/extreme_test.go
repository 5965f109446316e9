package correlation

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"
)

// scaled returns x with every value multiplied by s (row i by s·f(i) when f is given).
func scaled(x [][]float64, s func(i int) float64) [][]float64 {
	out := make([][]float64, len(x))
	for i, row := range x {
		out[i] = make([]float64, len(row))
		for k, v := range row {
			out[i][k] = v * s(i)
		}
	}
	return out
}

// TestExtremeVectorsNoNaN is the audit of the correlation model for finite input: both
// similarities are invariant under scaling each vector, so vectors scaled to 1e300 or 1e-300 (all
// alike, or each by its own factor) must give the weights of the unscaled vectors (1e-12), where
// squares of 1e300 would be +Inf (a NaN cosine) and squares of 1e-300 zero (no direction). No
// weight and no log ψ may be NaN or −Inf, whatever β up to MaxBeta (beyond, New refuses: β·E
// would overflow to an impossible −Inf).
func TestExtremeVectorsNoNaN(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	base := randomVectors(rng, 7, 5)
	for _, sim := range []Similarity{Cosine, Pearson} {
		want, err := New(t.Context(), base, Params{Similarity: sim, Beta: 1})
		if err != nil {
			t.Fatal(err)
		}
		for _, tc := range []struct {
			name  string
			scale func(i int) float64
		}{
			{"1e300", func(int) float64 { return 1e300 }},
			{"1e308 / 8", func(int) float64 { return math.MaxFloat64 / 8 }},
			{"1e-300", func(int) float64 { return 1e-300 }},
			{"subnormal", func(int) float64 { return 1e-310 }},
			{"mixed", func(i int) float64 { return []float64{1e300, 1, 1e-300, 1e150, 1e-150, 1e100, 1e-100}[i] }},
		} {
			x := scaled(base, tc.scale)
			for _, beta := range []float64{1, 1e-300, MaxBeta} {
				m, err := New(t.Context(), x, Params{Similarity: sim, Beta: beta})
				if err != nil {
					t.Errorf("sim %d, %s, β %v: %v", sim, tc.name, beta, err)
					continue
				}
				for i, row := range m.Weights() {
					for j, w := range row {
						if math.IsNaN(w) || math.Abs(w-want.Weights()[i][j]) > 1e-12 {
							t.Errorf("sim %d, %s: w[%d][%d] = %v, unscaled %v", sim, tc.name, i, j, w, want.Weights()[i][j])
						}
					}
				}
				s, err := m.NewSubsetScorer()
				if err != nil {
					t.Fatal(err)
				}
				n := uint32(m.Items())
				for x := uint32(3); x < 1<<n; x++ {
					for l := (x - 1) & x; l > 0; l = (l - 1) & x {
						if v := s.LogPsi(l, x^l); math.IsNaN(v) || math.IsInf(v, 0) {
							t.Fatalf("sim %d, %s, β %v: log ψ(%b, %b) = %v", sim, tc.name, beta, l, x^l, v)
						}
					}
				}
			}
		}
	}
}

func TestBetaBeyondMaxRefused(t *testing.T) {
	if _, err := New(t.Context(), [][]float64{{1, 0}, {0, 1}}, Params{Beta: 1e300}); err == nil || !strings.Contains(err.Error(), "beta must be at most 1e+100") {
		t.Errorf("β = 1e300: error %v", err)
	}
}

// TestNoDirectionRefused: vectors that have no direction over the features they share are refused
// with an error naming them, not given a similarity: a zero vector, a constant one under Pearson
// (also one whose centring leaves only rounding error, 0.1 three times), huge constant values, and
// masked vectors with no observed feature, or a single one (constant) under Pearson, in common.
func TestNoDirectionRefused(t *testing.T) {
	nan := math.NaN()
	for _, tc := range []struct {
		name string
		x    [][]float64
		p    Params
		want string
	}{
		{"zero vector", [][]float64{{1, 2, 3}, {0, 0, 0}}, Params{Beta: 1}, "vector 1 has no direction"},
		{"tiny zero-ish vector is fine", [][]float64{{1, 2, 3}, {1e-320, 0, 0}}, Params{Beta: 1}, ""},
		{"constant, pearson", [][]float64{{1, 2, 3}, {4, 4, 4}}, Params{Similarity: Pearson, Beta: 1}, "vector 1 has no direction"},
		{"constant up to rounding, pearson", [][]float64{{0.1, 0.1, 0.1}, {1, 2, 3}}, Params{Similarity: Pearson, Beta: 1}, "vector 0 has no direction"},
		{"huge constant, pearson", [][]float64{{1, 2, 3}, {1e308, 1e308, 1e308}}, Params{Similarity: Pearson, Beta: 1}, "vector 1 has no direction"},
		{"nothing in common", [][]float64{{1, 2, nan, nan}, {nan, nan, 3, 4}}, Params{Beta: 1, MaskMissing: true}, "vectors 0 and 1 share no non-constant observed feature"},
		{"one feature in common, pearson", [][]float64{{1, 2, nan}, {nan, 5, 3}}, Params{Similarity: Pearson, Beta: 1, MaskMissing: true}, "vectors 0 and 1 share no"},
		{"all missing", [][]float64{{nan, nan}, {1, 2}}, Params{Beta: 1, MaskMissing: true}, "vector 0 has no direction"},
	} {
		m, err := New(t.Context(), tc.x, tc.p)
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("%s: %v", tc.name, err)
		case tc.want == "":
			for _, row := range m.Weights() {
				for _, w := range row {
					if math.IsNaN(w) {
						t.Errorf("%s: NaN weight", tc.name)
					}
				}
			}
		case err == nil || !strings.Contains(err.Error(), tc.want):
			t.Errorf("%s: error %v, want one containing %q", tc.name, err, tc.want)
		}
	}
}
