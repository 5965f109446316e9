package reports

import (
	"context"
	"encoding/xml"
	"fmt"
	"image/color"
	"image/png"
	"io"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/hcbench/hcbench/experiments/results"
	"github.com/hcbench/hcbench/reports/golden"
)

// svgShape is a closed <path> of a gonum SVG: a glyph, a histogram bar or the background.
// Lines (series, grid, axes, ticks, the outline of a bar) are open paths and are not shapes.
type svgShape struct {
	colour                 string // the fill, or the stroke of an outlined glyph (ring, square, triangle)
	minX, maxX, minY, maxY float64
}

func (s svgShape) width() float64  { return s.maxX - s.minX }
func (s svgShape) height() float64 { return s.maxY - s.minY }

// svgNumber matches the path commands and numbers vgsvg writes (%.5g, so maybe with an exponent).
var svgNumber = regexp.MustCompile(`[A-Za-z]|[-+]?[0-9]*\.?[0-9]+(?:e[-+]?[0-9]+)?`)

// readPlot checks that base.png decodes as a PNG of at least 100×100 pixels and base.svg as SVG,
// and returns the closed shapes and the text of the SVG.
func readPlot(t *testing.T, base string) ([]svgShape, []string) {
	t.Helper()
	f, err := os.Open(base + ".png")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatalf("%s.png: %v", base, err)
	}
	if b := img.Bounds(); b.Dx() < 100 || b.Dy() < 100 {
		t.Errorf("%s.png is only %v", base, b)
	}
	svg, err := os.Open(base + ".svg")
	if err != nil {
		t.Fatal(err)
	}
	defer svg.Close()
	var shapes []svgShape
	var texts []string
	dec := xml.NewDecoder(svg)
	root := true
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("%s.svg is not SVG: %v", base, err)
		}
		switch e := tok.(type) {
		case xml.StartElement:
			if root && e.Name.Local != "svg" {
				t.Fatalf("%s.svg: root element <%s>, want <svg>", base, e.Name.Local)
			}
			root = false
			switch e.Name.Local {
			case "path":
				if s, ok := closedShape(t, e); ok {
					shapes = append(shapes, s)
				}
			case "text":
				var text string
				if err := dec.DecodeElement(&text, &e); err != nil {
					t.Fatalf("%s.svg: %v", base, err)
				}
				texts = append(texts, text)
			}
		}
	}
	if root {
		t.Fatalf("%s.svg is empty", base)
	}
	return shapes, texts
}

// closedShape reads a <path> element; false for an open path.
func closedShape(t *testing.T, e xml.StartElement) (svgShape, bool) {
	t.Helper()
	var d, style string
	for _, a := range e.Attr {
		switch a.Name.Local {
		case "d":
			d = a.Value
		case "style":
			style = a.Value
		}
	}
	if !strings.Contains(d, "Z") {
		return svgShape{}, false
	}
	props := map[string]string{}
	for _, p := range strings.Split(style, ";") {
		if k, v, ok := strings.Cut(p, ":"); ok {
			props[k] = v
		}
	}
	s := svgShape{colour: props["fill"], minX: math.Inf(1), maxX: math.Inf(-1), minY: math.Inf(1), maxY: math.Inf(-1)}
	if s.colour == "none" {
		s.colour = props["stroke"]
	}
	// The points of the path: pairs after M and L, the end point (the last two of seven numbers)
	// of an arc A.
	var cmd string
	var nums []float64
	flush := func() {
		var pts []float64
		switch cmd {
		case "M", "L":
			pts = nums
		case "A":
			for i := 0; i+7 <= len(nums); i += 7 {
				pts = append(pts, nums[i+5], nums[i+6])
			}
		case "", "Z":
		default:
			t.Fatalf("path command %s in %q", cmd, d)
		}
		for i := 0; i+1 < len(pts); i += 2 {
			s.minX, s.maxX = min(s.minX, pts[i]), max(s.maxX, pts[i])
			s.minY, s.maxY = min(s.minY, pts[i+1]), max(s.maxY, pts[i+1])
		}
		nums = nums[:0]
	}
	for _, tok := range svgNumber.FindAllString(d, -1) {
		if x, err := strconv.ParseFloat(tok, 64); err == nil {
			nums = append(nums, x)
			continue
		}
		flush()
		cmd = tok
	}
	flush()
	return s, true
}

