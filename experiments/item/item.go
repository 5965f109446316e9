// Package item is the unit an algorithm clusters: an Item (a jet, or a table of labelled vectors,
// with its split model and truth), the order in which its leaves are given to the algorithms, and
// the Size of a data set's items, which the memory estimates read before any item exists. The
// data sources make items; the algorithms read them.
package item

import (
	"fmt"
	"slices"

	"github.com/hcbench/hcbench/algorithms/model"
	"github.com/hcbench/hcbench/algorithms/tree"
	"github.com/hcbench/hcbench/datasets/jets"
)

// Item is one unit of data that an algorithm clusters, for example one jet.
//
// A source makes an item in its data's own order: a file's rows as drawn, a generator's points or
// leaves. That order can give the answer away: stratified subsamples list their leaves class by
// class, mixtures component by component, and a jet's leaves follow its generating tree depth
// first, so a program that pairs adjacent leaves, blind to the data, would score as well as the
// best algorithm. Present therefore renumbers the leaves into an order drawn from the item's seed,
// the order every algorithm is given (ForAlgorithm), and Order keeps the way back, so that records
// speak of the data's leaves (DataTree, DataSets, InData). Leaf i of the fields below (Model,
// Truth and the per-leaf lists) is the item's leaf i, in that order, except in Jet.
type Item struct {
	Dataset string
	Index   int
	ID      string
	// Model scores splits of the item's leaves; nil for vector data without a split model
	// (split_model: none), or whose split model could not be built (ModelErr).
	Model model.Model
	// ModelErr is why the item's split model could not be built from its data (a vector with no
	// direction for the correlation energy), or nil. The item loads all the same: the algorithms
	// that score splits fail on it with this error, and the others run without a log-likelihood.
	ModelErr error
	// Truth is the generating tree when known, with its log-likelihood under Model.
	Truth              *tree.Tree
	TruthLogLikelihood float64
	// Names are the leaves' names in the data, for records (Newick output); nil means their
	// 0-based indices. Algorithms are not given them (see ForAlgorithm).
	Names []string
	// Labels are the leaves' classes ("" unknown), for purity; nil when the data have none.
	Labels []string
	// References are the item's reference partitions (ClustBench's labels0, labels1, …), each
	// a label per leaf: 1..k a cluster, 0 a noise point; nil when the data have none. Labels then
	// holds the first as strings ("" for noise), for the purity metrics.
	References [][]int
	// Positions are the leaves' 1-based positions among the items of the data file (for pam50 the
	// sample's column, counted from the first sample), for data read from a file of vectors; nil
	// otherwise.
	Positions []int
	// Vectors are the leaves' feature vectors (missing values 0, or NaN when masked), for
	// algorithms that work on vectors; nil for jets.
	Vectors [][]float64
	// MissingCells counts the item's values the data file lacked (0 for generated vectors); nil
	// for jets.
	MissingCells *int
	// Jet is the item's jet, for jet data sets, as its data hold it: the leaves in the data's
	// order, with the generating tree; Present does not renumber it, and algorithms are given
	// its leaves in the item's order (see ForAlgorithm).
	Jet *jets.Jet
	// DataParams are the data set's resolved settings (see inputs.Dataset.Params), with a jet's own λ,
	// λ_root and t_cut; shared between items, so read-only.
	DataParams map[string]any
	// Warnings are about the item's data, for every record of it: for a jet, what its likelihood
	// scores but the generator cannot make (see ginkgo.Model.Warnings), such as a leaf heavier
	// than t_cut. Read-only.
	Warnings []string
	// Order[i] is the index, in the data's own order, of the item's leaf i (see Present); nil
	// while the item is in its data's order (made in code, or not yet presented). OrderSeed is
	// the first 64 bits of the seed of the random stream that drew it (see seeds.Uint64), for
	// the records.
	Order     []int
	OrderSeed uint64
}

