package reports

import (
	"fmt"
	"image"
	"image/color"
	"io"
	"math"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"git.sr.ht/~sbinet/gg"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
	"gonum.org/v1/plot/vg/vgsvg"
)

// seriesColours are the colours of the series of a plot (the algorithms of the runtime plot): the
// ten of Tableau's "Tableau 10", matplotlib's default cycle, which stay apart from one another
// and from white. gonum's plotutil has seven, so that eight algorithms repeated a colour.
var seriesColours = []color.Color{
	color.RGBA{0x1f, 0x77, 0xb4, 0xff}, // blue
	color.RGBA{0xff, 0x7f, 0x0e, 0xff}, // orange
	color.RGBA{0x2c, 0xa0, 0x2c, 0xff}, // green
	color.RGBA{0xd6, 0x27, 0x28, 0xff}, // red
	color.RGBA{0x94, 0x67, 0xbd, 0xff}, // purple
	color.RGBA{0x8c, 0x56, 0x4b, 0xff}, // brown
	color.RGBA{0xe3, 0x77, 0xc2, 0xff}, // pink
	color.RGBA{0x7f, 0x7f, 0x7f, 0xff}, // grey
	color.RGBA{0xbc, 0xbd, 0x22, 0xff}, // olive
	color.RGBA{0x17, 0xbe, 0xcf, 0xff}, // cyan
}

// seriesShapes mark the series, with seriesColours: a colour and shape pair repeats after 30
// series. They are closed shapes only: a plus or a cross on the line through it is hard to make
// out.
var seriesShapes = []draw.GlyphDrawer{draw.CircleGlyph{}, draw.BoxGlyph{}, draw.PyramidGlyph{}, draw.RingGlyph{}, draw.SquareGlyph{}, draw.TriangleGlyph{}}

// seriesColour and seriesShape are the colour and marker of the i-th series of a plot.
func seriesColour(i int) color.Color     { return seriesColours[i%len(seriesColours)] }
func seriesShape(i int) draw.GlyphDrawer { return seriesShapes[i%len(seriesShapes)] }

// pngDPI is the resolution of the PNG files: 200 dots per inch, so that a plot 5 inches wide is
// 1000 pixels, sharp on a high-density screen and in print (gonum's default of 96 gave PNGs of
// 432 to 587 pixels). The SVG files are vector graphics of the same size in points.
const pngDPI = 200

// saveFigure draws a w × h figure with paint and writes it as base.png (pngDPI) and base.svg.
func saveFigure(w, h vg.Length, base string, paint func(draw.Canvas)) ([]string, error) {
	return saveFigureAs(w, h, base, []string{".png", ".svg"}, paint)
}

// saveFigureAs draws a w × h figure with paint once per format and writes it as base+ext for each
// of exts, in order: ".png" (pngDPI), ".svg" or ".pdf" (vector, fonts embedded: pdfCanvas).
// The reports' figures are PNG and SVG (saveFigure); the journal figures (journal.go) add the PDF.
func saveFigureAs(w, h vg.Length, base string, exts []string, paint func(draw.Canvas)) ([]string, error) {
	var files []string
	for _, ext := range exts {
		var c vg.CanvasWriterTo
		switch ext {
		case ".png":
			c = vgimg.PngCanvas{Canvas: pngCanvas(w, h)}
		case ".svg":
			c = vgsvg.New(w, h)
		case ".pdf":
			c = newPDFCanvas(w, h)
		default:
			return files, fmt.Errorf("figure %s: no format %q", base, ext)
		}
		dc := draw.New(c)
		// The PNG canvas starts transparent, and gonum's plots fill only their own area.
		dc.SetColor(color.White)
		dc.Fill(dc.Rectangle.Path())
		paint(dc)
		if err := writeFile(base+ext, func(w io.Writer) error { _, err := c.WriteTo(w); return err }); err != nil {
			return files, err
		}
		files = append(files, base+ext)
	}
	// The figure's image is garbage once written. Collecting it now, rather than once the heap
	// has doubled, keeps reports of many figures (a dendrogram per data set, a histogram per pair
	// of algorithms) at the memory of the largest, which the run's estimate counts (FigureBytes),
	// for a collection per figure (milliseconds, beside the drawing's tenths of a second).
	debug.FreeOSMemory()
	return files, nil
}

