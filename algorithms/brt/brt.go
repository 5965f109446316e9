// Package brt is greedy Bayesian rose trees (BRT; Blundell, Teh & Heller, UAI 2010): agglomerative
// clustering into a rose tree, a tree whose internal nodes may have any number ≥ 2 of children,
// by the greedy maximisation of the marginal likelihood p(D|T) under a conjugate cluster model
// (package conjugate). Every formula and convention follows ../shared/design/bayesian.md §9; the
// reference implementation is caponetto/bayesian-hierarchical-clustering (bhc/core/brt.py), whose
// operation sequence and log p(D|T) this package reproduces.
//
// A leaf holding item x has p(D|T) = f(x), with f(D) = p(D|H1) the marginal likelihood of D
// under one component (conjugate.Store's LogML). An internal node T with n_T ≥ 2 children ch(T)
// has
//
//	p(D_T|T) = π_T f(D_T) + (1−π_T) ∏_{c∈ch(T)} p(D_c|T_c),   π_T = 1 − (1−γ)^(n_T−1),  0 < γ < 1,
//
// computed in logs as log(1−π_T) = (n_T−1)·log1p(−γ), log π_T = log(−expm1(log(1−π_T))) and
// log p(D_T|T) = logaddexp(log π_T + log f(D_T), log(1−π_T) + Σ_c log p(D_c|T_c)). Unlike
// caponetto, (1−γ)^(n_T−1) is not clamped at machine epsilon (which there bites above 53 children
// at γ = 1/2).
//
// Greedy search starts from the n leaves and, while more than one tree remains, applies to two
// current trees T_i and T_j the operation of highest likelihood ratio
// log p(D_m|T_m) − log p(D_i|T_i) − log p(D_j|T_j) among
//
//   - join: a new node with children {T_i, T_j};
//   - absorb: T_j becomes one more child of T_i, children ch(T_i) ∪ {T_j}; T_i must be internal,
//     and both directions are tried;
//   - collapse: a new node with children ch(T_i) ∪ ch(T_j); both must be internal.
//
// With Options.JoinOnly only joins are made: π_T is then γ for every node, so the model is
// fixed-π BHC's (§4), and the search selects on the likelihood ratio log(1−γ) + softplus(L) of
// the log-odds L that package bhc selects on. The ratio is monotone in L, but two candidates
// whose ratios lie within TieTolerance tie, and then the tie rule, not L, decides. The ratios of
// log-odds L1 > L2 differ by softplus(L1) − softplus(L2) < e^L1, so once the best log-odds falls
// below ln(TieTolerance) ≈ −20.7 every candidate ties with the best (and below about −37 the
// ratios round to log(1−γ) exactly). Join-only BRT therefore makes bhc.Run's merges as long as
// the best log-odds stays above about −20 and no other candidate's ratio comes within
// TieTolerance of the best; past that the upper tree may differ, with log p(D|T) equal to within
// about TieTolerance per tied step (the tie rule is the design note's, §9, kept for join-only
// runs too).
//
// Conventions (ours, §9):
//
//   - Node ids. Leaves are nodes 0..n−1 (node i holds item i). Every operation creates a new node
//     with the next id, n, n+1, …, so there are always 2n−1 nodes and the last is the root. The
//     absorbing node of an absorb and both nodes of a collapse are retired: they stay in
//     Result.Nodes (with Retired set) as history, are in no later node's children, and are not in
//     Result.Tree; their children are reused by the new node.
//   - Tie rule. Operations whose ratio lies within TieTolerance = 1e-9 of the best count as tied
//     (the last steps of a run can tie at log(1−γ) up to rounding, when f of the union is
//     negligible). Among tied operations a join is preferred, then an absorb, then a collapse; then
//     the smallest (min id, max id) pair; for an absorb, the direction in which the smaller id
//     absorbs.
//   - Cut (ours; BRT states none). Clusters cuts top-down at r_T < 1/2, with
//     r_T = π_T f(D_T)/p(D_T|T) (LogR), the counterpart of BHC's r_k, like
//     bhc.Hierarchy.Clusters(bhc.TopDown).
//
// Run scores every pair of current trees once with conjugate.Store.LogMLUnion, keeps per node
// Σ_c log p(D_c|T_c) and the child count, so that all four operations of a pair cost O(1) on top
// of that one marginal likelihood, and keeps each pair's best ratio once in a mergeheap.Forest
// (4n² bytes), gathering at each step every pair within TieTolerance of the top to apply the tie
// rule. That is O(n²) marginal likelihoods in all, plus the rows of the forest rescanned to find
// the best pair and the tied ones (O(n) each).
package brt

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"

	"github.com/hcbench/hcbench/algorithms/bhc"
	"github.com/hcbench/hcbench/algorithms/conjugate"
	"github.com/hcbench/hcbench/algorithms/logspace"
	"github.com/hcbench/hcbench/algorithms/mergeheap"
	"github.com/hcbench/hcbench/algorithms/tree"
)

