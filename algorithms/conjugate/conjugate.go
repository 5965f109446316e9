// Package conjugate gives the marginal likelihood p(D|H1) of a cluster of items under conjugate
// models, the quantity that Bayesian hierarchical clustering (BHC) and Bayesian rose trees score
// every candidate merge with (../shared/design/bayesian.md §5), and the predictive density
// p(x|D) of a new point (§7). Sufficient statistics are cached per cluster so that a merge costs
// O(d) (discrete models) or O(d²) (NIW), and log p(D|H1) O(d) or O(d³), with no allocation.
//
// Every lgamma is exact (math.Lgamma, not Bioconductor's interpolated fast_gammaln). For n points
// in D:
//
// NIW is the Normal-Inverse-Wishart model in Murphy's (2007) parametrisation, Σ ~ IW(ν0, Λ0) and
// μ|Σ ~ N(μ0, Σ/κ0). With mean x̄ and scatter S = Σ(x−x̄)(x−x̄)ᵀ (zero for n = 1),
//
//	κn = κ0 + n,  νn = ν0 + n,  Λn = Λ0 + S + (κ0 n/κn)(x̄−μ0)(x̄−μ0)ᵀ,
//	log p(D) = −(n d/2) log π + (d/2)(log κ0 − log κn) + (ν0/2) log|Λ0| − (νn/2) log|Λn|
//	           + log Γ_d(νn/2) − log Γ_d(ν0/2),
//	log Γ_d(a) = d(d−1)/4 · log π + Σ_{j=1..d} lgamma(a + (1−j)/2),
//
// with log|Λn| from a (square-root free) Cholesky factorisation. The predictive p(x|D) is the
// multivariate Student-t with νn−d+1 degrees of freedom, location μn = (κ0 μ0 + n x̄)/κn and
// scale Λn(κn+1)/(κn(νn−d+1)).
//
// Bernoulli is the Beta-Bernoulli model, a Beta(a_j, b_j) prior per binary feature j; with m_j
// ones in feature j,
//
//	log p(D) = Σ_j [lnB(a_j + m_j, b_j + n − m_j) − lnB(a_j, b_j)].
//
// Categorical is the Dirichlet-categorical model (Bioconductor BHC's binevidence): feature j takes
// values 0..V−1 with a Dirichlet(A[0][j], …, A[V−1][j]) prior, and c_vj items have value v in it,
//
//	log p(D) = Σ_j [lgamma(Σ_v A_vj) − lgamma(Σ_v A_vj + n) + Σ_v (lgamma(A_vj + c_vj) − lgamma(A_vj))].
//
// Bernoulli is its V = 2 case with A[0][j] = b_j and A[1][j] = a_j.
//
// The parts of log p(D) that depend on n only (and, for the discrete models, lgamma(A + c) for
// every count c up to the number of items) are tabulated when a model is built, so log p(D) costs
// one factorisation (NIW) or O(V·d) table look-ups.
//
// Hyperparameter recipes: NIWFromData (caponetto's NormalInverseWishart.create, §5.1), and
// BernoulliFromData and CategoricalFromData (Bioconductor's A_vj = cc·(c_vj + 1)/(n + 1), §5.3).
package conjugate

import (
	"fmt"
	"math"
)

// Model is a conjugate model over a fixed list of items 0..Items()−1. It is read-only once
// built, so one Model may serve stores in several goroutines.
type Model interface {
	// Items returns the number of items.
	Items() int
	// NewStore returns a store holding the Items() single items as clusters 0..Items()−1.
	NewStore() Store
}

