package reports

import (
	"fmt"
	"image/color"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"

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

// saveFigure draws a w × h figure with paint and writes it as base.png and base.svg.
func saveFigure(w, h vg.Length, base string, paint func(draw.Canvas)) ([]string, error) {
	var files []string
	for _, ext := range []string{".png", ".svg"} {
		var c vg.CanvasWriterTo
		if ext == ".png" {
			c = vgimg.PngCanvas{Canvas: vgimg.New(w, h)}
		} else {
			c = vgsvg.New(w, h)
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
	return files, nil
}

// legendGap is the space between a plot and the legend beside it.
const legendGap = 0.15 * vg.Inch

// panelCols is the most panels a row of a figure of panels holds.
const panelCols = 3

// panelTitleSize is the size of a figure's title above its panels; the panels' own titles keep
// gonum's 12 pt.
const panelTitleSize = 14

// savePanels writes base.png and base.svg: title above a grid of panels (at most panelCols a row,
// in order, each pw × ph, their data areas aligned), and legend, if it has entries, in a column
// right of the grid, outside every panel's data. A report of several data sets draws a panel per
// data set in one figure, so that its file name does not depend on the data sets (a link to
// runtime.png keeps working) and no panel pools data sets.
func savePanels(title string, panels []*plot.Plot, legend *plot.Legend, pw, ph vg.Length, base string) ([]string, error) {
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
	lw := vg.Length(0)
	if legend != nil {
		legend.Top, legend.Left = true, true
		if lw = legend.Rectangle(draw.Canvas{}).Size().X; lw > 0 {
			lw += 2 * legendGap
		}
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
		if lw > 0 {
			// Level with the top of the first row's panels, below their titles.
			top := titleH + vg.Millimeter*2
			if p := panels[0]; p.Title.Text != "" {
				top += p.Title.TextStyle.Rectangle(p.Title.Text).Size().Y + p.Title.Padding
			}
			legend.Draw(draw.Crop(dc, w-lw+legendGap, 0, 0, -top))
		}
	})
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

// plainTicks are gonum's default ticks labelled without trailing zeros: "2.5" and "10", not
// "2.50" and "10.00", which read as a precision the axis does not have.
type plainTicks struct{}

// Ticks implements plot.Ticker.
func (plainTicks) Ticks(lo, hi float64) []plot.Tick {
	ticks := plot.DefaultTicks{}.Ticks(lo, hi)
	for i, t := range ticks {
		if strings.Contains(t.Label, ".") && !strings.ContainsAny(t.Label, "eE") {
			ticks[i].Label = strings.TrimSuffix(strings.TrimRight(t.Label, "0"), ".")
		}
	}
	return ticks
}

// addHistogram draws values as a histogram on p: counts on the y axis from 0, in whole numbers;
// the x axis over the bins with a margin. A title notes when all values are one number.
func addHistogram(p *plot.Plot, values []float64) {
	h, lo, hi := histogram(values)
	p.Add(h)
	p.X.Min, p.X.Max = lo, hi
	most := 0.0
	for _, b := range h.Bins {
		most = max(most, b.Weight)
	}
	p.Y.Min, p.Y.Max = 0, most*1.05
	p.Y.Tick.Marker = wholeTicks{}
	p.X.Tick.Marker = plainTicks{}
	snapped := snapNoise(values)
	switch v := strconv.FormatFloat(snapped[0], 'g', 6, 64); {
	case len(values) == 1:
		p.Title.Text += fmt.Sprintf("\n(1 item: %s)", v)
	case slices.Min(snapped) == slices.Max(snapped):
		p.Title.Text += fmt.Sprintf("\n(%d items, all %s)", len(values), v)
	}
}
