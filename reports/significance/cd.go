package significance

import (
	"cmp"
	"fmt"
	"math"
	"slices"
)

// Alpha is the significance level of the critical-difference diagram's bars.
const Alpha = 0.05

// CD is what a critical-difference diagram of one metric draws: the algorithms in mean-rank
// order (best first) on a rank axis, and bars joining groups of algorithms between which no
// difference is significant.
type CD struct {
	Metric     string
	Algorithms []string  // in mean-rank order, ties in the table's order
	MeanRanks  []float64 // MeanRanks[i] is Algorithms[i]'s
	// Bars are index ranges [lo, hi] (inclusive, lo < hi) into Algorithms: see Bars.
	Bars [][2]int
}

// CriticalDifference returns the Wilcoxon–Holm critical-difference diagram of the metric (Benavoli,
// Corani & Mangili 2016; Ismail Fawaz et al. 2019) from a comparison's rows: two algorithms
// differ significantly when their pair's PHolm < alpha. A pair that was not tested (PHolm NaN:
// fewer than MinDatasets paired data sets) is not a significant difference, so its algorithms
// may share a bar. It is an error when the metric has no ranks, an algorithm's mean rank is
// NaN, or a pair of its algorithms is absent.
func CriticalDifference(r Result, metric string, alpha float64) (CD, error) {
	cd := CD{Metric: metric}
	for _, rk := range r.Ranks {
		if rk.Metric != metric {
			continue
		}
		if math.IsNaN(rk.MeanRank) {
			return CD{}, fmt.Errorf("significance: metric %q: %s has no mean rank (no data set that every algorithm completed)", metric, rk.Algorithm)
		}
		cd.Algorithms = append(cd.Algorithms, rk.Algorithm)
		cd.MeanRanks = append(cd.MeanRanks, rk.MeanRank)
	}
	if len(cd.Algorithms) == 0 {
		return CD{}, fmt.Errorf("significance: metric %q has no ranks", metric)
	}
	order := make([]int, len(cd.Algorithms))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(cd.MeanRanks[a], cd.MeanRanks[b]) })
	algorithms, ranks := slices.Clone(cd.Algorithms), slices.Clone(cd.MeanRanks)
	pos := map[string]int{}
	for i, o := range order {
		cd.Algorithms[i], cd.MeanRanks[i] = algorithms[o], ranks[o]
		pos[algorithms[o]] = i
	}
	k := len(order)
	sig := make([][]bool, k)
	seen := make([][]bool, k)
	for i := range sig {
		sig[i] = make([]bool, k)
		seen[i] = make([]bool, k)
	}
	for _, p := range r.Pairs {
		if p.Metric != metric {
			continue
		}
		i, okA := pos[p.A]
		j, okB := pos[p.B]
		if !okA || !okB {
			continue
		}
		s := p.PHolm < alpha // false for NaN
		sig[i][j], sig[j][i] = s, s
		seen[i][j], seen[j][i] = true, true
	}
	for i := range k {
		for j := i + 1; j < k; j++ {
			if !seen[i][j] {
				return CD{}, fmt.Errorf("significance: metric %q: no pair row for %s and %s", metric, cd.Algorithms[i], cd.Algorithms[j])
			}
		}
	}
	cd.Bars = Bars(k, func(i, j int) bool { return sig[i][j] })
	return cd, nil
}

// Bars returns the bars of a critical-difference diagram of k algorithms in mean-rank order,
// where significant(i, j) (i < j) reports whether algorithms i and j differ significantly: the
// maximal index ranges [lo, hi], lo < hi, within which no pair differs significantly, in
// increasing lo. A range is a clique of the graph of non-significant pairs over rank-contiguous
// algorithms, as in Demšar's (2006) diagrams with the Wilcoxon–Holm pairs of Benavoli et al.
// (2016); a range inside another is not drawn, and an algorithm significantly different from
// both neighbours gets no bar.
func Bars(k int, significant func(i, j int) bool) [][2]int {
	var bars [][2]int
	for lo := range k {
		// Extend hi while every pair in [lo, hi] is non-significant.
		hi := lo
	extend:
		for hi+1 < k {
			for i := lo; i <= hi; i++ {
				if significant(i, hi+1) {
					break extend
				}
			}
			hi++
		}
		// [lo, hi] is maximal on the right; it is inside the previous bar when that reaches as
		// far (the previous bar starts before lo).
		if hi > lo && (len(bars) == 0 || bars[len(bars)-1][1] < hi) {
			bars = append(bars, [2]int{lo, hi})
		}
	}
	return bars
}
