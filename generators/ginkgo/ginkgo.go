// Package ginkgo generates Ginkgo toy jets: the 2020 paper-era invariant-mass shower of Cranmer,
// Drnevich, Macaluso and Pappadopulo (github.com/SebastianMacaluso/ginkgo, showerSim/invMass_ginkgo.py
// at 0bfb7d1), which produced the data of the Cluster Trellis papers. The process is specified in
// ../shared/design/ginkgo.md §3; this is a float64 port, so it reproduces the distributions of the
// reference, not its random streams (the reference draws float32 torch numbers).
//
// Split likelihoods of the generated trees live in hcbench/algorithms/model/ginkgo.
package ginkgo

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"

	likelihood "github.com/hcbench/hcbench/algorithms/model/ginkgo"
	"github.com/hcbench/hcbench/datasets/jets"
	"github.com/hcbench/hcbench/internal/english"
)

// Jet types with their reference parameters (ginkgo.md §2).
const (
	QCD = "qcd" // M = 30, λ_root = λ
	W   = "w"   // M = 80, λ_root = 3
)

// Params configure the shower.
type Params struct {
	Mass       float64    // root invariant mass M (Δ0 = M²); > 0
	Momentum   [3]float64 // root 3-momentum
	Lambda     float64    // rate λ of every split but the root's; > 0
	LambdaRoot float64    // rate λ_root of the root split; > 0
	TCut       float64    // a node with t ≤ TCut is a leaf; > 0
	// FlipChildren swaps the two children with probability ½ after each split, as Ginkgo does from
	// June 2021 on. It changes the stored left/right order only, not the distribution of trees.
	FlipChildren bool
}

// DefaultMomentum is the reference's root 3-momentum: |p| = 400 along (1,1,1)/√3.
var DefaultMomentum = [3]float64{400 / math.Sqrt(3), 400 / math.Sqrt(3), 400 / math.Sqrt(3)}

// Preset returns the reference parameters of a jet type (QCD or W) with the given t_cut and
// λ = 1.5; the caller may then override fields.
func Preset(jetType string, tCut float64) (Params, error) {
	p := Params{Momentum: DefaultMomentum, Lambda: 1.5, TCut: tCut}
	switch jetType {
	case QCD:
		p.Mass, p.LambdaRoot = 30, 1.5
	case W:
		p.Mass, p.LambdaRoot = 80, 3.0
	default:
		return p, fmt.Errorf("unknown jet type %q (want %q or %q)", jetType, QCD, W)
	}
	return p, nil
}

// MaxMass bounds the root mass M. The shower computes (t_L − t_R)²/(t·t) for t up to M², which
// stays finite for M ≤ 1e50 (t·t ≤ 1e200), and every leaf's components are then at most the root
// energy √(|p⃗|² + M²), far below the likelihood's limit likelihood.MaxComponent (1e100). Beyond
// 1e77 the squares overflow and the jets would be NaN.
const MaxMass = 1e50

// MaxMomentum bounds each component of the root 3-momentum, for the same reasons as MaxMass.
const MaxMomentum = 1e50

func (p Params) validate() error {
	switch {
	case !(p.Mass > 0) || math.IsInf(p.Mass, 0):
		return fmt.Errorf("mass must be positive, got %v", p.Mass)
	case p.Mass > MaxMass:
		return fmt.Errorf("mass must be at most %g, got %v (beyond it, squares of masses² overflow)", float64(MaxMass), p.Mass)
	case !(p.Lambda > 0) || math.IsInf(p.Lambda, 0):
		return fmt.Errorf("lambda must be positive, got %v", p.Lambda)
	case !(p.LambdaRoot > 0) || math.IsInf(p.LambdaRoot, 0):
		return fmt.Errorf("lambda_root must be positive, got %v", p.LambdaRoot)
	case !(p.TCut > 0) || math.IsInf(p.TCut, 0):
		return fmt.Errorf("t_cut must be positive, got %v", p.TCut)
	}
	for k, x := range p.Momentum {
		if !(math.Abs(x) <= MaxMomentum) {
			return fmt.Errorf("momentum component %d must be a number of magnitude at most %g, got %v", k, float64(MaxMomentum), x)
		}
	}
	// The jets must be ones the likelihood takes.
	return likelihood.CheckRanges(p.Lambda, p.LambdaRoot, p.TCut)
}

// HardLeafLimit bounds a single jet when no maximum leaf count is asked for, so that a tiny t_cut
// fails fast with an error instead of exhausting memory. No clustering algorithm here handles
// jets of this size anyway.
const HardLeafLimit = 1 << 16

