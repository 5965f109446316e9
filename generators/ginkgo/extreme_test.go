package ginkgo_test

import (
	"math"
	"strings"
	"testing"
	"time"

	"github.com/hcbench/hcbench/algorithms/model"
	likelihood "github.com/hcbench/hcbench/algorithms/model/ginkgo"
	"github.com/hcbench/hcbench/generators/ginkgo"
)

// TestExtremeParams is the audit of the shower for the values config validation accepts: at the
// ends of the ranges of mass, λ, λ_root and t_cut, jets come quickly (a rate of 1e-40 would need
// about 1e40 redraws of the reference's truncated exponential), every leaf is a physical 4-momentum
// (likelihood.CheckLeaf, as a jets file must have), and the likelihood of the truth tree, under
// both versions, is a number or −Inf, never NaN; where a score is −Inf or the jet is beyond what
// float64 resolves, the model says so in its warnings. Just beyond the ranges Generate refuses.
func TestExtremeParams(t *testing.T) {
	mom := ginkgo.DefaultMomentum
	for _, tc := range []struct {
		name string
		p    ginkgo.Params
	}{
		{"largest mass", ginkgo.Params{Mass: ginkgo.MaxMass, Momentum: mom, Lambda: 1.5, LambdaRoot: 1.5, TCut: ginkgo.MaxMass * ginkgo.MaxMass / 100}},
		{"largest momentum", ginkgo.Params{Mass: 30, Momentum: [3]float64{ginkgo.MaxMomentum, -ginkgo.MaxMomentum, 0}, Lambda: 1.5, LambdaRoot: 3, TCut: 16}},
		{"smallest rates", ginkgo.Params{Mass: 30, Momentum: mom, Lambda: likelihood.MinRate, LambdaRoot: likelihood.MinRate, TCut: 16}},
		{"rates just below the inversion threshold", ginkgo.Params{Mass: 30, Momentum: mom, Lambda: 9e-4, LambdaRoot: 9e-4, TCut: 16}},
		{"largest rates", ginkgo.Params{Mass: 30, Momentum: mom, Lambda: likelihood.MaxRate, LambdaRoot: likelihood.MaxRate, TCut: 16}},
		{"smallest t_cut, tiny mass", ginkgo.Params{Mass: 1e-19, Momentum: mom, Lambda: 1.5, LambdaRoot: 1.5, TCut: likelihood.MinTCut}},
		{"largest t_cut", ginkgo.Params{Mass: ginkgo.MaxMass, Momentum: mom, Lambda: 1.5, LambdaRoot: 1.5, TCut: likelihood.MaxTCut / 2}},
	} {
		start := time.Now()
		rng := newRNG(7)
		warned := 0
		for range 20 {
			j, _, err := ginkgo.Conditioned(t.Context(), rng, tc.p, 1, 40, 1000)
			if err != nil {
				t.Fatalf("%s: %v", tc.name, err)
			}
			for i, l := range j.Leaves {
				if err := likelihood.CheckLeaf(l); err != nil {
					t.Fatalf("%s: leaf %d %v", tc.name, i, err)
				}
			}
			tr, err := j.TruthTree()
			if err != nil {
				t.Fatal(err)
			}
			for _, v := range []likelihood.Version{likelihood.Version2020, likelihood.Version2021} {
				m, err := likelihood.New(j.Leaves, likelihood.Params{Lambda: j.Lambda, LambdaRoot: j.LambdaRoot, TCut: j.TCut, Version: v})
				if err != nil {
					t.Fatalf("%s: %v", tc.name, err)
				}
				ll, err := model.TreeLogLikelihood(m, tr)
				if err != nil {
					t.Fatal(err)
				}
				w := m.Warnings()
				if len(w) > 0 {
					warned++
				}
				if math.IsNaN(ll) || math.IsInf(ll, 1) || (math.IsInf(ll, -1) && len(tr.Nodes) > 1 && len(w) == 0) {
					t.Fatalf("%s %v: truth tree of %d leaves scores %v with warnings %q", tc.name, v, len(j.Leaves), ll, w)
				}
			}
		}
		if d := time.Since(start); d > 10*time.Second {
			t.Errorf("%s: 20 jets took %v", tc.name, d)
		}
		t.Logf("%s: %d of 40 models with warnings", tc.name, warned)
	}
	good := ginkgo.Params{Mass: 30, Momentum: mom, Lambda: 1.5, LambdaRoot: 1.5, TCut: 16}
	for _, tc := range []struct {
		name string
		edit func(p *ginkgo.Params)
		want string
	}{
		{"mass 1e300", func(p *ginkgo.Params) { p.Mass = 1e300 }, "mass must be at most 1e+50"},
		{"lambda 1e-300", func(p *ginkgo.Params) { p.Lambda = 1e-300 }, "lambda is 1e-300, outside [1e-40, 1e+40]"},
		{"lambda_root 1e300", func(p *ginkgo.Params) { p.LambdaRoot = 1e300 }, "lambda_root is 1e+300"},
		{"t_cut 1e-300", func(p *ginkgo.Params) { p.TCut = 1e-300 }, "t_cut is 1e-300"},
		{"momentum 1e300", func(p *ginkgo.Params) { p.Momentum[2] = 1e300 }, "momentum component 2"},
	} {
		p := good
		tc.edit(&p)
		if _, err := ginkgo.Generate(newRNG(1), p, 0); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want one containing %q", tc.name, err, tc.want)
		}
	}
}

// TestSmallRateByInversion: below the threshold where the reference's redrawing would be slow,
// the first-drawn child's mass fraction r = t_L/t still follows the truncated exponential: for
// λ = 1e-40 it is uniform on [0, 0.999) (mean 0.4995, and a quarter of the draws below 0.24975).
func TestSmallRateByInversion(t *testing.T) {
	p := ginkgo.Params{Mass: 30, Momentum: ginkgo.DefaultMomentum, Lambda: 1e-40, LambdaRoot: 1e-40, TCut: 16}
	rng := newRNG(11)
	const n = 4000
	sum, low := 0.0, 0
	for range n {
		j, err := ginkgo.Generate(rng, p, 0)
		if err != nil {
			t.Fatal(err)
		}
		r := 0.0
		if len(j.Tree) > 1 {
			r = j.Deltas[j.Tree[0][0]] / j.Delta0 // 0 when the left child is a leaf
			if r == 0 {
				r = likelihood.MassSquared(j.Content[j.Tree[0][0]]) / j.Delta0
			}
		}
		sum += r
		if r < 0.999/4 {
			low++
		}
	}
	// Standard errors: 0.289/√n ≈ 0.0046 for the mean, √(3/16/n) ≈ 0.0068 for the fraction.
	if m := sum / n; math.Abs(m-0.4995) > 0.025 {
		t.Errorf("mean r %v, want 0.4995", m)
	}
	if f := float64(low) / n; math.Abs(f-0.25) > 0.035 {
		t.Errorf("fraction below 0.24975: %v, want 0.25", f)
	}
}