// svgColour is c as vgsvg writes it.
func svgColour(c color.Color) string {
	r, g, b, a := c.RGBA()
	k := 255 / float64(a)
	return fmt.Sprintf("#%02X%02X%02X", int(float64(r)*k), int(float64(g)*k), int(float64(b)*k))
}

// defaultRadius is gonum's glyph radius, in points (the runtime plot's); scatterRadius is the
// z_vs_map scatter's.
const defaultRadius = 2.5

// countGlyphs counts the glyphs of colour c and radius r (points): closed shapes no wider or
// higher than 2.5r (gonum's glyphs fit in 2r, but for the pyramid's base of 2.17r).
func countGlyphs(shapes []svgShape, c color.Color, r float64) int {
	want, k := svgColour(c), 0
	for _, s := range shapes {
		if s.colour == want && s.width() <= 2.5*r && s.height() <= 2.5*r {
			k++
		}
	}
	return k
}

// checkHistogram checks the bars of a histogram plot against the expected counts per bin, left
// to right: the non-empty bins must be drawn as bars (gonum's grey fill) whose heights are in
// the ratio of the counts, to 1e-3 (vgsvg writes 5 digits; the bars are 50 to 200 pt high).
// The y axis starts at 0, so a bar's height is proportional to its count.
func checkHistogram(t *testing.T, shapes []svgShape, counts []int) {
	t.Helper()
	var bars []svgShape
	for _, s := range shapes {
		if s.colour == svgColour(color.Gray{Y: 128}) && s.height() > 0.01 {
			bars = append(bars, s)
		}
	}
	slices.SortFunc(bars, func(a, b svgShape) int { return int(math.Copysign(1, a.minX-b.minX)) })
	var want []int
	for _, c := range counts {
		if c > 0 {
			want = append(want, c)
		}
	}
	if len(bars) != len(want) {
		t.Fatalf("%d bars, want %d (counts %v)", len(bars), len(want), counts)
	}
	top, most := 0.0, slices.Max(want)
	for _, b := range bars {
		top = max(top, b.height())
	}
	for i, b := range bars {
		if got, w := b.height()/top, float64(want[i])/float64(most); math.Abs(got-w) > 1e-3 {
			t.Errorf("bar %d is %.4f of the tallest, want %d/%d", i, got, want[i], most)
		}
	}
}

// checkPlot checks that base.png and base.svg decode, and that the SVG shows at least points
// coloured closed shapes (glyphs and bars; not the white background).
func checkPlot(t *testing.T, pngPath, svgPath string, points int) {
	t.Helper()
	base := strings.TrimSuffix(pngPath, ".png")
	if svgPath != base+".svg" {
		t.Fatalf("checkPlot(%s, %s): not one plot", pngPath, svgPath)
	}
	shapes, _ := readPlot(t, base)
	k := 0
	for _, s := range shapes {
		if s.colour != svgColour(color.White) {
			k++
		}
	}
	if k < points {
		t.Errorf("%s has %d coloured shapes, want at least %d", svgPath, k, points)
	}
}

// TestRuntimeOneRecord is the smallest runtime report: one item and one algorithm. The plot's
// log axis must have a range (gonum widens a single value to ±1, below zero, and panicked) and
// labelled ticks (plot.LogTicks labels nothing between 1e-5 and 1e-4).
func TestRuntimeOneRecord(t *testing.T) {
	r := rec("jets", "greedy", -1, math.NaN(), "", 2.5e-5)
	r.Item, r.N = "0", 7
	in := Input{Experiment: "golden", Datasets: []string{"jets"}, Algorithms: []string{"greedy"}, Records: []results.Record{r}}
	dir := t.TempDir()
	if _, err := Write(context.Background(), []string{"runtime"}, in, dir); err != nil {
		t.Fatal(err)
	}
	golden.Check(t, filepath.Join(dir, "runtime.md"), "runtime_one.md")
	golden.Check(t, filepath.Join(dir, "runtime.csv"), "runtime_one.csv")
	shapes, texts := readPlot(t, filepath.Join(dir, "runtime"))
	// One point and its legend entry.
	if got := countGlyphs(shapes, seriesColour(0), defaultRadius); got != 2 {
		t.Errorf("%d greedy glyphs, want 1 point and 1 in the legend", got)
	}
	// The axis runs over the decade 1e-5 to 1e-4 s and labels both ends, with their unit.
	for _, label := range []string{"10 µs", "100 µs"} {
		if !slices.Contains(texts, label) {
			t.Errorf("no tick label %s among %q", label, texts)
		}
	}
}

