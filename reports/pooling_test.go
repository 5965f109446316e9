package reports

import (
	"context"
	"fmt"
	"image/color"
	"maps"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/hcbench/hcbench/experiments/metric"
	"github.com/hcbench/hcbench/experiments/results"
)

// caterpillar is the Newick tree (((l0,l1),l2),…) over n leaves named l0, l1, ….
func caterpillar(n int) (string, []string) {
	names := make([]string, n)
	s := "l0"
	for i := range n {
		names[i] = "l" + strconv.Itoa(i)
		if i > 0 {
			s = "(" + s + "," + names[i] + ")"
		}
	}
	return s + ";", names
}

// unlikeInput is a run of two data sets of different models, as configs/nightly.yaml has them:
// Ginkgo jets, whose MAP is near −71, and pam50 subsamples under correlation clustering, near −5,
// both with items of N = 12 and N = 9, and every field some report reads (truth, log Z, MAP
// ties, labels, purities, log evidence, flat clusters, trees to draw). The jets data set was
// resumed with another likelihood for its items 2 and 3 (a record's data_params keep it): its
// records carry two models and must be split too. The three groups are unlikeGroups.
func unlikeInput() Input {
	in := Input{Experiment: "unlike", Datasets: []string{"jets", "pam50"}, Algorithms: []string{"truth", "greedy", "trellis", "bhc", "brt"}}
	for _, ds := range in.Datasets {
		for i := range 4 {
			n := []int{12, 12, 9, 12}[i]
			base, params := -71.0-float64(i), map[string]any{"generator": "ginkgo", "likelihood": "ginkgo2020", "root_lambda": "generative"}
			if ds == "pam50" {
				base, params = -5.0-0.25*float64(i), map[string]any{"format": "pam50", "split_model": "correlation", "similarity": "cosine"}
			} else if i >= 2 {
				params = map[string]any{"generator": "ginkgo", "likelihood": "ginkgo2021", "root_lambda": "generative"}
			}
			newick, names := caterpillar(n)
			labels := make([]string, n)
			for j := range labels {
				labels[j] = []string{"A", "B", ""}[j%3]
			}
			for k, a := range in.Algorithms {
				r := results.Record{Schema: results.RecordSchema, Dataset: ds, Item: strconv.Itoa(i), Algorithm: a, AlgorithmName: a,
					DataParams: params, N: n, Seconds: 0.001 * float64(k+1) * (1 + float64(i)), Newick: newick,
					LeafNames: names, LeafLabels: labels, LabelledLeaves: n - n/3}
				setMetrics(&r, metric.DendrogramPurity, 0.5+0.1*float64(k), metric.DendrogramPurityPair, 0.4+0.1*float64(k))
				switch a {
				case "bhc", "brt":
					r.LogEvidence, r.LowerBound = results.Log(10*base-float64(k)), results.Log(10*base-3)
					r.Clusters = [][]int{{0}, {1}}
					for j := 2; j < n; j++ {
						r.Clusters[j%2] = append(r.Clusters[j%2], j)
					}
					setMetrics(&r, metric.FlatPurity, 0.75, metric.AdjustedPurity, 0.5)
				default:
					r.LogLikelihood = results.Log(base - 2 + float64(k))
					r.TruthLogLikelihood = results.Log(base - 2)
				}
				if a == "trellis" { // the exact algorithm
					r.LogZ = results.Log(base + 3)
					r.MAPTrees, r.MAPPurityPairMin, r.MAPPurityPairMax = ptr(2), ptr(0.5), ptr(0.75)
				}
				in.Records = append(in.Records, r)
			}
		}
	}
	return in
}

// unlikeGroups are the groups of unlikeInput that no report may pool: the jets split by model,
// and pam50.
var unlikeGroups = []string{"jets (likelihood=ginkgo2020)", "jets (likelihood=ginkgo2021)", "pam50"}

