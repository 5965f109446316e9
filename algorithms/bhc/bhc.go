// Package bhc is Bayesian hierarchical clustering (Heller & Ghahramani, ICML 2005) and its
// randomized relatives RBHC and EMBHC (their 2005 note): greedy agglomeration of clusters by the
// posterior probability r_k that a merged cluster came from one mixture component, under a
// conjugate cluster model (package conjugate). Every formula and convention follows
// ../shared/design/bayesian.md (§2–§8).
//
// A merge of the trees T_i and T_j into T_k scores, in logs,
//
//	num1 = log π_k + log p(D_k|H1)
//	num2 = log(1−π_k) + log p(D_i|T_i) + log p(D_j|T_j)
//	log p(D_k|T_k) = logaddexp(num1, num2),  log r_k = num1 − log p(D_k|T_k),
//
// with π_k from the Dirichlet-process prior (d_leaf = α, d_k = α Γ(n_k) + d_i d_j,
// π_k = α Γ(n_k)/d_k) or a fixed π. Greedy search merges the pair of highest log-odds
// L_k = num1 − num2 (not r_k, which saturates in floating point); exact ties go to the smallest
// (min id, max id). Leaves are nodes 0..n−1 in input order and merges are nodes n, n+1, … in
// creation order, as in Bioconductor BHC.
//
// With a fixed π the best tree is also found exactly, for small n, by a dynamic program over the
// item subsets (ExactFixed).
package bhc

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"

	"github.com/hcbench/hcbench/algorithms/conjugate"
	"github.com/hcbench/hcbench/algorithms/logspace"
	"github.com/hcbench/hcbench/algorithms/mergeheap"
	"github.com/hcbench/hcbench/algorithms/tree"
)

// Prior is the prior probability π_k that a node's data form one cluster.
type Prior struct {
	// Fixed selects a constant π_k = Pi; otherwise π_k follows the Dirichlet-process prior with
	// concentration Alpha.
	Fixed bool
	// Alpha is the DP concentration, > 0 (used when !Fixed).
	Alpha float64
	// Pi is the fixed merge prior, in (0, 1) (used when Fixed).
	Pi float64
}

// Validate reports whether the prior's parameter is in range.
func (p Prior) Validate() error {
	if p.Fixed {
		if !(p.Pi > 0 && p.Pi < 1) {
			return fmt.Errorf("bhc: fixed π must lie in (0, 1), got %v", p.Pi)
		}
		return nil
	}
	if !(p.Alpha > 0) || math.IsInf(p.Alpha, 1) {
		return fmt.Errorf("bhc: DP concentration α must be positive and finite, got %v", p.Alpha)
	}
	return nil
}

// TieRule and ExactTieRule state, for result records, how Run (and the greedy steps of
// Randomized and EM) and ExactFixed break exact ties: design note §3 asks for the rule in the
// output, since implementations differ and discrete data tie often.
const (
	TieRule      = "highest log-odds; exact ties to the smallest (min id, max id)"
	ExactTieRule = "among exactly tied splits, the one whose part holding the smallest item is the smallest bitmask"
)

// Node is one node of a BHC hierarchy with its BHC quantities. Leaves have Left = Right = −1,
// π = 1, r = 1 and log p(D|T) = log p(D|H1).
type Node struct {
	Left, Right int // child node ids; −1 for a leaf
	Item        int // the leaf's item; −1 for a merge
	Size        int // n_k, the number of items below
	LogML       float64
	// LogD is log d_k under the DP prior (log α for a leaf); 0 under a fixed π.
	LogD float64
	// LogPi is log π_k (0 for a leaf).
	LogPi float64
	// LogP is log p(D_k|T_k).
	LogP float64
	// LogOdds is L_k = log(r_k/(1−r_k)) = num1 − num2, +Inf for a leaf.
	LogOdds float64
}

// IsLeaf reports whether the node is a leaf.
func (n *Node) IsLeaf() bool { return n.Left < 0 }

// LogR returns log r_k = −log(1 + e^{−L_k}), computed without overflow.
func (n *Node) LogR() float64 { return -softplus(-n.LogOdds) }

// LogOneMinusR returns log(1 − r_k) = −log(1 + e^{L_k}); −Inf for a leaf.
func (n *Node) LogOneMinusR() float64 { return -softplus(n.LogOdds) }

// softplus returns log(1 + e^x) without overflow.
func softplus(x float64) float64 {
	if x > 0 {
		return x + math.Log1p(math.Exp(-x))
	}
	return math.Log1p(math.Exp(x))
}

