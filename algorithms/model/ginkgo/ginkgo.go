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
	"context"
	"errors"
	"fmt"
	"math"
	"math/bits"
	"strconv"
	"strings"

	"github.com/hcbench/hcbench/algorithms/logspace"
	"github.com/hcbench/hcbench/algorithms/model"
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

// The domain in which the formulas are evaluated without overflow or underflow; New refuses
// anything outside it. With at most MaxLeaves leaves whose components are at most MaxComponent in
// magnitude, a summed component is at most 2^24·1e100 < 1.7e107 and a mass² t, a sum of four
// squares, at most 1.2e215 (so is any bound T ≤ t_P derived from it). Then, with λ in
// [MinRate, MaxRate] and t_cut in [MinTCut, MaxTCut], every intermediate stays finite and normal:
//
//   - λ·t ≤ 1e40·1.2e215 ≈ 1e255 (the density term λ·t/T; the fast trellis kernel computes
//     (λ·t)·(1/T), and (λ/t_P)·t_max with λ/t_P ≤ λ/t_cut ≤ 1e80, so at most ≈ 1e295);
//   - λ·t_cut lies in [1e-80, 1e240], so the leaf term's x = λ·t_cut/T is either ≥ 1e-80/1.2e215
//     ≈ 8e-296, a normal number (log(1 − e^{−x}) keeps its digits, where an underflow to 0 would
//     make a finite probability −Inf), or +Inf when T is 0 or tiny (the correct limit, log 1 = 0);
//   - the 2021 bound (√t_P − √t_L)² with t_L < 0.999·t_P is at least 2.5e-7·t_P > 2.5e-47, so
//     it never underflows to 0 (where min(T, t_cut)/T would be 0/0).
//
// Inside these bounds no split is NaN; a parent whose t is below t_cut (or negative) is −Inf. The
// bounds are generous: jets in GeV have components of a few hundred, λ of order 1 and t_cut of
// order 1 to 100.
const (
	MaxLeaves    = 1 << 24
	MaxComponent = 1e100
	MinRate      = 1e-40
	MaxRate      = 1e40
	MinTCut      = 1e-40
	MaxTCut      = 1e200
)

// MassTolerance is the rounding allowed in a leaf's mass² E² − |p⃗|², relative to E²: data written
// at float32 precision, as the reference's are, recompute light leaves' masses² with errors of
// about 1e-7·E² (a −4.7e-6 is seen in the reference); 1e-6 covers that and nothing physical.
const MassTolerance = 1e-6

// Model is the Ginkgo split likelihood over the leaves of one jet. Build it with New.
type Model struct {
	leaves [][4]float64
	p      Params
	// Rate-dependent constants for λ (index 0) and λ_root (index 1).
	logLambda, logNorm [2]float64
	lambda             [2]float64
}

