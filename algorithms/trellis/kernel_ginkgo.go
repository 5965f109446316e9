package trellis

import (
	"math"
	"math/bits"
	"unsafe"

	"github.com/hcbench/hcbench/algorithms/model/ginkgo"
)

// ginkgoKernel is the Ginkgo 2020 split likelihood (../shared/design/ginkgo.md §5) written into the
// sweep, the hot loop of the whole harness. For a parent P with t_P ≥ t_cut and children of
// scales t_max ≥ t_min (s = √t), with T = (s_P − s_max)² and N_λ = 1 − e^{−λ}:
//
//	ℓ = [t_max > 0 ? log λ − log t_P − λ t_max/t_P : log(1 − e^{−λ t_cut/t_P})] − log N_λ − log 4π
//	  + [t_min > 0 ? log λ − log T − λ t_min/T    : log(1 − e^{−λ t_cut/T})]   − log N_λ
//
// What depends only on P is computed once per parent (prepare). Per split, with t_min > 0, the
// sweep computes a = ℓ + log T and 1/T (a division), and then
//
//   - log Z accumulates (1/T)·e^{a + log Z_L + log Z_R}, which needs no log;
//   - the MAP needs ℓ = a − log T only when the split can beat the best so far: log T is bounded
//     below from its exponent and a table (to within 10^−3), and the exact, inlined log runs only
//     when that bound does not rule the split out. MAP-only passes prune earlier still, with a
//     bound that needs no T at all: the min-child term is at most −log N_λ − log t_min − 1 (its
//     maximum over T, at T = λ t_min), kept per subset in the z field, which MAP-only leaves free;
//     without a count, they first try a looser form of that bound that needs no select of the
//     children either (splitsMAPGo). They also start each parent's best from a few of its splits,
//     and, without a count, skip a parent for a whole sweep when a bound over the sweep's
//     children rules all its splits out (kernel_ginkgo_prune.go).
//
// Splits with a leaf as the smaller child, or T outside [2^−100, 2^100), take the exact slow path.
// A parent with t_P < t_cut has no finite split and is skipped.
type ginkgoKernel struct {
	t      *Trellis
	b      uint
	pLow   [][4]float64 // summed momentum of every low part
	pHigh  [][4]float64 // of every high part
	params ginkgo.Params
	// λ of every split and of the root's, with their logs (prepare needs them for every parent).
	lam, rootLam lambdaLogs
	// summary holds, for MAP-only passes without a count, bsFields values per low-part popcount
	// of every finished block (blockFinished); nil otherwise.
	summary []float64
}

// lambdaLogs holds λ, log λ and log N_λ = log(1 − e^{−λ}).
type lambdaLogs struct{ lam, log, logNorm float64 }

func newLambdaLogs(lam float64) lambdaLogs {
	return lambdaLogs{lam, math.Log(lam), math.Log(-math.Expm1(-lam))}
}

func newGinkgoKernel(t *Trellis, g *ginkgo.Model) *ginkgoKernel {
	b := uint(t.blockBits())
	leaves := g.Leaves()
	k := &ginkgoKernel{t: t, b: b, params: g.Params()}
	k.lam, k.rootLam = newLambdaLogs(k.params.Lambda), newLambdaLogs(k.params.LambdaRoot)
	k.pLow = ginkgo.SubsetSums(leaves[:b])
	k.pHigh = ginkgo.SubsetSums(leaves[b:])
	if t.opts.MAPOnly && t.count == nil && !t.opts.noPrune {
		k.summary = make([]float64, (int(b)+1)*bsFields<<(t.n-int(b)))
	}
	return k
}

// Parent constants, by index into acc.c.
const (
	gkSP         = iota // s_P = √t_P
	gkMaxInt            // log λ − log t_P − log N_λ − log 4π: the max-child term is gkMaxInt + gkMaxSlope·t_max
	gkMaxSlope          // −λ/t_P
	gkMaxLeaf           // log(1 − e^{−λ t_cut/t_P}) − log N_λ − log 4π: the max child is a leaf
	gkMaxC              // max(gkMaxInt, gkMaxLeaf), for splitsMAPGo's first bound
	gkMinInt            // log λ − log N_λ: the min-child term is gkMinInt − log T − λ t_min/T
	gkLambda            // λ
	gkNegLogNorm        // −log N_λ
	gkConsts            // their number
)

