package trellis

import (
	"math/bits"
	"math/rand/v2"
	"sync/atomic"
	"testing"

	"github.com/hcbench/hcbench/algorithms/model/ginkgo"
	"github.com/hcbench/hcbench/algorithms/model/ginkgo/ginkgotest"
	"github.com/hcbench/hcbench/algorithms/model/modeltest"
)

// pow returns b^k.
func pow(b, k int64) int64 {
	p := int64(1)
	for range k {
		p *= b
	}
	return p
}

// TestCountersClosedForm checks the counters of a pass that takes every subset against their
// closed forms: 2^N − N − 1 subsets of two or more items and (3^N − 2^(N+1) + 1)/2 unordered
// splits, every one of which has its log ψ computed, which a model that counts its own calls
// confirms; for N = 3..10, and for 1 and 3 workers and several block sizes.
func TestCountersClosedForm(t *testing.T) {
	for n := int64(3); n <= 10; n++ {
		subsets, splits := pow(2, n)-n-1, (pow(3, n)-pow(2, n+1)+1)/2
		for _, opts := range []Options{{Workers: 1}, {Workers: 3, blockBits: 2}, {Workers: 1, blockBits: 4, MAPOnly: true}, {Workers: 2, blockBits: 3, NoCount: true}} {
			var calls atomic.Int64
			m := modeltest.Random(int(n), uint64(n), 0.1)
			psi := m.Psi
			m.Psi = func(l, r uint32) float64 { calls.Add(1); return psi(l, r) }
			c := build(t, m, opts).Counters()
			want := Counters{Subsets: subsets, Splits: splits, Energies: splits}
			if c != want {
				t.Errorf("N=%d %+v: counters %+v, want %+v", n, opts, c, want)
			}
			if calls.Load() != c.Energies {
				t.Errorf("N=%d %+v: %d energies counted, the model computed %d", n, opts, c.Energies, calls.Load())
			}
		}
	}
}

// TestGinkgoCounters checks the Ginkgo kernel's counters: its subsets are those at or above t_cut
// (recounted from the jet's masses) with all their splits; a pass with log Z computes every
// split's ψ; a MAP-only pass prunes, by the same count whatever the workers or split loops (Go,
// assembly, wide assembly), which take the same decisions.
func TestGinkgoCounters(t *testing.T) {
	asm, wide := useAsm, useWide
	defer func() { useAsm, useWide = asm, wide }()
	rng := rand.New(rand.NewPCG(5, 6))
	for _, n := range []int{6, 9, 12, 13} {
		m := ginkgotest.Model(t, ginkgotest.RandomJet(t, rng, n), ginkgo.Version2020)
		leaves, tcut := m.Leaves(), m.Params().TCut
		var want Counters
		for x := uint32(1); x < 1<<n; x++ {
			var p [4]float64
			for i := range n {
				if x&(1<<i) != 0 {
					p = ginkgo.Add(p, leaves[i])
				}
			}
			if k := bits.OnesCount32(x); k > 1 && ginkgo.MassSquared(p) >= tcut {
				want.Subsets++
				want.Splits += 1<<(k-1) - 1
			}
		}
		if want.Subsets == 0 || want.Subsets == pow(2, int64(n))-int64(n)-1 {
			t.Fatalf("N=%d: %d subsets above t_cut: the jet does not test the skipped subsets", n, want.Subsets)
		}
		want.Energies = want.Splits
		for _, opts := range []Options{{Workers: 1}, {Workers: 2, blockBits: 4}, {Workers: 1, NoCount: true, blockBits: 5}} {
			if c := build(t, m, opts).Counters(); c != want {
				t.Errorf("N=%d %+v: counters %+v, want %+v", n, opts, c, want)
			}
		}
		// The block size orders each parent's splits, and so what the bound prunes; it is fixed
		// (blockBits), so the counters are compared at each size.
		for _, count := range []bool{false, true} {
			for _, b := range []int{0, 4, 5} {
				var ref Counters
				for i, cfg := range []struct {
					workers   int
					asm, wide bool
				}{{1, asm, wide}, {3, asm, wide}, {2, asm, false}, {1, false, false}, {4, false, false}} {
					useAsm, useWide = cfg.asm, cfg.wide
					c := build(t, m, Options{MAPOnly: true, NoCount: !count, Workers: cfg.workers, blockBits: b}).Counters()
					if c.Subsets != want.Subsets || c.Splits != want.Splits || c.Energies+c.Pruned != c.Splits {
						t.Errorf("N=%d map, count %v, block bits %d, %+v: counters %+v, want subsets and splits %+v", n, count, b, cfg, c, want)
					}
					if n >= 9 && c.Pruned == 0 {
						t.Errorf("N=%d map, count %v, block bits %d, %+v: nothing pruned", n, count, b, cfg)
					}
					if i == 0 {
						ref = c
					} else if c != ref {
						t.Errorf("N=%d map, count %v, block bits %d, %+v: counters %+v, want %+v as with 1 worker", n, count, b, cfg, c, ref)
					}
				}
			}
		}
	}
}
