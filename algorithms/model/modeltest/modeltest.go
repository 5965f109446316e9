// Package modeltest provides split-potential models for tests: log ψ given directly as a function
// of the two item sets, so that a test can state constant potentials, ties and −Inf splits, or
// draw a random potential that every algorithm sees the same way.
package modeltest

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/hcbench/hcbench/algorithms/model"
)

// Func is a model over N items whose log ψ(l, r) is Psi(l, r), item sets given as bitmasks (N ≤
// 30). It implements model.Model and model.SubsetModel. Psi must be symmetric.
type Func struct {
	N   int
	Psi func(l, r uint32) float64
}

// Items returns N.
func (f Func) Items() int { return f.N }

// NewClusters returns a mask-based cluster store.
func (f Func) NewClusters() model.Clusters {
	c := &clusters{f: f}
	for i := range f.N {
		c.masks = append(c.masks, 1<<i)
	}
	return c
}

// SubsetBytes is 0: the scorer holds no tables.
func (f Func) SubsetBytes() int { return 0 }

// NewSubsetScorer returns Psi as a scorer.
func (f Func) NewSubsetScorer() (model.SubsetScorer, error) { return scorer(f.Psi), nil }

type scorer func(l, r uint32) float64

func (s scorer) LogPsi(l, r uint32) float64 { return s(l, r) }

type clusters struct {
	f     Func
	masks []uint32
}

func (c *clusters) Merge(a, b int) int {
	c.masks = append(c.masks, c.masks[a]|c.masks[b])
	return len(c.masks) - 1
}

func (c *clusters) Cluster(items []int) int {
	var m uint32
	for _, i := range items {
		m |= 1 << i
	}
	c.masks = append(c.masks, m)
	return len(c.masks) - 1
}

func (c *clusters) LogPsi(a, b int) float64 { return c.f.Psi(c.masks[a], c.masks[b]) }

// Constant returns the model with log ψ ≡ v over n items.
func Constant(n int, v float64) Func {
	return Func{N: n, Psi: func(l, r uint32) float64 { return v }}
}

// Random returns a model over n items whose log ψ(l, r) is a fixed pseudo-random function of the
// unordered pair {l, r} and seed: uniform in [−4, 0), or −Inf with probability pInf.
func Random(n int, seed uint64, pInf float64) Func {
	return Func{N: n, Psi: func(l, r uint32) float64 {
		if l > r {
			l, r = r, l
		}
		h := splitmix(seed ^ uint64(l)<<32 ^ uint64(r))
		u := float64(h>>11) / (1 << 53)
		if u < pInf {
			return math.Inf(-1)
		}
		return -4 * float64(splitmix(h)>>11) / (1 << 53)
	}}
}

func splitmix(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9
	x = (x ^ (x >> 27)) * 0x94d049bb133111eb
	return x ^ (x >> 31)
}

// CheckRelabel checks a model.Relabeler: it renumbers b, a model equal to a over n ≥ 2 items,
// by order, and fails tb unless every split scores in b as the same split of the former items
// scores in a: exactly (to the bit, −Inf included) for random disjoint item sets that Cluster and
// Merge make in the same sequence of items, and to 1e-12 relative (plus 1e-12: the subset tables
// sum items in index order, which the renumbering changes) for random subset masks of a
// model.SubsetModel of at most 20 items. rng draws them.
func CheckRelabel(tb testing.TB, a, b model.Relabeler, order []int, rng *rand.Rand) {
	tb.Helper()
	n := a.Items()
	b.Relabel(order)
	if b.Items() != n || n < 2 {
		tb.Fatalf("relabelled model has %d items, the model %d (at least 2)", b.Items(), n)
	}
	former := func(items []int) []int {
		out := make([]int, len(items))
		for k, i := range items {
			out[k] = order[i]
		}
		return out
	}
	// split draws two disjoint, non-empty item sets.
	split := func() (l, r []int) {
		perm := rng.Perm(n)
		k := 1 + rng.IntN(n-1)
		return perm[:k], perm[k : k+1+rng.IntN(n-k)]
	}
	same := func(x, y float64) bool { return math.Float64bits(x) == math.Float64bits(y) }
	ca, cb := a.NewClusters(), b.NewClusters()
	for range 200 {
		l, r := split()
		la, lb := ca.Cluster(former(l)), cb.Cluster(l)
		ra, rb := order[r[0]], r[0]
		for _, i := range r[1:] {
			ra, rb = ca.Merge(ra, order[i]), cb.Merge(rb, i)
		}
		if x, y := ca.LogPsi(la, ra), cb.LogPsi(lb, rb); !same(x, y) {
			tb.Fatalf("log ψ(%v, %v) = %v relabelled, %v before as log ψ(%v, %v)", l, r, y, x, former(l), former(r))
		}
	}
	sa, ok := a.(model.SubsetModel)
	if !ok || n > 20 {
		return
	}
	ssa, err := sa.NewSubsetScorer()
	if err != nil {
		tb.Fatal(err)
	}
	ssb, err := b.(model.SubsetModel).NewSubsetScorer()
	if err != nil {
		tb.Fatal(err)
	}
	mask := func(items []int) uint32 {
		var x uint32
		for _, i := range items {
			x |= 1 << i
		}
		return x
	}
	for range 500 {
		l, r := split()
		x, y := ssa.LogPsi(mask(former(l)), mask(former(r))), ssb.LogPsi(mask(l), mask(r))
		if !same(x, y) && !(math.Abs(x-y) <= 1e-12*(1+math.Abs(x))) {
			tb.Fatalf("subset log ψ(%v, %v) = %v relabelled, %v before", l, r, y, x)
		}
	}
}