func (k *ginkgoKernel) prepare(xh uint32, sc []acc) {
	t := k.t
	p := k.params
	nb := uint32(len(sc))
	for xl := range nb {
		x := xh<<k.b | xl
		pv := ginkgo.Add(k.pLow[xl], k.pHigh[xh])
		tx := 0.0 // leaves have t = 0 in the 2020 convention
		if bits.OnesCount32(x) > 1 {
			tx = ginkgo.MassSquared(pv)
		}
		nd := &t.nodes[x]
		// A child's t enters the formula only through t > 0 and, when positive, its value, so a
		// t ≤ 0 (a cluster of nearly collinear massless leaves) is stored as +0. Then every stored
		// t and s is a non-negative float, whose bits order like the numbers: the sweep selects
		// the children by integer compares of the bits, or by max and min, without branches.
		nd.t = max(tx, 0)
		if !(nd.t > 0) {
			nd.t = 0
		}
		nd.s = math.Sqrt(nd.t)
		logT := math.NaN() // log t, computed once for z and the parent's constants
		if t.opts.MAPOnly {
			nd.z = 0
			if nd.t > 0 {
				logT = math.Log(nd.t)
				nd.z = -logT - 1
			}
		}
		a := &sc[xl]
		if !(tx >= p.TCut) {
			a.skip = true
			continue
		}
		if math.IsNaN(logT) { // t = tx here, unless tx is ±0 (a zero t_cut), whose log is −Inf alike
			logT = math.Log(tx)
		}
		l := &k.lam
		if x == t.full && p.RootLambda == ginkgo.RootLambdaGenerative {
			l = &k.rootLam
		}
		lam, logNorm := l.lam, l.logNorm
		a.c[gkSP] = nd.s
		a.c[gkMaxInt] = l.log - logT - logNorm - log4Pi
		a.c[gkMaxSlope] = -lam / tx
		a.c[gkMaxLeaf] = math.Log(-math.Expm1(-lam*p.TCut/tx)) - logNorm - log4Pi
		a.c[gkMaxC] = max(a.c[gkMaxInt], a.c[gkMaxLeaf])
		a.c[gkMinInt] = l.log - logNorm
		a.c[gkLambda] = lam
		a.c[gkNegLogNorm] = -logNorm
		if k.summary != nil {
			c := a.c[gkMaxC] + a.c[gkNegLogNorm] // as the MAP-only loops round it
			a.setPruneC(c + pruneSlack*math.Abs(c))
		}
	}
	if t.opts.MAPOnly && !t.opts.noPrune && xh != 0 {
		k.seedParents(xh, sc)
	}
}

var log4Pi = math.Log(4 * math.Pi)

// minSlow is the min-child term where the fast path does not apply: a leaf child, or T outside
// the range where 1/T and the Z sums stay far from overflow.
func (k *ginkgoKernel) minSlow(a *acc, tMin, T float64) float64 {
	lam := a.c[gkLambda]
	if tMin > 0 {
		if !(T > 0) {
			return math.Inf(-1) // no room for an internal child; the reference would give NaN
		}
		return a.c[gkMinInt] - math.Log(T) - lam*tMin/T
	}
	return math.Log(-math.Expm1(-lam*k.params.TCut/T)) + a.c[gkNegLogNorm] // x + (−y) = x − y exactly
}

// splitSlow is ℓ of the split (l, r) of a's parent by the exact formula, for the splits the fast
// path leaves out.
func (k *ginkgoKernel) splitSlow(a *acc, l, r uint32) float64 {
	nl, nr := &k.t.nodes[l], &k.t.nodes[r]
	tMax, tMin, sMax := nl.t, nr.t, nl.s
	if bits64(&nr.t) > bits64(&nl.t) {
		tMax, tMin, sMax = nr.t, nl.t, nr.s
	}
	t1 := a.c[gkMaxLeaf]
	if tMax > 0 {
		t1 = a.c[gkMaxInt] + a.c[gkMaxSlope]*tMax
	}
	d := a.c[gkSP] - sMax
	return t1 + k.minSlow(a, tMin, d*d)
}

