package conjugate

import (
	"fmt"
	"math"
	"slices"

	"github.com/hcbench/hcbench/internal/english"
)

// NIWParams are the Normal-Inverse-Wishart hyperparameters in Murphy's parametrisation:
// Σ ~ IW(Nu0, Lambda0) and μ|Σ ~ N(Mu0, Σ/Kappa0).
type NIWParams struct {
	Kappa0, Nu0 float64 // κ0 > 0; ν0 > d − 1
	Mu0         []float64
	Lambda0     [][]float64 // d × d, symmetric positive definite
}

// NIWFromData returns the data-driven hyperparameters of caponetto's
// NormalInverseWishart.create(data, g, scale_factor) (bayesian.md §5.1): μ0 the column means of x,
// Λ0 the sample covariance of x (divisor n − 1) divided by g, κ0 = kappa0 and ν0 = d + 1. The
// project presets are g = 20 (BHC) or g = 10 (BRT) with κ0 = 0.001.
//
// It fails for fewer than two items, rows of different lengths, NaN or ±Inf values or values
// beyond ±MaxValue, g outside [MinG, MaxG], kappa0 not positive or above MaxKappa0, and a singular
// sample covariance: n ≤ d, a constant feature, or
// features linearly dependent to about 13 digits (a Cholesky pivot below 1e-13 of its diagonal
// entry).
func NIWFromData(x [][]float64, g, kappa0 float64) (NIWParams, error) {
	d, err := checkRows(x)
	if err != nil {
		return NIWParams{}, err
	}
	n := len(x)
	if n < 2 {
		return NIWParams{}, fmt.Errorf("conjugate: a sample covariance needs at least 2 items, got %d", n)
	}
	if !positive(g) {
		return NIWParams{}, fmt.Errorf("conjugate: g must be positive and finite, got %v", g)
	}
	if g < MinG || g > MaxG {
		return NIWParams{}, fmt.Errorf("conjugate: g must lie in [%g, %g] (Λ0 = covariance/g must neither overflow nor drown in the rounding of the clusters' scatter), got %v", MinG, MaxG, g)
	}
	if !positive(kappa0) {
		return NIWParams{}, fmt.Errorf("conjugate: kappa0 must be positive and finite, got %v", kappa0)
	}
	if kappa0 > MaxKappa0 {
		return NIWParams{}, fmt.Errorf("conjugate: kappa0 must be at most %g, got %v", float64(MaxKappa0), kappa0)
	}
	if n <= d {
		return NIWParams{}, fmt.Errorf("conjugate: the sample covariance of %s in %s is singular (n ≤ d)", english.Count(n, "item", "items"), english.Count(d, "dimension", "dimensions"))
	}
	mu := make([]float64, d)
	for _, row := range x {
		for j, v := range row {
			mu[j] += v
		}
	}
	for j := range mu {
		mu[j] /= float64(n)
	}
	lam := make([][]float64, d)
	for i := range lam {
		lam[i] = make([]float64, d)
	}
	for _, row := range x {
		for i := range d {
			di := row[i] - mu[i]
			for j := 0; j <= i; j++ {
				lam[i][j] += di * (row[j] - mu[j])
			}
		}
	}
	den := float64(n-1) * g
	for i := range d {
		for j := 0; j <= i; j++ {
			lam[i][j] /= den
			lam[j][i] = lam[i][j]
		}
	}
	if !nonsingular(lam) {
		return NIWParams{}, fmt.Errorf("conjugate: the sample covariance of the %d×%d data is singular (a constant feature, or features linearly dependent to ~13 digits)", n, d)
	}
	return NIWParams{Kappa0: kappa0, Nu0: float64(d + 1), Mu0: mu, Lambda0: lam}, nil
}

// nonsingular reports whether the symmetric matrix a is positive definite with every pivot D_i
// of its L·D·Lᵀ factorisation above 1e-13 of its diagonal entry; a smaller pivot means a feature that is constant or,
// to about 13 digits, a linear combination of the others.
func nonsingular(a [][]float64) bool {
	l := packLower(a)
	if _, ok := cholLogDet(l, len(a)); !ok {
		return false
	}
	r := 0
	for i := range a {
		if 1/l[r+i] <= 1e-13*a[i][i] { // the diagonal holds 1/D_i
			return false
		}
		r += i + 1
	}
	return true
}