// ErrTooManyLeaves is returned by Generate when a jet grows past its leaf limit.
var ErrTooManyLeaves = errors.New("ginkgo: jet exceeded the leaf limit")

// Generate grows one jet. It stops early with ErrTooManyLeaves once the jet has more than
// maxLeaves leaves (maxLeaves ≤ 0 means HardLeafLimit), which is what rejection sampling needs:
// such a jet would be rejected anyway. The returned jet holds leaves, tree, content and deltas in
// Ginkgo's pre-order node numbering; the caller fills in provenance fields.
func Generate(rng *rand.Rand, p Params, maxLeaves int) (jets.Jet, error) {
	if err := p.validate(); err != nil {
		return jets.Jet{}, err
	}
	if maxLeaves <= 0 {
		maxLeaves = HardLeafLimit
	}
	m2 := p.Mass * p.Mass
	pp := p.Momentum
	root := [4]float64{math.Sqrt(pp[0]*pp[0] + pp[1]*pp[1] + pp[2]*pp[2] + m2), pp[0], pp[1], pp[2]}
	s := shower{rng: rng, p: p, maxLeaves: maxLeaves}
	if err := s.process(root, m2); err != nil {
		return jets.Jet{}, err
	}
	return jets.Jet{
		Leaves:     s.leaves,
		Lambda:     p.Lambda,
		LambdaRoot: p.LambdaRoot,
		TCut:       p.TCut,
		Delta0:     m2,
		RootID:     0,
		Tree:       s.tree,
		Content:    s.content,
		Deltas:     s.deltas,
	}, nil
}

type shower struct {
	rng       *rand.Rand
	p         Params
	maxLeaves int
	leaves    [][4]float64
	tree      [][2]int
	content   [][4]float64
	deltas    []float64
}

// process is ginkgo.md §3: number the node, stop if t ≤ t_cut, else split and recurse left, right.
func (s *shower) process(pv [4]float64, t float64) error {
	idx := len(s.tree)
	s.tree = append(s.tree, [2]int{-1, -1})
	s.content = append(s.content, pv)
	if !(t > s.p.TCut) {
		s.deltas = append(s.deltas, 0)
		s.leaves = append(s.leaves, pv)
		if len(s.leaves) > s.maxLeaves {
			return ErrTooManyLeaves
		}
		return nil
	}
	s.deltas = append(s.deltas, t)

	// RNG order as in the reference: direction, then the left draw, then the right draw.
	dir := s.direction()
	lam := s.p.Lambda
	if idx == 0 {
		lam = s.p.LambdaRoot
	}
	rL := s.truncatedExp(lam)
	rR := s.truncatedExp(lam)
	tL := t * rL
	d := math.Sqrt(t) - math.Sqrt(tL)
	tR := d * d * rR

	pL, pR := decay(pv, t, tL, tR, dir)
	if s.p.FlipChildren && s.rng.IntN(2) == 1 {
		pL, pR = pR, pL
		tL, tR = tR, tL
	}
	s.tree[idx][0] = len(s.tree)
	if err := s.process(pL, tL); err != nil {
		return err
	}
	s.tree[idx][1] = len(s.tree)
	return s.process(pR, tR)
}

// direction draws a unit vector uniformly on the sphere.
func (s *shower) direction() [3]float64 {
	for {
		z := [3]float64{s.rng.NormFloat64(), s.rng.NormFloat64(), s.rng.NormFloat64()}
		n := math.Sqrt(z[0]*z[0] + z[1]*z[1] + z[2]*z[2])
		if n > 0 {
			return [3]float64{z[0] / n, z[1] / n, z[2] / n}
		}
	}
}

// invertBelow is the rate below which truncatedExp inverts the distribution function instead of
// redrawing as the reference does: redrawing takes 1/(1 − e^{−0.999λ}) ≈ 1/λ draws on average,
// which for the smallest rates the likelihood accepts (1e-40) would never end. From 1e-3 up, the
// reference's redraws are kept, and with them the random streams of every earlier data set.
const invertBelow = 1e-3

// truncatedExp draws from Exp(rate) redrawn until the value is below 0.999, as the reference does.
func (s *shower) truncatedExp(rate float64) float64 {
	if rate < invertBelow {
		// The same distribution by inversion: F(r) = (1 − e^{−λr})/(1 − e^{−0.999λ}) on [0, 0.999),
		// so r = −log(1 − u(1 − e^{−0.999λ}))/λ, written with log1p and expm1 to keep its digits
		// for tiny λ (where r → 0.999u). Rounding may reach 0.999; such a draw is redrawn.
		for {
			if r := -math.Log1p(s.rng.Float64()*math.Expm1(-0.999*rate)) / rate; r < 0.999 {
				return r
			}
		}
	}
	for {
		if r := s.rng.ExpFloat64() / rate; r < 0.999 {
			return r
		}
	}
}

