// Package trellis is the exact cluster trellis of Greenberg, Macaluso et al. (AISTATS 2021): a
// dynamic program over all 2^N subsets of N items that gives, for any model whose tree potential is
// a product of split potentials ψ(X_L, X_R),
//
//   - log Z, the log partition function over all (2N−3)!! binary trees;
//   - the MAP tree and its log-potential;
//   - the number of trees with finite likelihood;
//   - the posterior marginal of every cluster, P(X_i | X), and of any sub-hierarchy (Marginals);
//   - exact samples from the posterior P(H | X) = φ(H)/Z (Sample).
//
// Subsets are bitmasks (bit i for item i). Each unordered split {L, R} of a subset is enumerated
// once, as the child L that holds the subset's lowest item. The pass costs O(3^N) time and
// O(2^N) memory; a guard refuses an N whose tables would not fit (see MemoryLimit).
//
// Tie rule for the MAP tree: among splits of maximal value, the one whose child L (the child
// holding the lowest item) has the smallest bitmask wins. This rule does not depend on the
// enumeration order, so results are bit-identical for any number of workers.
//
// Speed (../shared/design/trellis-performance.md): subsets are visited in a cache-blocked order
// (high/low bit halves, so the working set of one sweep stays in L2), blocks of equal popcount run
// in parallel, and the Ginkgo 2020 likelihood has its own kernel with an inlined log and exp;
// other models go through model.SubsetScorer.
package trellis

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/bits"
	"runtime"
	"strings"

	"github.com/hcbench/hcbench/algorithms/model"
	"github.com/hcbench/hcbench/algorithms/model/ginkgo"
	"github.com/hcbench/hcbench/algorithms/tree"
)

// Options configure Build.
type Options struct {
	// Workers is the number of goroutines; ≤ 0 means runtime.GOMAXPROCS(0). Results are
	// bit-identical for any number.
	Workers int
	// MAPOnly skips log Z, which makes the pass faster; marginals and sampling then fail.
	MAPOnly bool
	// NoCount skips counting the trees with finite likelihood.
	NoCount bool
	// MemoryLimit bounds the bytes the trellis may take (MemoryNeeded); ≤ 0 means no bound (the
	// caller has checked the memory; hcbench's runner gives every task a limit).
	MemoryLimit int64
	// Marginals, Samples and MAPTies declare that the methods of those names will be called, so
	// that Build's memory check (and MemoryNeeded) counts their tables too and fails before the
	// pass rather than after it. An undeclared call checks the limit itself before allocating.
	// Marginals and Samples do not go with MAPOnly.
	Marginals, Samples, MAPTies bool
	// blockBits overrides the block size (tests); 0 picks one.
	blockBits int
	// generic forces the model.SubsetScorer path even for models with a kernel of their own
	// (tests compare the two).
	generic bool
	// noPrune turns off the Ginkgo kernel's MAP-only seeding and sweep bound
	// (kernel_ginkgo_prune.go; tests compare the results with and without).
	noPrune bool
}

// node is what the pass keeps per subset: the kernel's summary (t and s = √max(t, 0) for Ginkgo),
// the MAP log-potential m and log Z. 32 bytes, so that a subset's byte offset is its mask << 5.
type node struct {
	t, s, m, z float64
}

const nodeShift = 5

// Trellis holds the tables of a finished bottom-up pass.
type Trellis struct {
	n     int
	full  uint32
	opts  Options
	limit int64 // the memory limit in force
	nodes []node
	count []float64 // trees with finite likelihood per subset; nil with NoCount
	bp    []uint32  // MAP child holding the lowest item, per subset
	model model.Model

	scorer  model.SubsetScorer // built on demand for marginals and sampling
	outside []float64          // log outside weights, built by Marginals
	work    []work             // the pass's counters, per worker (Counters)
}

// Counters are the exact counts of the bottom-up pass's work. They depend on the items, the model
// and the options (and the block size, which orders a subset's splits and so what a MAP-only
// pass prunes), never on the number of workers or on the split loops in use (Go, assembly): each
// is a sum over subsets of what the pass did for that subset, and a subset's splits are taken in
// the same order whatever the schedule.
type Counters struct {
	// Subsets is the number of subsets of two or more items whose splits the pass took: all
	// 2^N − N − 1 of them, less those the model makes impossible before any split (a Ginkgo
	// subset below t_cut).
	Subsets int64
	// Splits is the number of their unordered splits, 2^(k−1) − 1 for a subset of k items, all
	// of which the pass visits: (3^N − 2^(N+1) + 1)/2 when every subset is taken.
	Splits int64
	// Energies is the number of splits whose log ψ the pass computed: every split but where a
	// MAP-only pass's bounds, which need no log ψ, ruled the split out (Pruned).
	Energies int64
	// Pruned is Splits − Energies: the splits a MAP-only pass's bounds ruled out (0 when the pass
	// computes log Z, which needs every split).
	Pruned int64
}

