package reports

import (
	"bytes"
	"encoding/xml"
	"image/png"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"gonum.org/v1/plot/vg"
)

// journalAlgorithms are the algorithms of the test figures, as a ClustBench comparison has them.
var journalAlgorithms = []string{"single", "average", "complete", "ward", "bhc", "rbhc", "brt", "bhc_exact"}

// journalData returns fake scores (NCA-like, in [−0.05, 1]) and times of journalAlgorithms on
// n data sets, seeded: bhc_exact fails on every fifth data set (NaN).
func journalData(n int) (scores, seconds [][]float64) {
	quality := []float64{0.35, 0.55, 0.5, 0.62, 0.66, 0.6, 0.58, 0.67}
	cost := []float64{0.01, 0.02, 0.02, 0.02, 3, 0.8, 1.5, 40}
	r := rand.New(rand.NewPCG(1, 2))
	scores, seconds = make([][]float64, len(quality)), make([][]float64, len(quality))
	for a := range quality {
		scores[a], seconds[a] = make([]float64, n), make([]float64, n)
		for p := range n {
			scores[a][p] = min(1, max(-0.05, quality[a]+0.2*r.NormFloat64()))
			seconds[a][p] = cost[a] * math.Exp(r.NormFloat64()) * float64(1+p%10)
			if a == 7 && p%5 == 0 {
				scores[a][p], seconds[a][p] = math.NaN(), math.NaN()
			}
		}
	}
	return scores, seconds
}

// journalFigures draws each kind of journal figure of the fake data on 69 data sets, width wide,
// into dir, and returns them by name.
func journalFigures(t *testing.T, dir string, width vg.Length) map[string]Figure {
	t.Helper()
	scores, seconds := journalData(69)
	figs := map[string]Figure{}
	add := func(name string, f Figure, err error) {
		t.Helper()
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		figs[name] = f
	}
	f, err := CriticalDifferenceFigure(filepath.Join(dir, "cd"), width, CriticalDifference{
		Metric: "NCA", Algorithms: journalAlgorithms, MeanRanks: []float64{6.9, 4.6, 5.3, 3.9, 3.1, 4.4, 4.7, 3.1},
		Groups: [][]int{{4, 7, 3, 5, 1}, {3, 5, 1, 6}, {1, 6, 2}, {2, 0}}, Datasets: 69,
	})
	add("cd", f, err)
	f, err = BoxPlotFigure(filepath.Join(dir, "box"), width, BoxPlots{Metric: "NCA", Algorithms: journalAlgorithms, Values: scores, HigherIsBetter: true, Points: true})
	add("box", f, err)
	f, err = ProfileFigure(filepath.Join(dir, "time"), width, Profile{Measure: "time", Unit: "s", Algorithms: journalAlgorithms, Values: seconds, Ratio: true})
	add("time", f, err)
	f, err = ProfileFigure(filepath.Join(dir, "nca"), width, Profile{Measure: "NCA", Algorithms: journalAlgorithms, Values: scores, HigherIsBetter: true})
	add("nca", f, err)
	labels := make([]string, 69)
	labels[3], labels[4] = "ds03", "ds04"
	f, err = ScatterFigure(filepath.Join(dir, "scatter"), width, Scatter{Metric: "NCA", X: "bhc", Y: "rbhc", XValues: scores[4], YValues: scores[5], Labels: labels, HigherIsBetter: true})
	add("scatter", f, err)
	return figs
}

// svgSize returns the width and height (points) of an SVG file.
func svgSize(t *testing.T, path string) (w, h float64) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	dec := xml.NewDecoder(f)
	for {
		tok, err := dec.Token()
		if err != nil {
			t.Fatalf("%s: no <svg>: %v", path, err)
		}
		if e, ok := tok.(xml.StartElement); ok && e.Name.Local == "svg" {
			for _, a := range e.Attr {
				v, _ := strconv.ParseFloat(strings.TrimSuffix(a.Value, "pt"), 64)
				switch a.Name.Local {
				case "width":
					w = v
				case "height":
					h = v
				}
			}
			return w, h
		}
	}
}

