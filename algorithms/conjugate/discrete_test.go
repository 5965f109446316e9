package conjugate_test

import (
	"errors"
	"math"
	"math/big"
	"math/rand/v2"
	"strings"
	"testing"

	"gonum.org/v1/gonum/floats/scalar"

	"github.com/hcbench/hcbench/algorithms/conjugate"
)

// randomValues draws n × d values in 0..v−1, feature j biased towards value j mod v.
func randomValues(rng *rand.Rand, n, d, v int) [][]float64 {
	x := make([][]float64, n)
	for i := range x {
		x[i] = make([]float64, d)
		for j := range x[i] {
			if rng.Float64() < 0.4 {
				x[i][j] = float64(j % v)
			} else {
				x[i][j] = float64(rng.IntN(v))
			}
		}
	}
	return x
}

// logSigmoid returns log(1/(1 + e^−u)) without overflow.
func logSigmoid(u float64) float64 {
	if u >= 0 {
		return -math.Log1p(math.Exp(-u))
	}
	return u - math.Log1p(math.Exp(u))
}

// betaIntegral returns ∫_0^1 θ^(p−1) (1−θ)^(q−1) dθ by tanh-sinh quadrature: θ = σ(π sinh t),
// dθ = θ(1−θ) π cosh t dt, the trapezoid rule with step 1/64 on t ∈ [−8, 8]. The substitution
// absorbs the endpoint singularities of p, q < 1, and the rule converges double-exponentially;
// for p, q ≥ 0.1 the tails beyond |t| = 8 are below e^−700.
func betaIntegral(p, q float64) float64 {
	const h = 1.0 / 64
	sum := 0.0
	for k := -8 * 64; k <= 8*64; k++ {
		t := float64(k) * h
		u := math.Pi * math.Sinh(t)
		sum += math.Exp(p*logSigmoid(u)+q*logSigmoid(-u)) * math.Pi * math.Cosh(t)
	}
	return sum * h
}

func TestBernoulliAgainstIntegration(t *testing.T) {
	// p(D) = Π_j ∫ Π_i θ^x_ij (1−θ)^(1−x_ij) Beta(θ; a_j, b_j) dθ, the integral and the Beta
	// normaliser both by numerical quadrature (no lgamma): log p to 1e-8 absolute, for a, b in
	// [0.1, 5] and up to 30 items.
	rng := rand.New(rand.NewPCG(11, 11))
	for range 30 {
		n, d := 1+rng.IntN(30), 1+rng.IntN(6)
		x := randomValues(rng, n, d, 2)
		a, b := make([]float64, d), make([]float64, d)
		for j := range d {
			a[j], b[j] = 0.1+4.9*rng.Float64(), 0.1+4.9*rng.Float64()
		}
		m, err := conjugate.NewBernoulli(x, a, b)
		if err != nil {
			t.Fatal(err)
		}
		s := m.NewStore()
		items := rng.Perm(n)
		got := s.LogML(s.Cluster(items))
		want := 0.0
		for j := range d {
			ones := 0
			for i := range n {
				ones += int(x[i][j])
			}
			want += math.Log(betaIntegral(a[j]+float64(ones), b[j]+float64(n-ones)) / betaIntegral(a[j], b[j]))
		}
		if math.Abs(got-want) > 1e-8 {
			t.Fatalf("n=%d d=%d: log p(D) = %v, quadrature %v (diff %g)", n, d, got, want, got-want)
		}
	}
}

// rising returns the rising factorial a(a+1)…(a+k−1) exactly.
func rising(a *big.Rat, k int) *big.Rat {
	out := big.NewRat(1, 1)
	for i := range k {
		out.Mul(out, new(big.Rat).Add(a, big.NewRat(int64(i), 1)))
	}
	return out
}

// factorial returns k! exactly.
func factorial(k int) *big.Rat {
	return new(big.Rat).SetInt(new(big.Int).MulRange(1, int64(max(k, 1))))
}

// betaInt returns the Beta function B(p, q) = (p−1)!(q−1)!/(p+q−1)! of positive integers,
// exactly.
func betaInt(p, q int) *big.Rat {
	out := new(big.Rat).Mul(factorial(p-1), factorial(q-1))
	return out.Quo(out, factorial(p+q-1))
}

