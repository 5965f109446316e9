package trellis

import (
	"context"
	"errors"
	"math"
	"math/bits"
	"sort"

	"github.com/hcbench/hcbench/algorithms/model"
	"github.com/hcbench/hcbench/algorithms/tree"
)

// The posterior marginals (AISTATS §2.4) come from one top-down ("outside") pass. The outside
// weight O(A) of a cluster A is the total potential of all ways to complete a hierarchy of the
// items in which A is a cluster, counting only the splits outside A; so Σ_{H ∋ A} φ(H) = O(A)·Z(A),
// and
//
//	P(A | X)   = O(A)·Z(A)/Z(X)        (cluster marginal)
//	P(H_A | X) = O(A)·φ(H_A)/Z(X)      (marginal of a sub-hierarchy H_A rooted at A)
//
// O(X) = 1, and each A pulls from its supersets V = A ∪ B: O(A) = Σ_B O(A∪B)·ψ(A, B)·Z(B), over
// the non-empty B disjoint from A. Pulling (instead of pushing into the children) lets the clusters
// of one size run in parallel without locks; it costs 3^N split evaluations, twice the splits of
// the bottom-up pass. The reference code has no marginals; this pass is ours (trellis.md §5).

// ErrNoLogZ is returned by Marginals and Sample on a MAPOnly trellis or one whose log Z is −Inf.
var ErrNoLogZ = errors.New("trellis: marginals and samples need a finite log Z (the pass ran MAP-only, or every tree is impossible)")

// Marginals runs the outside pass (once; later calls reuse it). It fails with ErrNoLogZ on a
// MAP-only trellis or one whose log Z is −Inf, and with an ErrTooLarge error, before allocating,
// when its 8 bytes per subset would take the trellis over its memory limit; it returns ctx.Err()
// when cancelled.
func (t *Trellis) Marginals(ctx context.Context) error {
	if t.outside != nil {
		return nil
	}
	if t.opts.MAPOnly || math.IsInf(t.LogZ(), -1) {
		return ErrNoLogZ
	}
	if err := t.reserve(true, false); err != nil {
		return err
	}
	psi, err := t.subsetScorer(ctx)
	if err != nil {
		return err
	}
	out := make([]float64, 1<<t.n)
	out[t.full] = 0
	full := t.full
	// Workers take chunks of consecutive masks and do those of the current size, which needs no
	// list of each size's masks (that would be up to 4·C(N, N/2) more bytes).
	const chunk = 1 << 10
	chunks := int((full + chunk - 1) / chunk)
	for size := t.n - 1; size >= 1; size-- {
		err := parallel(ctx, chunks, t.opts.Workers, func(_, c int) {
			lo := uint32(c) * chunk
			// A cluster of this size pulls from 2^(N−size) − 1 supersets: up to 2^(N−1) for
			// one cluster, so ctx is looked at every 2^16 of them, counted across clusters.
			work := 0
			for a := lo; a < min(lo+chunk, full); a++ {
				if bits.OnesCount32(a) != size {
					continue
				}
				comp := full ^ a
				m, s := math.Inf(-1), 0.0
				for b := comp; b != 0; b = (b - 1) & comp {
					if work++; work&(1<<16-1) == 0 && ctx.Err() != nil {
						return // parallel returns ctx.Err()
					}
					ov := out[a|b]
					if math.IsInf(ov, -1) {
						continue
					}
					v := ov + psi.LogPsi(a, b) + t.nodes[b].z
					if v > m {
						s = s*expNeg(m-v) + 1
						m = v
					} else if v > math.Inf(-1) {
						s += expNeg(v - m)
					}
				}
				out[a] = math.Inf(-1)
				if s > 0 {
					out[a] = m + math.Log(s)
				}
			}
		})
		if err != nil {
			return err
		}
	}
	t.outside = out
	return nil
}

// ClusterMarginal returns P(x | X), the posterior probability that the subset x is a cluster of
// the hierarchy. Precondition: Marginals has run.
func (t *Trellis) ClusterMarginal(x uint32) float64 {
	return math.Exp(t.outside[x] + t.nodes[x].z - t.LogZ())
}

// SplitMarginal returns the posterior probability that the cluster l|r splits into l and r.
// Precondition: Marginals has run (so the scorer exists).
func (t *Trellis) SplitMarginal(l, r uint32) float64 {
	return math.Exp(t.outside[l|r] + t.scorer.LogPsi(l, r) + t.nodes[l].z + t.nodes[r].z - t.LogZ())
}

