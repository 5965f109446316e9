package significance

import (
	"cmp"
	"slices"
)

// averageRanks writes into r the 1-based ranks of x in ascending order, ties getting the mean of
// the ranks they span (scipy.stats.rankdata's 'average' method), and returns the sizes of the
// tie groups of more than one value (scipy's find_repeats on the ranks), which the tie
// corrections of Wilcoxon and Friedman need. Values are compared exactly. order is scratch
// space of len(x).
func averageRanks(x, r []float64, order []int) (ties []int) {
	for i := range order {
		order[i] = i
	}
	slices.SortFunc(order, func(a, b int) int { return cmp.Compare(x[a], x[b]) })
	for i := 0; i < len(order); {
		j := i + 1
		for j < len(order) && x[order[j]] == x[order[i]] {
			j++
		}
		// Positions i..j-1 (0-based) hold equal values: ranks i+1..j, mean (i+1+j)/2.
		mean := float64(i+1+j) / 2
		for _, o := range order[i:j] {
			r[o] = mean
		}
		if j-i > 1 {
			ties = append(ties, j-i)
		}
		i = j
	}
	return ties
}