// NIW is the Normal-Inverse-Wishart model (unknown mean and covariance) over a fixed list of
// d-dimensional points. Build it with NewNIW.
type NIW struct {
	n, d   int
	tri    int       // d(d+1)/2, the packed size of a symmetric matrix
	x      []float64 // the points, n × d row-major
	mu0    []float64
	lam0   []float64 // Λ0, packed lower triangle: (i, j ≤ i) at i(i+1)/2 + j
	kappa0 float64
	nu0    float64
	chol0  []float64 // Λ0 factored by cholLogDet, packed like lam0
	ld0    float64   // log|Λ0|
	c      []float64 // c[k] = log p of k points without the −(νk/2) log|Λk| term, k = 0..n+1
}

// NewNIW builds the NIW model of the points x (n × d) with hyperparameters p. It fails for no
// points, rows of different lengths, NaN or ±Inf anywhere, a value beyond ±MaxValue (points, μ0)
// or ±MaxScale (Λ0), κ0 not in (0, MaxKappa0], ν0 not in (d − 1, MaxNu0], Mu0 not of length d,
// Lambda0 not d × d, not symmetric (to 1e-12 relative; the two triangles are averaged), not
// positive definite (its Cholesky factorisation fails) or with a pivot below 1e-300.
//
// Once Λ0 is positive definite every Λn = Λ0 + S + (κ0 n/κn)(x̄−μ0)(x̄−μ0)ᵀ is too (S and the
// rank-one term are positive semi-definite), so LogML never meets a failed factorisation in exact
// arithmetic; should rounding ever make one fail it returns NaN.
func NewNIW(x [][]float64, p NIWParams) (*NIW, error) {
	d, err := checkRows(x)
	if err != nil {
		return nil, err
	}
	if !positive(p.Kappa0) {
		return nil, fmt.Errorf("conjugate: κ0 must be positive and finite, got %v", p.Kappa0)
	}
	if p.Kappa0 > MaxKappa0 {
		return nil, fmt.Errorf("conjugate: κ0 must be at most %g (κ0·n must stay finite), got %v", float64(MaxKappa0), p.Kappa0)
	}
	if !(p.Nu0 > float64(d-1)) || math.IsInf(p.Nu0, 1) {
		return nil, fmt.Errorf("conjugate: ν0 must be finite and above d − 1 = %d, got %v", d-1, p.Nu0)
	}
	if p.Nu0 > MaxNu0 {
		return nil, fmt.Errorf("conjugate: ν0 must be at most %g (log p(D) is a difference of terms of size ν0, which loses ν0·1e-16 to rounding), got %v", float64(MaxNu0), p.Nu0)
	}
	if len(p.Mu0) != d {
		return nil, fmt.Errorf("conjugate: μ0 has %d values, the points have %d", len(p.Mu0), d)
	}
	for j, v := range p.Mu0 {
		if math.IsNaN(v) || math.IsInf(v, 0) || math.Abs(v) > MaxValue {
			return nil, fmt.Errorf("conjugate: μ0[%d] is %v, want a number of magnitude at most %g", j, v, float64(MaxValue))
		}
	}
	if len(p.Lambda0) != d {
		return nil, fmt.Errorf("conjugate: Λ0 has %d rows, want %d", len(p.Lambda0), d)
	}
	for i, row := range p.Lambda0 {
		if len(row) != d {
			return nil, fmt.Errorf("conjugate: Λ0 row %d has %d values, want %d", i, len(row), d)
		}
		for j, v := range row {
			if math.IsNaN(v) || math.IsInf(v, 0) || math.Abs(v) > MaxScale {
				return nil, fmt.Errorf("conjugate: Λ0[%d][%d] is %v, want a number of magnitude at most %g", i, j, v, float64(MaxScale))
			}
		}
	}
	for i := range d {
		for j := range i {
			u, v := p.Lambda0[i][j], p.Lambda0[j][i]
			if math.Abs(u-v) > 1e-12*max(math.Abs(u), math.Abs(v)) {
				return nil, fmt.Errorf("conjugate: Λ0 is not symmetric: [%d][%d] = %v, [%d][%d] = %v", i, j, u, j, i, v)
			}
		}
	}
	m := &NIW{
		n: len(x), d: d, tri: d * (d + 1) / 2,
		x:      make([]float64, 0, len(x)*d),
		mu0:    append([]float64(nil), p.Mu0...),
		lam0:   packLower(p.Lambda0),
		kappa0: p.Kappa0,
		nu0:    p.Nu0,
	}
	for _, row := range x {
		m.x = append(m.x, row...)
	}
	a := append([]float64(nil), m.lam0...)
	ld0, ok := cholLogDet(a, d)
	if !ok {
		return nil, fmt.Errorf("conjugate: Λ0 is not positive definite (Cholesky factorisation failed)")
	}
	// Every Λn's pivots are at least Λ0's (Schur complements keep the order Λn ⪰ Λ0), so 1/D_i
	// finite here keeps qᵀΛn⁻¹q of LogPredictive from 0·∞ = NaN.
	for i, r := 0, 0; i < d; i++ {
		if a[r+i] > 1e300 { // a[r+i] = 1/D_i
			return nil, fmt.Errorf("conjugate: Λ0 is too close to singular: pivot %d of its factorisation is %v, below 1e-300", i, 1/a[r+i])
		}
		r += i + 1
	}
	m.ld0, m.chol0 = ld0, a
	m.c = make([]float64, m.n+2)
	for k := range m.c {
		m.c[k] = m.constant(k)
	}
	return m, nil
}

