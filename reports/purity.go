package reports

import (
	"fmt"
	"math"
	"slices"
	"strconv"

	"github.com/hcbench/hcbench/experiments/metric"
	"github.com/hcbench/hcbench/experiments/results"
	"github.com/hcbench/hcbench/reports/table"
)

func init() {
	Register(Report{
		Name:  "purity",
		Help:  "for labelled data, per data set: dendrogram purity (leaf- and pair-weighted), flat and adjusted purity per algorithm (purity.csv); for up to 50 items, a row per item with each tree's gap to the exact MAP and its purity (purity_by_item.csv); with the trellis's count_map_trees, the number of trees that reach the MAP and the range of their purity",
		Build: purity,
	})
}

// perItemLimit is the largest number of items for which the purity report lists every item.
const perItemLimit = 50

// purity writes purity.md and purity.csv: per data set and algorithm, the mean ± std of the
// dendrogram purities (leaf- and pair-weighted) and, for algorithms with a flat clustering, of the
// flat and adjusted purities; where the trellis recorded its MAP ties, how many trees reach the
// MAP and how far their purities spread; and, for data sets of at most 50 items (pam50
// subsamples), a row per item with each tree's gap to the exact MAP and its dendrogram purity.
// The CSVs are tidy, one kind of row each: purity.csv has the means per data set and algorithm,
// purity_by_item.csv (up to 50 items a data set) a row per item and algorithm with every purity,
// the gap at full precision and the MAP ties. Leaves of unknown class are left out of the
// purities; the tables say how many were.
func purity(in Input, dir string) ([]string, error) {
	joined := byItem(in, anyRecord)
	var sections []section
	csvT := table.Table{Header: []string{"dataset", "algorithm", "items", "labelled_leaves", "leaves",
		"dp_leaf_mean", "dp_leaf_std", "dp_pair_mean", "dp_pair_std", "flat_mean", "flat_std", "adjusted_mean", "adjusted_std"}}
	itemCSV := table.Table{Header: []string{"dataset", "item", "algorithm", "n", "labelled_leaves",
		"dp_leaf", "dp_pair", "flat", "adjusted", metric.ExactGap, "map_trees", "map_dp_pair_min", "map_dp_pair_max"}}
	anyTies := false
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
			for _, id := range sortedItemIDs(items) { // a fixed order, so the sums are the same every run
				r, ok := items[id][a]
				if !ok {
					continue
				}
				n++
				labelled += r.LabelledLeaves
				leaves += r.N
				leaf, pair = appendSome(leaf, &r, metric.DendrogramPurity), appendSome(pair, &r, metric.DendrogramPurityPair)
				flat, adj = appendSome(flat, &r, metric.FlatPurity), appendSome(adj, &r, metric.AdjustedPurity)
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
			csvT.Rows = append(csvT.Rows, []string{ds, a, strconv.Itoa(n), strconv.Itoa(labelled), strconv.Itoa(leaves),
				num(lm), num(ls), num(pmn), num(ps), num(fm), num(fs), num(am), num(as)})
		}
		sections = append(sections, section{title: ds + ": purity, mean ± std over items", table: md})
		if t, ok := mapTiesTable(in, items); ok {
			anyTies = true
			sections = append(sections, section{title: ds + ": the trees that reach the MAP", table: t})
		}
		if len(items) <= perItemLimit {
			ss, rows := purityPerItem(in, ds, items)
			sections = append(sections, ss...)
			itemCSV.Rows = append(itemCSV.Rows, rows...)
		}
	}
	notes := []string{
		"Dendrogram purity is the BHC paper's (a leaf drawn uniformly among leaves whose class has another member, then a second leaf of its class; the share of its class in the smallest subtree holding both); pair-weighted draws the pair uniformly among same-class pairs (Kobren et al. 2017). Flat purity is Σ over clusters of the largest class count over the items; adjusted purity keeps only the k largest of those counts, k the number of classes (Voisin & Klus).",
		"Leaves of unknown class are left out of every purity; 'labelled leaves' counts those kept.",
		"The " + metric.Builtin(metric.ExactGap).Short + " (" + metric.ExactGap + " in purity_by_item.csv, compare and hcbench history) is " + metric.Builtin(metric.ExactGap).Definition,
	}
	if anyTies {
		notes = append(notes,
			"MAP trees is the number of binary trees that reach the MAP: trees whose every split is within the recorded tolerance (params.map_tie_tolerance, in log-likelihood; the trellis's count_map_trees) of the best split of its cluster; 'DP pair, MAP trees' is the least and greatest pair-weighted dendrogram purity among them. The trellis tree scored and drawn is the one its tie rule picks: at every cluster, among the best splits, the one whose child holding the cluster's first item (in data order) has the smallest bitmask. When many trees tie, its purity is a property of that rule, not of the model.",
			"Why they tie under the correlation-clustering energy: every pair is cut once, at its lowest common ancestor, and kept inside a child at every split above it, so a tree's energy is Σ_{w>0} w, the same for all trees, plus c·Σ_{w<0} |w|·depth(lca), with c = 1 or 2 (within_pairs). The positive weights do not shape the MAP tree at all, and greedy, which pays nothing to merge a pair of weight ≤ 0, joins dissimilar items first; average linkage on the weights is the meaningful baseline.",
		)
	}
	return writeReport(dir, "purity", "Purity: "+in.Experiment, sections, notes,
		csvFile{"purity.csv", csvT, "no data set has labelled leaves"},
		csvFile{"purity_by_item.csv", itemCSV, fmt.Sprintf("no labelled data set has at most %d items", perItemLimit)})
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