// Hierarchy is a BHC tree with the quantities of every node. Nodes 0..n−1 are the leaves (node i
// holds item i) and nodes n..2n−2 the merges in creation order; the last node is the root.
type Hierarchy struct {
	Prior Prior
	Nodes []Node
	// Work is what the search that built the hierarchy computed (for Score, scoring the tree).
	Work Work
	// store holds the sufficient statistics of every node under the same id, for LogPredictive.
	store conjugate.Store
}

// Items returns the number of leaves.
func (h *Hierarchy) Items() int { return (len(h.Nodes) + 1) / 2 }

// Root returns the root node id.
func (h *Hierarchy) Root() int { return len(h.Nodes) - 1 }

// LogEvidence returns log p(D|T) of the whole tree.
func (h *Hierarchy) LogEvidence() float64 { return h.Nodes[h.Root()].LogP }

// LowerBound returns Corollary 1's lower bound on the DP-mixture marginal likelihood,
// log d_root + lgamma(α) − lgamma(n+α) + log p(D|T). ok is false under a fixed π, where the
// bound does not apply.
func (h *Hierarchy) LowerBound() (bound float64, ok bool) {
	if h.Prior.Fixed {
		return math.NaN(), false
	}
	r := &h.Nodes[h.Root()]
	la, _ := math.Lgamma(h.Prior.Alpha)
	lna, _ := math.Lgamma(float64(r.Size) + h.Prior.Alpha)
	return r.LogD + la - lna + r.LogP, true
}

// Merges returns the children of each merge node n, n+1, … in order, the form tree.FromMerges
// reads.
func (h *Hierarchy) Merges() [][2]int {
	n := h.Items()
	m := make([][2]int, 0, n-1)
	for _, nd := range h.Nodes[n:] {
		m = append(m, [2]int{nd.Left, nd.Right})
	}
	return m
}

// Tree returns the hierarchy as a binary tree whose node ids are the hierarchy's.
func (h *Hierarchy) Tree() *tree.Tree {
	t, err := tree.FromMerges(h.Items(), h.Merges())
	if err != nil {
		panic("bhc: hierarchy is not a tree: " + err.Error()) // builders keep it one
	}
	return t
}

// Cut names a reading of "cut the tree where r_k < 0.5" (design note §6).
type Cut int

const (
	// TopDown starts at the root and replaces a node by its children while r_k < 0.5; every node
	// where it stops is one cluster, even if merges with r < 0.5 lie below it (Bioconductor BHC).
	TopDown Cut = iota
	// CutEvery removes every edge below a merge with r_k < 0.5, wherever it lies
	// (samvoisin's prune_tree).
	CutEvery
)

// Clusters returns the flat clustering of the cut as lists of items, each ascending, ordered by
// their smallest item.
func (h *Hierarchy) Clusters(c Cut) [][]int {
	var out [][]int
	var collect func(v int, into *[]int)
	collect = func(v int, into *[]int) {
		nd := &h.Nodes[v]
		if nd.IsLeaf() {
			*into = append(*into, nd.Item)
			return
		}
		// r_k < 0.5 exactly when L_k < 0.
		if nd.LogOdds >= 0 {
			collect(nd.Left, into)
			collect(nd.Right, into)
			return
		}
		for _, ch := range []int{nd.Left, nd.Right} {
			var s []int
			collect(ch, &s)
			if len(s) > 0 {
				out = append(out, s)
			}
		}
	}
	switch c {
	case TopDown:
		stack := []int{h.Root()}
		for len(stack) > 0 {
			v := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			if nd := &h.Nodes[v]; !nd.IsLeaf() && nd.LogOdds < 0 {
				stack = append(stack, nd.Right, nd.Left)
				continue
			}
			var s []int
			h.leaves(v, &s)
			out = append(out, s)
		}
	case CutEvery:
		var s []int
		collect(h.Root(), &s)
		if len(s) > 0 {
			out = append(out, s)
		}
	}
	for _, s := range out {
		slices.Sort(s)
	}
	slices.SortFunc(out, func(a, b []int) int { return a[0] - b[0] })
	return out
}

// leaves appends the items below v.
func (h *Hierarchy) leaves(v int, into *[]int) {
	nd := &h.Nodes[v]
	if nd.IsLeaf() {
		*into = append(*into, nd.Item)
		return
	}
	h.leaves(nd.Left, into)
	h.leaves(nd.Right, into)
}

// Weights names the mixture weights of the predictive distribution (design note §7).
type Weights int