// Counters returns the counts of the pass's work.
func (t *Trellis) Counters() Counters {
	var c Counters
	for _, w := range t.work {
		c.Subsets += w.subsets
		c.Splits += w.splits
		c.Energies += w.energies
	}
	c.Pruned = c.Splits - c.Energies
	return c
}

// ErrTooLarge is wrapped by the error that Build, Marginals and Sample return when the work would
// take more memory than the limit.
var ErrTooLarge = errors.New("trellis: N too large")

// Bytes per subset of each table, for MemoryNeeded.
const (
	bpBytes      = 4 // MAP backpointers
	countBytes   = 8 // tree counts, unless NoCount
	outsideBytes = 8 // Marginals' outside weights
	// sampleCacheBytes bounds Sample's cache of split distributions (sampler.budget).
	sampleCacheBytes = 8
)

// MemoryNeeded returns the bytes a trellis over m's items takes with opts: per subset, 32 for the
// node table, 4 for the backpointers, 8 for the counts (none with NoCount), m.SubsetBytes() for the
// model's subset scorer (built by the generic path, and by Marginals, Sample and MAPTies for
// models with a kernel of their own), 8 with Marginals, at most 8 with Samples and 36 with MAPTies
// (while it runs). Scratch space
// of O(2^(N/2)) per worker, the Ginkgo kernel's MAP-only block summaries (about 0.3 bytes per
// subset), and the trees Sample returns, are left out.
func MemoryNeeded(m model.SubsetModel, opts Options) int64 {
	return MemoryFor(m.Items(), m.SubsetBytes(), opts)
}

// MemoryFor is MemoryNeeded of a model over n items whose subset scorer takes subsetBytes per
// subset, for estimates made before the model exists. n must be at most model.MaxSubsetItems.
func MemoryFor(n, subsetBytes int, opts Options) int64 {
	per := 1<<nodeShift + bpBytes + subsetBytes
	if !opts.NoCount {
		per += countBytes
	}
	if opts.Marginals {
		per += outsideBytes
	}
	if opts.Samples {
		per += sampleCacheBytes
	}
	if opts.MAPTies {
		per += tiesBytes + tiesScoreBytes
	}
	return int64(per) << n
}

// checkMemory returns an ErrTooLarge error when MemoryNeeded(m, opts) exceeds limit.
func checkMemory(m model.SubsetModel, opts Options, limit int64) error {
	need := MemoryNeeded(m, opts)
	if need <= limit {
		return nil
	}
	parts := []string{"its tables"}
	for _, x := range []struct {
		on   bool
		name string
	}{{opts.Marginals, "marginals"}, {opts.Samples, "sampling"}, {opts.MAPTies, "the MAP ties"}} {
		if x.on {
			parts = append(parts, x.name)
		}
	}
	what := parts[0]
	if k := len(parts); k > 1 {
		what = strings.Join(parts[:k-1], ", ") + " and " + parts[k-1]
	}
	return fmt.Errorf("%w: N = %d needs about %s for %s, over the limit of %s (raise memory_limit, or use an approximate algorithm)",
		ErrTooLarge, m.Items(), formatBytes(need), what, formatBytes(limit))
}

// reserve checks, before Marginals or Sample allocates, that the trellis with everything it holds
// or has declared, and the outside table (marginals) or sampling cache (samples), stays within
// the limit.
func (t *Trellis) reserve(marginals, samples bool) error {
	o := t.opts
	o.Marginals = o.Marginals || marginals || t.outside != nil
	o.Samples = o.Samples || samples
	return checkMemory(t.model.(model.SubsetModel), o, t.limit)
}