// TestReportsNeverPoolUnlikeData writes every registered report (so a report added later is
// covered too) for unlikeInput and checks that every row, section and plot is of one group:
//
//   - every CSV has a dataset column naming one group in every row (the data set is what a row
//     is of), and is tidy: a column of numbers holds numbers or blanks only (no "all" among the
//     N), a column of names, and every key column (keyColumns), has a value in every row (no
//     summary rows mixed with item rows);
//   - every Markdown section is titled by one group ("<group>" or "<group>: …"), or its table's
//     first column is the data set;
//   - every plot's file name holds exactly one group's name, or else (runtime.svg, z_vs_map.svg,
//     whose names stay the same whatever the data sets) it has a panel per group, titled by the
//     group's name alone, each group once;
//   - the report's files name every group that has what the report needs (all of them here, but
//     for the reports of other data, in lacks, which name none), so that a report that skipped a
//     group, or wrote nothing, does not pass unnoticed.
func TestReportsNeverPoolUnlikeData(t *testing.T) {
	in := unlikeInput()
	// The reports of data that neither Ginkgo jets nor pam50 are, which must then show no group;
	// TestClustBenchResultsSkipsAndRefuses covers one ClustBench data set in two groups.
	lacks := map[string]string{"clustbench_results": "ClustBench items (ids BATTERY/DATASET with partitions)"}
	for _, r := range All() {
		if r.AcrossDatasets {
			continue // its unit is the data set (TestComparison* check its pairing)
		}
		t.Run(r.Name, func(t *testing.T) {
			dir := t.TempDir()
			files, err := Write(context.Background(), []string{r.Name}, in, dir)
			if err != nil {
				t.Fatal(err)
			}
			if len(files) == 0 {
				t.Fatal("wrote nothing")
			}
			seen := map[string]bool{}
			for _, f := range files {
				base := filepath.Base(f)
				switch filepath.Ext(f) {
				case ".csv":
					for _, g := range checkTidyCSV(t, f) {
						seen[g] = true
					}
				case ".md":
					for _, g := range checkMarkdownSections(t, f) {
						seen[g] = true
					}
				case ".png":
					if _, err := os.Stat(strings.TrimSuffix(f, ".png") + ".svg"); err != nil {
						t.Errorf("plot %s has no SVG twin", base)
					}
				case ".svg":
					var of []string
					for _, g := range unlikeGroups {
						if strings.Contains(base, FileName(g)) {
							of = append(of, g)
						}
					}
					// "jets_likelihood=ginkgo2020" does not contain another group's name.
					switch {
					case len(of) == 1:
					case len(of) == 0:
						// A figure of panels, one per group, each titled by its group alone.
						of = panelTitles(t, f)
						if !slices.Equal(of, unlikeGroups) {
							t.Errorf("plot %s names no group, and its panels are titled %q, want one per group %q", base, of, unlikeGroups)
						}
					default:
						t.Errorf("plot %s is of groups %q, want exactly one", base, of)
					}
					for _, g := range of {
						seen[g] = true
					}
				default:
					t.Errorf("unexpected file %s", base)
				}
			}
			if why, ok := lacks[r.Name]; ok {
				if len(seen) > 0 {
					t.Errorf("shows groups %v of an input without %s", slices.Sorted(maps.Keys(seen)), why)
				}
				return
			}
			for _, g := range unlikeGroups {
				if !seen[g] {
					t.Errorf("no file shows group %q", g)
				}
			}
		})
	}
}

// panelTitles returns the texts of an SVG figure that are the name of a group, in the order
// drawn.
func panelTitles(t *testing.T, path string) []string {
	t.Helper()
	var out []string
	for _, e := range svgTexts(t, path) {
		if slices.Contains(unlikeGroups, e.text) {
			out = append(out, e.text)
		}
	}
	return out
}

// keyColumns are the CSV columns that say what a row is of: never blank, so that a table does
// not mix rows of items with rows over all items (purity.csv had item "" in those). Item ids and N
// are numbers, which a blank number (a std of one value) would not tell apart.
var keyColumns = []string{"dataset", "item", "algorithm", "n", "row", "column", "minus"}