// TestRuntimeEqualMedians has three algorithms whose every median is 1 ms (one range of one value
// again): each draws its two values of N and a legend entry.
func TestRuntimeEqualMedians(t *testing.T) {
	dir := t.TempDir()
	if _, err := Write(context.Background(), []string{"runtime"}, jetRecords(), dir); err != nil {
		t.Fatal(err)
	}
	shapes, texts := readPlot(t, filepath.Join(dir, "runtime"))
	for i, a := range jetRecords().Algorithms {
		if got := countGlyphs(shapes, seriesColour(i), defaultRadius); got != 3 {
			t.Errorf("%s: %d glyphs, want 2 points (N = 5, 6) and 1 in the legend", a, got)
		}
	}
	for _, label := range []string{"1 ms", "10 ms"} {
		if !slices.Contains(texts, label) {
			t.Errorf("no tick label %s among %q", label, texts)
		}
	}
}

func TestDecadeAxis(t *testing.T) {
	// Exact: powers of ten are the same float64 however they are computed here and there.
	for _, c := range []struct{ lo, hi, wantLo, wantHi float64 }{
		{2e-5, 6e-5, 1e-5, 1e-4},
		{1e-3, 1e-3, 1e-3, 1e-2},
		{2.5e-5, 2.5e-5, 1e-5, 1e-4},
		{0.5, 20, 0.1, 100},
		{3, 3, 1, 10},
	} {
		if lo, hi := decadeRange(c.lo, c.hi); lo != c.wantLo || hi != c.wantHi {
			t.Errorf("decadeRange(%g, %g) = %g, %g; want %g, %g", c.lo, c.hi, lo, hi, c.wantLo, c.wantHi)
		}
	}
	// 1e-5 to 1e-3 s (the axis holds log₁₀ seconds): labels at the three powers of ten, each at
	// its exponent, unlabelled ticks at 2..9 × 1e-5 and 1e-4.
	var labels []string
	ticks := decadeTicks{label: secondsLabel}.Ticks(-5, -3)
	for _, tk := range ticks {
		if tk.Label != "" {
			labels = append(labels, tk.Label)
			if e := math.Round(tk.Value); tk.Value != e {
				t.Errorf("label %q at %g, not at a power of ten", tk.Label, tk.Value)
			}
		}
	}
	if want := []string{"10 µs", "100 µs", "1 ms"}; !slices.Equal(labels, want) || len(ticks) != 3+2*8 {
		t.Errorf("%d ticks labelled %q; want 19 labelled %q", len(ticks), labels, want)
	}
	for e, want := range map[int]string{-10: "100 ps", -9: "1 ns", -7: "100 ns", -6: "1 µs", -4: "100 µs", -3: "1 ms", -1: "100 ms", 0: "1 s", 2: "100 s"} {
		if got := secondsLabel(e); got != want {
			t.Errorf("secondsLabel(%d) = %q, want %q", e, got, want)
		}
	}
}

// TestRuntimePlotPoints counts the points of TestRuntimeGolden's plot: each algorithm one per N
// (greedy and exact at N = 4, 5, 9; the failed exact task is left out) and a legend entry.
func TestRuntimePlotPoints(t *testing.T) {
	dir := t.TempDir()
	if _, err := Write(context.Background(), []string{"runtime"}, runtimeInput(), dir); err != nil {
		t.Fatal(err)
	}
	shapes, _ := readPlot(t, filepath.Join(dir, "runtime"))
	for i, a := range []string{"greedy", "exact"} {
		if got := countGlyphs(shapes, seriesColour(i), defaultRadius); got != 4 {
			t.Errorf("%s: %d glyphs, want 3 points and 1 in the legend", a, got)
		}
	}
}