// pngCanvas returns an image canvas of w × h at pngDPI that draws on its one image: given no
// graphics context, gonum's canvas makes one on a copy of its image, which doubled what a figure
// took (the first copy garbage at once, but held until a collection). The context is set up as
// gonum sets up its own.
func pngCanvas(w, h vg.Length) *vgimg.Canvas {
	img := image.NewRGBA(image.Rect(0, 0, int(float64(w/vg.Inch)*pngDPI+0.5), int(float64(h/vg.Inch)*pngDPI+0.5)))
	ctx := gg.NewContextForRGBA(img)
	ctx.SetLineCapButt()
	ctx.InvertY()
	return vgimg.NewWith(vgimg.UseImageWithContext(img, ctx), vgimg.UseDPI(pngDPI))
}

// savePlot writes a single plot p, w × h, as base.png and base.svg (saveFigure).
func savePlot(p *plot.Plot, w, h vg.Length, base string) ([]string, error) {
	return saveFigure(w, h, base, func(dc draw.Canvas) { p.Draw(dc) })
}

// legendGap is the space between a plot and the legend beside it.
const legendGap = 0.15 * vg.Inch

// panelCols is the most panels a row of a figure of panels holds.
const panelCols = 3

// panelTitleSize is the size of a figure's title above its panels; the panels' own titles keep
// gonum's 12 pt.
const panelTitleSize = 14

// legendNoteSize is the size of the notes under a legend, and legendNoteWidth the most
// characters of a line of them.
const (
	legendNoteSize  = 10
	legendNoteWidth = 34
)

// figureTitle is the title of a figure of panels: "<what>: <experiment>" above several panels,
// each titled by its data set; a single panel has no title of its own, and the figure's is
// "<what>: <panel's title>", so that a figure has one title, never the data set's name twice.
func figureTitle(what, experiment string, panels []*plot.Plot) string {
	if len(panels) == 1 && panels[0].Title.Text != "" {
		t := panels[0].Title.Text
		panels[0].Title.Text = ""
		return what + ": " + t
	}
	return what + ": " + experiment
}

// savePanels writes base.png and base.svg: title above a grid of panels (at most panelCols a row,
// in order, each pw × ph, their data areas aligned), and legend, if it has entries, in a column
// right of the grid, outside every panel's data, with notes under it (wrapped to
// legendNoteWidth). A report of several data sets draws a panel per data set in one figure, so
// that its file name does not depend on the data sets (a link to runtime.png keeps working) and
// no panel pools unlike data sets.
func savePanels(title string, panels []*plot.Plot, legend *plot.Legend, notes []string, pw, ph vg.Length, base string) ([]string, error) {
	cols := min(len(panels), panelCols)
	rows := (len(panels) + cols - 1) / cols
	grid := make([][]*plot.Plot, rows)
	for r := range grid {
		grid[r] = make([]*plot.Plot, cols)
		for c := range grid[r] {
			if i := r*cols + c; i < len(panels) {
				grid[r][c] = panels[i]
			}
		}
	}
	ts := plot.New().Title.TextStyle
	ts.Font.Size = vg.Points(panelTitleSize)
	ts.YAlign = draw.YCenter
	titleH := vg.Length(0)
	if title != "" {
		titleH = ts.Rectangle(title).Size().Y + 0.2*vg.Inch
	}
	ns := plot.NewLegend().TextStyle
	ns.Font.Size = vg.Points(legendNoteSize)
	var lines []string
	for _, n := range notes {
		lines = append(lines, wrap(n, legendNoteWidth)...)
	}
	lw := vg.Length(0)
	if legend != nil {
		legend.Top, legend.Left = true, true
		lw = legend.Rectangle(draw.Canvas{}).Size().X
	}
	for _, l := range lines {
		lw = max(lw, ns.Rectangle(l).Size().X)
	}
	if lw > 0 {
		lw += 2 * legendGap
	}
	w, h := vg.Length(cols)*pw+lw, vg.Length(rows)*ph+titleH
	return saveFigure(w, h, base, func(dc draw.Canvas) {
		if title != "" {
			dc.FillText(ts, vg.Point{X: dc.Min.X + (w-lw)/2, Y: dc.Max.Y - titleH/2}, title)
		}
		area := draw.Crop(dc, 0, -lw, 0, -titleH)
		tiles := draw.Tiles{Rows: rows, Cols: cols, PadX: vg.Millimeter * 6, PadY: vg.Millimeter * 6,
			PadTop: vg.Millimeter * 2, PadBottom: vg.Millimeter * 2, PadLeft: vg.Millimeter * 2, PadRight: vg.Millimeter * 2}
		canvases := plot.Align(grid, tiles, area)
		for r := range grid {
			for c, p := range grid[r] {
				if p != nil {
					p.Draw(canvases[r][c])
				}
			}
		}
		if lw == 0 {
			return
		}
		// Level with the top of the first row's panels, below their titles.
		top := titleH + vg.Millimeter*2
		if p := panels[0]; p.Title.Text != "" {
			top += p.Title.TextStyle.Rectangle(p.Title.Text).Size().Y + p.Title.Padding
		}
		y := dc.Max.Y - top
		if legend != nil {
			legend.Draw(draw.Crop(dc, w-lw+legendGap, 0, 0, -top))
			y -= legend.Rectangle(draw.Canvas{}).Size().Y + ns.Rectangle(" ").Size().Y
		}
		ns.YAlign = draw.YTop
		for _, l := range lines {
			dc.FillText(ns, vg.Point{X: w - lw + legendGap, Y: y}, l)
			y -= ns.Rectangle(l).Size().Y * 1.15
		}
	})
}

