package trellis

import (
	"context"
	"math"
	"math/bits"
	"sync"
	"sync/atomic"
)

// The pass visits subsets in a cache-blocked order (trellis-performance.md, "blocked order").
// A subset X is split into a high part X_H (its top N−b bits, the block) and a low part X_l (its
// b low bits). A split {L, R} of X, L holding X's lowest item, has high parts (L_H, R_H) with
// L_H ∪ R_H = X_H:
//
//   - cross splits, L_H and R_H both non-empty: the children lie in the blocks L_H and R_H, which
//     are proper subsets of X_H and so finished in an earlier layer (layers are blocks of equal
//     popcount, in increasing popcount);
//   - intra splits, L_H or R_H empty: one child lies in block 0, the other in block X_H itself at
//     a smaller low part, so these are added in increasing X_l, each parent finished before the
//     next.
//
// One sweep touches three blocks of 2^b nodes, which stay in L2. Blocks of a layer are
// independent; a layer with few blocks is cut into chunks of parents instead. Every parent's
// splits are added in the same order whatever the schedule, so results do not depend on it.

// acc accumulates the splits of one parent subset.
type acc struct {
	best  float64 // the largest split value for the MAP
	zmax  float64 // running maximum of the split values for log Z
	zsum  float64 // Σ exp(value − zmax)
	cnt   float64 // finite-likelihood trees; see also acc.pruneC
	bestL uint32  // child L of the best split
	skip  bool    // every split of this parent is −Inf
	// Kernel constants of the parent (the Ginkgo kernel's, gkSP…).
	c [gkConsts]float64
}

const noSplit = math.MaxUint32

// kernel scores the splits of one model.
type kernel interface {
	// prepare fills the kernel's per-subset data of block xh's nodes and each parent's constants
	// (and skip) in sc; the common fields of sc are already reset. It may also add to a parent's
	// MAP any of its splits whose children lie in earlier layers' blocks (which are final).
	prepare(xh uint32, sc []acc)
	// sweep adds, for each parent (xh, xl) with xl in [lo, hi), the splits with children
	// L = lBase|low|u and R = rBase|(rest^u), for low = lowbit(xl), rest = xl^low and every
	// u ⊆ rest, leaving out an empty R. The parent xl = 0 gets the one split (lBase, rBase) when
	// zero is true. It returns how many of those splits it computed log ψ of (Counters.Energies).
	sweep(lBase, rBase, lo, hi uint32, zero bool, sc []acc) (energies int64)
}

// work is one worker's share of the pass's counters (Counters), on a cache line of its own so
// that workers do not share one: plain increments, summed once the pass is done.
type work struct {
	subsets, splits, energies int64
	_                         [40]byte
}

// add accumulates one split of value vm (MAP) and vz (log Z) with children counts product cnt.
// Every kernel ends a split here; it is small enough to inline.
func (a *acc) add(l uint32, vm, vz, cnt float64) {
	if vm >= a.best {
		if vm > a.best || l < a.bestL {
			a.best, a.bestL = vm, l
		}
	}
	if vz > a.zmax {
		a.zsum = a.zsum*expNeg(a.zmax-vz) + 1
		a.zmax = vz
	} else if vz > math.Inf(-1) {
		a.zsum += expNeg(vz - a.zmax)
	}
	a.cnt += cnt
}

func (t *Trellis) blockBits() int {
	b := t.opts.blockBits
	if b <= 0 {
		b = 10
	}
	return min(b, t.n)
}

func (t *Trellis) reset(sc []acc) {
	for i := range sc {
		sc[i] = acc{best: math.Inf(-1), zmax: math.Inf(-1), bestL: noSplit}
	}
}

// finish writes parent x's results from its accumulator.
func (t *Trellis) finish(x uint32, a *acc) {
	nd := &t.nodes[x]
	if bits.OnesCount32(x) == 1 {
		nd.m = 0
		if !t.opts.MAPOnly {
			nd.z = 0
		}
		if t.count != nil {
			t.count[x] = 1
		}
		return
	}
	if a.bestL == noSplit {
		a.bestL = x & -x // no finite split: keep a well-formed tree anyway
	}
	nd.m = a.best
	if !t.opts.MAPOnly { // MAP-only kernels may keep their own data in z
		nd.z = math.Inf(-1)
		if a.zsum > 0 {
			nd.z = a.zmax + math.Log(a.zsum)
		}
	}
	if t.count != nil {
		t.count[x] = a.cnt
	}
	t.bp[x] = a.bestL
}