// Present renumbers the item's leaves by order, the order in which the algorithms are to be
// given them: leaf i becomes the former leaf order[i]. Model (which must be a model.Relabeler),
// Truth, Names, Labels, References, Positions and Vectors follow, and Order records order; Jet keeps the
// data's order. The model is renumbered in place, so nothing of the item is copied but its
// per-leaf lists. A model that cannot be renumbered is an error (a source's, not the data's).
// Preconditions: the item is in its data's order (Order nil), and order is a permutation of
// 0..Leaves()−1.
func (it *Item) Present(order []int) error {
	if it.Order != nil {
		return fmt.Errorf("internal error (please report): item %s of %s is presented twice", it.ID, it.Dataset)
	}
	if it.Model != nil {
		r, ok := it.Model.(model.Relabeler)
		if !ok {
			return fmt.Errorf("internal error (please report): the model of item %s of %s (%T) cannot renumber its leaves (model.Relabeler), so its leaves cannot be given in an order that hides the data's", it.ID, it.Dataset, it.Model)
		}
		r.Relabel(order)
	}
	if it.Truth != nil {
		it.Truth = it.Truth.Relabel(inverse(order))
	}
	it.Names = permuted(order, it.Names)
	it.Labels = permuted(order, it.Labels)
	if it.References != nil {
		refs := make([][]int, len(it.References))
		for k, r := range it.References {
			refs[k] = permuted(order, r)
		}
		it.References = refs
	}
	it.Positions = permuted(order, it.Positions)
	it.Vectors = permuted(order, it.Vectors)
	it.Order = order
	return nil
}

// ForAlgorithm returns what an algorithm is given of the item: a shallow copy without what
// places its leaves in the data, Names (which can hold the class, as pam50's sample names
// Normal-Breast-10 do, or the file's order, as the row numbers that name a CSV's rows), Positions
// and Order, without the References that score its partitions, and whose Jet holds only the rates and the leaves in the item's order, not the
// generating tree.
func (it *Item) ForAlgorithm() *Item {
	v := *it
	v.Names, v.Positions, v.Order, v.References = nil, nil, nil, nil
	if j := it.Jet; j != nil {
		leaves := j.Leaves
		if it.Order != nil {
			leaves = permuted(it.Order, leaves)
		}
		v.Jet = &jets.Jet{ID: j.ID, Leaves: leaves, Lambda: j.Lambda, LambdaRoot: j.LambdaRoot, TCut: j.TCut, Likelihood: j.Likelihood, RootLambda: j.RootLambda}
	}
	return &v
}

// DataLeaf returns the index in the data's order of the item's leaf i.
func (it *Item) DataLeaf(i int) int {
	if it.Order == nil {
		return i
	}
	return it.Order[i]
}

// DataTree returns t, a tree over the item's leaves, as a tree over the data's: the same nodes
// with leaf i renumbered DataLeaf(i). It returns t itself while the item is in its data's order.
func (it *Item) DataTree(t *tree.Tree) *tree.Tree {
	if it.Order == nil || t == nil {
		return t
	}
	return t.Relabel(it.Order)
}

// DataSets returns sets of the item's leaves as sets of the data's, each sorted ascending, in
// the same order as sets; nil for nil.
func (it *Item) DataSets(sets [][]int) [][]int {
	if sets == nil {
		return nil
	}
	out := make([][]int, len(sets))
	for k, s := range sets {
		out[k] = make([]int, len(s))
		for j, i := range s {
			out[k][j] = it.DataLeaf(i)
		}
		slices.Sort(out[k])
	}
	return out
}

// InData returns values of the item's leaves (v[i] of leaf i) in the data's order: out[Order[i]]
// = v[i]. It returns v itself while the item is in its data's order, and nil for nil.
func InData[T any](it *Item, v []T) []T {
	if it.Order == nil || v == nil {
		return v
	}
	out := make([]T, len(v))
	for i, x := range v {
		out[it.Order[i]] = x
	}
	return out
}

// permuted returns v renumbered by order (out[i] = v[order[i]]), nil for nil.
func permuted[T any](order []int, v []T) []T {
	if v == nil {
		return nil
	}
	out := make([]T, len(order))
	for i, o := range order {
		out[i] = v[o]
	}
	return out
}

// inverse returns the permutation that undoes order.
func inverse(order []int) []int {
	inv := make([]int, len(order))
	for i, o := range order {
		inv[o] = i
	}
	return inv
}

// Leaves returns the number of leaves.
func (it *Item) Leaves() int {
	if it.Model == nil {
		return len(it.Vectors)
	}
	return it.Model.Items()
}

// Size describes a data set's items for the memory estimates made before they are loaded.
type Size struct {
	Items int
	// MinLeaves and MaxLeaves bound the leaves of an item; MaxLeaves is 0 when there is no bound
	// (generated jets without max_leaves).
	MinLeaves, MaxLeaves int
	// Dims is the number of features of a leaf (0 for jets).
	Dims int
	// Jets says the items are jets; Weights that each holds the n² weights of the
	// correlation-clustering model.
	Jets, Weights bool
	// Binary says every feature is 0 or 1 (binarized, or Bernoulli mixtures), so that the
	// Bayesian algorithms' model auto takes the Beta-Bernoulli model, whose cluster statistics
	// are a few bytes a feature where the Normal-Inverse-Wishart's grow as its square.
	Binary bool
}