// checkTidyCSV checks one CSV (see TestReportsNeverPoolUnlikeData) and returns its groups.
func checkTidyCSV(t *testing.T, path string) []string {
	t.Helper()
	rows := readCSV(t, path)
	name := filepath.Base(path)
	if len(rows) < 2 {
		t.Errorf("%s has no rows", name)
		return nil
	}
	header := rows[0]
	col := slices.Index(header, "dataset")
	if col < 0 {
		t.Errorf("%s has no dataset column: %q", name, header)
		return nil
	}
	var groups []string
	numeric := make([]bool, len(header))
	for c := range header {
		numeric[c] = true
		for _, row := range rows[1:] {
			if _, err := strconv.ParseFloat(row[c], 64); row[c] != "" && err != nil {
				numeric[c] = false
			}
		}
	}
	for c, h := range header {
		hasNumber, hasText := false, false
		for _, row := range rows[1:] {
			_, err := strconv.ParseFloat(row[c], 64)
			switch {
			case row[c] == "":
			case err == nil:
				hasNumber = true
			default:
				hasText = true
			}
		}
		if hasNumber && hasText {
			t.Errorf("%s: column %s mixes numbers and text", name, h)
		}
	}
	for i, row := range rows[1:] {
		if !slices.Contains(unlikeGroups, row[col]) {
			t.Errorf("%s row %d: dataset %q is not one group", name, i+1, row[col])
		} else if !slices.Contains(groups, row[col]) {
			groups = append(groups, row[col])
		}
		for c, v := range row {
			if (!numeric[c] || slices.Contains(keyColumns, header[c])) && v == "" {
				t.Errorf("%s row %d: column %s (what the row is of) is blank", name, i+1, header[c])
			}
		}
	}
	return groups
}

// checkMarkdownSections checks the sections of one Markdown report (see
// TestReportsNeverPoolUnlikeData) and returns the groups they are of.
func checkMarkdownSections(t *testing.T, path string) []string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var groups []string
	lines := strings.Split(string(b), "\n")
	for i, l := range lines {
		title, ok := strings.CutPrefix(l, "## ")
		if !ok {
			continue
		}
		var of []string
		for _, g := range unlikeGroups {
			if title == g || strings.HasPrefix(title, g+":") {
				of = append(of, g)
			}
		}
		// A table of data sets against something, one row each, is not pooled either.
		if len(of) == 0 && i+2 < len(lines) && strings.HasPrefix(lines[i+2], "| data set ") {
			for _, row := range lines[i+4:] {
				cells := strings.Split(row, "|")
				if len(cells) < 3 {
					break
				}
				if g := strings.TrimSpace(cells[1]); slices.Contains(unlikeGroups, g) {
					of = append(of, g)
				} else {
					t.Errorf("%s: section %q has a row of %q, not of a group", filepath.Base(path), title, g)
				}
			}
		}
		if len(of) == 0 {
			t.Errorf("%s: section %q is not of one group", filepath.Base(path), title)
		}
		groups = append(groups, of...)
	}
	return groups
}

