package conjugate

import (
	"fmt"
	"math"
	"slices"
)

// maxTable is the largest number of lgamma table entries a discrete model builds: V·d tables of
// lgamma(A + c) − lgamma(A) for the counts c = 0..min(n+1, maxTable/(V·d) − 1). Counts beyond
// them call math.Lgamma. A variable so tests can exercise every path.
var maxTable = 1 << 22 // 32 MiB of float64

// discrete is the Dirichlet-categorical model that Bernoulli and Categorical share: d features,
// each taking values 0..v−1, with a Dirichlet prior per feature.
type discrete struct {
	n, d, v int
	vals    []int32   // the items' values, n × d row-major
	alpha   []float64 // alpha[j*v + val] = A[val][j]
	lgA     []float64 // lgamma(alpha[·])
	sumA    []float64 // Σ_v A[v][j] per feature
	lgS     []float64 // lgamma(Σ_v A[v][j]) per feature
	cn      []float64 // cn[k] = Σ_j [lgamma(ΣA_j + k) − lgamma(ΣA_j)], k = 0..n+1
	tab     []float64 // tab[(j*v+val)*tl + c] = lgamma(A[val][j] + c) − lgamma(A[val][j]), or nil
	tl      int       // the counts 0..tl−1 each table covers, at most n + 2
}

// newDiscrete builds the model of the values vals (n × d, each in 0..v−1) with Dirichlet
// parameters alpha[j*v+val], which the caller has checked.
func newDiscrete(n, d, v int, vals []int32, alpha []float64) *discrete {
	m := &discrete{n: n, d: d, v: v, vals: vals, alpha: alpha}
	m.lgA = make([]float64, len(alpha))
	for i, a := range alpha {
		m.lgA[i], _ = math.Lgamma(a)
	}
	m.sumA = make([]float64, d)
	m.lgS = make([]float64, d)
	for j := range d {
		for val := range v {
			m.sumA[j] += alpha[j*v+val]
		}
		m.lgS[j], _ = math.Lgamma(m.sumA[j])
	}
	m.cn = make([]float64, n+2)
	for k := range m.cn {
		m.cn[k] = m.countTerm(k)
	}
	m.tl = min(n+2, maxTable/len(alpha))
	if m.tl > 0 {
		m.tab = make([]float64, len(alpha)*m.tl)
		for i, a := range alpha {
			t := m.tab[i*m.tl : (i+1)*m.tl]
			for c := range t {
				t[c] = lgammaRatio(a, float64(c), m.lgA[i])
			}
		}
	}
	return m
}

// countTerm returns Σ_j [lgamma(ΣA_j + k) − lgamma(ΣA_j)].
func (m *discrete) countTerm(k int) float64 {
	s := 0.0
	for j := range m.d {
		s += lgammaRatio(m.sumA[j], float64(k), m.lgS[j])
	}
	return s
}

// lgammaRatio returns lgamma(a + c) − lgamma(a) for a > 0 and c ≥ 0, given lga = lgamma(a). For
// a below 1e6 it is that difference (it loses about 1e-16·a·log a, under 1e-8); above, the two
// terms are too large for their difference to keep any digits (lgamma(1e300) ≈ 7e302, so
// lgamma(a + 1) − lgamma(a) would come out 0 instead of log a ≈ 690), and it is Stirling's series
// written as a difference, (a − ½)·log1p(c/a) + c·log(a + c) − c + (1/(a + c) − 1/a)/12, whose
// next term is below 1/(360a³) < 3e-21.
func lgammaRatio(a, c, lga float64) float64 {
	if a < 1e6 {
		g, _ := math.Lgamma(a + c)
		return g - lga
	}
	if c == 0 {
		return 0
	}
	return (a-0.5)*math.Log1p(c/a) + c*math.Log(a+c) - c + (1/(a+c)-1/a)/12
}

func (m *discrete) countTermAt(k int) float64 {
	if k < len(m.cn) {
		return m.cn[k]
	}
	return m.countTerm(k)
}

// term returns lgamma(A + c) − lgamma(A) for cell i = j*v + val.
func (m *discrete) term(i int, c int32) float64 {
	if int(c) < m.tl {
		return m.tab[i*m.tl+int(c)]
	}
	return lgammaRatio(m.alpha[i], float64(c), m.lgA[i])
}