// wrap breaks s into lines of at most width characters at spaces (a longer word is a line of
// its own).
func wrap(s string, width int) []string {
	var lines []string
	line := ""
	for _, w := range strings.Fields(s) {
		switch {
		case line == "":
			line = w
		case utf8.RuneCountInString(line)+1+utf8.RuneCountInString(w) <= width:
			line += " " + w
		default:
			lines = append(lines, line)
			line = w
		}
	}
	if line != "" {
		lines = append(lines, line)
	}
	return lines
}

// histogram bins values (finite, at least one) by histBins and returns the bars, with the
// x range to show them: the bins with a margin of 4% of their span on each side, so that no bar
// touches the plot's frame; for values all equal, five bar widths on each side. Values are first
// rounded to a multiple of 1e-9 of their range (at least 1e-12): differences that small are the
// float noise of sums taken in another order (a beam tree equal to the MAP tree, 1e-14 below it),
// which must not open a bin of their own below 0.
func histogram(values []float64) (h *plotter.Histogram, lo, hi float64) {
	values = snapNoise(values)
	edges := histBins(values)
	bins := make([]plotter.HistogramBin, len(edges)-1)
	for i := range bins {
		bins[i].Min, bins[i].Max = edges[i], edges[i+1]
	}
	for _, v := range values {
		// The bin whose [min, max) holds v, the last one closed: the edges come from the data,
		// so every value is inside them, and the search is exact where dividing by the width
		// would round a value on an edge into the wrong bin.
		i, _ := slices.BinarySearch(edges, v)
		if i == len(edges) || edges[i] != v {
			i--
		}
		bins[min(max(i, 0), len(bins)-1)].Weight++
	}
	width := edges[1] - edges[0]
	h = &plotter.Histogram{Bins: bins, Width: width, FillColor: color.Gray{Y: 128}, LineStyle: plotter.DefaultLineStyle}
	if len(bins) == 1 && slices.Min(values) == slices.Max(values) {
		return h, edges[0] - 5*width, edges[1] + 5*width
	}
	span := edges[len(edges)-1] - edges[0]
	return h, edges[0] - 0.04*span, edges[len(edges)-1] + 0.04*span
}

// snapNoise returns values rounded to a multiple of max(1e-9 × their range, 1e-12).
func snapNoise(values []float64) []float64 {
	eps := max(1e-9*(slices.Max(values)-slices.Min(values)), 1e-12)
	out := make([]float64, len(values))
	for i, v := range values {
		out[i] = math.Round(v/eps) * eps
		if out[i] == 0 {
			out[i] = 0 // not −0, which prints as "-0"
		}
	}
	return out
}

