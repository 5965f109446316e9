package reports

import (
	"fmt"
	"maps"
	"math"
	"path/filepath"
	"slices"
	"strconv"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"

	"github.com/hcbench/hcbench/experiments/results"
	"github.com/hcbench/hcbench/reports/table"
)

func init() {
	Register(Report{
		Name:  "likelihood_gap",
		Help:  "per data set, for every two algorithms, the mean ± std of their log-likelihood difference on the same items, in the layout of ML4PS 2020 Table 1, overall (likelihood_gap.csv) and by N (likelihood_gap_by_n.csv); how often each reaches the exact MAP; a histogram of each difference (gap-<data set>-<row>-<column>)",
		Build: likelihoodGap,
		Plots: []string{"gap-"},
	})
}

// mapTolerance is how close a tree must come to the exact MAP to count as reaching it, relative
// to the MAP's magnitude: see reachesExactMAP.
const mapTolerance = 1e-6

// reachesExactMAP reports whether log-likelihood v reaches the exact MAP log-likelihood exact:
// v ≥ exact − 1e-6·max(1, |exact|). The tolerance is relative because the rounding error of a
// log-likelihood summed over a tree grows with its magnitude (models of thousands of points
// reach |MAP| of 10⁴ and more), and absolute (1e-6 nats) below |MAP| = 1; it is far above float
// noise either way, and far below any real difference between trees.
func reachesExactMAP(v, exact float64) bool {
	return v >= exact-mapTolerance*max(1, math.Abs(exact))
}

// byItem joins the successful records of each data set item that keep says to keep:
// dataset → item → label → record.
func byItem(in Input, keep func(*results.Record) bool) map[string]map[string]map[string]results.Record {
	out := map[string]map[string]map[string]results.Record{}
	for _, r := range in.Records {
		if r.Error != "" || !keep(&r) {
			continue
		}
		if out[r.Dataset] == nil {
			out[r.Dataset] = map[string]map[string]results.Record{}
		}
		if out[r.Dataset][r.Item] == nil {
			out[r.Dataset][r.Item] = map[string]results.Record{}
		}
		out[r.Dataset][r.Item][r.Algorithm] = r
	}
	return out
}

// scored keeps the records with a log-likelihood under the split model.
func scored(r *results.Record) bool { return r.LogLikelihood != nil }

// anyRecord keeps every record.
func anyRecord(*results.Record) bool { return true }

// gapPair is the row − column log-likelihood differences over the items where both are finite.
type gapPair struct {
	row, col string
	diffs    []float64
	ns       []int
}

// rankByMean orders the algorithms present by mean log-likelihood, best first, so that the
// differences in the table are mostly positive, as in ML4PS 2020 Table 1; ties keep config order.
// The means run over the items where every algorithm has a finite log-likelihood (or, if there
// are none, over each algorithm's finite items), so that one −Inf tree does not flatter anyone.
func rankByMean(in Input, items map[string]map[string]results.Record) []string {
	var algs []string
	present := map[string]bool{}
	for _, recs := range items {
		for a := range recs {
			present[a] = true
		}
	}
	for _, a := range in.Algorithms {
		if present[a] {
			algs = append(algs, a)
		}
	}
	sum, cnt := map[string]float64{}, map[string]int{}
	for _, common := range []bool{true, false} {
		// Items in id order, so that the sums (and near-ties of the means) are the same every run.
		for _, id := range sortedItemIDs(items) {
			recs := items[id]
			finite := true
			for _, a := range algs {
				r, ok := recs[a]
				finite = finite && ok && !math.IsInf(r.LogLikelihood.Value(), -1)
			}
			if common && !finite {
				continue
			}
			for _, a := range algs {
				r, ok := recs[a]
				if !ok {
					continue
				}
				if v := r.LogLikelihood.Value(); !math.IsInf(v, -1) {
					sum[a] += v
					cnt[a]++
				}
			}
		}
		if len(cnt) == len(algs) {
			break
		}
		clear(sum)
		clear(cnt)
	}
	algs = slices.DeleteFunc(algs, func(a string) bool { return cnt[a] == 0 })
	slices.SortStableFunc(algs, func(a, b string) int {
		ma, mb := sum[a]/float64(cnt[a]), sum[b]/float64(cnt[b])
		switch {
		case ma > mb:
			return -1
		case ma < mb:
			return 1
		}
		return 0
	})
	return algs
}