// Store holds the sufficient statistics of clusters: ids 0..Items()−1 are the single items
// {i}, and Merge and Cluster add new ids Items(), Items()+1, … in creation order. A Store is not
// safe for concurrent use (it reuses scratch buffers even in its read methods); make one per
// goroutine.
//
// Every method's id arguments must be ids the store has handed out (below Len()), and Cluster's
// items must lie in 0..Items()−1; others panic with an index error, as a slice does.
type Store interface {
	// Merge records the union of the disjoint clusters a and b and returns its id. It costs
	// O(d²) for NIW and O(V·d) otherwise, and allocates only when the store grows its arrays
	// (amortised; see Truncate).
	Merge(a, b int) int
	// Cluster records the cluster of the given distinct items (item indices, not cluster ids)
	// and returns its id. An empty list is the empty cluster, with log p = 0.
	Cluster(items []int) int
	// LogML returns log p(D_c|H1), computed at most once per id and then cached.
	LogML(c int) float64
	// LogMLUnion returns log p(D_a ∪ D_b|H1) for disjoint a and b without adding an id or
	// caching anything: what LogML(Merge(a, b)) would return, for scoring candidate merges
	// without storing them.
	LogMLUnion(a, b int) float64
	// Size returns the number of items in cluster c.
	Size(c int) int
	// LogPredictive returns log p(x|D_c) = log p(D_c ∪ {x}|H1) − log p(D_c|H1) for a new point x
	// (a vector of the model's kind, of the model's dimension), without changing the store. It is
	// −Inf when x lies outside the model's support (a non-binary value for Bernoulli, a value
	// outside 0..V−1 for Categorical) and NaN when x holds NaN (NIW). It panics when len(x) is not
	// the model's dimension.
	LogPredictive(c int, x []float64) float64
	// Len returns the number of ids handed out so far (Items() for a new store).
	Len() int
	// Truncate forgets the ids n, n+1, … (keeping their memory for reuse), so that the next new
	// id is n. It panics unless Items() ≤ n ≤ Len().
	Truncate(n int)
}

// Bounds on data and hyperparameters, so that no intermediate of log p(D) overflows or turns NaN.
// With every value of magnitude at most MaxValue, a cluster's mean is too, its deviations at most
// 2e100, and its scatter entries at most n·4e200; Λ0 entries up to MaxScale (the data recipe's
// sample covariance divided by g ≥ MinG is below 1e241) keep Λn below 1e251, whose
// factorisation's products stay below its diagonal (cholLogDet). Beyond them, values near 1e154
// already square to +Inf, and a scatter matrix of Inf and NaN entries gives NaN log evidence.
//
// MaxKappa0 keeps κ0·n finite; MaxNu0 keeps the difference (ν0/2)·log|Λ0| − (νn/2)·log|Λn| and
// lgamma(νn/2) − lgamma(ν0/2) meaningful: both are differences of terms of size ν0, which lose
// about ν0·1e-16 to rounding (1e-10 at 1e6, everything at 1e16, and NaN from ∞ − ∞ near 1e305).
// MaxG keeps Λ0 = covariance/g well above the rounding of the scatter matrices it is added to
// (about 1e-16·n times the covariance): a Λ0 negligible against them leaves Λn of a small
// cluster, whose scatter has rank below d, positive definite only in exact arithmetic, and its
// factorisation fails by rounding (log p NaN; at g = 1e40 it does for 2-point clusters in 3-D).
//
// An explicit Λ0 that is negligible against the data's scatter can still fail so; LogML and
// LogPredictive are then NaN, which bhc and brt turn into an error naming the cluster.
const (
	MaxValue  = 1e100
	MaxScale  = 1e250
	MaxKappa0 = 1e100
	MaxNu0    = 1e6
	MinG      = 1e-40
	MaxG      = 1e6
)

// checkRows checks that x holds at least one row, that every row has the same length d ≥ 1 and
// that every value is finite and at most MaxValue in magnitude, and returns d.
func checkRows(x [][]float64) (int, error) {
	if len(x) == 0 {
		return 0, fmt.Errorf("conjugate: no items")
	}
	d := len(x[0])
	if d == 0 {
		return 0, fmt.Errorf("conjugate: items have no features")
	}
	for i, row := range x {
		if len(row) != d {
			return 0, fmt.Errorf("conjugate: item %d has %d values, item 0 has %d", i, len(row), d)
		}
		for j, v := range row {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return 0, fmt.Errorf("conjugate: item %d feature %d is %v", i, j, v)
			}
			if math.Abs(v) > MaxValue {
				return 0, fmt.Errorf("conjugate: item %d feature %d is %v, beyond ±%g, where squares and sums of squares overflow (rescale the features)", i, j, v, float64(MaxValue))
			}
		}
	}
	return d, nil
}

// positive reports whether v is a positive finite number.
func positive(v float64) bool { return v > 0 && !math.IsInf(v, 1) }

// checkTruncate panics unless items ≤ n ≤ length.
func checkTruncate(n, items, length int) {
	if n < items || n > length {
		panic(fmt.Sprintf("conjugate: Truncate(%d) outside [%d, %d]", n, items, length))
	}
}

var (
	_ Model = (*NIW)(nil)
	_ Model = (*Bernoulli)(nil)
	_ Model = (*Categorical)(nil)
)
