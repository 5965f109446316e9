package ginkgo

import (
	"math"
	"testing"
)

// TestSplit2021MassOrdering covers the √t_L + √t_R > √t_P rejection of ginkgo.md §6, which
// physical momenta cannot reach with t_L, t_R < 0.999·t_P (for two future-pointing timelike
// momenta (p_L + p_R)² ≥ (√t_L + √t_R)²; with one past-pointing, max(t_L, t_R) ≥ t_P), so it is
// tested on the t values directly.
func TestSplit2021MassOrdering(t *testing.T) {
	m, err := New([][4]float64{{1, 0, 0, 0}}, Params{Lambda: 1.5, LambdaRoot: 1.5, TCut: 16, Version: Version2021})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		tP, tL, tR float64
		finite     bool
	}{
		{900, 400, 400, false}, // 20 + 20 > 30
		{900, 400, 99, true},   // 20 + 9.95 < 30
		{900, 400, 101, false}, // 20 + 10.05 > 30
		{900, 0, 0, true},
		{900, math.NaN(), 4, false},
		{math.Inf(1), 4, 4, false},
	} {
		for _, r := range []int{0, 1} {
			for _, got := range []float64{m.split2021(tc.tP, tc.tL, tc.tR, r), m.split2021(tc.tP, tc.tR, tc.tL, r)} {
				if math.IsNaN(got) || math.IsInf(got, 1) || tc.finite == math.IsInf(got, -1) {
					t.Errorf("split2021(%v, %v, %v): %v, want finite: %v", tc.tP, tc.tL, tc.tR, got, tc.finite)
				}
			}
		}
	}
}
