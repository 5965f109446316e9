package ginkgo_test

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"

	"github.com/hcbench/hcbench/algorithms/tree"
	"github.com/hcbench/hcbench/datasets/jets"
	"github.com/hcbench/hcbench/generators/ginkgo"
)

// Tolerances of the invariant checks. The port works in float64 throughout (ginkgo.md §3,
// "Numerics"): every component of a child 4-vector is a sum of a few products of numbers no larger
// than the parent's energy, so its rounding error is a few ulps of E_parent ≤ E_root (the largest
// deviation seen over 20000 jets of each preset was 2.8e-16·E_root for momentum conservation and
// 8.7e-16·E_root² for p² against deltas). The tolerances below are 1000–4000 times the worst
// case seen, yet five orders below the 1e-7 relative error of the float32 reference, so a port
// that lost float64 precision would fail as surely as one with a wrong formula.
const (
	// momentumTol bounds |p_L + p_R − p_P| per component, relative to the root energy.
	momentumTol = 1e-12
	// massTol bounds |p² − t| for a node (t from deltas, or the t_cut bound of a leaf), relative to
	// the square of the root energy (p² = E² − |p⃗|² cancels terms of size E²).
	massTol = 1e-12
)

// newRNG returns a reproducible generator; tests use fixed seeds so that every statistical check
// is deterministic.
func newRNG(seed uint64) *rand.Rand { return rand.New(rand.NewPCG(seed, 0x9e3779b97f4a7c15)) }

func preset(t testing.TB, jetType string, tCut float64, flip bool) ginkgo.Params {
	t.Helper()
	p, err := ginkgo.Preset(jetType, tCut)
	if err != nil {
		t.Fatal(err)
	}
	p.FlipChildren = flip
	return p
}

func massSquared(p [4]float64) float64 { return p[0]*p[0] - p[1]*p[1] - p[2]*p[2] - p[3]*p[3] }

