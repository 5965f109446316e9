package trellis

import (
	"math"
	"math/bits"
)

// MAP-only pruning. Without log Z, a split is worth its exact value only when a bound on it
// reaches the parent's best split so far (splitsMAPGo), so the pass runs faster the sooner each
// parent's best is near its final value. Two things help with that:
//
//   - seeding: before its first sweep, each parent of a block is given the best of a few of its
//     cross splits taken from the MAP trees of finished subsets (seedParents). On a Ginkgo jet of
//     N = 20 the seed is already the final best for 70 % of the parents and within 1 nat for most
//     others; the sweeps then run about as fast as when started from the final best, and the
//     MAP-only pass takes 20–25 % less time;
//   - a bound per parent and sweep (sweepBound): the first bound of splitsMAPGo, maximised over
//     every split of a cross sweep from a summary of each finished child block. When it falls
//     below a parent's best, the sweep skips the parent outright (at N = 20 about a fifth of the
//     parent visits, and of the splits).
//
// Neither changes a result: the tie rule does not depend on the order in which splits are seen,
// a seed is a split's value as the sweep computes it, and the bound leaves out only splits that
// the sweep's own bound would leave out.

// Seeding: parents with fewer items than seedMinItems are not seeded (they have few splits, so
// a seed saves little), and the others try the seedTries highest items of their high part
// (seedParents). Measured on the MAP-only pass at N = 20 (one core, CPU seconds, before the
// sweep bound was added; 2.60 without seeds, 1.98 from the final bests): 1 try 2.10 s, 2 tries
// 2.08, 3 tries 2.04 (its seeding costs 0.11 s); 2 tries from 8 items 2.03, from 10 items 2.10.
const (
	seedMinItems = 8
	seedTries    = 2
)

// pruneSlack scales the magnitudes that sweepBound adds to cover rounding: the bound and the
// sweep's own bound are sums of up to five terms taken in other orders, which differ by a few ulp
// of the magnitudes (2^−53 each), far below 2^−40.
const pruneSlack = 0x1p-40

// pruneC returns the parent's term of the sweep bound (sweepBound), (maxC + negLogNorm) raised by
// its slack, which prepare sets in the passes that use the bound. Those are MAP-only passes
// without a count, which leave acc.cnt unused, so it is kept there: a field of its own made acc
// 112 bytes instead of 104, and the log Z + MAP pass at N = 20 about 1 % slower (12 interleaved
// runs of the code before this file with an 8-byte field added: median +1.1 % wall, +0.9 % CPU).
func (a *acc) pruneC() float64 { return a.cnt }

// setPruneC sets pruneC.
func (a *acc) setPruneC(v float64) { a.cnt = v }

// mapSplit returns the MAP value of the split (l, r) of a's parent as the MAP-only split loops
// compute it: splitsMAPGo's fast path, or addSlow's sum for a slow split.
func (k *ginkgoKernel) mapSplit(a *acc, l, r uint32) float64 {
	nl, nr := &k.t.nodes[l], &k.t.nodes[r]
	hiT, loT, hiS := bits64(&nl.t), bits64(&nr.t), nl.s
	if loT > hiT {
		hiT, loT, hiS = loT, hiT, nr.s
	}
	d := a.c[gkSP] - hiS
	T := d * d
	if !isFast(loT, T) {
		return k.splitSlow(a, l, r) + nl.m + nr.m
	}
	t1 := a.c[gkMaxInt] + a.c[gkMaxSlope]*math.Float64frombits(hiT) // hiT ≥ loT > 0
	mSum := nl.m + nr.m
	av := t1 + a.c[gkMinInt] - a.c[gkLambda]*math.Float64frombits(loT)/T
	tb := math.Float64bits(T)
	e := float64(int64(tb>>52) - 1023)
	j := (tb >> (52 - tableBits)) & (tableSize - 1)
	q := math.Float64frombits(tb&(1<<52-1)|1023<<52)*invTable[j] - 1
	lg := e*ln2Hi + (e*ln2Lo + logTable[j] + (q - q*q*(0.5-q*(1.0/3-q*0.25))))
	return av - lg + mSum
}

