// Package beam is beam search over agglomerative merges, the baseline of the trellis papers
// (StandardHC beamSearchOptimal_invM.beamSearch; ../shared/design/trellis.md §7). A beam holds up
// to B partial hierarchies (forests). At each of the N−1 levels every one of them offers its B best
// merges, the candidates are ranked by their total log-likelihood, equal partial hierarchies are
// kept once, and the B best candidates form the next beam. The best full tree of the last level is
// the result, scored under the model by model.TreeLogLikelihood.
//
// Two rules recognise "equal" partial hierarchies:
//
//   - Structure (ours, the default) compares the sets of clusters the candidates have formed, so
//     the same forest reached by merges in another order counts once, whatever floating point
//     does to its sums. It ranks every merge with the model's own split values.
//   - Float (the reference) keeps one candidate per exact float value of the total: the same
//     forest summed in another order can differ in the last bit and then takes a second slot,
//     and two different forests of equal total count once. It follows the reference's rule and
//     order: a path's terms summed as numpy's np.sum, the candidates of one total represented by
//     the first in (path, pair) order, and a Ginkgo model ranked with λ at the root split too
//     (the reference switches to λ_root only after the last level's choice), the result then
//     re-scored with λ_root. Our split values can differ from numpy's in the last bits, so where
//     the search turns on two totals being exactly equal the trees can differ from the
//     reference's: on the 10 public 9-leaf jets they match at B = 36 (the paper's N(N−1)/2) and
//     at 246 of the 260 pairs of jet and B = 20..45 (beam_test.go lists the others).
//
// With B = 1 beam search is greedy search up to ties, which the two break differently.
package beam

import (
	"container/heap"
	"context"
	"fmt"
	"math"
	"slices"

	"github.com/hcbench/hcbench/algorithms/itemset"
	"github.com/hcbench/hcbench/algorithms/model"
	"github.com/hcbench/hcbench/algorithms/model/ginkgo"
	"github.com/hcbench/hcbench/algorithms/tree"
)

// Dedup selects how equal partial hierarchies are recognised.
type Dedup int

const (
	// Structure compares the sets of clusters formed (ours).
	Structure Dedup = iota
	// Float keeps one candidate per exact value of the float total (the reference).
	Float
)

// String returns the config name of the rule.
func (d Dedup) String() string {
	switch d {
	case Structure:
		return "structure"
	case Float:
		return "float"
	}
	return fmt.Sprintf("Dedup(%d)", int(d))
}

// Options configure Run.
type Options struct {
	Size  int // beam size B ≥ 1
	Dedup Dedup
	// All returns every tree of the final beam in Result.Trees (the sparse trellis seeds with them).
	All bool
}

// Result is the best tree found and its log-likelihood under the model.
type Result struct {
	Tree          *tree.Tree
	LogLikelihood float64
	// Trees is the final beam, best first, when Options.All is set.
	Trees []*tree.Tree
	// Counters counts the search's work.
	Counters Counters
}

// Counters are the exact counts of a beam search's work, summed over its N−1 levels.
type Counters struct {
	// Expanded is the number of partial hierarchies whose merges were offered as candidates.
	Expanded int64
	// Ranked is the number of candidate merges taken from the ranking (at most B a partial
	// hierarchy), kept or dropped as equal to one kept.
	Ranked int64
	// Kept is the number of candidates kept as the next level's partial hierarchies.
	Kept int64
	// Energies is the number of split log ψ evaluations: the N(N−1)/2 pairs of leaves, then,
	// for each kept candidate, its new cluster against the other current clusters.
	Energies int64
}

// pair is a candidate merge of the current nodes a > b (node ids: items 0..N−1, and the node made
// at level ℓ is N+ℓ), with its split log-likelihood.
type pair struct {
	score float64
	a, b  int32
}

// pairLess orders pairs as the reference's numpy sort: by score, then by [a, b].
func pairLess(p, q pair) bool {
	if p.score != q.score {
		return p.score < q.score
	}
	return pairIDLess(p, q)
}

// pairIDLess orders pairs by [a, b], as Python compares the reference's pair lists.
func pairIDLess(p, q pair) bool {
	return p.a < q.a || p.a == q.a && p.b < q.b
}