// histBins returns the bin edges for values (finite, at least one), all bins of one width:
//
//   - Values all equal: one narrow bin centred on them, a fifth of max(0.5, 5% of their
//     magnitude) wide, which histogram shows with five widths of room on each side: a single
//     difference is a bar at its value, not a block over a range the data do not have.
//   - Integers: bins of a whole width, with edges halfway between whole numbers (a width of 1
//     centres them on the numbers), so that no value lies on an edge.
//   - Otherwise the narrower of the Freedman–Diaconis width 2·IQR/∛n and Sturges' range/(log₂ n
//   - 1), as numpy's "auto" does: Sturges' for few values, where Freedman–Diaconis makes one
//     block of four, and Freedman–Diaconis for many; Sturges' alone where half the values or
//     more are equal (IQR 0: many gaps are exactly 0).
//
// The width is rounded up to 1, 2, 2.5 or 5 times a power of ten, and the edges are multiples of
// it, so that bins start at round numbers; there are at most 60 bins, and the last one holds the
// largest value.
func histBins(values []float64) []float64 {
	lo, hi := slices.Min(values), slices.Max(values)
	if lo == hi {
		r := max(0.5, 0.05*math.Abs(lo))
		return []float64{lo - r/10, lo + r/10}
	}
	integers := true
	for _, v := range values {
		integers = integers && v == math.Trunc(v) && math.Abs(v) < 1<<53
	}
	n := float64(len(values))
	sorted := slices.Clone(values)
	slices.Sort(sorted)
	w := (hi - lo) / (math.Log2(n) + 1) // Sturges
	if fd := 2 * (quantile(sorted, 0.75) - quantile(sorted, 0.25)) / math.Cbrt(n); fd > 0 {
		w = min(w, fd)
	}
	w = max(w, (hi-lo)/60)
	round, offset := niceWidth, 0.0
	if integers {
		round, offset = niceCount, -0.5 // whole widths, edges halfway between whole numbers
	}
	w = round(w)
	start := math.Floor((lo-offset)/w)*w + offset
	k := int(math.Floor((hi-start)/w)) + 1
	for k > 60 {
		w = round(w * 1.01)
		start = math.Floor((lo-offset)/w)*w + offset
		k = int(math.Floor((hi-start)/w)) + 1
	}
	if start > lo { // rounding of the division
		start -= w
		k++
	}
	edges := make([]float64, k+1)
	for i := range edges {
		edges[i] = start + float64(i)*w
	}
	for edges[k] <= hi { // rounding of the edges
		edges = append(edges, edges[len(edges)-1]+w)
		k++
	}
	return edges
}

// quantile is the q-quantile of sorted values by linear interpolation (type 7, R's default).
func quantile(sorted []float64, q float64) float64 {
	h := q * float64(len(sorted)-1)
	i := int(math.Floor(h))
	if i+1 >= len(sorted) {
		return sorted[len(sorted)-1]
	}
	return sorted[i] + (h-float64(i))*(sorted[i+1]-sorted[i])
}

// niceCount rounds w > 0 up to a whole 1, 2 or 5 times a power of ten, at least 1.
func niceCount(w float64) float64 {
	p := math.Pow10(max(0, int(math.Floor(math.Log10(w)))))
	for _, m := range []float64{1, 2, 5, 10} {
		if m*p >= w {
			return m * p
		}
	}
	return 10 * p
}

// niceWidth rounds w > 0 up to 1, 2, 2.5 or 5 times a power of ten.
func niceWidth(w float64) float64 {
	p := math.Pow10(int(math.Floor(math.Log10(w))))
	for _, m := range []float64{1, 2, 2.5, 5, 10} {
		if m*p >= w*(1-1e-12) {
			return m * p
		}
	}
	return 10 * p
}

// plainTicks mark a linear axis at round numbers: labelled ticks every 1, 2 or 5 times a power of
// ten, the step that gives 4 to 10 of them, and unlabelled ones between (a fifth of the step, a
// quarter for a step of 2), each labelled without trailing zeros ("2.5", "10"). gonum's default
// ticks labelled "-7.50" and, on an axis from 0.5 to 12.5, ticked 1, 6 and 11.
type plainTicks struct{}

// Ticks implements plot.Ticker.
func (plainTicks) Ticks(lo, hi float64) []plot.Tick {
	if !(hi > lo) {
		return plot.DefaultTicks{}.Ticks(lo, hi)
	}
	// The largest step with at least 4 labels: each candidate is at most 2.5 times the next, so
	// that it gives at most 10.
	p := math.Pow10(int(math.Floor(math.Log10(hi - lo))))
	step, minor := p/10, 5
	for _, c := range []struct {
		m     float64
		minor int
	}{{5, 5}, {2, 4}, {1, 5}, {0.5, 5}, {0.2, 4}, {0.1, 5}} {
		if math.Floor(hi/(c.m*p)+1e-9)-math.Ceil(lo/(c.m*p)-1e-9)+1 >= 4 {
			step, minor = c.m*p, c.minor
			break
		}
	}
	decimals := max(0, -int(math.Floor(math.Log10(step)+1e-9)))
	var ticks []plot.Tick
	sub := step / float64(minor)
	for k := math.Ceil(lo/sub - 1e-9); k*sub <= hi+1e-9*step; k++ {
		v := k * sub
		t := plot.Tick{Value: v}
		if math.Mod(k, float64(minor)) == 0 {
			scale := math.Pow10(decimals)
			v = math.Round(v*scale)/scale + 0 // + 0: not "-0"
			t.Label = strconv.FormatFloat(v, 'f', -1, 64)
			t.Value = v
		}
		ticks = append(ticks, t)
	}
	return ticks
}

