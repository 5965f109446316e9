package compare

import (
	"math"
	"slices"
)

// vanElteren is van Elteren's stratified Wilcoxon rank-sum test (van Elteren 1960, "On the
// combination of independent two-sample tests of Wilcoxon", Bull. Int. Stat. Inst. 37:351–361;
// as in Lehmann, Nonparametrics, 1975, §3.3): each stratum (an item) ranks its own timings,
// OLD's and NEW's together, with midranks for ties, so that only timings of one item are ever
// compared and the spread between items (the trellis on 5 leaves and on 12) does not hide a
// slowdown of every item. With m_i timings of OLD and n_i of NEW in stratum i, N_i = m_i + n_i,
// W_i the sum of NEW's ranks and t the sizes of its groups of ties,
//
//	E[W_i]   = n_i (N_i + 1) / 2
//	Var[W_i] = m_i n_i / 12 · (N_i + 1 − Σ(t³ − t) / (N_i (N_i − 1)))
//
// and the strata are combined with van Elteren's weights w_i = 1/(N_i + 1), which make the test
// locally most powerful against one shift of every stratum:
//
//	Z = Σ w_i (W_i − E[W_i]) / √(Σ w_i² Var[W_i]),   p = 2 (1 − Φ(|Z|)) = erfc(|Z|/√2)
//
// (the normal approximation, without continuity correction). A stratum without timings in
// both runs carries no information and is skipped. It returns p = 1 when no stratum has any
// variance (every timing tied), NaN without a usable stratum; z > 0 means NEW is slower.
// strata holds each stratum's OLD and NEW timings.
func vanElteren(strata [][2][]float64) (z, p float64) {
	var num, variance float64
	used := false
	for _, s := range strata {
		old, new := s[0], s[1]
		m, n := float64(len(old)), float64(len(new))
		if m == 0 || n == 0 {
			continue
		}
		used = true
		N := m + n
		ranks, ties := midranks(append(slices.Clone(old), new...))
		w := 0.0
		for _, r := range ranks[len(old):] {
			w += r
		}
		weight := 1 / (N + 1)
		num += weight * (w - n*(N+1)/2)
		variance += weight * weight * m * n / 12 * (N + 1 - ties/(N*(N-1)))
	}
	switch {
	case !used:
		return math.NaN(), math.NaN()
	case variance <= 0:
		return 0, 1
	}
	z = num / math.Sqrt(variance)
	return z, math.Erfc(math.Abs(z) / math.Sqrt2)
}

// midranks returns the ranks (1-based) of xs, tied values sharing their mean rank, and Σ(t³ − t)
// over the groups of t tied values.
func midranks(xs []float64) (ranks []float64, ties float64) {
	idx := make([]int, len(xs))
	for i := range idx {
		idx[i] = i
	}
	slices.SortStableFunc(idx, func(a, b int) int {
		switch {
		case xs[a] < xs[b]:
			return -1
		case xs[a] > xs[b]:
			return 1
		}
		return 0
	})
	ranks = make([]float64, len(xs))
	for i := 0; i < len(idx); {
		j := i + 1
		for j < len(idx) && xs[idx[j]] == xs[idx[i]] {
			j++
		}
		mid := float64(i+j+1) / 2 // the mean of ranks i+1 … j
		for _, k := range idx[i:j] {
			ranks[k] = mid
		}
		t := float64(j - i)
		ties += t*t*t - t
		i = j
	}
	return ranks, ties
}

// vanElterenBestP is the smallest p the stratified test can give for strata of these sizes:
// every NEW timing of every stratum above all of OLD's (W_i − E[W_i] = m_i n_i / 2, no ties).
// A row's time can be a regression only where it is at most the pooled test's smallest p at
// MinTimeSamples timings a side, 2/C(16, 8) = 1.55e-4 (minStratifiedP), so that both tests ask
// for the same evidence: with K timings of each of S items a side it is erfc(Z/√2) with
// Z² = 3 S K² / (2K + 1), enough from 15 items timed once, 4 items timed 3 times or 3 items
// timed 5 times (14, 3 and 2 are not: 1.8e-4, 6.7e-4, 2.2e-4).
func vanElterenBestP(sizes [][2]int) float64 {
	var num, variance float64
	for _, s := range sizes {
		m, n := float64(s[0]), float64(s[1])
		if m == 0 || n == 0 {
			continue
		}
		weight := 1 / (m + n + 1)
		num += weight * m * n / 2
		variance += weight * weight * m * n * (m + n + 1) / 12
	}
	if variance == 0 {
		return 1
	}
	return math.Erfc(num / math.Sqrt(variance) / math.Sqrt2)
}

// minStratifiedP is the largest smallest-attainable p of a row that the stratified test can
// find regressed: the pooled test's smallest p at MinTimeSamples timings a side, 2/C(16, 8).
const minStratifiedP = 2.0 / 12870