// decay splits a parent of 4-momentum pv and mass² t into children of masses² tL and tR: a
// two-body decay in the parent's rest frame, the left child along +dir, then a pure boost to the lab.
func decay(pv [4]float64, t, tL, tR float64, dir [3]float64) (pL, pR [4]float64) {
	m := math.Sqrt(t)
	eL := m / 2 * (1 + tL/t - tR/t)
	eR := m / 2 * (1 + tR/t - tL/t)
	q := 1 - 2*(tL+tR)/t + (tL-tR)*(tL-tR)/(t*t)
	pStar := m / 2 * math.Sqrt(max(q, 0))

	P := math.Sqrt(pv[1]*pv[1] + pv[2]*pv[2] + pv[3]*pv[3])
	if P == 0 {
		for i := range 3 {
			pL[i+1] = pStar * dir[i]
			pR[i+1] = -pStar * dir[i]
		}
		pL[0], pR[0] = eL, eR
		return pL, pR
	}
	hat := [3]float64{pv[1] / P, pv[2] / P, pv[3] / P}
	gamma := pv[0] / m
	gb := P / m
	boost := func(e float64, sgn float64) [4]float64 {
		sd := sgn * (dir[0]*hat[0] + dir[1]*hat[1] + dir[2]*hat[2]) // ŝ·p̂
		var out [4]float64
		out[0] = gamma*e + gb*pStar*sd
		for i := range 3 {
			out[i+1] = gb*e*hat[i] + pStar*(sgn*dir[i]+(gamma-1)*sd*hat[i])
		}
		return out
	}
	return boost(eL, 1), boost(eR, -1)
}

// Conditioned draws jets until one has between minLeaves and maxLeaves leaves (both inclusive;
// maxLeaves ≤ 0 means no maximum), at most maxTries times. Each try is an independent jet, so the
// result is an exact draw from the jet distribution conditioned on its leaf count. It returns the
// jet and the number of tries used, or an error naming the bound when every try was rejected. It
// returns an error wrapping ctx.Err() once ctx is done (looked at before every try: a try grows at
// most maxLeaves leaves, or HardLeafLimit, at least a microsecond of work).
func Conditioned(ctx context.Context, rng *rand.Rand, p Params, minLeaves, maxLeaves, maxTries int) (jets.Jet, int, error) {
	if maxTries < 1 {
		return jets.Jet{}, 0, fmt.Errorf("max_tries must be at least 1, got %d", maxTries)
	}
	if maxLeaves > 0 && minLeaves > maxLeaves {
		return jets.Jet{}, 0, fmt.Errorf("min_leaves %d is greater than max_leaves %d", minLeaves, maxLeaves)
	}
	tooSmall, tooLarge := 0, 0
	for try := 1; try <= maxTries; try++ {
		if err := ctx.Err(); err != nil {
			return jets.Jet{}, try - 1, fmt.Errorf("ginkgo: stopped after %s for a jet with %s leaves: %w", english.Count(try-1, "try", "tries"), leafRange(minLeaves, maxLeaves), err)
		}
		j, err := Generate(rng, p, maxLeaves)
		if errors.Is(err, ErrTooManyLeaves) {
			if maxLeaves <= 0 {
				return jets.Jet{}, try, fmt.Errorf("%w: a jet grew past %d leaves; t_cut %v is too small for this mass", ErrTooManyLeaves, HardLeafLimit, p.TCut)
			}
			tooLarge++
			continue
		}
		if err != nil {
			return jets.Jet{}, try, err
		}
		if len(j.Leaves) < minLeaves {
			tooSmall++
			continue
		}
		return j, try, nil
	}
	return jets.Jet{}, maxTries, fmt.Errorf("no jet with %s leaves in %s (%d had fewer, %d more): widen the leaf range, change t_cut, or raise max_tries",
		leafRange(minLeaves, maxLeaves), english.Count(maxTries, "try", "tries"), tooSmall, tooLarge)
}

func leafRange(lo, hi int) string {
	if hi <= 0 {
		return fmt.Sprintf("at least %d", lo)
	}
	return fmt.Sprintf("%d to %d", lo, hi)
}
