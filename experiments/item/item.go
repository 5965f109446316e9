// Package item is the unit an algorithm clusters: an Item (a jet, or a table of labelled vectors,
// with its split model and truth), and the Size of a data set's items, which the memory estimates
// read before any item exists. The data sources make items; the algorithms read them.
package item

import (
	"github.com/hcbench/hcbench/algorithms/model"
	"github.com/hcbench/hcbench/algorithms/tree"
	"github.com/hcbench/hcbench/datasets/jets"
)

// Item is one unit of data that an algorithm clusters, for example one jet.
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
	// Names labels the leaves in Newick output; nil means 0-based indices.
	Names []string
	// Labels are the leaves' classes ("" unknown), for purity; nil when the data have none.
	Labels []string
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
	// Jet is the item's jet, for jet data sets.
	Jet *jets.Jet
	// DataParams are the data set's resolved settings (see inputs.Dataset.Params), with a jet's own λ,
	// λ_root and t_cut; shared between items, so read-only.
	DataParams map[string]any
	// Warnings are about the item's data, for every record of it: for a jet, what its likelihood
	// scores but the generator cannot make (see ginkgo.Model.Warnings), such as a leaf heavier
	// than t_cut. Read-only.
	Warnings []string
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
}
