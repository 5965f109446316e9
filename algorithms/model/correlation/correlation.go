// Package correlation is the correlation-clustering energy of the Cluster Trellis cancer-genomics
// experiment (ML4PS 2020 §3.2, eqs. 4–5; Bansal et al. 2004) as a split-potential model: items are
// feature vectors, w_ij the centred similarity of items i and j, and the cost of splitting a cluster
// into L and R is
//
//	E(L, R) = Σ_{i∈L, j∈R} max(w_ij, 0) + c·[Σ_{i<j ∈ L} |min(w_ij, 0)| + Σ_{i<j ∈ R} |min(w_ij, 0)|],
//
// the positive edges cut plus the negative edges kept inside the children, with c = 1 (each pair
// once, as AstarTrellis's g_fun) or c = 2 (ordered pairs, one reading of eq. 5). The potential is
// ψ(L, R) = exp(−β·E(L, R)), so the MAP tree is the tree of least total energy, whatever β; log Z and
// the marginals depend on β. Weights follow AstarTrellis build_graph_from (../shared/design/pam50.md
// §4–5): cosine (or Pearson) similarities S, then W = S − mean(S), with the mean over all n² entries
// (diagonal included, the default) or over the n(n−1) off-diagonal ones, or no centring.
//
// E(L, R) = pos(L∪R) − pos(L) − pos(R) + neg(L) + neg(R), with pos(X) the sum of positive weights
// inside X and neg(X) the c-weighted sum of |negative| weights inside X, so per-cluster sums make
// each split a few additions.
//
// Summed over a tree, only the negative weights depend on the tree: a pair is cut once, at its
// lowest common ancestor, and kept inside a child at every split above it, so
//
//	E(tree) = Σ_{w_ij > 0} w_ij + c·Σ_{w_ij < 0} |w_ij|·depth(lca(i, j))    (the root has depth 0).
//
// The positive weights add the same constant to every tree, the MAP tree only separates negative
// pairs as high as it can, and many trees tie for it (trellis.MAPTies counts them). Greedy merging
// pays nothing to join two single items of w ≤ 0 (a merge of clusters L and R costs the positive
// weights between them plus neg(L) + neg(R)), so it joins dissimilar items first.
package correlation

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"

	"github.com/hcbench/hcbench/algorithms/model"
)

// Similarity selects how vectors are compared.
type Similarity int

const (
	Cosine  Similarity = iota // the dot product of the unit vectors (AstarTrellis)
	Pearson                   // cosine after centring each vector across its features
)

// Centering selects what is subtracted from the similarities.
type Centering int

const (
	MeanWithDiag    Centering = iota // the mean over all n² entries, the diagonal of 1s included (AstarTrellis)
	MeanWithoutDiag                  // the mean over the n(n−1) off-diagonal entries
	NoCentering
)

// Params configure the weights and the energy.
type Params struct {
	Similarity Similarity
	Centering  Centering
	// Ordered counts the within-child pairs twice (c = 2); false counts them once (c = 1).
	Ordered bool
	// Beta scales the energy: ψ = exp(−β·E); in (0, MaxBeta].
	Beta float64
	// MaskMissing compares two vectors over the features both observe (NaN marks a missing
	// value); without it no value may be NaN.
	MaskMissing bool
}

// MaxBeta bounds β. A split's energy E is at most c·n² (weights lie in [−2, 2]), so β·E and a
// tree's sum of them stay finite for any n up to 2^30 below it, where β = 1e300 would turn a
// split of finite energy into an impossible one (log ψ = −Inf).
const MaxBeta = 1e100

// Model is the energy over a fixed set of vectors. Build it with New.
type Model struct {
	w    [][]float64 // weights, zero diagonal
	beta float64
	c    float64 // within-pair multiplicity
}

