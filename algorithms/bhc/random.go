package bhc

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"slices"

	"github.com/hcbench/hcbench/algorithms/conjugate"
)

// Filter names how RBHC sends a point outside its subsample to one side of the subsample tree's
// top split (design note §8). Both rules are strict: ties go right.
type Filter int

const (
	// FilterNote is the note's Fig. 4: x goes left when π_L p(x|D_L) > π_R p(x|D_R), where D_L and
	// D_R are the subsample's two sides and π_L, π_R the merge priors of those two nodes (π = 1 for
	// a leaf), as in pyBHC.
	FilterNote Filter = iota
	// FilterLogOdds is Bioconductor BHC's rule: x goes left when the log-odds of merging x with
	// D_L exceeds that of merging it with D_R.
	FilterLogOdds
)

// RandomizedOptions configure RBHC.
type RandomizedOptions struct {
	// M is the subsample size. With M < 2 or M ≥ n, RBHC is greedy BHC (the Bioconductor R
	// wrapper's rule), and returns exactly Run's hierarchy.
	M      int
	Filter Filter
	// Base sets where the recursion stops: a set of at most Base·M points gets greedy BHC rather
	// than a subsample (Base < 1 counts as 1, Bioconductor BHC's rule: greedy BHC from M points
	// down). The note's text allows it: "when a level where m is comparable to n/2^L is
	// reached the algorithm can simply call BHC on the n/2^L points".
	//
	// Why it matters: deep in the recursion, sets are tight and the top split of a subsample tree
	// is lopsided. On the 4-D mixture of BenchmarkRandomized1M (M = 50), 80 % of the sets of
	// 51–100 points lose at most 5 points to the small side at n = 100 000, and 96 % at
	// n = 1 000 000, so such a set is subsampled again and again (0.087 subsample searches per
	// point at 100 000, 0.157 at 1 000 000, 89 % of them on sets of at most 4M points), and the
	// marginal likelihoods per point grow from 245 to 348. That bends the time above n log n
	// (the note's Proposition 1 assumes balanced splits). With Base = 4, greedy BHC on a set of
	// at most 4M points costs O(4M) marginal likelihoods per point whatever the splits, and the
	// time grows as n log n to a million points (issue 15).
	Base int
}

// base returns the largest set that gets greedy BHC (saturating rather than overflowing).
func (o RandomizedOptions) base() int {
	f := max(o.Base, 1)
	if o.M > math.MaxInt/f {
		return math.MaxInt
	}
	return f * o.M
}

// Randomized is RBHC (the note's Fig. 3, in Bioconductor BHC's structure): on a set of more than
// max(Base, 1)·M points it draws M of them without replacement from rng, runs greedy BHC on the subsample, sends
// every other point to the left or right child of that tree's root (Filter), discards the
// subsample tree and recurses on the two sides, joining the two results with one BHC merge; smaller sets
// get greedy BHC. Subsample points keep their side. Each level costs O(n)
// marginal likelihoods, so a balanced run costs O(n log n) plus O(M²) per subsample.
//
// Every node quantity of the result is the BHC quantity of the returned tree on the full data,
// since each merge is computed from its two children.
func Randomized(ctx context.Context, m conjugate.Model, p Prior, rng *rand.Rand, o RandomizedOptions) (*Hierarchy, error) {
	n := m.Items()
	if o.M < 2 || o.base() >= n {
		return Run(ctx, m, p)
	}
	if o.Filter != FilterNote && o.Filter != FilterLogOdds {
		return nil, errors.New("bhc: unknown RBHC filter")
	}
	b, err := newBuilder(ctx, m, p)
	if err != nil {
		return nil, err
	}
	items := make([]int, n)
	for i := range items {
		items[i] = i
	}
	r := newRandomized(b, rng, o)
	if _, err := r.cluster(ctx, items); err != nil {
		return nil, err
	}
	if b.err != nil {
		return nil, b.err
	}
	return b.hierarchy(), nil
}

type randomized struct {
	b     *builder
	rng   *rand.Rand
	o     RandomizedOptions
	left  []bool // per item: on the left of the current subsample split
	pairs pairCache
}

func newRandomized(b *builder, rng *rand.Rand, o RandomizedOptions) *randomized {
	n := b.store.Len()
	r := &randomized{b: b, rng: rng, o: o, left: make([]bool, n)}
	r.pairs.at = make([]int32, n)
	for i := range r.pairs.at {
		r.pairs.at[i] = -1
	}
	return r
}