func (m *discrete) newStore() *discreteStore {
	st := m.d * (m.v - 1)
	s := &discreteStore{
		m:       m,
		st:      st,
		size:    make([]int, m.n, 2*m.n),
		counts:  make([]int32, m.n*st, 2*m.n*st),
		lml:     make([]float64, m.n, 2*m.n),
		have:    make([]bool, m.n, 2*m.n),
		scratch: make([]int32, st),
	}
	for i := range m.n {
		s.size[i] = 1
		for j, val := range m.vals[i*m.d : (i+1)*m.d] {
			if val > 0 {
				s.counts[i*st+j*(m.v-1)+int(val)-1] = 1
			}
		}
	}
	return s
}

// discreteStore keeps, per cluster, its size and the counts c_vj of the values v = 1..V−1 per
// feature (the count of 0 is the size minus their sum).
type discreteStore struct {
	m       *discrete
	st      int // stride of counts: d·(V−1)
	size    []int
	counts  []int32
	lml     []float64
	have    []bool
	scratch []int32
	evals   int // number of log p evaluations by LogML (for tests of the cache)
}

func (s *discreteStore) Len() int       { return len(s.size) }
func (s *discreteStore) Size(c int) int { return s.size[c] }

func (s *discreteStore) Truncate(n int) {
	checkTruncate(n, s.m.n, len(s.size))
	s.size, s.lml, s.have = s.size[:n], s.lml[:n], s.have[:n]
	s.counts = s.counts[:n*s.st]
}

// add appends a cluster of k items with zero counts and returns its id and counts.
func (s *discreteStore) add(k int) (int, []int32) {
	id := len(s.size)
	s.size = append(s.size, k)
	s.lml = append(s.lml, 0)
	s.have = append(s.have, false)
	l := len(s.counts)
	s.counts = slices.Grow(s.counts, s.st)[:l+s.st]
	clear(s.counts[l:])
	return id, s.counts[l:]
}

func (s *discreteStore) Merge(a, b int) int {
	id, out := s.add(s.size[a] + s.size[b])
	st := s.st
	ca, cb := s.counts[a*st:(a+1)*st], s.counts[b*st:(b+1)*st]
	for i := range out {
		out[i] = ca[i] + cb[i]
	}
	return id
}

func (s *discreteStore) Cluster(items []int) int {
	m := s.m
	id, out := s.add(len(items))
	for _, it := range items {
		for j, val := range m.vals[it*m.d : (it+1)*m.d] {
			if val > 0 {
				out[j*(m.v-1)+int(val)-1]++
			}
		}
	}
	return id
}

func (s *discreteStore) LogML(c int) float64 {
	if !s.have[c] {
		s.lml[c] = s.logML(s.size[c], s.counts[c*s.st:(c+1)*s.st])
		s.have[c] = true
		s.evals++
	}
	return s.lml[c]
}

func (s *discreteStore) LogMLUnion(a, b int) float64 {
	st := s.st
	ca, cb := s.counts[a*st:(a+1)*st], s.counts[b*st:(b+1)*st]
	for i := range s.scratch {
		s.scratch[i] = ca[i] + cb[i]
	}
	return s.logML(s.size[a]+s.size[b], s.scratch)
}

// logML returns log p(D) for a cluster of k items with counts cs.
func (s *discreteStore) logML(k int, cs []int32) float64 {
	m := s.m
	if k == 0 {
		return 0
	}
	sum := -m.countTermAt(k)
	v1 := m.v - 1
	if k < m.tl {
		// Fast path: every count is at most k, so every term is in the tables.
		tl := m.tl
		for j := range m.d {
			rest := int32(k)
			base := j * m.v * tl
			for val := 1; val < m.v; val++ {
				c := cs[j*v1+val-1]
				rest -= c
				sum += m.tab[base+val*tl+int(c)]
			}
			sum += m.tab[base+int(rest)]
		}
		return sum
	}
	for j := range m.d {
		rest := int32(k)
		for val := 1; val < m.v; val++ {
			c := cs[j*v1+val-1]
			rest -= c
			sum += m.term(j*m.v+val, c)
		}
		sum += m.term(j*m.v, rest)
	}
	return sum
}

