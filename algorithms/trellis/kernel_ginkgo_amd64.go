package trellis

import (
	"math"

	"golang.org/x/sys/cpu"
)

// The split loops in assembly (kernel_ginkgo_amd64.s). They read the float constants from
// asmConsts, computed here by the same constant expressions as the Go loops, so both round alike.
//
//go:noescape
func splitsFullAsm(p *parentSweep)

//go:noescape
func splitsMAPAsm(p *parentSweep)

// splitsFullAVX2 is splitsFullAsm four splits at a time (kernel_ginkgo_avx2_amd64.s).
//
//go:noescape
func splitsFullAVX2(p *parentSweep)

// mapParentsAVX2 is splitsMAPAsm without a count, four splits at a time, for a run of parents;
// see wideMAPParents.
//
//go:noescape
func mapParentsAVX2(p *parentSweep, sc *acc, xl, hi uint32) uint32

// asmConsts are the constants of the split loops, in the order kernel_ginkgo_amd64.s reads them.
var asmConsts = [...]float64{
	0:  1,
	1:  64 / math.Ln2,
	2:  0.5,
	3:  ln2Hi / 64,
	4:  ln2Lo / 64,
	5:  1.0 / 720,
	6:  1.0 / 120,
	7:  1.0 / 24,
	8:  1.0 / 6,
	9:  -708,
	10: math.Ln2,
	11: logBoundSlack,
	12: 0.25,
	13: 1.0 / 3,
	14: ln2Hi,
	15: ln2Lo,
	16: 0,
}

// mapParentsAVX2 copies the gkConsts = 8 parent constants with two 32-byte moves.
var _ = [1]struct{}{}[gkConsts-8]

// avxConsts are splitsFullAVX2's constants, 4 lanes each: asmConsts, then its own (T's fast
// range; 2^52 and 2^52 + 1023, which turn an exponent field into a float64 exactly; −Inf).
var avxConsts [len(asmConsts) + 5][4]float64

// avxInts are splitsFullAVX2's int32 constants, 4 lanes each.
//
//lint:ignore U1000 read by kernel_ginkgo_avx2_amd64.s (VPAND, VPADDD), which staticcheck does not see
var avxInts = [2][4]int32{{63, 63, 63, 63}, {1023, 1023, 1023, 1023}}

func init() {
	for i, c := range asmConsts {
		avxConsts[i] = [4]float64{c, c, c, c}
	}
	for i, c := range []float64{0x1p-100, 0x1p100, 0x1p52, 0x1p52 + 1023, math.Inf(-1)} {
		avxConsts[len(asmConsts)+i] = [4]float64{c, c, c, c}
	}
	useAsm, useWide = true, cpu.X86.HasAVX2
}

// runSplits runs the split loop for p (see useAsm); wide says that the parent has at least 4
// splits in the sweep.
func runSplits(p *parentSweep, mapOnly, wide bool) {
	switch {
	case !useAsm:
		runSplitsGo(p, mapOnly)
	case wide && useWide && !mapOnly:
		splitsFullAVX2(p)
	case mapOnly:
		splitsMAPAsm(p)
	default:
		splitsFullAsm(p)
	}
}

// wideMAPParents runs MAP-only splits without a count for the sweep's parents xl, xl+1, … up to
// hi, with the wide loop, and returns where it stopped: at hi; at a parent it left to the caller
// (xl = 0, whose one split depends on the sweep, or all of them without the wide loop), with p.nSlow
// and p.over 0; or at a parent whose slow splits it deferred (p.nSlow or p.over set), for the
// caller to add to that parent's sc entry. p holds the sweep's nodes, lb and rb.
func wideMAPParents(p *parentSweep, sc []acc, xl, hi uint32) uint32 {
	if !useAsm || !useWide || xl >= hi {
		return xl
	}
	_ = sc[hi-1] // the assembly reads sc[xl:hi] without bounds checks
	return mapParentsAVX2(p, &sc[0], xl, hi)
}
