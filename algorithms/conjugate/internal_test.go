package conjugate

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/floats/scalar"
)

func TestLogMLCachedOnce(t *testing.T) {
	// LogML computes log p at most once per id; LogMLUnion and LogPredictive compute without
	// caching and add no id; Truncate and reuse of an id computes it afresh.
	rng := rand.New(rand.NewPCG(21, 21))
	x := make([][]float64, 6)
	for i := range x {
		x[i] = []float64{rng.NormFloat64(), rng.NormFloat64(), float64(i % 2)}
	}
	p, err := NIWFromData(x, 20, 0.001)
	if err != nil {
		t.Fatal(err)
	}
	niw, err := NewNIW(x, p)
	if err != nil {
		t.Fatal(err)
	}
	bx := make([][]float64, 6)
	for i := range bx {
		bx[i] = []float64{float64(i % 2), float64(i / 3)}
	}
	a, b := BernoulliFromData(bx, 1)
	bern, err := NewBernoulli(bx, a, b)
	if err != nil {
		t.Fatal(err)
	}
	for name, tc := range map[string]struct {
		m     Model
		evals func(Store) int
		x     []float64
	}{
		"NIW":       {niw, func(s Store) int { return s.(*niwStore).evals }, x[0]},
		"Bernoulli": {bern, func(s Store) int { return s.(*discreteStore).evals }, bx[0]},
	} {
		s := tc.m.NewStore()
		c := s.Merge(0, 1)
		v := s.LogML(c)
		if s.LogML(c) != v || tc.evals(s) != 1 {
			t.Fatalf("%s: %d evaluations after two LogML calls", name, tc.evals(s))
		}
		s.LogMLUnion(2, 3)
		s.LogPredictive(c, tc.x)
		if tc.evals(s) != 1 || s.Len() != 7 {
			t.Fatalf("%s: LogMLUnion/LogPredictive changed the store: %d evaluations, Len %d", name, tc.evals(s), s.Len())
		}
		s.Truncate(6)
		c = s.Merge(2, 3)
		s.LogML(c)
		if tc.evals(s) != 2 {
			t.Fatalf("%s: reused id: %d evaluations, want 2", name, tc.evals(s))
		}
	}
}

func TestDiscreteWithoutTables(t *testing.T) {
	// With the lgamma tables disabled (maxTable = 0) or covering only counts 0..4, log p from
	// math.Lgamma per term equals the fully tabulated one to 1e-12 abs or rel; so does a cluster
	// larger than the tables (items merged twice, which the precondition forbids but the
	// arithmetic must survive).
	rng := rand.New(rand.NewPCG(22, 22))
	n, d, v := 30, 7, 4
	x := make([][]float64, n)
	for i := range x {
		x[i] = make([]float64, d)
		for j := range x[i] {
			x[i][j] = float64(rng.IntN(v))
		}
	}
	alpha := CategoricalFromData(x, 0.7)
	tabled, err := NewCategorical(x, alpha)
	if err != nil {
		t.Fatal(err)
	}
	defer func(old int) { maxTable = old }(maxTable)
	for _, limit := range []int{0, 5 * d * v} {
		maxTable = limit
		plain, err := NewCategorical(x, alpha)
		if err != nil {
			t.Fatal(err)
		}
		if tabled.m.tl != n+2 || plain.m.tl != limit/(d*v) {
			t.Fatalf("tables cover %d and %d counts", tabled.m.tl, plain.m.tl)
		}
		st, sp := tabled.NewStore(), plain.NewStore()
		for range 100 {
			items := rng.Perm(n)[:1+rng.IntN(n)]
			u, w := st.LogML(st.Cluster(items)), sp.LogML(sp.Cluster(items))
			if !scalar.EqualWithinAbsOrRel(u, w, 1e-12, 1e-12) {
				t.Fatalf("limit %d, %v: tables %v, lgamma %v", limit, items, u, w)
			}
		}
		all := rng.Perm(n)
		ct, cp := st.Cluster(all), sp.Cluster(all)
		ct, cp = st.Merge(ct, ct), sp.Merge(cp, cp) // 2n items: beyond the tables
		if u, w := st.LogML(ct), sp.LogML(cp); !scalar.EqualWithinAbsOrRel(u, w, 1e-12, 1e-12) || math.IsNaN(u) {
			t.Fatalf("limit %d, doubled cluster: tables %v, lgamma %v", limit, u, w)
		}
	}
}

func TestCholLogDet(t *testing.T) {
	// log|A| of A = LLᵀ for a known lower-triangular L is 2 Σ log L_ii exactly in exact
	// arithmetic (1e-12 abs or rel), including pivots that overflow a running product
	// (diagonal 1e40 in d = 12) and underflow it (1e-40); a negative pivot fails.
	for _, scale := range []float64{1, 1e40, 1e-40} {
		d := 12
		l := make([][]float64, d)
		want := 0.0
		for i := range d {
			l[i] = make([]float64, d)
			for j := range i {
				l[i][j] = 0.3 * scale * float64((i+2*j)%5-2)
			}
			l[i][i] = scale * (1 + float64(i)/7)
			want += 2 * math.Log(l[i][i])
		}
		a := make([]float64, 0, d*(d+1)/2)
		for i := range d {
			for j := 0; j <= i; j++ {
				s := 0.0
				for k := 0; k <= j; k++ {
					s += l[i][k] * l[j][k]
				}
				a = append(a, s)
			}
		}
		got, ok := cholLogDet(a, d)
		if !ok || !scalar.EqualWithinAbsOrRel(got, want, 1e-12, 1e-12) {
			t.Fatalf("scale %g: log|A| = %v (ok %v), want %v", scale, got, ok, want)
		}
	}
	if _, ok := cholLogDet([]float64{1, 2, 1}, 2); ok {
		t.Fatal("[[1 2] [2 1]] factored")
	}
	if _, ok := cholLogDet([]float64{math.NaN()}, 1); ok {
		t.Fatal("NaN factored")
	}
}
