package significance

import (
	"math/rand/v2"
	"testing"
)

// The references are scipy.stats.bootstrap((d,), numpy.median, method='percentile',
// n_resamples=200000, random_state=s) of SciPy 1.10.1, which gave the same interval for the seeds
// s = 1, 2, 3 (and BCa gave it too). For odd n the interval is also the exact one: the bootstrap
// distribution of the median of n distinct values is P(median ≤ s_(k)) = P(Bin(n, k/n) ≥ (n+1)/2),
// whose 2.5 % and 97.5 % quantiles are the values below.
//
// Monte-Carlo tolerance: the bootstrap distribution of the median is discrete, and each
// quantile lies inside one of its steps, at least 0.0048 in probability from the step's edges
// (for n = 20, measured on 10^6 scipy resamples: 2.02 % of medians below the lower end,
// 3.37 % at or below it). With 200 000 resamples the standard error of an empirical CDF value
// near 0.025 is 0.00035, so the edges are over 13 standard errors away and any correct
// implementation returns these order statistics (or, for even n, mid-points) up to rounding:
// the test asks for 1e-12.
var bootstrapCases = []struct {
	name   string
	d      []float64
	lo, hi float64
}{
	{"n25", []float64{-0.0302, -0.0824, 0.0252, 0.092, 0.1636, 0.061, -0.0053, -0.0285, 0.1249, 0.2135, 0.0773,
		-0.0733, -0.0458, 0.21, 0.0703, -0.1232, 0.0416, -0.0663, -0.0129, 0.0012, -0.0213, 0.1053, 0.0437,
		-0.0089, 0.091}, -0.0213, 0.0773},
	{"n20", []float64{0.133, -0.1143, 0.0243, -0.0481, 0.0327, -0.0789, 0.0521, 0.0462, 0.0196, -0.0548, 0.0104,
		-0.0591, -0.0855, 0.0725, -0.0609, 0.167, 0.1217, -0.1498, 0.0772, -0.0602}, -0.059649999999999995, 0.04915},
	{"n69", []float64{0.0533, 0.0544, -0.1488, 0.0267, 0.0244, 0.1462, -0.0681, 0.1238, -0.0599, 0.0169, -0.034,
		0.1949, 0.1068, 0.2932, 0.1142, 0.1345, 0.1341, -0.0107, 0.043, 0.185, 0.0103, 0.0689, 0.0479, 0.1109,
		0.0135, 0.0348, 0.0742, 0.0603, -0.0365, 0.1396, -0.0798, -0.0701, -0.0782, 0.1467, 0.0139, -0.0471,
		-0.0636, 0.0921, -0.0555, -0.0772, 0.1114, -0.0697, 0.0178, 0.0493, 0.0055, 0.0446, 0.1839, -0.0017,
		-0.0759, -0.1337, 0.0295, 0.0148, 0.0765, 0.0036, 0.0021, -0.0221, -0.002, 0.066, 0.012, 0.06, 0.2401,
		0.0979, -0.1076, 0.2234, 0.0848, -0.0441, 0.1407, 0.0518, -0.0115}, 0.012, 0.0544},
}

func TestBootstrapMedianCIAgainstScipy(t *testing.T) {
	for _, c := range bootstrapCases {
		lo, hi, err := BootstrapMedianCI(c.d, 200000, 0.95, rand.New(rand.NewPCG(1, 2)))
		if err != nil {
			t.Fatal(err)
		}
		if !near(lo, c.lo, 1e-12) || !near(hi, c.hi, 1e-12) {
			t.Errorf("%s: CI (%v, %v), scipy (%v, %v)", c.name, lo, hi, c.lo, c.hi)
		}
	}
}

// TestBootstrapMedianCIDeterministic checks that a seed fixes the interval and that another
// seed draws other resamples (with 50 resamples the interval moves).
func TestBootstrapMedianCIDeterministic(t *testing.T) {
	d := bootstrapCases[2].d
	ci := func(seed uint64) [2]float64 {
		lo, hi, err := BootstrapMedianCI(d, 50, 0.95, rand.New(rand.NewPCG(seed, 7)))
		if err != nil {
			t.Fatal(err)
		}
		return [2]float64{lo, hi}
	}
	if a, b := ci(3), ci(3); a != b {
		t.Errorf("seed 3 twice: %v, %v", a, b)
	}
	differ := false
	for s := uint64(4); s < 10 && !differ; s++ {
		differ = ci(s) != ci(3)
	}
	if !differ {
		t.Error("seeds 3..9 all give the same 50-resample interval")
	}
}

// TestCountedMedian checks the median of a resample given as counts against numpy's rule
// (median) applied to the resample written out, for both parities and with ties.
func TestCountedMedian(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 5))
	for _, sorted := range [][]float64{{5}, {1, 3}, {2, 2, 2, 2}, {1, 2, 2, 3, 7, 7}, {-3, -1, 0, 0.5, 4, 9, 11}} {
		for range 200 {
			count := make([]int32, len(sorted))
			var resample []float64
			for range sorted {
				i := rng.IntN(len(sorted))
				count[i]++
				resample = append(resample, sorted[i])
			}
			if got, want := countedMedian(sorted, count), median(resample); got != want {
				t.Fatalf("%v with counts %v: median %v, want %v", sorted, count, got, want)
			}
		}
	}
}

func TestBootstrapMedianCIErrors(t *testing.T) {
	for _, bad := range []struct {
		d     []float64
		b     int
		level float64
	}{{nil, 10, 0.95}, {[]float64{1}, 0, 0.95}, {[]float64{1}, 10, 1}, {[]float64{nan()}, 10, 0.95}} {
		if _, _, err := BootstrapMedianCI(bad.d, bad.b, bad.level, rand.New(rand.NewPCG(1, 1))); err == nil {
			t.Errorf("BootstrapMedianCI(%v, %d, %v): no error", bad.d, bad.b, bad.level)
		}
	}
}
