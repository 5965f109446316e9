package ginkgo_test

import (
	"math"
	"strings"
	"testing"

	"github.com/hcbench/hcbench/algorithms/model"
	"github.com/hcbench/hcbench/algorithms/model/ginkgo"
	gen "github.com/hcbench/hcbench/generators/ginkgo"
)

// scaleLeaves returns the leaves multiplied by s (which scales every mass² by s²).
func scaleLeaves(leaves [][4]float64, s float64) [][4]float64 {
	out := make([][4]float64, len(leaves))
	for i, l := range leaves {
		out[i] = [4]float64{s * l[0], s * l[1], s * l[2], s * l[3]}
	}
	return out
}

// TestExtremeInputsNoNaN is the audit of the likelihood at the edges of its domain (New's bounds):
// λ and λ_root at MinRate and MaxRate, t_cut at MinTCut and MaxTCut, leaves scaled up to within
// MaxComponent or down to 1e-15 (with t_cut scaled alike), massless and collinear leaves. For both
// versions and both root rules, every split of every subset (the subset scorer, which the trellis
// uses) and every merge-order split (the cluster store, which greedy and beam use) is a number or
// −Inf, never NaN or +Inf, and the two agree; the truth tree's score is not NaN, and for a jet
// scaled with its t_cut it stays finite (the formula sees only ratios and logs of the scale).
func TestExtremeInputsNoNaN(t *testing.T) {
	j := genJets(t, gen.QCD, 16, false, 1, 3)[0]
	for len(j.Leaves) < 5 || len(j.Leaves) > 9 {
		j = genJets(t, gen.QCD, 16, false, 1, uint64(len(j.Leaves))+100)[0]
	}
	tr, err := j.TruthTree()
	if err != nil {
		t.Fatal(err)
	}
	// The largest scale that keeps every component within MaxComponent.
	big := 0.0
	for _, l := range j.Leaves {
		big = max(big, math.Abs(l[0]))
	}
	big = ginkgo.MaxComponent / big
	collinear := [][4]float64{{1, 0, 0, 1}, {2, 0, 0, 2}, {3, 0, 0, 3}, {1e-3, 0, 1e-3, 0}, {5, 3, 0, 4}}
	for _, tc := range []struct {
		name        string
		leaves      [][4]float64
		lam, lamR   float64
		tCut        float64
		truthFinite bool // the truth tree (of j) must score a finite value
	}{
		{"reference", j.Leaves, 1.5, 1.5, 16, true},
		{"smallest rates", j.Leaves, ginkgo.MinRate, ginkgo.MinRate, 16, true},
		{"largest rates", j.Leaves, ginkgo.MaxRate, ginkgo.MaxRate, 16, true},
		{"smallest rate, largest root rate", j.Leaves, ginkgo.MinRate, ginkgo.MaxRate, 16, true},
		{"smallest t_cut", j.Leaves, 1.5, 1.5, ginkgo.MinTCut, true},
		{"largest t_cut", j.Leaves, 1.5, 1.5, ginkgo.MaxTCut, false},
		{"smallest rates and t_cut", j.Leaves, ginkgo.MinRate, ginkgo.MinRate, ginkgo.MinTCut, true},
		{"largest rates, smallest t_cut", j.Leaves, ginkgo.MaxRate, ginkgo.MaxRate, ginkgo.MinTCut, true},
		{"smallest rates, largest t_cut", j.Leaves, ginkgo.MinRate, ginkgo.MinRate, ginkgo.MaxTCut, false},
		{"largest momenta", scaleLeaves(j.Leaves, big), 1.5, 1.5, 16 * big * big, true},
		{"largest momenta, smallest rates", scaleLeaves(j.Leaves, big), ginkgo.MinRate, ginkgo.MinRate, 16 * big * big, true},
		{"largest momenta, largest rates", scaleLeaves(j.Leaves, big), ginkgo.MaxRate, ginkgo.MaxRate, 16 * big * big, true},
		{"largest momenta, smallest t_cut", scaleLeaves(j.Leaves, big), 1.5, 1.5, ginkgo.MinTCut, true},
		{"tiny momenta", scaleLeaves(j.Leaves, 1e-15), 1.5, 1.5, 16e-30, true},
		{"tiny momenta, smallest t_cut", scaleLeaves(j.Leaves, 1e-15), ginkgo.MaxRate, ginkgo.MinRate, ginkgo.MinTCut, true},
		{"massless collinear", collinear, ginkgo.MinRate, ginkgo.MaxRate, ginkgo.MinTCut, false},
		{"massless collinear, largest momenta", scaleLeaves(collinear, ginkgo.MaxComponent/5), ginkgo.MaxRate, ginkgo.MinRate, ginkgo.MinTCut, false},
	} {
		for _, v := range versions {
			for _, rl := range []ginkgo.RootLambda{ginkgo.RootLambdaGenerative, ginkgo.RootLambdaUniform} {
				p := ginkgo.Params{Lambda: tc.lam, LambdaRoot: tc.lamR, TCut: tc.tCut, Version: v, RootLambda: rl}
				m, err := ginkgo.New(tc.leaves, p)
				if err != nil {
					t.Fatalf("%s: New: %v", tc.name, err)
				}
				checkAllSplits(t, tc.name+" "+v.String()+" "+rl.String(), m)
				if len(tc.leaves) != len(j.Leaves) {
					continue
				}
				ll, err := model.TreeLogLikelihood(m, tr)
				if err != nil {
					t.Fatal(err)
				}
				if math.IsNaN(ll) || math.IsInf(ll, 1) || (tc.truthFinite && math.IsInf(ll, -1)) {
					t.Errorf("%s %v %v: truth tree scores %v", tc.name, v, rl, ll)
				}
			}
		}
	}
}