func TestBernoulliByEnumeration(t *testing.T) {
	// Direct enumeration of all 2^(n·d) binary data sets of n items and d features. For each,
	// p(D|H1) = Π_j ∫ θ^m_j (1−θ)^(n−m_j) Beta(θ; a_j, b_j) dθ is computed exactly in rational
	// arithmetic (math/big), as Π_j a_j^(m_j) b_j^(n−m_j) / (a_j+b_j)^(n) with rising factorials
	// x^(k) = x(x+1)…(x+k−1), which holds for any rational a, b; for integer a, b it must equal
	// B(a+m, b+n−m)/B(a, b) with B from factorials, exactly. LogML must agree with the log of the
	// exact value to 1e-12 absolute (rounding of a few lgamma terms), the exact probabilities of
	// all data sets must sum to exactly 1, and exp(LogML) to 1 within 1e-12.
	cases := []struct {
		n    int
		a, b []*big.Rat
	}{
		{8, []*big.Rat{big.NewRat(1, 1)}, []*big.Rat{big.NewRat(1, 1)}},
		{10, []*big.Rat{big.NewRat(2, 1)}, []*big.Rat{big.NewRat(5, 1)}},
		{9, []*big.Rat{big.NewRat(1, 2)}, []*big.Rat{big.NewRat(1, 2)}},
		{4, []*big.Rat{big.NewRat(3, 1), big.NewRat(1, 4)}, []*big.Rat{big.NewRat(1, 1), big.NewRat(7, 3)}},
		{3, []*big.Rat{big.NewRat(1, 10), big.NewRat(4, 1), big.NewRat(5, 2)}, []*big.Rat{big.NewRat(9, 5), big.NewRat(2, 1), big.NewRat(1, 3)}},
	}
	for _, c := range cases {
		d := len(c.a)
		af, bf := make([]float64, d), make([]float64, d)
		for j := range d {
			af[j], _ = c.a[j].Float64()
			bf[j], _ = c.b[j].Float64()
		}
		total := new(big.Rat)
		sum, worst := 0.0, 0.0
		for code := range 1 << (c.n * d) {
			x := make([][]float64, c.n)
			ones := make([]int, d)
			for i := range x {
				x[i] = make([]float64, d)
				for j := range d {
					if code>>(i*d+j)&1 == 1 {
						x[i][j] = 1
						ones[j]++
					}
				}
			}
			exact := big.NewRat(1, 1)
			for j := range d {
				f := new(big.Rat).Mul(rising(c.a[j], ones[j]), rising(c.b[j], c.n-ones[j]))
				f.Quo(f, rising(new(big.Rat).Add(c.a[j], c.b[j]), c.n))
				if c.a[j].IsInt() && c.b[j].IsInt() {
					ai, bi := int(c.a[j].Num().Int64()), int(c.b[j].Num().Int64())
					direct := new(big.Rat).Quo(betaInt(ai+ones[j], bi+c.n-ones[j]), betaInt(ai, bi))
					if direct.Cmp(f) != 0 {
						t.Fatalf("n=%d: rising factorials %v, factorial Beta functions %v", c.n, f, direct)
					}
				}
				exact.Mul(exact, f)
			}
			total.Add(total, exact)
			m, err := conjugate.NewBernoulli(x, af, bf)
			if err != nil {
				t.Fatal(err)
			}
			s := m.NewStore()
			items := make([]int, c.n)
			for i := range items {
				items[i] = i
			}
			got := s.LogML(s.Cluster(items))
			ef, _ := exact.Float64()
			worst = max(worst, math.Abs(got-math.Log(ef)))
			if math.Abs(got-math.Log(ef)) > 1e-12 {
				t.Fatalf("n=%d d=%d data %b: log p(D) = %.17g, exact %.17g", c.n, d, code, got, math.Log(ef))
			}
			sum += math.Exp(got)
		}
		if total.Cmp(big.NewRat(1, 1)) != 0 {
			t.Errorf("n=%d d=%d: the exact probabilities sum to %v", c.n, d, total)
		}
		if math.Abs(sum-1) > 1e-12 {
			t.Errorf("n=%d d=%d: Σ exp(LogML) over all data sets = %.17g", c.n, d, sum)
		}
		t.Logf("n=%d d=%d: %d data sets, max |Δ log p| %.3g, |Σp − 1| %.3g", c.n, d, 1<<(c.n*d), worst, math.Abs(sum-1))
	}
}