// pdfMediaBox matches the page size fpdf writes.
var pdfMediaBox = regexp.MustCompile(`/MediaBox \[0 0 ([0-9.]+) ([0-9.]+)\]`)

// checkPDF checks that path is a one-page PDF of w × h points (to 0.01) whose every font is
// embedded, as a Unicode font: each font descriptor has its font file (/FontFile2), and the
// fonts are Type 0 with Identity-H encoding and a ToUnicode map (gonum's vgpdf embeds
// Windows-1252 fonts, in which ρ, τ and µ came out as mojibake). Where poppler's pdffonts is
// installed, it must list every font as embedded.
func checkPDF(t *testing.T, path string, w, h float64) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.HasPrefix(b, []byte("%PDF-")) || !bytes.Contains(b[max(0, len(b)-64):], []byte("%%EOF")) {
		t.Fatalf("%s is not a PDF", path)
	}
	m := pdfMediaBox.FindAllSubmatch(b, -1)
	if len(m) != 1 {
		t.Fatalf("%s: %d pages, want 1", path, len(m))
	}
	pw, _ := strconv.ParseFloat(string(m[0][1]), 64)
	ph, _ := strconv.ParseFloat(string(m[0][2]), 64)
	if math.Abs(pw-w) > 0.01 || math.Abs(ph-h) > 0.01 {
		t.Errorf("%s is %g × %g pt, want %g × %g", path, pw, ph, w, h)
	}
	// fpdf writes the time of writing unless told a date: the same figure must be the same bytes.
	if !bytes.Contains(b, []byte("/CreationDate (D:19700101000000)")) || !bytes.Contains(b, []byte("/ModDate (D:19700101000000)")) {
		t.Errorf("%s: its dates are not the fixed pdfEpoch", path)
	}
	descriptors := bytes.Count(b, []byte("/Type /FontDescriptor"))
	if descriptors == 0 || bytes.Count(b, []byte("/FontFile2")) != descriptors {
		t.Errorf("%s: %d font descriptors and %d embedded font files, want as many, at least one", path, descriptors, bytes.Count(b, []byte("/FontFile2")))
	}
	if types := bytes.Count(b, []byte("/Subtype /Type0")); types != descriptors || bytes.Count(b, []byte("/Encoding /Identity-H")) != types || bytes.Count(b, []byte("/ToUnicode")) != types {
		t.Errorf("%s: not every font is a Unicode (Type 0, Identity-H, ToUnicode) font", path)
	}
	if _, err := exec.LookPath("pdffonts"); err != nil {
		return
	}
	out, err := exec.Command("pdffonts", path).Output()
	if err != nil {
		t.Fatalf("pdffonts %s: %v", path, err)
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	if len(lines) < 3 {
		t.Errorf("pdffonts %s lists no font:\n%s", path, out)
	}
	for _, l := range lines[min(2, len(lines)):] {
		// name type [type] encoding emb sub uni object ID: emb is the fifth field from the end.
		f := strings.Fields(l)
		if len(f) < 6 || f[len(f)-5] != "yes" {
			t.Errorf("pdffonts %s: a font is not embedded: %s", path, l)
		}
	}
}

