package reports

import (
	"flag"
	"math"
	"os"
	"path/filepath"
	"testing"

	"hcbench/experiments/results"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

// golden compares the file at path with testdata/<name>; with -update it rewrites the golden
// file instead. On a mismatch it leaves the new output beside it as <name>.got.
func golden(t *testing.T, path, name string) {
	t.Helper()
	got, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	want := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(want, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	w, err := os.ReadFile(want)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if string(w) != string(got) {
		_ = os.WriteFile(want+".got", got, 0o644)
		t.Errorf("%s differs from %s (new output in %s.got; go test -update accepts it):\n%s", path, want, want, got)
	}
}

func rec(ds, alg string, ll, truth float64, errMsg string, secs float64) results.Record {
	r := results.Record{Schema: results.RecordSchema, Dataset: ds, Algorithm: alg, Seconds: secs, Error: errMsg}
	if errMsg == "" {
		r.LogLikelihood = results.Log(ll)
	}
	if !math.IsNaN(truth) {
		r.TruthLogLikelihood = results.Log(truth)
	}
	return r
}

// summaryInput covers the cases the table must handle: several items, a failure, a −Inf tree,
// an item with a −Inf truth, a single item (no std) and a data set without truth.
func summaryInput() Input {
	inf, none := math.Inf(-1), math.NaN()
	return Input{
		Experiment: "golden",
		Datasets:   []string{"jets", "file"},
		Algorithms: []string{"truth", "greedy", "other"},
		Records: []results.Record{
			rec("jets", "truth", -10, -10, "", 1e-6),
			rec("jets", "truth", -12, -12, "", 2e-6),
			rec("jets", "truth", inf, inf, "", 1e-6),
			rec("jets", "greedy", -9, -10, "", 0.25),
			rec("jets", "greedy", -11.5, -12, "", 0.5),
			rec("jets", "greedy", -20, inf, "", 0.75),
			rec("jets", "greedy", 0, -1, "boom", 1.5),
			rec("file", "greedy", -3.25, none, "", 2),
			rec("file", "other", inf, none, "", 0.001),
		},
	}
}

func TestSummaryGolden(t *testing.T) {
	dir := t.TempDir()
	files, err := Write([]string{"summary"}, summaryInput(), dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(files) != 2 {
		t.Fatalf("wrote %v, want summary.md and summary.csv", files)
	}
	golden(t, filepath.Join(dir, "summary.md"), "summary.md")
	golden(t, filepath.Join(dir, "summary.csv"), "summary.csv")
}

func TestUnknownReport(t *testing.T) {
	if _, err := Write([]string{"nope"}, summaryInput(), t.TempDir()); err == nil {
		t.Error("unknown report accepted")
	}
}
