package trellis

import (
	"math/rand/v2"
	"testing"

	"hcbench/algorithms/model/ginkgo"
	"hcbench/algorithms/model/ginkgo/ginkgotest"
)

// TestAssemblyMatchesGo runs each jet through the split loops in use (the assembly on amd64, wide
// loops included where the CPU has AVX2), through the assembly without the wide loops, and through
// the Go loops: the tables must be equal bit for bit, since all do the same floating-point
// operations in the same order.
func TestAssemblyMatchesGo(t *testing.T) {
	asm, wide := useAsm, useWide
	defer func() { useAsm, useWide = asm, wide }()
	rng := rand.New(rand.NewPCG(11, 12))
	for _, n := range []int{3, 5, 8, 11, 13} {
		for range 3 {
			m := ginkgotest.Model(t, ginkgotest.RandomJet(t, rng, n), ginkgo.Version2020)
			for _, opts := range []Options{
				{blockBits: 4}, {blockBits: 4, MAPOnly: true}, {blockBits: 4, MAPOnly: true, NoCount: true},
				{blockBits: 8}, {blockBits: 8, NoCount: true}, {blockBits: 8, MAPOnly: true, NoCount: true},
			} {
				useAsm, useWide = false, false
				g := build(t, m, opts)
				for _, w := range []bool{wide, false} {
					useAsm, useWide = asm, w
					a := build(t, m, opts)
					for x := range a.nodes {
						if a.nodes[x] != g.nodes[x] || a.bp[x] != g.bp[x] || (a.count != nil && a.count[x] != g.count[x]) {
							t.Fatalf("N=%d %+v (wide loops %v): subset %v: %+v (bp %d) in use, %+v (bp %d) in Go", n, opts, w, Items(uint32(x)), a.nodes[x], a.bp[x], g.nodes[x], g.bp[x])
						}
					}
				}
			}
		}
	}
}