// checkJet verifies the invariants of ginkgo.md §8 on one generated jet and returns the first
// violation, or nil.
func checkJet(j *jets.Jet, p ginkgo.Params) error {
	n := len(j.Leaves)
	nodes := 2*n - 1
	if n < 2 {
		// The root has t = M² > t_cut for every preset, so it always splits.
		return fmt.Errorf("%d leaves, want at least 2", n)
	}
	if len(j.Tree) != nodes || len(j.Content) != nodes || len(j.Deltas) != nodes {
		return fmt.Errorf("tree/content/deltas have %d/%d/%d rows, want 2n−1 = %d",
			len(j.Tree), len(j.Content), len(j.Deltas), nodes)
	}
	m2 := p.Mass * p.Mass
	if j.RootID != 0 || j.Delta0 != m2 || j.TCut != p.TCut || j.Lambda != p.Lambda || j.LambdaRoot != p.LambdaRoot {
		return fmt.Errorf("jet parameters root_id=%d Delta_0=%v pt_cut=%v Lambda=%v LambdaRoot=%v do not match %+v",
			j.RootID, j.Delta0, j.TCut, j.Lambda, j.LambdaRoot, p)
	}
	if err := j.Validate(); err != nil {
		return err
	}

	// The tree: a valid full binary tree whose DFS leaf order is the order of Leaves.
	tr, err := tree.FromChildren(j.Tree, 0)
	if err != nil {
		return err
	}
	if err := tr.Validate(n); err != nil {
		return err
	}
	if !tr.IsBinary() {
		return errors.New("tree is not binary")
	}
	for v, nd := range tr.Nodes {
		if nd.IsLeaf() && j.Content[v] != j.Leaves[nd.Item] {
			return fmt.Errorf("leaf node %d is item %d in DFS order but content %v != leaves[%d] %v",
				v, nd.Item, j.Content[v], nd.Item, j.Leaves[nd.Item])
		}
	}
	// Node numbers follow creation order: pre-order, left subtree first (§3).
	next := 0
	var walk func(v int) error
	walk = func(v int) error {
		if v != next {
			return fmt.Errorf("node %d visited at pre-order position %d", v, next)
		}
		next++
		if c := j.Tree[v]; c[0] >= 0 {
			if err := walk(c[0]); err != nil {
				return err
			}
			return walk(c[1])
		}
		return nil
	}
	if err := walk(0); err != nil {
		return err
	}

	// Root: p_root = (√(|p⃗|² + M²), p⃗) and t = Δ0 = M².
	root := j.Content[0]
	e0 := root[0]
	if root[1] != p.Momentum[0] || root[2] != p.Momentum[1] || root[3] != p.Momentum[2] {
		return fmt.Errorf("root 3-momentum %v, want %v", root[1:], p.Momentum)
	}
	if j.Deltas[0] != m2 {
		return fmt.Errorf("root t = %v, want M² = %v", j.Deltas[0], m2)
	}
	if d := math.Abs(massSquared(root) - m2); d > massTol*e0*e0 {
		return fmt.Errorf("root p² = %v, want M² = %v", massSquared(root), m2)
	}

	// childT is a child's t: the sampled t of an internal node, the recomputed p² of a leaf (whose
	// sampled t is not stored).
	childT := func(c int) float64 {
		if j.Tree[c][0] >= 0 {
			return j.Deltas[c]
		}
		return massSquared(j.Content[c])
	}
	slack := massTol * e0 * e0 // rounding slack on a recomputed leaf p²
	for v, c := range j.Tree {
		pv := j.Content[v]
		if c[0] < 0 {
			// Leaf: deltas 0 and p² ∈ [0, t_cut] up to rounding.
			if j.Deltas[v] != 0 {
				return fmt.Errorf("leaf %d has deltas %v, want 0", v, j.Deltas[v])
			}
			if m := massSquared(pv); m < -slack || m > p.TCut+slack {
				return fmt.Errorf("leaf %d has p² = %v outside [0, t_cut = %v]", v, m, p.TCut)
			}
			continue
		}
		tP := j.Deltas[v]
		if !(tP > p.TCut) {
			return fmt.Errorf("internal node %d has t = %v ≤ t_cut = %v", v, tP, p.TCut)
		}
		if d := math.Abs(massSquared(pv) - tP); d > massTol*e0*e0 {
			return fmt.Errorf("internal node %d has p² = %v but t = %v", v, massSquared(pv), tP)
		}
		// Momentum conservation.
		for k := range 4 {
			if d := math.Abs(j.Content[c[0]][k] + j.Content[c[1]][k] - pv[k]); d > momentumTol*e0 {
				return fmt.Errorf("node %d: component %d of p_L + p_R differs from p_P by %v", v, k, d)
			}
		}
		// Mass ordering √t_L + √t_R < √t_P, and the truncation of the draws: the first-drawn child
		// has t < 0.999·t_P and the second t < 0.999·(√t_P − √t_first)². Without flips the left
		// child is the first drawn (§3.4); with flips either order may be the drawing order.
		tL, tR := childT(c[0]), childT(c[1])
		if math.Sqrt(max(tL, 0))+math.Sqrt(max(tR, 0)) >= math.Sqrt(tP) {
			return fmt.Errorf("node %d: √t_L + √t_R = √%v + √%v ≥ √t_P = √%v", v, tL, tR, tP)
		}
		drawn := func(first, second float64) bool {
			d := math.Sqrt(tP) - math.Sqrt(max(first, 0))
			return first < 0.999*tP+slack && second < 0.999*d*d+slack
		}
		switch {
		case drawn(tL, tR):
		case p.FlipChildren && drawn(tR, tL):
		default:
			return fmt.Errorf("node %d: children t = %v, %v break the 0.999 truncation of t_P = %v (flip %v)",
				v, tL, tR, tP, p.FlipChildren)
		}
	}
	return nil
}

func TestGenerateInvariants(t *testing.T) {
	cases := []struct {
		jetType string
		tCut    float64
		flip    bool
	}{
		{ginkgo.QCD, 16, false},
		{ginkgo.W, 16, false},
		{ginkgo.QCD, 4, false},
		{ginkgo.QCD, 16, true},
		{ginkgo.W, 4, true},
		{ginkgo.QCD, 1.21, false},
	}
	jetsPerCase := 500
	if testing.Short() {
		jetsPerCase = 100
	}
	for i, tc := range cases {
		name := fmt.Sprintf("%s_tcut%v_flip%v", tc.jetType, tc.tCut, tc.flip)
		t.Run(name, func(t *testing.T) {
			p := preset(t, tc.jetType, tc.tCut, tc.flip)
			rng := newRNG(uint64(100 + i))
			for k := range jetsPerCase {
				j, err := ginkgo.Generate(rng, p, 0)
				if err != nil {
					t.Fatalf("jet %d: %v", k, err)
				}
				if err := checkJet(&j, p); err != nil {
					t.Fatalf("jet %d (%d leaves): %v", k, len(j.Leaves), err)
				}
			}
		})
	}
}

