package reports

import (
	"context"
	"encoding/csv"
	"image/png"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/hcbench/hcbench/experiments/results"
)

// reportInputs are the inputs that every report is written for by the tests of this file: each
// test input of the package, a run of items of one N, and a run without records.
func reportInputs() map[string]Input {
	oneN := jetRecords()
	for i := range oneN.Records {
		oneN.Records[i].N = 5
	}
	return map[string]Input{"summary": summaryInput(), "jets": jetRecords(), "oneN": oneN, "bayes": evidenceRecords(),
		"unlike": unlikeInput(), "order": orderInput(), "empty": {Experiment: "empty", Datasets: []string{"jets"}, Algorithms: []string{"greedy"}}}
}

// notWritten matches the note that says a CSV of a report was left out.
var notWritten = regexp.MustCompile(`(?m)^(\S+\.csv) is not written: .+\.$`)

// TestReportFiles writes every report for each of reportInputs, into a directory that holds a
// stale likelihood_gap_by_n.csv, and checks what issue 20 found in their files:
//
//   - csv: likelihood_gap_by_n.csv was written as a header alone when every item had one N. A
//     CSV is written with at least one row, or not at all and its report's notes say so (and a
//     stale copy is removed); a report accounts for the same CSV files, written or said, for
//     every input.
//   - columns: the HTML summary kept columns no algorithm fills (log-likelihood for data sets
//     without a split model). No table of any report has a column without a value.
//   - plots: PNGs of 432 to 587 pixels (96 dpi), unlabelled y axes, the data set's name twice over
//     a single panel. Every PNG is at pngDPI; every plot with axes labels both, with a unit where
//     the quantity has one; and a figure of one data set names it once, in its one title.
func TestReportFiles(t *testing.T) {
	csvs := map[string][]string{} // report → the CSV files it accounts for, the first time
	for name, in := range reportInputs() {
		dir := t.TempDir()
		stale := filepath.Join(dir, "likelihood_gap_by_n.csv")
		if err := os.WriteFile(stale, []byte("dataset,n,row,column,items,mean,std\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		files, err := Write(context.Background(), Names(), in, dir)
		if err != nil {
			t.Fatal(err)
		}
		t.Run(name+"/csv", func(t *testing.T) {
			for report, fs := range checkCSVRule(t, dir, files) {
				if first, ok := csvs[report]; !ok {
					csvs[report] = fs
				} else if !slices.Equal(first, fs) {
					t.Errorf("%s accounts for %q, for another input %q", report, fs, first)
				}
			}
			if name == "oneN" {
				b, err := os.ReadFile(filepath.Join(dir, "likelihood_gap.md"))
				if err != nil {
					t.Fatal(err)
				}
				if !strings.Contains(string(b), "likelihood_gap_by_n.csv is not written") {
					t.Errorf("items of one N: likelihood_gap.md does not say that likelihood_gap_by_n.csv is not written")
				}
			}
		})
		t.Run(name+"/columns", func(t *testing.T) { checkNoEmptyColumns(t, files) })
		t.Run(name+"/plots", func(t *testing.T) { checkPlots(t, in, files) })
	}
	if len(csvs) != 6 {
		t.Errorf("%d reports account for CSV files, want the 6 that have them: %v", len(csvs), csvs)
	}
}

// checkCSVRule checks the CSV files of a directory of reports (see TestReportFiles) and returns
// the CSV files each report accounts for, sorted.
func checkCSVRule(t *testing.T, dir string, files []string) map[string][]string {
	t.Helper()
	accounted := map[string][]string{}
	for _, f := range files {
		switch filepath.Ext(f) {
		case ".csv":
			if rows := readCSV(t, f); len(rows) < 2 {
				t.Errorf("%s has %d lines, a header alone", filepath.Base(f), len(rows))
			}
			base := filepath.Base(f)
			for _, r := range All() {
				if strings.HasPrefix(base, r.Name+".") || strings.HasPrefix(base, r.Name+"_") {
					accounted[r.Name] = append(accounted[r.Name], base)
				}
			}
		case ".md":
			b, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			report := strings.TrimSuffix(filepath.Base(f), ".md")
			for _, m := range notWritten.FindAllStringSubmatch(string(b), -1) {
				if _, err := os.Stat(filepath.Join(dir, m[1])); err == nil {
					t.Errorf("%s says %s is not written, but a file of that name is there", report, m[1])
				}
				accounted[report] = append(accounted[report], m[1])
			}
		}
	}
	for _, fs := range accounted {
		slices.Sort(fs)
	}
	return accounted
}

func readCSV(t *testing.T, path string) [][]string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return rows
}

// markdownTables returns the tables of a Markdown report: for each, its header and rows of
// cells, "\|" unescaped.
func markdownTables(t *testing.T, path string) [][][]string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	split := func(line string) []string {
		line = strings.TrimSuffix(strings.TrimPrefix(strings.TrimSpace(line), "|"), "|")
		cells := regexp.MustCompile(`[^\\]\|`).Split(" "+line, -1)
		for i, c := range cells {
			cells[i] = strings.ReplaceAll(strings.TrimSpace(c), `\|`, "|")
		}
		return cells
	}
	var out [][][]string
	var cur [][]string
	for _, line := range strings.Split(string(b), "\n") {
		if !strings.HasPrefix(line, "|") {
			if cur != nil {
				out = append(out, cur)
				cur = nil
			}
			continue
		}
		if strings.HasPrefix(line, "|:") || strings.HasPrefix(line, "|-") {
			continue // the alignment row
		}
		cur = append(cur, split(line))
	}
	if cur != nil {
		out = append(out, cur)
	}
	return out
}

