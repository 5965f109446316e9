package trellis

import (
	"math"
	"math/bits"
	"math/rand/v2"
	"testing"

	"github.com/hcbench/hcbench/algorithms/model/ginkgo"
	"github.com/hcbench/hcbench/algorithms/model/ginkgo/ginkgotest"
)

// pruneModels returns Ginkgo 2020 jets for the pruning tests: random jets, a jet whose leaves
// come in identical pairs (so that many splits tie exactly, and the tie rule decides), and the
// collinear groups of TestAssemblyMatchesGo, where most splits take the slow path.
func pruneModels(t *testing.T) []*ginkgo.Model {
	rng := rand.New(rand.NewPCG(15, 4))
	var ms []*ginkgo.Model
	for _, n := range []int{8, 11, 13, 14} {
		ms = append(ms, ginkgotest.Model(t, ginkgotest.RandomJet(t, rng, n), ginkgo.Version2020))
	}
	j := ginkgotest.RandomJet(t, rng, 6)
	twins := append(append([][4]float64(nil), j.Leaves...), j.Leaves...)
	tw, err := ginkgo.New(twins, ginkgo.Params{Lambda: j.Lambda, LambdaRoot: j.Lambda, TCut: 1e-3})
	if err != nil {
		t.Fatal(err)
	}
	ms = append(ms, tw)
	var leaves [][4]float64
	for g := range 2 {
		for i := range 6 {
			e := float64(i + 1)
			leaves = append(leaves, [4]float64{e, e * float64(1-g), e * float64(g), 0})
		}
	}
	col, err := ginkgo.New(leaves, ginkgo.Params{Lambda: 1.5, LambdaRoot: 1.5, TCut: 1e-3})
	if err != nil {
		t.Fatal(err)
	}
	return append(ms, col)
}

// TestMAPPruneBitIdentical checks that the MAP-only seeding and sweep bound change nothing: with
// and without them, through the Go loops, the assembly and the wide assembly, with and without a
// count, with 1 and 2 workers, the tables are equal bit for bit, backpointers (ties) included.
func TestMAPPruneBitIdentical(t *testing.T) {
	asm, wide := useAsm, useWide
	defer func() { useAsm, useWide = asm, wide }()
	for _, m := range pruneModels(t) {
		for _, opts := range []Options{
			{blockBits: 4, MAPOnly: true, NoCount: true},
			{blockBits: 4, MAPOnly: true},
			{blockBits: 6, MAPOnly: true, NoCount: true, Workers: 2},
			{blockBits: 3, MAPOnly: true, NoCount: true, Workers: 2},
		} {
			for _, loops := range [][2]bool{{false, false}, {asm, false}, {asm, wide}} {
				useAsm, useWide = loops[0], loops[1]
				o := opts
				o.noPrune = true
				ref := build(t, m, o)
				got := build(t, m, opts)
				for x := range ref.nodes {
					if !sameBits(got.nodes[x], ref.nodes[x]) || got.bp[x] != ref.bp[x] || (ref.count != nil && math.Float64bits(got.count[x]) != math.Float64bits(ref.count[x])) {
						t.Fatalf("N=%d %+v (asm %v, wide %v): subset %v: %+v (bp %d) pruned, %+v (bp %d) not", m.Items(), opts, loops[0], loops[1], Items(uint32(x)), got.nodes[x], got.bp[x], ref.nodes[x], ref.bp[x])
					}
				}
			}
		}
	}
}

