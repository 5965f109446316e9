// Package ginkgo is the split likelihood of Ginkgo toy jets (Cranmer, Drnevich, Macaluso, Pappadopulo
// 2020) as a split-potential model: the items are a jet's leaf 4-momenta (E, px, py, pz) and
// log ψ(L, R) is the log-likelihood that the parent L∪R split into L and R.
//
// Two versions exist, following ../shared/design/ginkgo.md:
//
//   - Version2020 (the default; §5) is the formula of the trellis papers and of the public
//     ClusterTrellis, StandardHC and AstarTrellis code. Leaves have t = 0 and a merged cluster has
//     t = (Σp)², the invariant mass² of its summed momentum.
//   - Version2021 (§6) is the exact density of the later generator with its random child flip.
//     Every t is the invariant mass² of the cluster's momentum, leaves included.
//
// The split of the full leaf set uses λ_root and every other split uses λ (RootLambdaGenerative),
// unless RootLambdaUniform selects the single-λ behaviour of ClusterTrellis ab931e8.
package ginkgo

import (
	"errors"
	"fmt"
	"math"
	"math/bits"

	"hcbench/algorithms/logspace"
	"hcbench/algorithms/model"
)

// Version selects the split likelihood formula.
type Version int

const (
	// Version2020 is the paper-era likelihood (ginkgo.md §5), named "ginkgo2020" in configs.
	Version2020 Version = iota
	// Version2021 is the later exact density (ginkgo.md §6), named "ginkgo2021" in configs.
	Version2021
)

// String returns the config name of the version.
func (v Version) String() string {
	switch v {
	case Version2020:
		return "ginkgo2020"
	case Version2021:
		return "ginkgo2021"
	}
	return fmt.Sprintf("Version(%d)", int(v))
}

// RootLambda selects which rate the split of the full leaf set uses.
type RootLambda int

const (
	// RootLambdaGenerative uses λ_root for the root split and λ elsewhere, as the generator does.
	RootLambdaGenerative RootLambda = iota
	// RootLambdaUniform uses λ for every split, as the exact trellis of ClusterTrellis ab931e8.
	RootLambdaUniform
)

// String returns the config name of the rule.
func (r RootLambda) String() string {
	switch r {
	case RootLambdaGenerative:
		return "generative"
	case RootLambdaUniform:
		return "uniform"
	}
	return fmt.Sprintf("RootLambda(%d)", int(r))
}

// Params are the likelihood parameters of a jet.
type Params struct {
	Lambda     float64 // rate λ of every split but the root's; > 0
	LambdaRoot float64 // rate λ_root of the root split; > 0
	TCut       float64 // t_cut, the mass² below which a node is a leaf; > 0
	Version    Version
	RootLambda RootLambda
}

// Model is the Ginkgo split likelihood over the leaves of one jet. Build it with New.
type Model struct {
	leaves [][4]float64
	p      Params
	// Rate-dependent constants for λ (index 0) and λ_root (index 1).
	logLambda, logNorm [2]float64
	lambda             [2]float64
}

// New returns the model for a jet with the given leaf 4-momenta (E, px, py, pz). It returns an
// error for a non-positive rate or t_cut, an unknown version, or a non-finite momentum.
func New(leaves [][4]float64, p Params) (*Model, error) {
	if len(leaves) == 0 {
		return nil, errors.New("ginkgo: a jet needs at least one leaf")
	}
	if !(p.Lambda > 0) || math.IsInf(p.Lambda, 0) {
		return nil, fmt.Errorf("ginkgo: lambda must be a positive number, got %v", p.Lambda)
	}
	if !(p.LambdaRoot > 0) || math.IsInf(p.LambdaRoot, 0) {
		return nil, fmt.Errorf("ginkgo: lambda_root must be a positive number, got %v", p.LambdaRoot)
	}
	if !(p.TCut > 0) || math.IsInf(p.TCut, 0) {
		return nil, fmt.Errorf("ginkgo: t_cut must be a positive number, got %v", p.TCut)
	}
	if p.Version != Version2020 && p.Version != Version2021 {
		return nil, fmt.Errorf("ginkgo: unknown likelihood version %d", int(p.Version))
	}
	if p.RootLambda != RootLambdaGenerative && p.RootLambda != RootLambdaUniform {
		return nil, fmt.Errorf("ginkgo: unknown root lambda rule %d", int(p.RootLambda))
	}
	for i, l := range leaves {
		for _, x := range l {
			if math.IsNaN(x) || math.IsInf(x, 0) {
				return nil, fmt.Errorf("ginkgo: leaf %d has a non-finite component: %v", i, l)
			}
		}
	}
	m := &Model{leaves: leaves, p: p}
	rates := [2]float64{p.Lambda, p.LambdaRoot}
	if p.RootLambda == RootLambdaUniform {
		rates[1] = p.Lambda
	}
	for i, lam := range rates {
		m.lambda[i] = lam
		m.logLambda[i] = math.Log(lam)
		if p.Version == Version2020 {
			m.logNorm[i] = math.Log(-math.Expm1(-lam))
		} else {
			m.logNorm[i] = math.Log(-math.Expm1(-0.999 * lam))
		}
	}
	return m, nil
}