// The fast path takes T with a biased exponent in [fastExpLo, fastExpLo+fastExpSpan), that is
// T in [2^−100, 2^100).
const (
	fastExpLo   = 1023 - 100
	fastExpSpan = 200
	// logBoundSlack covers log1p(q), |q| < 2^−11, which the table-only lower bound of log T omits.
	logBoundSlack = 1e-3
)

// slowBufLen bounds the slow splits one parent defers within one sweep. A slow split almost always
// has a single item as its child of smaller t, and a parent has at most b + 2 such splits per
// sweep; when more turn up, the parent's slow splits are found again by a second enumeration.
const slowBufLen = 64

// bits64 reads a float64 field as its bits.
func bits64(p *float64) uint64 { return *(*uint64)(unsafe.Pointer(p)) }

// lowRest returns the low bit and the rest of xl, and whether the parent xl has splits in this
// sweep (xl = 0 has the single split u = 0 when zero is set).
func lowRest(xl uint32, zero bool) (low, rest uint32, ok bool) {
	if xl != 0 {
		low = xl & -xl
		return low, xl ^ low, true
	}
	return 0, 0, zero
}

// isFast reports whether the split with children of these t and T takes the fast path: an
// internal child of smaller t (t_min > 0) and T in [2^−100, 2^100).
func isFast(loT uint64, T float64) bool {
	return loT != 0 && (math.Float64bits(T)>>52)-fastExpLo < fastExpSpan
}

// parentSweep holds one parent's share of a sweep: where its splits' children are, the parent's
// constants, and the accumulators that the split loop updates. The split loops exist in Go
// (splitsFullGo, splitsMAPGo) and, on amd64, in assembly (kernel_ginkgo_amd64.s, and
// kernel_ginkgo_avx2_amd64.s for four splits at a time), which reads this struct through the
// offsets in go_asm.h; all do the same floating-point operations in the same order, so their
// results are identical bit for bit (TestAssemblyMatchesGo).
type parentSweep struct {
	nodes, counts         unsafe.Pointer    // counts is nil when not counting
	lb, rb, lowO, restO   uintptr           // children at lb|lowO|u and rb|(restO^u), u ⊆ restO (byte offsets)
	c                     [gkConsts]float64 // the parent's constants, a copy of acc.c
	best, zref, zsum, cnt float64           // accumulators
	bestL                 uint64
	nSlow, over           uint64 // slow splits deferred to slow[:nSlow]; over: more did not fit
	slow                  [slowBufLen]uint64
	// bound, in MAP-only cross sweeps without a count (else nil): a parent whose low part has k
	// items and whose pruneC() + bound[k] is below its best has no split in the sweep that could
	// pass the loops' first bound, and is skipped (sweepBound).
	bound *[33]float64
	// passed counts the splits whose log ψ the MAP-only loops computed, those that passed the
	// bounds that need none (Counters.Energies); the sweep adds the full loops' splits itself.
	passed uint64
}

// load sets p up for the parent of a, whose low part has the given low bit and rest.
func (p *parentSweep) load(a *acc, low, rest uint32) {
	p.lowO, p.restO = uintptr(low)<<nodeShift, uintptr(rest)<<nodeShift
	p.c = a.c
	p.best, p.bestL, p.zref, p.zsum, p.cnt = a.best, uint64(a.bestL), a.zmax, a.zsum, a.cnt
	p.nSlow, p.over = 0, 0
}

// store writes the accumulators back to a.
func (p *parentSweep) store(a *acc) {
	a.best, a.bestL, a.zmax, a.zsum, a.cnt = p.best, uint32(p.bestL), p.zref, p.zsum, p.cnt
}

// The split loops that run: the Go ones below, or those in assembly (useAsm, which
// kernel_ginkgo_amd64.go sets), and there the wide ones (useWide, with AVX2): for log Z, a parent
// with at least 4 splits in the sweep (two bits in rest); for MAP-only without a count, every
// parent but xl = 0. Tests switch them.
// runSplits and wideMAPParents call the loops directly, not through function values, which would
// move sweep's parentSweep to the heap.
var useAsm, useWide bool

// runSplitsGo runs the Go split loop for p.
func runSplitsGo(p *parentSweep, mapOnly bool) {
	if mapOnly {
		splitsMAPGo(p)
	} else {
		splitsFullGo(p)
	}
}