// TestSweepBound checks the bound that lets a sweep skip a parent, on the final tables of
// MAP-only passes: for every cross sweep, parent and split, both first bounds of the split loops
// (splitsMAPGo's, and the wide loop's without its term maxSlope·t_max) as they round them are at
// most the parent's pruneC() + bound[k]; and the bound is tight enough to skip some parents at
// their final best.
func TestSweepBound(t *testing.T) {
	var checked, skipped int
	for _, m := range pruneModels(t) {
		const b = 4
		tr := build(t, m, Options{blockBits: b, MAPOnly: true, NoCount: true})
		k := newGinkgoKernel(tr, m)
		hBits := tr.n - b
		for xh := range uint32(1) << hBits {
			k.blockFinished(xh)
		}
		sc := make([]acc, 1<<b)
		for xh := uint32(1); xh < 1<<hBits; xh++ {
			tr.reset(sc)
			k.prepare(xh, sc)
			for lh := (0 - xh) & xh; lh != xh; lh = (lh - xh) & xh {
				var bound [33]float64
				k.sweepBound(lh, xh^lh, &bound)
				for xl := uint32(1); xl < 1<<b; xl++ {
					a := &sc[xl]
					if a.skip {
						continue
					}
					lim := a.pruneC() + bound[bits.OnesCount32(xl)]
					maxC, maxSlope, negLogNorm := a.c[gkMaxC], a.c[gkMaxSlope], a.c[gkNegLogNorm]
					low := xl & -xl
					rest := xl ^ low
					for u := rest; ; u = (u - 1) & rest {
						nl, nr := &tr.nodes[lh<<b|low|u], &tr.nodes[(xh^lh)<<b|(rest^u)]
						goBound := maxC + maxSlope*max(nl.t, nr.t) + negLogNorm + max(nl.z, nr.z) + (nl.m + nr.m)
						wideBound := (maxC + negLogNorm) + max(nl.z, nr.z) + (nl.m + nr.m)
						if goBound > lim || wideBound > lim {
							t.Fatalf("N=%d block %d sweep (%d, %d) parent %d: split bounds %v, %v over the parent's %v", tr.n, xh, lh, xh^lh, xl, goBound, wideBound, lim)
						}
						checked++
						if u == 0 {
							break
						}
					}
					if lim < tr.nodes[xh<<b|xl].m {
						skipped++
					}
				}
			}
		}
	}
	if checked == 0 || skipped == 0 {
		t.Fatalf("%d splits checked, %d parent sweeps skipped at their final best: the test checks nothing", checked, skipped)
	}
	t.Logf("%d splits checked, %d parent sweeps skipped at their final best", checked, skipped)
}

// TestSeedParents checks the seeds of MAP-only passes on their final tables: a seed is the value
// of the split it names as the loops compute it, so at most the parent's final best; and it is
// that best for at least a third of the seeded parents of a random jet of 14 items (70 % at
// N = 20).
func TestSeedParents(t *testing.T) {
	for i, m := range pruneModels(t) {
		const b = 5
		tr := build(t, m, Options{blockBits: b, MAPOnly: true, NoCount: true})
		k := newGinkgoKernel(tr, m)
		sc := make([]acc, 1<<b)
		var seeded, hits int
		for xh := uint32(1); xh < 1<<(tr.n-b); xh++ {
			tr.reset(sc)
			k.prepare(xh, sc)
			for xl := range uint32(1) << b {
				a := &sc[xl]
				if a.bestL == noSplit {
					continue
				}
				x := xh<<b | xl
				seeded++
				if l := a.bestL; l&^x != 0 || l&(x&-x) == 0 || l == x || math.Float64bits(k.mapSplit(a, l, x^l)) != math.Float64bits(a.best) {
					t.Fatalf("N=%d subset %v: seed %v of split %v does not match", tr.n, Items(x), a.best, Items(a.bestL))
				}
				if a.best > tr.nodes[x].m {
					t.Fatalf("N=%d subset %v: seed %v over the final best %v", tr.n, Items(x), a.best, tr.nodes[x].m)
				}
				if a.best == tr.nodes[x].m {
					hits++
				}
			}
		}
		t.Logf("N=%d: %d of %d seeds are the final best", tr.n, hits, seeded)
		if i == 3 && (seeded == 0 || 3*hits < seeded) {
			t.Errorf("N=%d: %d of %d seeds are the final best, want at least a third", tr.n, hits, seeded)
		}
	}
}