// TestZVsMAPPlots counts the points of jetRecords' trellis: items 0, 1 at N = 5 and 2, 3 at N = 6,
// each N a colour with a legend entry; and log Z − MAP = 2.75, 3, 3.25, 4.125 in bins of width 1
// from 2 (Sturges' 1.375/3 and Freedman–Diaconis' 0.669 round up to 0.5 and 1; see histBins:
// numpy's "auto" takes the narrower, 0.458, which rounds to 0.5): [2, 2.5) empty, then 1, 2, 0, 0,
// 1 from 2.5 to 4.5.
func TestZVsMAPPlots(t *testing.T) {
	dir := t.TempDir()
	if _, err := Write(context.Background(), []string{"z_vs_map"}, jetRecords(), dir); err != nil {
		t.Fatal(err)
	}
	colours, err := nColours(2)
	if err != nil {
		t.Fatal(err)
	}
	shapes, _ := readPlot(t, filepath.Join(dir, "z_vs_map"))
	for i, n := range []int{5, 6} {
		if got := countGlyphs(shapes, colours[i], scatterRadius); got != 3 {
			t.Errorf("N = %d: %d glyphs, want 2 points and 1 in the legend", n, got)
		}
	}
	shapes, _ = readPlot(t, filepath.Join(dir, "z_minus_map"))
	checkHistogram(t, shapes, []int{1, 2, 0, 1})
}

// TestZVsMAPOneRecord is the smallest z_vs_map report: one item, so one point (the plot's range
// is padded around it) and a histogram of one value. The item is run by two trellis variants,
// which agree on log Z and the MAP: it is still one point and one item, not two.
func TestZVsMAPOneRecord(t *testing.T) {
	var recs []results.Record
	for _, label := range []string{"trellis", "trellis-again"} {
		r := withLogZ(rec("jets", label, -29.25, math.NaN(), "", 0.001), -26.5)
		r.Item, r.N, r.AlgorithmName = "0", 5, "trellis"
		recs = append(recs, r)
	}
	in := Input{Experiment: "golden", Datasets: []string{"jets"}, Algorithms: []string{"trellis", "trellis-again"}, Records: recs}
	dir := t.TempDir()
	if _, err := Write(context.Background(), []string{"z_vs_map"}, in, dir); err != nil {
		t.Fatal(err)
	}
	golden.Check(t, filepath.Join(dir, "z_vs_map.md"), "z_vs_map_one.md")
	golden.Check(t, filepath.Join(dir, "z_vs_map.csv"), "z_vs_map_one.csv")
	colours, err := nColours(1)
	if err != nil {
		t.Fatal(err)
	}
	shapes, _ := readPlot(t, filepath.Join(dir, "z_vs_map"))
	if got := countGlyphs(shapes, colours[0], scatterRadius); got != 2 {
		t.Errorf("%d glyphs, want 1 point and 1 in the legend", got)
	}
	shapes, _ = readPlot(t, filepath.Join(dir, "z_minus_map"))
	checkHistogram(t, shapes, []int{1})
}

// TestZVsMAPManyN has one trellis item at each of N = 5..19: 15 colours, none repeated (each
// colour's count would be off otherwise), and a legend of every second N (5, 7, …, 19).
func TestZVsMAPManyN(t *testing.T) {
	in := Input{Experiment: "golden", Datasets: []string{"jets"}, Algorithms: []string{"trellis"}}
	for n := 5; n < 20; n++ {
		r := withLogZ(rec("jets", "trellis", -3*float64(n), math.NaN(), "", 0.001), -2.5*float64(n))
		r.Item, r.N, r.AlgorithmName = strconv.Itoa(n), n, "trellis"
		in.Records = append(in.Records, r)
	}
	dir := t.TempDir()
	if _, err := Write(context.Background(), []string{"z_vs_map"}, in, dir); err != nil {
		t.Fatal(err)
	}
	colours, err := nColours(15)
	if err != nil {
		t.Fatal(err)
	}
	shapes, texts := readPlot(t, filepath.Join(dir, "z_vs_map"))
	for i, c := range colours {
		n, want := 5+i, 1
		if n%2 == 1 {
			want = 2
		}
		if got := countGlyphs(shapes, c, scatterRadius); got != want {
			t.Errorf("N = %d: %d glyphs, want %d", n, got, want)
		}
		if label := fmt.Sprintf("N = %d", n); slices.Contains(texts, label) != (want == 2) {
			t.Errorf("legend entry %q shown: %v, want %v", label, want != 2, want == 2)
		}
	}
}

