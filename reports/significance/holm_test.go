package significance

import (
	"math"
	"testing"
)

// The references are statsmodels.stats.multitest.multipletests(p, method='holm')[1] of
// statsmodels 0.13.5 (Debian bookworm's python3-statsmodels; SciPy 1.10.1 has no Holm).
// Tolerance: 1e-15 relative.
func TestHolmAgainstStatsmodels(t *testing.T) {
	for _, c := range []struct{ p, want []float64 }{
		{[]float64{0.01, 0.04, 0.03, 0.005, 0.2, 0.04, 0.5, 0.0001},
			[]float64{0.06, 0.16, 0.15, 0.035, 0.4, 0.16, 0.5, 0.0008}},
		{[]float64{0.3, 0.6, 0.9}, []float64{0.8999999999999999, 1, 1}},
	} {
		got := Holm(c.p)
		for i := range c.want {
			if !near(got[i], c.want[i], 1e-15) {
				t.Errorf("Holm(%v) = %v, statsmodels %v", c.p, got, c.want)
				break
			}
		}
	}
}

// TestHolmUntested checks that NaN entries (untested pairs) stay NaN and do not count in the
// family size: the family {0.01, NaN, 0.02} is adjusted as {0.01, 0.02}.
func TestHolmUntested(t *testing.T) {
	got := Holm([]float64{0.01, math.NaN(), 0.02})
	if got[0] != 0.02 || !math.IsNaN(got[1]) || got[2] != 0.02 {
		t.Errorf("Holm = %v, want [0.02 NaN 0.02]", got)
	}
}
