package significance

import (
	"errors"
	"math"
)

// exactWilcoxonMax is the largest number of non-zero differences for which Wilcoxon uses the
// exact null distribution, as scipy.stats.wilcoxon's method='auto' does (n ≤ 50).
const exactWilcoxonMax = 50

// WilcoxonResult is the outcome of the two-sided Wilcoxon signed-rank test.
type WilcoxonResult struct {
	// Statistic is min(R+, R−), the smaller of the rank sums of the positive and the negative
	// differences (scipy's two-sided statistic).
	Statistic float64
	// P is the two-sided p-value.
	P float64
	// N is the number of non-zero differences the test ranked; Zeros the number of zero
	// differences dropped before ranking.
	N, Zeros int
	// Exact reports whether P comes from the exact null distribution (true) or from the normal
	// approximation with the tie correction (false).
	Exact bool
}

// Wilcoxon runs the two-sided Wilcoxon signed-rank test on the paired differences d, as
// scipy.stats.wilcoxon(d) does with its defaults in SciPy 1.10.1 (zero_method='wilcox',
// correction=False, method='auto'): zero differences are dropped (and counted in Zeros), the
// absolute differences are ranked with average ranks for ties, and the statistic is
// min(R+, R−).
//
// The p-value is exact (the distribution of R+ under the null, by convolution) when there are at
// most 50 differences, no zeros and no tied absolute differences; otherwise it is the normal
// approximation with the tie correction of the variance, without continuity correction. This
// is scipy's rule with one deliberate difference: with tied absolute differences and no zeros,
// SciPy 1.10.1 still uses the exact distribution but truncates the half-integer R+ to an integer,
// which is not a valid exact test; here the tie-corrected normal approximation is used, which is
// what scipy.stats.wilcoxon(d, method='approx') returns.
//
// Differences must be finite. Wilcoxon returns an error when d is empty. When every difference
// is zero (SciPy raises an error) the result is Statistic 0 and P 1: the data give no evidence
// of a difference.
func Wilcoxon(d []float64) (WilcoxonResult, error) {
	if len(d) == 0 {
		return WilcoxonResult{}, errors.New("significance: Wilcoxon of no differences")
	}
	abs := make([]float64, 0, len(d))
	neg := make([]bool, 0, len(d))
	for _, x := range d {
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return WilcoxonResult{}, errors.New("significance: Wilcoxon of a non-finite difference")
		}
		if x == 0 {
			continue
		}
		abs = append(abs, math.Abs(x))
		neg = append(neg, x < 0)
	}
	res := WilcoxonResult{N: len(abs), Zeros: len(d) - len(abs)}
	if res.N == 0 {
		res.P = 1
		return res, nil
	}
	r := make([]float64, res.N)
	ties := averageRanks(abs, r, make([]int, res.N))
	var rPlus, rMinus float64
	for i, ri := range r {
		if neg[i] {
			rMinus += ri
		} else {
			rPlus += ri
		}
	}
	res.Statistic = math.Min(rPlus, rMinus)
	n := float64(res.N)
	if res.N <= exactWilcoxonMax && res.Zeros == 0 && len(ties) == 0 {
		res.Exact = true
		res.P = exactSignedRankP(res.N, int(rPlus))
		return res, nil
	}
	mean := n * (n + 1) / 4
	v := n * (n + 1) * (2*n + 1)
	for _, t := range ties {
		tt := float64(t)
		v -= tt * (tt*tt - 1) / 2
	}
	se := math.Sqrt(v / 24)
	z := (res.Statistic - mean) / se
	res.P = math.Erfc(math.Abs(z) / math.Sqrt2) // 2·(1 − Φ(|z|))
	return res, nil
}

// exactSignedRankP is the two-sided exact p-value of R+ = rPlus with n untied non-zero
// differences: 2·min(P(R+ ≤ rPlus), P(R+ ≥ rPlus)), capped at 1, as scipy computes it (scipy's
// special case p = 1 at the centre is this formula's value there: the distribution is symmetric,
// so both tails hold at least ½). The null distribution counts the subsets of {1..n} with
// each rank sum; the counts are integers below 2^53 for n ≤ 50, so they and their tail sums are
// exact, and only the final division rounds.
func exactSignedRankP(n, rPlus int) float64 {
	max := n * (n + 1) / 2
	count := make([]float64, max+1)
	count[0] = 1
	top := 0
	for k := 1; k <= n; k++ {
		top += k
		for s := top; s >= k; s-- {
			count[s] += count[s-k]
		}
	}
	var below, above float64
	for s, c := range count {
		if s <= rPlus {
			below += c
		}
		if s >= rPlus {
			above += c
		}
	}
	return math.Min(1, 2*math.Min(below, above)/math.Ldexp(1, n))
}