func TestLegendNs(t *testing.T) {
	// Up to 12 values all; more, every ⌈k/10⌉-th from the first, and the last.
	for _, c := range []struct {
		k    int
		want []int
	}{
		{1, []int{0}},
		{12, []int{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11}},
		{13, []int{0, 2, 4, 6, 8, 10, 12}},
		{14, []int{0, 2, 4, 6, 8, 10, 12, 13}},
		{41, []int{0, 5, 10, 15, 20, 25, 30, 35, 40}}, // N = 20..60: 20, 25, …, 60
		{100, []int{0, 10, 20, 30, 40, 50, 60, 70, 80, 90, 99}},
	} {
		var got []int
		for i, show := range legendNs(c.k) {
			if show {
				got = append(got, i)
			}
		}
		if !slices.Equal(got, c.want) {
			t.Errorf("legendNs(%d) shows %v, want %v", c.k, got, c.want)
		}
	}
}

// TestNColours checks that the z_vs_map colours stay apart for up to 20 values of N: every two
// differ by ΔE*76 ≥ 6 in CIELAB (2.3 is a just noticeable difference; the scale gives 6.4 at
// k = 20), and each is lighter than the one before by at least 2 in L*, so that the scale reads
// in order.
func TestNColours(t *testing.T) {
	for k := 1; k <= 20; k++ {
		cs, err := nColours(k)
		if err != nil {
			t.Fatal(err)
		}
		labs := make([][3]float64, k)
		for i, c := range cs {
			labs[i] = cieLab(c)
		}
		for i := range labs {
			if i > 0 && labs[i][0]-labs[i-1][0] < 2 {
				t.Errorf("k = %d: L* %.1f after %.1f", k, labs[i][0], labs[i-1][0])
			}
			for j := i + 1; j < k; j++ {
				if d := math.Sqrt(sq(labs[i][0]-labs[j][0]) + sq(labs[i][1]-labs[j][1]) + sq(labs[i][2]-labs[j][2])); d < 6 {
					t.Errorf("k = %d: colours %d and %d differ by ΔE %.2f", k, i, j, d)
				}
			}
		}
	}
}

func sq(x float64) float64 { return x * x }

// cieLab converts an sRGB colour to CIELAB (D65 white), by the sRGB standard (IEC 61966-2-1)
// and CIE 15.
func cieLab(c color.Color) [3]float64 {
	r, g, b, _ := c.RGBA()
	lin := func(u uint32) float64 {
		v := float64(u) / 0xffff
		if v <= 0.04045 {
			return v / 12.92
		}
		return math.Pow((v+0.055)/1.055, 2.4)
	}
	R, G, B := lin(r), lin(g), lin(b)
	x := (0.4124*R + 0.3576*G + 0.1805*B) / 0.95047
	y := 0.2126*R + 0.7152*G + 0.0722*B
	z := (0.0193*R + 0.1192*G + 0.9505*B) / 1.08883
	f := func(t float64) float64 {
		if t > 216.0/24389 {
			return math.Cbrt(t)
		}
		return (24389.0/27*t + 16) / 116
	}
	return [3]float64{116*f(y) - 16, 500 * (f(x) - f(y)), 200 * (f(y) - f(z))}
}