// path is one partial hierarchy of the beam.
type path struct {
	pairs    []pair        // every pair of current nodes, ascending by pairLess
	nodes    []int32       // current node ids, in the reference's order
	clusters []int         // model cluster id per node id
	sets     []itemset.Set // items per node id
	terms    []float64     // the chosen merges' split log-likelihoods, in level order
	sum      float64       // Σ terms, summed in order (structure rule)
	hash     uint64        // Σ of the formed clusters' hashes (structure rule)
	merges   [][2]int      // per level: [left, right] node ids, as tree.FromMerges wants
	formed   []itemset.Set // the clusters formed, for exact comparison behind the hash
}

// Run beam-searches the model's items. It needs at most itemset.MaxItems items. It returns
// ctx.Err() once ctx is done (looked at once per level, every 64 candidates a level ranks, and
// before each of the up to B partial hierarchies a level builds, O(N²) each).
func Run(ctx context.Context, m model.Model, opts Options) (Result, error) {
	n := m.Items()
	if opts.Size < 1 {
		return Result{}, fmt.Errorf("beam: size %d, want at least 1", opts.Size)
	}
	if n > itemset.MaxItems {
		return Result{}, fmt.Errorf("beam: %d items, at most %d", n, itemset.MaxItems)
	}
	if n == 1 {
		return Result{Tree: tree.Leaf(0), Trees: []*tree.Tree{tree.Leaf(0)}}, nil
	}
	ranked := m
	if opts.Dedup == Float {
		var err error
		if ranked, err = referenceRanking(m); err != nil {
			return Result{}, err
		}
	}
	s := newSearch(ranked, opts)
	beam := []*path{s.start()}
	for level := 0; level < n-1; level++ {
		if err := ctx.Err(); err != nil {
			return Result{}, err
		}
		var err error
		if beam, err = s.step(ctx, beam, level); err != nil {
			return Result{}, err
		}
	}
	res := Result{Counters: s.counters}
	for i, p := range beam {
		if i > 0 && !opts.All {
			break
		}
		t, err := tree.FromMerges(n, p.merges)
		if err != nil {
			return Result{}, fmt.Errorf("beam: %w", err)
		}
		if opts.All {
			res.Trees = append(res.Trees, t)
		}
		if i == 0 {
			res.Tree = t
		}
	}
	ll, err := model.TreeLogLikelihood(m, res.Tree)
	if err != nil {
		return Result{}, err
	}
	res.LogLikelihood = ll
	return res, nil
}

// referenceRanking returns the model the reference ranks merges with. StandardHC scores every
// candidate with λ, the last merge included: it switches to λ_root after the last level's choice,
// and λ_root enters only when the returned tree is re-scored. So a Ginkgo model whose root split
// has its own rate is searched with λ at the root too; other models rank with their own values.
func referenceRanking(m model.Model) (model.Model, error) {
	g, ok := m.(*ginkgo.Model)
	if !ok {
		return m, nil
	}
	p := g.Params()
	if p.RootLambda == ginkgo.RootLambdaUniform || p.LambdaRoot == p.Lambda {
		return m, nil
	}
	p.RootLambda = ginkgo.RootLambdaUniform
	u, err := ginkgo.New(g.Leaves(), p)
	if err != nil {
		return nil, fmt.Errorf("beam: %w", err)
	}
	return u, nil
}

// search is the state shared by the levels of one beam search.
type search struct {
	n     int
	opts  Options
	store model.Clusters
	bySet map[itemset.Set]int // model cluster id of every cluster met
	// counters counts the search's work (Result.Counters).
	counters Counters
}

// newSearch prepares a search that ranks merges by m's split values.
func newSearch(m model.Model, opts Options) *search {
	return &search{n: m.Items(), opts: opts, store: m.NewClusters(), bySet: map[itemset.Set]int{}}
}

// start is the beam of the single forest of leaves.
func (s *search) start() *path {
	p := &path{}
	for i := range s.n {
		set := itemset.Of(i)
		s.bySet[set] = i
		p.nodes = append(p.nodes, int32(i))
		p.clusters = append(p.clusters, i)
		p.sets = append(p.sets, set)
	}
	// Pairs [k, k−j] as the reference lists them; the order does not matter once sorted.
	for k := 1; k < s.n; k++ {
		for j := k; j > 0; j-- {
			p.pairs = append(p.pairs, pair{score: s.store.LogPsi(k, k-j), a: int32(k), b: int32(k - j)})
			s.counters.Energies++
		}
	}
	slices.SortFunc(p.pairs, func(x, y pair) int { return cmpBool(pairLess(x, y), pairLess(y, x)) })
	return p
}