// gapPairs returns the differences of every ordered pair (row above column in algs).
func gapPairs(algs []string, items map[string]map[string]results.Record) []gapPair {
	var out []gapPair
	for i, a := range algs {
		for _, b := range algs[i+1:] {
			g := gapPair{row: a, col: b}
			for _, id := range sortedItemIDs(items) {
				ra, okA := items[id][a]
				rb, okB := items[id][b]
				if !okA || !okB {
					continue
				}
				va, vb := ra.LogLikelihood.Value(), rb.LogLikelihood.Value()
				if math.IsInf(va, -1) || math.IsInf(vb, -1) {
					continue
				}
				g.diffs = append(g.diffs, va-vb)
				g.ns = append(g.ns, ra.N)
			}
			out = append(out, g)
		}
	}
	return out
}

// sortedItemIDs returns the item ids of items in results.CompareItems order.
func sortedItemIDs(items map[string]map[string]results.Record) []string {
	ids := slices.Collect(maps.Keys(items))
	slices.SortFunc(ids, results.CompareItems)
	return ids
}

// likelihoodGap writes likelihood_gap.md: per data set, the mean ± std of the log-likelihood
// difference between every two algorithms on the same items, in the layout of ML4PS 2020 Table 1
// (row minus column); the same by number of leaves N; how often each algorithm reaches the exact
// MAP where a trellis ran; and a histogram of each difference (gap-<data set>-<row>-<column>.png
// and .svg). The CSVs are tidy, one kind of row each, every column of one type:
// likelihood_gap.csv has a row per data set and pair over all items, likelihood_gap_by_n.csv a
// row per data set, pair and N.
func likelihoodGap(in Input, dir string) ([]string, error) {
	joined := byItem(in, scored)
	var sections []section
	csvT := table.Table{Header: []string{"dataset", "row", "column", "items", "mean", "std"}}
	byN := table.Table{Header: []string{"dataset", "n", "row", "column", "items", "mean", "std"}}
	var files []string
	for _, ds := range in.Datasets {
		items := joined[ds]
		if len(items) == 0 {
			continue
		}
		algs := rankByMean(in, items)
		if len(algs) < 2 {
			continue
		}
		pairs := gapPairs(algs, items)
		// Table 1 layout: rows are all but the last algorithm, columns all but the first.
		md := table.Table{Header: append([]string{"row − column"}, algs[1:]...)}
		md.Numeric = make([]bool, len(md.Header))
		for i := 1; i < len(md.Numeric); i++ {
			md.Numeric[i] = true
		}
		for _, a := range algs[:len(algs)-1] {
			row := []string{a}
			for _, b := range algs[1:] {
				cell := "—"
				for _, g := range pairs {
					if g.row == a && g.col == b {
						m, s := meanStd(g.diffs)
						cell = pm(m, s)
					}
				}
				row = append(row, cell)
			}
			md.Rows = append(md.Rows, row)
		}
		sections = append(sections, section{title: ds + ": log-likelihood difference, mean ± std over items", table: md})
		for _, g := range pairs {
			m, s := meanStd(g.diffs)
			csvT.Rows = append(csvT.Rows, []string{ds, g.row, g.col, strconv.Itoa(len(g.diffs)), num(m), num(s)})
		}
		if byNSections := gapByN(ds, algs, pairs, items); len(byNSections) > 0 {
			sections = append(sections, byNSections...)
			for _, g := range pairs {
				for _, n := range distinctNs(g.ns) {
					d := diffsAt(g, n)
					m, s := meanStd(d)
					byN.Rows = append(byN.Rows, []string{ds, strconv.Itoa(n), g.row, g.col, strconv.Itoa(len(d)), num(m), num(s)})
				}
			}
		}
		if t, ok := reachesMAP(algs, items); ok {
			sections = append(sections, section{title: ds + ": items where the tree reaches the exact MAP", table: t})
		}
		for _, g := range pairs {
			fs, err := gapHistogram(dir, ds, g)
			files = append(files, fs...)
			if err != nil {
				return files, err
			}
		}
	}
	notes := []string{
		"Each cell is the mean ± sample std, over the items where both trees have a finite log-likelihood, of the row's log-likelihood minus the column's (natural logs, nats); algorithms are ordered by mean log-likelihood, best first. In the tables by N, items counts the items of that N. A difference is not a gap: the row of an exact trellis holds each column's gap to the exact MAP (exact_gap), and a column of truth holds minus the row's gap to the truth tree (truth_gap; see the summary).",
		"ML4PS 2020 Table 1 (Ginkgo510, 5000 jets of 5 to 10 leaves): Trellis − Beam Search 0.4 ± 0.5, Trellis − Greedy 1.5 ± 1.1, Beam Search − Greedy 1.1 ± 1.1.",
		fmt.Sprintf("A tree reaches the exact MAP when its log-likelihood is at least the trellis's minus %g·max(1, |MAP|).", mapTolerance),
	}
	tables, err := writeReport(dir, "likelihood_gap", "Likelihood gaps: "+in.Experiment, sections, notes,
		csvFile{"likelihood_gap.csv", csvT, "no data set has two algorithms with a finite log-likelihood on the same items"},
		csvFile{"likelihood_gap_by_n.csv", byN, "no data set has two algorithms with a finite log-likelihood on the same items of more than one N (where all items have one N, likelihood_gap.csv holds the numbers)"})
	return append(tables, files...), err
}