// TestGapHistograms checks the bars of jetRecords' three gap histograms (item 2 has a −Inf greedy
// tree and is left out of the pairs with greedy), in bins of Sturges' width (narrower than
// Freedman–Diaconis' for so few values) rounded up to a round number, from a multiple of it:
//
//	trellis − beam:   0, 0.75, 0.5, 0: width 0.75/3 = 0.25, bins from 0: 2, 0, 1, 1
//	trellis − greedy: 1.25, 1, 0: 1.25/2.58 rounds to 0.5, bins from 0: 1, 0, 2
//	beam − greedy:    1.25, 0.25, 0: 0.5 from 0:                        2, 0, 1
func TestGapHistograms(t *testing.T) {
	dir := t.TempDir()
	if _, err := Write(context.Background(), []string{"likelihood_gap"}, jetRecords(), dir); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		pair   string
		counts []int
	}{
		{"trellis-beam", []int{2, 0, 1, 1}},
		{"trellis-greedy", []int{1, 0, 2}},
		{"beam-greedy", []int{2, 0, 1}},
	} {
		t.Run(c.pair, func(t *testing.T) {
			shapes, _ := readPlot(t, filepath.Join(dir, "gap-jets-"+c.pair))
			checkHistogram(t, shapes, c.counts)
		})
	}
}

// TestLikelihoodGapOneItem is the smallest likelihood_gap report: one item, two algorithms, so one
// difference (1.25), one histogram bar.
func TestLikelihoodGapOneItem(t *testing.T) {
	in := Input{Experiment: "golden", Datasets: []string{"jets"}, Algorithms: []string{"greedy", "trellis"}}
	for _, a := range []struct {
		name string
		ll   float64
	}{{"greedy", -30.5}, {"trellis", -29.25}} {
		r := rec("jets", a.name, a.ll, math.NaN(), "", 0.001)
		r.Item, r.N, r.AlgorithmName = "0", 5, a.name
		in.Records = append(in.Records, r)
	}
	dir := t.TempDir()
	if _, err := Write(context.Background(), []string{"likelihood_gap"}, in, dir); err != nil {
		t.Fatal(err)
	}
	golden.Check(t, filepath.Join(dir, "likelihood_gap.md"), "likelihood_gap_one.md")
	golden.Check(t, filepath.Join(dir, "likelihood_gap.csv"), "likelihood_gap_one.csv")
	shapes, _ := readPlot(t, filepath.Join(dir, "gap-jets-trellis-greedy"))
	checkHistogram(t, shapes, []int{1})
}

func TestHistogram(t *testing.T) {
	// Counts and ranges by hand. plotter.NewHist panicked on the first (found by a random search):
	// 153.99999999999997, one ulp below the maximum, divides to exactly 5 bin widths of 69.25 from
	// the minimum, past the last bin. Here Sturges' width 346.25/2.58 = 134 rounds to 200, from
	// −200. One value, or all equal: a narrow bin centred on it, a fifth of max(0.5, 5% of |v|)
	// wide. Integers 3, 4, 4, 5, 7: Sturges' 1.2 and Freedman–Diaconis' 1.17 round up to a whole 2,
	// with edges halfway between whole numbers. 0, 0.5, 1: width 0.387 rounds to 0.5; the maximum
	// is on an edge, and so in a bin of its own, [1, 1.5), not cut off at the end of the last.
	for _, c := range []struct {
		values []float64
		counts []float64
		lo, hi float64
	}{
		{[]float64{-192.25, 153.99999999999997, 154}, []float64{1, 2}, -200, 200},
		{[]float64{0}, []float64{1}, -0.05, 0.05},
		{[]float64{-40, -40}, []float64{2}, -40.2, -39.8},
		{[]float64{3, 4, 4, 5, 7}, []float64{1, 3, 1}, 1.5, 7.5},
		{[]float64{0, 0.5, 1}, []float64{1, 1, 1}, 0, 1.5},
		// Float noise below 0 is 0 (width 0.25 from 0), not a bin [−0.25, 0) of its own.
		{[]float64{-1e-14, 0, 1e-15, 0.5, 0.75}, []float64{3, 0, 1, 1}, 0, 1},
	} {
		h, _, _ := histogram(c.values)
		var counts []float64
		for _, b := range h.Bins {
			counts = append(counts, b.Weight)
		}
		if !slices.Equal(counts, c.counts) || h.Bins[0].Min != c.lo || h.Bins[len(h.Bins)-1].Max != c.hi {
			t.Errorf("histogram(%v): counts %v over [%g, %g]; want %v over [%g, %g]", c.values, counts, h.Bins[0].Min, h.Bins[len(h.Bins)-1].Max, c.counts, c.lo, c.hi)
		}
	}
}