// tailRatio is the least ratio of a histogram's tallest bar to its shortest non-empty one at
// which addHistogram counts items on a log axis: on a linear one, a bin of 1% of the tallest or
// less is a bar of a few pixels or none, and the tails of a distribution with many items in one
// bin (a beam that reaches the MAP on most items and falls several nats short on a few) would not
// show. Below it, a linear axis shows the shape better.
const tailRatio = 100

// addHistogram draws values as a histogram on p, the x axis over the bins with a margin. Counts
// are on a linear y axis from 0, in whole numbers; or, when the tallest bar is tailRatio times
// the shortest or more, on a log axis (labelled so) whose bars start below 1, so that a bin of
// one item shows beside one of thousands. Values all one number are a single narrow bar, which
// a line of text in the legend's place names ("60 items, all 0").
func addHistogram(p *plot.Plot, values []float64) {
	h, lo, hi := histogram(values)
	p.X.Min, p.X.Max = lo, hi
	p.X.Tick.Marker = plainTicks{}
	most, least := 0.0, math.Inf(1)
	for _, b := range h.Bins {
		most = max(most, b.Weight)
		if b.Weight > 0 {
			least = min(least, b.Weight)
		}
	}
	if most >= tailRatio*least {
		bars := &countBars{bins: h.Bins, base: math.Log10(0.6), fill: h.FillColor, line: h.LineStyle}
		p.Add(bars)
		p.Y.Min, p.Y.Max = bars.base, math.Log10(most*1.3)
		p.Y.Tick.Marker = countTicks{}
		p.Y.Label.Text += " (log scale)"
	} else {
		p.Add(h)
		p.Y.Min, p.Y.Max = 0, most*1.05
		p.Y.Tick.Marker = wholeTicks{}
	}
	snapped := snapNoise(values)
	switch v := strconv.FormatFloat(snapped[0], 'g', 6, 64); {
	case len(values) == 1:
		p.Legend.Add("1 item: " + v)
	case slices.Min(snapped) == slices.Max(snapped):
		p.Legend.Add(fmt.Sprintf("%d items, all %s", len(values), v))
	}
	p.Legend.Top = true
}

// countBars draws the bins of a histogram as bars on a log₁₀ count axis, from base (the axis's
// bottom, below log₁₀ 1 = 0, so that a bin of one item has a height) to log₁₀ of each bin's count;
// empty bins are not drawn. gonum's Histogram draws from 0, which is a count of 1 there.
type countBars struct {
	bins []plotter.HistogramBin
	base float64
	fill color.Color
	line draw.LineStyle
}

// Plot implements plot.Plotter.
func (b *countBars) Plot(c draw.Canvas, p *plot.Plot) {
	trX, trY := p.Transforms(&c)
	for _, bin := range b.bins {
		if bin.Weight <= 0 {
			continue
		}
		x0, x1 := trX(bin.Min), trX(bin.Max)
		y0, y1 := trY(b.base), trY(math.Log10(bin.Weight))
		pts := []vg.Point{{X: x0, Y: y0}, {X: x0, Y: y1}, {X: x1, Y: y1}, {X: x1, Y: y0}}
		c.FillPolygon(b.fill, c.ClipPolygonXY(pts))
		c.StrokeLines(b.line, c.ClipLinesXY(append(pts, pts[0]))...)
	}
}

// DataRange implements plot.DataRanger.
func (b *countBars) DataRange() (xmin, xmax, ymin, ymax float64) {
	xmin, xmax, ymax = math.Inf(1), math.Inf(-1), b.base
	for _, bin := range b.bins {
		xmin, xmax = min(xmin, bin.Min), max(xmax, bin.Max)
		if bin.Weight > 0 {
			ymax = max(ymax, math.Log10(bin.Weight))
		}
	}
	return xmin, xmax, b.base, ymax
}

// countTicks marks a log₁₀ axis of counts at 1, 10, 100, … (labelled) and the multiples 2 to 9
// between them, none below a count of 1.
type countTicks struct{}

// Ticks implements plot.Ticker.
func (countTicks) Ticks(lo, hi float64) []plot.Tick {
	return decadeTicks{label: func(e int) string { return strconv.FormatFloat(math.Pow10(e), 'f', -1, 64) }}.Ticks(max(lo, 0), hi)
}