// TestJournalFiles checks every journal figure at both widths: its files are base.png, .svg
// and .pdf, in that order; the PNG decodes at pngDPI to the declared width, the SVG parses with
// the declared width, and the PDF has the same size and embedded fonts; the caption names the
// number of data sets.
func TestJournalFiles(t *testing.T) {
	for _, width := range []vg.Length{ColumnWidth, PageWidth} {
		dir := t.TempDir()
		for name, f := range journalFigures(t, dir, width) {
			base := filepath.Join(dir, name)
			if want := []string{base + ".png", base + ".svg", base + ".pdf"}; !slices.Equal(f.Files, want) {
				t.Fatalf("%s: files %v, want %v", name, f.Files, want)
			}
			readPlot(t, base)
			w, h := svgSize(t, base+".svg")
			if math.Abs(w-width.Points()) > 0.01 {
				t.Errorf("%s.svg is %g pt wide, want %g", name, w, width.Points())
			}
			file, err := os.Open(base + ".png")
			if err != nil {
				t.Fatal(err)
			}
			img, err := png.Decode(file)
			file.Close()
			if err != nil {
				t.Fatal(err)
			}
			if got, want := img.Bounds().Dx(), int(width.Points()/72*pngDPI+0.5); got != want {
				t.Errorf("%s.png is %d px wide, want %d (%g in at %d dpi)", name, got, want, width.Points()/72, pngDPI)
			}
			checkPDF(t, base+".pdf", w, h)
			if !strings.Contains(f.Caption, "69 data sets") && name != "scatter" {
				t.Errorf("%s: caption %q does not say 69 data sets", name, f.Caption)
			}
		}
	}
}

// TestJournalDeterministic draws the figures twice: the same data must give the same bytes in
// every format (the PDF's dates are fixed, its catalogs sorted, the jitter fixed).
func TestJournalDeterministic(t *testing.T) {
	a, b := t.TempDir(), t.TempDir()
	fa, fb := journalFigures(t, a, ColumnWidth), journalFigures(t, b, ColumnWidth)
	for name, f := range fa {
		for i, path := range f.Files {
			x, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			y, err := os.ReadFile(fb[name].Files[i])
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(x, y) {
				t.Errorf("%s differs between two drawings of the same data", filepath.Base(path))
			}
		}
	}
}

// TestJournalWidths: a figure is a column or a page wide, nothing else.
func TestJournalWidths(t *testing.T) {
	_, err := BoxPlotFigure(filepath.Join(t.TempDir(), "b"), 5*vg.Inch, BoxPlots{Algorithms: []string{"a"}, Values: [][]float64{{1}}})
	if err == nil || !strings.Contains(err.Error(), "ColumnWidth") {
		t.Errorf("a 5 in figure: error %v, want one naming ColumnWidth", err)
	}
}

// TestCriticalDifferenceLayout checks Demšar's convention: the better half of the algorithms
// (by mean rank) is named right of the axis, the other half left of it; and the bars: a group
// of one, or one whose span lies inside another's, is not drawn, and a bar spans its members'
// ranks.
func TestCriticalDifferenceLayout(t *testing.T) {
	dir := t.TempDir()
	d := CriticalDifference{Metric: "ARI", Algorithms: []string{"a", "b", "c", "d"}, MeanRanks: []float64{3.5, 1.25, 2.25, 3}, Datasets: 8,
		Groups: [][]int{{1, 2}, {2}, {0, 3}, {3, 0}, {2, 3, 0}, {0}}}
	f, err := CriticalDifferenceFigure(filepath.Join(dir, "cd"), ColumnWidth, d)
	if err != nil {
		t.Fatal(err)
	}
	x := map[string]float64{} // the x of each text (the last of a repeated one)
	for _, tx := range svgTexts(t, f.Files[1]) {
		x[tx.text] = tx.x
	}
	axis := x["mean rank (1 = best)"]
	for _, name := range []string{"b", "c"} { // the best two
		if x[name] <= axis {
			t.Errorf("%s (a better half) at x = %g, not right of the axis's middle %g", name, x[name], axis)
		}
	}
	for _, name := range []string{"a", "d"} {
		if x[name] >= axis {
			t.Errorf("%s (the worse half) at x = %g, not left of the axis's middle %g", name, x[name], axis)
		}
	}
	if x["1"] <= x["4"] {
		t.Errorf("rank 1 at x = %g, rank 4 at %g: the best rank must be at the right", x["1"], x["4"])
	}
	bars, err := cdBars(d)
	if err != nil {
		t.Fatal(err)
	}
	if want := [][2]float64{{1.25, 2.25}, {2.25, 3.5}}; !slices.Equal(bars, want) {
		t.Errorf("bars %v, want %v", bars, want)
	}
	if !strings.Contains(f.Caption, "ARI over 8 data sets") || !strings.Contains(f.Caption, "Holm") || !strings.Contains(f.Caption, "α = 0.05") {
		t.Errorf("caption %q", f.Caption)
	}
}