// TestRuntimeLegendOutsidePanels: nightly's runtime legend had 20 entries over a third of the
// data. It is now one column right of the panels (a panel per group of unlikeInput, each filling
// its tile white): every algorithm has exactly one glyph there, in its colour, and no glyph there
// is inside a panel.
func TestRuntimeLegendOutsidePanels(t *testing.T) {
	dir := t.TempDir()
	in := unlikeInput()
	if _, err := Write(context.Background(), []string{"runtime"}, in, dir); err != nil {
		t.Fatal(err)
	}
	shapes, _ := readPlot(t, filepath.Join(dir, "runtime"))
	right := math.Inf(-1) // the right edge of the panels
	tiles := 0
	for _, s := range shapes[1:] { // the first is the figure's background
		if s.colour == svgColour(color.White) {
			right = max(right, s.maxX)
			tiles++
		}
	}
	if tiles != len(unlikeGroups) {
		t.Fatalf("%d panels, want %d", tiles, len(unlikeGroups))
	}
	for i, a := range in.Algorithms {
		var legend []svgShape
		for _, s := range shapes {
			if s.minX > right {
				legend = append(legend, s)
			}
		}
		if got := countGlyphs(legend, seriesColour(i), defaultRadius); got != 1 {
			t.Errorf("%s: %d glyphs right of the panels, want 1 legend entry", a, got)
		}
	}
}

// TestPlainTicks: gonum labelled the z_vs_map axes "-7.50", "2.50", "12.50", and ticked an axis
// from 0.5 to 12.5 at 1, 6 and 11. plainTicks labels round numbers: no trailing zero after a
// point, each label the tick's value to 1e-9, and every label a multiple of one step of 1, 2 or
// 5 times a power of ten, 4 to 10 of them.
func TestPlainTicks(t *testing.T) {
	for _, r := range [][2]float64{{-7.5, 12.5}, {0, 5}, {-72.5, -67.5}, {0.001, 0.0042}, {0.5, 12.5}, {-0.3, 0.3}} {
		var labelled []float64
		for _, tk := range (plainTicks{}).Ticks(r[0], r[1]) {
			if tk.Value < r[0]-1e-9 || tk.Value > r[1]+1e-9 {
				t.Errorf("%v: tick %g outside the range", r, tk.Value)
			}
			if tk.Label == "" {
				continue
			}
			labelled = append(labelled, tk.Value)
			if strings.Contains(tk.Label, ".") && strings.HasSuffix(tk.Label, "0") {
				t.Errorf("%v: label %q has a trailing zero", r, tk.Label)
			}
			if v, err := strconv.ParseFloat(tk.Label, 64); err != nil || math.Abs(v-tk.Value) > 1e-9*max(1, math.Abs(v)) {
				t.Errorf("%v: label %q of tick %g", r, tk.Label, tk.Value)
			}
		}
		if len(labelled) < 4 || len(labelled) > 10 {
			t.Errorf("%v: %d labels %v, want 4 to 10", r, len(labelled), labelled)
			continue
		}
		step := labelled[1] - labelled[0]
		m := step / math.Pow10(int(math.Floor(math.Log10(step)+1e-9)))
		if math.Abs(m-math.Round(m)) > 1e-9 || !slices.Contains([]float64{1, 2, 5}, math.Round(m)) {
			t.Errorf("%v: labels %v step by %g, not 1, 2 or 5 times a power of ten", r, labelled, step)
		}
		for _, v := range labelled {
			if k := v / step; math.Abs(k-math.Round(k)) > 1e-9 {
				t.Errorf("%v: label %g is not a multiple of the step %g", r, v, step)
			}
		}
	}
}
