package trellis

import (
	"context"
	"fmt"
	"math"
	"math/bits"
	"math/rand/v2"
	"sort"

	"github.com/hcbench/hcbench/algorithms/model"
	"github.com/hcbench/hcbench/algorithms/tree"
)

// A Sample is one tree drawn from the posterior, with its log-potential.
type Sample struct {
	Tree          *tree.Tree
	LogLikelihood float64
}

// sampleCacheOverhead is what the sampler's cache spends per cluster beside 8 bytes per split: a
// map slot (key and slice header, 32 bytes, up to twice that after the map grows), and the
// allocation's rounding of 2^k − 1 weights up to 2^k.
const sampleCacheOverhead = 72

// sampler draws trees top-down, keeping the split distributions of the clusters it visits first
// while they fit in budget bytes.
type sampler struct {
	ctx   context.Context
	err   error // ctx.Err() once a split distribution was cut short
	t     *Trellis
	psi   model.SubsetScorer
	cache map[uint32][]float64
	used  int64
	// budget bounds used, the bytes of the cached distributions, counted as 8 per split plus
	// sampleCacheOverhead per cluster.
	budget int64
}

// Sample draws k trees from the posterior P(H | X) = φ(H)/Z (AISTATS §2.5, eq. 3): top-down, a
// cluster V splits into {L, V∖L} (L holding V's lowest item) with probability
// ψ(L, V∖L)·Z(L)·Z(V∖L)/Z(V), and both parts recurse down to single items. Every random number
// comes from rng, so a task's samples are reproducible from its seed. The split distributions of
// the clusters visited are cached in at most 8 bytes per subset of the items, which MemoryNeeded
// counts with Options.Samples; when that was not declared, Sample checks the memory limit first
// and fails with an ErrTooLarge error. It fails with ErrNoLogZ on a MAP-only trellis or one whose
// log Z is −Inf, and returns ctx.Err() when cancelled (checked before each tree, and every 2^16
// splits of a split distribution: the root's has 2^(N−1) − 1).
func (t *Trellis) Sample(ctx context.Context, rng *rand.Rand, k int) ([]Sample, error) {
	if k < 0 {
		return nil, fmt.Errorf("trellis: cannot draw %d samples", k)
	}
	if t.opts.MAPOnly || math.IsInf(t.LogZ(), -1) {
		return nil, ErrNoLogZ
	}
	if err := t.reserve(false, true); err != nil {
		return nil, err
	}
	return t.sample(ctx, rng, k, int64(sampleCacheBytes)<<t.n)
}

// sample is Sample with a cache of budget bytes.
func (t *Trellis) sample(ctx context.Context, rng *rand.Rand, k int, budget int64) ([]Sample, error) {
	psi, err := t.subsetScorer(ctx)
	if err != nil {
		return nil, err
	}
	s := &sampler{ctx: ctx, t: t, psi: psi, cache: map[uint32][]float64{}, budget: budget}
	out := make([]Sample, k)
	chosen := map[uint32]uint32{}
	for i := range out {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		ll := 0.0
		clear(chosen)
		var draw func(v uint32)
		draw = func(v uint32) {
			if bits.OnesCount32(v) < 2 || s.err != nil {
				return
			}
			l, lp := s.draw(rng, v)
			if s.err != nil {
				return
			}
			chosen[v] = l
			ll += lp
			draw(l)
			draw(v ^ l)
		}
		draw(t.full)
		if s.err != nil {
			return nil, s.err
		}
		out[i] = Sample{Tree: t.treeFrom(func(v uint32) uint32 { return chosen[v] }), LogLikelihood: ll}
	}
	return out, nil
}

// draw picks a split of v and returns its child l and log ψ.
func (s *sampler) draw(rng *rand.Rand, v uint32) (uint32, float64) {
	cum, ok := s.cache[v]
	if !ok {
		if cum = s.cumWeights(v); cum == nil {
			return 0, 0 // ctx is done: s.err is set
		}
		if b := 8*int64(len(cum)) + sampleCacheOverhead; s.used+b <= s.budget {
			s.cache[v] = cum
			s.used += b
		}
	}
	i := pick(cum, rng.Float64()*cum[len(cum)-1])
	low := v & -v
	l := low | deposit(uint32(i), v^low)
	return l, s.psi.LogPsi(l, v^l)
}

// pick returns the split that u ∈ [0, total] selects from the cumulative weights cum (total is the
// last, and positive): the first whose cumulative weight exceeds u, so a split of zero weight is
// never chosen. A product u = f·total with f < 1 can still round to total itself; then it is the
// last split of positive weight, the first whose cumulative weight reaches total.
func pick(cum []float64, u float64) int {
	// !(u < total) also catches a NaN, which must not pick past the end: the caller recurses
	// into the split it gets.
	if total := cum[len(cum)-1]; !(u < total) {
		return min(sort.SearchFloat64s(cum, total), len(cum)-1)
	}
	return sort.Search(len(cum), func(i int) bool { return cum[i] > u })
}

// cumWeights returns the cumulative split probabilities of v, splits in increasing order of the
// child L that holds v's lowest item (L = lowest | deposit(i, rest) for split i); or nil, with
// s.err set, once s.ctx is done (looked at every 2^16 splits).
func (s *sampler) cumWeights(v uint32) []float64 {
	t := s.t
	low := v & -v
	rest := v ^ low
	cum := make([]float64, 0, 1<<bits.OnesCount32(rest)-1)
	zv := t.nodes[v].z
	sum := 0.0
	// (u − rest) & rest steps through the submasks of rest in increasing order; u = rest would
	// leave the other child empty.
	for u := uint32(0); u != rest; u = (u - rest) & rest {
		if len(cum)&(1<<16-1) == 1<<16-1 {
			if s.err = s.ctx.Err(); s.err != nil {
				return nil
			}
		}
		l := low | u
		r := v ^ l
		// As in the bottom-up pass, a split of log ψ = −Inf or NaN has no weight.
		if p := s.psi.LogPsi(l, r); p > math.Inf(-1) {
			sum += math.Exp(p + t.nodes[l].z + t.nodes[r].z - zv)
		}
		cum = append(cum, sum)
	}
	return cum
}

// deposit returns the i-th submask of mask in increasing order: bit j of i becomes the j-th lowest
// set bit of mask.
func deposit(i, mask uint32) uint32 {
	var out uint32
	for m := mask; m != 0 && i != 0; m &= m - 1 {
		if i&1 != 0 {
			out |= m & -m
		}
		i >>= 1
	}
	return out
}