// checkAllSplits scores every split of every subset of the model's leaves through the subset
// scorer and through the cluster store, and fails on NaN, +Inf or a disagreement.
func checkAllSplits(t *testing.T, name string, m *ginkgo.Model) {
	t.Helper()
	n := m.Items()
	s, err := m.NewSubsetScorer()
	if err != nil {
		t.Fatal(err)
	}
	items := func(x uint32) []int {
		var out []int
		for i := range n {
			if x&(1<<i) != 0 {
				out = append(out, i)
			}
		}
		return out
	}
	finite := 0
	for x := uint32(3); x < 1<<n; x++ {
		if x&(x-1) == 0 {
			continue
		}
		low := x & -x
		for l := (x - 1) & x; l > 0; l = (l - 1) & x {
			if l&low == 0 { // each unordered split once
				continue
			}
			r := x ^ l
			got := s.LogPsi(l, r)
			c := m.NewClusters()
			want := c.LogPsi(c.Cluster(items(l)), c.Cluster(items(r)))
			if math.IsNaN(got) || math.IsInf(got, 1) || math.IsNaN(want) || math.IsInf(want, 1) {
				t.Fatalf("%s: split %b | %b: subset scorer %v, cluster store %v", name, l, r, got, want)
			}
			if math.IsInf(got, -1) != math.IsInf(want, -1) || (!math.IsInf(got, -1) && math.Abs(got-want) > 1e-9*max(1, math.Abs(want))) {
				t.Fatalf("%s: split %b | %b: subset scorer %v, cluster store %v", name, l, r, got, want)
			}
			if !math.IsInf(got, -1) {
				finite++
			}
		}
	}
	t.Logf("%s: %d finite splits", name, finite)
}