// LogPredictive is the Pólya urn: p(x|D) = Π_j (A[x_j][j] + c_{x_j j}) / (Σ_v A[v][j] + k).
func (s *discreteStore) LogPredictive(c int, x []float64) float64 {
	m := s.m
	if len(x) != m.d {
		panic(fmt.Sprintf("conjugate: LogPredictive of a point with %d features in a model of %d", len(x), m.d))
	}
	k := s.size[c]
	cs := s.counts[c*s.st : (c+1)*s.st]
	v1 := m.v - 1
	sum := 0.0
	for j, xv := range x {
		val, ok := category(xv, m.v)
		if !ok {
			return math.Inf(-1)
		}
		var cnt int
		if val == 0 {
			cnt = k
			for u := range v1 {
				cnt -= int(cs[j*v1+u])
			}
		} else {
			cnt = int(cs[j*v1+val-1])
		}
		sum += math.Log((m.alpha[j*m.v+val] + float64(cnt)) / (m.sumA[j] + float64(k)))
	}
	return sum
}

// category returns x as a value in 0..v−1; ok is false when x is not such an integer.
func category(x float64, v int) (int, bool) {
	if !(x >= 0 && x < float64(v)) || x != math.Trunc(x) {
		return 0, false
	}
	return int(x), true
}

// Bernoulli is the Beta-Bernoulli model: independent binary features, feature j with a
// Beta(a_j, b_j) prior on its probability of a 1. Build it with NewBernoulli.
type Bernoulli struct{ m *discrete }

// NewBernoulli builds the Beta-Bernoulli model of the binary vectors x (n × d, every value 0 or 1)
// with Beta(a[j], b[j]) for feature j. It fails for no items, rows of different lengths, a value
// other than 0 or 1, a or b not of length d, or a hyperparameter not positive and finite.
func NewBernoulli(x [][]float64, a, b []float64) (*Bernoulli, error) {
	d, err := checkRows(x)
	if err != nil {
		return nil, err
	}
	if len(a) != d || len(b) != d {
		return nil, fmt.Errorf("conjugate: %d features but %d values of a and %d of b", d, len(a), len(b))
	}
	alpha := make([]float64, 2*d)
	for j := range d {
		if !positive(a[j]) || !positive(b[j]) {
			return nil, fmt.Errorf("conjugate: feature %d has Beta(%v, %v), want both positive and finite", j, a[j], b[j])
		}
		alpha[2*j], alpha[2*j+1] = b[j], a[j]
		if math.IsInf(a[j]+b[j], 1) {
			return nil, fmt.Errorf("conjugate: feature %d has Beta(%v, %v), whose sum a + b overflows", j, a[j], b[j])
		}
	}
	vals, err := categories(x, d, 2)
	if err != nil {
		return nil, err
	}
	return &Bernoulli{newDiscrete(len(x), d, 2, vals, alpha)}, nil
}

// BernoulliFromData returns the Beta hyperparameters of the Bioconductor BHC recipe
// (bayesian.md §5.3) for two values: a_j = cc·(m_j + 1)/(n + 1) and b_j = cc·(z_j + 1)/(n + 1),
// with m_j and z_j the numbers of items whose feature j is 1 and 0. cc is the global scale (the
// Bioconductor package optimises it for log p(D|T); 1 is its starting point). Values other than
// 0 and 1 are not counted (NewBernoulli rejects such x), and cc ≤ 0 gives hyperparameters
// NewBernoulli rejects.
func BernoulliFromData(x [][]float64, cc float64) (a, b []float64) {
	if len(x) == 0 {
		return nil, nil
	}
	d := len(x[0])
	a, b = make([]float64, d), make([]float64, d)
	for _, row := range x {
		for j, v := range row[:min(d, len(row))] {
			switch v {
			case 1:
				a[j]++
			case 0:
				b[j]++
			}
		}
	}
	n1 := float64(len(x) + 1)
	for j := range d {
		a[j] = cc * (a[j] + 1) / n1
		b[j] = cc * (b[j] + 1) / n1
	}
	return a, b
}

// Items returns the number of items.
func (m *Bernoulli) Items() int { return m.m.n }

// Dim returns the number of features d.
func (m *Bernoulli) Dim() int { return m.m.d }

// NewStore returns a store of the single items, with room for 2n − 1 clusters before it grows.
// A merge costs O(d) and log p(D) O(d) table look-ups.
func (m *Bernoulli) NewStore() Store { return m.m.newStore() }