// Items returns the number of leaves.
func (m *Model) Items() int { return len(m.leaves) }

// Params returns the parameters the model was built with.
func (m *Model) Params() Params { return m.p }

// NewClusters returns a cluster store seeded with the leaves.
func (m *Model) NewClusters() model.Clusters {
	n := len(m.leaves)
	c := &clusters{m: m, p: make([][4]float64, n, 2*n), t: make([]float64, n, 2*n), size: make([]int, n, 2*n)}
	for i, l := range m.leaves {
		c.p[i] = l
		c.size[i] = 1
		if m.p.Version == Version2021 {
			c.t[i] = MassSquared(l)
		}
	}
	return c
}

type clusters struct {
	m    *Model
	p    [][4]float64
	t    []float64
	size []int
}

func (c *clusters) Merge(a, b int) int {
	p := Add(c.p[a], c.p[b])
	c.p = append(c.p, p)
	c.t = append(c.t, MassSquared(p))
	c.size = append(c.size, c.size[a]+c.size[b])
	return len(c.p) - 1
}

func (c *clusters) Cluster(items []int) int {
	var p [4]float64
	for _, i := range items {
		p = Add(p, c.m.leaves[i])
	}
	t := MassSquared(p)
	if len(items) == 1 && c.m.p.Version == Version2020 {
		t = 0
	}
	c.p = append(c.p, p)
	c.t = append(c.t, t)
	c.size = append(c.size, len(items))
	return len(c.p) - 1
}

func (c *clusters) LogPsi(a, b int) float64 {
	rate := 0
	if c.size[a]+c.size[b] == len(c.m.leaves) {
		rate = 1
	}
	return c.m.Split(c.p[a], c.p[b], c.t[a], c.t[b], rate == 1)
}

// Split returns the log-likelihood of a parent splitting into children with 4-momenta pL and pR and
// scales tL and tR, using λ_root when root is true. For Version2020, tL and tR are the children's t
// in the trellis convention (0 for a leaf, the invariant mass² otherwise); Version2021 ignores them
// and takes every t from the momenta. The result is symmetric under L↔R and never NaN.
func (m *Model) Split(pL, pR [4]float64, tL, tR float64, root bool) float64 {
	r := 0
	if root {
		r = 1
	}
	tP := MassSquared(Add(pL, pR))
	if m.p.Version == Version2021 {
		return m.split2021(tP, MassSquared(pL), MassSquared(pR), r)
	}
	return m.split2020(tP, tL, tR, r)
}

// split2020 is ginkgo.md §5: f(t_P, t_max) + f(t_P2, t_min) − log 4π, −Inf when t_P < t_cut.
func (m *Model) split2020(tP, tL, tR float64, r int) float64 {
	// Test t_P first: below the cut (or negative, where √t_P would be NaN) the split is impossible.
	// Momenta so large that their squares overflow (components beyond ~1e154) give an infinite or
	// NaN t, where the formula has no value either; without this test they would give NaN.
	if !(tP >= m.p.TCut) || math.IsInf(tP, 1) || math.IsNaN(tL) || math.IsNaN(tR) {
		return math.Inf(-1)
	}
	tMax, tMin := tL, tR
	if tR > tL {
		tMax, tMin = tR, tL
	}
	tP2 := math.Sqrt(tP) - math.Sqrt(max(tMax, 0))
	tP2 *= tP2
	return m.f2020(tP, tMax, r) + m.f2020(tP2, tMin, r) - log4Pi
}