// pairCache remembers the log-odds of the pairs of items (leaves) of one small set, so that the
// subsamples drawn from that set and from its subsets score each pair once.
//
// With Base 1, a chain of lopsided splits (see Base) draws subsample after subsample from nearly
// the same points: at n = 100 000 (BenchmarkRandomized100k, m = 50) the pairs of items that the
// subsamples of sets of at most 4m points score are 2.4 times the distinct pairs, and the cache
// cuts RBHC's marginal likelihoods per point at n = 20 000 from 267 to 230. With Base 4 those
// sets get greedy BHC, which scores each pair once anyway, and the cache serves the sets above.
// A leaf pair's log-odds depends on the two leaves only, so it is computed once, by the same
// code, and is the same number.
type pairCache struct {
	at    []int32   // item → its index in the set, −1 outside it
	items []int     // the set, nil when none is cached
	odds  []float64 // pair (i, j) of indices, i < j, at j(j−1)/2 + i; NaN until scored
}

// cachedSet reports whether the pairs of a set of size items are cached, where sets of at most
// base items get greedy BHC: sets that recurse (more than base items) of at most 4·base items and
// at most 2048 (16 MB of pairs).
func cachedSet(size, base int) bool { return size > base && size <= 4*base && size <= 2048 }

// open starts caching the pairs of the items s.
func (c *pairCache) open(s []int) {
	c.items = append(c.items[:0], s...)
	for i, x := range s {
		c.at[x] = int32(i)
	}
	k := len(s) * (len(s) - 1) / 2
	c.odds = slices.Grow(c.odds[:0], k)[:k]
	for i := range c.odds {
		c.odds[i] = math.NaN()
	}
}

// close forgets the cached set.
func (c *pairCache) close() {
	for _, x := range c.items {
		c.at[x] = -1
	}
	c.items = c.items[:0]
}

// odds returns b.odds(a, c), from the cache when a and c are items of the cached set.
func (r *randomized) odds(a, c int) float64 {
	p := &r.pairs
	if len(p.items) > 0 && a < c && c < len(p.at) {
		i, j := p.at[a], p.at[c]
		if i >= 0 && j >= 0 {
			i, j = min(i, j), max(i, j)
			k := int(j)*int(j-1)/2 + int(i)
			if v := p.odds[k]; !math.IsNaN(v) {
				return v
			}
			v := r.b.odds(a, c) // never NaN
			p.odds[k] = v
			return v
		}
	}
	return r.b.odds(a, c)
}

// cluster builds the RBHC tree of the items s (which it may reorder) and returns its root id.
func (r *randomized) cluster(ctx context.Context, s []int) (int, error) {
	b, m := r.b, r.o.M
	base := r.o.base()
	if len(r.pairs.items) == 0 && cachedSet(len(s), base) {
		r.pairs.open(s)
		defer r.pairs.close()
	}
	if len(s) <= base {
		return b.greedy(ctx, s, r.odds)
	}
	// A partial Fisher–Yates shuffle puts the subsample in s[:m].
	for i := range m {
		j := i + r.rng.IntN(len(s)-i)
		s[i], s[j] = s[j], s[i]
	}
	mark := len(b.nodes)
	root, err := b.greedy(ctx, s[:m], r.odds)
	if err != nil {
		return -1, err
	}
	lt, rt := b.nodes[root].Left, b.nodes[root].Right
	for _, x := range s[:m] {
		r.left[x] = false
	}
	var markLeft func(v int)
	markLeft = func(v int) {
		if nd := &b.nodes[v]; nd.IsLeaf() {
			r.left[nd.Item] = true
		} else {
			markLeft(nd.Left)
			markLeft(nd.Right)
		}
	}
	markLeft(lt)
	for _, x := range s[m:] {
		// Two marginal likelihoods per point (O(d³) each for NIW) make a look at ctx cheap.
		if err := ctx.Err(); err != nil {
			return -1, err
		}
		r.left[x] = b.goesLeft(r.o.Filter, lt, rt, x)
	}
	b.truncate(mark)
	var ls, rs []int
	for _, x := range s {
		if r.left[x] {
			ls = append(ls, x)
		} else {
			rs = append(rs, x)
		}
	}
	lr, err := r.cluster(ctx, ls)
	if err != nil {
		return -1, err
	}
	rr, err := r.cluster(ctx, rs)
	if err != nil {
		return -1, err
	}
	return b.merge(lr, rr), nil
}

// goesLeft reports whether the filter f sends item x to lt rather than rt, the two children of a
// subsample tree's root. x is scored against the subsample nodes themselves, not against the
// sides as they grow, and the comparison is strict, so a tie sends x right (design note §8).
func (b *builder) goesLeft(f Filter, lt, rt, x int) bool {
	var sl, sr float64
	switch f {
	case FilterNote:
		sl = b.nodes[lt].LogPi + b.logMLUnion(lt, x) - b.nodes[lt].LogML
		sr = b.nodes[rt].LogPi + b.logMLUnion(rt, x) - b.nodes[rt].LogML
	case FilterLogOdds:
		sl, sr = b.odds(lt, x), b.odds(rt, x)
	}
	b.work.PointsFiltered++
	return sl > sr
}

