package trellis

import (
	"context"
	"github.com/hcbench/hcbench/algorithms/model"
	"math"
	"math/bits"
)

// MAP ties. Some models give many trees the MAP value: under the correlation-clustering energy a
// tree's energy depends only on the depths at which negative pairs are separated, so whole
// families of trees tie exactly. MAPTree returns one of them by the tie rule (package comment),
// and anything measured on it alone, such as its purity, is then a property of the rule, not of
// the model. MAPTies describes them all with a second bottom-up pass over the tables: a split
// (L, R) of a subset X is tied when its value ψ(L, R) + MAP(L) + MAP(R) is within tol of MAP(X),
// and a tree reaches the MAP when all its splits are tied, so
//
//	trees(X) = Σ_{tied (L, R)} trees(L)·trees(R),
//	lo(X)    = min_{tied (L, R)} score(L, R) + lo(L) + lo(R), and hi(X) likewise with max,
//
// for any score that adds up over a tree's splits. A tree's shortfall from the MAP is the sum of
// its splits' shortfalls (each ≥ 0), so the trees counted are those within tol of the MAP at every
// split: every tree within tol of the MAP, and none more than (N−1)·tol below it.

// Bytes per subset that MAPTies allocates: tree counts and the subsets listed by size, and with a
// score its least and greatest sums.
const (
	tiesBytes      = 8 + 8 + 4 // counts, best values, subsets by size
	tiesScoreBytes = 16
)

// Ties describes the trees that reach the MAP.
type Ties struct {
	// Trees is the number of binary trees whose every split is tied; 0 when every tree is
	// impossible. Counted in float64: exact below 2^53, otherwise rounded.
	Trees float64
	// Min and Max are the least and greatest Σ score(L, R) over the splits of those trees (NaN
	// without a score, or when Trees is 0).
	Min, Max float64
}

// MAPTies counts the trees that reach the MAP within tol (≥ 0, in log-potential, per split) and,
// when score is not nil, the range of Σ score(L, R) over their splits. score receives the two
// children of a split as masks, L the one holding the parent's lowest item; it must be safe for
// concurrent calls. The pass scores 3^N/2 splits, as the bottom-up pass, and allocates 20 bytes per
// subset (36 with a score) for as long as it runs; it fails with ErrTooLarge, before allocating,
// when 36 bytes per subset and the trellis's own tables would exceed the memory limit. The result does not depend
// on the number of workers. It returns ctx.Err() when cancelled.
func (t *Trellis) MAPTies(ctx context.Context, tol float64, score func(l, r uint32) float64) (Ties, error) {
	o := t.opts
	o.Marginals = o.Marginals || t.outside != nil
	o.MAPTies = true
	if err := checkMemory(t.model.(model.SubsetModel), o, t.limit); err != nil {
		return Ties{}, err
	}
	psi, err := t.subsetScorer(ctx)
	if err != nil {
		return Ties{}, err
	}
	size := 1 << t.n
	trees, best := make([]float64, size), make([]float64, size)
	var lo, hi []float64
	if score != nil {
		lo, hi = make([]float64, size), make([]float64, size)
	}
	for i := range t.n {
		trees[1<<i] = 1
	}
	// Subsets of one size depend only on smaller ones, so each size is one parallel layer; every
	// subset sums its own splits in a fixed order, which keeps the result independent of workers.
	layers := make([][]uint32, t.n+1)
	for k, c := 0, 1; k <= t.n; k++ { // c = C(n, k), so no layer grows past its size
		layers[k] = make([]uint32, 0, c)
		c = c * (t.n - k) / (k + 1)
	}
	for x := uint32(1); x <= t.full; x++ {
		if x&(1<<16-1) == 0 {
			if err := ctx.Err(); err != nil {
				return Ties{}, err
			}
		}
		k := bits.OnesCount32(x)
		layers[k] = append(layers[k], x)
	}
	// Each subset's best is taken again here, from the same psi that scores its splits: the pass's
	// own MAP values come from the model's fast kernel where it has one, which can differ from
	// psi in the last bits, and then no split would be within a small tol of them.
	scratch := make([][]float64, max(t.opts.Workers, 1))
	for _, layer := range layers[2:] {
		err := parallel(ctx, len(layer), t.opts.Workers, func(w, i int) {
			x := layer[i]
			low := x & -x
			rest := x ^ low
			if scratch[w] == nil {
				scratch[w] = make([]float64, 1<<(t.n-1))
			}
			vs := scratch[w][:0]
			b := math.Inf(-1)
			// A subset of k items has 2^(k−1) splits, up to 2^(N−1) for the full set: ctx is
			// looked at every 2^16 of them (parallel returns ctx.Err()).
			for u := rest; ; u = (u - 1) & rest {
				if len(vs)&(1<<16-1) == 1<<16-1 && ctx.Err() != nil {
					return
				}
				l := low | u
				v := math.Inf(-1)
				if r := x ^ l; r != 0 {
					v = psi.LogPsi(l, r) + best[l] + best[r]
					if v > b {
						b = v
					}
				}
				vs = append(vs, v)
				if u == 0 {
					break
				}
			}
			best[x] = b
			cnt, mn, mx := 0.0, math.Inf(1), math.Inf(-1)
			if !math.IsInf(b, -1) {
				for j, u := 0, rest; ; j, u = j+1, (u-1)&rest {
					if j&(1<<16-1) == 1<<16-1 && ctx.Err() != nil {
						return
					}
					// A −Inf split (or child), or a NaN one, is never tied.
					if l := low | u; b-vs[j] <= tol {
						r := x ^ l
						cnt += trees[l] * trees[r]
						if score != nil {
							s := score(l, r)
							mn, mx = min(mn, s+lo[l]+lo[r]), max(mx, s+hi[l]+hi[r])
						}
					}
					if u == 0 {
						break
					}
				}
			}
			trees[x] = cnt
			if score != nil {
				lo[x], hi[x] = mn, mx
			}
		})
		if err != nil {
			return Ties{}, err
		}
	}
	out := Ties{Trees: trees[t.full], Min: math.NaN(), Max: math.NaN()}
	if score != nil && out.Trees > 0 {
		out.Min, out.Max = lo[t.full], hi[t.full]
	}
	return out, nil
}