// packLower returns the lower triangle of the square matrix a, packed row by row, with each
// off-diagonal entry the mean of a[i][j] and a[j][i].
func packLower(a [][]float64) []float64 {
	d := len(a)
	p := make([]float64, 0, d*(d+1)/2)
	for i := range d {
		for j := 0; j < i; j++ {
			p = append(p, (a[i][j]+a[j][i])/2)
		}
		p = append(p, a[i][i])
	}
	return p
}

// constant returns the part of log p(D) for k points that depends on k only:
// −(k d/2) log π + (d/2)(log κ0 − log κk) + (ν0/2) log|Λ0| + log Γ_d(νk/2) − log Γ_d(ν0/2).
func (m *NIW) constant(k int) float64 {
	if k == 0 {
		return m.nu0 / 2 * m.ld0 // so that log p(∅) = 0 exactly
	}
	fk, fd := float64(k), float64(m.d)
	s := -fk*fd/2*math.Log(math.Pi) + fd/2*(math.Log(m.kappa0)-math.Log(m.kappa0+fk)) + m.nu0/2*m.ld0
	for j := 1; j <= m.d; j++ {
		h := float64(1-j) / 2
		a, _ := math.Lgamma((m.nu0+fk)/2 + h)
		b, _ := math.Lgamma(m.nu0/2 + h)
		s += a - b
	}
	return s
}

func (m *NIW) constantAt(k int) float64 {
	if k < len(m.c) {
		return m.c[k]
	}
	return m.constant(k)
}

// Items returns the number of points.
func (m *NIW) Items() int { return m.n }

// Dim returns the dimension d of the points.
func (m *NIW) Dim() int { return m.d }

// NewStore returns a store of the single points, with room for 2n − 1 clusters (a binary tree)
// before it grows.
func (m *NIW) NewStore() Store {
	st := m.d + m.tri
	s := &niwStore{
		m:       m,
		st:      st,
		size:    make([]int, m.n, 2*m.n),
		stats:   make([]float64, m.n*st, 2*m.n*st),
		lml:     make([]float64, m.n, 2*m.n),
		have:    make([]bool, m.n, 2*m.n),
		lam:     make([]float64, m.tri),
		z:       make([]float64, m.d),
		scratch: make([]float64, st),
	}
	for i := range m.n {
		s.size[i] = 1
		copy(s.stats[i*st:i*st+m.d], m.x[i*m.d:(i+1)*m.d]) // mean x_i, scatter 0
	}
	return s
}