// TestNewRefusesOutsideDomain: just outside each bound of New, the model is refused with a
// message naming the parameter or the leaf and its component (inside, TestExtremeInputsNoNaN).
func TestNewRefusesOutsideDomain(t *testing.T) {
	leaves := [][4]float64{{10, 0, 0, 1}, {10, 0, 1, 0}}
	for _, tc := range []struct {
		name   string
		leaves [][4]float64
		edit   func(p *ginkgo.Params)
		want   string
	}{
		{"lambda below MinRate", leaves, func(p *ginkgo.Params) { p.Lambda = ginkgo.MinRate / 2 }, "lambda is 5e-41, outside [1e-40, 1e+40]"},
		{"lambda above MaxRate", leaves, func(p *ginkgo.Params) { p.Lambda = ginkgo.MaxRate * 2 }, "lambda is 2e+40"},
		{"lambda_root 1e-300", leaves, func(p *ginkgo.Params) { p.LambdaRoot = 1e-300 }, "lambda_root is 1e-300"},
		{"t_cut below MinTCut", leaves, func(p *ginkgo.Params) { p.TCut = 1e-300 }, "t_cut is 1e-300"},
		{"t_cut above MaxTCut", leaves, func(p *ginkgo.Params) { p.TCut = 1e300 }, "t_cut is 1e+300"},
		{"component beyond MaxComponent", [][4]float64{{1, 0, 0, 0}, {1e308, 0, 0, 1e308}}, nil, "leaf 1 has E = 1e+308, beyond ±1e+100"},
		{"space component beyond MaxComponent", [][4]float64{{1, 0, 0, 0}, {1, 0, -2e100, 0}}, nil, "leaf 1 has py = -2e+100"},
	} {
		p := qcd16(ginkgo.Version2020)
		if tc.edit != nil {
			tc.edit(&p)
		}
		if _, err := ginkgo.New(tc.leaves, p); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want one containing %q", tc.name, err, tc.want)
		}
	}
}

// TestCheckLeaf: the physical-leaf rules that jets files must follow, with the tolerance for
// rounding of light leaves.
func TestCheckLeaf(t *testing.T) {
	tol := ginkgo.MassTolerance
	for _, tc := range []struct {
		name string
		leaf [4]float64
		want string // "" for accepted
	}{
		{"massive", [4]float64{10, 1, 2, 3}, ""},
		{"massless", [4]float64{5, 3, 0, 4}, ""},
		{"at rest", [4]float64{1, 0, 0, 0}, ""},
		{"slightly space-like (rounding)", [4]float64{1, 1 + tol/4, 0, 0}, ""},
		{"tiny and massless", [4]float64{1e-300, 0, 1e-300, 0}, ""},
		{"largest", [4]float64{1e100, 1e100, 0, 0}, ""},
		{"heavier than any t_cut", [4]float64{1e100, 0, 0, 0}, ""},
		{"zero", [4]float64{}, "zero 4-momentum"},
		{"negative energy", [4]float64{-10, 1, 2, 3}, "energy E = -10"},
		{"zero energy", [4]float64{0, 1, 0, 0}, "energy E = 0"},
		{"space-like", [4]float64{3, 0, 4, 0}, "space-like: E = 3 < |p⃗| = 4 (mass² E² − |p⃗|² = -7"},
		{"space-like beyond rounding", [4]float64{1, 1 + 4*tol, 0, 0}, "space-like"},
		{"tiny and space-like", [4]float64{1e-300, 0, 2e-300, 0}, "space-like"},
		{"huge and space-like", [4]float64{0.5e100, 0, 0, -1e100}, "space-like"},
		{"1e308", [4]float64{1e308, 0, 0, 0}, "E = 1e+308, beyond ±1e+100"},
		{"NaN", [4]float64{1, math.NaN(), 0, 0}, "px = NaN, not a finite number"},
		{"Inf", [4]float64{math.Inf(1), 0, 0, 0}, "E = +Inf, not a finite number"},
	} {
		err := ginkgo.CheckLeaf(tc.leaf)
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("%s %v: %v", tc.name, tc.leaf, err)
		case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
			t.Errorf("%s %v: error %v, want one containing %q", tc.name, tc.leaf, err, tc.want)
		}
	}
}