// TestTukey checks the box statistics against Python's statistics.quantiles(x, n=4,
// method="inclusive"), which is R's type 7 (python3 -c 'import statistics as s;
// print(s.quantiles([1,2,3,4,5,6,7,8,9,10,30,-20], n=4, method="inclusive"))' prints
// [2.75, 5.5, 8.25]), and the 1.5 IQR fences −5.5 and 16.5 worked from them: whiskers 1 and
// 10, outliers −20 and 30. NaN is left out.
func TestTukey(t *testing.T) {
	x := []float64{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 30, -20, math.NaN()}
	s := tukey(x)
	want := boxStats{n: 12, q1: 2.75, median: 5.5, q3: 8.25, lowWhisk: 1, hiWhisk: 10, outliers: []float64{-20, 30}}
	if s.n != want.n || s.q1 != want.q1 || s.median != want.median || s.q3 != want.q3 || s.lowWhisk != want.lowWhisk || s.hiWhisk != want.hiWhisk || !slices.Equal(s.outliers, want.outliers) {
		t.Errorf("tukey = %+v, want %+v", s, want)
	}
}

// TestProfileRatios checks Dolan and Moré's ratios and the difference profile on a worked
// example: problem 0 is won by a (1 s), problem 1 by b, problem 2 failed for a, problem 3 failed
// for both (ratio ∞ for both: never solved).
func TestProfileRatios(t *testing.T) {
	inf, nan := math.Inf(1), math.NaN()
	pr := Profile{Values: [][]float64{{1, 4, nan, nan}, {2, 2, 3, inf}}, Ratio: true}
	got := profileRatios(pr)
	want := [][]float64{{1, 2, inf, inf}, {2, 1, 1, inf}}
	for a := range want {
		if !slices.Equal(got[a], want[a]) {
			t.Errorf("ratios of %d: %v, want %v", a, got[a], want[a])
		}
	}
	pr = Profile{Values: [][]float64{{0.5, 1, nan}, {0.75, -0.25, 0.5}}, HigherIsBetter: true}
	got = profileRatios(pr)
	want = [][]float64{{0.25, 0, inf}, {0, 1.25, 0}}
	for a := range want {
		if !slices.Equal(got[a], want[a]) {
			t.Errorf("differences of %d: %v, want %v", a, got[a], want[a])
		}
	}
	pr.HigherIsBetter = false
	if got = profileRatios(pr); got[0][1] != 1.25 || got[1][1] != 0 {
		t.Errorf("lower is better: differences %v, want the lowest value 0 from the best", got)
	}
}

// TestScatterSquare checks that the scatter's axes have one scale (the line y = x is drawn at
// 45°) and that the caption counts the data sets above, below and on the line, and those left
// out.
func TestScatterSquare(t *testing.T) {
	dir := t.TempDir()
	s := Scatter{Metric: "NCA", X: "bhc", Y: "rbhc", XValues: []float64{0.1, 0.5, 0.9, 0.3, math.NaN(), 0.7}, YValues: []float64{0.2, 0.5, 0.4, 0.35, 0.5, 0.6}, HigherIsBetter: true}
	for _, width := range []vg.Length{ColumnWidth, PageWidth} {
		f, err := ScatterFigure(filepath.Join(dir, "s"), width, s)
		if err != nil {
			t.Fatal(err)
		}
		b, err := os.ReadFile(f.Files[1])
		if err != nil {
			t.Fatal(err)
		}
		m := regexp.MustCompile(`<path d="M([-0-9.e]+),([-0-9.e]+)L([-0-9.e]+),([-0-9.e]+)" style="fill:none;stroke:#606060;stroke-dasharray`).FindSubmatch(b)
		if m == nil {
			t.Fatal("no line y = x in the SVG")
		}
		var v [4]float64
		for i := range v {
			v[i], _ = strconv.ParseFloat(string(m[i+1]), 64)
		}
		if dx, dy := v[2]-v[0], v[3]-v[1]; math.Abs(dx-dy) > 0.01*dx {
			t.Errorf("%g in: the line y = x spans %g × %g pt, not a square", width.Points()/72, dx, dy)
		}
		want := "on the 5 data sets where both completed, with the line y = x: rbhc scores higher on 2 (above the line), lower on 2 and the same on 1"
		if !strings.Contains(f.Caption, want) || !strings.Contains(f.Caption, "1 data set where either failed") {
			t.Errorf("caption %q, want %q and one left out", f.Caption, want)
		}
	}
}

