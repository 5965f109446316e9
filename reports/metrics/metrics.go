// Package metrics scores clusterings against known classes and trees against their data.
//
// Against string class labels (the empty string = unknown): the dendrogram purity of a tree
// (leaf-weighted, as defined by the BHC paper, and pair-weighted, as in later work), and the flat
// purity and adjusted (top-k) purity of a partition, as ../shared/design/bayesian.md §10 defines
// them. Items of unknown class are left out of every one of these, as if pruned from the tree or
// removed from the partition, so they count neither as matches nor in any denominator.
//
// At a reference number of clusters, as the ClustBench suite (Gagolewski 2022) scores a method:
// Cut partitions a tree into exactly k clusters (scipy's cut_tree rule when the tree has merge
// heights, the largest cluster first when it has none), and NormalizedClusteringAccuracy,
// AdjustedRand, AdjustedMutualInfo and FowlkesMallows compare that partition with a reference
// labelling whose 0 marks a noise point (left out); BestOverReferences keeps the best score over a
// data set's reference labellings, each cut at its own k.
//
// Of a tree against its data: DasguptaCost (on any similarity; GaussianSimilarity is the one for
// vectors) and CopheneticCorrelation (for trees with heights). Both visit every pair of items,
// O(n²) time, in O(N) memory for a tree of N nodes.
package metrics

import (
	"fmt"
	"math"
	"math/bits"
	"slices"

	"github.com/hcbench/hcbench/algorithms/tree"
)

// DendrogramPurity returns the dendrogram purities of t, a binary or rose tree whose leaf items
// carry the classes labels[item] ("" = unknown), and the number of labelled leaves used.
//
// The leaf-weighted purity (`dp_leaf`) is that of the BHC paper (Heller & Ghahramani 2005,
// footnote 2): pick a labelled leaf ℓ uniformly among those whose class has at least two labelled
// leaves, then another leaf j uniformly among the other leaves of its class; the purity is the
// expected fraction of the labelled leaves below the lowest common ancestor of ℓ and j that are in
// their class. The pair-weighted purity (`dp_pair`, as in Kobren et al. 2017) takes the same
// fraction in expectation over the unordered same-class pairs, uniformly. The two agree when all
// classes have the same size.
//
// Leaves of unknown class are left out as if pruned: they are never drawn and do not count in the
// fractions. used is the number of labelled leaves. A class with a single labelled leaf contributes
// no pairs and its leaf is never drawn, but it counts in the fractions of the subtrees it is in.
// When no class has two labelled leaves, both purities are NaN.
//
// The computation is exact and costs O(Σ_k (number of classes below node k)), at most
// O(n·depth): by bayesian.md §10.1, node k with class counts C_k is the lowest common ancestor of
// P_k[c] = (C_k[c]² − Σ_child C_child[c]²)/2 pairs of class c, each of purity C_k[c]/n_k, with n_k
// the number of labelled leaves below k.
//
// t must be valid (tree.Validate) and labels must have an entry for every item of t;
// DendrogramPurity panics otherwise.
func DendrogramPurity(t *tree.Tree, labels []string) (leaf, pair float64, used int) {
	// Number the classes and count their labelled leaves in t.
	classOf := make(map[string]int)
	var classSize []int
	cls := make([]int, len(t.Nodes)) // by node, for leaves: the class, or −1
	for v, nd := range t.Nodes {
		if !nd.IsLeaf() {
			continue
		}
		lab := labels[nd.Item]
		if lab == "" {
			cls[v] = -1
			continue
		}
		c, ok := classOf[lab]
		if !ok {
			c = len(classSize)
			classOf[lab] = c
			classSize = append(classSize, 0)
		}
		cls[v] = c
		classSize[c]++
		used++
	}
	drawn, pairs := 0, 0.0 // leaves in classes of ≥ 2, and same-class unordered pairs
	for _, s := range classSize {
		if s >= 2 {
			drawn += s
			pairs += float64(s) * float64(s-1) / 2
		}
	}
	if drawn == 0 {
		return math.NaN(), math.NaN(), used
	}

	// Post-order pass. counts[v] is the sparse class-count vector of node v (classes with a
	// non-zero count, in no particular order); children's vectors are released once read.
	type count struct{ class, n int }
	counts := make([][]count, len(t.Nodes))
	acc := make([]int, len(classSize)) // scratch, by class: C_k[c]
	sq := make([]int, len(classSize))  // scratch, by class: Σ_child C_child[c]²
	var touched []int
	sumLeaf, sumPair := 0.0, 0.0
	for _, v := range t.PostOrder() {
		nd := t.Nodes[v]
		if nd.IsLeaf() {
			if c := cls[v]; c >= 0 {
				counts[v] = []count{{c, 1}}
			}
			continue
		}
		touched = touched[:0]
		nk := 0
		for _, ch := range nd.Children {
			for _, e := range counts[ch] {
				if acc[e.class] == 0 {
					touched = append(touched, e.class)
				}
				acc[e.class] += e.n
				sq[e.class] += e.n * e.n
				nk += e.n
			}
			counts[ch] = nil
		}
		out := make([]count, 0, len(touched))
		for _, c := range touched {
			ck := acc[c]
			if p := (ck*ck - sq[c]) / 2; p > 0 {
				purity := float64(ck) / float64(nk)
				sumPair += float64(p) * purity
				sumLeaf += float64(p) * 2 / float64(classSize[c]-1) * purity
			}
			out = append(out, count{c, ck})
			acc[c], sq[c] = 0, 0
		}
		counts[v] = out
	}
	return sumLeaf / float64(drawn), sumPair / pairs, used
}