// Categorical is the Dirichlet-categorical model: independent features, each taking a value in
// 0..V−1, feature j with a Dirichlet(A[0][j], …, A[V−1][j]) prior on its value probabilities.
// Build it with NewCategorical.
type Categorical struct{ m *discrete }

// NewCategorical builds the Dirichlet-categorical model of x (n × d, every value an integer in
// 0..V−1, stored as float64) with V = len(alpha) and Dirichlet parameters alpha[v][j] for value v
// of feature j. It fails for no items, rows of different lengths, alpha empty or with rows not of
// length d, a parameter not positive and finite, or a value of x outside 0..V−1.
func NewCategorical(x [][]float64, alpha [][]float64) (*Categorical, error) {
	d, err := checkRows(x)
	if err != nil {
		return nil, err
	}
	v := len(alpha)
	if v == 0 {
		return nil, fmt.Errorf("conjugate: no Dirichlet parameters (alpha has no rows)")
	}
	flat := make([]float64, v*d)
	for val, row := range alpha {
		if len(row) != d {
			return nil, fmt.Errorf("conjugate: alpha row %d has %d values, the items have %d features", val, len(row), d)
		}
		for j, a := range row {
			if !positive(a) {
				return nil, fmt.Errorf("conjugate: alpha[%d][%d] is %v, want positive and finite", val, j, a)
			}
			flat[j*v+val] = a
		}
	}
	for j := range d {
		sum := 0.0
		for val := range v {
			sum += flat[j*v+val]
		}
		if math.IsInf(sum, 1) {
			return nil, fmt.Errorf("conjugate: the Dirichlet parameters of feature %d sum to +Inf (lgamma of the sum, and log p, would be NaN)", j)
		}
	}
	vals, err := categories(x, d, v)
	if err != nil {
		return nil, err
	}
	return &Categorical{newDiscrete(len(x), d, v, vals, flat)}, nil
}

// categories converts x to values in 0..v−1.
func categories(x [][]float64, d, v int) ([]int32, error) {
	vals := make([]int32, 0, len(x)*d)
	for i, row := range x {
		for j, xv := range row {
			val, ok := category(xv, v)
			if !ok {
				if v == 2 {
					return nil, fmt.Errorf("conjugate: item %d feature %d is %v, want 0 or 1", i, j, xv)
				}
				return nil, fmt.Errorf("conjugate: item %d feature %d is %v, want an integer in 0..%d", i, j, xv, v-1)
			}
			vals = append(vals, int32(val))
		}
	}
	return vals, nil
}

// CategoricalFromData returns the Dirichlet parameters of the Bioconductor BHC recipe
// (bayesian.md §5.3, "the formula used by Katherine"): A[v][j] = cc·(c_vj + 1)/(n + 1), with c_vj
// the number of items whose feature j has value v, for v = 0..V−1 and V one more than the largest
// value in x. (Bioconductor takes V from its caller; to use more values than x shows, build alpha
// yourself.) Values that are not non-negative integers are not counted (NewCategorical rejects
// such x); it returns nil for no items.
func CategoricalFromData(x [][]float64, cc float64) [][]float64 {
	if len(x) == 0 {
		return nil
	}
	d := len(x[0])
	v := 1
	for _, row := range x {
		for _, xv := range row {
			if val, ok := category(xv, math.MaxInt32); ok {
				v = max(v, val+1)
			}
		}
	}
	alpha := make([][]float64, v)
	for val := range alpha {
		alpha[val] = make([]float64, d)
	}
	for _, row := range x {
		for j, xv := range row[:min(d, len(row))] {
			if val, ok := category(xv, v); ok {
				alpha[val][j]++
			}
		}
	}
	n1 := float64(len(x) + 1)
	for _, row := range alpha {
		for j := range row {
			row[j] = cc * (row[j] + 1) / n1
		}
	}
	return alpha
}

// Items returns the number of items.
func (m *Categorical) Items() int { return m.m.n }

// Dim returns the number of features d.
func (m *Categorical) Dim() int { return m.m.d }

// Values returns V, the number of values each feature takes.
func (m *Categorical) Values() int { return m.m.v }

// NewStore returns a store of the single items, with room for 2n − 1 clusters before it grows.
// A merge costs O((V−1)·d) and log p(D) O(V·d) table look-ups.
func (m *Categorical) NewStore() Store { return m.m.newStore() }
