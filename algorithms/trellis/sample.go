package trellis

import (
	"math"
	"math/bits"
	"math/rand/v2"
	"sort"

	"hcbench/algorithms/model"
	"hcbench/algorithms/tree"
)

// A Sample is one tree drawn from the posterior, with its log-potential.
type Sample struct {
	Tree          *tree.Tree
	LogLikelihood float64
}

// sampleCacheEntries bounds the split distributions Sample keeps between draws (16 bytes each).
const sampleCacheEntries = 1 << 22

// sampler draws trees top-down, keeping the split distributions of large clusters.
type sampler struct {
	t     *Trellis
	psi   model.SubsetScorer
	cache map[uint32]*splitDist
	size  int
}

// splitDist is the distribution over the splits of one cluster: children l (holding the lowest
// item), cumulative weights and log ψ of each split.
type splitDist struct {
	l   []uint32
	cum []float64
	psi []float64
}

// Sample draws k trees from the posterior P(H | X) = φ(H)/Z (AISTATS §2.5, eq. 3): top-down, a
// cluster V splits into {L, V∖L} (L holding V's lowest item) with probability
// ψ(L, V∖L)·Z(L)·Z(V∖L)/Z(V), and both parts recurse down to single items. Every random number
// comes from rng, so a task's samples are reproducible from its seed.
func (t *Trellis) Sample(rng *rand.Rand, k int) ([]Sample, error) {
	if t.opts.MAPOnly || math.IsInf(t.LogZ(), -1) {
		return nil, ErrNoLogZ
	}
	psi, err := t.subsetScorer()
	if err != nil {
		return nil, err
	}
	s := &sampler{t: t, psi: psi, cache: map[uint32]*splitDist{}}
	out := make([]Sample, k)
	for i := range out {
		ll := 0.0
		chosen := map[uint32]uint32{}
		var draw func(v uint32)
		draw = func(v uint32) {
			if bits.OnesCount32(v) < 2 {
				return
			}
			l, lp := s.draw(rng, v)
			chosen[v] = l
			ll += lp
			draw(l)
			draw(v ^ l)
		}
		draw(t.full)
		out[i] = Sample{Tree: t.treeFrom(func(v uint32) uint32 { return chosen[v] }), LogLikelihood: ll}
	}
	return out, nil
}

// draw picks a split of v and returns its child l and log ψ.
func (s *sampler) draw(rng *rand.Rand, v uint32) (uint32, float64) {
	d, ok := s.cache[v]
	if !ok {
		d = s.dist(v)
		if s.size+len(d.l) <= sampleCacheEntries {
			s.cache[v] = d
			s.size += len(d.l)
		}
	}
	// The first split whose cumulative weight exceeds u: splits of zero weight are never chosen.
	u := rng.Float64() * d.cum[len(d.cum)-1]
	i := min(sort.Search(len(d.cum), func(i int) bool { return d.cum[i] > u }), len(d.cum)-1)
	return d.l[i], d.psi[i]
}

// dist computes the split distribution of v, splits in increasing order of l.
func (s *sampler) dist(v uint32) *splitDist {
	t := s.t
	low := v & -v
	rest := v ^ low
	n := 1<<(bits.OnesCount32(rest)) - 1
	d := &splitDist{l: make([]uint32, 0, n), cum: make([]float64, 0, n), psi: make([]float64, 0, n)}
	zv := t.nodes[v].z
	sum := 0.0
	for u := uint32(0); ; u = (u - rest) & rest {
		if u != rest {
			l := low | u
			r := v ^ l
			p := s.psi.LogPsi(l, r)
			w := 0.0
			if !math.IsInf(p, -1) {
				w = math.Exp(p + t.nodes[l].z + t.nodes[r].z - zv)
			}
			sum += w
			d.l = append(d.l, l)
			d.cum = append(d.cum, sum)
			d.psi = append(d.psi, p)
		}
		if u == rest {
			break
		}
	}
	return d
}
