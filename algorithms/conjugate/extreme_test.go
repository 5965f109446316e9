package conjugate_test

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/hcbench/hcbench/algorithms/conjugate"
)

// scalePoints returns x times s, feature j also times feat[j] when feat is given.
func scalePoints(x [][]float64, s float64, feat ...float64) [][]float64 {
	out := make([][]float64, len(x))
	for i, row := range x {
		out[i] = make([]float64, len(row))
		for j, v := range row {
			out[i][j] = s * v
			if feat != nil {
				out[i][j] *= feat[j]
			}
		}
	}
	return out
}

// TestNIWExtremeScales is the audit of the NIW model at the edges of its accepted input: with the
// data recipe, scaling the data by s scales μ0 by s and Λ0 by s², so log p(D_c) must shift by
// exactly −|c|·d·log s (p is a density in |c|·d dimensions) and log p(x|D_c) by −d·log s. This
// holds for data scaled up to within MaxValue and with g at MinG and MaxG (Λ0 entries up to
// 1e239, whose pivots overflow a running product of two), for data scaled down to 1e-100, and
// for κ0 at MaxKappa0, and for features of very different scales (1e-70 and 1e-100, or 1e75 and
// 1e98: pivots whose running product would underflow or overflow); no value is NaN or infinite.
// A diagonal scaling A of the features shifts log p(D_c) by −|c|·log|det A| likewise. (At g = 1e40 the 2-point clusters' log p
// would be NaN: Λ0 is then below the rounding of their scatter; hence MaxG.)
func TestNIWExtremeScales(t *testing.T) {
	rng := rand.New(rand.NewPCG(21, 22))
	const n, d = 12, 3
	base := randomPoints(rng, n, d)
	for _, tc := range []struct {
		name     string
		s, g, k0 float64
		feat     []float64 // per-feature scales on top of s, or nil
	}{
		{"largest values, smallest g", 1e98, conjugate.MinG, 0.001, nil},
		{"largest values, largest g", 1e98, conjugate.MaxG, 0.001, nil},
		{"smallest values, smallest g", 1e-100, conjugate.MinG, 0.001, nil},
		{"largest κ0", 1, 20, conjugate.MaxKappa0, nil},
		{"largest values and κ0", 1e98, conjugate.MinG, conjugate.MaxKappa0, nil},
		{"tiny features of different scales", 1, 20, 0.001, []float64{1e-70, 1e-100, 1}},
		{"huge features of different scales", 1, conjugate.MinG, 0.001, []float64{1e75, 1e98, 1e50}},
	} {
		ref, err := conjugate.NIWFromData(base, tc.g, tc.k0)
		if err != nil {
			t.Fatal(err)
		}
		refM, err := conjugate.NewNIW(base, ref)
		if err != nil {
			t.Fatal(err)
		}
		x := scalePoints(base, tc.s, tc.feat...)
		p, err := conjugate.NIWFromData(x, tc.g, tc.k0)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		m, err := conjugate.NewNIW(x, p)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		st, refSt := m.NewStore(), refM.NewStore()
		items := make([]int, n)
		for i := range items {
			items[i] = i
		}
		ids, members := randomTree(rand.New(rand.NewPCG(1, 2)), st, items)
		refIDs, _ := randomTree(rand.New(rand.NewPCG(1, 2)), refSt, items)
		logS := math.Log(tc.s) // per feature: log|det A| = d·logS
		for _, f := range tc.feat {
			logS += math.Log(f) / d
		}
		for k, id := range ids {
			got, want := st.LogML(id), refSt.LogML(refIDs[k])-float64(len(members[k])*d)*logS
			if math.IsNaN(got) || math.IsInf(got, 0) || math.Abs(got-want) > 1e-8*max(1, math.Abs(want)) {
				t.Errorf("%s: log p of cluster %v is %v, want %v (unscaled %v)", tc.name, members[k], got, want, refSt.LogML(refIDs[k]))
			}
			pred, predWant := st.LogPredictive(id, x[0]), refSt.LogPredictive(refIDs[k], base[0])-float64(d)*logS
			if math.IsNaN(pred) || math.IsInf(pred, 0) || math.Abs(pred-predWant) > 1e-8*max(1, math.Abs(predWant)) {
				t.Errorf("%s: log p(x|D) of cluster %v is %v, want %v", tc.name, members[k], pred, predWant)
			}
		}
		if u := st.LogMLUnion(0, 1); math.IsNaN(u) || math.IsInf(u, 0) {
			t.Errorf("%s: LogMLUnion %v", tc.name, u)
		}
	}
}

