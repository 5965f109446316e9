package trellis

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/hcbench/hcbench/algorithms/model"
	"github.com/hcbench/hcbench/algorithms/model/ginkgo"
	gen "github.com/hcbench/hcbench/generators/ginkgo"
)

func TestGinkgoRootLambdaAgainstBruteForce(t *testing.T) {
	// W jets (λ = 1.5, λ_root = 3, t_cut 16) are the only ones whose root split has its own rate,
	// which the fast kernel sets in prepare for the full set alone. For both root_lambda rules and
	// N = 3 to 7, two jets each, under the Ginkgo 2020 likelihood (the one with a kernel): the
	// kernel, a MAP-only kernel pass and the generic path against enumeration, whose tree scores
	// come from the model (tolerances of checkAgainstBruteForce and checkMAPOnly). The two rules
	// must give different log Z, or the jets would not test the root's rate.
	p, err := gen.Preset(gen.W, 16)
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(7, 8))
	for n := 3; n <= 7; n++ {
		for range 2 {
			j, _, err := gen.Conditioned(t.Context(), rng, p, n, n, 1_000_000)
			if err != nil {
				t.Fatal(err)
			}
			if j.RootLambdaOrDefault() != 3 || j.Lambda != 1.5 {
				t.Fatalf("W jet with λ %v, λ_root %v", j.Lambda, j.RootLambdaOrDefault())
			}
			logZ := map[ginkgo.RootLambda]float64{}
			for _, rl := range []ginkgo.RootLambda{ginkgo.RootLambdaGenerative, ginkgo.RootLambdaUniform} {
				m, err := ginkgo.New(j.Leaves, ginkgo.Params{Lambda: j.Lambda, LambdaRoot: j.RootLambdaOrDefault(), TCut: j.TCut, RootLambda: rl})
				if err != nil {
					t.Fatal(err)
				}
				name := fmt.Sprintf("W N=%d root_lambda %v", n, rl)
				bf := enumerate(t, m)
				k := build(t, m, Options{blockBits: 2})
				checkAgainst(t, name+" kernel", m, k, bf)
				checkAgainst(t, name+" generic", m, build(t, m, Options{generic: true, blockBits: 2}), bf)
				checkMAPOnly(t, name, m, build(t, m, Options{MAPOnly: true, blockBits: 2}))
				logZ[rl] = k.LogZ()
			}
			if a, b := logZ[ginkgo.RootLambdaGenerative], logZ[ginkgo.RootLambdaUniform]; math.IsInf(a, -1) || !(math.Abs(a-b) > 1e-6) {
				t.Errorf("W N=%d: log Z %v with λ_root, %v without: the root's rate makes no difference", n, a, b)
			}
		}
	}
}

func TestGinkgoImpossibleJet(t *testing.T) {
	// A jet whose root has t below t_cut: every subset's invariant mass is at most the root's
	// (the leaves are physical 4-momenta), so every split is −Inf. Log Z and the MAP are −Inf
	// (not NaN), no tree has finite likelihood, MAPTree still gives a valid tree, no table entry
	// is NaN, and Marginals and Sample fail with ErrNoLogZ. For the fast kernel (MAP-only too),
	// over blocks of several sizes, and the generic path.
	p, err := gen.Preset(gen.QCD, 16)
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(2, 3))
	for _, n := range []int{2, 5, 9} {
		j, _, err := gen.Conditioned(t.Context(), rng, p, n, n, 1_000_000)
		if err != nil {
			t.Fatal(err)
		}
		// t_cut far above the root's t = M² = 900.
		m, err := ginkgo.New(j.Leaves, ginkgo.Params{Lambda: 1.5, LambdaRoot: 1.5, TCut: 1e6})
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range []struct {
			name string
			opts Options
		}{
			{"kernel", Options{}},
			{"kernel small blocks", Options{blockBits: 2}},
			{"kernel MAP-only", Options{MAPOnly: true}},
			{"generic", Options{generic: true}},
		} {
			name := fmt.Sprintf("N=%d %s", n, c.name)
			tr := build(t, m, c.opts)
			if !math.IsInf(tr.MAPValue(), -1) || (!c.opts.MAPOnly && !math.IsInf(tr.LogZ(), -1)) {
				t.Errorf("%s: log Z %v, MAP %v, want −Inf", name, tr.LogZ(), tr.MAPValue())
			}
			if cnt, exact := tr.Count(); cnt != 0 || !exact {
				t.Errorf("%s: count %v (exact %v), want 0", name, cnt, exact)
			}
			mt := tr.MAPTree()
			if err := mt.Validate(n); err != nil {
				t.Errorf("%s: MAP tree invalid: %v", name, err)
			} else if ll, _ := model.TreeLogLikelihood(m, mt); !math.IsInf(ll, -1) {
				t.Errorf("%s: MAP tree scores %v, want −Inf", name, ll)
			}
			for x, nd := range tr.nodes {
				if math.IsNaN(nd.m) || math.IsNaN(nd.z) || math.IsNaN(tr.count[x]) {
					t.Fatalf("%s: subset %v has NaN: %+v, count %v", name, Items(uint32(x)), nd, tr.count[x])
				}
			}
			if err := tr.Marginals(context.Background()); !errors.Is(err, ErrNoLogZ) {
				t.Errorf("%s: Marginals: %v, want ErrNoLogZ", name, err)
			}
			if _, err := tr.Sample(context.Background(), rand.New(rand.NewPCG(1, 1)), 3); !errors.Is(err, ErrNoLogZ) {
				t.Errorf("%s: Sample: %v, want ErrNoLogZ", name, err)
			}
		}
	}
}