func (k *ginkgoKernel) sweep(lBase, rBase, lo, hi uint32, zero bool, sc []acc) (energies int64) {
	t := k.t
	var p parentSweep
	p.nodes = unsafe.Pointer(unsafe.SliceData(t.nodes))
	if t.count != nil {
		p.counts = unsafe.Pointer(unsafe.SliceData(t.count))
	}
	mapOnly := t.opts.MAPOnly
	mapWide := mapOnly && t.count == nil
	p.lb, p.rb = uintptr(lBase)<<nodeShift, uintptr(rBase)<<nodeShift
	if mapWide && k.summary != nil && lBase != 0 && rBase != 0 {
		var bound [33]float64
		k.sweepBound(lBase>>k.b, rBase>>k.b, &bound)
		p.bound = &bound
	}
	for xl := lo; xl < hi; xl++ {
		if mapWide { // the wide loop takes runs of parents, and leaves some to the code below
			if xl = wideMAPParents(&p, sc, xl, hi); xl == hi {
				break
			}
			if p.nSlow > 0 || p.over != 0 {
				k.addSlow(&sc[xl], &p)
				continue
			}
			if a := &sc[xl]; p.bound != nil && xl != 0 && a.pruneC()+p.bound[bits.OnesCount32(xl)] < a.best {
				continue // as the wide loop skips it, for the Go loops
			}
		}
		a := &sc[xl]
		low, rest, ok := lowRest(xl, zero)
		if a.skip || !ok {
			continue
		}
		p.load(a, low, rest)
		runSplits(&p, mapOnly, rest&(rest-1) != 0)
		p.store(a)
		if !mapOnly { // the full loops compute every split's ψ: u ⊆ rest, less an empty R
			p.passed += 1 << bits.OnesCount32(rest)
			if rBase == 0 {
				p.passed--
			}
		}
		if p.nSlow > 0 || p.over != 0 {
			k.addSlow(a, &p)
		}
	}
	return int64(p.passed)
}

// addSlow accumulates the deferred slow splits of a's parent: from the buffer, or, when it
// overflowed, found by enumerating the parent's splits again; then it empties the buffer.
// MAP-only loops count every split themselves, so only full sweeps count here.
func (k *ginkgoKernel) addSlow(a *acc, p *parentSweep) {
	t := k.t
	add := func(l, r uint32) {
		v := k.splitSlow(a, l, r)
		nl, nr := &t.nodes[l], &t.nodes[r]
		vz, cnt := math.Inf(-1), 0.0
		if !t.opts.MAPOnly {
			vz = v + nl.z + nr.z
		}
		if t.count != nil && v > math.Inf(-1) && !t.opts.MAPOnly {
			cnt = t.count[l] * t.count[r]
		}
		a.add(l, v+nl.m+nr.m, vz, cnt)
	}
	if p.over == 0 {
		for _, s := range p.slow[:p.nSlow] {
			add(uint32(s>>32), uint32(s))
		}
	} else {
		for uO, last := p.restO, false; !last; uO = (uO - 1<<nodeShift) & p.restO {
			last = uO == 0
			l, r := uint32((p.lb|p.lowO|uO)>>nodeShift), uint32((p.rb|(p.restO^uO))>>nodeShift)
			if r == 0 {
				continue
			}
			nl, nr := &t.nodes[l], &t.nodes[r]
			hiS, loT := nl.s, bits64(&nr.t)
			if bits64(&nr.t) > bits64(&nl.t) {
				hiS, loT = nr.s, bits64(&nl.t)
			}
			d := p.c[gkSP] - hiS
			if !isFast(loT, d*d) {
				add(l, r)
			}
		}
	}
	p.nSlow, p.over = 0, 0
}

// deferSlow records a slow split, or notes that the buffer is full.
func (p *parentSweep) deferSlow(lO, rO uintptr) {
	if p.nSlow < slowBufLen {
		p.slow[p.nSlow] = uint64(lO>>nodeShift)<<32 | uint64(rO>>nodeShift)
		p.nSlow++
	} else {
		p.over = 1
	}
}