func cmpBool(less, greater bool) int {
	switch {
	case less:
		return -1
	case greater:
		return 1
	}
	return 0
}

// candidate is a merge offered by a path: the pair at index i of path j's pairs.
type candidate struct {
	total float64
	j     int
	i     int
}

// step makes the next beam.
func (s *search) step(ctx context.Context, beam []*path, level int) ([]*path, error) {
	b := s.opts.Size
	totals := make([]float64, len(beam)) // Σ terms of each path, by the rule's summation
	for j, p := range beam {
		if s.opts.Dedup == Float {
			totals[j] = numpySum(p.terms)
		} else {
			totals[j] = p.sum
		}
	}
	// Walk the candidates from the best down, path by path from their best pair: a max-heap over
	// the paths' next candidates. Each path offers at most its b best pairs.
	h := &candHeap{}
	for j, p := range beam {
		if len(p.pairs) > 0 {
			i := len(p.pairs) - 1
			h.items = append(h.items, candidate{total: p.pairs[i].score + totals[j], j: j, i: i})
		}
	}
	heap.Init(h)
	offered := func(j, i int) bool { return len(beam[j].pairs)-i <= b }
	s.counters.Expanded += int64(len(beam))
	var kept []candidate
	seen := map[uint64][]candidate{} // structure rule: kept candidates by forest hash
	for popped := 0; h.Len() > 0; popped++ {
		if popped%64 == 63 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
		if len(kept) == b {
			// A full beam can still change under the float rule: a later pair of the last kept
			// candidate's path with the same total may be the one the reference keeps.
			last, next := kept[b-1], h.items[0]
			if s.opts.Dedup != Float || next.total != last.total || next.j != last.j {
				break
			}
		}
		c := heap.Pop(h).(candidate)
		s.counters.Ranked++
		if c.i > 0 && offered(c.j, c.i-1) {
			heap.Push(h, candidate{total: beam[c.j].pairs[c.i-1].score + totals[c.j], j: c.j, i: c.i - 1})
		}
		if s.opts.Dedup == Float {
			// The reference sorts the candidates by (total, path, pair) and keeps the first of
			// each total. The heap yields a total's candidates path by path, smallest path
			// first, but each path's in its own (score, pair) order from its best down, so a
			// later candidate of the kept one's path with a smaller pair replaces it.
			if k := len(kept); k > 0 && kept[k-1].total == c.total {
				if o := kept[k-1]; o.j == c.j && pairIDLess(beam[c.j].pairs[c.i], beam[o.j].pairs[o.i]) {
					kept[k-1] = c
				}
				continue
			}
			kept = append(kept, c)
			continue
		}
		p := beam[c.j]
		pr := p.pairs[c.i]
		set := p.sets[pr.a].Union(p.sets[pr.b])
		hash := p.hash + set.Hash()
		dup := false
		for _, o := range seen[hash] {
			if sameForest(beam[o.j], beam[o.j].pairs[o.i], p, pr) {
				dup = true
				break
			}
		}
		if dup {
			continue
		}
		seen[hash] = append(seen[hash], c)
		kept = append(kept, c)
	}
	s.counters.Kept += int64(len(kept))
	next := make([]*path, len(kept))
	for k, c := range kept {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		next[k] = s.apply(beam[c.j], beam[c.j].pairs[c.i], level)
	}
	return next, nil
}

// sameForest reports whether merging pa in p and pb in q forms the same set of clusters.
func sameForest(p *path, pa pair, q *path, pb pair) bool {
	a := append(slices.Clone(p.formed), p.sets[pa.a].Union(p.sets[pa.b]))
	b := append(slices.Clone(q.formed), q.sets[pb.a].Union(q.sets[pb.b]))
	if len(a) != len(b) {
		return false
	}
	less := func(x, y itemset.Set) int { return slices.Compare(x[:], y[:]) }
	slices.SortFunc(a, less)
	slices.SortFunc(b, less)
	return slices.Equal(a, b)
}

