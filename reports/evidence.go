package reports

import (
	"fmt"
	"math"
	"strconv"

	"github.com/hcbench/hcbench/experiments/results"
	"github.com/hcbench/hcbench/reports/table"
)

func init() {
	Register(Report{
		Name:  "evidence",
		Help:  "for the Bayesian algorithms: mean ± standard error of log p(D|T) per data set and algorithm, as the BRT slides' table (BHC with the DP prior, BHC with a fixed π, BRT), the Corollary-1 lower bound, and for every two algorithms the mean ± std of their difference on the same items and how often the first is within 1e-9 of the second",
		Build: evidence,
	})
}

// evidenceTie is how close two log evidences must be to count as the same tree's: far above
// float noise (the reference implementations agree to 1e-11), far below any real difference.
const evidenceTie = 1e-9

// hasEvidence keeps the records of the Bayesian algorithms.
func hasEvidence(r *results.Record) bool { return r.LogEvidence != nil }

// meanSE returns the mean and its standard error (std/√n); the error is NaN for fewer than two
// values.
func meanSE(xs []float64) (float64, float64) {
	m, s := meanStd(xs)
	return m, s / math.Sqrt(float64(len(xs)))
}

// evidence writes evidence.md and evidence.csv: the log evidence log p(D|T) of every Bayesian
// algorithm, mean ± standard error over items, first as one table of data sets against
// algorithms (the layout of the BRT slides' "BHC (DP) / BHC (fixed) / BRT" table), then per data
// set with the Corollary-1 lower bound and the number of flat clusters, and the difference of
// every two algorithms on the same items with how often they agree to 1e-9 (for bhc_exact
// against greedy fixed-π BHC: how often greedy search finds the best tree).
func evidence(in Input, dir string) ([]string, error) {
	joined := byItem(in, hasEvidence)
	var algs []string
	for _, a := range in.Algorithms {
		for _, items := range joined {
			if present(items, a) {
				algs = append(algs, a)
				break
			}
		}
	}
	overview := table.Table{Header: append([]string{"data set"}, algs...)}
	overview.Numeric = make([]bool, len(overview.Header))
	for i := 1; i < len(overview.Numeric); i++ {
		overview.Numeric[i] = true
	}
	csvT := table.Table{Header: []string{"dataset", "algorithm", "items", "neg_inf", "log_evidence_mean", "log_evidence_se",
		"lower_bound_mean", "lower_bound_se", "clusters_mean"}}
	gapCSV := table.Table{Header: []string{"dataset", "algorithm", "minus", "items", "diff_mean", "diff_std", "equal", "above", "below"}}
	var sections []section
	for _, ds := range in.Datasets {
		items := joined[ds]
		if len(items) == 0 {
			continue
		}
		row := []string{ds}
		per := table.Table{
			Header:  []string{"algorithm", "items", "log evidence", "lower bound", "flat clusters"},
			Numeric: []bool{false, true, true, true, true},
		}
		var here []string
		for _, a := range algs {
			var ev, lb finiteLogs
			var nc []float64
			for _, id := range sortedItemIDs(items) {
				r, ok := items[id][a]
				if !ok {
					continue
				}
				ev.add(r.LogEvidence)
				lb.add(r.LowerBound)
				if r.Clusters != nil {
					nc = append(nc, float64(len(r.Clusters)))
				}
			}
			row = append(row, ev.text(meanSE))
			if !ev.any() {
				continue
			}
			here = append(here, a)
			em, es := meanSE(ev.finite)
			lm, ls := meanSE(lb.finite)
			cm, _ := meanStd(nc)
			clusters := ""
			if !math.IsNaN(cm) {
				clusters = strconv.FormatFloat(cm, 'f', 1, 64)
			}
			n := len(ev.finite) + ev.negInf
			per.Rows = append(per.Rows, []string{a, strconv.Itoa(n), ev.text(meanSE), lb.text(meanSE), clusters})
			csvT.Rows = append(csvT.Rows, []string{ds, a, strconv.Itoa(n), strconv.Itoa(ev.negInf), num(em), num(es), num(lm), num(ls), num(cm)})
		}
		overview.Rows = append(overview.Rows, row)
		sections = append(sections, section{title: ds + ": log evidence, mean ± s.e. over items", table: per})
		if len(here) < 2 {
			continue
		}
		gaps := table.Table{
			Header:  []string{"x", "y", "items", "x − y", "equal", "x above", "x below"},
			Numeric: []bool{false, false, true, true, true, true, true},
		}
		for i, a := range here {
			for _, b := range here[i+1:] {
				var d []float64
				eq, above, below := 0, 0, 0
				for _, id := range sortedItemIDs(items) {
					ra, okA := items[id][a]
					rb, okB := items[id][b]
					if !okA || !okB {
						continue
					}
					va, vb := ra.LogEvidence.Value(), rb.LogEvidence.Value()
					if math.IsInf(va, -1) || math.IsInf(vb, -1) {
						continue // −Inf − −Inf has no value
					}
					x := va - vb
					d = append(d, x)
					switch {
					case math.Abs(x) <= evidenceTie:
						eq++
					case x > 0:
						above++
					default:
						below++
					}
				}
				if len(d) == 0 {
					continue
				}
				m, s := meanStd(d)
				share := func(k int) string { return fmt.Sprintf("%d of %d", k, len(d)) }
				gaps.Rows = append(gaps.Rows, []string{a, b, strconv.Itoa(len(d)), pm(m, s), share(eq), share(above), share(below)})
				gapCSV.Rows = append(gapCSV.Rows, []string{ds, a, b, strconv.Itoa(len(d)), num(m), num(s), strconv.Itoa(eq), strconv.Itoa(above), strconv.Itoa(below)})
			}
		}
		sections = append(sections, section{title: ds + ": differences on the same items, mean ± std", table: gaps})
	}
	if len(overview.Rows) > 0 {
		sections = append([]section{{title: "log p(D|T), mean ± s.e. over items", table: overview}}, sections...)
	}
	notes := []string{
		"Log evidence is log p(D|T), the marginal likelihood of the data under the returned tree and the algorithm's cluster model (natural log); higher is better for the same model and hyperparameters. Means run over the finite values; (k −inf) counts the others, and the differences leave out the items where either is −inf.",
		"The lower bound is the BHC paper's Corollary 1, log d_root + lgamma(α) − lgamma(n+α) + log p(D|T), a lower bound on the Dirichlet-process mixture's marginal likelihood (BHC with the DP prior only).",
		"Flat clusters counts the clusters of the cut at r < 0.5 (BHC: params.cut; BRT: top-down at r_T = π_T f(D_T)/p(D_T|T) < 0.5, ours).",
		fmt.Sprintf("Equal counts items where |x − y| ≤ %g; bhc_exact − bhc (prior fixed, same π) is never negative, and equal means greedy search found the best tree.", evidenceTie),
	}
	return writeReport(dir, "evidence", "Log evidence: "+in.Experiment, sections, notes,
		csvFile{"evidence.csv", csvT, "no record has a log evidence (no Bayesian algorithm ran)"},
		csvFile{"evidence_differences.csv", gapCSV, "no data set has two algorithms with a finite log evidence on the same items"})
}

// present reports whether algorithm a has a record for any of the items.
func present(items map[string]map[string]results.Record, a string) bool {
	for _, recs := range items {
		if _, ok := recs[a]; ok {
			return true
		}
	}
	return false
}
