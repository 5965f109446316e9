package trellis

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"syscall"
	"testing"
	"time"
	"unsafe"

	"github.com/hcbench/hcbench/algorithms/model/ginkgo"
	"github.com/hcbench/hcbench/algorithms/model/ginkgo/ginkgotest"
	"github.com/hcbench/hcbench/algorithms/model/modeltest"
)

// The reference for the MAP-only pass's speed: the probe's "blkmap" kernel of
// ../shared/design/trellis-performance.md, rewritten from the note's description. Its model is the
// note's: massless leaves (t = 0), t of a cluster its invariant mass², and
//
//	log ψ(L, R | P) = 2(log λ − log t_P − log(1 − e^{−λ})) − λ(t_L + t_R)/t_P,
//
// with −Inf for t_P ≤ 0. A split costs a·(t_L + t_R) + m_L + m_R with the parent's a = −λ/t_P
// hoisted, and the parent's constant 2(…) is added once at the end. The loop is the note's lean
// one: nodes of 32 bytes in one array, children addressed by byte offsets, the submasks stepped
// as sub = (sub − 32) & rest, no kinematic check, and no backpointers (recovered afterwards by
// re-scanning the MAP tree's nodes). The order is the note's blocked one: high part X_H in
// increasing order, for each of its ordered high splits a sweep over all 2^b low parts, then the
// two intra-block sweeps in increasing X_l.

// probeNode is a subset's node: t, the MAP log-potential m (while the pass runs, the best split
// value so far), the parent's slope a = −λ/t_P and constant c (after the pass, the best split
// value, for the backpointers).
type probeNode struct{ t, m, a, c float64 }

const probeShift = 5

// probePass holds the probe's table.
type probePass struct {
	n, b  int
	nodes []probeNode
	lam   float64
}

// probeT returns t of every subset in the note's convention: 0 for a single leaf, else the
// invariant mass² of the summed momentum.
func probeT(leaves [][4]float64) []float64 {
	n := len(leaves)
	h := n / 2
	low, high := ginkgo.SubsetSums(leaves[:h]), ginkgo.SubsetSums(leaves[h:])
	t := make([]float64, 1<<n)
	for x := 1; x < len(t); x++ {
		if x&(x-1) != 0 {
			t[x] = ginkgo.MassSquared(ginkgo.Add(low[x&(1<<h-1)], high[x>>h]))
		}
	}
	return t
}

// probeModel is the note's model as a model.SubsetModel, for the trellis's generic path.
func probeModel(leaves [][4]float64, lam float64) modeltest.Func {
	t := probeT(leaves)
	c := 2 * (math.Log(lam) - math.Log(-math.Expm1(-lam)))
	return modeltest.Func{N: len(leaves), Psi: func(l, r uint32) float64 {
		tp := t[l|r]
		if !(tp > 0) {
			return math.Inf(-1)
		}
		return c - 2*math.Log(tp) - lam*(t[l]+t[r])/tp
	}}
}