// TestNIWRefusesOutsideDomain: data and hyperparameters beyond the bounds are refused with an
// error that names the value, where they would otherwise overflow into NaN or lose every digit.
func TestNIWRefusesOutsideDomain(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	x := randomPoints(rng, 10, 2)
	huge := scalePoints(x, 1e300)
	good := conjugate.NIWParams{Kappa0: 0.1, Nu0: 3, Mu0: []float64{0, 0}, Lambda0: [][]float64{{1, 0}, {0, 1}}}
	for _, tc := range []struct {
		name string
		x    [][]float64
		edit func(p *conjugate.NIWParams)
		want string
	}{
		{"values 1e300", huge, nil, "item 0 feature 0 is"},
		{"κ0 1e300", x, func(p *conjugate.NIWParams) { p.Kappa0 = 1e300 }, "κ0 must be at most 1e+100"},
		{"ν0 1e300", x, func(p *conjugate.NIWParams) { p.Nu0 = 1e300 }, "ν0 must be at most 1e+06"},
		{"μ0 1e300", x, func(p *conjugate.NIWParams) { p.Mu0 = []float64{1e300, 0} }, "μ0[0] is 1e+300"},
		{"Λ0 1e300", x, func(p *conjugate.NIWParams) { p.Lambda0 = [][]float64{{1e300, 0}, {0, 1}} }, "Λ0[0][0] is 1e+300"},
		{"Λ0 nearly singular", x, func(p *conjugate.NIWParams) { p.Lambda0 = [][]float64{{1, 0}, {0, 1e-310}} }, "too close to singular"},
	} {
		p := good
		if tc.edit != nil {
			tc.edit(&p)
		}
		if _, err := conjugate.NewNIW(tc.x, p); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want one containing %q", tc.name, err, tc.want)
		}
	}
	for _, tc := range []struct {
		name  string
		x     [][]float64
		g, k0 float64
		want  string
	}{
		{"values 1e300", huge, 20, 0.001, "beyond ±1e+100"},
		{"values 1e101", scalePoints(x, 1e101), 20, 0.001, "beyond ±1e+100"},
		{"g 1e-300", x, 1e-300, 0.001, "g must lie in [1e-40, 1e+06]"},
		{"g 1e300", x, 1e300, 0.001, "g must lie in"},
		{"κ0 1e300", x, 20, 1e300, "kappa0 must be at most 1e+100"},
		{"constant feature", [][]float64{{1, 5}, {2, 5}, {3, 5}, {4, 5}}, 20, 0.001, "singular"},
		{"tiny values (the covariance underflows)", scalePoints(x, 1e-200), 20, 0.001, "singular"},
	} {
		if _, err := conjugate.NIWFromData(tc.x, tc.g, tc.k0); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("NIWFromData %s: error %v, want one containing %q", tc.name, err, tc.want)
		}
	}
}

// TestNIWConstantFeatureExplicitPrior: with an explicit prior a constant feature is fine (Λ0 keeps
// every Λn positive definite), and every log p is a number.
func TestNIWConstantFeatureExplicitPrior(t *testing.T) {
	x := [][]float64{{1, 5}, {2, 5}, {3, 5}, {4, 5}, {1e99, 5}}
	m, err := conjugate.NewNIW(x, conjugate.NIWParams{Kappa0: 1e-3, Nu0: 3, Mu0: []float64{0, 5}, Lambda0: [][]float64{{1, 0}, {0, 1e-250}}})
	if err != nil {
		t.Fatal(err)
	}
	st := m.NewStore()
	all := st.Cluster([]int{0, 1, 2, 3, 4})
	for _, c := range []int{0, 4, st.Cluster([]int{0, 1, 2, 3}), all} {
		if v := st.LogML(c); math.IsNaN(v) || math.IsInf(v, 0) {
			t.Errorf("cluster %d: log p %v", c, v)
		}
		if v := st.LogPredictive(c, []float64{2, 5}); math.IsNaN(v) || math.IsInf(v, 1) {
			t.Errorf("cluster %d: log p(x|D) %v", c, v)
		}
	}
}

// TestDiscreteHugeHyperparameters: as cc grows, the Beta and Dirichlet priors of Bioconductor's
// recipe concentrate on θ_v = (c_v + 1)/(n + V), and log p(D_c) tends to Σ_j Σ_v c_vj·log θ_vj
// (1e-6 at cc = 1e300, and at 1e8 within 1e-5). lgamma(A + c) − lgamma(A) computed as a difference
// of two numbers near 7e302 would keep no digit; parameters whose sum overflows are refused.
func TestDiscreteHugeHyperparameters(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for _, v := range []int{2, 3} {
		x := randomValues(rng, 9, 4, v)
		n := len(x)
		for _, cc := range []float64{1e8, 1e300} {
			var m conjugate.Model
			var err error
			if v == 2 {
				a, b := conjugate.BernoulliFromData(x, cc)
				m, err = conjugate.NewBernoulli(x, a, b)
			} else {
				m, err = conjugate.NewCategorical(x, conjugate.CategoricalFromData(x, cc))
			}
			if err != nil {
				t.Fatal(err)
			}
			st := m.NewStore()
			for _, items := range [][]int{{0}, {0, 1, 2}, {3, 4, 5, 6, 7, 8}, {0, 1, 2, 3, 4, 5, 6, 7, 8}} {
				want := 0.0
				for j := range x[0] {
					counts := make([]float64, v)
					for _, i := range x {
						counts[int(i[j])]++
					}
					for _, i := range items {
						val := int(x[i][j])
						want += math.Log((counts[val] + 1) / float64(n+v))
					}
				}
				got := st.LogML(st.Cluster(items))
				tol := 1e-6
				if cc == 1e8 {
					tol = 1e-5
				}
				if math.IsNaN(got) || math.Abs(got-want) > tol*max(1, math.Abs(want)) {
					t.Errorf("V=%d cc=%g items %v: log p %v, the limit %v", v, cc, items, got, want)
				}
			}
		}
	}
	x := [][]float64{{0}, {1}}
	if _, err := conjugate.NewBernoulli(x, []float64{1e308}, []float64{1e308}); err == nil || !strings.Contains(err.Error(), "overflows") {
		t.Errorf("Beta(1e308, 1e308): error %v", err)
	}
	if _, err := conjugate.NewCategorical(x, [][]float64{{1e308}, {1e308}, {1e308}}); err == nil || !strings.Contains(err.Error(), "sum to +Inf") {
		t.Errorf("Dirichlet(1e308 ×3): error %v", err)
	}
}
