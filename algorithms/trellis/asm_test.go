package trellis

import (
	"math"
	"math/bits"
	"math/rand/v2"
	"testing"
	"unsafe"

	"github.com/hcbench/hcbench/algorithms/model/ginkgo"
	"github.com/hcbench/hcbench/algorithms/model/ginkgo/ginkgotest"
)

// TestAssemblyMatchesGo runs each jet through the split loops in use (the assembly on amd64, wide
// loops included where the CPU has AVX2), through the assembly without the wide loops, and through
// the Go loops: the tables must be equal bit for bit, since all do the same floating-point
// operations in the same order.
func TestAssemblyMatchesGo(t *testing.T) {
	asm, wide := useAsm, useWide
	defer func() { useAsm, useWide = asm, wide }()
	if !wide {
		t.Log("this CPU has no AVX2: the wide loops are not checked")
	}
	rng := rand.New(rand.NewPCG(11, 12))
	var models []*ginkgo.Model
	for _, n := range []int{3, 5, 8, 11, 13} {
		for range 3 {
			models = append(models, ginkgotest.Model(t, ginkgotest.RandomJet(t, rng, n), ginkgo.Version2020))
		}
	}
	// Two groups of 6 collinear massless leaves, one group after the other: every cluster within a
	// group has t = 0, so most splits take the slow path, and the low block (a group's first
	// leaves) makes parents defer more slow splits than their buffer holds, which random jets never
	// do (a coverage run shows the overflow path taken).
	var leaves [][4]float64
	for g := range 2 {
		for i := range 6 {
			e := float64(i + 1)
			leaves = append(leaves, [4]float64{e, e * float64(1-g), e * float64(g), 0})
		}
	}
	for _, tc := range []float64{1e-3, 1} {
		m, err := ginkgo.New(leaves, ginkgo.Params{Lambda: 1.5, LambdaRoot: 1.5, TCut: tc})
		if err != nil {
			t.Fatal(err)
		}
		models = append(models, m)
	}
	for _, m := range models {
		n := m.Items()
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
					if !sameBits(a.nodes[x], g.nodes[x]) || a.bp[x] != g.bp[x] || (a.count != nil && math.Float64bits(a.count[x]) != math.Float64bits(g.count[x])) {
						t.Fatalf("N=%d %+v (wide loops %v): subset %v: %+v (bp %d) in use, %+v (bp %d) in Go", n, opts, w, Items(uint32(x)), a.nodes[x], a.bp[x], g.nodes[x], g.bp[x])
					}
				}
			}
		}
	}
}

// sameBits reports whether two nodes hold the same bits (== would let −0 pass for +0 and fail
// on NaN).
func sameBits(a, b node) bool {
	return math.Float64bits(a.t) == math.Float64bits(b.t) && math.Float64bits(a.s) == math.Float64bits(b.s) &&
		math.Float64bits(a.m) == math.Float64bits(b.m) && math.Float64bits(a.z) == math.Float64bits(b.z)
}

// TestWideMAPTakesSmallParents checks that the wide MAP-only loop takes every parent of a cross
// sweep but xl = 0 itself, those with one or two splits included, and leaves none to the Go code
// (a return to Go per such parent cost about 4 % of the MAP-only pass): it may stop only at hi, or
// at a parent whose slow splits it deferred. TestAssemblyMatchesGo checks the values.
func TestWideMAPTakesSmallParents(t *testing.T) {
	if !useAsm || !useWide {
		t.Skip("no wide loops on this CPU")
	}
	m := ginkgotest.Model(t, ginkgotest.RandomJet(t, rand.New(rand.NewPCG(3, 4)), 9), ginkgo.Version2020)
	const b = 6 // high parts of 3 bits: block 7 has the cross sweeps (1, 6), (2, 5), …
	tr := build(t, m, Options{blockBits: b, MAPOnly: true, NoCount: true})
	k := newGinkgoKernel(tr, m)
	nb := uint32(1) << b
	sc := make([]acc, nb)
	const xh = 7
	var small int
	for lh := uint32(1); lh < xh; lh++ {
		tr.reset(sc)
		k.prepare(xh, sc)
		p := parentSweep{nodes: unsafe.Pointer(unsafe.SliceData(tr.nodes)), lb: uintptr(lh) << (b + nodeShift), rb: uintptr(xh^lh) << (b + nodeShift)}
		for xl := uint32(1); xl < nb; xl++ {
			if sc[xl].skip {
				continue
			}
			if bits.OnesCount32(xl) <= 2 {
				small++
			}
			got := wideMAPParents(&p, sc, xl, nb)
			if got == nb {
				break
			}
			if p.nSlow == 0 && p.over == 0 {
				t.Fatalf("sweep (%d, %d): the wide loop left parent %b (%d splits) to the caller", lh, xh^lh, got, 1<<(bits.OnesCount32(got)-1))
			}
			xl = got // its slow splits deferred; go on after it
		}
	}
	if small == 0 {
		t.Fatal("no parent with one or two splits was tried: the test checks nothing")
	}
}
