package metric

import (
	"math"
	"testing"

	"github.com/hcbench/hcbench/algorithms/tree"
	"github.com/hcbench/hcbench/reports/metrics"
)

// TestClusteringMetrics: the partition metrics of the table are the best over the references of
// reports/metrics' scores of the cut at each reference's k, noise left out, and the tree metrics
// need what they say. The tree ((0,1),(2,(3,4))) with heights cuts into {0,1},{2,3,4} at k = 2
// and {0,1},{2},{3,4} at k = 3.
func TestClusteringMetrics(t *testing.T) {
	tr, err := tree.FromMerges(5, [][2]int{{0, 1}, {3, 4}, {2, 6}, {5, 7}})
	if err != nil {
		t.Fatal(err)
	}
	heights := []float64{0, 0, 0, 0, 0, 1, 1, 2, 5}
	vectors := [][]float64{{0}, {0.5}, {9}, {10}, {10.5}}
	// Reference 1 (k = 2, point 2 noise) is matched exactly by the cut at 2; reference 2 (k = 3)
	// puts point 2 with 0 and 1, which the cut at 3 does not.
	refs := [][]int{{1, 1, 0, 2, 2}, {1, 1, 1, 2, 3}}
	got := ComputeAll(Input{Tree: tr, Heights: heights, References: refs, Vectors: vectors})
	for _, c := range []struct {
		key   string
		score func(pred, ref []int) float64
	}{{NCA, metrics.NormalizedClusteringAccuracy}, {ARI, metrics.AdjustedRand}, {AMI, metrics.AdjustedMutualInfo}, {FowlkesMallows, metrics.FowlkesMallows}} {
		// The best reference is the first, which the cut at 2 recovers: a score of 1.
		if v, ok := got[c.key]; !ok || math.Abs(v-1) > 1e-12 {
			t.Errorf("%s = %v (%v), want 1 (the first reference, recovered exactly)", c.key, v, ok)
		}
		// With the second reference alone, the value is the score of the cut at 3 on all points.
		one := ComputeAll(Input{Tree: tr, Heights: heights, References: refs[1:]})
		want := c.score([]int{1, 1, 2, 3, 3}, refs[1])
		if v := one[c.key]; math.Abs(v-want) > 1e-12 || want == 1 {
			t.Errorf("%s on the second reference = %v, want %v (< 1)", c.key, v, want)
		}
	}
	if _, ok := got[DasguptaCost]; !ok {
		t.Error("no Dasgupta cost with vectors")
	}
	r, ok := got[CopheneticCorrelation]
	want, _ := metrics.CopheneticCorrelation(tr, heights, func(i, j int) float64 { return math.Abs(vectors[i][0] - vectors[j][0]) })
	if !ok || math.Abs(r-want) > 1e-12 {
		t.Errorf("cophenetic correlation %v (%v), want %v", r, ok, want)
	}
	noHeights := ComputeAll(Input{Tree: tr, References: refs, Vectors: vectors})
	if _, ok := noHeights[CopheneticCorrelation]; ok {
		t.Error("a cophenetic correlation without heights")
	}
}