// TestCheckJetDetects makes sure the invariant checker is not vacuous: each corruption of a valid
// jet must be reported.
func TestCheckJetDetects(t *testing.T) {
	p := preset(t, ginkgo.QCD, 16, false)
	rng := newRNG(7)
	var j jets.Jet
	for {
		var err error
		if j, err = ginkgo.Generate(rng, p, 0); err != nil {
			t.Fatal(err)
		}
		// At least 4 leaves with an internal left child of the root.
		if len(j.Leaves) >= 4 && j.Tree[j.Tree[0][0]][0] >= 0 {
			break
		}
	}
	if err := checkJet(&j, p); err != nil {
		t.Fatalf("valid jet rejected: %v", err)
	}
	clone := func() jets.Jet {
		c := j
		c.Leaves = append([][4]float64(nil), j.Leaves...)
		c.Tree = append([][2]int(nil), j.Tree...)
		c.Content = append([][4]float64(nil), j.Content...)
		c.Deltas = append([]float64(nil), j.Deltas...)
		return c
	}
	firstLeaf := 0
	for v, c := range j.Tree {
		if c[0] < 0 {
			firstLeaf = v
			break
		}
	}
	corrupt := map[string]func(c *jets.Jet){
		"momentum":       func(c *jets.Jet) { c.Content[1][1] *= 1 + 1e-9 },
		"swapped tree":   func(c *jets.Jet) { c.Tree[0] = [2]int{c.Tree[0][1], c.Tree[0][0]} },
		"leaf order":     func(c *jets.Jet) { c.Leaves[0], c.Leaves[1] = c.Leaves[1], c.Leaves[0] },
		"root delta":     func(c *jets.Jet) { c.Deltas[0] = 901 },
		"leaf delta":     func(c *jets.Jet) { c.Deltas[firstLeaf] = 1 },
		"internal delta": func(c *jets.Jet) { c.Deltas[c.Tree[0][0]] *= 1.001 },
		"node count":     func(c *jets.Jet) { c.Deltas = c.Deltas[1:] },
	}
	for name, f := range corrupt {
		c := clone()
		f(&c)
		if err := checkJet(&c, p); err == nil {
			t.Errorf("%s: corruption not detected", name)
		}
	}
}

// TestFlipChildren checks that FlipChildren randomises the stored order: with flips the left child
// is the heavier one in a Binomial(N, ½) number of splits (the flip is an independent fair coin);
// without flips the first-drawn (left) child is heavier far more often than half the time, because
// it is drawn under the larger bound. Tolerance: 5 binomial standard deviations.
func TestFlipChildren(t *testing.T) {
	for _, flip := range []bool{false, true} {
		p := preset(t, ginkgo.QCD, 4, flip)
		rng := newRNG(11)
		heavierLeft, splits := 0, 0
		for range 2000 {
			j, err := ginkgo.Generate(rng, p, 0)
			if err != nil {
				t.Fatal(err)
			}
			for _, c := range j.Tree {
				if c[0] < 0 {
					continue
				}
				if massSquared(j.Content[c[0]]) > massSquared(j.Content[c[1]]) {
					heavierLeft++
				}
				splits++
			}
		}
		frac := float64(heavierLeft) / float64(splits)
		sigma := 0.5 / math.Sqrt(float64(splits))
		t.Logf("flip %v: left child heavier in %d of %d splits (%.4f)", flip, heavierLeft, splits, frac)
		if flip && math.Abs(frac-0.5) > 5*sigma {
			t.Errorf("with flips the left child is heavier in a fraction %.4f of splits, want 0.5 ± %.4f", frac, 5*sigma)
		}
		if !flip && frac < 0.5+5*sigma {
			t.Errorf("without flips the left (first-drawn) child is heavier in a fraction %.4f of splits, want > %.4f", frac, 0.5+5*sigma)
		}
	}
}