// TestZVsMAPByDataset is issue 13's case: nightly's N = 12 row of z_vs_map pooled 2 Ginkgo jets
// (MAP ≈ −71) with 4 pam50 subsamples (MAP ≈ −5). Each group has its own row at N = 12, with its
// own mean: jets (ginkgo2020) items 0 and 1, MAP −71 and −72 (the trellis's log-likelihood is
// base − 2 + 2), mean −71.5; jets (ginkgo2021) item 3, −74; pam50 items 0, 1, 3, MAP −5,
// −5.25, −5.75, mean −5.333…; and its own panel of the scatter, with only its points (pam50:
// item 2 at N = 9, three at N = 12, and a legend glyph per N).
func TestZVsMAPByDataset(t *testing.T) {
	dir := t.TempDir()
	if _, err := Write(context.Background(), []string{"z_vs_map"}, unlikeInput(), dir); err != nil {
		t.Fatal(err)
	}
	rows := readCSV(t, filepath.Join(dir, "z_vs_map.csv"))
	want := map[string]float64{"jets (likelihood=ginkgo2020)": -71.5, "jets (likelihood=ginkgo2021)": -74, "pam50": -16.0 / 3}
	got := map[string]float64{}
	for _, row := range rows[1:] {
		if row[1] == "12" {
			v, err := strconv.ParseFloat(row[3], 64)
			if err != nil {
				t.Fatal(err)
			}
			got[row[0]] = v
		}
	}
	if len(got) != len(want) {
		t.Errorf("rows at N = 12: %v, want one per group %v", got, want)
	}
	for g, w := range want {
		// The means of three or two values of quarters: exact to rounding.
		if math.Abs(got[g]-w) > 1e-12 {
			t.Errorf("%s: MAP mean at N = 12 is %v, want %v", g, got[g], w)
		}
	}
	colours, err := nColours(2)
	if err != nil {
		t.Fatal(err)
	}
	// Each panel fills its tile white, over the figure's white background: a glyph is in the
	// tile that holds its centre, and the tile is pam50's if its title is.
	shapes, _ := readPlot(t, filepath.Join(dir, "z_vs_map"))
	var tiles []svgShape
	for _, s := range shapes[1:] { // the first is the figure's background
		if s.colour == svgColour(color.White) {
			tiles = append(tiles, s)
		}
	}
	if len(tiles) != len(unlikeGroups) {
		t.Fatalf("%d panels, want one per group", len(tiles))
	}
	in := func(x, y float64, tile svgShape) bool {
		return tile.minX <= x && x <= tile.maxX && tile.minY <= y && y <= tile.maxY
	}
	var pam50 []svgShape
	for _, tx := range svgTexts(t, filepath.Join(dir, "z_vs_map.svg")) {
		for _, tile := range tiles {
			if tx.text == "pam50" && in(tx.x, tx.y, tile) {
				pam50 = append(pam50, tile)
			}
		}
	}
	if len(pam50) != 1 {
		t.Fatalf("pam50's title is in %d panels, want 1", len(pam50))
	}
	var inPam50 []svgShape
	for _, s := range shapes {
		if in((s.minX+s.maxX)/2, (s.minY+s.maxY)/2, pam50[0]) {
			inPam50 = append(inPam50, s)
		}
	}
	for i, c := range []struct{ n, points int }{{9, 1}, {12, 3}} {
		if got := countGlyphs(inPam50, colours[i], scatterRadius); got != c.points+1 {
			t.Errorf("pam50: %d glyphs of N = %d, want %d points and a legend entry", got, c.n, c.points)
		}
	}
}

// TestSplitModels checks the names of the groups of a data set of several models, and that a
// data set of one model, or of records without data_params, keeps its name.
func TestSplitModels(t *testing.T) {
	in := splitModels(unlikeInput())
	if !slices.Equal(in.Datasets, unlikeGroups) {
		t.Errorf("groups %q, want %q", in.Datasets, unlikeGroups)
	}
	for _, r := range in.Records {
		if want := fmt.Sprintf("jets (likelihood=%v)", r.DataParams["likelihood"]); r.DataParams["likelihood"] != nil && r.Dataset != want {
			t.Errorf("record of %v under data set %q, want %q", r.DataParams, r.Dataset, want)
		}
	}
	plain := summaryInput()
	if got := splitModels(plain); !slices.Equal(got.Datasets, plain.Datasets) {
		t.Errorf("data sets without models became %q", got.Datasets)
	}
	if got, want := FileName("jets (likelihood=ginkgo2021)"), "jets_likelihood=ginkgo2021"; got != want {
		t.Errorf("file name %q, want %q", got, want)
	}
}