// niwStore keeps, per cluster, its size and its mean and scatter matrix (packed lower triangle):
// statistics equivalent to (n, Σx, Σxxᵀ), but merged with the pairwise update of Chan, Golub &
// LeVeque, S = S_a + S_b + (n_a n_b/n)(x̄_b − x̄_a)(x̄_b − x̄_a)ᵀ, which does not lose digits to
// cancellation when a cluster lies far from the origin (raw moments would; see
// TestNIWTranslationInvariance).
type niwStore struct {
	m       *NIW
	st      int // stride of stats: d (mean) + tri (scatter)
	size    []int
	stats   []float64
	lml     []float64
	have    []bool
	lam     []float64 // scratch: Λn, then its factorisation by cholLogDet
	z       []float64 // scratch: a d-vector
	scratch []float64 // scratch: the statistics of a union
	evals   int       // number of log p evaluations by LogML (for tests of the cache)
}

func (s *niwStore) Len() int       { return len(s.size) }
func (s *niwStore) Size(c int) int { return s.size[c] }

func (s *niwStore) Truncate(n int) {
	checkTruncate(n, s.m.n, len(s.size))
	s.size, s.lml, s.have = s.size[:n], s.lml[:n], s.have[:n]
	s.stats = s.stats[:n*s.st]
}

// add appends a cluster of k points with zeroed statistics and returns its id and statistics.
func (s *niwStore) add(k int) (int, []float64) {
	id := len(s.size)
	s.size = append(s.size, k)
	s.lml = append(s.lml, 0)
	s.have = append(s.have, false)
	l := len(s.stats)
	s.stats = slices.Grow(s.stats, s.st)[:l+s.st]
	clear(s.stats[l:])
	return id, s.stats[l:]
}

func (s *niwStore) Merge(a, b int) int {
	id, out := s.add(s.size[a] + s.size[b])
	s.merge(out, a, b)
	return id
}

// merge writes the statistics of a ∪ b to out.
func (s *niwStore) merge(out []float64, a, b int) {
	d, st := s.m.d, s.st
	sa, sb := s.stats[a*st:(a+1)*st], s.stats[b*st:(b+1)*st]
	na, nb := float64(s.size[a]), float64(s.size[b])
	n := na + nb
	if n == 0 {
		clear(out)
		return
	}
	f, w := nb/n, na*nb/n
	ma, mb, mo := sa[:d], sb[:d], out[:d]
	z := s.z
	for k := range d {
		z[k] = mb[k] - ma[k]
		mo[k] = ma[k] + f*z[k]
	}
	pa, pb, po := sa[d:], sb[d:], out[d:]
	p := 0
	for i := range d {
		wi := w * z[i]
		for j := 0; j <= i; j++ {
			po[p] = pa[p] + pb[p] + wi*z[j]
			p++
		}
	}
}

func (s *niwStore) Cluster(items []int) int {
	d := s.m.d
	id, out := s.add(len(items))
	if len(items) == 0 {
		return id
	}
	mean, sc := out[:d], out[d:]
	for _, it := range items {
		for k, v := range s.m.x[it*d : (it+1)*d] {
			mean[k] += v
		}
	}
	for k := range mean {
		mean[k] /= float64(len(items))
	}
	for _, it := range items {
		x := s.m.x[it*d : (it+1)*d]
		for k := range d {
			s.z[k] = x[k] - mean[k]
		}
		p := 0
		for i := range d {
			for j := 0; j <= i; j++ {
				sc[p] += s.z[i] * s.z[j]
				p++
			}
		}
	}
	return id
}

func (s *niwStore) LogML(c int) float64 {
	if !s.have[c] {
		s.lml[c] = s.logML(s.size[c], s.stats[c*s.st:(c+1)*s.st])
		s.have[c] = true
		s.evals++
	}
	return s.lml[c]
}

func (s *niwStore) LogMLUnion(a, b int) float64 {
	s.merge(s.scratch, a, b)
	return s.logML(s.size[a]+s.size[b], s.scratch)
}

// posterior writes Λk for a cluster of k points with statistics st, factored by cholLogDet, to
// s.lam and returns log|Λk|; ok is false when the factorisation fails.
func (s *niwStore) posterior(k int, st []float64) (ld float64, ok bool) {
	m := s.m
	d := m.d
	copy(s.lam, m.lam0)
	if k == 0 {
		copy(s.lam, m.chol0)
		return m.ld0, true
	}
	fk := float64(k)
	w := m.kappa0 * fk / (m.kappa0 + fk)
	mean, sc := st[:d], st[d:]
	z := s.z
	for i := range d {
		z[i] = mean[i] - m.mu0[i]
	}
	p := 0
	for i := range d {
		wi := w * z[i]
		for j := 0; j <= i; j++ {
			s.lam[p] += sc[p] + wi*z[j]
			p++
		}
	}
	return cholLogDet(s.lam, d)
}