// Build runs the bottom-up pass for m, which must be a model.SubsetModel with at most
// model.MaxSubsetItems items. It fails, before allocating, when MemoryNeeded(m, opts) exceeds the
// memory limit; and returns ctx.Err() when cancelled.
func Build(ctx context.Context, m model.Model, opts Options) (*Trellis, error) {
	n := m.Items()
	sm, ok := m.(model.SubsetModel)
	if !ok {
		return nil, fmt.Errorf("trellis: model %T cannot score subsets", m)
	}
	if n > model.MaxSubsetItems {
		return nil, fmt.Errorf("%w: N = %d, the exact trellis handles at most %d items", ErrTooLarge, n, model.MaxSubsetItems)
	}
	if opts.MAPOnly && (opts.Marginals || opts.Samples) {
		return nil, errors.New("trellis: marginals and samples need log Z, which a MAP-only pass does not compute")
	}
	limit := opts.MemoryLimit
	if limit <= 0 {
		limit = math.MaxInt64
	}
	if err := checkMemory(sm, opts, limit); err != nil {
		return nil, err
	}
	if opts.Workers <= 0 {
		opts.Workers = runtime.GOMAXPROCS(0)
	}
	t := &Trellis{n: n, full: uint32(1)<<n - 1, opts: opts, limit: limit, model: m}
	t.nodes = make([]node, 1<<n)
	t.bp = make([]uint32, 1<<n)
	if !opts.NoCount {
		t.count = make([]float64, 1<<n)
	}
	var k kernel
	if g, ok := m.(*ginkgo.Model); ok && g.Params().Version == ginkgo.Version2020 && !opts.generic {
		k = newGinkgoKernel(t, g)
	} else {
		sc, err := newSubsetScorer(ctx, sm)
		if err != nil {
			return nil, err
		}
		t.scorer = sc
		k = &genericKernel{t: t, psi: sc}
	}
	if err := t.run(ctx, k); err != nil {
		return nil, err
	}
	return t, nil
}

// N returns the number of items.
func (t *Trellis) N() int { return t.n }

// LogZ returns log Z over all binary trees of the items (NaN with MAPOnly).
func (t *Trellis) LogZ() float64 {
	if t.opts.MAPOnly {
		return math.NaN()
	}
	return t.nodes[t.full].z
}

// ClusterLogZ returns log Z of the trees over the subset x (NaN with MAPOnly).
func (t *Trellis) ClusterLogZ(x uint32) float64 {
	if t.opts.MAPOnly {
		return math.NaN()
	}
	return t.nodes[x].z
}

// MAPValue returns the log-potential of the MAP tree, −Inf when every tree is impossible.
func (t *Trellis) MAPValue() float64 { return t.nodes[t.full].m }

// MAPTree returns the MAP tree, read off the backpointers. Leaves are items; node order is a
// merge sequence (tree.FromMerges). When every tree is impossible it still returns a tree (the
// backpointers then follow the tie rule), whose log-potential is −Inf.
func (t *Trellis) MAPTree() *tree.Tree {
	return t.treeFrom(func(x uint32) uint32 { return t.bp[x] })
}

// treeFrom builds the tree over all items that choose picks: choose(v) is the child of v holding
// its lowest item.
func (t *Trellis) treeFrom(choose func(v uint32) uint32) *tree.Tree {
	x := t.full
	if bits.OnesCount32(x) == 1 {
		return tree.Leaf(bits.TrailingZeros32(x))
	}
	var merges [][2]int
	var build func(v uint32) int
	build = func(v uint32) int {
		if bits.OnesCount32(v) == 1 {
			return bits.TrailingZeros32(v)
		}
		l := choose(v)
		a := build(l)
		b := build(v ^ l)
		merges = append(merges, [2]int{a, b})
		return t.n + len(merges) - 1
	}
	build(x)
	tr, err := tree.FromMerges(t.n, merges)
	if err != nil {
		panic(fmt.Sprintf("trellis: backpointers do not form a tree: %v", err)) // a bug, not bad input
	}
	return tr
}

// Count returns the number of binary trees with finite likelihood, and whether it is exact: the
// pass counts in float64, which is exact while the count is below 2^53 (every N ≤ 16) and
// otherwise correct to about 1e−15 relative. It is NaN with NoCount.
func (t *Trellis) Count() (float64, bool) {
	if t.count == nil {
		return math.NaN(), false
	}
	c := t.count[t.full]
	return c, c < 1<<53
}

func formatBytes(b int64) string {
	switch {
	case b >= 1<<30:
		return fmt.Sprintf("%.1f GiB", float64(b)/(1<<30))
	case b >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(b)/(1<<20))
	}
	return fmt.Sprintf("%d KiB", b>>10)
}