// seedParents starts each parent X of block xh (the MAP-only pass's accumulators in sc, after
// prepare) with the best of a few of its cross splits. For an item e of the high part, X ∖ e lies
// in a finished block; if its MAP split is (L', R'), X's MAP tree often puts e on one side of
// the same split, so (L' ∪ e, R') and (L', R' ∪ e) are tried, where both children lie in
// finished blocks (the other child has items in the high part), for the seedTries highest items e.
func (k *ginkgoKernel) seedParents(xh uint32, sc []acc) {
	t := k.t
	lowMask := uint32(1)<<k.b - 1
	for xl := range uint32(len(sc)) {
		a := &sc[xl]
		x := xh<<k.b | xl
		if a.skip || bits.OnesCount32(x) < seedMinItems {
			continue
		}
		hs := xh << k.b
		for range min(seedTries, bits.OnesCount32(hs)) {
			e := uint32(1) << (31 - bits.LeadingZeros32(hs))
			hs ^= e
			xp := x ^ e
			if xp&-xp != x&-x { // e is X's lowest item (xl = 0): L' would not hold it
				continue
			}
			lp := t.bp[xp]
			rp := xp ^ lp
			if rp&^lowMask != 0 {
				k.seedSplit(a, lp|e, rp)
			}
			if lp&^lowMask != 0 {
				k.seedSplit(a, lp, rp|e)
			}
		}
	}
}

// seedSplit adds the split (l, r) to a's MAP, as the split loops do.
func (k *ginkgoKernel) seedSplit(a *acc, l, r uint32) {
	if vm := k.mapSplit(a, l, r); vm >= a.best && (vm > a.best || l < a.bestL) {
		a.best, a.bestL = vm, l
	}
}

// Block summaries for sweepBound, per low part popcount j: the largest m, the largest m + g
// (g, the min-child bound, is in z) and the largest |m| + |g|, over the block's nodes with a
// finite m.
const (
	bsM = iota
	bsMG
	bsAbs
	bsFields
)

// blockFinished keeps the summary of block xh, whose nodes are final, for the MAP-only sweeps
// that take their children from it.
func (k *ginkgoKernel) blockFinished(xh uint32) {
	if k.summary == nil {
		return
	}
	w := int(k.b+1) * bsFields
	s := k.summary[int(xh)*w : int(xh+1)*w]
	for j := 0; j < len(s); j += bsFields {
		s[j+bsM], s[j+bsMG], s[j+bsAbs] = math.Inf(-1), math.Inf(-1), 0
	}
	nodes := k.t.nodes[xh<<k.b : (xh+1)<<k.b]
	for xl := range nodes {
		nd := &nodes[xl]
		if !(nd.m > math.Inf(-1)) {
			continue // a split with this child is −Inf (or NaN), which no bound passes
		}
		c := s[bits.OnesCount32(uint32(xl))*bsFields:]
		if nd.m > c[bsM] {
			c[bsM] = nd.m
		}
		if v := nd.m + nd.z; v > c[bsMG] {
			c[bsMG] = v
		}
		if v := math.Abs(nd.m) + math.Abs(nd.z); v > c[bsAbs] {
			c[bsAbs] = v
		}
	}
}

// sweepBound sets bound[k], for each popcount k of a parent's low part, to a bound on the sweep's
// first bound ((maxC + negLogNorm) + max(g_L, g_R)) + (m_L + m_R) (splitsMAPGo) less the parent's
// term, over every split of the cross sweep with children in blocks lh and rh: the L child's low
// part has i + 1 items and the R child's k − 1 − i, and max(g_L, g_R) + m_L + m_R is at most
// max(mg_L + m_R, m_L + mg_R). The parent adds pruneC (prepare), its term raised by its slack.
func (k *ginkgoKernel) sweepBound(lh, rh uint32, bound *[33]float64) {
	w := int(k.b+1) * bsFields
	ls, rs := k.summary[int(lh)*w:int(lh+1)*w], k.summary[int(rh)*w:int(rh+1)*w]
	for n := 1; n <= int(k.b); n++ {
		b, abs := math.Inf(-1), 0.0
		for i := range n {
			l, r := ls[(i+1)*bsFields:], rs[(n-1-i)*bsFields:]
			b = max(b, l[bsMG]+r[bsM], l[bsM]+r[bsMG])
			abs = max(abs, l[bsAbs]+r[bsAbs])
		}
		bound[n] = b + pruneSlack*abs
	}
}