// appendSome appends the record's value of a metric, where it has one.
func appendSome(xs []float64, r *results.Record, key string) []float64 {
	if v, ok := r.Metric(key); ok {
		return append(xs, v)
	}
	return xs
}

// metricOrNaN is the record's value of a metric, NaN where it has none.
func metricOrNaN(r *results.Record, key string) float64 {
	if v, ok := r.Metric(key); ok {
		return v
	}
	return math.NaN()
}

// purityPerItem returns, for the items of a data set, a table of each algorithm's gap to the
// exact MAP (metric.ExactGap; where a trellis ran, for the trees with a log-likelihood), one of
// each algorithm's dendrogram purity and the MAP ties (where recorded), a row per item and a
// column per algorithm each, so that neither grows wider than the algorithms; and the matching
// CSV rows, one per item and algorithm.
func purityPerItem(in Input, ds string, items map[string]map[string]results.Record) ([]section, [][]string) {
	var all []results.Record
	for _, id := range sortedItemIDs(items) {
		for _, r := range items[id] {
			all = append(all, r)
		}
	}
	exactMAP := results.ExactMAP(all)
	var exact string
	for _, a := range in.Algorithms {
		for _, recs := range items {
			if r, ok := recs[a]; ok && r.HasRole(results.Exact) {
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
	// gap is a's gap to the exact MAP on an item, NaN where it has none.
	gap := func(recs map[string]results.Record, a string) float64 {
		r, ok := recs[a]
		if !ok {
			return math.NaN()
		}
		if g, ok := metric.Builtin(metric.ExactGap).Of(&r, &metric.Run{Exact: exactMAP}); ok {
			return g
		}
		return math.NaN()
	}
	// The gap columns: the algorithms with a gap on some item.
	var gapAlgs []string
	for _, a := range algs {
		for _, recs := range items {
			if !math.IsNaN(gap(recs, a)) {
				gapAlgs = append(gapAlgs, a)
				break
			}
		}
	}
	hasTies := false
	for _, recs := range items {
		if _, ok := mapTies(recs[exact]); ok && exact != "" {
			hasTies = true
		}
	}
	numeric := func(t *table.Table) {
		t.Numeric = make([]bool, len(t.Header))
		for i := range t.Numeric {
			t.Numeric[i] = true
		}
	}
	gaps := table.Table{Header: append([]string{"item", "N"}, gapAlgs...)}
	dp := table.Table{Header: append([]string{"item", "N", "labelled"}, algs...)}
	if hasTies {
		dp.Header = append(dp.Header, "MAP trees", "DP pair, MAP trees")
	}
	numeric(&gaps)
	numeric(&dp)
	var rows [][]string
	for _, id := range sortedItemIDs(items) {
		recs := items[id]
		var any results.Record
		for _, r := range recs {
			any = r
			break
		}
		gapRow := []string{id, strconv.Itoa(any.N)}
		for _, a := range gapAlgs {
			cell := ""
			if g := gap(recs, a); !math.IsNaN(g) {
				cell = fixed3(g)
			}
			gapRow = append(gapRow, cell)
		}
		gaps.Rows = append(gaps.Rows, gapRow)
		row := []string{id, strconv.Itoa(any.N), strconv.Itoa(any.LabelledLeaves)}
		for _, a := range algs {
			cell := ""
			if r, ok := recs[a]; ok && !math.IsNaN(metricOrNaN(&r, metric.DendrogramPurity)) {
				cell = fixed3(metricOrNaN(&r, metric.DendrogramPurity))
				mt := []string{"", "", ""}
				if a == exact {
					if tt, ok := mapTies(r); ok {
						mt = []string{num(tt.trees), num(tt.lo), num(tt.hi)}
					}
				}
				rows = append(rows, append([]string{ds, id, a, strconv.Itoa(r.N), strconv.Itoa(r.LabelledLeaves),
					num(metricOrNaN(&r, metric.DendrogramPurity)), num(metricOrNaN(&r, metric.DendrogramPurityPair)), num(metricOrNaN(&r, metric.FlatPurity)), num(metricOrNaN(&r, metric.AdjustedPurity)),
					num(gap(recs, a))}, mt...))
			}
			row = append(row, cell)
		}
		if hasTies {
			trees, rng := "", ""
			if tt, ok := mapTies(recs[exact]); ok {
				trees = strconv.FormatFloat(tt.trees, 'f', -1, 64)
				if !math.IsNaN(tt.lo) {
					rng = fixed3(tt.lo) + "–" + fixed3(tt.hi)
				}
			}
			row = append(row, trees, rng)
		}
		dp.Rows = append(dp.Rows, row)
	}
	var out []section
	if len(gapAlgs) > 0 {
		out = append(out, section{title: ds + ": " + metric.Builtin(metric.ExactGap).Short + " per item (nats)", table: gaps})
	}
	return append(out, section{title: ds + ": dendrogram purity per item", table: dp}), rows
}

// tieRecord is what the trellis records on labelled data about the trees that reach the MAP:
// their number and the range of their pair-weighted dendrogram purity (NaN when undefined).
type tieRecord struct {
	trees, lo, hi float64
}

// mapTies reads the MAP ties of an exact record; ok is false when it has none.
func mapTies(r results.Record) (t tieRecord, ok bool) {
	t = tieRecord{trees: deref(r.MAPTrees), lo: deref(r.MAPPurityPairMin), hi: deref(r.MAPPurityPairMax)}
	return t, r.MAPTrees != nil
}

// mapTiesTable summarises the MAP ties over the items of a data set: how many trees reach the
// MAP, and the pair-weighted purity of the tie rule's tree beside the least and greatest over all
// of them. ok is false when no exact record holds ties.
func mapTiesTable(in Input, items map[string]map[string]results.Record) (table.Table, bool) {
	t := table.Table{
		Header:  []string{"algorithm", "items", "MAP trees, median", "MAP trees, range", "DP pair, tie rule's tree", "DP pair, least pure MAP tree", "DP pair, purest MAP tree"},
		Numeric: []bool{false, true, true, true, true, true, true},
	}
	for _, a := range in.Algorithms {
		var trees, rule, lo, hi []float64
		for _, id := range sortedItemIDs(items) {
			r, ok := items[id][a]
			if !ok || !r.HasRole(results.Exact) {
				continue
			}
			tt, ok := mapTies(r)
			if !ok {
				continue
			}
			trees = append(trees, tt.trees)
			if pair, ok := r.Metric(metric.DendrogramPurityPair); ok && !math.IsNaN(tt.lo) {
				rule, lo, hi = append(rule, pair), append(lo, tt.lo), append(hi, tt.hi)
			}
		}
		if len(trees) == 0 {
			continue
		}
		slices.Sort(trees)
		med := results.Median(trees)
		rm, rs := meanStd(rule)
		lm, ls := meanStd(lo)
		hm, hs := meanStd(hi)
		t.Rows = append(t.Rows, []string{a, strconv.Itoa(len(trees)), strconv.FormatFloat(med, 'f', -1, 64),
			strconv.FormatFloat(trees[0], 'f', -1, 64) + "–" + strconv.FormatFloat(trees[len(trees)-1], 'f', -1, 64),
			pm(rm, rs), pm(lm, ls), pm(hm, hs)})
	}
	return t, len(t.Rows) > 0
}

func deref(p *float64) float64 {
	if p == nil {
		return math.NaN()
	}
	return *p
}