func TestPreset(t *testing.T) {
	// Reference values: ginkgo.md §2 (run_invMassGinkgo.py). The QCD root energy is quoted there
	// to 7 decimals, hence the 5e-8 tolerance.
	for _, tc := range []struct {
		jetType                string
		mass, lambdaRoot, eRef float64
	}{
		{ginkgo.QCD, 30, 1.5, 401.1234224},
		{ginkgo.W, 80, 3.0, math.Sqrt(400*400 + 80*80)},
	} {
		p, err := ginkgo.Preset(tc.jetType, 2.5)
		if err != nil {
			t.Fatalf("%s: %v", tc.jetType, err)
		}
		if p.Mass != tc.mass || p.LambdaRoot != tc.lambdaRoot || p.Lambda != 1.5 || p.TCut != 2.5 || p.FlipChildren {
			t.Errorf("%s: got %+v", tc.jetType, p)
		}
		j, err := ginkgo.Generate(newRNG(1), p, 0)
		if err != nil {
			t.Fatal(err)
		}
		if e := j.Content[0][0]; math.Abs(e-tc.eRef) > 5e-8 {
			t.Errorf("%s: root energy %.9f, want %.7f", tc.jetType, e, tc.eRef)
		}
		// |p⃗| = 400 along (1,1,1)/√3; rounding of the three components only.
		if pm := math.Sqrt(p.Momentum[0]*p.Momentum[0] + p.Momentum[1]*p.Momentum[1] + p.Momentum[2]*p.Momentum[2]); math.Abs(pm-400) > 1e-12 {
			t.Errorf("%s: |p| = %v, want 400", tc.jetType, pm)
		}
	}
	if _, err := ginkgo.Preset("top", 16); err == nil || !strings.Contains(err.Error(), "top") {
		t.Errorf("unknown jet type: error %v, want one naming the type", err)
	}
}

func TestGenerateRejectsBadParams(t *testing.T) {
	good := preset(t, ginkgo.QCD, 16, false)
	for _, tc := range []struct {
		name string
		edit func(p *ginkgo.Params)
		want string
	}{
		{"zero mass", func(p *ginkgo.Params) { p.Mass = 0 }, "mass"},
		{"negative mass", func(p *ginkgo.Params) { p.Mass = -30 }, "mass"},
		{"NaN mass", func(p *ginkgo.Params) { p.Mass = math.NaN() }, "mass"},
		{"infinite mass", func(p *ginkgo.Params) { p.Mass = math.Inf(1) }, "mass"},
		{"zero lambda", func(p *ginkgo.Params) { p.Lambda = 0 }, "lambda"},
		{"NaN lambda", func(p *ginkgo.Params) { p.Lambda = math.NaN() }, "lambda"},
		{"zero lambda_root", func(p *ginkgo.Params) { p.LambdaRoot = 0 }, "lambda_root"},
		{"infinite lambda_root", func(p *ginkgo.Params) { p.LambdaRoot = math.Inf(1) }, "lambda_root"},
		{"zero t_cut", func(p *ginkgo.Params) { p.TCut = 0 }, "t_cut"},
		{"negative t_cut", func(p *ginkgo.Params) { p.TCut = -1 }, "t_cut"},
		{"infinite t_cut", func(p *ginkgo.Params) { p.TCut = math.Inf(1) }, "t_cut"},
	} {
		p := good
		tc.edit(&p)
		if _, err := ginkgo.Generate(newRNG(1), p, 0); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: Generate error %v, want one mentioning %q", tc.name, err, tc.want)
		}
		if _, _, err := ginkgo.Conditioned(t.Context(), newRNG(1), p, 2, 9, 10); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: Conditioned error %v, want one mentioning %q", tc.name, err, tc.want)
		}
	}
}

// TestGenerateMaxLeaves checks the early stop: with the same random stream, a capped run gives the
// uncapped jet bit for bit when that jet fits, and ErrTooManyLeaves otherwise.
func TestGenerateMaxLeaves(t *testing.T) {
	p := preset(t, ginkgo.QCD, 4, false)
	const limit = 10
	fit, over := 0, 0
	for seed := range uint64(300) {
		full, err := ginkgo.Generate(newRNG(seed), p, 0)
		if err != nil {
			t.Fatal(err)
		}
		capped, err := ginkgo.Generate(newRNG(seed), p, limit)
		if len(full.Leaves) > limit {
			over++
			if !errors.Is(err, ginkgo.ErrTooManyLeaves) {
				t.Fatalf("seed %d: %d leaves > %d but error %v", seed, len(full.Leaves), limit, err)
			}
			continue
		}
		fit++
		if err != nil {
			t.Fatalf("seed %d: %d leaves ≤ %d but error %v", seed, len(full.Leaves), limit, err)
		}
		if !sameJet(&full, &capped) {
			t.Fatalf("seed %d: the capped jet differs from the uncapped one", seed)
		}
	}
	// Both branches must have been exercised (mean n is 12.5 at t_cut 4, ginkgo.md §9).
	if fit == 0 || over == 0 {
		t.Errorf("%d jets fit and %d were over the limit; want both > 0", fit, over)
	}
}

