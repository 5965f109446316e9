// Package logspace has the log-domain arithmetic that the algorithms share. Every function accepts
// −Inf (the log of zero) and never turns it into NaN; gonum's floats.LogSumExp panics on an empty
// slice and has no two-argument form, which is why these exist.
package logspace

import "math"

// AddExp returns log(eᵃ + eᵇ) without overflow. It is −Inf when both are −Inf.
func AddExp(a, b float64) float64 {
	if a < b {
		a, b = b, a
	}
	if math.IsInf(a, -1) {
		return a
	}
	return a + math.Log1p(math.Exp(b-a))
}

// SumExp returns log Σ exp(xs[i]), −Inf for an empty slice or when every term is −Inf.
func SumExp(xs []float64) float64 {
	m := math.Inf(-1)
	for _, x := range xs {
		if x > m {
			m = x
		}
	}
	if math.IsInf(m, 0) {
		return m
	}
	s := 0.0
	for _, x := range xs {
		s += math.Exp(x - m)
	}
	return m + math.Log(s)
}
