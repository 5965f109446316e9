package reports

import (
	"fmt"
	"math"
	"strconv"

	"hcbench/experiments/results"
	"hcbench/reports/table"
)

// perItemLimit is the largest number of items for which the purity report lists every item.
const perItemLimit = 50

// purity writes purity.md and purity.csv: per data set and algorithm, the mean ± std of the
// dendrogram purities (leaf- and pair-weighted) and, for algorithms with a flat clustering, of the
// flat and adjusted purities; and, for data sets of at most 50 items (pam50 subsamples), a row per
// item with each tree's gap to the exact MAP and its dendrogram purity. Leaves of unknown class
// are left out of the purities; the tables say how many were.
func purity(in Input, dir string) ([]string, error) {
	joined := byItem(in, anyRecord)
	var sections []section
	csvT := table.Table{Header: []string{"dataset", "item", "algorithm", "items", "labelled_leaves", "leaves",
		"dp_leaf_mean", "dp_leaf_std", "dp_pair_mean", "dp_pair_std", "flat_mean", "flat_std", "adjusted_mean", "adjusted_std"}}
	for _, ds := range in.Datasets {
		items := joined[ds]
		if !hasLabels(items) {
			continue
		}
		md := table.Table{
			Header:  []string{"algorithm", "items", "labelled leaves", "dendrogram purity", "pair-weighted", "flat purity", "adjusted purity"},
			Numeric: []bool{false, true, true, true, true, true, true},
		}
		for _, a := range in.Algorithms {
			var leaf, pair, flat, adj []float64
			n, labelled, leaves := 0, 0, 0
			for _, recs := range items {
				r, ok := recs[a]
				if !ok {
					continue
				}
				n++
				labelled += r.LabelledLeaves
				leaves += r.N
				leaf, pair = appendSome(leaf, r.DendrogramPurity), appendSome(pair, r.DendrogramPurityPair)
				flat, adj = appendSome(flat, r.FlatPurity), appendSome(adj, r.AdjustedPurity)
			}
			if n == 0 {
				continue
			}
			lm, ls := meanStd(leaf)
			pmn, ps := meanStd(pair)
			fm, fs := meanStd(flat)
			am, as := meanStd(adj)
			md.Rows = append(md.Rows, []string{a, strconv.Itoa(n), fmt.Sprintf("%d of %d", labelled, leaves),
				pm(lm, ls), pm(pmn, ps), pm(fm, fs), pm(am, as)})
			csvT.Rows = append(csvT.Rows, []string{ds, "", a, strconv.Itoa(n), strconv.Itoa(labelled), strconv.Itoa(leaves),
				num(lm), num(ls), num(pmn), num(ps), num(fm), num(fs), num(am), num(as)})
		}
		sections = append(sections, section{title: ds + ": purity, mean ± std over items", table: md})
		if len(items) <= perItemLimit {
			t, rows := purityPerItem(in, ds, items)
			sections = append(sections, section{title: ds + ": per item", table: t})
			csvT.Rows = append(csvT.Rows, rows...)
		}
	}
	notes := []string{
		"Dendrogram purity is the BHC paper's (a leaf drawn uniformly among leaves whose class has another member, then a second leaf of its class; the share of its class in the smallest subtree holding both); pair-weighted draws the pair uniformly among same-class pairs (Kobren et al. 2017). Flat purity is Σ over clusters of the largest class count over the items; adjusted purity keeps only the k largest of those counts, k the number of classes (Voisin & Klus).",
		"Leaves of unknown class are left out of every purity; 'labelled leaves' counts those kept.",
		"In the per-item table, MAP − x is the exact trellis MAP log-likelihood minus algorithm x's (0: x found the MAP), and DP x is x's dendrogram purity.",
	}
	return writeReport(dir, "purity", "Purity: "+in.Experiment, sections, notes, csvFile{"purity.csv", csvT})
}

func hasLabels(items map[string]map[string]results.Record) bool {
	for _, recs := range items {
		for _, r := range recs {
			if len(r.LeafLabels) > 0 {
				return true
			}
		}
	}
	return false
}

func appendSome(xs []float64, p *float64) []float64 {
	if p == nil {
		return xs
	}
	return append(xs, *p)
}

// purityPerItem is one row per item: N, labelled leaves, each algorithm's gap to the exact MAP
// (where a trellis ran) and each algorithm's dendrogram purity; and the matching CSV rows.
func purityPerItem(in Input, ds string, items map[string]map[string]results.Record) (table.Table, [][]string) {
	var exact string
	for _, a := range in.Algorithms {
		for _, recs := range items {
			if r, ok := recs[a]; ok && r.AlgorithmName == exactName {
				exact = a
			}
		}
	}
	var algs []string
	for _, a := range in.Algorithms {
		for _, recs := range items {
			if _, ok := recs[a]; ok {
				algs = append(algs, a)
				break
			}
		}
	}
	t := table.Table{Header: []string{"item", "N", "labelled"}}
	for _, a := range algs {
		if exact != "" && a != exact {
			t.Header = append(t.Header, "MAP − "+a)
		}
	}
	for _, a := range algs {
		t.Header = append(t.Header, "DP "+a)
	}
	t.Numeric = make([]bool, len(t.Header))
	for i := range t.Numeric {
		t.Numeric[i] = true
	}
	var rows [][]string
	for _, id := range sortedItemIDs(items) {
		recs := items[id]
		var any results.Record
		for _, r := range recs {
			any = r
			break
		}
		row := []string{id, strconv.Itoa(any.N), strconv.Itoa(any.LabelledLeaves)}
		for _, a := range algs {
			if exact == "" || a == exact {
				continue
			}
			cell := ""
			if r, ok := recs[a]; ok && r.LogLikelihood != nil {
				if e, ok := recs[exact]; ok && e.LogLikelihood != nil {
					cell = fixed3(e.LogLikelihood.Value() - r.LogLikelihood.Value())
				}
			}
			row = append(row, cell)
		}
		for _, a := range algs {
			cell := ""
			if r, ok := recs[a]; ok && r.DendrogramPurity != nil {
				cell = fixed3(*r.DendrogramPurity)
				rows = append(rows, []string{ds, id, a, "1", strconv.Itoa(r.LabelledLeaves), strconv.Itoa(r.N),
					num(*r.DendrogramPurity), "", num(deref(r.DendrogramPurityPair)), "", num(deref(r.FlatPurity)), "", num(deref(r.AdjustedPurity)), ""})
			}
			row = append(row, cell)
		}
		t.Rows = append(t.Rows, row)
	}
	return t, rows
}

func deref(p *float64) float64 {
	if p == nil {
		return math.NaN()
	}
	return *p
}