// New builds the model of the vectors x (n × d). It fails for fewer than one vector, vectors of
// different lengths, a zero vector (no direction), or NaN values without MaskMissing; and returns
// ctx.Err() once ctx is done (looked at every 256 similarities, and once per row of the n × n
// weights in the passes that centre them).
func New(ctx context.Context, x [][]float64, p Params) (*Model, error) {
	n := len(x)
	if n == 0 {
		return nil, errors.New("correlation: no vectors")
	}
	if !(p.Beta > 0) || math.IsInf(p.Beta, 0) {
		return nil, fmt.Errorf("correlation: beta must be positive, got %v", p.Beta)
	}
	if p.Beta > MaxBeta {
		return nil, fmt.Errorf("correlation: beta must be at most %g, got %v (β·E would overflow to an impossible −Inf)", float64(MaxBeta), p.Beta)
	}
	d := len(x[0])
	for i, v := range x {
		if len(v) != d {
			return nil, fmt.Errorf("correlation: vector %d has %d values, vector 0 has %d", i, len(v), d)
		}
		for _, e := range v {
			if math.IsInf(e, 0) || (math.IsNaN(e) && !p.MaskMissing) {
				return nil, fmt.Errorf("correlation: vector %d holds %v", i, e)
			}
		}
	}
	s := make([][]float64, n)
	for i := range s {
		if err := ctx.Err(); err != nil { // n² floats: 28.8 GB at n = 60 000
			return nil, err
		}
		s[i] = make([]float64, n)
	}
	// A vector without a direction is named first, before a pair it belongs to.
	for i := range n {
		if _, ok := similarity(x[i], x[i], p); !ok {
			return nil, fmt.Errorf("correlation: vector %d has no direction: its observed values are all zero, or (pearson) all equal", i)
		}
	}
	for i := range n {
		for j := i; j < n; j++ {
			if (j-i)%256 == 0 { // a similarity costs O(d) and two allocations
				if err := ctx.Err(); err != nil {
					return nil, err
				}
			}
			v, ok := similarity(x[i], x[j], p)
			if !ok {
				return nil, fmt.Errorf("correlation: vectors %d and %d share no non-constant observed feature", i, j)
			}
			s[i][j], s[j][i] = v, v
		}
	}
	mean := 0.0
	switch p.Centering {
	case MeanWithDiag:
		for i := range n {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
			for j := range n {
				mean += s[i][j]
			}
		}
		mean /= float64(n * n)
	case MeanWithoutDiag:
		if n > 1 {
			for i := range n {
				if err := ctx.Err(); err != nil {
					return nil, err
				}
				for j := range n {
					if i != j {
						mean += s[i][j]
					}
				}
			}
			mean /= float64(n * (n - 1))
		}
	case NoCentering:
	default:
		return nil, fmt.Errorf("correlation: unknown centering %d", p.Centering)
	}
	m := &Model{w: s, beta: p.Beta, c: 1}
	if p.Ordered {
		m.c = 2
	}
	for i := range n {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		for j := range n {
			s[i][j] -= mean
		}
		s[i][i] = 0
	}
	return m, nil
}

// similarity is the cosine (or Pearson) similarity of a and b over the features both observe.
// ok is false when a vector has no direction over them: all zero, or, for Pearson, constant (to
// within the rounding of its mean, so that a constant vector does not get a direction from the
// rounding error of its centring). Both similarities are invariant under scaling either vector
// by a positive factor, so a vector whose largest magnitude lies outside [1e-100, 1e100] is
// scaled to 1 first: squares of 1e200 would overflow (and a cosine of ∞/∞ be NaN), squares of
// 1e-200 underflow to 0 (and the vector seem to have no direction). Vectors within the range are
// not touched, so their similarities keep their bits.
func similarity(a, b []float64, p Params) (float64, bool) {
	var xa, xb []float64
	for k := range a {
		if !math.IsNaN(a[k]) && !math.IsNaN(b[k]) {
			xa, xb = append(xa, a[k]), append(xb, b[k])
		}
	}
	xa, xb = inRange(xa), inRange(xb)
	if p.Similarity == Pearson {
		var ok bool
		if xa, ok = centredOK(xa); !ok {
			return 0, false
		}
		if xb, ok = centredOK(xb); !ok {
			return 0, false
		}
		xa, xb = inRange(xa), inRange(xb)
	}
	var dot, na, nb float64
	for k := range xa {
		dot += xa[k] * xb[k]
		na += xa[k] * xa[k]
		nb += xb[k] * xb[k]
	}
	if na == 0 || nb == 0 {
		return 0, false
	}
	return dot / (math.Sqrt(na) * math.Sqrt(nb)), true
}

// inRange returns x, or x divided by its largest magnitude when that lies outside [1e-100, 1e100]
// (a copy; x is not changed).
func inRange(x []float64) []float64 {
	m := 0.0
	for _, v := range x {
		m = max(m, math.Abs(v))
	}
	if m == 0 || (m >= 1e-100 && m <= 1e100) {
		return x
	}
	out := make([]float64, len(x))
	for i, v := range x {
		out[i] = v / m
	}
	return out
}

// centredOK returns x centred, and false when x is constant to within the rounding of its mean:
// every centred value at most len(x)·2⁻⁵² of the largest magnitude in x.
func centredOK(x []float64) ([]float64, bool) {
	c := centred(x)
	m, mc := 0.0, 0.0
	for i, v := range x {
		m, mc = max(m, math.Abs(v)), max(mc, math.Abs(c[i]))
	}
	return c, mc > float64(len(x))*0x1p-52*m
}

func centred(x []float64) []float64 {
	m := 0.0
	for _, v := range x {
		m += v
	}
	m /= float64(len(x))
	out := make([]float64, len(x))
	for i, v := range x {
		out[i] = v - m
	}
	return out
}

// Items returns the number of vectors.
func (m *Model) Items() int { return len(m.w) }

var _ model.Relabeler = (*Model)(nil)