// splitsFullGo adds the parent's fast splits to log Z, the MAP and the count, and defers the slow
// ones. The loop calls no function but the rare deferSlow (inlined): a call in it makes Go spill
// the accumulators on every iteration.
func splitsFullGo(p *parentSweep) {
	nodes, counts := p.nodes, p.counts
	lb, rb, lowO, restO := p.lb, p.rb, p.lowO, p.restO
	sP, maxInt, maxSlope, maxLeaf, minInt, lam := p.c[gkSP], p.c[gkMaxInt], p.c[gkMaxSlope], p.c[gkMaxLeaf], p.c[gkMinInt], p.c[gkLambda]
	best, bestL, zref, zsum, cnt := p.best, p.bestL, p.zref, p.zsum, p.cnt
	uO := restO
	for {
		lO := lb | lowO | uO
		rO := rb | (restO ^ uO)
		if rO != 0 {
			nl := (*node)(unsafe.Add(nodes, lO))
			nr := (*node)(unsafe.Add(nodes, rO))
			// The child of larger t is the first-drawn child (ginkgo.md §5). Stored t and s are
			// ≥ +0, so their bits order like the numbers; the selects are written with a mask so
			// that they stay branch-free (a branch here is mispredicted half the time).
			lt, rt := bits64(&nl.t), bits64(&nr.t)
			var m uint64
			if rt > lt {
				m = ^uint64(0)
			}
			x := (lt ^ rt) & m
			hiT, loT := lt^x, rt^x
			ls, rs := bits64(&nl.s), bits64(&nr.s)
			d := sP - math.Float64frombits(ls^((ls^rs)&m))
			T := d * d
			tb := math.Float64bits(T)
			if loT != 0 && (tb>>52)-fastExpLo < fastExpSpan {
				t1 := maxLeaf
				if hiT != 0 {
					t1 = maxInt + maxSlope*math.Float64frombits(hiT)
				}
				inv := 1 / T
				av := t1 + minInt - lam*math.Float64frombits(loT)*inv // ℓ + log T

				// log Z accumulates inv·e^{y}, y = av + z_L + z_R, as e^{y − zref}; a new
				// maximum rescales the sum by e^{−(y − zref)}. One inlined exp serves both.
				y := av + nl.z + nr.z
				x := y - zref
				nx := x
				if x > 0 {
					nx = -x
				}
				ex := 0.0
				if nx >= -708 { // expNeg(nx), inlined by hand (cost 87 > 80); NaN fails the test
					ki := int64(nx*(64/math.Ln2) - 0.5)
					kf := float64(ki)
					rr := nx - kf*(ln2Hi/64) - kf*(ln2Lo/64)
					r2 := rr * rr
					ex = ((1 + rr) + r2*(0.5+rr*(1.0/6)) + r2*r2*((1.0/24+rr*(1.0/120))+r2*(1.0/720))) *
						expTable[ki&63] * math.Float64frombits(uint64(1023+(ki>>6))<<52)
				}
				if x > 0 {
					zsum = zsum*ex + inv
					zref = y
				} else {
					zsum += inv * ex
				}
				if counts != nil {
					cnt += *(*float64)(unsafe.Add(counts, lO>>(nodeShift-3))) * *(*float64)(unsafe.Add(counts, rO>>(nodeShift-3)))
				}

				// MAP: ℓ + m_L + m_R = av − log T + m_L + m_R, worth the exact log only if the
				// table bound log T ≥ e·ln2 + logTable[j] − slack leaves it a chance.
				mSum := nl.m + nr.m
				e := float64(int64(tb>>52) - 1023)
				j := (tb >> (52 - tableBits)) & (tableSize - 1)
				if av+mSum-(e*math.Ln2+logTable[j]-logBoundSlack) >= best {
					// logRecip's log, inlined by hand (cost over the budget).
					q := math.Float64frombits(tb&(1<<52-1)|1023<<52)*invTable[j] - 1
					lg := e*ln2Hi + (e*ln2Lo + logTable[j] + (q - q*q*(0.5-q*(1.0/3-q*0.25))))
					l := uint64(lO >> nodeShift)
					if vm := av - lg + mSum; vm >= best && (vm > best || l < bestL) {
						best, bestL = vm, l
					}
				}
			} else {
				p.deferSlow(lO, rO)
			}
		}
		if uO == 0 {
			break
		}
		uO = (uO - 1<<nodeShift) & restO
	}
	p.best, p.bestL, p.zref, p.zsum, p.cnt = best, bestL, zref, zsum, cnt
}

