package rundir

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hcbench/hcbench/experiments/results"
)

// TestFinishWritesBenchAndPageWhenAReportFails: a failing report (here an unknown name, which
// reports.Write reports after writing the others) must not cost the run its bench.txt and
// index.html, and its error must still come back.
func TestFinishWritesBenchAndPageWhenAReportFails(t *testing.T) {
	dir := t.TempDir()
	m := results.NewManifest()
	m.Experiment, m.Datasets, m.Algorithms, m.Reports = "e", []string{"d"}, []string{"greedy"}, []string{"summary", "no_such_report"}
	if err := m.WriteFile(filepath.Join(dir, results.ManifestFile)); err != nil {
		t.Fatal(err)
	}
	recs := []results.Record{{Schema: results.RecordSchema, Experiment: "e", Dataset: "d", Item: "0", Algorithm: "greedy", AlgorithmName: "greedy", N: 3, LogLikelihood: results.Log(-3.5), Newick: "((0,1),2);"}}
	_, err := finish(context.Background(), dir, &m, recs, m.Reports)
	if err == nil || !strings.Contains(err.Error(), "no_such_report") {
		t.Errorf("error %v, want one naming no_such_report", err)
	}
	if m.Status != results.StatusIncomplete || len(m.Warnings) != 1 || !strings.Contains(m.Warnings[0], "hcbench report") {
		t.Errorf("a run whose reports failed: status %q, warnings %q; want incomplete, saying how to rebuild them", m.Status, m.Warnings)
	}
	for _, f := range []string{results.BenchFile, "index.html", filepath.Join(results.ReportsDir, "summary.md")} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Errorf("%s not written: %v", f, err)
		}
	}
}