// Op is an operation of greedy BRT. Its order is the tie rule's order of preference.
type Op int

const (
	// Join makes a new node whose two children are the two trees.
	Join Op = iota
	// Absorb adds one tree as one more child of the other, internal, tree.
	Absorb
	// Collapse makes a new node whose children are the children of both, internal, trees.
	Collapse
)

// String returns "join", "absorb" or "collapse".
func (o Op) String() string {
	switch o {
	case Join:
		return "join"
	case Absorb:
		return "absorb"
	case Collapse:
		return "collapse"
	}
	return fmt.Sprintf("Op(%d)", int(o))
}

// TieTolerance is the gap below which two likelihood ratios count as tied (see the package
// documentation for the tie rule).
const TieTolerance = 1e-9

// TieRule states the tie rule for result records (design note §3 and §9 ask for it in the
// output).
var TieRule = fmt.Sprintf("ratios within %g of the best tie; then join, absorb, collapse; then the smallest (min id, max id); the smaller id absorbs", TieTolerance)

// Options configures Run.
type Options struct {
	// Gamma is γ in π_T = 1 − (1−γ)^(n_T−1), in (0, 1).
	Gamma float64
	// JoinOnly disables absorb and collapse, which makes Run fixed-π BHC with π = γ.
	JoinOnly bool
}

// Node is one node of a BRT run with its quantities.
type Node struct {
	// Children are the child node ids, nil for a leaf.
	Children []int
	// Item is the leaf's item, −1 for an internal node.
	Item int
	// Size is the number of items below the node.
	Size int
	// LogML is log f(D_T) = log p(D_T|H1).
	LogML float64
	// LogPi is log π_T, 0 for a leaf.
	LogPi float64
	// LogP is log p(D_T|T).
	LogP float64
	// Op is the operation that made the node (meaningless for a leaf).
	Op Op
	// Retired reports whether the node was absorbed into or collapsed into a later node (the
	// absorbing side of an absorb, both sides of a collapse).
	Retired bool
}

// IsLeaf reports whether the node is a leaf.
func (n *Node) IsLeaf() bool { return len(n.Children) == 0 }

// Step is one greedy operation on the current trees A and B, which made node New. For Absorb, A
// absorbs B (B becomes a child of New beside A's children); for Join and Collapse, A < B.
type Step struct {
	Op    Op
	A, B  int
	New   int
	Score float64 // the likelihood ratio log p(D_New|T_New) − log p(D_A|T_A) − log p(D_B|T_B)
}

// Result is a greedy BRT run: every node ever made (leaves 0..n−1, then one node per step in
// creation order; the last is the root) and the steps that made them.
type Result struct {
	Gamma float64
	Nodes []Node
	Steps []Step
	// Work is what the search computed.
	Work Work
}

// Work counts what a search computed: exact counts of its steps, the same on every run with the
// same model and options, and independent of the machine (hcbench's work counters).
type Work struct {
	// MarginalLikelihoods is the number of log f(D) = log p(D|H1) computed: one per leaf, one per
	// pair of trees scored, and one per pair tied within TieTolerance of the best at a step,
	// whose operations are evaluated again for the tie rule (a node's own f is that of its
	// pair's union, not computed again).
	MarginalLikelihoods int64
	// MergesScored is the number of pairs of current trees scored: n(n−1)/2 at the start, and
	// after every step the new tree paired with each remaining one.
	MergesScored int64
	// OperationsScored is the number of allowed operations (join, absorb in either direction,
	// collapse) whose likelihood ratio was computed, when pairs are scored and when tied pairs
	// are evaluated again.
	OperationsScored int64
}