// logML returns log p(D) for a cluster of k points with statistics st.
func (s *niwStore) logML(k int, st []float64) float64 {
	if k == 0 {
		return 0
	}
	ld, ok := s.posterior(k, st)
	if !ok {
		return math.NaN()
	}
	return s.m.constantAt(k) - (s.m.nu0+float64(k))/2*ld
}

// LogPredictive uses the matrix determinant lemma, |Λ_{k+1}| = |Λk|(1 + (κk/κ_{k+1}) qᵀΛk⁻¹q)
// with q = x − μk, so it costs one Cholesky factorisation of Λk and one triangular solve:
// log p(x|D) = C(k+1) − C(k) − ½ log|Λk| − ((νk+1)/2) log1p(κk/(κk+1) · qᵀΛk⁻¹q), C the
// constant part.
func (s *niwStore) LogPredictive(c int, x []float64) float64 {
	m := s.m
	d := m.d
	if len(x) != d {
		panic(fmt.Sprintf("conjugate: LogPredictive of a point of dimension %d in a model of dimension %d", len(x), d))
	}
	k := s.size[c]
	st := s.stats[c*s.st : (c+1)*s.st]
	ld, ok := s.posterior(k, st)
	if !ok {
		return math.NaN()
	}
	fk := float64(k)
	kk := m.kappa0 + fk
	// z = x − μk, μk = (κ0 μ0 + k x̄)/κk, then solve L w = z in place.
	z := s.z
	for i := range d {
		z[i] = x[i] - (m.kappa0*m.mu0[i]+fk*st[i])/kk
	}
	// qᵀΛk⁻¹q = Σ y_i²/D_i with L y = q, Λk = L·D·Lᵀ as cholLogDet leaves it.
	q, r := 0.0, 0
	for i := range d {
		v := z[i]
		for j := range i {
			v -= s.lam[r+j] * z[j]
		}
		z[i] = v
		q += v * v * s.lam[r+i]
		r += i + 1
	}
	nk := m.nu0 + fk
	return m.constantAt(k+1) - m.constantAt(k) - ld/2 - (nk+1)/2*math.Log1p(kk/(kk+1)*q)
}

// cholLogDet factors in place the symmetric matrix a of order d, given as its lower triangle
// packed row by row, as A = L·D·Lᵀ with L unit lower triangular and D diagonal (the square-root
// free Cholesky factorisation), and returns log|A| = Σ log D_i. On return the strictly lower
// part of a holds L and the diagonal holds 1/D_i. ok is false when A is not positive definite
// (a pivot D_i ≤ 0 or NaN).
//
// Each row costs one division (1/D_i) and the rest are multiply-adds, which keeps the chain of
// dependent slow operations short: at d = 4 this is about half the time of the textbook
// Cholesky with its square roots and a division per entry.
func cholLogDet(a []float64, d int) (logDet float64, ok bool) {
	prod, acc := 1.0, 0.0
	ri := 0
	for i := range d {
		row := a[ri : ri+i+1]
		// w_j = A_ij − Σ_{k<j} w_k L_jk, the row of L·D, kept unscaled until the row is done.
		rj := 0
		for j := range i {
			lj := a[rj : rj+j]
			v := row[j]
			for k, l := range lj {
				v -= row[k] * l
			}
			row[j] = v
			rj += j + 1
		}
		// D_i = A_ii − Σ_k w_k L_ik with L_ik = w_k/D_k; then store L_ik.
		v := row[i]
		rk := 0
		for k := range i {
			l := row[k] * a[rk+k] // a[rk+k] = 1/D_k
			v -= l * row[k]
			row[k] = l
			rk += k + 1
		}
		if !(v > 0) {
			return 0, false
		}
		row[i] = 1 / v
		if v > 1e100 || v < 1e-100 {
			acc += math.Log(v) // prod·v could overflow or underflow
		} else {
			prod *= v
			if prod > 1e150 || prod < 1e-150 { // keep the running product of pivots in range
				acc += math.Log(prod)
				prod = 1
			}
		}
		ri += i + 1
	}
	return acc + math.Log(prod), true
}
