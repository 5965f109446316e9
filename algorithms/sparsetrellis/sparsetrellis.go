// Package sparsetrellis is an approximate MAP for more items than the exact trellis can take: the
// trellis's dynamic program run on a sparse trellis, a subset of its vertices (clusters) and edges
// (splits) (AISTATS 2021 §2.1: Prop. 1 with each cluster's children restricted to those present).
//
// The construction is our reading of the papers, which do not publish theirs
// (../shared/design/trellis.md §8), after AstarTrellis's iter_trellis_approx:
//
//   - every cluster and split of the seed trees (greedy, the final beam of beam search) is in;
//   - a cluster with at most AllPairsMaxSize items gets all its splits (so below that size the
//     sparse trellis is the full one);
//   - a larger cluster gets SplitsTried random 2-cuts, of which the SplitsKept with the largest
//     split potential stay;
//   - clusters that splits bring in are expanded by the same rules, until MaxClusters clusters
//     exist; then splits needing new clusters are left out (the seeds' never are).
//
// The MAP over this structure is exact for it, so it is never worse than the best seed tree, and
// it is the exact MAP when AllPairsMaxSize ≥ N.
package sparsetrellis

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"

	"github.com/hcbench/hcbench/algorithms/itemset"
	"github.com/hcbench/hcbench/algorithms/logspace"
	"github.com/hcbench/hcbench/algorithms/model"
	"github.com/hcbench/hcbench/algorithms/tree"
)

// Options configure Run.
type Options struct {
	Seeds           []*tree.Tree // binary trees over all items; at least one
	AllPairsMaxSize int          // clusters up to this size get every split
	SplitsTried     int          // random 2-cuts drawn per larger cluster
	SplitsKept      int          // best cuts kept of those drawn
	MaxClusters     int          // bound on the clusters (vertices); seeds always fit
}

// Result is the sparse trellis's MAP tree and its size.
type Result struct {
	Tree *tree.Tree
	// LogLikelihood is the MAP tree's score by model.TreeLogLikelihood, as beam search and greedy
	// report theirs; the dynamic program's own sum takes the terms in another order.
	LogLikelihood float64
	// LogZ is log Z over the trees of the sparse trellis, a lower bound on the full log Z.
	LogZ     float64
	Clusters int // vertices
	Splits   int // edges
	// Subsets is the number of vertices of two or more items, whose splits the dynamic program
	// visits (all Splits of them).
	Subsets int
	// Energies is the number of split log ψ evaluations: the seeds' splits, the splits of the
	// small clusters, and every random cut drawn (of which the best are kept).
	Energies int64
}

// split is an edge of the sparse trellis: its children's vertex ids and log ψ. Ids are int32
// (MaxClusters is clamped to fit) so that a split takes 16 bytes: the splits are most of the
// sparse trellis's memory (about 25 a cluster with the defaults).
type split struct {
	l, r  int32
	score float64
}

type vertex struct {
	set     itemset.Set
	size    int32
	cluster int32 // model cluster id
	best    int32 // index into splits of the MAP split
	done    bool  // expanded
	splits  []split
	mapV    float64
	logZ    float64
}

type sparse struct {
	m        model.Model
	store    model.Clusters // the vertices' clusters
	scratch  model.Clusters // clusters of cuts being scored, renewed when large
	scratchN int
	opts     Options
	rng      *rand.Rand
	vertices []*vertex
	bySet    map[itemset.Set]int
	// added holds the splits a vertex's expansion adds, so that each vertex's splits are
	// allocated once, at their final length.
	added    []split
	energies int64 // log ψ evaluations (Result.Energies)
}

// Run builds the sparse trellis from the seeds and returns its MAP tree. rng draws the cuts.
func Run(ctx context.Context, m model.Model, rng *rand.Rand, opts Options) (Result, error) {
	n := m.Items()
	if n > itemset.MaxItems {
		return Result{}, fmt.Errorf("sparse trellis: %d items, at most %d", n, itemset.MaxItems)
	}
	if len(opts.Seeds) == 0 {
		return Result{}, errors.New("sparse trellis: no seed tree")
	}
	// Vertex ids are int32: the seeds' clusters always fit, and MaxClusters is clamped to what
	// is left (a billion clusters would take hundreds of GiB anyway).
	seedClusters := int64(n) + int64(len(opts.Seeds))*int64(max(n-1, 0))
	if seedClusters > maxVertices {
		return Result{}, fmt.Errorf("sparse trellis: %d seed trees of %d items, more than its %d clusters can hold", len(opts.Seeds), n, maxVertices)
	}
	opts.MaxClusters = int(min(int64(opts.MaxClusters), maxVertices-seedClusters))
	s := &sparse{m: m, store: m.NewClusters(), scratch: m.NewClusters(), opts: opts, rng: rng, bySet: map[itemset.Set]int{}}
	for i := range n {
		s.vertex(itemset.Of(i), i)
	}
	for _, t := range opts.Seeds {
		if err := t.Validate(n); err != nil {
			return Result{}, fmt.Errorf("sparse trellis: seed tree: %w", err)
		}
		if !t.IsBinary() {
			return Result{}, errors.New("sparse trellis: seed trees must be binary")
		}
		s.addTree(t)
	}
	if err := s.expand(ctx); err != nil {
		return Result{}, err
	}
	root := s.bySet[s.full(n)]
	if err := s.solve(ctx); err != nil {
		return Result{}, err
	}
	t := s.tree(root, n)
	ll, err := model.TreeLogLikelihood(m, t)
	if err != nil {
		return Result{}, fmt.Errorf("sparse trellis: %w", err)
	}
	res := Result{Tree: t, LogLikelihood: ll, LogZ: s.vertices[root].logZ, Clusters: len(s.vertices), Energies: s.energies}
	for _, v := range s.vertices {
		res.Splits += len(v.splits)
		if v.size > 1 {
			res.Subsets++
		}
	}
	return res, nil
}