// runProbe runs the reference pass over the leaves with blocks of b low bits.
func runProbe(leaves [][4]float64, lam float64, b int) *probePass {
	n := len(leaves)
	b = min(b, n)
	p := &probePass{n: n, b: b, nodes: make([]probeNode, 1<<n), lam: lam}
	c0 := 2 * (math.Log(lam) - math.Log(-math.Expm1(-lam)))
	for x, tx := range probeT(leaves) {
		nd := &p.nodes[x]
		nd.t, nd.m = tx, math.Inf(-1)
		switch {
		case x&(x-1) == 0:
			nd.m = 0
		case tx > 0:
			nd.a, nd.c = -lam/tx, c0-2*math.Log(tx)
		default:
			nd.c = math.Inf(-1)
		}
	}
	base := unsafe.Pointer(unsafe.SliceData(p.nodes))
	nb := uintptr(1) << b
	bs := uint(b + probeShift) // a block's byte offset is X_H << bs
	for xh := uintptr(0); xh < 1<<(n-b); xh++ {
		xb := xh << bs
		if xh != 0 {
			lowH := xh & -xh
			for lh := (0 - xh) & xh; lh != xh; lh = (lh - xh) & xh {
				probeSweep(base, xb, lh<<bs, (xh^lh)<<bs, nb, lh&lowH != 0)
			}
		}
		for xl := uintptr(0); xl < nb; xl++ {
			pn := (*probeNode)(unsafe.Add(base, xb|xl<<probeShift))
			if xl != 0 {
				lowO := (xl & -xl) << probeShift
				restO := xl<<probeShift ^ lowO
				best := pn.m
				if xh == 0 {
					best = probeSplits(base, lowO, 0, restO, pn.a, best, true)
				} else {
					best = probeSplits(base, xb|lowO, 0, restO, pn.a, best, true)
					best = probeSplits(base, lowO, xb, restO, pn.a, best, false)
				}
				pn.m = best
			}
			if x := xh<<b | xl; x&(x-1) != 0 { // a leaf keeps m = 0
				pn.m, pn.c = pn.c+pn.m, pn.m
			}
		}
	}
	return p
}

// probeSweep adds the cross splits with children in the blocks at byte offsets lb and rb to the
// parents of the block at xb; the parent with low part 0 has the one split (lb, rb) when zero is
// set (its L child must hold its lowest item).
func probeSweep(base unsafe.Pointer, xb, lb, rb, nb uintptr, zero bool) {
	if zero {
		pn := (*probeNode)(unsafe.Add(base, xb))
		l, r := (*probeNode)(unsafe.Add(base, lb)), (*probeNode)(unsafe.Add(base, rb))
		if v := pn.a*(l.t+r.t) + l.m + r.m; v > pn.m {
			pn.m = v
		}
	}
	for xl := uintptr(1); xl < nb; xl++ {
		pn := (*probeNode)(unsafe.Add(base, xb|xl<<probeShift))
		lowO := (xl & -xl) << probeShift
		pn.m = probeSplits(base, lb|lowO, rb, xl<<probeShift^lowO, pn.a, pn.m, false)
	}
}

// probeSplits is the lean loop: the best of best and a·(t_L + t_R) + m_L + m_R over the children
// L = lb|sub and R = rb|(restO^sub), sub ⊆ restO (offsets in bytes); proper leaves out
// sub = restO, whose R would be empty when rb is 0.
func probeSplits(base unsafe.Pointer, lb, rb, restO uintptr, a, best float64, proper bool) float64 {
	sub := restO
	if proper {
		sub = (restO - 1<<probeShift) & restO
		if restO == 0 {
			return best
		}
	}
	for {
		l := (*probeNode)(unsafe.Add(base, lb|sub))
		r := (*probeNode)(unsafe.Add(base, rb|(restO^sub)))
		if v := a*(l.t+r.t) + l.m + r.m; v > best {
			best = v
		}
		if sub == 0 {
			return best
		}
		sub = (sub - 1<<probeShift) & restO
	}
}

// mapValue returns the MAP log-potential.
func (p *probePass) mapValue() float64 { return p.nodes[len(p.nodes)-1].m }

// mapLeft returns the child L (holding the lowest item) of a split of x whose value is x's best,
// recomputed by the loop's expression, so that it matches bit for bit; 0 when x has no finite
// split.
func (p *probePass) mapLeft(x uint32) uint32 {
	pn := &p.nodes[x]
	low := x & -x
	rest := x ^ low
	for u := (rest - 1) & rest; ; u = (u - 1) & rest {
		l, r := &p.nodes[low|u], &p.nodes[rest^u]
		if pn.a*(l.t+r.t)+l.m+r.m == pn.c {
			return low | u
		}
		if u == 0 {
			return 0
		}
	}
}