// run performs the bottom-up pass.
func (t *Trellis) run(ctx context.Context, k kernel) error {
	b := t.blockBits()
	hBits := t.n - b
	nb := uint32(1) << b
	workers := t.opts.Workers

	t.work = make([]work, max(workers, 1))
	sc := make([]acc, nb)
	t.reset(sc)
	k.prepare(0, sc)
	t.intra(k, 0, b, sc, &t.work[0])
	if err := ctx.Err(); err != nil {
		return err
	}

	for pc := 1; pc <= hBits; pc++ {
		var blocks []uint32
		for xh := uint32(1); xh < 1<<hBits; xh++ {
			if bits.OnesCount32(xh) == pc {
				blocks = append(blocks, xh)
			}
		}
		var err error
		if len(blocks) >= 2*workers {
			err = t.wholeBlocks(ctx, k, blocks, b, workers)
		} else {
			err = t.chunkedBlocks(ctx, k, blocks, b, workers)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// wholeBlocks gives each worker whole blocks: prepare, every cross sweep, then the intra sweep.
func (t *Trellis) wholeBlocks(ctx context.Context, k kernel, blocks []uint32, b, workers int) error {
	nb := uint32(1) << b
	scratch := make([][]acc, workers)
	return parallel(ctx, len(blocks), workers, func(w, i int) {
		if scratch[w] == nil {
			scratch[w] = make([]acc, nb)
		}
		sc := scratch[w]
		xh := blocks[i]
		t.reset(sc)
		k.prepare(xh, sc)
		if t.cross(ctx, k, xh, b, 0, nb, sc, &t.work[w]) {
			t.intra(k, xh, b, sc, &t.work[w])
		}
	})
}

// chunkedBlocks spreads the cross sweeps of a few blocks over the workers in chunks of parents,
// then runs the intra sweeps.
func (t *Trellis) chunkedBlocks(ctx context.Context, k kernel, blocks []uint32, b, workers int) error {
	nb := uint32(1) << b
	chunk := max(nb/64, 1)
	scs := make([][]acc, len(blocks))
	for i, xh := range blocks {
		scs[i] = make([]acc, nb)
		t.reset(scs[i])
		k.prepare(xh, scs[i])
	}
	per := int((nb + chunk - 1) / chunk)
	err := parallel(ctx, len(blocks)*per, workers, func(w, j int) {
		i, c := j/per, uint32(j%per)
		lo, hi := c*chunk, min((c+1)*chunk, nb)
		t.cross(ctx, k, blocks[i], b, lo, hi, scs[i], &t.work[w])
	})
	if err != nil {
		return err
	}
	return parallel(ctx, len(blocks), workers, func(w, i int) {
		t.intra(k, blocks[i], b, scs[i], &t.work[w])
	})
}

// cross adds the cross splits of the parents (xh, xl), xl in [lo, hi): every left high part lh
// that is a proper, non-empty subset of xh, in increasing order. A block has 2^|xh| of them, each
// a sweep of up to 3^b splits, so it looks at ctx every 16 sweeps, and stops, returning false,
// once ctx is done (the caller's parallel then returns ctx.Err()). It adds the energies it
// computed to wk.
func (t *Trellis) cross(ctx context.Context, k kernel, xh uint32, b int, lo, hi uint32, sc []acc, wk *work) bool {
	low := xh & -xh
	sweeps := 0
	// (u − xh) & xh steps through the submasks of xh in increasing order.
	for u := uint32(0); ; u = (u - xh) & xh {
		if u != 0 && u != xh {
			if sweeps++; sweeps%16 == 0 && ctx.Err() != nil {
				return false
			}
			wk.energies += k.sweep(u<<b, (xh^u)<<b, lo, hi, lo == 0 && u&low != 0, sc)
		}
		if u == xh {
			break
		}
	}
	return true
}

// intra adds the splits with one child in block 0 and finishes the parents of block xh in
// increasing low part. It adds to wk the energies it computed, and the subsets it finished with
// their splits (a subset whose splits the kernel skips, as impossible, has none visited).
func (t *Trellis) intra(k kernel, xh uint32, b int, sc []acc, wk *work) {
	nb := uint32(1) << b
	base := xh << b
	for xl := uint32(0); xl < nb; xl++ {
		if xl != 0 {
			if xh == 0 {
				wk.energies += k.sweep(0, 0, xl, xl+1, false, sc)
			} else {
				wk.energies += k.sweep(base, 0, xl, xl+1, false, sc) // L = (xh, L_l), R = (∅, R_l)
				wk.energies += k.sweep(0, base, xl, xl+1, false, sc) // L = (∅, L_l), R = (xh, R_l)
			}
		}
		if c := bits.OnesCount32(base | xl); c > 1 && !sc[xl].skip {
			wk.subsets++
			wk.splits += 1<<(c-1) - 1
		}
		t.finish(base|xl, &sc[xl])
	}
	if f, ok := k.(blockFinisher); ok {
		f.blockFinished(xh)
	}
}

// blockFinisher is a kernel that keeps a summary of each block once its nodes are final (the
// Ginkgo kernel's, for its MAP-only bound); the layers' barriers publish it to later layers.
type blockFinisher interface {
	blockFinished(xh uint32)
}

// parallel runs f(worker, i) for i in [0, n) on up to workers goroutines, handing out indices in
// order; it stops handing them out once ctx is cancelled and then returns ctx.Err().
func parallel(ctx context.Context, n, workers int, f func(w, i int)) error {
	if workers <= 1 || n <= 1 {
		for i := range n {
			if err := ctx.Err(); err != nil {
				return err
			}
			f(0, i)
		}
		return ctx.Err()
	}
	var next atomic.Int64
	var wg sync.WaitGroup
	for w := range min(workers, n) {
		wg.Go(func() {
			for ctx.Err() == nil {
				i := int(next.Add(1) - 1)
				if i >= n {
					return
				}
				f(w, i)
			}
		})
	}
	wg.Wait()
	return ctx.Err()
}
