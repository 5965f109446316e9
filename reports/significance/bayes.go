package significance

import (
	"cmp"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"sort"

	"gonum.org/v1/gonum/stat/distuv"
)

// DefaultPrior is the strength of the Bayesian signed-rank test's pseudo-observation at 0, the
// default of the authors' baycomp library (SignedRankTest, prior=0.5).
const DefaultPrior = 0.5

// BayesResult holds the posterior probabilities of the Bayesian signed-rank test: that the
// differences lie mostly below −rope, inside [−rope, rope], or above rope. They sum to 1.
type BayesResult struct {
	Negative, Equivalent, Positive float64
}

// BayesianSignedRank runs the Bayesian signed-rank test of Benavoli et al. (ICML 2014; JMLR
// 18(77), 2017) on the paired differences d with a region of practical equivalence
// [−rope, rope], as the authors' baycomp library (SignedRankTest) computes it.
//
// The posterior of the distribution of the differences is a Dirichlet process whose base
// measure puts a pseudo-observation of weight prior at 0; a posterior sample is a vector of
// Dirichlet(prior, 1, …, 1) weights w over (0, d_1, …, d_n). Each sample gives
// θ_right = Σ_ij w_i w_j H(d_i + d_j − 2·rope), θ_left = Σ_ij w_i w_j H(−d_i − d_j − 2·rope)
// and θ_rope = 1 − θ_left − θ_right, with H the Heaviside step with H(0) = ½ (with rope = 0,
// θ_rope = 0). The result is the share of samples in which each θ is the largest; a tie between
// the largest splits that sample's count equally (baycomp's argmax gives it to the first, which
// only matters in degenerate cases such as all differences zero with rope 0, where this gives
// ½, ½ and baycomp 1, 0).
//
// The pair sums are not formed: with the values sorted, the j for which d_i + d_j exceeds a
// threshold form a suffix (floating-point addition is monotone), so each sample costs O(n)
// after an O(n log n) set-up rather than O(n²). Weights are not normalised either, since the
// three θ share the factor (Σw)^−2. Each sample draws Gamma(prior) for the pseudo-observation,
// then Exp(1) = Gamma(1) for d_1, …, d_n in order.
//
// The result is deterministic for the state of rng. d must be non-empty and finite, rope ≥ 0,
// samples ≥ 1 and prior > 0.
func BayesianSignedRank(d []float64, rope float64, samples int, prior float64, rng *rand.Rand) (BayesResult, error) {
	switch {
	case samples < 1:
		return BayesResult{}, fmt.Errorf("significance: %d posterior samples, need at least 1", samples)
	case !(prior > 0) || math.IsInf(prior, 0):
		return BayesResult{}, fmt.Errorf("significance: prior strength %v, need a finite value > 0", prior)
	}
	col := make([]int, len(d))
	for i := range col {
		col[i] = i + 1
	}
	t, err := newSignedRank(d, col, rope)
	if err != nil {
		return BayesResult{}, err
	}
	width := len(d) + 1
	draws := make([]float64, min(samples, drawChunk)*width)
	for done := 0; done < samples; done += drawChunk {
		rows := draws[:min(samples-done, drawChunk)*width]
		drawWeights(rows, width, prior, rng)
		t.add(rows, width)
	}
	return t.result(), nil
}

// drawChunk is the number of posterior samples drawn at a time: their weights for 69 data sets
// take 2.8 MB.
const drawChunk = 5000

// drawWeights fills draws, rows of width values, with one posterior sample per row: the
// unnormalised Dirichlet weights Gamma(prior) for the pseudo-observation (column 0), then
// Exp(1) for the observations.
func drawWeights(draws []float64, width int, prior float64, rng *rand.Rand) {
	gamma := distuv.Gamma{Alpha: prior, Beta: 1, Src: rng}
	for r := 0; r < len(draws); r += width {
		draws[r] = gamma.Rand()
		for j := r + 1; j < r+width; j++ {
			draws[j] = rng.ExpFloat64()
		}
	}
}

// signedRank is one Bayesian signed-rank test being sampled: its observations sorted, where
// their weights are in a row of draws, and the counts of winners so far.
type signedRank struct {
	rope bool // rope > 0
	// col[k] is the column of the draws that weighs the k-th smallest observation (the
	// pseudo-observation's column is 0).
	col []int
	// For each k, the j with z_k+z_j > 2·rope are j ≥ gtR[k], those with z_k+z_j ≥ 2·rope are
	// j ≥ geR[k]; those with z_k+z_j < −2·rope are j < ltL[k], with ≤, j < leL[k]. The sums are
	// the ones baycomp compares, computed the same way, so equality (H = ½) agrees exactly.
	gtR, geR, ltL, leL []int
	// exact is true when no pair sum is ±2·rope (H = ½ nowhere): each side then needs one
	// prefix sum per k.
	exact   bool
	w, cum  []float64  // scratch: weights in sorted order, cum[k] = Σ_{j<k} w[j]
	wins    [3]float64 // negative, equivalent, positive
	samples int
}

