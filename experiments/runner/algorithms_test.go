package runner

import (
	"testing"
)

func TestWeightDistances(t *testing.T) {
	// d_ij = max_{i≠j} w − w_ij (AstarTrellis Tree.execute_search), worked by hand. All
	// off-diagonal weights are negative, so a maximum that took in the zero diagonal would give
	// 0 − w instead; the diagonal of d is 0 whatever w holds there.
	w := [][]float64{
		{0, -0.25, -1},
		{-0.25, 7, -0.5},
		{-1, -0.5, 0},
	}
	want := [][]float64{
		{0, 0, 0.75},
		{0, 0, 0.25},
		{0.75, 0.25, 0},
	}
	d := weightDistances(w)
	for i := range want {
		for j := range want[i] {
			// Exact: one subtraction of numbers exact in binary.
			if d[i][j] != want[i][j] {
				t.Errorf("d[%d][%d] = %v, want %v", i, j, d[i][j], want[i][j])
			}
		}
	}
}
