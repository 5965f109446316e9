// Package model defines split-potential models, the scoring rule that the exact trellis, greedy and
// beam search share. A model scores a binary hierarchy H over items X by its log-potential
//
//	log φ(X|H) = Σ over internal nodes of log ψ(A, B),
//
// where A and B are the item sets of the node's two children. log ψ is symmetric in A and B, and
// −Inf is a legal value (a split the model forbids); it must flow through every algorithm without
// producing NaN.
//
// Concrete models live in sub-packages (ginkgo for the Ginkgo jet likelihoods).
package model

import (
	"errors"

	"github.com/hcbench/hcbench/algorithms/tree"
)

// Model is a split-potential model over a fixed list of items 0..Items()−1.
type Model interface {
	// Items returns the number of items (leaves).
	Items() int
	// NewClusters returns an empty store of cluster summaries holding the Items() singletons.
	NewClusters() Clusters
}

// Relabeler is a Model whose items can be renumbered without computing it again. Every model
// of this module is one: hcbench gives the algorithms an item's leaves in an order drawn from the
// item's seed, never the data's own (which can list the leaves class by class), and renumbers the
// model built on the data's order (experiments/item).
type Relabeler interface {
	Model
	// Relabel renumbers the items in place: item i becomes the former item order[i], and every
	// split scores as the same split of the former items did (to the bit where the model sums
	// the same items in the same sequence; its subset tables sum in index order, so they may
	// differ by rounding). Precondition: order is a permutation of 0..Items()−1, and no Clusters
	// or SubsetScorer of the model is in use.
	Relabel(order []int)
}

// Clusters is a growing store of cluster summaries, so that algorithms can score candidate splits
// without recomputing what a cluster holds. Ids 0..Items()−1 are the singletons {i}; Merge adds new
// ids. A Clusters is not safe for concurrent use; make one per goroutine.
type Clusters interface {
	// Merge records the union of the disjoint clusters a and b and returns its id.
	Merge(a, b int) int
	// Cluster records the cluster of the given distinct items and returns its id; it is Merge
	// for a cluster no merge has made.
	Cluster(items []int) int
	// LogPsi returns log ψ(a, b), the log-potential of splitting the cluster a∪b into a and b.
	// Precondition: a and b are disjoint. The value is symmetric in a and b and may be −Inf.
	LogPsi(a, b int) float64
}

// MaxSubsetItems is the largest number of items a SubsetModel accepts: subsets are uint32 masks,
// and the exact trellis's 2^n tables would not fit in memory much beyond.
const MaxSubsetItems = 30

// SubsetModel is a Model whose splits can be scored for item subsets given as bitmasks (bit i
// for item i), which is what the exact trellis works on.
type SubsetModel interface {
	Model
	// SubsetBytes is the memory that NewSubsetScorer allocates per subset.
	SubsetBytes() int
	// NewSubsetScorer precomputes what the model needs about each of the 2^Items() subsets.
	// Precondition: Items() ≤ MaxSubsetItems.
	NewSubsetScorer() (SubsetScorer, error)
}

// SubsetScorer scores splits of subsets given as bitmasks. It is safe for concurrent use.
type SubsetScorer interface {
	// LogPsi returns log ψ(l, r) for the split of l|r into the disjoint, non-empty subsets l and
	// r; it is symmetric and may be −Inf. The split of all items is the root split.
	LogPsi(l, r uint32) float64
}

// TreeLogLikelihood returns the log-potential of t, a binary tree over all the model's items: the
// sum of log ψ over its internal nodes. It is −Inf when any split is forbidden.
func TreeLogLikelihood(m Model, t *tree.Tree) (float64, error) {
	if err := t.Validate(m.Items()); err != nil {
		return 0, err
	}
	if !t.IsBinary() {
		return 0, ErrNotBinary
	}
	c := m.NewClusters()
	id := make([]int, len(t.Nodes))
	sum := 0.0
	for _, v := range t.PostOrder() {
		nd := t.Nodes[v]
		if nd.IsLeaf() {
			id[v] = nd.Item
			continue
		}
		a, b := id[nd.Children[0]], id[nd.Children[1]]
		sum += c.LogPsi(a, b)
		id[v] = c.Merge(a, b)
	}
	return sum, nil
}

// ErrNotBinary is returned when a split model is asked to score a tree with a node of more than
// two children.
var ErrNotBinary = errors.New("model: a split-potential model scores binary trees only")