// mapTreeScore returns the MAP tree's log-potential under psi, the tree read off the lazily
// recovered backpointers.
func (p *probePass) mapTreeScore(psi func(l, r uint32) float64) float64 {
	var walk func(x uint32) float64
	walk = func(x uint32) float64 {
		if x&(x-1) == 0 {
			return 0
		}
		l := p.mapLeft(x)
		if l == 0 {
			return math.Inf(-1)
		}
		return psi(l, x^l) + walk(l) + walk(x^l)
	}
	return walk(uint32(len(p.nodes) - 1))
}

// TestProbeReference checks that the reference kernel is a full, correct pass: its MAP value
// equals the trellis's (generic path, same model) to 1e-12 relative, for several block sizes
// (b = N is the unblocked order), and the tree its lazy backpointers give scores that value. The
// tolerance covers the reference's other order of roundings ((c + a·t) + m against ψ + m, over
// N − 1 splits of size ≲ 100).
func TestProbeReference(t *testing.T) {
	rng := rand.New(rand.NewPCG(15, 4))
	for _, n := range []int{2, 3, 5, 9, 12, 13} {
		j := ginkgotest.RandomJet(t, rng, n)
		m := probeModel(j.Leaves, j.Lambda)
		want := build(t, m, Options{MAPOnly: true, NoCount: true}).MAPValue()
		for _, b := range []int{2, 4, 10, n} {
			p := runProbe(j.Leaves, j.Lambda, b)
			got := p.mapValue()
			if math.Abs(got-want) > 1e-12*max(1, math.Abs(want)) || math.IsInf(want, 0) {
				t.Errorf("N=%d b=%d: reference MAP %v, trellis %v", n, b, got, want)
			}
			if s := p.mapTreeScore(m.Psi); math.Abs(s-want) > 1e-12*max(1, math.Abs(want)) {
				t.Errorf("N=%d b=%d: the reference's MAP tree scores %v, want %v", n, b, s, want)
			}
		}
	}
}

// cpuTime returns the process's user + system CPU time.
func cpuTime(tb testing.TB) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		tb.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkMAPOnlyVsProbe runs, back to back in each iteration, the trellis's MAP-only pass
// (MAPOnly, NoCount, one worker) on a Ginkgo 2020 jet and the reference kernel above on the same
// leaves, and reports the CPU time (getrusage: wall time is noisy on a shared machine) per split
// of each, the minimum over the iterations, and the ratio of the two minima:
//
//	go test -run XXX -bench MAPOnlyVsProbe -benchtime 3x ./algorithms/trellis/
func BenchmarkMAPOnlyVsProbe(b *testing.B) {
	for _, n := range []int{20, 22} {
		b.Run(fmt.Sprintf("N=%d", n), func(b *testing.B) {
			m := benchJet(b, n)
			leaves, lam := m.Leaves(), m.Params().Lambda
			splits := (math.Pow(3, float64(n))-1)/2 - (math.Pow(2, float64(n)) - 1)
			best := [2]time.Duration{math.MaxInt64, math.MaxInt64}
			for b.Loop() {
				c0 := cpuTime(b)
				if _, err := Build(context.Background(), m, Options{MAPOnly: true, NoCount: true, Workers: 1}); err != nil {
					b.Fatal(err)
				}
				c1 := cpuTime(b)
				p := runProbe(leaves, lam, 10)
				c2 := cpuTime(b)
				if math.IsNaN(p.mapValue()) {
					b.Fatal("reference MAP is NaN")
				}
				best[0], best[1] = min(best[0], c1-c0), min(best[1], c2-c1)
			}
			ns := func(d time.Duration) float64 { return float64(d.Nanoseconds()) / splits }
			b.ReportMetric(ns(best[0]), "trellis-cpu-ns/split")
			b.ReportMetric(ns(best[1]), "probe-cpu-ns/split")
			b.ReportMetric(ns(best[0])/ns(best[1]), "ratio")
		})
	}
}
