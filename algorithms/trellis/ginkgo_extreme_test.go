package trellis

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/hcbench/hcbench/algorithms/model/ginkgo"
	gen "github.com/hcbench/hcbench/generators/ginkgo"
)

// relClose compares two log-values that may be −Inf or of any size (the largest rates give
// log-likelihoods near −1e40): equal infinities, or within tol relative to the larger magnitude
// (and 1e-10 absolute near 0).
func relClose(a, b, tol float64) bool {
	if math.IsInf(a, -1) || math.IsInf(b, -1) {
		return a == b
	}
	return math.Abs(a-b) <= tol*max(1, math.Abs(a), math.Abs(b))
}

// TestGinkgoKernelExtremeParams audits the fast kernel at the edges of the likelihood's domain
// (ginkgo.New's bounds on λ, λ_root, t_cut and the momenta): on 6-leaf jets, the kernel (full and
// MAP-only, small and whole blocks) must hold no NaN in any table and agree with the generic path,
// which scores splits through the model, and with enumeration of all 945 trees (1e-9 relative:
// values reach 1e40).
func TestGinkgoKernelExtremeParams(t *testing.T) {
	p, err := gen.Preset(gen.QCD, 16)
	if err != nil {
		t.Fatal(err)
	}
	j, _, err := gen.Conditioned(t.Context(), rand.New(rand.NewPCG(3, 4)), p, 6, 6, 1_000_000)
	if err != nil {
		t.Fatal(err)
	}
	scale := func(s float64) [][4]float64 {
		out := make([][4]float64, len(j.Leaves))
		for i, l := range j.Leaves {
			out[i] = [4]float64{s * l[0], s * l[1], s * l[2], s * l[3]}
		}
		return out
	}
	big := ginkgo.MaxComponent / 500 // the root energy is about 401
	for _, tc := range []struct {
		name      string
		leaves    [][4]float64
		lam, lamR float64
		tCut      float64
		trees     int // the number of trees of finite likelihood: all 945, or those the t_cut allows
	}{
		{"smallest rates", j.Leaves, ginkgo.MinRate, ginkgo.MinRate, 16, 735},
		{"largest rates", j.Leaves, ginkgo.MaxRate, ginkgo.MaxRate, 16, 735},
		{"smallest rate, largest root rate", j.Leaves, ginkgo.MinRate, ginkgo.MaxRate, 16, 735},
		{"smallest t_cut", j.Leaves, 1.5, 3, ginkgo.MinTCut, 945},
		{"largest t_cut", j.Leaves, 1.5, 3, ginkgo.MaxTCut, 0},
		{"smallest rates and t_cut", j.Leaves, ginkgo.MinRate, ginkgo.MinRate, ginkgo.MinTCut, 945},
		{"largest rates, smallest t_cut", j.Leaves, ginkgo.MaxRate, ginkgo.MaxRate, ginkgo.MinTCut, 945},
		{"largest momenta", scale(big), 1.5, 3, 16 * big * big, 735},
		{"largest momenta and rates, smallest t_cut", scale(big), ginkgo.MaxRate, ginkgo.MaxRate, ginkgo.MinTCut, 945},
		{"tiny momenta", scale(1e-15), ginkgo.MinRate, ginkgo.MaxRate, 16e-30, 735},
	} {
		for _, rl := range []ginkgo.RootLambda{ginkgo.RootLambdaGenerative, ginkgo.RootLambdaUniform} {
			m, err := ginkgo.New(tc.leaves, ginkgo.Params{Lambda: tc.lam, LambdaRoot: tc.lamR, TCut: tc.tCut, RootLambda: rl})
			if err != nil {
				t.Fatalf("%s: %v", tc.name, err)
			}
			name := fmt.Sprintf("%s, root_lambda %v", tc.name, rl)
			bf := enumerate(t, m)
			if bf.count != tc.trees {
				t.Errorf("%s: %d trees of finite likelihood, want %d (an underflow or overflow made some −Inf)", name, bf.count, tc.trees)
			}
			g := build(t, m, Options{generic: true})
			for _, opts := range []Options{{blockBits: 2}, {}, {MAPOnly: true, blockBits: 2}, {MAPOnly: true, NoCount: true}} {
				k := build(t, m, opts)
				for x, nd := range k.nodes {
					if math.IsNaN(nd.t) || math.IsNaN(nd.s) || math.IsNaN(nd.m) || math.IsNaN(nd.z) || (k.count != nil && math.IsNaN(k.count[x])) {
						t.Fatalf("%s %+v: subset %v holds NaN: %+v", name, opts, Items(uint32(x)), nd)
					}
				}
				if !relClose(k.MAPValue(), bf.mapValue, 1e-9) || !relClose(k.MAPValue(), g.MAPValue(), 1e-9) {
					t.Errorf("%s %+v: MAP %v, generic %v, enumeration %v", name, opts, k.MAPValue(), g.MAPValue(), bf.mapValue)
				}
				if !opts.MAPOnly && (!relClose(k.LogZ(), bf.logZ, 1e-9) || !relClose(k.LogZ(), g.LogZ(), 1e-9)) {
					t.Errorf("%s %+v: log Z %v, generic %v, enumeration %v", name, opts, k.LogZ(), g.LogZ(), bf.logZ)
				}
				if c, exact := k.Count(); !opts.NoCount && (!exact || c != float64(bf.count)) {
					t.Errorf("%s %+v: count %v, enumeration %d", name, opts, c, bf.count)
				}
			}
			t.Logf("%s: log Z %v, MAP %v, %d finite trees", name, bf.logZ, bf.mapValue, bf.count)
		}
	}
}