const (
	// Eq9 is the paper's eq. 9 as printed, ω_k = r_k ∏_{i on the path above k}(1 − r_i). Both
	// children inherit the full product, so the weights can sum to more than 1: the result is
	// then not a normalised density.
	Eq9 Weights = iota
	// NK multiplies every step down the path by n_child/n_parent as well, so that the weights
	// sum to 1 (pyBHC's sampler; jayelm/BHC's 'nk').
	NK
)

// LogNodeWeights returns log ω_k for every node under the chosen weights.
func (h *Hierarchy) LogNodeWeights(w Weights) []float64 {
	out := make([]float64, len(h.Nodes))
	var walk func(v int, prefix float64)
	walk = func(v int, prefix float64) {
		nd := &h.Nodes[v]
		out[v] = prefix + nd.LogR()
		if nd.IsLeaf() {
			return
		}
		down := prefix + nd.LogOneMinusR()
		for _, c := range []int{nd.Left, nd.Right} {
			p := down
			if w == NK {
				p += math.Log(float64(h.Nodes[c].Size) / float64(nd.Size))
			}
			walk(c, p)
		}
	}
	walk(h.Root(), 0)
	return out
}

// LogPredictive returns log p(x|D) = log Σ_k ω_k p(x|D_k) (eq. 9), the mixture over every node's
// cluster predictive, with the weights w (with Eq9 the weights need not sum to 1; see Eq9).
// x is a vector of the model's kind and dimension. It is not safe for concurrent use.
func (h *Hierarchy) LogPredictive(x []float64, w Weights) float64 {
	lw := h.LogNodeWeights(w)
	terms := make([]float64, len(h.Nodes))
	for k := range h.Nodes {
		terms[k] = lw[k] + h.store.LogPredictive(k, x)
	}
	return logspace.SumExp(terms)
}

// Work counts what a search computed: exact counts of its steps, the same on every run with the
// same model, prior and random stream, and independent of the machine, so that a change of them
// is a change of the algorithm (hcbench's work counters).
type Work struct {
	// MarginalLikelihoods is the number of log p(D|H1) computed: one per node made (the leaves,
	// the merges, and the merges of RBHC's subsample trees, which it discards), one per candidate
	// merge scored, two per point RBHC sends to a side, and for EMBHC one per point and
	// subsample cluster it first assigns; ExactFixed computes one per item subset and then
	// scores its tree. The posterior predictive densities of EMBHC's steps are not among them.
	MarginalLikelihoods int64
	// MergesScored is the number of candidate merges whose log-odds was computed: n(n−1)/2
	// pairs when a search starts from n trees, and after every merge the new tree paired with
	// each remaining one; RBHC's logodds filter scores two per point it sends to a side. RBHC
	// scores a pair of points that several of its subsamples share once.
	MergesScored int64
	// PointsFiltered is the number of points RBHC (and EMBHC's per-cluster RBHC) sent to one
	// side of a subsample tree's top split.
	PointsFiltered int64
	// Predictives is the number of posterior predictive densities p(x|D_c) that EMBHC's hard-EM
	// steps computed: one per point and cluster in each step.
	Predictives int64
	// Splits is the number of splits of item subsets that ExactFixed's dynamic program
	// compared: (3ⁿ − 2ⁿ⁺¹ + 1)/2 for n items, every unordered split of every subset.
	Splits int64
}

// add adds the counts of v to w.
func (w *Work) add(v Work) {
	w.MarginalLikelihoods += v.MarginalLikelihoods
	w.MergesScored += v.MergesScored
	w.PointsFiltered += v.PointsFiltered
	w.Predictives += v.Predictives
	w.Splits += v.Splits
}

// builder grows a hierarchy over one conjugate store, keeping node id = store id.
type builder struct {
	store        conjugate.Store
	prior        Prior
	logAlpha     float64
	logPi        float64
	logOneMinusP float64
	lgammaSize   []float64 // lgamma(k) for k = 0..n
	// lastD remembers the last log d_k that terms computed, keyed by the bits of its two terms:
	// every pair of leaves has the same d_k, and a subsample's search scores hundreds in a row.
	lastD lastD
	nodes []Node
	work  Work
	err   error
}

// logML returns the store's log p(D_c|H1) of cluster c, counting it.
func (b *builder) logML(c int) float64 {
	b.work.MarginalLikelihoods++
	return b.store.LogML(c)
}

// logMLUnion returns the store's log p(D_a ∪ D_c|H1), counting it.
func (b *builder) logMLUnion(a, c int) float64 {
	b.work.MarginalLikelihoods++
	return b.store.LogMLUnion(a, c)
}