// SubHierarchyMarginal returns P(H | X) for a tree h over the items of the subset x (h's leaves are
// items of the full item set): the probability that the posterior hierarchy contains h as the
// subtree rooted at x. It returns an error when Marginals has not run or h is not a binary tree
// over distinct items. Precondition: every node of h is reached once from its root.
func (t *Trellis) SubHierarchyMarginal(h *tree.Tree) (float64, error) {
	if t.outside == nil {
		return 0, errors.New("trellis: SubHierarchyMarginal needs Marginals to have run")
	}
	if h == nil || h.Root < 0 || h.Root >= len(h.Nodes) {
		return 0, errors.New("trellis: empty sub-hierarchy")
	}
	for _, nd := range h.Nodes {
		for _, c := range nd.Children {
			if c < 0 || c >= len(h.Nodes) {
				return 0, errors.New("trellis: sub-hierarchy node with a child outside the tree")
			}
		}
	}
	psi, err := t.subsetScorer(context.Background()) // built by Marginals already
	if err != nil {
		return 0, err
	}
	masks := make([]uint32, len(h.Nodes))
	logPhi := 0.0
	for _, v := range h.PostOrder() {
		nd := h.Nodes[v]
		if nd.IsLeaf() {
			if nd.Item < 0 || nd.Item >= t.n {
				return 0, errors.New("trellis: sub-hierarchy leaf outside the items")
			}
			masks[v] = 1 << nd.Item
			continue
		}
		if len(nd.Children) != 2 {
			return 0, errors.New("trellis: a sub-hierarchy must be binary")
		}
		l, r := masks[nd.Children[0]], masks[nd.Children[1]]
		if l&r != 0 {
			return 0, errors.New("trellis: sub-hierarchy repeats an item")
		}
		logPhi += psi.LogPsi(l, r)
		masks[v] = l | r
	}
	return math.Exp(t.outside[masks[h.Root]] + logPhi - t.LogZ()), nil
}

// ClusterProb is a cluster with its posterior marginal.
type ClusterProb struct {
	Items []int   `json:"cluster"`
	P     float64 `json:"p"`
}

// TopClusters returns the k clusters of largest marginal, largest first, leaving out the
// singletons and the full set (whose marginals are 1); ties go to the smaller mask. k ≤ 0 gives
// none. It returns ctx.Err() once ctx is done (looked at every 1024 subsets). Precondition:
// Marginals has run.
func (t *Trellis) TopClusters(ctx context.Context, k int) ([]ClusterProb, error) {
	if k <= 0 {
		return nil, nil
	}
	// Insertion into a sorted list costs O(2^N·k) moves at worst (marginals growing with the
	// mask); at N = 20 and k = 1000 that was measured at 0.2–0.95 s on a loaded machine, small
	// beside the two passes over the trellis that marginals take.
	type mp struct {
		x uint32
		p float64
	}
	var top []mp
	for x := uint32(3); x < t.full; x++ {
		if x&(1<<10-1) == 0 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
		if bits.OnesCount32(x) < 2 {
			continue
		}
		p := t.ClusterMarginal(x)
		if len(top) == k && !(p > top[k-1].p) {
			continue
		}
		i := sort.Search(len(top), func(i int) bool { return top[i].p < p })
		top = append(top, mp{})
		copy(top[i+1:], top[i:])
		top[i] = mp{x, p}
		if len(top) > k {
			top = top[:k]
		}
	}
	out := make([]ClusterProb, len(top))
	for i, c := range top {
		out[i] = ClusterProb{Items: Items(c.x), P: c.p}
	}
	return out, nil
}

// MAPClusterMarginals returns the marginal of every cluster of the MAP tree with at least two
// items, largest cluster first. Precondition: Marginals has run.
func (t *Trellis) MAPClusterMarginals() []ClusterProb {
	var out []ClusterProb
	var walk func(x uint32)
	walk = func(x uint32) {
		if bits.OnesCount32(x) < 2 {
			return
		}
		out = append(out, ClusterProb{Items: Items(x), P: t.ClusterMarginal(x)})
		l := t.bp[x]
		walk(l)
		walk(x ^ l)
	}
	walk(t.full)
	sort.SliceStable(out, func(i, j int) bool { return len(out[i].Items) > len(out[j].Items) })
	return out
}

// Items lists the items of a subset mask in increasing order.
func Items(x uint32) []int {
	out := make([]int, 0, bits.OnesCount32(x))
	for x != 0 {
		out = append(out, bits.TrailingZeros32(x))
		x &= x - 1
	}
	return out
}

// subsetScorer returns the model's scorer, built on first use (the Ginkgo kernel needs none
// for the bottom-up pass). Not safe for concurrent use.
func (t *Trellis) subsetScorer(ctx context.Context) (model.SubsetScorer, error) {
	if t.scorer == nil {
		sc, err := newSubsetScorer(ctx, t.model.(model.SubsetModel))
		if err != nil {
			return nil, err
		}
		t.scorer = sc
	}
	return t.scorer, nil
}
