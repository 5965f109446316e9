package rundir

import (
	"context"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hcbench/hcbench/experiments/results"
)

// TestFinishReadsReportOptions: the reports of a run (and of `hcbench report`, which rebuilds
// them) take their options from the run's resolved config.yaml: a BHC tree with its merges drawn
// at the log-odds of r_k when the config says height: log_odds, by merges without it; an option
// config.yaml no longer accepts is an error that names the file and line, and the reports are
// still written, with the defaults.
func TestFinishReadsReportOptions(t *testing.T) {
	rec := results.Record{Schema: results.RecordSchema, Experiment: "e", Dataset: "d", Item: "0", Algorithm: "bhc", AlgorithmName: "bhc",
		N: 3, Newick: "((a,b),c);", LeafNames: []string{"a", "b", "c"}, LeafLabels: []string{"x", "x", "y"}, LogEvidence: results.Log(-9),
		Merges: []results.Merge{{Node: 3, Children: [2]int{0, 1}, Size: 2, LogR: results.LogProb(math.Log(0.9))}, {Node: 4, Children: [2]int{3, 2}, Size: 3, LogR: results.LogProb(math.Log(0.2))}}}
	for _, c := range []struct {
		config, axis, err string
	}{
		{"reports: [{name: dendrograms, height: log_odds}]\n", "log-odds against the merge", ""},
		{"", "height (merges below)", ""},
		{"version: 1\nreports:\n  - {name: dendrograms, height: tall}\n", "height (merges below)", `config.yaml:3: reports[0].height: want one of merges, log_odds, r; got "tall"`},
	} {
		dir := t.TempDir()
		if c.config != "" {
			if err := os.WriteFile(filepath.Join(dir, results.ConfigFile), []byte(c.config), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		m := results.NewManifest()
		m.Experiment, m.Datasets, m.Algorithms, m.Reports = "e", []string{"d"}, []string{"bhc"}, []string{"dendrograms"}
		_, err := finish(context.Background(), dir, &m, []results.Record{rec}, m.Reports)
		if (err == nil) != (c.err == "") || err != nil && !strings.Contains(err.Error(), c.err) {
			t.Errorf("config %q: error %v, want %q", c.config, err, c.err)
		}
		svg, rerr := os.ReadFile(filepath.Join(dir, results.ReportsDir, "dendrograms-d.svg"))
		if rerr != nil || !strings.Contains(string(svg), c.axis) {
			t.Errorf("config %q: the tree's axis is not %q (%v)", c.config, c.axis, rerr)
		}
	}
}
