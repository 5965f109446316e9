package significance

import (
	"testing"
)

// friedmanBlocks12 is a 12 × 4 table with ties (values rounded to 0.01).
var friedmanBlocks12 = [][]float64{{0.5, 0.56, 0.59, 0.48}, {0.48, 0.5, 0.6, 0.59}, {0.48, 0.52, 0.62, 0.54},
	{0.51, 0.5, 0.6, 0.55}, {0.43, 0.53, 0.5, 0.46}, {0.41, 0.54, 0.54, 0.53}, {0.51, 0.54, 0.47, 0.49},
	{0.5, 0.56, 0.52, 0.5}, {0.45, 0.51, 0.65, 0.48}, {0.5, 0.59, 0.57, 0.51}, {0.51, 0.55, 0.54, 0.52},
	{0.57, 0.47, 0.64, 0.53}}

// The references are scipy.stats.friedmanchisquare(*X.T) of SciPy 1.10.1 and the means over
// rows of scipy.stats.rankdata(-row) (higher better) or rankdata(row) (lower better).
// Tolerance: 1e-12 relative.
func TestFriedmanAgainstScipy(t *testing.T) {
	for _, c := range []struct {
		name         string
		blocks       [][]float64
		higherBetter bool
		stat, p      float64
		ranks        []float64
	}{
		{"ties12 higher", friedmanBlocks12, true, 14.89830508474577, 0.0019056491042033995,
			[]float64{3.4583333333333335, 2.0416666666666665, 1.625, 2.875}},
		{"ties12 lower", friedmanBlocks12, false, 14.89830508474577, 0.0019056491042033995,
			[]float64{1.5416666666666667, 2.9583333333333335, 3.375, 2.125}},
		{"formula49 higher", completeBlocks(formulaGrid(69, 8)), true, 7.993197278911566, 0.33319414322189234,
			[]float64{5.224489795918367, 4.571428571428571, 4.591836734693878, 4.775510204081633,
				4.142857142857143, 4.163265306122449, 4.346938775510204, 4.183673469387755}},
	} {
		got, err := Friedman(c.blocks, c.higherBetter)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if !near(got.Statistic, c.stat, 1e-12) || !near(got.P, c.p, 1e-12) {
			t.Errorf("%s: statistic %v p %v, scipy %v %v", c.name, got.Statistic, got.P, c.stat, c.p)
		}
		for j := range c.ranks {
			if !near(got.MeanRanks[j], c.ranks[j], 1e-12) {
				t.Errorf("%s: mean ranks %v, scipy %v", c.name, got.MeanRanks, c.ranks)
				break
			}
		}
	}
}

func TestFriedmanErrors(t *testing.T) {
	for _, b := range [][][]float64{nil, {{1}}, {{1, 2, 3}, {1, 2}}, {{1, 2, 3}, {1, 2, nan()}}} {
		if _, err := Friedman(b, true); err == nil {
			t.Errorf("Friedman(%v): no error", b)
		}
	}
	// Two treatments: mean ranks but no test.
	got, err := Friedman([][]float64{{1, 2}, {3, 1}, {2, 2}}, true)
	if err != nil || got.MeanRanks[0] != 1.5 || got.MeanRanks[1] != 1.5 || !isNaN(got.Statistic) || !isNaN(got.P) {
		t.Errorf("two treatments: %+v, %v; want mean ranks 1.5, 1.5 and NaN test", got, err)
	}
}
