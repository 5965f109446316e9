package significance

import (
	"errors"
	"fmt"
	"math"

	"gonum.org/v1/gonum/stat/distuv"
)

// FriedmanResult is the outcome of the Friedman test with the mean rank of each treatment.
type FriedmanResult struct {
	// Statistic is the tie-corrected Friedman chi-square statistic and P its p-value from the
	// chi-square distribution with k−1 degrees of freedom. Both are NaN with fewer than three
	// treatments (the test needs k ≥ 3; scipy raises an error).
	Statistic, P float64
	// MeanRanks is the mean over blocks of each treatment's rank within its block, rank 1 the
	// best, ties getting average ranks.
	MeanRanks []float64
}

// Friedman runs the Friedman test on complete blocks: blocks[i][j] is treatment j's value on
// block i (here: algorithm j's score on data set i). Within each block the values are ranked,
// rank 1 the best: the highest value when higherBetter, else the lowest; ties get average
// ranks. The statistic is scipy.stats.friedmanchisquare's (SciPy 1.10.1), whose tie correction
// divides by 1 − Σ(t³−t)/(k(k²−1)n) over all tie groups t; ranking the other way round gives
// the same statistic.
//
// Every block must have the same number k ≥ 2 of finite values; there must be at least one
// block. A block in which all k values tie makes the correction's denominator smaller, and
// with all blocks fully tied the statistic is NaN.
func Friedman(blocks [][]float64, higherBetter bool) (FriedmanResult, error) {
	if len(blocks) == 0 {
		return FriedmanResult{}, errors.New("significance: Friedman test of no blocks")
	}
	k := len(blocks[0])
	if k < 2 {
		return FriedmanResult{}, fmt.Errorf("significance: Friedman test of %d treatments, need at least 2", k)
	}
	sums := make([]float64, k)
	x := make([]float64, k)
	r := make([]float64, k)
	order := make([]int, k)
	tieSum := 0.0
	for i, b := range blocks {
		if len(b) != k {
			return FriedmanResult{}, fmt.Errorf("significance: Friedman block %d has %d values, block 0 has %d", i, len(b), k)
		}
		for j, v := range b {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return FriedmanResult{}, fmt.Errorf("significance: Friedman block %d has a non-finite value", i)
			}
			// Rank 1 is the best: rank the negated values when higher is better.
			x[j] = v
			if higherBetter {
				x[j] = -v
			}
		}
		for _, t := range averageRanks(x, r, order) {
			tt := float64(t)
			tieSum += tt * (tt*tt - 1)
		}
		for j, rj := range r {
			sums[j] += rj
		}
	}
	n, kf := float64(len(blocks)), float64(k)
	res := FriedmanResult{Statistic: math.NaN(), P: math.NaN(), MeanRanks: make([]float64, k)}
	ssbn := 0.0
	for j, s := range sums {
		res.MeanRanks[j] = s / n
		ssbn += s * s
	}
	if k < 3 {
		return res, nil
	}
	c := 1 - tieSum/(kf*(kf*kf-1)*n)
	res.Statistic = (12/(kf*n*(kf+1))*ssbn - 3*n*(kf+1)) / c
	if c > 0 {
		res.P = distuv.ChiSquared{K: kf - 1}.Survival(res.Statistic)
	} else {
		res.Statistic = math.NaN()
	}
	return res, nil
}
