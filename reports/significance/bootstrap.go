package significance

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
)

// BootstrapMedianCI returns the percentile bootstrap confidence interval, at the given level
// (0.95 for a 95 % interval), of the median of d: resamples resamples of len(d) values drawn with
// replacement, the median of each (the mean of the two middle values when len(d) is even, as
// numpy.median), and the (1−level)/2 and (1+level)/2 quantiles of those medians with linear
// interpolation (numpy.percentile's default). This is scipy.stats.bootstrap((d,), numpy.median,
// method='percentile', confidence_level=level, n_resamples=resamples) up to the random draws.
//
// The percentile method is chosen over BCa because BCa's acceleration is a jackknife estimate,
// and the jackknife is inconsistent for the median (Efron & Tibshirani 1993, §11.6); with tied
// differences, common in clustering scores, BCa's bias correction also jumps with the share of
// resampled medians equal to the observed one.
//
// The result is deterministic for the state of rng. d must be non-empty and finite, resamples
// at least 1, level in (0, 1).
func BootstrapMedianCI(d []float64, resamples int, level float64, rng *rand.Rand) (lo, hi float64, err error) {
	if len(d) == 0 {
		return 0, 0, errors.New("significance: bootstrap of no values")
	}
	if resamples < 1 {
		return 0, 0, fmt.Errorf("significance: bootstrap with %d resamples, need at least 1", resamples)
	}
	if !(level > 0 && level < 1) {
		return 0, 0, fmt.Errorf("significance: confidence level %v not in (0, 1)", level)
	}
	sorted := slices.Clone(d)
	for _, x := range sorted {
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return 0, 0, errors.New("significance: bootstrap of a non-finite value")
		}
	}
	slices.Sort(sorted)
	n := len(sorted)
	// Drawing positions in the sorted copy is drawing values of d; counting the draws per
	// position gives the resample sorted for free, so its median is a scan, not a sort.
	count := make([]int32, n)
	medians := make([]float64, resamples)
	for b := range medians {
		clear(count)
		for range n {
			count[rng.IntN(n)]++
		}
		medians[b] = countedMedian(sorted, count)
	}
	slices.Sort(medians)
	alpha := (1 - level) / 2
	return percentile(medians, alpha), percentile(medians, 1-alpha), nil
}

// countedMedian is the median of the multiset holding count[i] copies of sorted[i], where sorted
// is ascending and the counts sum to len(sorted).
func countedMedian(sorted []float64, count []int32) float64 {
	n := len(sorted)
	lowMid, highMid := (n-1)/2, n/2 // 0-based ranks of the middle values
	seen := 0
	for i, c := range count {
		seen += int(c)
		if seen <= lowMid {
			continue
		}
		low := sorted[i]
		if seen > highMid {
			return low // both middle values are copies of sorted[i]
		}
		for i++; count[i] == 0; i++ {
		}
		return (low + sorted[i]) / 2
	}
	return math.NaN() // unreachable: the counts sum to len(sorted)
}

// percentile is the q-quantile (q in [0, 1]) of the sorted non-empty x with linear
// interpolation between order statistics (numpy.percentile's 'linear' method).
func percentile(x []float64, q float64) float64 {
	h := float64(len(x)-1) * q
	i := int(math.Floor(h))
	if i+1 >= len(x) {
		return x[len(x)-1]
	}
	return x[i] + (h-float64(i))*(x[i+1]-x[i])
}

// median is the median of the non-empty x (the mean of the two middle values when len(x) is
// even); x is not modified.
func median(x []float64) float64 {
	s := slices.Clone(x)
	slices.Sort(s)
	n := len(s)
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}
