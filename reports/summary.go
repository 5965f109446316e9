package reports

import (
	"math"
	"os"
	"path/filepath"
	"strconv"

	"hcbench/reports/table"
)

// summary writes summary.md and summary.csv: per data set and algorithm, the number of items,
// failures and −Inf trees, the mean ± std log-likelihood over finite values, the mean ± std gap to
// the truth tree's log-likelihood (positive: better than truth), and the mean task time.
func summary(in Input, dir string) ([]string, error) {
	header := []string{"algorithm", "items", "failed", "−inf", "log-likelihood", "gap to truth", "seconds"}
	numeric := []bool{false, true, true, true, true, true, true}
	csvT := table.Table{Header: []string{"dataset", "algorithm", "items", "failed", "neg_inf",
		"loglik_mean", "loglik_std", "gap_to_truth_mean", "gap_to_truth_std", "gap_to_truth_items", "seconds_mean"}}
	var sections []section
	for _, ds := range in.Datasets {
		md := table.Table{Header: header, Numeric: numeric}
		for _, alg := range in.Algorithms {
			rs := in.group(ds, alg)
			if len(rs) == 0 {
				continue
			}
			var ll, gap, secs []float64
			items, failed, negInf := 0, 0, 0
			for _, r := range rs {
				secs = append(secs, r.Seconds)
				if r.Error != "" {
					failed++
					continue
				}
				items++
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
			gMean, gStd := meanStd(gap)
			sMean, _ := meanStd(secs)
			gapText := pm(gMean, gStd)
			if len(gap) > 0 && len(gap) < len(ll) {
				gapText += " (" + strconv.Itoa(len(gap)) + " items)"
			}
			md.Rows = append(md.Rows, []string{alg, strconv.Itoa(items), strconv.Itoa(failed), strconv.Itoa(negInf),
				pm(llMean, llStd), gapText, seconds(sMean)})
			csvT.Rows = append(csvT.Rows, []string{ds, alg, strconv.Itoa(items), strconv.Itoa(failed), strconv.Itoa(negInf),
				num(llMean), num(llStd), num(gMean), num(gStd), strconv.Itoa(len(gap)), num(sMean)})
		}
		if len(md.Rows) > 0 {
			sections = append(sections, section{title: ds, table: md})
		}
	}
	notes := []string{
		"Log-likelihoods are natural logs under each data set's model; mean ± sample std over items with a finite value.",
		"−inf counts trees the model forbids; failed counts tasks that ended in an error (see the error field of results.jsonl).",
		"Gap to truth is the tree's log-likelihood minus the generating tree's, so positive means more likely than the truth.",
	}
	files, err := writeMarkdown(dir, "summary", "Summary: "+in.Experiment, sections, notes)
	if err != nil {
		return files, err
	}
	csvPath := filepath.Join(dir, "summary.csv")
	f, err := os.Create(csvPath)
	if err != nil {
		return files, err
	}
	if err := table.WriteCSV(f, csvT); err != nil {
		f.Close()
		return files, err
	}
	return append(files, csvPath), f.Close()
}