// TestWarnings: what the model scores but the generator cannot make is reported, once per kind;
// the public and generated jets have no warnings.
func TestWarnings(t *testing.T) {
	heavy := [][4]float64{{10, 0, 0, 1}, {10, 0, 1, 0}, {30, 0, 0, 0}, {5, 3, 0, 4}} // masses² 99, 99, 900, 0
	light := [][4]float64{{10, 0, 0, 10 * (1 + 1e-8)}, {10, 0, 0, -10}}              // mass² ≈ −2e-6
	for _, tc := range []struct {
		name   string
		leaves [][4]float64
		p      ginkgo.Params
		want   []string
	}{
		{"heavy leaves 2020", heavy, qcd16(ginkgo.Version2020),
			[]string{"leaves 0, 1 and 2 have a mass² above t_cut 16 (the largest 900)", "ginkgo2020 scores it all the same (a leaf's t is taken as 0)"}},
		{"heavy leaves 2021", heavy, qcd16(ginkgo.Version2021), []string{"leaves 0, 1 and 2 have a mass² above t_cut 16", "internal child's density"}},
		{"heavy leaf at t_cut", [][4]float64{{5, 3, 0, 0}, {5, 0, 0, -3}}, qcd16(ginkgo.Version2020), nil}, // masses² 16: allowed
		{"negative mass² 2021", light, qcd16(ginkgo.Version2021), []string{"leaf 0 has a mass² slightly below 0", "every tree scores −Inf"}},
		{"negative mass² 2020", light, qcd16(ginkgo.Version2020), nil}, // the 2020 formula ignores leaf masses
		{"tiny t_cut", [][4]float64{{400, 0, 0, 399}, {1, 0, 0, 0}}, ginkgo.Params{Lambda: 1.5, LambdaRoot: 1.5, TCut: 1e-8}, []string{"t_cut 1e-08 is below 1e-12 of the squared total energy 1.608e+05"}},
		{"not physical", [][4]float64{{10, 0, 0, 1}, {-1, 0, 0, 0}}, qcd16(ginkgo.Version2020), []string{"leaf 1 has a 4-momentum that is not a particle's (leaf 1 has energy E = -1"}},
	} {
		m := newModel(t, tc.leaves, tc.p)
		got := strings.Join(m.Warnings(), "\n")
		if len(tc.want) == 0 && got != "" {
			t.Errorf("%s: warnings %q, want none", tc.name, got)
		}
		for _, w := range tc.want {
			if !strings.Contains(got, w) {
				t.Errorf("%s: warnings %q, want one containing %q", tc.name, got, w)
			}
		}
	}
	// Generated jets (both types, a small and a large t_cut) and their likelihoods: no warnings.
	for _, jt := range []string{gen.QCD, gen.W} {
		for _, tc := range []float64{0.09, 16} {
			for _, j := range genJets(t, jt, tc, true, 30, 9) {
				for _, v := range versions {
					if w := newModel(t, j.Leaves, paramsOf(&j, v, ginkgo.RootLambdaGenerative)).Warnings(); len(w) > 0 {
						t.Errorf("%s t_cut %v %v: generated jet has warnings %q", jt, tc, v, w)
					}
				}
			}
		}
	}
}

// TestLeafListWording checks the enumeration of many leaves in a warning.
func TestLeafListWording(t *testing.T) {
	var leaves [][4]float64
	for range 8 {
		leaves = append(leaves, [4]float64{100, 0, 0, 0})
	}
	w := newModel(t, leaves, qcd16(ginkgo.Version2020)).Warnings()
	if len(w) != 1 || !strings.HasPrefix(w[0], "leaves 0, 1, 2, 3, 4 and 3 more have a mass² above t_cut 16") {
		t.Errorf("warnings %q", w)
	}
}