// apply returns p with the merge pr done at the given level.
func (s *search) apply(p *path, pr pair, level int) *path {
	id := int32(s.n + level)
	set := p.sets[pr.a].Union(p.sets[pr.b])
	cl, ok := s.bySet[set]
	if !ok {
		cl = s.store.Merge(p.clusters[pr.a], p.clusters[pr.b])
		s.bySet[set] = cl
	}
	q := &path{
		nodes:    make([]int32, 0, len(p.nodes)-1),
		clusters: append(slices.Clip(p.clusters), cl),
		sets:     append(slices.Clip(p.sets), set),
		terms:    append(slices.Clip(p.terms), pr.score),
		sum:      p.sum + pr.score,
		hash:     p.hash + set.Hash(),
		merges:   append(slices.Clip(p.merges), [2]int{int(pr.b), int(pr.a)}),
		formed:   append(slices.Clip(p.formed), set),
	}
	for _, v := range p.nodes {
		if v != pr.a && v != pr.b {
			q.nodes = append(q.nodes, v)
		}
	}
	kept := make([]pair, 0, len(p.pairs))
	for _, x := range p.pairs {
		if x.a != pr.a && x.a != pr.b && x.b != pr.a && x.b != pr.b {
			kept = append(kept, x)
		}
	}
	fresh := make([]pair, len(q.nodes))
	for i, v := range q.nodes {
		fresh[i] = pair{score: s.store.LogPsi(cl, q.clusters[v]), a: id, b: v}
	}
	s.counters.Energies += int64(len(fresh))
	slices.SortFunc(fresh, func(x, y pair) int { return cmpBool(pairLess(x, y), pairLess(y, x)) })
	q.pairs = mergePairs(kept, fresh)
	q.nodes = append(q.nodes, id)
	return q
}

// mergePairs merges two ascending pair lists.
func mergePairs(x, y []pair) []pair {
	out := make([]pair, 0, len(x)+len(y))
	for len(x) > 0 && len(y) > 0 {
		if pairLess(y[0], x[0]) {
			out = append(out, y[0])
			y = y[1:]
		} else {
			out = append(out, x[0])
			x = x[1:]
		}
	}
	return append(append(out, x...), y...)
}

// candHeap pops candidates by total, largest first, and among equal totals the smallest path
// first. It holds at most one candidate per path (its next best pair), so the two keys order it.
type candHeap struct {
	items []candidate
}

func (h *candHeap) Len() int { return len(h.items) }
func (h *candHeap) Less(i, k int) bool {
	a, b := h.items[i], h.items[k]
	if a.total != b.total {
		return a.total > b.total || math.IsNaN(b.total)
	}
	return a.j < b.j
}
func (h *candHeap) Swap(i, k int) { h.items[i], h.items[k] = h.items[k], h.items[i] }
func (h *candHeap) Push(x any)    { h.items = append(h.items, x.(candidate)) }
func (h *candHeap) Pop() any {
	x := h.items[len(h.items)-1]
	h.items = h.items[:len(h.items)-1]
	return x
}

// numpySum is np.sum of a float64 array as numpy 1.24 computes it, which the reference uses for a
// path's total: add.reduce starts from its identity +0.0 and adds numpy's pairwise sum of the
// terms. That sum is a plain loop from +0.0 below 8 terms; up to 128 terms, eight interleaved
// partial sums combined as ((r0+r1)+(r2+r3))+((r4+r5)+(r6+r7)), then the rest in order; beyond,
// the two halves (the first rounded down to a multiple of 8) summed recursively.
func numpySum(a []float64) float64 {
	// The identity only shows in the sign of a zero: −0.0 terms alone sum to +0.0, as in numpy.
	return 0 + pairwiseSum(a)
}

func pairwiseSum(a []float64) float64 {
	n := len(a)
	switch {
	case n < 8:
		res := 0.0
		for _, x := range a {
			res += x
		}
		return res
	case n <= 128:
		var r [8]float64
		copy(r[:], a[:8])
		i := 8
		for ; i < n-n%8; i += 8 {
			for k := range 8 {
				r[k] += a[i+k]
			}
		}
		res := ((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7]))
		for ; i < n; i++ {
			res += a[i]
		}
		return res
	}
	n2 := n / 2
	n2 -= n2 % 8
	return pairwiseSum(a[:n2]) + pairwiseSum(a[n2:])
}