// Items returns the number of leaves n.
func (r *Result) Items() int { return (len(r.Nodes) + 1) / 2 }

// Root returns the root node id, the last node.
func (r *Result) Root() int { return len(r.Nodes) - 1 }

// LogEvidence returns log p(D|T) of the final tree.
func (r *Result) LogEvidence() float64 { return r.Nodes[r.Root()].LogP }

// LogR returns log r_T = log π_T + log f(D_T) − log p(D_T|T), the log posterior probability that
// node v's data form one cluster; 0 for a leaf.
func (r *Result) LogR(v int) float64 {
	nd := &r.Nodes[v]
	if nd.IsLeaf() {
		return 0
	}
	return nd.LogPi + nd.LogML - nd.LogP
}

// Tree returns the final rose tree, without the retired nodes. Leaves keep their ids (tree node i
// holds item i); the live internal nodes follow in creation order, so the root is the last node.
// Children keep their order in Node.Children.
func (r *Result) Tree() *tree.Tree {
	n := r.Items()
	idx := make([]int, len(r.Nodes))
	t := &tree.Tree{Nodes: make([]tree.Node, 0, 2*n-1)}
	for v := range r.Nodes {
		if r.Nodes[v].Retired {
			idx[v] = -1
			continue
		}
		idx[v] = len(t.Nodes)
		t.Nodes = append(t.Nodes, tree.Node{Item: r.Nodes[v].Item})
	}
	for v := range r.Nodes {
		nd := &r.Nodes[v]
		if nd.Retired || nd.IsLeaf() {
			continue
		}
		ch := make([]int, len(nd.Children))
		for k, c := range nd.Children {
			ch[k] = idx[c]
		}
		t.Nodes[idx[v]].Children = ch
	}
	t.Root = len(t.Nodes) - 1
	return t
}

// Clusters returns the flat clustering of our top-down cut: starting at the root, a node is
// replaced by its children while r_T < 1/2, that is while π_T f(D_T) < (1−π_T) ∏_c p(D_c|T_c);
// every node where the cut stops (r_T ≥ 1/2, or a leaf) is one cluster. Clusters are lists of
// items, each ascending, ordered by their smallest item (bhc.Hierarchy.Clusters(bhc.TopDown)'s
// convention).
func (r *Result) Clusters() [][]int {
	var out [][]int
	log1mGamma := math.Log1p(-r.Gamma)
	stack := []int{r.Root()}
	for len(stack) > 0 {
		v := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		nd := &r.Nodes[v]
		if !nd.IsLeaf() {
			sum := 0.0
			for _, c := range nd.Children {
				sum += r.Nodes[c].LogP
			}
			if nd.LogPi+nd.LogML < float64(len(nd.Children)-1)*log1mGamma+sum {
				stack = append(stack, nd.Children...)
				continue
			}
		}
		var s []int
		r.leaves(v, &s)
		slices.Sort(s)
		out = append(out, s)
	}
	slices.SortFunc(out, func(a, b []int) int { return a[0] - b[0] })
	return out
}

// leaves appends the items below v.
func (r *Result) leaves(v int, into *[]int) {
	nd := &r.Nodes[v]
	if nd.IsLeaf() {
		*into = append(*into, nd.Item)
		return
	}
	for _, c := range nd.Children {
		r.leaves(c, into)
	}
}

// option is one operation on a pair of current trees and the node it would make.
type option struct {
	op      Op
	a, b    int // for Absorb, a absorbs b; otherwise a < b
	nch     int // the new node's number of children
	sum     float64
	logPi   float64
	logP    float64
	score   float64
	allowed bool
}

// before reports whether o is preferred to p when both are tied: join, absorb, collapse; then
// the smallest (min id, max id); then, for absorb, the smaller id absorbing.
func (o *option) before(p *option) bool {
	if o.op != p.op {
		return o.op < p.op
	}
	oa, ob := min(o.a, o.b), max(o.a, o.b)
	pa, pb := min(p.a, p.b), max(p.a, p.b)
	if oa != pa {
		return oa < pa
	}
	if ob != pb {
		return ob < pb
	}
	return o.a < p.a
}