// TestJournalEdgeCases draws figures of degenerate data, which must give a figure or an error,
// never a panic: one algorithm, tied ranks, all scores equal, an algorithm with no values,
// every run failed, one data set; and bad input must be an error.
func TestJournalEdgeCases(t *testing.T) {
	dir := t.TempDir()
	nan := math.NaN()
	ok := func(name string, f Figure, err error) {
		t.Helper()
		if err != nil {
			t.Errorf("%s: %v", name, err)
			return
		}
		for _, p := range f.Files {
			if _, err := os.Stat(p); err != nil {
				t.Errorf("%s: %v", name, err)
			}
		}
	}
	bad := func(name string, _ Figure, err error) {
		t.Helper()
		if err == nil {
			t.Errorf("%s: no error", name)
		}
	}
	base := func(s string) string { return filepath.Join(dir, s) }
	f, err := CriticalDifferenceFigure(base("cd1"), ColumnWidth, CriticalDifference{Algorithms: []string{"only"}, MeanRanks: []float64{1}, Datasets: 3})
	ok("cd of one algorithm", f, err)
	f, err = CriticalDifferenceFigure(base("cdtie"), ColumnWidth, CriticalDifference{Algorithms: []string{"a", "b", "c"}, MeanRanks: []float64{2, 2, 2}, Groups: [][]int{{0, 1, 2}}, Datasets: 6})
	ok("cd of tied ranks", f, err)
	f, err = CriticalDifferenceFigure(base("cdbad"), ColumnWidth, CriticalDifference{Algorithms: []string{"a", "b"}, MeanRanks: []float64{nan, 1}})
	bad("cd with a NaN rank", f, err)
	f, err = CriticalDifferenceFigure(base("cdbad"), ColumnWidth, CriticalDifference{Algorithms: []string{"a", "b"}, MeanRanks: []float64{1, 2}, Groups: [][]int{{0, 2}}})
	bad("cd with a group naming algorithm 2 of 2", f, err)
	f, err = CriticalDifferenceFigure(base("cdbad"), ColumnWidth, CriticalDifference{Algorithms: []string{"a"}, MeanRanks: []float64{1, 2}})
	bad("cd with more ranks than algorithms", f, err)
	f, err = CriticalDifferenceFigure(base("cdbad"), ColumnWidth, CriticalDifference{Algorithms: []string{strings.Repeat("long name ", 6), "b"}, MeanRanks: []float64{1, 2}})
	bad("cd with names too long for a column", f, err)

	f, err = BoxPlotFigure(base("box1"), ColumnWidth, BoxPlots{Metric: "ARI", Algorithms: []string{"only"}, Values: [][]float64{{0.5}}})
	ok("box of one value", f, err)
	f, err = BoxPlotFigure(base("boxeq"), ColumnWidth, BoxPlots{Metric: "ARI", Algorithms: []string{"a", "b"}, Values: [][]float64{{1, 1, 1}, {1, 1, 1}}, Points: true})
	ok("box of equal values", f, err)
	f, err = BoxPlotFigure(base("boxnan"), ColumnWidth, BoxPlots{Metric: "ARI", Algorithms: []string{"a", "b"}, Values: [][]float64{{nan, nan}, {0.2, 0.3}}})
	ok("box with an algorithm of no values", f, err)
	if err == nil && !strings.Contains(f.Caption, "a on 0 of 2 data sets") {
		t.Errorf("box caption %q does not count a's missing runs", f.Caption)
	}
	f, err = BoxPlotFigure(base("boxnone"), ColumnWidth, BoxPlots{Metric: "ARI", Algorithms: []string{"a"}, Values: [][]float64{{nan}}})
	ok("box of no values at all", f, err)
	f, err = BoxPlotFigure(base("boxbad"), ColumnWidth, BoxPlots{Algorithms: []string{"a"}, Values: [][]float64{{math.Inf(1)}}})
	bad("box of an infinite value", f, err)

	f, err = ProfileFigure(base("prof1"), ColumnWidth, Profile{Measure: "time", Unit: "s", Algorithms: []string{"only"}, Values: [][]float64{{2}}, Ratio: true})
	ok("profile of one algorithm and one problem", f, err)
	f, err = ProfileFigure(base("profeq"), ColumnWidth, Profile{Measure: "NCA", Algorithms: []string{"a", "b"}, Values: [][]float64{{1, 1}, {1, 1}}, HigherIsBetter: true})
	ok("profile of equal scores", f, err)
	f, err = ProfileFigure(base("proffail"), ColumnWidth, Profile{Measure: "time", Algorithms: []string{"a", "b"}, Values: [][]float64{{nan, nan}, {nan, math.Inf(1)}}, Ratio: true})
	ok("profile of failures only", f, err)
	f, err = ProfileFigure(base("profbad"), ColumnWidth, Profile{Measure: "time", Algorithms: []string{"a", "b"}, Values: [][]float64{{1, 2}, {1}}, Ratio: true})
	bad("profile of rows of unequal lengths", f, err)
	f, err = ProfileFigure(base("profbad"), ColumnWidth, Profile{Measure: "time", Algorithms: []string{"a"}, Values: [][]float64{{0}}, Ratio: true})
	bad("ratio profile of a time 0", f, err)
	f, err = ProfileFigure(base("profbad"), ColumnWidth, Profile{Measure: "time", Algorithms: []string{"a"}, Values: [][]float64{{}}})
	bad("profile of no problems", f, err)

	f, err = ScatterFigure(base("sceq"), ColumnWidth, Scatter{Metric: "NCA", X: "a", Y: "b", XValues: []float64{0.5, 0.5}, YValues: []float64{0.5, 0.5}, Labels: []string{"p", "q"}})
	ok("scatter of equal scores", f, err)
	f, err = ScatterFigure(base("scnan"), ColumnWidth, Scatter{Metric: "NCA", X: "a", Y: "b", XValues: []float64{nan}, YValues: []float64{0.5}})
	ok("scatter of no complete pair", f, err)
	f, err = ScatterFigure(base("scbad"), ColumnWidth, Scatter{X: "a", Y: "b", XValues: []float64{1}, YValues: nil})
	bad("scatter of unequal lengths", f, err)
}

// TestPDFCanvasText checks that the PDF canvas keeps text that Windows-1252 has no room for:
// the ToUnicode map of the embedded font maps the glyphs of ρ and τ back to them. pdftotext
// reads the text where poppler is installed.
func TestPDFCanvasText(t *testing.T) {
	dir := t.TempDir()
	f, err := ProfileFigure(filepath.Join(dir, "p"), ColumnWidth, Profile{Measure: "time", Unit: "s", Algorithms: []string{"a", "b"}, Values: [][]float64{{1, 2}, {2, 1}}, Ratio: true})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := exec.LookPath("pdftotext"); err != nil {
		t.Skip("pdftotext (poppler-utils) is not installed")
	}
	out, err := exec.Command("pdftotext", f.Files[2], "-").Output()
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"ρ(τ): fraction of data sets", "log₂ scale"} {
		if !strings.Contains(string(out), want) {
			t.Errorf("the PDF's text has no %q:\n%s", want, out)
		}
	}
}