// splitsMAPGo adds the parent's splits to the MAP and the count; the z field of every node holds
// the bound g = −log t − 1 (0 for t = 0) of the min-child term, without its −log N_λ.
//
// Without a count, a split must first pass a bound that needs no select of the children:
// ((maxC + maxSlope·max(t_L, t_R)) − log N_λ + max(g_L, g_R)) + (m_L + m_R). Each of its terms is
// at least the matching term of the g bound below (t1 = maxInt + maxSlope·t_max, or maxLeaf when
// t_max = 0 where maxSlope·0 = −0; g_min is one of g_L, g_R), and rounding is monotone, so in
// floating point too it is at least the g bound: it never drops a split that the g bound keeps,
// and the result is the same as without it.
func splitsMAPGo(p *parentSweep) {
	nodes, counts := p.nodes, p.counts
	lb, rb, lowO, restO := p.lb, p.rb, p.lowO, p.restO
	sP, maxInt, maxSlope, maxLeaf, minInt, lam := p.c[gkSP], p.c[gkMaxInt], p.c[gkMaxSlope], p.c[gkMaxLeaf], p.c[gkMinInt], p.c[gkLambda]
	negLogNorm, maxC := p.c[gkNegLogNorm], p.c[gkMaxC]
	best, bestL, cnt, passed := p.best, p.bestL, p.cnt, p.passed
	uO := restO
	for {
		lO := lb | lowO | uO
		rO := rb | (restO ^ uO)
		nl := (*node)(unsafe.Add(nodes, lO))
		nr := (*node)(unsafe.Add(nodes, rO))
		if rO != 0 && (counts != nil || maxC+maxSlope*max(nl.t, nr.t)+negLogNorm+max(nl.z, nr.z)+(nl.m+nr.m) >= best) {
			lt, rt := bits64(&nl.t), bits64(&nr.t)
			var m uint64
			if rt > lt {
				m = ^uint64(0)
			}
			x := (lt ^ rt) & m
			hiT, loT := lt^x, rt^x
			ls, rs := bits64(&nl.s), bits64(&nr.s)
			hiS := ls ^ ((ls ^ rs) & m)
			lz, rz := bits64(&nl.z), bits64(&nr.z)
			gMin := rz ^ ((lz ^ rz) & m)
			d := sP - math.Float64frombits(hiS)
			T := d * d
			if counts != nil && (loT == 0 || T > 0) { // the split is finite (see minSlow)
				cnt += *(*float64)(unsafe.Add(counts, lO>>(nodeShift-3))) * *(*float64)(unsafe.Add(counts, rO>>(nodeShift-3)))
			}
			t1 := maxLeaf
			if hiT != 0 {
				t1 = maxInt + maxSlope*math.Float64frombits(hiT)
			}
			mSum := nl.m + nr.m
			// Even the best T for this t_min (the g bound) must leave the split a chance; the
			// bound holds on the slow path too, so it comes first.
			if t1+negLogNorm+math.Float64frombits(gMin)+mSum >= best {
				passed++
				tb := math.Float64bits(T)
				if loT != 0 && (tb>>52)-fastExpLo < fastExpSpan {
					av := t1 + minInt - lam*math.Float64frombits(loT)/T
					e := float64(int64(tb>>52) - 1023)
					j := (tb >> (52 - tableBits)) & (tableSize - 1)
					if av+mSum-(e*math.Ln2+logTable[j]-logBoundSlack) >= best {
						q := math.Float64frombits(tb&(1<<52-1)|1023<<52)*invTable[j] - 1
						lg := e*ln2Hi + (e*ln2Lo + logTable[j] + (q - q*q*(0.5-q*(1.0/3-q*0.25))))
						l := uint64(lO >> nodeShift)
						if vm := av - lg + mSum; vm >= best && (vm > best || l < bestL) {
							best, bestL = vm, l
						}
					}
				} else {
					p.deferSlow(lO, rO)
				}
			}
		}
		if uO == 0 {
			break
		}
		uO = (uO - 1<<nodeShift) & restO
	}
	p.best, p.bestL, p.cnt, p.passed = best, bestL, cnt, passed
}