// checkNoEmptyColumns checks that no table of the Markdown files has a column without a value.
func checkNoEmptyColumns(t *testing.T, files []string) {
	t.Helper()
	for _, f := range files {
		if filepath.Ext(f) != ".md" {
			continue
		}
		for _, tbl := range markdownTables(t, f) {
			for c, h := range tbl[0] {
				empty := len(tbl) > 1
				for _, row := range tbl[1:] {
					empty = empty && (c >= len(row) || row[c] == "")
				}
				if empty {
					t.Errorf("%s has an empty column %q", filepath.Base(f), h)
				}
			}
		}
	}
}

// TestLikelihoodGapByNFits: with six algorithms the table by N had a column per pair, 15 and N
// and items, and overflowed the page. Now a table per row algorithm has a column per algorithm
// below it, at most 2 + 5, and the CSV keeps every pair and N.
func TestLikelihoodGapByNFits(t *testing.T) {
	algs := []string{"a1", "a2", "a3", "a4", "a5", "a6"}
	in := Input{Experiment: "wide", Datasets: []string{"jets"}, Algorithms: algs}
	for i := range 6 {
		for k, a := range algs {
			r := rec("jets", a, -10-float64(k)-0.1*float64(i*k%4), math.NaN(), "", 0.001)
			r.Item, r.N = strconv.Itoa(i), 5+i%2
			in.Records = append(in.Records, r)
		}
	}
	dir := t.TempDir()
	if _, err := Write(context.Background(), []string{"likelihood_gap"}, in, dir); err != nil {
		t.Fatal(err)
	}
	tables := markdownTables(t, filepath.Join(dir, "likelihood_gap.md"))
	byN := 0
	for _, tbl := range tables {
		if tbl[0][0] != "N" {
			continue
		}
		byN++
		if len(tbl[0]) > 2+len(algs)-1 {
			t.Errorf("a table by N has %d columns: %q", len(tbl[0]), tbl[0])
		}
	}
	if byN != len(algs)-1 {
		t.Errorf("%d tables by N, want one per algorithm but the last, %d", byN, len(algs)-1)
	}
	if rows := readCSV(t, filepath.Join(dir, "likelihood_gap_by_n.csv")); len(rows) != 1+15*2 {
		t.Errorf("likelihood_gap_by_n.csv has %d rows, want a header and 15 pairs × 2 N", len(rows))
	}
}