// builder grows a BRT run over one conjugate store, keeping node id = store id.
type builder struct {
	store    conjugate.Store
	gamma    float64
	joinOnly bool
	logPi    []float64 // log π for k children, k = 0..n (0 and 1 unused)
	log1mPi  []float64 // log(1−π) for k children
	nodes    []Node
	sumCh    []float64 // Σ_c log p(D_c|T_c) per node, 0 for a leaf
	work     Work
	err      error
}

// MaxItems is the largest n that Run accepts, bhc.MaxItems: the search holds a float64 score for
// every pair (mergeheap.Forest).
const MaxItems = bhc.MaxItems

func newBuilder(ctx context.Context, m conjugate.Model, o Options) (*builder, error) {
	if !(o.Gamma > 0 && o.Gamma < 1) {
		return nil, fmt.Errorf("brt: γ must lie in (0, 1), got %v", o.Gamma)
	}
	n := m.Items()
	if n < 1 {
		return nil, errors.New("brt: no items")
	}
	if n > MaxItems {
		return nil, fmt.Errorf("brt: %d items is more than greedy search's limit of %d (it holds a score for every pair)", n, MaxItems)
	}
	b := &builder{
		store:    m.NewStore(),
		gamma:    o.Gamma,
		joinOnly: o.JoinOnly,
		logPi:    make([]float64, n+1),
		log1mPi:  make([]float64, n+1),
		nodes:    make([]Node, 0, 2*n-1),
		sumCh:    make([]float64, n, 2*n-1),
	}
	l := math.Log1p(-o.Gamma)
	for k := 2; k <= n; k++ {
		b.log1mPi[k] = float64(k-1) * l
		b.logPi[k] = math.Log(-math.Expm1(b.log1mPi[k]))
	}
	for i := range n {
		// One marginal likelihood per item (O(d³) for NIW): look at ctx before each.
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		f := b.store.LogML(i)
		b.work.MarginalLikelihoods++
		if math.IsNaN(f) || math.IsInf(f, 0) {
			return nil, fmt.Errorf("brt: the marginal likelihood of item %d is %v, want finite", i, f)
		}
		b.nodes = append(b.nodes, Node{Item: i, Size: 1, LogML: f, LogP: f})
	}
	return b, nil
}

// eval fills in the node that op would make from nch children whose log p sum to sum, with
// log f(D) = f, and its likelihood ratio against the trees a and b.
func (b *builder) eval(op Op, a, c, nch int, sum, f float64) option {
	o := option{op: op, a: a, b: c, nch: nch, sum: sum, logPi: b.logPi[nch], allowed: true}
	o.logP = logspace.AddExp(o.logPi+f, b.log1mPi[nch]+sum)
	o.score = o.logP - b.nodes[a].LogP - b.nodes[c].LogP
	return o
}

// ops returns the operations on the current trees a < c with log f(D_a ∪ D_c) = f, in the tie
// rule's order: join, a absorbs c, c absorbs a, collapse. Disallowed ones have allowed = false.
func (b *builder) ops(a, c int, f float64) [4]option {
	var out [4]option
	na, nc := &b.nodes[a], &b.nodes[c]
	out[0] = b.eval(Join, a, c, 2, na.LogP+nc.LogP, f)
	b.work.OperationsScored++
	if b.joinOnly {
		return out
	}
	ka, kc := len(na.Children), len(nc.Children)
	if ka > 0 {
		out[1] = b.eval(Absorb, a, c, ka+1, b.sumCh[a]+nc.LogP, f)
		b.work.OperationsScored++
	}
	if kc > 0 {
		out[2] = b.eval(Absorb, c, a, kc+1, b.sumCh[c]+na.LogP, f)
		b.work.OperationsScored++
	}
	if ka > 0 && kc > 0 {
		out[3] = b.eval(Collapse, a, c, ka+kc, b.sumCh[a]+b.sumCh[c], f)
		b.work.OperationsScored++
	}
	return out
}

