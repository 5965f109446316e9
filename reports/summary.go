package reports

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/hcbench/hcbench/experiments/metric"
	"github.com/hcbench/hcbench/experiments/results"
	"github.com/hcbench/hcbench/reports/table"
)

func init() {
	Register(Report{
		Name:  "summary",
		Help:  "per data set and algorithm: items, failures, mean ± std log-likelihood, log Z and log evidence where computed (means over finite values; −inf ones counted), mean gap to the truth tree (truth − tree, nats), and the computed metrics of the metric table that the summary tracks (Markdown and CSV)",
		Build: summary,
	})
}

// summary writes summary.md and summary.csv: per data set and algorithm, the number of items,
// failures and −Inf trees, the mean ± std log-likelihood over finite values, log Z where an
// algorithm computes it (the trellis), the log evidence where an algorithm has one (the Bayesian
// family), both over finite values with the −Inf ones counted, the mean ± std gap to the truth
// tree (metric.TruthGap: the truth's log-likelihood minus the tree's, as history shows it), and
// the mean task time, then the mean ± std of each computed metric of the table tracked by
// metric.Summary that some record of the run has. The Markdown leaves out the columns, and the
// notes, that no algorithm of a data set fills.
func summary(in Input, dir string) ([]string, error) {
	truthGap := metric.Builtin(metric.TruthGap)
	gapKey := truthGap.Key
	csvT := table.Table{Header: []string{"dataset", "algorithm", "items", "failed", "neg_inf",
		"loglik_mean", "loglik_std", "logz_mean", "logz_std", "logz_neg_inf", "log_evidence_mean", "log_evidence_std", "log_evidence_neg_inf",
		gapKey + "_mean", gapKey + "_std", gapKey + "_items", "seconds_mean"}}
	header := []string{"algorithm", "items", "failed", "−inf", "log-likelihood", "log Z", "log evidence", truthGap.Short, "seconds"}
	// The computed metrics of the table that the summary tracks and some record of the run has,
	// each a column after the fixed ones.
	var extra []*metric.Metric
	for _, m := range metric.Tracked(metric.Summary) {
		if m.Computed() && slices.ContainsFunc(in.Records, func(r results.Record) bool { _, ok := r.Metric(m.Key); return ok }) {
			extra = append(extra, m)
			header = append(header, m.Short)
			csvT.Header = append(csvT.Header, m.Key+"_mean", m.Key+"_std", m.Key+"_items")
		}
	}
	shown := map[string]bool{}
	var sections []section
	for _, ds := range in.Datasets {
		md := table.Table{Header: header, Numeric: append([]bool{false}, slices.Repeat([]bool{true}, len(header)-1)...)}
		for _, alg := range in.Algorithms {
			rs := in.group(ds, alg)
			if len(rs) == 0 {
				continue
			}
			var ll, gap, secs []float64
			values := make([][]float64, len(extra))
			var lz, ev finiteLogs
			items, failed, negInf := 0, 0, 0
			for _, r := range rs {
				secs = append(secs, r.Seconds)
				if r.Error != "" {
					failed++
					continue
				}
				items++
				lz.add(r.LogZ)
				ev.add(r.LogEvidence)
				if g, ok := truthGap.Of(&r, nil); ok {
					gap = append(gap, g)
				}
				for i, m := range extra {
					if v, ok := m.Of(&r, nil); ok {
						values[i] = append(values[i], v)
					}
				}
				if r.LogLikelihood == nil {
					continue // not scored: no split model, or a rose tree
				}
				if v := r.LogLikelihood.Value(); math.IsInf(v, -1) {
					negInf++
				} else {
					ll = append(ll, v)
				}
			}
			llMean, llStd := meanStd(ll)
			zMean, zStd := meanStd(lz.finite)
			evMean, evStd := meanStd(ev.finite)
			gMean, gStd := meanStd(gap)
			sMean, _ := meanStd(secs)
			gapText := pm(gMean, gStd)
			if len(gap) > 0 && len(gap) < len(ll) {
				gapText += " (" + strconv.Itoa(len(gap)) + " items)"
			}
			mdRow := []string{alg, strconv.Itoa(items), strconv.Itoa(failed), strconv.Itoa(negInf),
				pm(llMean, llStd), lz.text(meanStd), ev.text(meanStd), gapText, seconds(sMean)}
			csvRow := []string{ds, alg, strconv.Itoa(items), strconv.Itoa(failed), strconv.Itoa(negInf),
				num(llMean), num(llStd), num(zMean), num(zStd), strconv.Itoa(lz.negInf), num(evMean), num(evStd), strconv.Itoa(ev.negInf),
				num(gMean), num(gStd), strconv.Itoa(len(gap)), num(sMean)}
			for i := range extra {
				mean, std := meanStd(values[i])
				mdRow = append(mdRow, pm(mean, std))
				csvRow = append(csvRow, num(mean), num(std), strconv.Itoa(len(values[i])))
			}
			md.Rows = append(md.Rows, mdRow)
			csvT.Rows = append(csvT.Rows, csvRow)
		}
		if len(md.Rows) == 0 {
			continue
		}
		md = md.WithoutEmptyColumns()
		for _, h := range md.Header {
			shown[h] = true
		}
		sections = append(sections, section{title: ds, table: md})
	}
	var notes []string
	if shown["log-likelihood"] {
		notes = append(notes, "Log-likelihoods are natural logs under each data set's split model; mean ± sample std over items with a finite value. Trees a split model cannot score (rose trees, data sets with split_model: none) have none.")
	}
	if shown["log Z"] {
		notes = append(notes, "log Z is the log of the sum of φ over all trees (exact trellis), the MAP is its best tree; log Z ≥ MAP log-likelihood. Mean ± std over the items with a finite log Z; (k −inf) counts items where no tree has a finite likelihood.")
	}
	if shown["log evidence"] {
		notes = append(notes, "Log evidence is log p(D|T) of a Bayesian algorithm's tree under its cluster model (see the evidence report); mean ± std over the items with a finite value, (k −inf) counts the others.")
	}
	notes = append(notes, "−inf counts trees the model forbids; failed counts tasks that ended in an error (see the error field of results.jsonl). Seconds is the mean task time.")
	if shown[truthGap.Short] {
		notes = append(notes, fmt.Sprintf("The %s (%s in summary.csv and in hcbench history) is %s Mean ± sample std; (k items) where fewer items have it than a log-likelihood.",
			truthGap.Short, gapKey, truthGap.Definition))
	}
	for _, m := range extra {
		if shown[m.Short] {
			notes = append(notes, fmt.Sprintf("%s (%s in summary.csv): %s Mean ± sample std over the items that have it; %s.", m.Short, m.Key, m.Definition, m.Better.Words()))
		}
	}
	return writeReport(dir, "summary", "Summary: "+in.Experiment, sections, notes, csvFile{"summary.csv", csvT, "the run has no records"})
}

// finiteLogs collects the values of an optional log quantity (log Z, log evidence): the finite
// ones, and a count of the −Inf ones, which a mean would swallow.
type finiteLogs struct {
	finite []float64
	negInf int
}

// add records l; nil (the algorithm does not compute the quantity) is not counted.
func (f *finiteLogs) add(l *results.LogProb) {
	switch {
	case l == nil:
	case math.IsInf(l.Value(), -1):
		f.negInf++
	default:
		f.finite = append(f.finite, l.Value())
	}
}

// any reports whether a value was recorded.
func (f *finiteLogs) any() bool { return len(f.finite) > 0 || f.negInf > 0 }

// text is the table cell: the finite values' mean ± spread (stat is meanStd or meanSE), and how
// many were −Inf.
func (f *finiteLogs) text(stat func([]float64) (float64, float64)) string {
	s := pm(stat(f.finite))
	if f.negInf > 0 {
		s = strings.TrimSpace(s + " (" + strconv.Itoa(f.negInf) + " −inf)")
	}
	return s
}
