package reports

import (
	"math"
	"strconv"

	"hcbench/reports/table"
)

// summary writes summary.md and summary.csv: per data set and algorithm, the number of items,
// failures and −Inf trees, the mean ± std log-likelihood over finite values, log Z where an
// algorithm computes it (the trellis), the log evidence where an algorithm has one (the Bayesian
// family), the mean ± std gap to the truth tree's log-likelihood
// (positive: better than truth), and the mean task time.
func summary(in Input, dir string) ([]string, error) {
	csvT := table.Table{Header: []string{"dataset", "algorithm", "items", "failed", "neg_inf",
		"loglik_mean", "loglik_std", "logz_mean", "logz_std", "log_evidence_mean", "log_evidence_std", "gap_to_truth_mean", "gap_to_truth_std", "gap_to_truth_items", "seconds_mean"}}
	var sections []section
	for _, ds := range in.Datasets {
		md := table.Table{
			Header:  []string{"algorithm", "items", "failed", "−inf", "log-likelihood", "log Z", "log evidence", "gap to truth", "seconds"},
			Numeric: []bool{false, true, true, true, true, true, true, true, true},
		}
		hasLogZ, hasEvidence := false, false
		for _, alg := range in.Algorithms {
			rs := in.group(ds, alg)
			if len(rs) == 0 {
				continue
			}
			var ll, lz, ev, gap, secs []float64
			items, failed, negInf := 0, 0, 0
			for _, r := range rs {
				secs = append(secs, r.Seconds)
				if r.Error != "" {
					failed++
					continue
				}
				items++
				if r.LogZ != nil {
					lz = append(lz, r.LogZ.Value())
				}
				if r.LogEvidence != nil {
					ev = append(ev, r.LogEvidence.Value())
				}
				if r.LogLikelihood == nil {
					continue // not scored: no split model, or a rose tree
				}
				v := r.LogLikelihood.Value()
				if math.IsInf(v, -1) {
					negInf++
					continue
				}
				ll = append(ll, v)
				if r.TruthLogLikelihood != nil {
					if t := r.TruthLogLikelihood.Value(); !math.IsInf(t, -1) {
						gap = append(gap, v-t)
					}
				}
			}
			llMean, llStd := meanStd(ll)
			zMean, zStd := meanStd(lz)
			hasLogZ = hasLogZ || len(lz) > 0
			evMean, evStd := meanStd(ev)
			hasEvidence = hasEvidence || len(ev) > 0
			gMean, gStd := meanStd(gap)
			sMean, _ := meanStd(secs)
			gapText := pm(gMean, gStd)
			if len(gap) > 0 && len(gap) < len(ll) {
				gapText += " (" + strconv.Itoa(len(gap)) + " items)"
			}
			md.Rows = append(md.Rows, []string{alg, strconv.Itoa(items), strconv.Itoa(failed), strconv.Itoa(negInf),
				pm(llMean, llStd), pm(zMean, zStd), pm(evMean, evStd), gapText, seconds(sMean)})
			csvT.Rows = append(csvT.Rows, []string{ds, alg, strconv.Itoa(items), strconv.Itoa(failed), strconv.Itoa(negInf),
				num(llMean), num(llStd), num(zMean), num(zStd), num(evMean), num(evStd), num(gMean), num(gStd), strconv.Itoa(len(gap)), num(sMean)})
		}
		if !hasEvidence {
			md = md.WithoutColumn(6)
		}
		if !hasLogZ {
			md = md.WithoutColumn(5)
		}
		if len(md.Rows) > 0 {
			sections = append(sections, section{title: ds, table: md})
		}
	}
	notes := []string{
		"Log-likelihoods are natural logs under each data set's split model; mean ± sample std over items with a finite value. Trees a split model cannot score (rose trees, data sets with split_model: none) have none.",
		"Log evidence is log p(D|T) of a Bayesian algorithm's tree under its cluster model (see the evidence report).",
		"log Z is the log of the sum of φ over all trees (exact trellis), the MAP is its best tree; log Z ≥ MAP log-likelihood.",
		"−inf counts trees the model forbids; failed counts tasks that ended in an error (see the error field of results.jsonl).",
		"Gap to truth is the tree's log-likelihood minus the generating tree's, so positive means more likely than the truth.",
	}
	return writeReport(dir, "summary", "Summary: "+in.Experiment, sections, notes, csvFile{"summary.csv", csvT})
}