// FlatPurity returns the purity and the adjusted purity (bayesian.md §10.2–10.3) of a flat
// clustering: clusters lists the items of each cluster, and must partition a subset of the items
// (an item in two clusters, or out of the range of labels, makes FlatPurity panic). Items of
// unknown class ("") are left out.
//
// With n the number of labelled items in the clusters and m_j = max_c |cluster j ∩ class c|,
// purity = Σ_j m_j / n. The adjusted purity of Voisin & Klus sums only the k largest m_j, where k
// is the number of distinct classes among those n items: adjusted = Σ_{top k} m_j / n. Both are
// NaN when n = 0. Purity is 1 when every cluster is a singleton; the adjusted purity is then k/n.
func FlatPurity(clusters [][]int, labels []string) (purity, adjusted float64) {
	seen := make([]bool, len(labels))
	classes := make(map[string]bool)
	maxima := make([]int, 0, len(clusters))
	n := 0
	for _, cl := range clusters {
		counts := make(map[string]int)
		best := 0
		for _, i := range cl {
			if seen[i] {
				panic(fmt.Sprintf("metrics: item %d is in two clusters", i))
			}
			seen[i] = true
			lab := labels[i]
			if lab == "" {
				continue
			}
			n++
			classes[lab] = true
			counts[lab]++
			best = max(best, counts[lab])
		}
		maxima = append(maxima, best)
	}
	if n == 0 {
		return math.NaN(), math.NaN()
	}
	slices.SortFunc(maxima, func(a, b int) int { return b - a })
	sum, top := 0, 0
	for j, m := range maxima {
		sum += m
		if j < len(classes) {
			top += m
		}
	}
	return float64(sum) / float64(n), float64(top) / float64(n)
}

// PairPuritySplits is the pair-weighted dendrogram purity (DendrogramPurity) written as a sum over
// the splits of a binary tree over at most 32 items (as bitmasks), for a dynamic program over
// splits such as trellis.MAPTies: the split of V into L and R is the
// lowest common ancestor of n_L,c·n_R,c pairs of class c, each of purity n_V,c/n_V, with n counting
// labelled leaves only (unknown ones are pruned), and the sum is divided by the number of
// same-class pairs. It is nil when no class has two labelled leaves (the purity is undefined).
func PairPuritySplits(labels []string) func(l, r uint32) float64 {
	byClass := map[string]uint32{}
	var labelled uint32
	for i, lab := range labels {
		if lab != "" {
			byClass[lab] |= 1 << i
			labelled |= 1 << i
		}
	}
	var classes []uint32
	pairs := 0
	for _, m := range byClass {
		k := bits.OnesCount32(m)
		pairs += k * (k - 1) / 2
		classes = append(classes, m)
	}
	if pairs == 0 {
		return nil
	}
	return func(l, r uint32) float64 {
		nv := bits.OnesCount32((l | r) & labelled)
		if nv == 0 {
			return 0
		}
		// An integer sum, so the order of the classes cannot change the result.
		s := 0
		for _, m := range classes {
			s += bits.OnesCount32(l&m) * bits.OnesCount32(r&m) * bits.OnesCount32((l|r)&m)
		}
		return float64(s) / float64(nv) / float64(pairs)
	}
}