// New returns the model for a jet with the given leaf 4-momenta (E, px, py, pz). It returns an
// error for a rate or t_cut that is not a positive number or lies outside [MinRate, MaxRate] or
// [MinTCut, MaxTCut], an unknown version, more than MaxLeaves leaves, or a non-finite momentum
// component or one beyond ±MaxComponent. It accepts any other momenta, physical or not (whose
// splits are −Inf where the formula has no value); the rules that data must follow are
// jets.Jet.Validate's, and Warnings reports what the model scores but the generator cannot make.
func New(leaves [][4]float64, p Params) (*Model, error) {
	if len(leaves) == 0 {
		return nil, errors.New("ginkgo: a jet needs at least one leaf")
	}
	if len(leaves) > MaxLeaves {
		return nil, fmt.Errorf("ginkgo: %d leaves, at most %d", len(leaves), MaxLeaves)
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
	if err := CheckRanges(p.Lambda, p.LambdaRoot, p.TCut); err != nil {
		return nil, fmt.Errorf("ginkgo: %w", err)
	}
	if p.Version != Version2020 && p.Version != Version2021 {
		return nil, fmt.Errorf("ginkgo: unknown likelihood version %d", int(p.Version))
	}
	if p.RootLambda != RootLambdaGenerative && p.RootLambda != RootLambdaUniform {
		return nil, fmt.Errorf("ginkgo: unknown root lambda rule %d", int(p.RootLambda))
	}
	for i, l := range leaves {
		for k, x := range l {
			if math.IsNaN(x) || math.IsInf(x, 0) {
				return nil, fmt.Errorf("ginkgo: leaf %d has a non-finite component: %v", i, l)
			}
			if math.Abs(x) > MaxComponent {
				return nil, fmt.Errorf("ginkgo: leaf %d has %s = %v, beyond ±%g (sums of squares would overflow)", i, ComponentNames[k], x, MaxComponent)
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

// ComponentNames names the components of a 4-momentum, for messages.
var ComponentNames = [4]string{"E", "px", "py", "pz"}

// CheckRanges returns an error naming the first of λ, λ_root and t_cut that lies outside
// [MinRate, MaxRate] or [MinTCut, MaxTCut] (see MaxComponent for why the bounds), or nil. NaN is
// outside.
func CheckRanges(lambda, lambdaRoot, tCut float64) error {
	for _, c := range []struct {
		name   string
		v      float64
		lo, hi float64
	}{{"lambda", lambda, MinRate, MaxRate}, {"lambda_root", lambdaRoot, MinRate, MaxRate}, {"t_cut", tCut, MinTCut, MaxTCut}} {
		if !(c.v >= c.lo && c.v <= c.hi) {
			return fmt.Errorf("%s is %v, outside [%g, %g], where the likelihood is computed without overflow or underflow", c.name, c.v, c.lo, c.hi)
		}
	}
	return nil
}

// CheckLeaf returns an error, worded to follow "leaf k ", when a leaf's 4-momentum is not one the
// likelihood can take as a particle's (jets.Jet.Validate gives the reasons): a component that is
// not finite or lies beyond ±MaxComponent, the zero 4-momentum, an energy E ≤ 0, or a space-like
// momentum (E² − |p⃗|² < 0 by more than MassTolerance·E²). It is nil for a physical leaf.
func CheckLeaf(l [4]float64) error {
	for k, x := range l {
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return fmt.Errorf("has %s = %v, not a finite number", ComponentNames[k], x)
		}
		if math.Abs(x) > MaxComponent {
			return fmt.Errorf("has %s = %v, beyond ±%g, the largest component the likelihood takes (sums of the squares of summed momenta must stay finite)", ComponentNames[k], x, MaxComponent)
		}
	}
	if l == [4]float64{} {
		return errors.New("is the zero 4-momentum (0, 0, 0, 0), which is no particle (a cluster it joins keeps its momentum, and the split that adds it is scored as if a massless leaf had been emitted)")
	}
	if !(l[0] > 0) {
		return fmt.Errorf("has energy E = %v; a particle's energy is positive (summed with others, a negative or zero E makes clusters of any mass, even space-like)", l[0])
	}
	// Scale by the largest component so that neither squaring overflows nor underflows.
	sc := max(math.Abs(l[0]), math.Abs(l[1]), math.Abs(l[2]), math.Abs(l[3]))
	e, px, py, pz := l[0]/sc, l[1]/sc, l[2]/sc, l[3]/sc
	p2 := px*px + py*py + pz*pz
	if e*e-p2 < -MassTolerance*e*e {
		return fmt.Errorf("is space-like: E = %v < |p⃗| = %v (mass² E² − |p⃗|² = %v, below 0 by more than the rounding allowed, %g·E²); a particle has E ≥ |p⃗|, and the likelihood takes a leaf's mass² to be ≥ 0",
			l[0], sc*math.Sqrt(p2), MassSquared(l), MassTolerance)
	}
	return nil
}

// Warnings describes what the model scores but the generator it describes cannot have made, or
// where rounding rather than the momenta decides the score: one message per kind, nil when there
// is nothing to say. The scores are still the formula's (ginkgo.md §5, §6); the warnings say why
// they may not mean what they seem.
//
//   - A leaf whose mass² exceeds t_cut (by more than MassTolerance·E²): the generator splits every
//     node with t > t_cut, so such a jet has probability 0 under it. The 2020 formula ignores leaf
//     masses (t = 0) and scores it as a leaf all the same; the 2021 one gives it an internal
//     child's density, with no factor for the split it never had.
//   - Under ginkgo2021, a leaf whose mass² is negative (within rounding, as light leaves in
//     float32 data can be): that likelihood rejects every split with such a child, so every tree
//     scores −Inf (ginkgo.md §6 expects this occasionally).
//   - A t_cut below 1e-12 of the squared total energy: a mass² computed from summed momenta is
//     then only good to about 1e-16·E² per operation, near the cut, so which clusters pass it is
//     decided by rounding.
//   - A leaf that CheckLeaf refuses (only a model built in code can have one: data files and the
//     generator never give them): its splits are scored, but not as a particle's.
func (m *Model) Warnings() []string {
	var out []string
	var bad, heavy, negative []int
	worst, eTotal := 0.0, 0.0
	tc := m.p.TCut
	for i, l := range m.leaves {
		eTotal += math.Abs(l[0])
		if CheckLeaf(l) != nil {
			bad = append(bad, i)
			continue
		}
		t := MassSquared(l)
		switch {
		case t > tc+MassTolerance*l[0]*l[0]:
			if len(heavy) == 0 || t > worst {
				worst = t
			}
			heavy = append(heavy, i)
		case t < 0 && m.p.Version == Version2021:
			negative = append(negative, i)
		}
	}
	if len(bad) > 0 {
		out = append(out, fmt.Sprintf("%s a 4-momentum that is not a particle's (leaf %d %v): the likelihood scores its splits, but the numbers mean nothing", leafList(bad), bad[0], CheckLeaf(m.leaves[bad[0]])))
	}
	if len(heavy) > 0 {
		out = append(out, fmt.Sprintf("%s a mass² above t_cut %v (the largest %v): the generator splits every node heavier than t_cut, so it cannot have made this jet; %v scores it all the same (%s)",
			leafList(heavy), tc, worst, m.p.Version, map[Version]string{Version2020: "a leaf's t is taken as 0", Version2021: "a heavy leaf gets an internal child's density"}[m.p.Version]))
	}
	if len(negative) > 0 {
		out = append(out, fmt.Sprintf("%s a mass² slightly below 0 (rounding of a light leaf; %v at leaf %d): ginkgo2021 rejects every split with such a child, so every tree scores −Inf",
			leafList(negative), MassSquared(m.leaves[negative[0]]), negative[0]))
	}
	if e2 := eTotal * eTotal; tc < 1e-12*e2 {
		out = append(out, fmt.Sprintf("t_cut %v is below 1e-12 of the squared total energy %.4g: masses² computed from summed momenta are only good to about 1e-16 of it, so which clusters pass the cut is decided by rounding", tc, e2))
	}
	return out
}

// leafList writes "leaf 3 has" or "leaves 1, 4 and 7 have" (the first 5, then a count).
func leafList(idx []int) string {
	if len(idx) == 1 {
		return fmt.Sprintf("leaf %d has", idx[0])
	}
	var b strings.Builder
	b.WriteString("leaves ")
	shown := min(len(idx), 5)
	for i, k := range idx[:shown] {
		switch {
		case i == 0:
		case i == shown-1 && shown == len(idx):
			b.WriteString(" and ")
		default:
			b.WriteString(", ")
		}
		b.WriteString(strconv.Itoa(k))
	}
	if shown < len(idx) {
		fmt.Fprintf(&b, " and %d more", len(idx)-shown)
	}
	return b.String() + " have"
}

// Items returns the number of leaves.
func (m *Model) Items() int { return len(m.leaves) }

var _ model.Relabeler = (*Model)(nil)

// Relabel renumbers the leaves (see model.Relabeler): leaf i becomes the former leaf order[i].
// The model takes a renumbered copy of its leaves, so the slice given to New is not changed.
func (m *Model) Relabel(order []int) {
	leaves := make([][4]float64, len(order))
	for i, o := range order {
		leaves[i] = m.leaves[o]
	}
	m.leaves = leaves
}

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

// g2021 is the density of a child's t given its upper bound T (internal child, t > t_cut), or
// the probability that it fell below t_cut (leaf). split2021 keeps T > 0 within New's bounds; a
// T of 0 (possible only below them) would make −log T − λt/T = ∞ − ∞ and min(T, t_cut)/T = 0/0,
// so it is taken at its limits: no room for an internal child (−Inf), certainty for a leaf.
func (m *Model) g2021(T, t float64, r int) float64 {
	lam := m.lambda[r]
	if t > m.p.TCut {
		if !(T > 0) {
			return math.Inf(-1)
		}
		return m.logLambda[r] - math.Log(T) - lam*t/T - m.logNorm[r]
	}
	if !(T > 0) {
		return math.Log(-math.Expm1(-lam)) - m.logNorm[r]
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
	return m.NewSubsetScorerContext(context.Background())
}

// NewSubsetScorerContext is NewSubsetScorer that returns ctx's error once ctx is done (the table
// takes seconds at N = 28); it looks at ctx every 2^16 subsets.
func (m *Model) NewSubsetScorerContext(ctx context.Context) (model.SubsetScorer, error) {
	n := len(m.leaves)
	if n > model.MaxSubsetItems {
		return nil, fmt.Errorf("ginkgo: %d leaves, subsets go up to %d", n, model.MaxSubsetItems)
	}
	// Sum the momenta of the low and high halves separately: 2^(n/2) sums each, not 2^n.
	h := n / 2
	low, high := SubsetSums(m.leaves[:h]), SubsetSums(m.leaves[h:])
	t := make([]float64, 1<<n)
	for x := 1; x < len(t); x++ {
		if x&0xffff == 0 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
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
