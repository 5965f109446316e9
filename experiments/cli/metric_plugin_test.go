package cli

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hcbench/hcbench/experiments/metric"
	"github.com/hcbench/hcbench/experiments/results"
	"github.com/hcbench/hcbench/experiments/results/resultstest"
)

// A test-only metric, registered from this file alone, as docs/extending.md shows: the Rand
// index of the tree cut at each reference labelling's number of clusters (the share of pairs of
// points that both partitions put together or both apart), computed by brute force over the
// pairs. TestPluginMetric checks that records, the schema, the summary report, compare and
// history take it with no other edit.
func init() {
	metric.Register(metric.Metric{
		Key: "pair_agreement", Name: "mean pair agreement", Short: "pair agreement", Better: metric.HigherIsBetter, Order: 75,
		Definition: "the Rand index of the tree cut at the reference's number of clusters: the share of pairs of points that both put together or both apart; the best over the reference labellings, noise left out.",
		Needs:      metric.NeedsReferences, Range: []float64{0, 1},
		Partition: func(pred, ref []int) float64 {
			agree, pairs := 0, 0
			for i := range pred {
				for j := i + 1; j < len(pred); j++ {
					if (pred[i] == pred[j]) == (ref[i] == ref[j]) {
						agree++
					}
					pairs++
				}
			}
			return float64(agree) / float64(pairs)
		},
		Threshold: 0.01, ThresholdHelp: "largest drop of the mean pair agreement",
		Track:     metric.Compare | metric.History | metric.Bench | metric.Page | metric.Summary,
		BenchUnit: "pair-agreement", BenchSign: 1,
	})
}

// TestPluginMetric: pair_agreement, registered above, is a column of every record of labelled
// data (valid under the record schema, which has its property), a column of the summary report
// and a line of bench-quality.txt, a key of the thresholds and a flag of compare, which finds its
// drop a regression, and a metric of history's database and page.
func TestPluginMetric(t *testing.T) {
	dir := t.TempDir()
	cfg := writeFile(t, dir, "m.yaml", `version: 1
name: m
seed: 5
thresholds: {pair_agreement: 0.02}
datasets:
  - {name: blobs, generator: mixture, items: 3, points: 12, components: 3, separation: 4}
algorithms: [bhc]
`)
	old, new := filepath.Join(dir, "old"), filepath.Join(dir, "new")
	runOK(t, "run", cfg, "-out", old)
	runOK(t, "run", cfg, "-out", new)

	// Records: the column, the value a share, every line valid under the schema.
	if !strings.Contains(metric.RecordJSONSchema(), `"pair_agreement"`) {
		t.Error("the record schema has no pair_agreement property")
	}
	resultstest.CheckRunDir(t, old)
	recs := readRecords(t, old)
	for k, r := range recs {
		if v, ok := r.Metric("pair_agreement"); !ok || v < 0 || v > 1 {
			t.Errorf("%s: pair_agreement %v (%v)", k, v, ok)
		}
	}
	if len(recs) != 3 {
		t.Fatalf("%d records, want 3", len(recs))
	}

	// Reports: the summary's column, bench-quality.txt's unit, the page's thresholds.
	for file, want := range map[string]string{
		"reports/summary.csv":    "pair_agreement_mean",
		"reports/summary.md":     "pair agreement",
		results.BenchQualityFile: "pair-agreement",
		"index.html":             "pair_agreement 0.02",
		results.ManifestFile:     `"pair_agreement": 0.02`,
	} {
		if b := mustRead(t, filepath.Join(old, file)); !strings.Contains(b, want) {
			t.Errorf("%s lacks %q", file, want)
		}
	}

	// compare: a drop of 0.05 on one item of three is a regression at the flag's 0.01, and not
	// at NEW's config's 0.02 with a flag of 0.5.
	path := filepath.Join(new, results.ResultsFile)
	all, err := results.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	all[0].Metrics["pair_agreement"] -= 0.05
	w, err := results.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	for i := range all {
		if err := w.Write(&all[i]); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	code, stdout, _ := run(t, context.Background(), "compare", "-pair-agreement", "0.01", old, new)
	if code != ExitFailure || !strings.Contains(stdout, "blobs/bhc: mean pair agreement fell by") || !strings.Contains(stdout, "pair-agreement drop 0.01") {
		t.Errorf("compare -pair-agreement 0.01: exit %d\n%s", code, stdout)
	}
	if code, stdout, _ := run(t, context.Background(), "compare", "-pair-agreement", "0.5", old, new); code != ExitOK {
		t.Errorf("compare -pair-agreement 0.5: exit %d\n%s", code, stdout)
	}

	// history: the metric's series in the database, its name and definition on the page.
	db, page := filepath.Join(dir, "h.db"), filepath.Join(dir, "h.html")
	runOK(t, "history", "-db", db, "-o", page, old, new)
	html := mustRead(t, page)
	for _, want := range []string{`data-metric="pair_agreement"`, "mean pair agreement", "the Rand index of the tree cut"} {
		if !strings.Contains(html, want) {
			t.Errorf("history page lacks %q", want)
		}
	}
}