func TestBernoulliIsTwoValueCategorical(t *testing.T) {
	// The Beta-Bernoulli model is the Dirichlet-categorical one with A = [[b], [a]] (bayesian.md
	// §5.2): every node of a random merge order agrees to 1e-12 abs or rel, and so does
	// LogPredictive.
	rng := rand.New(rand.NewPCG(12, 12))
	for range 10 {
		n, d := 2+rng.IntN(30), 1+rng.IntN(20)
		x := randomValues(rng, n, d, 2)
		a, b := make([]float64, d), make([]float64, d)
		for j := range d {
			a[j], b[j] = 0.05+3*rng.Float64(), 0.05+3*rng.Float64()
		}
		mb, err := conjugate.NewBernoulli(x, a, b)
		if err != nil {
			t.Fatal(err)
		}
		mc, err := conjugate.NewCategorical(x, [][]float64{b, a})
		if err != nil {
			t.Fatal(err)
		}
		sb, sc := mb.NewStore(), mc.NewStore()
		perm := rng.Perm(n)
		ib, _ := randomTree(rand.New(rand.NewPCG(1, 2)), sb, perm)
		ic, _ := randomTree(rand.New(rand.NewPCG(1, 2)), sc, perm)
		y := randomValues(rng, 1, d, 2)[0]
		for k := range ib {
			if u, v := sb.LogML(ib[k]), sc.LogML(ic[k]); !scalar.EqualWithinAbsOrRel(u, v, 1e-12, 1e-12) {
				t.Fatalf("node %d: Bernoulli %v, categorical %v", k, u, v)
			}
			if u, v := sb.LogPredictive(ib[k], y), sc.LogPredictive(ic[k], y); !scalar.EqualWithinAbsOrRel(u, v, 1e-12, 1e-12) {
				t.Fatalf("node %d: Bernoulli predictive %v, categorical %v", k, u, v)
			}
		}
	}
}

// polya returns log p(D) of the Dirichlet-categorical model as the sequential predictive product
// of the Pólya urn: Π_i Π_j (A[x_ij][j] + #{i' < i : x_i'j = x_ij}) / (Σ_v A[v][j] + i).
func polya(x [][]float64, alpha [][]float64) float64 {
	d := len(alpha[0])
	seen := make([]map[float64]int, d)
	for j := range seen {
		seen[j] = map[float64]int{}
	}
	s := 0.0
	for i, row := range x {
		for j, v := range row {
			sum := 0.0
			for _, ar := range alpha {
				sum += ar[j]
			}
			s += math.Log((alpha[int(v)][j] + float64(seen[j][v])) / (sum + float64(i)))
			seen[j][v]++
		}
	}
	return s
}

func TestCategoricalAgainstPolya(t *testing.T) {
	// log p(D) by LogML equals the Pólya-urn product over the items in store order (1e-12 abs or
	// rel), for V = 1, 2, 3, 5 and random Dirichlet parameters in [0.02, 4]; so does the chain
	// of LogPredictive along a random order, and Merge agrees with Cluster.
	rng := rand.New(rand.NewPCG(13, 13))
	for _, v := range []int{1, 2, 3, 5} {
		for range 10 {
			n, d := 1+rng.IntN(40), 1+rng.IntN(8)
			x := randomValues(rng, n, d, v)
			alpha := make([][]float64, v)
			for val := range alpha {
				alpha[val] = make([]float64, d)
				for j := range d {
					alpha[val][j] = 0.02 + 4*rng.Float64()
				}
			}
			m, err := conjugate.NewCategorical(x, alpha)
			if err != nil {
				t.Fatal(err)
			}
			s := m.NewStore()
			perm := rng.Perm(n)
			ordered := make([][]float64, n)
			for k, i := range perm {
				ordered[k] = x[i]
			}
			want := polya(ordered, alpha)
			if got := s.LogML(s.Cluster(perm)); !scalar.EqualWithinAbsOrRel(got, want, 1e-12, 1e-12) {
				t.Fatalf("V=%d n=%d d=%d: log p(D) = %v, Pólya %v", v, n, d, got, want)
			}
			c, sum := s.Cluster(nil), 0.0
			for _, i := range rng.Perm(n) {
				sum += s.LogPredictive(c, x[i])
				c = s.Merge(c, i)
			}
			if !scalar.EqualWithinAbsOrRel(sum, want, 1e-12, 1e-12) {
				t.Fatalf("V=%d: Σ log p(x_i|x_<i) = %v, Pólya %v", v, sum, want)
			}
			if got := s.LogML(c); !scalar.EqualWithinAbsOrRel(got, want, 1e-12, 1e-12) {
				t.Fatalf("V=%d: merged one by one %v, Pólya %v", v, got, want)
			}
			if n > 1 {
				if u, w := s.LogMLUnion(0, 1), s.LogML(s.Merge(0, 1)); u != w {
					t.Fatalf("LogMLUnion %v, LogML(Merge) %v", u, w)
				}
			}
		}
	}
}