// f2020 is the density of a child's t given its upper bound T (internal child, t > 0), or the
// probability that it fell below t_cut (leaf, t ≤ 0).
func (m *Model) f2020(T, t float64, r int) float64 {
	lam := m.lambda[r]
	if t > 0 {
		// A bound of 0 leaves no room for an internal child; the reference would give NaN here.
		if !(T > 0) {
			return math.Inf(-1)
		}
		return m.logLambda[r] - math.Log(T) - lam*t/T - m.logNorm[r]
	}
	return math.Log(-math.Expm1(-lam*m.p.TCut/T)) - m.logNorm[r]
}

// split2021 is ginkgo.md §6: the L/R-symmetrised exact density of the generator with its flip.
func (m *Model) split2021(tP, tL, tR float64, r int) float64 {
	tc := m.p.TCut
	// !(t ≥ 0) also rejects a NaN t (from momenta whose squares overflow), which would give NaN.
	if !(tP > tc) || math.IsInf(tP, 1) || !(tL >= 0) || !(tR >= 0) || tL >= 0.999*tP || tR >= 0.999*tP {
		return math.Inf(-1)
	}
	sP, sL, sR := math.Sqrt(tP), math.Sqrt(tL), math.Sqrt(tR)
	if sL+sR > sP {
		return math.Inf(-1)
	}
	a := m.g2021(tP, tL, r) + m.g2021((sP-sL)*(sP-sL), tR, r)
	b := m.g2021(tP, tR, r) + m.g2021((sP-sR)*(sP-sR), tL, r)
	return logspace.AddExp(a, b) + math.Log(0.5) - log4Pi
}

func (m *Model) g2021(T, t float64, r int) float64 {
	lam := m.lambda[r]
	if t > m.p.TCut {
		return m.logLambda[r] - math.Log(T) - lam*t/T - m.logNorm[r]
	}
	return math.Log(-math.Expm1(-lam*min(T, m.p.TCut)/T)) - m.logNorm[r]
}

var log4Pi = math.Log(4 * math.Pi)

// Add returns the component-wise sum of two 4-vectors.
func Add(a, b [4]float64) [4]float64 {
	return [4]float64{a[0] + b[0], a[1] + b[1], a[2] + b[2], a[3] + b[3]}
}

// MassSquared returns the Minkowski square E² − |p⃗|² of a 4-momentum (E, px, py, pz).
func MassSquared(p [4]float64) float64 {
	return p[0]*p[0] - p[1]*p[1] - p[2]*p[2] - p[3]*p[3]
}

// Leaves returns the leaf 4-momenta the model was built with (not a copy; do not modify).
func (m *Model) Leaves() [][4]float64 { return m.leaves }

// SubsetBytes is the memory of a subset scorer: one float64 t per subset.
func (m *Model) SubsetBytes() int { return 8 }

// NewSubsetScorer tabulates t of every subset of the leaves (in the version's convention: the
// invariant mass² of the summed momentum, and 0 for single leaves under Version2020), from which
// each split is scored. Precondition: at most model.MaxSubsetItems leaves.
func (m *Model) NewSubsetScorer() (model.SubsetScorer, error) {
	n := len(m.leaves)
	if n > model.MaxSubsetItems {
		return nil, fmt.Errorf("ginkgo: %d leaves, subsets go up to %d", n, model.MaxSubsetItems)
	}
	// Sum the momenta of the low and high halves separately: 2^(n/2) sums each, not 2^n.
	h := n / 2
	low, high := SubsetSums(m.leaves[:h]), SubsetSums(m.leaves[h:])
	t := make([]float64, 1<<n)
	for x := 1; x < len(t); x++ {
		if x&(x-1) == 0 && m.p.Version == Version2020 {
			continue // a leaf has t = 0
		}
		t[x] = MassSquared(Add(low[x&(1<<h-1)], high[x>>h]))
	}
	return &subsetScorer{m: m, t: t, full: uint32(len(t) - 1)}, nil
}

// SubsetSums returns the summed 4-momentum of every subset of leaves, indexed by bitmask.
func SubsetSums(leaves [][4]float64) [][4]float64 {
	out := make([][4]float64, 1<<len(leaves))
	for x := 1; x < len(out); x++ {
		out[x] = Add(out[x&(x-1)], leaves[bits.TrailingZeros(uint(x))])
	}
	return out
}

type subsetScorer struct {
	m    *Model
	t    []float64
	full uint32
}

func (s *subsetScorer) LogPsi(l, r uint32) float64 {
	root := 0
	if l|r == s.full {
		root = 1
	}
	if s.m.p.Version == Version2021 {
		return s.m.split2021(s.t[l|r], s.t[l], s.t[r], root)
	}
	return s.m.split2020(s.t[l|r], s.t[l], s.t[r], root)
}