func (s *sparse) full(n int) itemset.Set {
	var f itemset.Set
	for i := range n {
		f = f.Union(itemset.Of(i))
	}
	return f
}

// maxVertices is the most vertices that int32 ids name.
const maxVertices = math.MaxInt32

// vertex returns the id of the cluster set, adding it with model cluster id cl (−1: build it).
func (s *sparse) vertex(set itemset.Set, cl int) int {
	if id, ok := s.bySet[set]; ok {
		return id
	}
	if cl < 0 {
		cl = s.store.Cluster(set.Items())
	}
	s.vertices = append(s.vertices, &vertex{set: set, size: int32(set.Len()), cluster: int32(cl)})
	s.bySet[set] = len(s.vertices) - 1
	return len(s.vertices) - 1
}

// newSplit returns the split of a vertex into vertices l and r, the smaller id first.
func (s *sparse) newSplit(l, r int) split {
	if l > r {
		l, r = r, l
	}
	s.energies++
	return split{l: int32(l), r: int32(r), score: s.store.LogPsi(int(s.vertices[l].cluster), int(s.vertices[r].cluster))}
}

// has reports whether splits holds the split into l and r, the smaller id first.
func has(splits []split, l, r int) bool {
	if l > r {
		l, r = r, l
	}
	for _, sp := range splits {
		if sp.l == int32(l) && sp.r == int32(r) {
			return true
		}
	}
	return false
}

// addTree adds every cluster and split of a seed tree.
func (s *sparse) addTree(t *tree.Tree) int {
	var visit func(v int) int
	visit = func(v int) int {
		nd := t.Nodes[v]
		if nd.IsLeaf() {
			return s.bySet[itemset.Of(nd.Item)]
		}
		l, r := visit(nd.Children[0]), visit(nd.Children[1])
		p := s.vertex(s.vertices[l].set.Union(s.vertices[r].set), -1)
		// Seed trees share many splits; a vertex holds at most one split a seed tree, so the
		// scan is short.
		if v := s.vertices[p]; !has(v.splits, l, r) {
			v.splits = append(v.splits, s.newSplit(l, r))
		}
		return p
	}
	return visit(t.Root)
}

// room reports whether new clusters may still be added.
func (s *sparse) room(k int) bool { return len(s.vertices)+k <= s.opts.MaxClusters }

