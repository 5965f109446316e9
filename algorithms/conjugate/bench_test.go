package conjugate_test

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/hcbench/hcbench/algorithms/conjugate"
)

var sink float64

// benchStore measures what BHC does per candidate pair: Merge two clusters and evaluate LogML of
// the union (union=false), or LogMLUnion without storing it (union=true). Pairs are random
// distinct singletons of n = 1000 items (the costs do not depend on the cluster sizes). The store
// is grown to 2^16 extra ids before timing and truncated back to the singletons every 2^16
// merges, so the loop reuses warm memory and never allocates.
func benchStore(b *testing.B, m conjugate.Model, union bool) {
	n := m.Items()
	rng := rand.New(rand.NewPCG(1, 2))
	pairs := make([][2]int, 4096)
	for i := range pairs {
		a := rng.IntN(n)
		c := (a + 1 + rng.IntN(n-1)) % n
		pairs[i] = [2]int{a, c}
	}
	s := m.NewStore()
	for k := 0; s.Len() < n+1<<16; k++ { // grow the store once, before timing
		s.Merge(pairs[k%len(pairs)][0], pairs[k%len(pairs)][1])
	}
	s.Truncate(n)
	b.ReportAllocs()
	k := 0
	for b.Loop() {
		p := pairs[k%len(pairs)]
		k++
		if union {
			sink += s.LogMLUnion(p[0], p[1])
			continue
		}
		sink += s.LogML(s.Merge(p[0], p[1]))
		if s.Len() >= n+1<<16 {
			s.Truncate(n)
		}
	}
}

func BenchmarkNIW(b *testing.B) {
	for _, d := range []int{4, 13} { // iris, wine
		rng := rand.New(rand.NewPCG(3, 4))
		x := randomPoints(rng, 1000, d)
		p, err := conjugate.NIWFromData(x, 20, 0.001)
		if err != nil {
			b.Fatal(err)
		}
		m, err := conjugate.NewNIW(x, p)
		if err != nil {
			b.Fatal(err)
		}
		b.Run(fmt.Sprintf("d=%d/Merge+LogML", d), func(b *testing.B) { benchStore(b, m, false) })
		b.Run(fmt.Sprintf("d=%d/LogMLUnion", d), func(b *testing.B) { benchStore(b, m, true) })
		b.Run(fmt.Sprintf("d=%d/LogPredictive", d), func(b *testing.B) {
			s := m.NewStore()
			c := s.Cluster(rng.Perm(1000)[:100])
			b.ReportAllocs()
			k := 0
			for b.Loop() {
				sink += s.LogPredictive(c, x[k%1000])
				k++
			}
		})
	}
}

func BenchmarkBernoulli(b *testing.B) {
	d := 64 // binarised 8×8 digits
	x := randomValues(rand.New(rand.NewPCG(5, 6)), 1000, d, 2)
	a, bb := conjugate.BernoulliFromData(x, 1)
	m, err := conjugate.NewBernoulli(x, a, bb)
	if err != nil {
		b.Fatal(err)
	}
	b.Run("d=64/Merge+LogML", func(b *testing.B) { benchStore(b, m, false) })
	b.Run("d=64/LogMLUnion", func(b *testing.B) { benchStore(b, m, true) })
}

func BenchmarkCategorical(b *testing.B) {
	d, v := 13, 5
	x := randomValues(rand.New(rand.NewPCG(7, 8)), 1000, d, v)
	m, err := conjugate.NewCategorical(x, conjugate.CategoricalFromData(x, 1))
	if err != nil {
		b.Fatal(err)
	}
	b.Run("d=13/V=5/Merge+LogML", func(b *testing.B) { benchStore(b, m, false) })
}
