package bhc

import (
	"context"
	"fmt"
	"math"
	"math/bits"

	"github.com/hcbench/hcbench/algorithms/conjugate"
	"github.com/hcbench/hcbench/algorithms/logspace"
	"github.com/hcbench/hcbench/algorithms/tree"
)

// MaxExactItems is the largest n ExactFixed accepts: it visits 3ⁿ/2 splits (1.7·10⁹ at n = 20)
// and keeps 20 bytes per subset.
const MaxExactItems = 20

// ExactFixed returns the binary tree of highest log p(D|T) under a fixed π, found by dynamic
// programming over the 2ⁿ item subsets:
//
//	best(X) = logaddexp(log π + log p(X|H1), log(1−π) + max over splits X = A∪B of best(A) + best(B)),
//
// exact because p(D|T) increases with each child's p(D|T). (Under the DP prior π_k depends on the
// subtree's shape, so no such recursion exists.) Among exactly tied splits, the one whose part
// holding the smallest item is the smallest bitmask wins. The hierarchy's nodes are those of Score
// on the optimal tree.
func ExactFixed(ctx context.Context, m conjugate.Model, pi float64) (*Hierarchy, error) {
	n := m.Items()
	if n < 1 || n > MaxExactItems {
		return nil, fmt.Errorf("bhc: the exact fixed-π optimum takes 1 to %d items, not %d", MaxExactItems, n)
	}
	p := Prior{Fixed: true, Pi: pi}
	if err := p.Validate(); err != nil {
		return nil, err
	}
	logPi, log1mPi := math.Log(pi), math.Log1p(-pi)
	full := uint32(1)<<n - 1
	f := make([]float64, full+1)
	store := m.NewStore()
	// Depth-first over subsets adding items in increasing order, so the store holds one path.
	// Each subset costs one marginal likelihood; ctx is looked at every 256 subsets, and once it
	// is done the walk unwinds.
	var err error
	var work Work
	visited := 0
	var fill func(mask uint32, id, next int)
	fill = func(mask uint32, id, next int) {
		if visited++; visited%256 == 0 && err == nil {
			err = ctx.Err()
		}
		if err != nil {
			return
		}
		f[mask] = store.LogML(id)
		work.MarginalLikelihoods++
		for i := next; i < n; i++ {
			c := store.Merge(id, i)
			fill(mask|1<<i, c, i+1)
			store.Truncate(c)
		}
	}
	for i := range n {
		fill(1<<i, i, i+1)
	}
	if err != nil {
		return nil, err
	}
	best := make([]float64, full+1)
	split := make([]uint32, full+1)
	// A mask costs 2^(|mask|−1) splits, up to 2^(n−2): ctx is looked at every 64 masks.
	for mask := uint32(1); mask <= full; mask++ {
		if mask&63 == 0 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
		if math.IsNaN(f[mask]) {
			return nil, fmt.Errorf("bhc: the marginal likelihood of the items %b is not a number", mask)
		}
		low := mask & -mask
		if mask == low {
			best[mask] = f[mask]
			continue
		}
		rest := mask ^ low
		work.Splits += int64(1)<<bits.OnesCount32(rest) - 1
		top, arg := math.Inf(-1), uint32(0)
		// sub runs over the proper subsets of rest in decreasing order; ≥ keeps the smallest
		// tied left part.
		for sub := (rest - 1) & rest; ; sub = (sub - 1) & rest {
			if v := best[low|sub] + best[rest^sub]; v >= top {
				top, arg = v, low|sub
			}
			if sub == 0 {
				break
			}
		}
		best[mask] = logspace.AddExp(logPi+f[mask], log1mPi+top)
		split[mask] = arg
	}
	var merges [][2]int
	var build func(mask uint32) int
	build = func(mask uint32) int {
		if mask&(mask-1) == 0 {
			i := 0
			for mask>>i != 1 {
				i++
			}
			return i
		}
		l := build(split[mask])
		r := build(mask ^ split[mask])
		merges = append(merges, [2]int{l, r})
		return n + len(merges) - 1
	}
	build(full)
	t, err := tree.FromMerges(n, merges)
	if err != nil {
		return nil, err
	}
	h, err := Score(m, p, t)
	if err != nil {
		return nil, err
	}
	h.Work.add(work)
	return h, nil
}