// expand gives every cluster its splits, breadth first in order of creation. It looks at ctx
// before each cluster it expands, and within one every 1024 splits tried.
func (s *sparse) expand(ctx context.Context) error {
	for i := 0; i < len(s.vertices); i++ {
		v := s.vertices[i]
		if v.done || v.size < 2 {
			continue
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		v.done = true
		items := v.set.Items()
		s.added = s.added[:0]
		var err error
		if int(v.size) <= s.opts.AllPairsMaxSize {
			err = s.allSplits(ctx, i, items)
		} else {
			err = s.sampledSplits(ctx, i, items)
		}
		if err != nil {
			return err
		}
		// Before its expansion a vertex holds its seeds' splits only; the expansion's own
		// candidates are distinct (see tryAdd).
		if len(s.added) > 0 {
			v.splits = slices.Concat(v.splits, s.added)
		}
	}
	return nil
}

// allSplits adds every split of vertex p (items[0] on the left), while clusters fit: up to 2^19
// of them (all_pairs_max_size ≤ 20).
func (s *sparse) allSplits(ctx context.Context, p int, items []int) error {
	k := len(items)
	for u := 0; u < 1<<(k-1)-1; u++ {
		if u%1024 == 1023 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		// Left: items[0] and the items[1:] picked by u's bits; right: the rest.
		var l, r itemset.Set
		l = itemset.Of(items[0])
		for b := 1; b < k; b++ {
			if u&(1<<(b-1)) != 0 {
				l = l.Union(itemset.Of(items[b]))
			} else {
				r = r.Union(itemset.Of(items[b]))
			}
		}
		s.tryAdd(p, l, r)
	}
	return nil
}

// tryAdd adds the split of p into l and r to s.added if both children exist or fit and p's seeds
// do not hold it. The candidates of one expansion are distinct (allSplits enumerates each split
// once; sampledSplits drops repeated cuts), so only the seeds' splits need a look.
func (s *sparse) tryAdd(p int, l, r itemset.Set) {
	_, okL := s.bySet[l]
	_, okR := s.bySet[r]
	need := 0
	if !okL {
		need++
	}
	if !okR {
		need++
	}
	if need > 0 && !s.room(need) {
		return
	}
	li, ri := s.vertex(l, -1), s.vertex(r, -1)
	if !has(s.vertices[p].splits, li, ri) {
		s.added = append(s.added, s.newSplit(li, ri))
	}
}

// sampledSplits draws SplitsTried random 2-cuts of p and keeps the SplitsKept best.
func (s *sparse) sampledSplits(ctx context.Context, p int, items []int) error {
	type cut struct {
		l, r  itemset.Set
		score float64
	}
	var cuts []cut
	seen := map[itemset.Set]bool{}
	for try := range s.opts.SplitsTried {
		if try%1024 == 1023 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		var l, r itemset.Set
		for _, it := range items {
			if s.rng.IntN(2) == 0 {
				l = l.Union(itemset.Of(it))
			} else {
				r = r.Union(itemset.Of(it))
			}
		}
		if l.Len() == 0 || r.Len() == 0 {
			continue
		}
		if !l.Has(items[0]) {
			l, r = r, l
		}
		if seen[l] {
			continue
		}
		seen[l] = true
		cuts = append(cuts, cut{l: l, r: r, score: s.score(l, r)})
	}
	// Best first; equal scores in the order drawn.
	slices.SortStableFunc(cuts, func(a, b cut) int {
		switch {
		case a.score > b.score:
			return -1
		case a.score < b.score:
			return 1
		}
		return 0
	})
	for i, c := range cuts {
		if i == s.opts.SplitsKept {
			break
		}
		if i%1024 == 1023 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		s.tryAdd(p, c.l, c.r)
	}
	return nil
}

// scratchLimit bounds the scratch store: most drawn cuts are dropped, so their clusters are not
// kept in the vertices' store.
const scratchLimit = 1 << 14

// score returns log ψ of the cut (l, r), building the two clusters in the scratch store.
func (s *sparse) score(l, r itemset.Set) float64 {
	if s.scratchN >= scratchLimit {
		s.scratch, s.scratchN = s.m.NewClusters(), 0
	}
	s.scratchN += 2
	s.energies++
	return s.scratch.LogPsi(s.scratch.Cluster(l.Items()), s.scratch.Cluster(r.Items()))
}

// solve runs the MAP and log Z recursions over the vertices, smaller clusters first. The MAP tie
// rule is the first split added (seed splits come first). It looks at ctx every 2^16 splits.
func (s *sparse) solve(ctx context.Context) error {
	order := make([]int, len(s.vertices))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return int(s.vertices[a].size - s.vertices[b].size) })
	work := 0
	for _, i := range order {
		if work >= 1<<16 {
			work = 0
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		v := s.vertices[i]
		work += 1 + len(v.splits)
		if v.size == 1 {
			v.mapV, v.logZ, v.best = 0, 0, -1
			continue
		}
		v.mapV, v.logZ, v.best = math.Inf(-1), math.Inf(-1), -1
		for k, sp := range v.splits {
			l, r := s.vertices[sp.l], s.vertices[sp.r]
			m := sp.score + l.mapV + r.mapV
			if v.best < 0 || m > v.mapV {
				v.mapV, v.best = m, int32(k)
			}
			v.logZ = logspace.AddExp(v.logZ, sp.score+l.logZ+r.logZ)
		}
	}
	return nil
}

// tree reads the MAP tree from vertex root.
func (s *sparse) tree(root, n int) *tree.Tree {
	var merges [][2]int
	var build func(v int) int
	build = func(v int) int {
		vx := s.vertices[v]
		if vx.size == 1 {
			return vx.set.Min()
		}
		sp := vx.splits[vx.best]
		a, b := build(int(sp.l)), build(int(sp.r))
		merges = append(merges, [2]int{a, b})
		return n + len(merges) - 1
	}
	build(root)
	t, err := tree.FromMerges(n, merges)
	if err != nil {
		panic(fmt.Sprintf("sparse trellis: MAP splits do not form a tree: %v", err)) // a bug
	}
	return t
}