// sameJet reports whether two jets are identical bit for bit.
func sameJet(a, b *jets.Jet) bool {
	same4 := func(x, y [][4]float64) bool {
		if len(x) != len(y) {
			return false
		}
		for i := range x {
			for k := range 4 {
				if math.Float64bits(x[i][k]) != math.Float64bits(y[i][k]) {
					return false
				}
			}
		}
		return true
	}
	if !same4(a.Leaves, b.Leaves) || !same4(a.Content, b.Content) || len(a.Tree) != len(b.Tree) || len(a.Deltas) != len(b.Deltas) {
		return false
	}
	for i := range a.Tree {
		if a.Tree[i] != b.Tree[i] || math.Float64bits(a.Deltas[i]) != math.Float64bits(b.Deltas[i]) {
			return false
		}
	}
	return a.Lambda == b.Lambda && a.LambdaRoot == b.LambdaRoot && a.TCut == b.TCut && a.Delta0 == b.Delta0 && a.RootID == b.RootID
}

func TestConditionedLeafRange(t *testing.T) {
	seeds := 200
	if testing.Short() {
		seeds = 50
	}
	for _, tc := range []struct {
		jetType            string
		tCut               float64
		minLeaves, maxLeaf int
	}{
		{ginkgo.QCD, 16, 5, 9},
		{ginkgo.QCD, 16, 4, 4},
		{ginkgo.QCD, 16, 9, 9},
		{ginkgo.QCD, 16, 2, 2},
		{ginkgo.QCD, 16, 5, 10}, // the ginkgo510 preset's range (inclusive upper bound 10)
		{ginkgo.W, 16, 10, 20},
		{ginkgo.W, 4, 30, 0}, // no maximum
	} {
		name := fmt.Sprintf("%s_tcut%v_%d-%d", tc.jetType, tc.tCut, tc.minLeaves, tc.maxLeaf)
		t.Run(name, func(t *testing.T) {
			p := preset(t, tc.jetType, tc.tCut, false)
			const maxTries = 100000
			n := seeds
			if tc.maxLeaf == 2 {
				n = min(seeds, 50) // two leaves: about one jet in 1000 (both root children light)
			}
			for s := range n {
				j, tries, err := ginkgo.Conditioned(t.Context(), newRNG(uint64(s)), p, tc.minLeaves, tc.maxLeaf, maxTries)
				if err != nil {
					t.Fatalf("seed %d: %v", s, err)
				}
				n := len(j.Leaves)
				if n < tc.minLeaves || (tc.maxLeaf > 0 && n > tc.maxLeaf) {
					t.Fatalf("seed %d: %d leaves outside [%d, %d]", s, n, tc.minLeaves, tc.maxLeaf)
				}
				if tries < 1 || tries > maxTries {
					t.Fatalf("seed %d: %d tries reported", s, tries)
				}
				if err := checkJet(&j, p); err != nil {
					t.Fatalf("seed %d: %v", s, err)
				}
			}
		})
	}
}

// TestConditionedDeterministic: the same source seed gives the same jet bit for bit (and the same
// number of tries); different seeds give different jets.
func TestConditionedDeterministic(t *testing.T) {
	p := preset(t, ginkgo.QCD, 16, true)
	first := make([]jets.Jet, 20)
	for s := range first {
		a, triesA, errA := ginkgo.Conditioned(t.Context(), newRNG(uint64(s)), p, 5, 9, 1000)
		b, triesB, errB := ginkgo.Conditioned(t.Context(), newRNG(uint64(s)), p, 5, 9, 1000)
		if errA != nil || errB != nil {
			t.Fatal(errA, errB)
		}
		if !sameJet(&a, &b) || triesA != triesB {
			t.Fatalf("seed %d: two runs differ", s)
		}
		first[s] = a
	}
	for s := range first {
		for r := range s {
			if sameJet(&first[s], &first[r]) || first[s].Leaves[0] == first[r].Leaves[0] {
				t.Errorf("seeds %d and %d give the same jet", r, s)
			}
		}
	}
}