// score returns the best likelihood ratio of the operations on the current trees a < c.
func (b *builder) score(a, c int) float64 {
	b.work.MergesScored++
	b.work.MarginalLikelihoods++
	f := b.store.LogMLUnion(a, c)
	if math.IsNaN(f) || math.IsInf(f, 1) {
		if b.err == nil {
			b.err = fmt.Errorf("brt: the marginal likelihood of a cluster of %d items is %v", b.nodes[a].Size+b.nodes[c].Size, f)
		}
		return math.Inf(-1)
	}
	best := math.Inf(-1)
	for _, o := range b.ops(a, c, f) {
		if o.allowed && o.score > best {
			best = o.score
		}
	}
	return best
}

// apply makes the node of o, with log f = f, and records the step.
func (b *builder) apply(o *option, f float64) Step {
	id := b.store.Merge(o.a, o.b)
	if id != len(b.nodes) {
		panic("brt: store and node ids out of step")
	}
	na, nb := &b.nodes[o.a], &b.nodes[o.b]
	var ch []int
	switch o.op {
	case Join:
		ch = []int{o.a, o.b}
	case Absorb:
		ch = append(slices.Clone(na.Children), o.b)
		na.Retired = true
	case Collapse:
		ch = append(slices.Clone(na.Children), nb.Children...)
		na.Retired, nb.Retired = true, true
	}
	b.nodes = append(b.nodes, Node{
		Children: ch, Item: -1, Size: na.Size + nb.Size,
		LogML: f, LogPi: o.logPi, LogP: o.logP, Op: o.op,
	})
	b.sumCh = append(b.sumCh, o.sum)
	return Step{Op: o.op, A: o.a, B: o.b, New: id, Score: o.score}
}

// Run is greedy BRT over all the model's items (see the package documentation for the model, the
// operations and the tie rule). It needs 0 < o.Gamma < 1 and 1 ≤ m.Items() ≤ MaxItems, and
// fails if a marginal likelihood is NaN or +Inf (or −Inf for a single item) or ctx is done
// (looked at before each item's marginal likelihood, every 16 pairs scored, once per step, every
// 64 rows scanned for tied pairs and every 1024 tied pairs). It costs O(n²) marginal likelihoods
// and holds one float64 per pair (400 MB at n = 10 000); steps at which k pairs tie within
// TieTolerance cost O(k) marginal likelihoods more.
func Run(ctx context.Context, m conjugate.Model, o Options) (*Result, error) {
	b, err := newBuilder(ctx, m, o)
	if err != nil {
		return nil, err
	}
	n := m.Items()
	roots := make([]int, n)
	for i := range roots {
		roots[i] = i
	}
	f, err := mergeheap.NewForest(ctx, roots, b.score)
	if err != nil {
		return nil, err
	}
	if b.err != nil {
		return nil, b.err
	}
	steps := make([]Step, 0, n-1)
	var tied []mergeheap.Candidate
	for f.Len() > 1 {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		// Gather every live pair whose best ratio lies within TieTolerance of the best (on data
		// with many equal points, up to all n²/2 of them at once).
		top, _ := f.Best()
		best := top.Score
		if tied, err = f.AppendWithin(ctx, tied[:0], TieTolerance); err != nil {
			return nil, err
		}
		var pick option
		var pickF float64
		found := false
		for i, c := range tied {
			if i%1024 == 1023 {
				if err := ctx.Err(); err != nil {
					return nil, err
				}
			}
			// The forest keeps scores only: log f of the union is computed again, from the same
			// statistics in the same order as when the pair was scored, hence the same value.
			lf := b.store.LogMLUnion(int(c.A), int(c.B))
			b.work.MarginalLikelihoods++
			for _, op := range b.ops(int(c.A), int(c.B), lf) {
				if op.allowed && op.score >= best-TieTolerance && (!found || op.before(&pick)) {
					pick, pickF, found = op, lf, true
				}
			}
		}
		if !found {
			panic("brt: no operation attains the best candidate's score") // ops and candidate agree
		}
		st := b.apply(&pick, pickF)
		steps = append(steps, st)
		if err := f.Replace(ctx, pick.a, pick.b, st.New); err != nil {
			return nil, err
		}
		if b.err != nil {
			return nil, b.err
		}
	}
	return &Result{Gamma: o.Gamma, Nodes: b.nodes, Steps: steps, Work: b.work}, nil
}