func distinctNs(ns []int) []int {
	out := slices.Clone(ns)
	slices.Sort(out)
	return slices.Compact(out)
}

func diffsAt(g gapPair, n int) []float64 {
	var d []float64
	for i, x := range g.diffs {
		if g.ns[i] == n {
			d = append(d, x)
		}
	}
	return d
}

// gapByN returns, when the items have more than one N, a table per algorithm but the last of
// algs: its difference to each algorithm below it, mean ± std by N, with the number of items of
// each N; nil when all items have one N. A table per row algorithm, as a row of ML4PS 2020
// Table 1 by N, keeps each as narrow as the algorithms, where one table of every pair grows a
// column per pair (10 for 5 algorithms) and overflows the page.
func gapByN(ds string, algs []string, pairs []gapPair, items map[string]map[string]results.Record) []section {
	perN := map[int]int{}
	var all []int
	for _, recs := range items {
		for _, r := range recs {
			perN[r.N]++
			all = append(all, r.N)
			break
		}
	}
	ns := distinctNs(all)
	if len(ns) < 2 {
		return nil
	}
	var out []section
	for _, a := range algs[:len(algs)-1] {
		t := table.Table{Header: []string{"N", "items"}}
		var mine []gapPair
		for _, g := range pairs {
			if g.row == a {
				mine = append(mine, g)
				t.Header = append(t.Header, "− "+g.col)
			}
		}
		t.Numeric = make([]bool, len(t.Header))
		for i := range t.Numeric {
			t.Numeric[i] = true
		}
		for _, n := range ns {
			row := []string{strconv.Itoa(n), strconv.Itoa(perN[n])}
			for _, g := range mine {
				m, s := meanStd(diffsAt(g, n))
				row = append(row, pm(m, s))
			}
			t.Rows = append(t.Rows, row)
		}
		out = append(out, section{title: fmt.Sprintf("%s: %s − column, by number of leaves N", ds, a), table: t})
	}
	return out
}

// reachesMAP counts, per algorithm, the items where its tree reaches (see reachesExactMAP) the
// exact MAP of an exact trellis run on the same item; false when no trellis ran in mode full or
// map.
func reachesMAP(algs []string, items map[string]map[string]results.Record) (table.Table, bool) {
	t := table.Table{Header: []string{"algorithm", "items", "reaches MAP", "share"}, Numeric: []bool{false, true, true, true}}
	any := false
	for _, a := range algs {
		total, hit := 0, 0
		for _, recs := range items {
			exact := math.NaN()
			for _, r := range recs {
				if r.HasRole(results.Exact) {
					exact = r.LogLikelihood.Value()
				}
			}
			r, ok := recs[a]
			if !ok || math.IsNaN(exact) {
				continue
			}
			total++
			if reachesExactMAP(r.LogLikelihood.Value(), exact) {
				hit++
			}
		}
		if total > 0 {
			any = true
			t.Rows = append(t.Rows, []string{a, strconv.Itoa(total), strconv.Itoa(hit), fmt.Sprintf("%.1f%%", 100*float64(hit)/float64(total))})
		}
	}
	return t, any
}

// The size of a histogram of likelihood_gap.
const gapPlotW, gapPlotH = 5 * vg.Inch, 3.5 * vg.Inch

// gapHistogram plots the distribution of one pair's differences.
func gapHistogram(dir, ds string, g gapPair) ([]string, error) {
	if len(g.diffs) == 0 {
		return nil, nil
	}
	p := plot.New()
	p.Title.Text = fmt.Sprintf("%s: %s − %s", ds, g.row, g.col)
	p.X.Label.Text = "log-likelihood difference (nats)"
	p.Y.Label.Text = "items"
	addHistogram(p, g.diffs)
	return savePlot(p, gapPlotW, gapPlotH, filepath.Join(dir, fmt.Sprintf("gap-%s-%s-%s", FileName(ds), g.row, g.col)))
}
