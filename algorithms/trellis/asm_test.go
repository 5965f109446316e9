package trellis

import (
	"math/rand/v2"
	"testing"

	"hcbench/algorithms/model/ginkgo"
	"hcbench/algorithms/model/ginkgo/ginkgotest"
)

// TestAssemblyMatchesGo runs each jet through the split loops in use (the assembly on amd64) and
// through the Go loops: the tables must be equal bit for bit, since both do the same
// floating-point operations in the same order.
func TestAssemblyMatchesGo(t *testing.T) {
	full, mapOnly := splitsFull, splitsMAP
	defer func() { splitsFull, splitsMAP = full, mapOnly }()
	rng := rand.New(rand.NewPCG(11, 12))
	for _, n := range []int{3, 5, 8, 11, 13} {
		for range 3 {
			m := ginkgotest.Model(t, ginkgotest.RandomJet(t, rng, n), ginkgo.Version2020)
			for _, opts := range []Options{{blockBits: 4}, {blockBits: 4, MAPOnly: true}, {blockBits: 4, MAPOnly: true, NoCount: true}} {
				splitsFull, splitsMAP = full, mapOnly
				a := build(t, m, opts)
				splitsFull, splitsMAP = splitsFullGo, splitsMAPGo
				g := build(t, m, opts)
				for x := range a.nodes {
					if a.nodes[x] != g.nodes[x] || a.bp[x] != g.bp[x] || (a.count != nil && a.count[x] != g.count[x]) {
						t.Fatalf("N=%d %+v: subset %v: %+v (bp %d) in use, %+v (bp %d) in Go", n, opts, Items(uint32(x)), a.nodes[x], a.bp[x], g.nodes[x], g.bp[x])
					}
				}
			}
		}
	}
}
