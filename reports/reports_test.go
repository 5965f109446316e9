package reports

import (
	"context"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/hcbench/hcbench/algorithms/tree"
	"github.com/hcbench/hcbench/experiments/metric"
	"github.com/hcbench/hcbench/experiments/results"
	"github.com/hcbench/hcbench/reports/golden"
)

func rec(ds, alg string, ll, truth float64, errMsg string, secs float64) results.Record {
	r := results.Record{Schema: results.RecordSchema, Dataset: ds, Algorithm: alg, AlgorithmName: alg, Seconds: secs, Error: errMsg}
	if errMsg == "" {
		r.LogLikelihood = results.Log(ll)
	}
	if !math.IsNaN(truth) {
		r.TruthLogLikelihood = results.Log(truth)
	}
	return r
}

func withLogZ(r results.Record, lz float64) results.Record {
	r.LogZ = results.Log(lz)
	return r
}

// summaryInput covers the cases the table must handle: several items, a failure, a −Inf tree,
// an item with a −Inf truth, a single item (no std), a data set without truth (whose gap column
// is left out), and an algorithm that reports log Z (whose column appears only in the sections
// that have one), −Inf on one item: the mean runs over the finite two, −8.5 and −11 against log Z
// −6 and −9.5, and the −Inf one is counted.
func summaryInput() Input {
	inf, none := math.Inf(-1), math.NaN()
	return Input{
		Experiment: "golden",
		Datasets:   []string{"jets", "file"},
		Algorithms: []string{"truth", "greedy", "other", "exact"},
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
			withLogZ(rec("jets", "exact", -8.5, -10, "", 3), -6),
			withLogZ(rec("jets", "exact", -11, -12, "", 4), -9.5),
			withLogZ(rec("jets", "exact", inf, -13, "", 5), inf),
		},
	}
}