func TestDiscreteOutsideSupport(t *testing.T) {
	// A new point outside the support has predictive probability 0: −Inf.
	mb, err := conjugate.NewBernoulli([][]float64{{0, 1}}, []float64{1, 1}, []float64{1, 1})
	if err != nil {
		t.Fatal(err)
	}
	mc, err := conjugate.NewCategorical([][]float64{{0, 2}}, [][]float64{{1, 1}, {1, 1}, {1, 1}})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		s conjugate.Store
		x []float64
	}{
		{mb.NewStore(), []float64{0, 0.5}},
		{mb.NewStore(), []float64{2, 1}},
		{mc.NewStore(), []float64{3, 0}},
		{mc.NewStore(), []float64{-1, 0}},
		{mc.NewStore(), []float64{1, math.NaN()}},
	} {
		if got := tc.s.LogPredictive(0, tc.x); !math.IsInf(got, -1) {
			t.Errorf("log p(%v|x_0) = %v, want −Inf", tc.x, got)
		}
	}
	if got := mc.NewStore().LogPredictive(0, []float64{2, 2}); math.IsInf(got, 0) || math.IsNaN(got) {
		t.Errorf("log p in the support = %v", got)
	}
}

func TestFromDataRecipes(t *testing.T) {
	// By hand, the Bioconductor recipe A_vj = cc·(c_vj + 1)/(n + 1) with n = 4, cc = 2:
	// feature 0 has values 0, 1, 1, 1 and feature 1 has 0, 0, 2, 0.
	x := [][]float64{{0, 0}, {1, 0}, {1, 2}, {1, 0}}
	alpha := conjugate.CategoricalFromData(x, 2)
	want := [][]float64{
		{2 * 2.0 / 5, 2 * 4.0 / 5}, // value 0: counts 1, 3
		{2 * 4.0 / 5, 2 * 1.0 / 5}, // value 1: counts 3, 0
		{2 * 1.0 / 5, 2 * 2.0 / 5}, // value 2: counts 0, 1
	}
	if len(alpha) != 3 {
		t.Fatalf("V = %d, want 3", len(alpha))
	}
	for v := range want {
		for j := range want[v] {
			if !scalar.EqualWithinAbsOrRel(alpha[v][j], want[v][j], 1e-15, 1e-15) {
				t.Fatalf("alpha = %v, want %v", alpha, want)
			}
		}
	}
	// The Bernoulli recipe on the first feature: a = cc(3+1)/5, b = cc(1+1)/5.
	a, b := conjugate.BernoulliFromData([][]float64{{0}, {1}, {1}, {1}}, 2)
	if !scalar.EqualWithinAbsOrRel(a[0], 1.6, 1e-15, 1e-15) || !scalar.EqualWithinAbsOrRel(b[0], 0.8, 1e-15, 1e-15) {
		t.Fatalf("a, b = %v, %v; want [1.6], [0.8]", a, b)
	}
	// Both recipes build valid models of their data.
	if _, err := conjugate.NewCategorical(x, alpha); err != nil {
		t.Fatal(err)
	}
	xb := randomValues(rand.New(rand.NewPCG(1, 1)), 20, 5, 2)
	a, b = conjugate.BernoulliFromData(xb, 1)
	if _, err := conjugate.NewBernoulli(xb, a, b); err != nil {
		t.Fatal(err)
	}
	if conjugate.CategoricalFromData(nil, 1) != nil {
		t.Fatal("CategoricalFromData(nil) is not nil")
	}
}