// Relabel renumbers the vectors (see model.Relabeler): vector i becomes the former vector
// order[i], so w_ij becomes the former w_{order[i], order[j]}. It permutes the weights in place,
// with O(n) more memory: no second copy of the n² weights.
func (m *Model) Relabel(order []int) {
	rows := make([][]float64, len(order))
	for i, o := range order {
		rows[i] = m.w[o]
	}
	m.w = rows
	tmp := make([]float64, len(order))
	for _, row := range m.w {
		for j, o := range order {
			tmp[j] = row[o]
		}
		copy(row, tmp)
	}
}

// Weights returns the weight matrix (not a copy; do not modify). The diagonal is 0.
func (m *Model) Weights() [][]float64 { return m.w }

// Energy returns E(L, R) from the pair sums of its definition, O(|L∪R|²); the clusters and the
// subset scorer compute the same from per-cluster sums.
func (m *Model) Energy(l, r []int) float64 {
	e := 0.0
	for _, i := range l {
		for _, j := range r {
			e += max(m.w[i][j], 0)
		}
	}
	for _, side := range [][]int{l, r} {
		for a, i := range side {
			for _, j := range side[a+1:] {
				e += m.c * -min(m.w[i][j], 0)
			}
		}
	}
	return e
}

// sums returns pos and neg of the cluster of items.
func (m *Model) sums(items []int) (pos, neg float64) {
	for a, i := range items {
		for _, j := range items[a+1:] {
			pos += max(m.w[i][j], 0)
			neg += m.c * -min(m.w[i][j], 0)
		}
	}
	return pos, neg
}

// NewClusters returns a cluster store seeded with the single items.
func (m *Model) NewClusters() model.Clusters {
	c := &clusters{m: m}
	for i := range m.w {
		c.items = append(c.items, []int{i})
		c.pos = append(c.pos, 0)
		c.neg = append(c.neg, 0)
	}
	return c
}

type clusters struct {
	m        *Model
	items    [][]int
	pos, neg []float64
}

// cross returns the positive and c-weighted |negative| weight sums between clusters a and b.
func (c *clusters) cross(a, b int) (pos, neg float64) {
	for _, i := range c.items[a] {
		for _, j := range c.items[b] {
			w := c.m.w[i][j]
			pos += max(w, 0)
			neg += c.m.c * -min(w, 0)
		}
	}
	return pos, neg
}

func (c *clusters) Merge(a, b int) int {
	p, n := c.cross(a, b)
	items := append(slices.Clone(c.items[a]), c.items[b]...)
	c.items = append(c.items, items)
	c.pos = append(c.pos, c.pos[a]+c.pos[b]+p)
	c.neg = append(c.neg, c.neg[a]+c.neg[b]+n)
	return len(c.items) - 1
}

func (c *clusters) Cluster(items []int) int {
	p, n := c.m.sums(items)
	c.items = append(c.items, slices.Clone(items))
	c.pos = append(c.pos, p)
	c.neg = append(c.neg, n)
	return len(c.items) - 1
}

func (c *clusters) LogPsi(a, b int) float64 {
	p, _ := c.cross(a, b)
	return -c.m.beta * (p + c.neg[a] + c.neg[b])
}

// SubsetBytes is the memory of the subset scorer: pos and neg per subset.
func (m *Model) SubsetBytes() int { return 16 }

// NewSubsetScorer tabulates pos and neg of every subset. Precondition: at most
// model.MaxSubsetItems items.
func (m *Model) NewSubsetScorer() (model.SubsetScorer, error) {
	return m.NewSubsetScorerContext(context.Background())
}

// NewSubsetScorerContext is NewSubsetScorer that returns ctx.Err() once ctx is done (looked at
// every 2^14 subsets; the table costs O(n·2^n), seconds at n = 28).
func (m *Model) NewSubsetScorerContext(ctx context.Context) (model.SubsetScorer, error) {
	n := len(m.w)
	if n > model.MaxSubsetItems {
		return nil, fmt.Errorf("correlation: %d items, subsets go up to %d", n, model.MaxSubsetItems)
	}
	s := &subsetScorer{beta: m.beta, pos: make([]float64, 1<<n), neg: make([]float64, 1<<n)}
	for x := uint32(1); x < 1<<n; x++ {
		if x&(1<<14-1) == 0 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
		low := 0
		for x&(1<<low) == 0 {
			low++
		}
		rest := x &^ (1 << low)
		p, q := s.pos[rest], s.neg[rest]
		for j := range n {
			if rest&(1<<j) != 0 {
				w := m.w[low][j]
				p += max(w, 0)
				q += m.c * -min(w, 0)
			}
		}
		s.pos[x], s.neg[x] = p, q
	}
	return s, nil
}

type subsetScorer struct {
	beta     float64
	pos, neg []float64
}

func (s *subsetScorer) LogPsi(l, r uint32) float64 {
	return -s.beta * (s.pos[l|r] - s.pos[l] - s.pos[r] + s.neg[l] + s.neg[r])
}