// lastD is log d_k = logaddexp(t1, t2) for the terms whose bits are t1 and t2, when ok. The zero
// value holds nothing: its keys are the bits of t1 = t2 = 0, the terms of a pair of leaves under
// α = 1, whose log d_k is log 2, not 0.
type lastD struct {
	ok     bool
	t1, t2 uint64
	logD   float64
}

func newBuilder(ctx context.Context, m conjugate.Model, p Prior) (*builder, error) {
	if err := p.Validate(); err != nil {
		return nil, err
	}
	n := m.Items()
	if n < 1 {
		return nil, errors.New("bhc: no items")
	}
	b := &builder{store: m.NewStore(), prior: p, nodes: make([]Node, 0, 2*n-1)}
	if p.Fixed {
		b.logPi, b.logOneMinusP = math.Log(p.Pi), math.Log1p(-p.Pi)
	} else {
		b.logAlpha = math.Log(p.Alpha)
		b.lgammaSize = make([]float64, n+1)
		for k := 1; k <= n; k++ {
			b.lgammaSize[k], _ = math.Lgamma(float64(k))
		}
	}
	for i := range n {
		// One marginal likelihood per item (O(d³) for NIW): look at ctx before each.
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		f := b.logML(i)
		if math.IsNaN(f) {
			return nil, fmt.Errorf("bhc: the marginal likelihood of item %d is not a number", i)
		}
		nd := Node{Left: -1, Right: -1, Item: i, Size: 1, LogML: f, LogP: f, LogOdds: math.Inf(1)}
		if !p.Fixed {
			nd.LogD = b.logAlpha
		}
		b.nodes = append(b.nodes, nd)
	}
	return b, nil
}

// combine returns the node that merging a and c would make, given f = log p(D_a ∪ D_c|H1).
// Selection (score) and the stored node both come from terms and logOdds, so the log-odds that
// chose a merge is the one recorded, bit for bit.
func (b *builder) combine(a, c int, f float64) Node {
	na, nc := &b.nodes[a], &b.nodes[c]
	nd := Node{Left: a, Right: c, Item: -1, Size: na.Size + nc.Size, LogML: f}
	var num1, num2 float64
	nd.LogD, nd.LogPi, num1, num2 = b.terms(na, nc, nd.Size, f)
	nd.LogP = logspace.AddExp(num1, num2)
	nd.LogOdds = b.logOdds(nd.Size, f, num1, num2)
	return nd
}

// terms returns log d_k (0 under a fixed π), log π_k, num1 = log π_k + f and
// num2 = log(1−π_k) + log p(D_a|T_a) + log p(D_c|T_c) for the merge of the nodes na and nc, of
// size items in all, given f = log p(D_a ∪ D_c|H1).
func (b *builder) terms(na, nc *Node, size int, f float64) (logD, logPi, num1, num2 float64) {
	var log1mPi float64
	if b.prior.Fixed {
		logPi, log1mPi = b.logPi, b.logOneMinusP
	} else {
		t1 := b.logAlpha + b.lgammaSize[size]
		t2 := na.LogD + nc.LogD
		k1, k2 := math.Float64bits(t1), math.Float64bits(t2)
		if m := &b.lastD; m.ok && m.t1 == k1 && m.t2 == k2 {
			logD = m.logD
		} else {
			logD = logspace.AddExp(t1, t2)
			*m = lastD{ok: true, t1: k1, t2: k2, logD: logD}
		}
		logPi, log1mPi = t1-logD, t2-logD
	}
	return logD, logPi, logPi + f, log1mPi + (na.LogP + nc.LogP)
}

// logOdds returns L_k = num1 − num2 for a merge of size items with f = log p(D_k|H1), −Inf when
// f is NaN (recording the error) or num1 is −Inf, and +Inf when num2 alone is −Inf.
func (b *builder) logOdds(size int, f, num1, num2 float64) float64 {
	switch {
	case math.IsNaN(f):
		if b.err == nil {
			b.err = fmt.Errorf("bhc: the marginal likelihood of a cluster of %d items is not a number", size)
		}
		return math.Inf(-1)
	case math.IsInf(num1, -1):
		return math.Inf(-1)
	case math.IsInf(num2, -1):
		return math.Inf(1)
	}
	return num1 - num2
}