// pngDPIOf returns the resolution of base.png: its width in pixels per inch of base.svg's width
// (in points, as gonum writes it).
func pngDPIOf(t *testing.T, base string) float64 {
	t.Helper()
	f, err := os.Open(base + ".png")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	cfg, err := png.DecodeConfig(f)
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(base + ".svg")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`<svg[^>]*\swidth="([0-9.]+)pt"`).FindSubmatch(b)
	if m == nil {
		t.Fatalf("%s.svg has no width in points", base)
	}
	w, _ := strconv.ParseFloat(string(m[1]), 64)
	return float64(cfg.Width) / (w / 72)
}

// checkPlots checks the plots among files, written for in (see TestReportFiles).
func checkPlots(t *testing.T, in Input, files []string) {
	t.Helper()
	// Axis labels by plot family (file-name prefix): x, then y.
	labels := map[string][2]string{
		"runtime":     {"N (leaves)", "median time per task"},
		"z_vs_map":    {"MAP log-likelihood (nats)", "log Z (nats)"},
		"z_minus_map": {"log Z − MAP log-likelihood (nats)", "items"},
		"gap-":        {"log-likelihood difference (nats)", "items"},
		"dendrograms": {"height (merges below)", ""},
		// The comparison's journal figures: their axes are checked in journal_test.go; they
		// have no title (the caption, in comparison.md, names what they show).
		"comparison-":             {"", ""},
		"comparison-time-profile": {"τ: time / the best time", "ρ(τ)"},
	}
	for _, f := range files {
		if filepath.Ext(f) != ".svg" {
			continue
		}
		base := strings.TrimSuffix(f, ".svg")
		plot := filepath.Base(base)
		if dpi := pngDPIOf(t, base); math.Abs(dpi-pngDPI) > 1 {
			t.Errorf("%s.png is at %.0f dpi, want %d", plot, dpi, pngDPI)
		}
		var texts []string
		for _, tx := range svgTexts(t, f) {
			texts = append(texts, tx.text)
		}
		family := ""
		for prefix := range labels {
			if strings.HasPrefix(plot, prefix) && len(prefix) > len(family) {
				family = prefix
			}
		}
		if family == "" {
			t.Errorf("%s is of no known family", plot)
			continue
		}
		for _, want := range labels[family] {
			if want != "" && !slices.ContainsFunc(texts, func(s string) bool { return strings.HasPrefix(s, want) }) {
				t.Errorf("%s has no axis label %q among %q", plot, want, texts)
			}
		}
		// A figure of one data set: its name in one title only.
		if len(in.Datasets) == 1 && family != "gap-" && family != "dendrograms" && !strings.HasPrefix(family, "comparison-") {
			ds := in.Datasets[0]
			n := 0
			for _, s := range texts {
				if strings.Contains(s, ds) {
					n++
				}
			}
			if n != 1 {
				t.Errorf("%s names %s in %d texts, want one title: %q", plot, ds, n, texts)
			}
		}
	}
}

// manyPoints is a data set of n exact trellis records of N = 5 to 9, their MAP and log Z spread
// as ginkgo510's.
func manyPoints(n int) Input {
	in := Input{Experiment: "many", Datasets: []string{"jets"}, Algorithms: []string{"trellis"}}
	for i := range n {
		k := 5 + i%5
		m := -6*float64(k) - float64(i%7)/7
		r := rec("jets", "trellis", m, math.NaN(), "", 0.001)
		r.Item, r.N, r.LogZ = strconv.Itoa(i), k, results.Log(m+float64(k)-float64(i%11)/11)
		in.Records = append(in.Records, r)
	}
	return in
}