// newSignedRank prepares the test of the differences d, whose weights are in columns col of
// the draws (column 0 being the pseudo-observation at 0).
func newSignedRank(d []float64, col []int, rope float64) (*signedRank, error) {
	switch {
	case len(d) == 0:
		return nil, errors.New("significance: Bayesian signed-rank test of no differences")
	case !(rope >= 0) || math.IsInf(rope, 0):
		return nil, fmt.Errorf("significance: rope %v, need a finite value ≥ 0", rope)
	}
	for _, x := range d {
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return nil, errors.New("significance: Bayesian signed-rank test of a non-finite difference")
		}
	}
	// Index m−1 stands for the pseudo-observation.
	m := len(d) + 1
	value := func(i int) float64 {
		if i == m-1 {
			return 0
		}
		return d[i]
	}
	order := make([]int, m)
	for i := range order {
		order[i] = i
	}
	slices.SortFunc(order, func(a, b int) int { return cmp.Compare(value(a), value(b)) })
	t := &signedRank{rope: rope > 0, col: make([]int, m), exact: true,
		gtR: make([]int, m), geR: make([]int, m), ltL: make([]int, m), leL: make([]int, m),
		w: make([]float64, m), cum: make([]float64, m+1)}
	z := make([]float64, m)
	for k, i := range order {
		z[k] = value(i)
		if i < m-1 {
			t.col[k] = col[i]
		}
	}
	r2 := 2 * rope
	for k, zk := range z {
		t.gtR[k] = sort.Search(m, func(j int) bool { return zk+z[j] > r2 })
		t.geR[k] = sort.Search(m, func(j int) bool { return zk+z[j] >= r2 })
		t.ltL[k] = sort.Search(m, func(j int) bool { return zk+z[j] >= -r2 })
		t.leL[k] = sort.Search(m, func(j int) bool { return zk+z[j] > -r2 })
		t.exact = t.exact && t.gtR[k] == t.geR[k] && t.ltL[k] == t.leL[k]
	}
	return t, nil
}

// add counts the winners of the posterior samples in draws, rows of width values.
func (t *signedRank) add(draws []float64, width int) {
	w, cum := t.w, t.cum
	for r := 0; r < len(draws); r += width {
		row := draws[r : r+width]
		for k, c := range t.col {
			w[k] = row[c]
			cum[k+1] = cum[k] + row[c]
		}
		total := cum[len(w)]
		var left, right float64
		if t.exact {
			// right = Σ_k w_k·(total − cum[gtR[k]]), the suffix sums being total − cum[i];
			// two accumulators per side halve the chain of dependent additions.
			var r0, r1, l0, l1 float64
			k := 0
			for ; k+1 < len(w); k += 2 {
				r0 += w[k] * cum[t.gtR[k]]
				r1 += w[k+1] * cum[t.gtR[k+1]]
				l0 += w[k] * cum[t.ltL[k]]
				l1 += w[k+1] * cum[t.ltL[k+1]]
			}
			if k < len(w) {
				r0 += w[k] * cum[t.gtR[k]]
				l0 += w[k] * cum[t.ltL[k]]
			}
			right, left = total*total-(r0+r1), l0+l1
		} else {
			for k, wk := range w {
				right += wk * ((total - cum[t.gtR[k]]) + 0.5*(cum[t.gtR[k]]-cum[t.geR[k]]))
				left += wk * (cum[t.ltL[k]] + 0.5*(cum[t.leL[k]]-cum[t.ltL[k]]))
			}
		}
		theta := [3]float64{left, 0, right}
		if t.rope {
			theta[1] = total*total - left - right
		}
		best := max(theta[0], theta[1], theta[2])
		ties := 0
		for _, x := range theta {
			if x == best {
				ties++
			}
		}
		for k, x := range theta {
			if x == best {
				t.wins[k] += 1 / float64(ties)
			}
		}
		t.samples++
	}
}

func (t *signedRank) result() BayesResult {
	s := float64(t.samples)
	return BayesResult{Negative: t.wins[0] / s, Equivalent: t.wins[1] / s, Positive: t.wins[2] / s}
}
