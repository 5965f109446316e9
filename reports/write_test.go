package reports

import (
	"context"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/hcbench/hcbench/experiments/metric"
	"github.com/hcbench/hcbench/experiments/results"
)

// orderInput is two data sets of seven items (ids 0..6, and a mix of integer and string ids),
// with a trellis (log Z), greedy and bhc (log evidence) on each: values of one decimal, whose
// float sums depend on the order they are added in ((0.1+0.2)+0.3 ≠ 0.1+(0.2+0.3)), so that
// every mean of every report shows in its last bits the order it was summed in.
func orderInput() Input {
	in := Input{Experiment: "order", Datasets: []string{"a", "b"}, Algorithms: []string{"trellis", "greedy", "bhc"}}
	for d, ds := range in.Datasets {
		for i := range 7 {
			id := strconv.Itoa(i)
			if d == 1 && i%2 == 1 {
				id = "x" + id
			}
			x := 0.1 * float64(i+1)
			for _, a := range in.Algorithms {
				r := results.Record{Schema: results.RecordSchema, Dataset: ds, Item: id, Algorithm: a, AlgorithmName: a, N: 5 + i%2, Seconds: x / 1000}
				switch a {
				case "trellis":
					r.LogLikelihood, r.LogZ, r.TruthLogLikelihood = results.Log(-10-x), results.Log(-7-x*x), results.Log(-11.3-x)
				case "greedy":
					r.LogLikelihood, r.TruthLogLikelihood = results.Log(-10.7-x*1.3), results.Log(-11.3-x)
				case "bhc":
					r.LogEvidence = results.Log(-100 - x*x*x)
					setMetrics(&r, metric.FlatPurity, 0.5+x/10, metric.AdjustedPurity, 0.4+x/10)
				}
				// Labelled leaves and purities for the purity report; the trellis also counts
				// its MAP trees.
				r.LeafLabels = []string{"A", "A", "B", "B", "", "A"}[:r.N]
				r.LabelledLeaves = 4 + i%2
				setMetrics(&r, metric.DendrogramPurity, 0.3+x/3, metric.DendrogramPurityPair, 0.2+x/7)
				if a == "trellis" {
					r.MAPTrees, r.MAPPurityPairMin, r.MAPPurityPairMax = ptr(float64(3+i)), ptr(0.1+x/9), ptr(0.6+x/11)
				}
				in.Records = append(in.Records, r)
			}
		}
	}
	return in
}

// TestReportsIgnoreRecordOrder writes every report of tables from the records in config order
// and in 5 shuffles (results.jsonl is in the order tasks finished): the tables must be the same
// to the byte.
func TestReportsIgnoreRecordOrder(t *testing.T) {
	names := []string{"summary", "runtime", "likelihood_gap", "z_vs_map", "evidence", "purity"}
	tables := func(in Input) map[string]string {
		dir := t.TempDir()
		files, err := Write(context.Background(), names, in, dir)
		if err != nil {
			t.Fatal(err)
		}
		out := map[string]string{}
		for _, f := range files {
			if strings.HasSuffix(f, ".md") || strings.HasSuffix(f, ".csv") {
				b, err := os.ReadFile(f)
				if err != nil {
					t.Fatal(err)
				}
				out[filepath.Base(f)] = string(b)
			}
		}
		return out
	}
	in := orderInput()
	want := tables(in)
	// Six Markdown files and eight CSVs: evidence_differences.csv has no rows (one Bayesian
	// algorithm) and is not written.
	if len(want) != 14 {
		t.Fatalf("wrote %d tables, want 14", len(want))
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for k := range 5 {
		shuffled := in
		shuffled.Records = slices.Clone(in.Records)
		rng.Shuffle(len(shuffled.Records), func(i, j int) {
			shuffled.Records[i], shuffled.Records[j] = shuffled.Records[j], shuffled.Records[i]
		})
		for name, got := range tables(shuffled) {
			if got != want[name] {
				t.Errorf("shuffle %d: %s differs:\n%s\nin config order:\n%s", k, name, got, want[name])
			}
		}
	}
}

func TestCompareItemIDs(t *testing.T) {
	// Integers first by value (then spelling), then the rest as strings: a total order, so every
	// starting order sorts the same.
	want := []string{"-3", "2", "07", "7", "10", "1x", "a", "b10", "b9"}
	rng := rand.New(rand.NewPCG(3, 4))
	for range 50 {
		ids := slices.Clone(want)
		rng.Shuffle(len(ids), func(i, j int) { ids[i], ids[j] = ids[j], ids[i] })
		slices.SortFunc(ids, results.CompareItems)
		if !slices.Equal(ids, want) {
			t.Fatalf("sorted %v, want %v", ids, want)
		}
	}
}

// TestReportPanicIsAnError makes a report panic: Write must return the panic as an error naming
// the report, and still write the reports after it.
func TestReportPanicIsAnError(t *testing.T) {
	Register(Report{Name: "broken", Build: func(Input, string) ([]string, error) { panic("boom") }})
	t.Cleanup(func() { unregister("broken") })
	dir := t.TempDir()
	files, err := Write(context.Background(), []string{"broken", "summary"}, summaryInput(), dir)
	if err == nil || !strings.Contains(err.Error(), "report broken: internal error (please report): panic: boom") {
		t.Errorf("error %v, want the panic of report broken", err)
	}
	if len(files) != 2 || filepath.Base(files[0]) != "summary.md" {
		t.Errorf("wrote %v, want summary.md and summary.csv", files)
	}
}

func TestReachesExactMAP(t *testing.T) {
	// The rule: v ≥ MAP − 1e-6·max(1, |MAP|). Each case sits 10% inside or outside the tolerance,
	// far from rounding (the tolerances are 1e-6, 1e-6 and 1e-2).
	for _, c := range []struct {
		v, exact float64
		want     bool
	}{
		{-0.5 - 0.9e-6, -0.5, true},
		{-0.5 - 1.1e-6, -0.5, false},
		{-1 - 0.9e-6, -1, true},
		{-1 - 1.1e-6, -1, false},
		{-1e4 - 0.9e-2, -1e4, true},
		{-1e4 - 1.1e-2, -1e4, false},
		{-29.25, -29.25, true},
		{-29, -29.25, true}, // above the MAP: rounding, never a real tree
		{math.Inf(-1), -29.25, false},
	} {
		if got := reachesExactMAP(c.v, c.exact); got != c.want {
			t.Errorf("reachesExactMAP(%v, %v) = %v, want %v", c.v, c.exact, got, c.want)
		}
	}
}

// ptr returns a pointer to v, for the optional fields of a record.
func ptr(v float64) *float64 { return &v }