func TestDiscreteErrors(t *testing.T) {
	one := []float64{1, 1}
	for _, tc := range []struct {
		name string
		x    [][]float64
		a, b []float64
		msg  string
	}{
		{"no items", nil, one, one, "no items"},
		{"no features", [][]float64{{}}, nil, nil, "no features"},
		{"ragged", [][]float64{{0, 1}, {1}}, one, one, "values"},
		{"NaN", [][]float64{{0, math.NaN()}}, one, one, "NaN"},
		{"value 2", [][]float64{{0, 2}}, one, one, "want 0 or 1"},
		{"value 0.5", [][]float64{{0.5, 1}}, one, one, "want 0 or 1"},
		{"value −1", [][]float64{{-1, 1}}, one, one, "want 0 or 1"},
		{"a length", [][]float64{{0, 1}}, []float64{1}, one, "values of a"},
		{"a zero", [][]float64{{0, 1}}, []float64{1, 0}, one, "Beta"},
		{"b Inf", [][]float64{{0, 1}}, one, []float64{math.Inf(1), 1}, "Beta"},
		{"b NaN", [][]float64{{0, 1}}, one, []float64{1, math.NaN()}, "Beta"},
	} {
		if _, err := conjugate.NewBernoulli(tc.x, tc.a, tc.b); err == nil || !strings.Contains(err.Error(), tc.msg) {
			t.Errorf("Bernoulli %s: error %v, want one containing %q", tc.name, err, tc.msg)
		}
	}
	three := [][]float64{{1, 1}, {1, 1}, {1, 1}}
	for _, tc := range []struct {
		name  string
		x     [][]float64
		alpha [][]float64
		msg   string
	}{
		{"no items", nil, three, "no items"},
		{"out of range", [][]float64{{0, 3}}, three, "want an integer in 0..2"},
		{"negative", [][]float64{{-1, 0}}, three, "want an integer in 0..2"},
		{"not an integer", [][]float64{{1.5, 0}}, three, "want an integer in 0..2"},
		{"Inf", [][]float64{{math.Inf(1), 0}}, three, "Inf"},
		{"no alpha", [][]float64{{0, 0}}, nil, "no Dirichlet"},
		{"alpha row", [][]float64{{0, 0}}, [][]float64{{1, 1}, {1}}, "alpha row 1"},
		{"alpha zero", [][]float64{{0, 0}}, [][]float64{{1, 1}, {1, 0}}, "alpha[1][1]"},
		{"alpha negative", [][]float64{{0, 0}}, [][]float64{{-1, 1}}, "alpha[0][0]"},
	} {
		if _, err := conjugate.NewCategorical(tc.x, tc.alpha); err == nil || !strings.Contains(err.Error(), tc.msg) {
			t.Errorf("Categorical %s: error %v, want one containing %q", tc.name, err, tc.msg)
		}
	}
}

// TestSearchCC checks the cc search on smooth objectives with a known maximum: it must return a
// cc it evaluated, with the evidence there, inside Bioconductor's range [2⁻¹¹, 2¹¹], within the
// bracket's doubling of the maximum when that lies in the range and Brent's tolerance is fine
// enough there, in few evaluations; NaN evidence must count as the worst; and it must stop on an
// error. TestSearchCCMatchesBioconductor checks the exact sequence of evaluations.
func TestSearchCC(t *testing.T) {
	for _, peak := range []float64{0.01, 0.3, 1, 3.7, 40, 500} {
		got := map[float64]float64{}
		obj := func(cc float64) float64 { return -math.Pow(math.Log(cc/peak), 2) }
		cc, best, err := conjugate.SearchCC(func(cc float64) (float64, error) {
			got[cc] = obj(cc)
			return got[cc], nil
		})
		if err != nil {
			t.Fatal(err)
		}
		if v, ok := got[cc]; !ok || best != v {
			t.Errorf("peak %v: returned cc %v with evidence %v, not an evaluation (%v, %v)", peak, cc, best, v, ok)
		}
		if cc < 0x1p-11 || cc > 0x1p11 {
			t.Errorf("peak %v: cc %v outside [2⁻¹¹, 2¹¹]", peak, cc)
		}
		if peak >= 0.3 && math.Abs(math.Log(cc/peak)) > math.Log(2) {
			t.Errorf("peak %v: cc %v", peak, cc)
		}
		if len(got) > 40 {
			t.Errorf("peak %v: %d evaluations", peak, len(got))
		}
	}
	// NaN below cc = 1: the halving stops at 0.5, and Brent on [0.5, 4] keeps away from it.
	cc, best, err := conjugate.SearchCC(func(cc float64) (float64, error) {
		if cc < 1 {
			return math.NaN(), nil
		}
		return -(cc - 1.5) * (cc - 1.5), nil
	})
	if err != nil || cc < 1 || math.IsNaN(best) {
		t.Errorf("NaN below 1: cc %v, evidence %v, error %v", cc, best, err)
	}
	boom := errors.New("boom")
	if _, _, err := conjugate.SearchCC(func(cc float64) (float64, error) {
		if cc < 1 {
			return 0, boom
		}
		return -cc, nil
	}); !errors.Is(err, boom) {
		t.Errorf("error not passed on: %v", err)
	}
}
