package reports

import (
	"encoding/xml"
	"image/png"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"hcbench/experiments/results"
	"hcbench/reports/golden"
)

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

func withLogZ(r results.Record, lz float64) results.Record {
	r.LogZ = results.Log(lz)
	return r
}

// summaryInput covers the cases the table must handle: several items, a failure, a −Inf tree,
// an item with a −Inf truth, a single item (no std), a data set without truth, and an
// algorithm that reports log Z (whose column appears only in the sections that have one).
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
	golden.Check(t, filepath.Join(dir, "summary.md"), "summary.md")
	golden.Check(t, filepath.Join(dir, "summary.csv"), "summary.csv")
}

func TestUnknownReport(t *testing.T) {
	if _, err := Write([]string{"nope"}, summaryInput(), t.TempDir()); err == nil {
		t.Error("unknown report accepted")
	}
}

func TestRuntimeGolden(t *testing.T) {
	// Two algorithms over N = 4, 5, 9: medians of 1, 2 or 3 tasks; a failed task is left out.
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
	dir := t.TempDir()
	files, err := Write([]string{"runtime"}, in, dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(files) != 4 {
		t.Fatalf("wrote %v, want runtime.md, .csv, .png and .svg", files)
	}
	golden.Check(t, filepath.Join(dir, "runtime.md"), "runtime.md")
	golden.Check(t, filepath.Join(dir, "runtime.csv"), "runtime.csv")
	checkPlot(t, filepath.Join(dir, "runtime.png"), filepath.Join(dir, "runtime.svg"), 6)
}

// checkPlot checks that a plot was written as a decodable PNG and as SVG with at least points
// path elements (gonum/plot draws each point's glyph as its own path).
func checkPlot(t *testing.T, pngPath, svgPath string, points int) {
	t.Helper()
	f, err := os.Open(pngPath)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatalf("%s: %v", pngPath, err)
	}
	if b := img.Bounds(); b.Dx() < 100 || b.Dy() < 100 {
		t.Errorf("%s is only %v", pngPath, b)
	}
	svg, err := os.ReadFile(svgPath)
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		XMLName xml.Name `xml:"svg"`
	}
	if err := xml.Unmarshal(svg, &doc); err != nil {
		t.Fatalf("%s is not SVG: %v", svgPath, err)
	}
	if got := strings.Count(string(svg), "<path"); got < points {
		t.Errorf("%s has %d paths, want at least %d points", svgPath, got, points)
	}
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
	files, err := Write([]string{"likelihood_gap"}, jetRecords(), dir)
	if err != nil {
		t.Fatal(err)
	}
	golden.Check(t, filepath.Join(dir, "likelihood_gap.md"), "likelihood_gap.md")
	golden.Check(t, filepath.Join(dir, "likelihood_gap.csv"), "likelihood_gap.csv")
	// One histogram per pair of the three algorithms, as PNG and SVG.
	if len(files) != 2+3*2 {
		t.Errorf("wrote %d files: %v", len(files), files)
	}
	checkPlot(t, filepath.Join(dir, "gap-jets-trellis-greedy.png"), filepath.Join(dir, "gap-jets-trellis-greedy.svg"), 1)
}

func TestZVsMAPGolden(t *testing.T) {
	dir := t.TempDir()
	if _, err := Write([]string{"z_vs_map"}, jetRecords(), dir); err != nil {
		t.Fatal(err)
	}
	golden.Check(t, filepath.Join(dir, "z_vs_map.md"), "z_vs_map.md")
	golden.Check(t, filepath.Join(dir, "z_vs_map.csv"), "z_vs_map.csv")
	// 4 points, the line, the grid and the axes.
	checkPlot(t, filepath.Join(dir, "z_vs_map.png"), filepath.Join(dir, "z_vs_map.svg"), 4)
	checkPlot(t, filepath.Join(dir, "z_minus_map.png"), filepath.Join(dir, "z_minus_map.svg"), 1)
}

// labelledRecords are two algorithms on three labelled items of 4 leaves (one leaf unknown), with
// purities as the runner records them.
func labelledRecords() Input {
	in := Input{Experiment: "golden", Datasets: []string{"genes"}, Algorithms: []string{"trellis", "greedy"}}
	p := func(x float64) *float64 { return &x }
	for i, c := range []struct {
		trellis, greedy, dpT, dpG float64
	}{{-6, -8.5, 1, 0.5}, {-7.25, -7.25, 0.75, 0.75}, {-5, -6, 1, 0.25}} {
		for _, a := range []struct {
			name string
			ll   float64
			dp   float64
		}{{"trellis", c.trellis, c.dpT}, {"greedy", c.greedy, c.dpG}} {
			r := rec("genes", a.name, a.ll, math.NaN(), "", 0.01)
			r.Item, r.N, r.AlgorithmName = strconv.Itoa(i), 4, a.name
			r.LeafNames = []string{"s1", "s2", "s3", "s4"}
			r.LeafLabels = []string{"A", "A", "B", ""}
			r.Newick = "(((s1,s2),s3),s4);"
			if a.name == "greedy" {
				r.Newick = "((s1,s3),(s2,s4));"
			}
			r.DendrogramPurity, r.DendrogramPurityPair, r.LabelledLeaves = p(a.dp), p(a.dp), 3
			in.Records = append(in.Records, r)
		}
	}
	return in
}

func TestPurityGolden(t *testing.T) {
	dir := t.TempDir()
	if _, err := Write([]string{"purity"}, labelledRecords(), dir); err != nil {
		t.Fatal(err)
	}
	golden.Check(t, filepath.Join(dir, "purity.md"), "purity.md")
	golden.Check(t, filepath.Join(dir, "purity.csv"), "purity.csv")
}

func TestDendrograms(t *testing.T) {
	dir := t.TempDir()
	files, err := Write([]string{"dendrograms"}, labelledRecords(), dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(files) != 2 {
		t.Fatalf("wrote %v, want dendrograms-genes.png and .svg", files)
	}
	// Two trees of 4 leaves: 8 leaf markers, and the class legend.
	checkPlot(t, filepath.Join(dir, "dendrograms-genes.png"), filepath.Join(dir, "dendrograms-genes.svg"), 8)
	svg, _ := os.ReadFile(filepath.Join(dir, "dendrograms-genes.svg"))
	for _, s := range []string{"s1", "s4", "unknown", "trellis", "greedy"} {
		if !strings.Contains(string(svg), s) {
			t.Errorf("the SVG does not show %q", s)
		}
	}
	// Data sets without labels get no figure.
	files, err = Write([]string{"dendrograms"}, jetRecords(), t.TempDir())
	if err != nil || len(files) != 0 {
		t.Errorf("unlabelled data: %v, %v", files, err)
	}
}

// evidenceRecords are Bayesian records on two data sets: an exact optimum and greedy fixed-π
// BHC that tie on one item and not on another, a DP run with lower bounds, a rose tree without a
// log-likelihood, and a failure that must not count.
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
	in.Records = append(in.Records, results.Record{Schema: results.RecordSchema, Dataset: "digits", Item: "1", Algorithm: "bhc", Error: "boom"})
	return in
}

func TestEvidenceGolden(t *testing.T) {
	dir := t.TempDir()
	if _, err := Write([]string{"evidence"}, evidenceRecords(), dir); err != nil {
		t.Fatal(err)
	}
	golden.Check(t, filepath.Join(dir, "evidence.md"), "evidence.md")
	golden.Check(t, filepath.Join(dir, "evidence.csv"), "evidence.csv")
	golden.Check(t, filepath.Join(dir, "evidence_differences.csv"), "evidence_differences.csv")
}