func TestConditionedErrors(t *testing.T) {
	p := preset(t, ginkgo.QCD, 16, false)

	// An unreachable range: 200 leaves at t_cut 16 (mean 7.6, ginkgo.md §9). Each try stops as soon
	// as the jet has more than 200 leaves, so this is quick.
	_, tries, err := ginkgo.Conditioned(t.Context(), newRNG(1), p, 200, 200, 50)
	if err == nil {
		t.Fatal("200 leaves at t_cut 16: no error")
	}
	if tries != 50 || !strings.Contains(err.Error(), "50 tries") || !strings.Contains(err.Error(), "200 to 200") {
		t.Errorf("200 leaves at t_cut 16: tries %d, error %q; want 50 tries, named in the error with the range", tries, err)
	}

	for _, tc := range []struct {
		name              string
		minL, maxL, tries int
		want              string
	}{
		{"min above max", 9, 5, 10, "greater than"},
		{"no tries", 5, 9, 0, "max_tries"},
		{"negative tries", 5, 9, -1, "max_tries"},
	} {
		if _, _, err := ginkgo.Conditioned(t.Context(), newRNG(1), p, tc.minL, tc.maxL, tc.tries); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want one mentioning %q", tc.name, err, tc.want)
		}
	}
}

// TestConditionedUnbounded: max_leaves ≤ 0 means no maximum, so a jet far above the typical size
// is accepted. W jets at t_cut 4 have mean 23.2 leaves (ginkgo.md §9) and a standard deviation of
// about 6, so 40 leaves is a ~3σ tail that a few hundred tries reach.
func TestConditionedUnbounded(t *testing.T) {
	p := preset(t, ginkgo.W, 4, false)
	for _, maxL := range []int{0, -1} {
		j, _, err := ginkgo.Conditioned(t.Context(), newRNG(3), p, 40, maxL, 100000)
		if err != nil {
			t.Fatalf("max %d: %v", maxL, err)
		}
		if len(j.Leaves) < 40 {
			t.Errorf("max %d: %d leaves, want ≥ 40", maxL, len(j.Leaves))
		}
	}
}

// TestConditionedTinyTCut: with no maximum, a t_cut so small that every jet grows past
// HardLeafLimit must fail with an error on the first try instead of exhausting memory or looping.
// At t_cut 1e-20 the expected size is ~1e8 leaves (the mean grows roughly like t_cut^−0.35 from
// ginkgo.md §9). Note: t_cut 1e-9 is not small enough: it gives jets of ~3e4 leaves, which succeed.
func TestConditionedTinyTCut(t *testing.T) {
	p := preset(t, ginkgo.QCD, 1e-20, false)
	_, tries, err := ginkgo.Conditioned(t.Context(), newRNG(1), p, 1, 0, 1000)
	if err == nil {
		t.Fatal("t_cut 1e-20 with no maximum: no error")
	}
	if tries != 1 || !strings.Contains(err.Error(), strconv.Itoa(ginkgo.HardLeafLimit)) || !strings.Contains(err.Error(), "t_cut") {
		t.Errorf("t_cut 1e-20: %d tries, error %q; want a failure on the first try naming the limit %d and t_cut",
			tries, err, ginkgo.HardLeafLimit)
	}
}

func BenchmarkGenerate(b *testing.B) {
	p := preset(b, ginkgo.QCD, 16, false)
	rng := newRNG(1)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := ginkgo.Generate(rng, p, 0); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "jets/s")
}

func BenchmarkConditioned(b *testing.B) {
	p := preset(b, ginkgo.QCD, 16, false)
	rng := newRNG(1)
	tries := 0
	b.ReportAllocs()
	for b.Loop() {
		_, n, err := ginkgo.Conditioned(b.Context(), rng, p, 5, 9, 1000)
		if err != nil {
			b.Fatal(err)
		}
		tries += n
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "jets/s")
	b.ReportMetric(float64(tries)/float64(b.N), "tries/jet")
}