// EMOptions configure EMBHC.
type EMOptions struct {
	// M is the number of clusters. With M < 2 or M ≥ n, EMBHC is greedy BHC.
	M int
	// Steps is the number of hard-EM steps, k (≥ 0). EM stops early once no point moves.
	Steps int
	// ResolveM is the subsample size of the RBHC that resolves each cluster into a subtree: a
	// cluster of at most max(ResolveBase, 1)·ResolveM points (every cluster, when ResolveM < 2)
	// gets greedy BHC.
	ResolveM int
	// ResolveBase is that RBHC's Base (RandomizedOptions.Base).
	ResolveBase int
}

// EM is EMBHC (the note's Fig. 5): it draws M points from rng as one-point clusters, sends every
// other point to the cluster of highest predictive density p(x|D_c) (ties to the lowest cluster),
// refines with Steps steps of hard EM, then runs BHC on the clusters.
//
// Conventions (ours; the note gives no details). An EM step scores every point against every
// cluster of the previous assignment by log n_c + log p(x|D_c) (the cluster's share as mixing
// weight and its posterior predictive, the point itself included, as hard EM fits parameters to
// the current assignment) and moves it to the best, ties to the lowest cluster; emptied clusters
// are dropped. The note runs BHC on the clusters as leaves; to return a tree over the items, each
// cluster is first resolved into a subtree by RBHC with subsample size ResolveM and the note's
// filter (greedy BHC when it has at most ResolveM points), and greedy BHC then merges those
// subtrees, so every node quantity is the BHC quantity of the returned tree. Resolving every
// cluster with greedy BHC would cost Σ_c n_c², which is O(n²/M).
//
// x are the model's items as vectors (the rows the model was built from).
func EM(ctx context.Context, m conjugate.Model, x [][]float64, p Prior, rng *rand.Rand, o EMOptions) (*Hierarchy, error) {
	n := m.Items()
	if len(x) != n {
		return nil, errors.New("bhc: EMBHC needs one vector per item")
	}
	if o.Steps < 0 {
		return nil, errors.New("bhc: EMBHC needs a non-negative number of EM steps")
	}
	if o.M < 2 || o.M >= n {
		return Run(ctx, m, p)
	}
	b, err := newBuilder(ctx, m, p)
	if err != nil {
		return nil, err
	}
	perm := rng.Perm(n)
	centre := perm[:o.M]
	assign := make([]int, n)
	for i := range assign {
		assign[i] = -1
	}
	for c, it := range centre {
		assign[it] = c
	}
	for i := range n {
		if assign[i] >= 0 {
			continue
		}
		// M marginal likelihoods per point.
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		best, bestC := math.Inf(-1), 0
		for c, it := range centre {
			if s := b.logMLUnion(it, i) - b.nodes[it].LogML; s > best {
				best, bestC = s, c
			}
		}
		assign[i] = bestC
	}
	mark := len(b.nodes)
	for step := 0; step < o.Steps; step++ {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		members := groups(assign, o.M)
		var ids, cs []int
		var logN []float64
		for c, g := range members {
			if err := ctx.Err(); err != nil { // a cluster's statistics cost O(|g| d²)
				return nil, err
			}
			if len(g) > 0 {
				cs = append(cs, c)
				ids = append(ids, b.store.Cluster(g))
				logN = append(logN, math.Log(float64(len(g))))
			}
		}
		moved := false
		for i := range n {
			// M predictive densities per point.
			if err := ctx.Err(); err != nil {
				return nil, err
			}
			best, bestC := math.Inf(-1), assign[i]
			b.work.Predictives += int64(len(ids))
			for k, id := range ids {
				if s := logN[k] + b.store.LogPredictive(id, x[i]); s > best {
					best, bestC = s, cs[k]
				}
			}
			if bestC != assign[i] {
				assign[i], moved = bestC, true
			}
		}
		b.store.Truncate(mark)
		if !moved {
			break
		}
	}
	var roots []int
	resolve := o.ResolveM
	if resolve < 2 {
		resolve = n
	}
	inner := newRandomized(b, rng, RandomizedOptions{M: resolve, Filter: FilterNote, Base: o.ResolveBase})
	for _, g := range groups(assign, o.M) {
		if len(g) == 0 {
			continue
		}
		root, err := inner.cluster(ctx, g)
		if err != nil {
			return nil, err
		}
		roots = append(roots, root)
	}
	if _, err := b.greedy(ctx, roots, b.odds); err != nil {
		return nil, err
	}
	if b.err != nil {
		return nil, b.err
	}
	return b.hierarchy(), nil
}

// groups lists the items of each of the k clusters, ascending.
func groups(assign []int, k int) [][]int {
	g := make([][]int, k)
	for i, c := range assign {
		g[c] = append(g[c], i)
	}
	return g
}
