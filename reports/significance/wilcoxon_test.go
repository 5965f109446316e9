package significance

import (
	"math"
	"testing"
)

// near reports whether got is within rel·|want| (or rel, near zero) of want; NaN matches NaN.
func near(got, want, rel float64) bool {
	if math.IsNaN(want) {
		return math.IsNaN(got)
	}
	return math.Abs(got-want) <= rel*math.Max(1, math.Abs(want))
}

// The references are scipy.stats.wilcoxon(d) of SciPy 1.10.1 (Debian bookworm's
// python3-scipy 1.10.1-2, numpy 1.24.2), called with its defaults, except where the case has
// tied absolute differences and no zeros: there the reference is wilcoxon(d, method='approx')
// (see Wilcoxon's doc; the default call returns p = 0.12939453125 for "ties12", from a
// truncated R+). Tolerance: 1e-12 relative on the p-value, the statistic exactly.
var wilcoxonCases = []struct {
	name      string
	d         []float64
	statistic float64
	p         float64
	exact     bool
	zeros     int
}{
	{"exact10", []float64{0.6588, 1.8107, -1.4863, 1.9866, 0.2527, -0.5, -0.503, -0.7828, 0.0764, 1.1339},
		21, 0.556640625, true, 0},
	{"exact20", []float64{1.0841, 1.1383, -1.1948, -1.071, 2.0538, 1.4689, 2.6832, 1.7098, -0.5244, 1.7853,
		1.1284, 0.7148, -0.3199, 0.5028, 0.353, 1.3925, 0.6245, 2.0847, -0.2745, 0.9711},
		30, 0.00365447998046875, true, 0},
	{"exact50", []float64{0.59884, -0.76434, -1.08127, 1.11358, 0.61744, -0.06251, 0.49437, -0.57534, 0.33835,
		-0.50513, 0.28879, 1.08609, -0.23963, 0.94977, -0.9342, -0.18849, -1.26474, -0.00059, 0.17865, -0.09726,
		-0.16768, 1.44019, 1.52379, -1.11563, 1.27411, -1.62307, -0.63448, -0.07345, 0.21106, -0.94742, -0.62247,
		0.17665, -0.59342, -0.5412, 0.76626, 1.03172, 0.03994, 0.1182, 0.0804, -0.35449, -0.41139, -0.93774,
		0.74839, 0.01584, -0.03744, 0.30054, 0.63067, 1.52103, -0.17355, -0.30117},
		625, 0.9085978224870299, true, 0},
	{"centre", []float64{1, -2, -3, 4}, 5, 1, true, 0},
	{"zeros15", []float64{0, 0, 0, 0.601, -0.446, 1.672, 1.326, 1.094, 0.28, 1.14, 1.45, 0.9, 0.12, -1.285, 1.347},
		11, 0.0280561241492436, false, 3},
	{"ties12", []float64{0.1, -0.1, 0.2, 0.2, 0.2, -0.3, 0.4, 0.5, 0.5, 0.6, -0.7, 0.8},
		18.5, 0.10698885506614937, false, 0},
	{"approx69", []float64{-0.253251, -0.743234, 0.990598, 0.438171, -1.318836, 0.000959, -0.169234, 1.092612,
		-1.795122, -0.285561, -0.038249, 1.5189, -0.98339, -2.840432, -1.284028, 0.36307, 0.909592, 1.833543,
		0.500935, -0.70231, 0.98439, 0.088942, -0.100958, 0.117553, 1.374576, -0.801441, -0.923927, 0.033478,
		0.03343, -0.714459, -0.779457, 0.477659, 1.437835, 0.812992, 0.785121, 1.345737, -1.890973, -1.410327,
		-0.605398, -1.095111, -0.889398, 0.169874, -1.18439, -0.343497, -1.943155, -0.873975, 1.445548,
		-0.442895, 0.424139, 0.808154, -0.390902, 0.679085, 0.314535, 0.797405, -0.535553, -1.340171, -0.92212,
		-0.454817, 0.635829, -0.104309, -0.298806, -0.079681, 1.199757, -0.475499, 1.611332, -1.127593,
		-0.492235, 0.955003, 0.617827},
		1118, 0.5925698562391077, false, 0},
	{"tieszeros69", []float64{-0.04, 0.04, -0.02, 0.14, 0.1, -0.02, 0.09, 0.01, 0.04, 0.06, -0.01, 0.09, 0.1, 0.09,
		0.16, 0.02, -0.1, 0, 0.07, 0.05, 0.11, 0.13, 0.04, 0.04, -0.05, 0.15, 0.02, -0.06, -0.06, 0.01, 0.21,
		0.13, -0.12, 0.04, 0.08, 0.11, 0.08, -0.01, 0.09, -0.01, -0.17, -0.02, -0.02, 0.15, 0.16, -0.05, 0.07,
		0.06, -0.09, -0.16, 0.04, 0.06, -0.01, -0.22, 0.05, -0.01, -0.04, 0.02, -0.06, 0.11, 0.05, -0.01, 0.08,
		0.05, -0.1, 0.04, 0, -0.12, -0.02},
		742, 0.013051337386621497, false, 2},
}

func TestWilcoxonAgainstScipy(t *testing.T) {
	for _, c := range wilcoxonCases {
		got, err := Wilcoxon(c.d)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if got.Statistic != c.statistic || !near(got.P, c.p, 1e-12) || got.Exact != c.exact || got.Zeros != c.zeros ||
			got.N != len(c.d)-c.zeros {
			t.Errorf("%s: got %+v, scipy statistic %v p %v (exact %v, zeros %d)", c.name, got, c.statistic, c.p, c.exact, c.zeros)
		}
		// The test is symmetric: A − B and B − A give the same statistic and p-value.
		neg := make([]float64, len(c.d))
		for i, x := range c.d {
			neg[i] = -x
		}
		if rev, _ := Wilcoxon(neg); rev.Statistic != got.Statistic || rev.P != got.P {
			t.Errorf("%s: negated differences give %+v, want %+v", c.name, rev, got)
		}
	}
}

func TestWilcoxonDegenerate(t *testing.T) {
	got, err := Wilcoxon([]float64{0, 0, 0, 0, 0, 0, 0})
	if err != nil || got.Statistic != 0 || got.P != 1 || got.Zeros != 7 || got.N != 0 {
		t.Errorf("all zero: got %+v, %v; want statistic 0, p 1, 7 zeros", got, err)
	}
	for _, d := range [][]float64{nil, {1, math.NaN()}, {math.Inf(1), 2}} {
		if _, err := Wilcoxon(d); err == nil {
			t.Errorf("Wilcoxon(%v): no error", d)
		}
	}
}

// TestExactSignedRankDistribution checks the convolution against enumeration of all 2^n sign
// patterns for small n.
func TestExactSignedRankDistribution(t *testing.T) {
	for n := 1; n <= 12; n++ {
		max := n * (n + 1) / 2
		count := make([]float64, max+1)
		for mask := 0; mask < 1<<n; mask++ {
			s := 0
			for k := range n {
				if mask&(1<<k) != 0 {
					s += k + 1
				}
			}
			count[s]++
		}
		for r := 0; r <= max; r++ {
			var below, above float64
			for s, c := range count {
				if s <= r {
					below += c
				}
				if s >= r {
					above += c
				}
			}
			want := math.Min(1, 2*math.Min(below, above)/math.Ldexp(1, n))
			if r == max/2 {
				want = 1 // scipy's centre rule
			}
			if got := exactSignedRankP(n, r); got != want {
				t.Fatalf("n=%d R+=%d: p %v, enumeration %v", n, r, got, want)
			}
		}
	}
}
