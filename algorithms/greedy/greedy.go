// Package greedy is the greedy agglomerative baseline of the trellis papers (StandardHC
// N2Greedy_invM.greedyLH, ../shared/design/trellis.md §6): starting from the singletons, repeatedly
// merge the pair of current clusters whose split has the largest log-potential log ψ, until one
// cluster remains.
//
// Tie rule (derived from the reference's mechanics): clusters stand in an ordered list, the items
// in input order first, merged clusters deleted and each new cluster appended at the end. Among
// pairs of maximal log ψ, the one with the smallest right position wins, then the one with the
// smallest left position. When every remaining pair is −Inf the same rule picks the pair.
package greedy

import (
	"context"
	"math"

	"github.com/hcbench/hcbench/algorithms/model"
	"github.com/hcbench/hcbench/algorithms/tree"
)

// Result is the greedy tree and its log-potential (the sum of the chosen splits' log ψ).
type Result struct {
	Tree          *tree.Tree
	LogLikelihood float64
	// Energies is the number of log ψ evaluations of pairs of current clusters: every pair at
	// the start, N(N−1)/2, then after each merge the new cluster against every other and each
	// cluster whose best partner was merged against those left of it.
	Energies int64
}

// Run builds the greedy tree for m. It costs O(N²) evaluations of log ψ in the usual case and
// O(N³) comparisons at worst. It returns ctx.Err() if ctx is cancelled (looked at once per merge
// and every 16 evaluations of log ψ).
func Run(ctx context.Context, m model.Model) (Result, error) {
	n := m.Items()
	if n == 1 {
		return Result{Tree: tree.Leaf(0)}, nil
	}
	c := m.NewClusters()
	// list holds the current clusters in list order, each with its tree node (the node numbering
	// of tree.FromMerges). best[k] is the position of the best partner left of position k and
	// score[k] its log ψ; position 0 has no partner.
	type entry struct{ cluster, node int }
	list := make([]entry, n, 2*n)
	for i := range list {
		list[i] = entry{i, i}
	}
	best := make([]int, n, 2*n)
	score := make([]float64, n, 2*n)
	var energies int64
	// leftBest scans up to N partners, each a log ψ that costs what the model's clusters cost
	// (O(|A|·|B|) for the correlation energy), so it looks at ctx every 16 of them.
	leftBest := func(k int) error {
		b, s := -1, math.Inf(-1)
		for j := 0; j < k; j++ {
			if j%16 == 15 {
				if err := ctx.Err(); err != nil {
					return err
				}
			}
			v := c.LogPsi(list[j].cluster, list[k].cluster)
			energies++
			if b < 0 || v > s {
				b, s = j, v
			}
		}
		best[k], score[k] = b, s
		return nil
	}
	best[0], score[0] = -1, math.Inf(-1)
	for k := 1; k < n; k++ {
		if err := leftBest(k); err != nil {
			return Result{}, err
		}
	}

	merges := make([][2]int, 0, n-1)
	remap := make([]int, n) // old position -> new position, −1 if deleted
	total := 0.0
	for len(list) > 1 {
		if err := ctx.Err(); err != nil {
			return Result{}, err
		}
		// First maximum over positions 1..: the smallest right position wins; best[r] already
		// holds the smallest left position among r's maxima.
		r := 1
		for k := 2; k < len(list); k++ {
			if score[k] > score[r] {
				r = k
			}
		}
		l := best[r]
		a, b := list[l], list[r]
		total += score[r]
		merged := entry{c.Merge(a.cluster, b.cluster), n + len(merges)}
		merges = append(merges, [2]int{a.node, b.node})

		// Delete positions l < r, append the merged cluster, and repair partner pointers.
		keep := 0
		for k := range list {
			if k == l || k == r {
				remap[k] = -1
				continue
			}
			list[keep], best[keep], score[keep] = list[k], best[k], score[k]
			remap[k] = keep
			keep++
		}
		list = append(list[:keep], merged)
		best = append(best[:keep], -1)
		score = append(score[:keep], math.Inf(-1))
		best[0], score[0] = -1, math.Inf(-1)
		for k := 1; k < len(list)-1; k++ {
			if remap[best[k]] >= 0 {
				best[k] = remap[best[k]]
				continue
			}
			if err := leftBest(k); err != nil {
				return Result{}, err
			}
		}
		if len(list) > 1 {
			if err := leftBest(len(list) - 1); err != nil {
				return Result{}, err
			}
		}
	}
	t, err := tree.FromMerges(n, merges)
	if err != nil {
		return Result{}, err
	}
	return Result{Tree: t, LogLikelihood: total, Energies: energies}, nil
}