func TestSummaryGolden(t *testing.T) {
	dir := t.TempDir()
	files, err := Write(context.Background(), []string{"summary"}, summaryInput(), dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(files) != 2 {
		t.Fatalf("wrote %v, want summary.md and summary.csv", files)
	}
	golden.Check(t, filepath.Join(dir, "summary.md"), "summary.md")
	golden.Check(t, filepath.Join(dir, "summary.csv"), "summary.csv")
}

// TestSummaryNotes checks that the notes follow the columns: records without log Z, log evidence
// or truth get none of their notes, and the Bayesian records get the log evidence note only.
func TestSummaryNotes(t *testing.T) {
	plain := summaryInput()
	plain.Datasets = []string{"file"}
	for _, c := range []struct {
		name      string
		in        Input
		want, not []string
	}{
		{"plain", plain, nil, []string{"log Z", "Log evidence", "Gap to truth"}},
		{"bayes", evidenceRecords(), []string{"log evidence |", "Log evidence is"}, []string{"log Z", "Gap to truth"}},
	} {
		dir := t.TempDir()
		if _, err := Write(context.Background(), []string{"summary"}, c.in, dir); err != nil {
			t.Fatal(err)
		}
		md, err := os.ReadFile(filepath.Join(dir, "summary.md"))
		if err != nil {
			t.Fatal(err)
		}
		for _, w := range c.want {
			if !strings.Contains(string(md), w) {
				t.Errorf("%s: summary.md lacks %q:\n%s", c.name, w, md)
			}
		}
		for _, n := range c.not {
			if strings.Contains(string(md), n) {
				t.Errorf("%s: summary.md shows %q:\n%s", c.name, n, md)
			}
		}
	}
}

func TestUnknownReport(t *testing.T) {
	if _, err := Write(context.Background(), []string{"nope"}, summaryInput(), t.TempDir()); err == nil {
		t.Error("unknown report accepted")
	}
}

// runtimeInput is two algorithms over N = 4, 5, 9: medians of 1, 2 or 3 tasks; a failed task is
// left out.
func runtimeInput() Input {
	in := Input{Experiment: "golden", Datasets: []string{"jets"}, Algorithms: []string{"greedy", "exact", "absent"}}
	for i, s := range []struct {
		alg  string
		n    int
		secs float64
		err  string
	}{
		{"greedy", 4, 1e-5, ""}, {"greedy", 4, 3e-5, ""}, {"greedy", 5, 2e-5, ""}, {"greedy", 9, 4e-5, ""}, {"greedy", 9, 5e-5, ""}, {"greedy", 9, 6e-5, ""},
		{"exact", 4, 1e-4, ""}, {"exact", 5, 3e-4, ""}, {"exact", 9, 0.02, ""}, {"exact", 9, 9, "boom"},
	} {
		r := rec("jets", s.alg, -1, math.NaN(), s.err, s.secs)
		r.N = s.n
		r.Item = strconv.Itoa(i)
		in.Records = append(in.Records, r)
	}
	return in
}

// TestRuntimeGolden checks the tables; TestRuntimePlotPoints the plot.
func TestRuntimeGolden(t *testing.T) {
	dir := t.TempDir()
	files, err := Write(context.Background(), []string{"runtime"}, runtimeInput(), dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(files) != 4 {
		t.Fatalf("wrote %v, want runtime.md, .csv, .png and .svg", files)
	}
	golden.Check(t, filepath.Join(dir, "runtime.md"), "runtime.md")
	golden.Check(t, filepath.Join(dir, "runtime.csv"), "runtime.csv")
}

// jetRecords are three algorithms on four items of N = 5 and 6: an exact trellis (with log Z),
// beam and greedy, the greedy tree −Inf on one item.
func jetRecords() Input {
	in := Input{Experiment: "golden", Datasets: []string{"jets"}, Algorithms: []string{"greedy", "beam", "trellis"}}
	type row struct {
		item            string
		n               int
		greedy, beam, z float64
		trellis         float64
	}
	for _, r := range []row{
		{"0", 5, -30.5, -29.25, -26.5, -29.25},
		{"1", 5, -31, -30.75, -27, -30},
		{"2", 6, math.Inf(-1), -35.5, -31.75, -35},
		{"3", 6, -36.125, -36.125, -32, -36.125},
	} {
		for _, a := range []struct {
			name string
			ll   float64
		}{{"greedy", r.greedy}, {"beam", r.beam}, {"trellis", r.trellis}} {
			rc := rec("jets", a.name, a.ll, math.NaN(), "", 0.001)
			rc.Item, rc.N, rc.AlgorithmName = r.item, r.n, a.name
			if a.name == "trellis" {
				rc.LogZ = results.Log(r.z)
			}
			in.Records = append(in.Records, rc)
		}
	}
	return in
}

func TestLikelihoodGapGolden(t *testing.T) {
	dir := t.TempDir()
	files, err := Write(context.Background(), []string{"likelihood_gap"}, jetRecords(), dir)
	if err != nil {
		t.Fatal(err)
	}
	golden.Check(t, filepath.Join(dir, "likelihood_gap.md"), "likelihood_gap.md")
	golden.Check(t, filepath.Join(dir, "likelihood_gap.csv"), "likelihood_gap.csv")
	golden.Check(t, filepath.Join(dir, "likelihood_gap_by_n.csv"), "likelihood_gap_by_n.csv")
	// One histogram per pair of the three algorithms, as PNG and SVG (TestGapHistograms checks
	// their bars).
	if len(files) != 3+3*2 {
		t.Errorf("wrote %d files: %v", len(files), files)
	}
}

func TestZVsMAPGolden(t *testing.T) {
	dir := t.TempDir()
	if _, err := Write(context.Background(), []string{"z_vs_map"}, jetRecords(), dir); err != nil {
		t.Fatal(err)
	}
	golden.Check(t, filepath.Join(dir, "z_vs_map.md"), "z_vs_map.md")
	golden.Check(t, filepath.Join(dir, "z_vs_map.csv"), "z_vs_map.csv")
	// TestZVsMAPPlots checks the plots.
}

// labelledRecords are three algorithms on three labelled items of 4 leaves, s1 and s2 of class A,
// s3 of class B and s4 unknown, with purities as the runner records them: the exact trellis (with
// its MAP ties in params), greedy, and brt, whose rose trees have a log-evidence instead of a
// log-likelihood and a flat clustering. The brt purities, worked by hand (bayesian.md §10; only
// the A pair counts in the dendrogram purities, and the labelled items are s1, s2, s3):
//
//	item 0: ((s1,s2),s3,s4), clusters {s1,s2} {s3,s4}: the A pair meets in (s1,s2), DP 1; cluster
//	        maxima 2, 1: flat 3/3 = 1, adjusted (the k = 2 largest) 3/3 = 1.
//	item 1: (s1,s2,s3,s4), every item alone: the A pair meets at the root, DP 2/3; maxima 1, 1, 1,
//	        0: flat 3/3 = 1, adjusted 2/3.
//	item 2: ((s1,s3),s2,s4), clusters {s1,s3} {s2,s4}: DP 2/3; maxima 1, 1: flat 2/3, adjusted 2/3.
func labelledRecords() Input {
	in := Input{Experiment: "golden", Datasets: []string{"genes"}, Algorithms: []string{"trellis", "brt", "greedy"}}
	type brt struct {
		newick        string
		clusters      [][]int
		dp, flat, adj float64
		evidence      float64
	}
	for i, c := range []struct {
		trellis, greedy, dpT, dpG float64
		mapTrees, lo, hi          float64
		b                         brt
	}{
		{-6, -8.5, 1, 0.5, 2, 0.5, 1, brt{"((s1,s2),s3,s4);", [][]int{{0, 1}, {2, 3}}, 1, 1, 1, -20}},
		{-7.25, -7.25, 0.75, 0.75, 1, 0.75, 0.75, brt{"(s1,s2,s3,s4);", [][]int{{0}, {1}, {2}, {3}}, 2.0 / 3, 1, 2.0 / 3, -21.5}},
		{-5, -6, 1, 0.25, 12, 0.25, 1, brt{"((s1,s3),s2,s4);", [][]int{{0, 2}, {1, 3}}, 2.0 / 3, 2.0 / 3, 2.0 / 3, -19}},
	} {
		for _, a := range []struct {
			name string
			ll   float64
			dp   float64
		}{{"trellis", c.trellis, c.dpT}, {"greedy", c.greedy, c.dpG}, {"brt", math.NaN(), c.b.dp}} {
			r := rec("genes", a.name, a.ll, math.NaN(), "", 0.01)
			r.Item, r.N, r.AlgorithmName = strconv.Itoa(i), 4, a.name
			r.LeafNames = []string{"s1", "s2", "s3", "s4"}
			r.LeafLabels = []string{"A", "A", "B", ""}
			switch a.name {
			case "trellis":
				r.Newick = "(((s1,s2),s3),s4);"
				r.Params = map[string]any{"map_tie_tolerance": 1e-9}
				r.MAPTrees, r.MAPPurityPairMin, r.MAPPurityPairMax = &c.mapTrees, &c.lo, &c.hi
			case "greedy":
				r.Newick = "((s1,s3),(s2,s4));"
			case "brt":
				r.Newick, r.LogLikelihood, r.LogEvidence = c.b.newick, nil, results.Log(c.b.evidence)
				r.Clusters = c.b.clusters
				setMetrics(&r, metric.FlatPurity, c.b.flat, metric.AdjustedPurity, c.b.adj)
			}
			r.LabelledLeaves = 3
			setMetrics(&r, metric.DendrogramPurity, a.dp, metric.DendrogramPurityPair, a.dp)
			in.Records = append(in.Records, r)
		}
	}
	return in
}

func TestPurityGolden(t *testing.T) {
	dir := t.TempDir()
	if _, err := Write(context.Background(), []string{"purity"}, labelledRecords(), dir); err != nil {
		t.Fatal(err)
	}
	golden.Check(t, filepath.Join(dir, "purity.md"), "purity.md")
	golden.Check(t, filepath.Join(dir, "purity.csv"), "purity.csv")
	golden.Check(t, filepath.Join(dir, "purity_by_item.csv"), "purity_by_item.csv")
}

func TestDendrograms(t *testing.T) {
	dir := t.TempDir()
	files, err := Write(context.Background(), []string{"dendrograms"}, labelledRecords(), dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(files) != 2 {
		t.Fatalf("wrote %v, want dendrograms-genes.png and .svg", files)
	}
	// Three trees of 4 leaves: 12 leaf markers, and the class legend.
	checkPlot(t, filepath.Join(dir, "dendrograms-genes.png"), filepath.Join(dir, "dendrograms-genes.svg"), 12)
	svgBytes, _ := os.ReadFile(filepath.Join(dir, "dendrograms-genes.svg"))
	svg := string(svgBytes)
	for _, s := range []string{"s1", "s4", "unknown", "trellis (MAP, 1 of 2 tied)", "greedy", "brt", "data set genes, item 0 (4 leaves)"} {
		if !strings.Contains(svg, s) {
			t.Errorf("the SVG does not show %q", s)
		}
	}
	// Greedy and the MAP tree side by side, in that order, then brt (config order: trellis, brt,
	// greedy).
	if g, m, b := strings.Index(svg, ">greedy"), strings.Index(svg, ">trellis (MAP"), strings.Index(svg, ">brt"); !(g >= 0 && g < m && m < b) {
		t.Errorf("panel titles at %d (greedy), %d (trellis), %d (brt); want that order", g, m, b)
	}
	// The markers' fills, in drawing order: each panel's leaves in post-order, then the legend
	// (unknown, A, B). Unknown must be grey #969696 (unknownColor, Gray{150}), and A and B two
	// other, distinct colours.
	var fills []string
	for _, m := range regexp.MustCompile(`style="fill:(#[0-9A-F]{6})"`).FindAllStringSubmatch(svg, -1) {
		if m[1] != "#FFFFFF" { // the backgrounds
			fills = append(fills, m[1])
		}
	}
	const A, B, U = "A", "B", "U"
	want := []string{
		A, B, A, U, // greedy ((s1,s3),(s2,s4))
		A, A, B, U, // trellis (((s1,s2),s3),s4)
		A, A, B, U, // brt ((s1,s2),s3,s4)
		U, A, B, // legend
	}
	if len(fills) != len(want) {
		t.Fatalf("%d coloured markers %v, want %d", len(fills), fills, len(want))
	}
	color := map[string]string{U: "#969696", A: fills[0], B: fills[1]}
	if color[A] == color[B] || color[A] == color[U] || color[B] == color[U] {
		t.Errorf("class colours A %s, B %s, unknown %s are not distinct", color[A], color[B], color[U])
	}
	for i, w := range want {
		if fills[i] != color[w] {
			t.Errorf("marker %d is %s, want %s (%s)", i, fills[i], color[w], w)
		}
	}
	// Data sets without labels get no figure.
	files, err = Write(context.Background(), []string{"dendrograms"}, jetRecords(), t.TempDir())
	if err != nil || len(files) != 0 {
		t.Errorf("unlabelled data: %v, %v", files, err)
	}
}

func TestDendrogramLayoutRoseTree(t *testing.T) {
	// A rose tree (as BRT returns): ((s1,s2,s3),s4) puts s1, s2, s3, s4 in rows 0–3, the node of
	// three children at height 1 and row 1 (the middle of rows 0 and 2), the root at height 2
	// between rows 1 and 3. Exact: small integers and halves.
	tr, err := tree.ParseNewick("((s1,s2,s3),s4);", []string{"s1", "s2", "s3", "s4"})
	if err != nil {
		t.Fatal(err)
	}
	d := layoutDendrogram(tr)
	for v, nd := range tr.Nodes {
		var h, y float64
		switch {
		case nd.IsLeaf():
			h, y = 0, float64(nd.Item)
		case v == tr.Root:
			h, y = 2, 2
		default:
			h, y = 1, 1
		}
		if d.height[v] != h || d.y[v] != y {
			t.Errorf("node %d (%v): height %v, row %v; want %v, %v", v, nd, d.height[v], d.y[v], h, y)
		}
	}
	if xmin, xmax, ymin, ymax := d.DataRange(); xmin != 0 || xmax != 2.5 || ymin != -0.5 || ymax != 3.5 {
		t.Errorf("data range x %v–%v, y %v–%v; want 0–2.5, −0.5–3.5", xmin, xmax, ymin, ymax)
	}
}

// evidenceRecords are Bayesian records on two data sets: an exact optimum and greedy fixed-π
// BHC that tie on one item and not on another, a DP run with lower bounds, a rose tree without a
// log-likelihood, a failure that must not count, and a −Inf log evidence (digits item 2, bhc),
// which the means and the differences leave out and the tables count.
func evidenceRecords() Input {
	in := Input{Experiment: "bayes", Datasets: []string{"toy", "digits"}, Algorithms: []string{"bhc", "fixed", "exact", "brt"}}
	add := func(ds, item, alg string, ev, lb float64, clusters int) {
		r := results.Record{Schema: results.RecordSchema, Dataset: ds, Item: item, Algorithm: alg, AlgorithmName: alg, LogEvidence: results.Log(ev)}
		if !math.IsNaN(lb) {
			r.LowerBound = results.Log(lb)
		}
		for i := range clusters {
			r.Clusters = append(r.Clusters, []int{i})
		}
		in.Records = append(in.Records, r)
	}
	nan := math.NaN()
	add("toy", "0", "bhc", -230, -233.5, 3)
	add("toy", "1", "bhc", -228, -231.5, 2)
	add("toy", "0", "fixed", -170, nan, 5)
	add("toy", "1", "fixed", -168.5, nan, 4)
	add("toy", "0", "exact", -170+1e-12, nan, 5)
	add("toy", "1", "exact", -167.25, nan, 4)
	add("toy", "0", "brt", -167, nan, 3)
	add("toy", "1", "brt", -166, nan, 3)
	add("digits", "0", "bhc", -4154, -4160, 7)
	add("digits", "0", "brt", -3748, nan, 9)
	add("digits", "2", "bhc", math.Inf(-1), math.Inf(-1), 1)
	add("digits", "2", "brt", -3750, nan, 8)
	in.Records = append(in.Records, results.Record{Schema: results.RecordSchema, Dataset: "digits", Item: "1", Algorithm: "bhc", Error: "boom"})
	return in
}

func TestEvidenceGolden(t *testing.T) {
	dir := t.TempDir()
	if _, err := Write(context.Background(), []string{"evidence"}, evidenceRecords(), dir); err != nil {
		t.Fatal(err)
	}
	golden.Check(t, filepath.Join(dir, "evidence.md"), "evidence.md")
	golden.Check(t, filepath.Join(dir, "evidence.csv"), "evidence.csv")
	golden.Check(t, filepath.Join(dir, "evidence_differences.csv"), "evidence_differences.csv")
}
