package significance

import (
	"cmp"
	"math"
	"slices"
)

// Holm returns Holm's step-down adjusted p-values of the family p, in the order of p: with the
// m tested p-values sorted ascending, p_(i) becomes max over j ≤ i of min(1, (m−j+1)·p_(j)), so
// the adjusted values are monotone in the raw ones and at most 1 (statsmodels'
// multipletests(method='holm')). A NaN entry is a pair that was not tested: it stays NaN and is
// not counted in m. p-values must lie in [0, 1].
func Holm(p []float64) []float64 {
	adj := make([]float64, len(p))
	order := make([]int, 0, len(p))
	for i, x := range p {
		adj[i] = math.NaN()
		if !math.IsNaN(x) {
			order = append(order, i)
		}
	}
	// Stable, so equal p-values keep their order and get the same adjusted value anyway.
	slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(p[a], p[b]) })
	m := len(order)
	running := 0.0
	for j, i := range order {
		running = math.Max(running, math.Min(1, float64(m-j)*p[i]))
		adj[i] = running
	}
	return adj
}