// TestManyPointsTranslucent: ginkgo510's 5000 points were opaque discs of 2 pt, a solid blob per
// N. Over 200 points, they are smaller and translucent (alpha 200/n, at least 0.25), and the
// legend's glyphs stay opaque; 200 points or fewer stay opaque.
func TestManyPointsTranslucent(t *testing.T) {
	for _, c := range []struct {
		n       int
		opacity string
	}{{100, ""}, {1000, "0.25"}, {400, "0.5"}} {
		dir := t.TempDir()
		if _, err := Write(context.Background(), []string{"z_vs_map"}, manyPoints(c.n), dir); err != nil {
			t.Fatal(err)
		}
		b, err := os.ReadFile(filepath.Join(dir, "z_vs_map.svg"))
		if err != nil {
			t.Fatal(err)
		}
		translucent := regexp.MustCompile(`fill-opacity:([0-9.]+)`).FindAllStringSubmatch(string(b), -1)
		if c.opacity == "" {
			if len(translucent) != 0 {
				t.Errorf("%d points: %d translucent shapes, want none", c.n, len(translucent))
			}
			continue
		}
		if len(translucent) != c.n {
			t.Errorf("%d points: %d translucent shapes, want one per point", c.n, len(translucent))
		}
		for _, m := range translucent {
			if v, _ := strconv.ParseFloat(m[1], 64); math.Abs(v-mustFloat(c.opacity)) > 0.01 {
				t.Errorf("%d points: opacity %s, want %s", c.n, m[1], c.opacity)
				break
			}
		}
		shapes, _ := readPlot(t, filepath.Join(dir, "z_vs_map"))
		colours, err := nColours(5)
		if err != nil {
			t.Fatal(err)
		}
		for i, col := range colours {
			// The legend's glyph of each N, opaque, of the full radius (the points are smaller).
			if got := countGlyphs(shapes, col, scatterRadius) - countGlyphs(shapes, col, 1.4); got < 1 {
				t.Errorf("%d points: no legend glyph of N = %d", c.n, 5+i)
			}
		}
	}
}

func mustFloat(s string) float64 {
	v, err := strconv.ParseFloat(s, 64)
	if err != nil {
		panic(err)
	}
	return v
}

// TestHistogramShowsTails: ginkgo510's beam-structure − beam was one bar of 4,920 items on a
// linear axis, and its tails (bins of 1 to 28 items) did not show. A histogram whose tallest bar
// is 100 times its shortest or more counts on a log axis, labelled so, whose bars start below a
// count of 1: every non-empty bin is a bar, and a bin of one item is at least a tenth as high
// as a bin of a thousand.
func TestHistogramShowsTails(t *testing.T) {
	in := Input{Experiment: "tails", Datasets: []string{"jets"}, Algorithms: []string{"trellis", "beam"}}
	values := []float64{2.5, 4, 4}
	for range 1000 {
		values = append(values, 0)
	}
	for i, d := range values {
		for _, a := range []struct {
			name string
			ll   float64
		}{{"trellis", -20}, {"beam", -20 - d}} {
			r := rec("jets", a.name, a.ll, math.NaN(), "", 0.001)
			r.Item, r.N = strconv.Itoa(i), 7
			in.Records = append(in.Records, r)
		}
	}
	dir := t.TempDir()
	if _, err := Write(context.Background(), []string{"likelihood_gap"}, in, dir); err != nil {
		t.Fatal(err)
	}
	base := filepath.Join(dir, "gap-jets-trellis-beam")
	shapes, texts := readPlot(t, base)
	if !slices.Contains(texts, "items (log scale)") {
		t.Errorf("no log-scale label among %q", texts)
	}
	var bars []svgShape
	for _, s := range shapes {
		if s.colour == "#808080" && s.height() > 0.01 {
			bars = append(bars, s)
		}
	}
	if len(bars) != 3 {
		t.Fatalf("%d bars, want 3 (0, 2.5 and 4)", len(bars))
	}
	lo, hi := math.Inf(1), 0.0
	for _, b := range bars {
		lo, hi = min(lo, b.height()), max(hi, b.height())
	}
	// Heights from log₁₀ 0.6: 1 item 0.22, 1000 items 3.22 decades.
	if lo/hi < 0.05 {
		t.Errorf("the bar of one item is %.3f of the tallest", lo/hi)
	}
	// And a histogram of few items, or of no far tail, keeps its linear axis (TestGapHistograms
	// checks its bars' heights in proportion).
	dir = t.TempDir()
	if _, err := Write(context.Background(), []string{"likelihood_gap"}, jetRecords(), dir); err != nil {
		t.Fatal(err)
	}
	if _, texts := readPlot(t, filepath.Join(dir, "gap-jets-trellis-beam")); !slices.Contains(texts, "items") {
		t.Errorf("jets: no linear count axis among %q", texts)
	}
}