// odds returns the log-odds of merging a and c, the node's LogOdds that combine would give,
// without the node's log p(D|T) (an exp and a log1p that selection does not need).
func (b *builder) odds(a, c int) float64 {
	b.work.MergesScored++
	f := b.logMLUnion(a, c)
	na, nc := &b.nodes[a], &b.nodes[c]
	size := na.Size + nc.Size
	_, _, num1, num2 := b.terms(na, nc, size, f)
	return b.logOdds(size, f, num1, num2)
}

// merge adds the merge of a and c and returns its id.
func (b *builder) merge(a, c int) int {
	id := b.store.Merge(a, c)
	if id != len(b.nodes) {
		panic("bhc: store and hierarchy ids out of step")
	}
	b.nodes = append(b.nodes, b.combine(a, c, b.logML(id)))
	return id
}

// truncate forgets the nodes from id n on.
func (b *builder) truncate(n int) {
	b.nodes = b.nodes[:n]
	b.store.Truncate(n)
}

func (b *builder) hierarchy() *Hierarchy {
	return &Hierarchy{Prior: b.prior, Nodes: b.nodes, Work: b.work, store: b.store}
}

// Run is greedy BHC over all the model's items: it merges the pair of highest log-odds until one
// tree remains. It costs O(n²) marginal likelihoods and holds the score of every pair once
// (mergeheap.Forest: 4n² bytes, 400 MB at n = 10 000); MaxItems bounds n. It returns ctx.Err() once ctx is done (looked at
// before each item's marginal likelihood, every 16 pairs scored, and once per merge; RBHC and
// EMBHC also once per point they send to a side or a cluster, and the exact program every 256
// subsets and every 64 masks of its dynamic program).
func Run(ctx context.Context, m conjugate.Model, p Prior) (*Hierarchy, error) {
	if err := checkItems(m.Items()); err != nil {
		return nil, err
	}
	b, err := newBuilder(ctx, m, p)
	if err != nil {
		return nil, err
	}
	roots := make([]int, m.Items())
	for i := range roots {
		roots[i] = i
	}
	if _, err := b.greedy(ctx, roots, b.odds); err != nil {
		return nil, err
	}
	return b.hierarchy(), nil
}

// MaxItems is the largest n that greedy BHC and BRT accept: they hold a float64 score for every
// pair, 3.6 GB at n = 30 000, and score n²/2 pairs. Larger data sets need RBHC or EMBHC.
const MaxItems = 30000

func checkItems(n int) error {
	if n > MaxItems {
		return fmt.Errorf("bhc: %d items is more than greedy search's limit of %d (it holds a score for every pair); use rbhc or embhc", n, MaxItems)
	}
	return nil
}

// greedy merges the given trees (node ids) by highest log-odds until one remains, and returns
// the root id. odds(a, c) must return b.odds(a, c), computed or remembered.
func (b *builder) greedy(ctx context.Context, roots []int, odds func(a, c int) float64) (int, error) {
	if len(roots) == 0 {
		return -1, errors.New("bhc: nothing to cluster")
	}
	// The forest looks at ctx while it scores all pairs and every 16 scores of a merge; finding
	// the best pair costs O(n) per stale row it rescans, so ctx is looked at once per merge too.
	f, err := mergeheap.NewForest(ctx, roots, odds)
	if err != nil {
		return -1, err
	}
	for f.Len() > 1 {
		if err := ctx.Err(); err != nil {
			return -1, err
		}
		c, _ := f.Best()
		a, d := int(c.A), int(c.B)
		if err := f.Replace(ctx, a, d, b.merge(a, d)); err != nil {
			return -1, err
		}
	}
	if b.err != nil {
		return -1, b.err
	}
	return f.Roots()[0], nil
}

// Score returns the BHC quantities of the given binary tree over the model's items. The
// hierarchy's merge nodes are the tree's internal nodes in post-order.
func Score(m conjugate.Model, p Prior, t *tree.Tree) (*Hierarchy, error) {
	if err := t.Validate(m.Items()); err != nil {
		return nil, err
	}
	if !t.IsBinary() {
		return nil, errors.New("bhc: BHC scores binary trees only")
	}
	b, err := newBuilder(context.Background(), m, p) // O(n) marginal likelihoods, as the merges below
	if err != nil {
		return nil, err
	}
	id := make([]int, len(t.Nodes))
	for _, v := range t.PostOrder() {
		nd := t.Nodes[v]
		if nd.IsLeaf() {
			id[v] = nd.Item
			continue
		}
		id[v] = b.merge(id[nd.Children[0]], id[nd.Children[1]])
	}
	if b.err != nil {
		return nil, b.err
	}
	return b.hierarchy(), nil
}
