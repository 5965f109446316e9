package reports

// The journal figures: a critical-difference diagram, box plots of a metric per algorithm,
// performance profiles and a scatter of two algorithms' scores, each drawn from plain data (names
// and numbers) by one function that writes base.png, base.svg and base.pdf and returns a caption
// sentence. They are sized for a journal's column (ColumnWidth) or page (PageWidth); their text
// is Liberation Sans (metrically Arial, the sans-serif most journals ask for in figures) at
// journalLabelSize and journalSmallSize, the sizes at which the figure is printed, since a
// figure placed at its own width is not scaled. None has a title inside it: the caption, which
// the page and a paper print under the figure, is the title, and a second one inside the plot
// would say the same thing twice (the "no doubled titles"); what a title would name (the
// metric, the number of data sets) is in the caption the function returns.

import (
	"errors"
	"fmt"
	"image/color"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// The widths of a journal figure: one column of a two-column page, and the whole page (the
// text widths of Elsevier's, Springer's and IEEE's templates, to a tenth of an inch).
const (
	ColumnWidth vg.Length = 3.5 * vg.Inch
	PageWidth   vg.Length = 7 * vg.Inch
)

// journalLabelSize is the size of axis labels and names; journalSmallSize that of tick labels,
// legends and the numbers beside names. Journals ask for 6 to 8 pt at the printed size at least.
const (
	journalLabelSize = 8
	journalSmallSize = 7
)

// journalFormats are the files of a journal figure: the PNG for the page, the SVG and the PDF
// (fonts embedded) for a paper.
var journalFormats = []string{".png", ".svg", ".pdf"}

// journalFont is the typeface of the journal figures.
var journalFont = font.Font{Typeface: "Liberation", Variant: "Sans"}

// Figure is what a figure function wrote: its files, in the order png, svg, pdf, and a caption
// for the page or a paper, which says what is shown and on how many data sets.
type Figure struct {
	Files   []string
	Caption string
}

// journalStyle is a text style of the journal figures of size pt.
func journalStyle(pt float64) text.Style {
	f := journalFont
	f.Size = vg.Points(pt)
	return text.Style{Color: color.Black, Font: f, XAlign: draw.XLeft, YAlign: draw.YBottom, Handler: plot.DefaultTextHandler}
}

// journalPlot returns an empty plot with the journal figures' fonts, no title and the given axis
// labels.
func journalPlot(xLabel, yLabel string) *plot.Plot {
	p := plot.New()
	for _, a := range []*plot.Axis{&p.X, &p.Y} {
		a.Label.TextStyle.Font = journalStyle(journalLabelSize).Font
		a.Tick.Label.Font = journalStyle(journalSmallSize).Font
		a.Label.Padding = vg.Points(3)
	}
	p.X.Label.Text, p.Y.Label.Text = xLabel, yLabel
	// The axes touch the data area: gonum's 5 pt gap between them read as a broken frame.
	p.X.Padding, p.Y.Padding = 0, 0
	p.Legend.TextStyle.Font = journalStyle(journalSmallSize).Font
	return p
}

// journalGrid is a light grid, under the data, that does not compete with it.
func journalGrid() *plotter.Grid {
	g := plotter.NewGrid()
	for _, l := range []*draw.LineStyle{&g.Vertical, &g.Horizontal} {
		l.Color, l.Width = color.Gray{Y: 220}, vg.Points(0.5)
	}
	return g
}

// checkWidth returns an error unless w is ColumnWidth or PageWidth.
func checkWidth(w vg.Length) error {
	if w != ColumnWidth && w != PageWidth {
		return fmt.Errorf("figure width %.2f in: want ColumnWidth (3.5 in) or PageWidth (7 in)", float64(w/vg.Inch))
	}
	return nil
}

// axisLabel is a metric's name with its unit in parentheses, if it has one.
func axisLabel(name, unit string) string {
	if unit == "" {
		return name
	}
	return name + " (" + unit + ")"
}

// finite reports whether v is neither NaN nor infinite.
func finite(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }

// dataSets is "1 data set" or "n data sets".
func dataSets(n int) string {
	if n == 1 {
		return "1 data set"
	}
	return strconv.Itoa(n) + " data sets"
}

// CriticalDifference is the input of CriticalDifferenceFigure.
type CriticalDifference struct {
	// Metric names the metric the ranks are of, for the caption ("NCA").
	Metric string
	// Algorithms and MeanRanks: each algorithm's mean rank over the data sets, 1 the best and
	// len(Algorithms) the worst; at least one algorithm.
	Algorithms []string
	MeanRanks  []float64
	// Groups are sets of indices into Algorithms, each a set of algorithms no two of which differ
	// significantly. Each is drawn as a bar from the lowest to the highest mean rank of its
	// members: a set that skips an algorithm inside that span (Holm-corrected pairwise tests
	// need not be transitive) is drawn over it, so a bar says "not shown to differ" only of its
	// members, as the caption says. Sets of one algorithm and sets whose span lies inside
	// another's are not drawn.
	Groups [][]int
	// Datasets is the number of data sets the ranks are over, and Alpha the level of the
	// Holm-corrected Wilcoxon signed-rank tests (0 means 0.05).
	Datasets int
	Alpha    float64
}

// The geometry of the critical-difference diagram, in points.
const (
	cdTick     = 3   // the length of a tick of the rank axis
	cdBarGap   = 5   // from the axis to the first bar, and between bars
	cdBarWidth = 2.5 // the thickness of a bar
	cdRow      = 11  // between the rows of names
	cdPad      = 3   // between a leader line's end and its name, and around the figure
)

// CriticalDifferenceFigure draws a critical-difference diagram (Demšar, JMLR 7, 2006, section
// 3.2.4) of d as base.png, base.svg and base.pdf, width wide (ColumnWidth or PageWidth; the
// height follows from the number of algorithms and bars). The axis of mean ranks runs from
// len(Algorithms) at the left to 1 at the right, as in Demšar's figures ("the lowest (best)
// ranks are to the right since we perceive the methods on the right side as better"). Each
// algorithm hangs from its mean rank by a leader line to its name, the better half (by mean
// rank, ties by the order of Algorithms) on the right, the other half on the left, the rank
// printed above the leader line; each group of d.Groups is a thick bar under the axis. No
// critical-difference segment is drawn: its length is the Nemenyi test's, and the bars are the
// pairwise Wilcoxon–Holm tests' (Benavoli et al., JMLR 17, 2016).
func CriticalDifferenceFigure(base string, width vg.Length, d CriticalDifference) (Figure, error) {
	k := len(d.Algorithms)
	if err := checkWidth(width); err != nil {
		return Figure{}, err
	}
	if k == 0 || len(d.MeanRanks) != k {
		return Figure{}, fmt.Errorf("critical-difference diagram: %d algorithms and %d mean ranks, want the same number, at least one", k, len(d.MeanRanks))
	}
	for i, r := range d.MeanRanks {
		// Mean ranks lie in [1, k]; a little rounding either side is kept.
		if !(r >= 1-1e-9 && r <= float64(k)+1e-9) {
			return Figure{}, fmt.Errorf("critical-difference diagram: %s has mean rank %v, want one in [1, %d]", d.Algorithms[i], r, k)
		}
	}
	bars, err := cdBars(d)
	if err != nil {
		return Figure{}, err
	}
	alpha := d.Alpha
	if alpha == 0 {
		alpha = 0.05
	}
	order := make([]int, k) // algorithms by mean rank, the best first
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool { return d.MeanRanks[order[a]] < d.MeanRanks[order[b]] })
	right := order[:(k+1)/2] // the better half: the best in the top row
	left := slices.Clone(order[(k+1)/2:])
	slices.Reverse(left) // the worst in the top row, so that no leader lines cross

	name, small := journalStyle(journalLabelSize), journalStyle(journalSmallSize)
	rankText := func(i int) string { return strconv.FormatFloat(d.MeanRanks[i], 'f', 2, 64) }
	// Each side's margin holds the rank above the leader line and the name after its end.
	margin := vg.Length(0)
	for i := range d.Algorithms {
		margin = max(margin, small.Width(rankText(i))+name.Width(d.Algorithms[i]))
	}
	margin += 4 * cdPad
	xL, xR := margin, width-margin
	if xR-xL < vg.Inch {
		return Figure{}, fmt.Errorf("critical-difference diagram: the names leave %.2f in of %.2f in for the rank axis; use PageWidth or shorter names", float64((xR-xL)/vg.Inch), float64(width/vg.Inch))
	}
	hi := float64(max(k, 2)) // one algorithm: an axis from 2 to 1
	x := func(r float64) vg.Length { return xR - vg.Length((r-1)/(hi-1))*(xR-xL) }

	labelH := name.Height("M")
	tickH := small.Height("0")
	axisY := cdPad + labelH + 2 + tickH + 2 // from the top
	firstBar := axisY + cdBarGap
	rowsTop := firstBar + vg.Length(len(bars))*cdBarGap + cdRow
	if len(bars) == 0 {
		rowsTop = axisY + cdRow
	}
	rows := len(right)
	height := rowsTop + vg.Length(rows-1)*cdRow + labelH/2 + 2*cdPad
	black := draw.LineStyle{Color: color.Black, Width: vg.Points(0.75)}

	files, err := saveFigureAs(width, height, base, journalFormats, func(dc draw.Canvas) {
		top := dc.Max.Y
		y := func(fromTop vg.Length) vg.Length { return top - fromTop }
		// The axis label, the tick labels and the axis.
		lab := name
		lab.XAlign, lab.YAlign = draw.XCenter, draw.YTop
		dc.FillText(lab, vg.Point{X: (xL + xR) / 2, Y: y(cdPad)}, "mean rank (1 = best)")
		dc.StrokeLine2(black, xL, y(axisY), xR, y(axisY))
		tl := small
		tl.XAlign, tl.YAlign = draw.XCenter, draw.YBottom
		for r := 1; r <= int(hi); r++ {
			dc.StrokeLine2(black, x(float64(r)), y(axisY), x(float64(r)), y(axisY-cdTick))
			dc.FillText(tl, vg.Point{X: x(float64(r)), Y: y(axisY - cdTick - 1)}, strconv.Itoa(r))
			if r < int(hi) {
				h := float64(r) + 0.5
				dc.StrokeLine2(black, x(h), y(axisY), x(h), y(axisY-cdTick/2))
			}
		}
		// The leader lines, ranks and names.
		for side, algs := range [][]int{right, left} {
			for row, i := range algs {
				ry := y(rowsTop + vg.Length(row)*cdRow)
				xr := x(d.MeanRanks[i])
				end, rankX := xR+small.Width(rankText(i))+2*cdPad, xR+cdPad
				nt, rt := name, small
				nt.XAlign, nt.YAlign = draw.XLeft, draw.YCenter
				rt.XAlign, rt.YAlign = draw.XLeft, draw.YBottom
				if side == 1 {
					end, rankX = xL-small.Width(rankText(i))-2*cdPad, xL-cdPad
					nt.XAlign, rt.XAlign = draw.XRight, draw.XRight
				}
				dc.StrokeLines(black, []vg.Point{{X: xr, Y: y(axisY)}, {X: xr, Y: ry}, {X: end, Y: ry}})
				dc.FillText(rt, vg.Point{X: rankX, Y: ry + 1}, rankText(i))
				nx := end + cdPad
				if side == 1 {
					nx = end - cdPad
				}
				dc.FillText(nt, vg.Point{X: nx, Y: ry}, d.Algorithms[i])
			}
		}
		// The bars, over the leader lines, a little longer than their span so that a bar over
		// two tied ranks is seen.
		bar := draw.LineStyle{Color: color.Black, Width: vg.Points(cdBarWidth)}
		for j, b := range bars {
			by := y(firstBar + vg.Length(j)*cdBarGap)
			dc.StrokeLine2(bar, x(b[1])-cdPad, by, x(b[0])+cdPad, by)
		}
	})
	caption := fmt.Sprintf("Critical-difference diagram: mean ranks of %d algorithms by %s over %s (rank 1 is the best, at the right). "+
		"A thick bar joins algorithms of which no two differ significantly by the Wilcoxon signed-rank test with Holm's correction over all pairs at α = %g; "+
		"no critical-difference segment is drawn, since that length belongs to the Nemenyi test, which is not used.",
		k, d.Metric, dataSets(d.Datasets), alpha)
	return Figure{Files: files, Caption: caption}, err
}

// cdBars returns the bars of d.Groups as spans [lowest, highest mean rank], sorted by their
// lowest rank: without groups of fewer than two algorithms or spans inside another's.
func cdBars(d CriticalDifference) ([][2]float64, error) {
	var spans [][2]float64
	for _, g := range d.Groups {
		lo, hi := math.Inf(1), math.Inf(-1)
		members := map[int]bool{}
		for _, i := range g {
			if i < 0 || i >= len(d.Algorithms) {
				return nil, fmt.Errorf("critical-difference diagram: group %v names algorithm %d of %d", g, i, len(d.Algorithms))
			}
			members[i] = true
			lo, hi = min(lo, d.MeanRanks[i]), max(hi, d.MeanRanks[i])
		}
		if len(members) >= 2 {
			spans = append(spans, [2]float64{lo, hi})
		}
	}
	var bars [][2]float64
	for i, s := range spans {
		inside := slices.ContainsFunc(spans, func(o [2]float64) bool { return o != s && o[0] <= s[0] && s[1] <= o[1] })
		// Of equal spans, the first.
		inside = inside || slices.Contains(spans[:i], s)
		if !inside {
			bars = append(bars, s)
		}
	}
	slices.SortFunc(bars, func(a, b [2]float64) int {
		if c := cmpFloat(a[0], b[0]); c != 0 {
			return c
		}
		return cmpFloat(a[1], b[1])
	})
	return bars, nil
}

// cmpFloat compares a and b (not NaN).
func cmpFloat(a, b float64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// BoxPlots is the input of BoxPlotFigure.
type BoxPlots struct {
	// Metric and Unit name the values ("NCA", ""; "time", "s").
	Metric, Unit string
	// Algorithms and Values: Values[a][p] is algorithm a's value on data set p; NaN (a failed or
	// missing run) is left out and counted in the caption and in the algorithm's label.
	Algorithms []string
	Values     [][]float64
	// HigherIsBetter orders the boxes: the best median at the top.
	HigherIsBetter bool
	// KeepOrder keeps the order of Algorithms (top to bottom) instead.
	KeepOrder bool
	// Points draws every value, jittered across the box deterministically, under the boxes;
	// the outliers are then among them.
	Points bool
}

// The geometry of the box plots.
const (
	boxRow   = 0.24 * vg.Inch // the height of an algorithm's row
	boxWidth = 0.55           // a box's height, as a fraction of its row
)

// BoxPlotFigure draws a horizontal box plot per algorithm of b.Values as base.png, base.svg and
// base.pdf, width wide, a row per algorithm. A box spans the quartiles (linear interpolation,
// R's type 7) with a line at the median; Tukey's whiskers reach the most extreme values within
// 1.5 IQR of the box, and values beyond them are outliers, drawn as open circles. The metric is
// the x axis, so that the names are written level.
func BoxPlotFigure(base string, width vg.Length, b BoxPlots) (Figure, error) {
	k := len(b.Algorithms)
	if err := checkWidth(width); err != nil {
		return Figure{}, err
	}
	if k == 0 || len(b.Values) != k {
		return Figure{}, fmt.Errorf("box plots: %d algorithms and %d rows of values, want the same number, at least one", k, len(b.Values))
	}
	n := 0 // the data sets: the longest row
	stats := make([]boxStats, k)
	var all []float64
	for a, row := range b.Values {
		n = max(n, len(row))
		for _, v := range row {
			if math.IsInf(v, 0) {
				return Figure{}, fmt.Errorf("box plots: %s has the value %v; a failed run is NaN", b.Algorithms[a], v)
			}
			if !math.IsNaN(v) {
				all = append(all, v)
			}
		}
		stats[a] = tukey(row)
	}
	order := make([]int, k) // top to bottom
	for i := range order {
		order[i] = i
	}
	if !b.KeepOrder {
		sign := 1.0
		if b.HigherIsBetter {
			sign = -1
		}
		key := func(a int) float64 {
			if stats[a].n == 0 {
				return math.Inf(1) // no values: last
			}
			return sign * stats[a].median
		}
		sort.SliceStable(order, func(i, j int) bool { return key(order[i]) < key(order[j]) })
	}
	p := journalPlot(axisLabel(b.Metric, b.Unit), "")
	grid := journalGrid()
	grid.Horizontal.Width = 0 // the rows are named; a line through each box is clutter
	p.Add(grid)
	p.Y.Tick.Label.Font.Size = vg.Points(journalLabelSize) // the names
	var ticks []plot.Tick
	var incomplete []string
	for pos, a := range order {
		yc := float64(k - 1 - pos)
		label := b.Algorithms[a]
		if s := stats[a]; s.n < n {
			label += fmt.Sprintf(" (%d)", s.n)
			incomplete = append(incomplete, fmt.Sprintf("%s on %d", b.Algorithms[a], s.n))
		}
		ticks = append(ticks, plot.Tick{Value: yc, Label: label})
		if b.Points {
			p.Add(&jitterPoints{values: b.Values[a], y: yc, spread: boxWidth})
		}
		p.Add(&tukeyBox{s: stats[a], y: yc, outliers: !b.Points})
	}
	p.Y.Tick.Marker = plot.ConstantTicks(ticks)
	p.Y.Min, p.Y.Max = -0.6, float64(k)-0.4
	p.Y.Tick.Length = 0
	if len(all) > 0 {
		lo, hi := slices.Min(all), slices.Max(all)
		if lo == hi {
			r := max(0.5, 0.05*math.Abs(lo))
			lo, hi = lo-r, hi+r
		} else {
			lo, hi = lo-0.04*(hi-lo), hi+0.04*(hi-lo)
		}
		p.X.Min, p.X.Max = lo, hi
	} else {
		p.X.Min, p.X.Max = 0, 1
	}
	p.X.Tick.Marker = plainTicks{}
	height := vg.Length(k)*boxRow + 0.45*vg.Inch
	files, err := saveFigureAs(width, height, base, journalFormats, func(dc draw.Canvas) { p.Draw(dc) })

	better := "lower is better"
	if b.HigherIsBetter {
		better = "higher is better"
	}
	caption := fmt.Sprintf("%s of %d algorithms over %s (%s)", b.Metric, k, dataSets(n), better)
	if !b.KeepOrder {
		caption += ", the best median at the top"
	}
	caption += ". Boxes span the quartiles with a line at the median; whiskers reach the most extreme values within 1.5 times the interquartile range, and values beyond them are drawn as points."
	if b.Points {
		caption = strings.TrimSuffix(caption, "values beyond them are drawn as points.") + "every value is drawn as a grey point, spread across its box."
	}
	if len(incomplete) > 0 {
		caption += fmt.Sprintf(" Failed or missing runs are left out: %s of %s (the number after a name).", strings.Join(incomplete, ", "), dataSets(n))
	}
	return Figure{Files: files, Caption: caption}, err
}

// boxStats are the quartiles, whiskers and outliers of an algorithm's values.
type boxStats struct {
	n                 int // values, NaN left out
	q1, median, q3    float64
	lowWhisk, hiWhisk float64 // the most extreme values within 1.5 IQR of the box
	outliers          []float64
}

// tukey returns the box statistics of values, NaN left out.
func tukey(values []float64) boxStats {
	var xs []float64
	for _, v := range values {
		if !math.IsNaN(v) {
			xs = append(xs, v)
		}
	}
	s := boxStats{n: len(xs)}
	if len(xs) == 0 {
		return s
	}
	slices.Sort(xs)
	s.q1, s.median, s.q3 = quantile(xs, 0.25), quantile(xs, 0.5), quantile(xs, 0.75)
	lo, hi := s.q1-1.5*(s.q3-s.q1), s.q3+1.5*(s.q3-s.q1)
	s.lowWhisk, s.hiWhisk = math.Inf(1), math.Inf(-1)
	for _, v := range xs {
		if v < lo || v > hi {
			s.outliers = append(s.outliers, v)
			continue
		}
		s.lowWhisk, s.hiWhisk = min(s.lowWhisk, v), max(s.hiWhisk, v)
	}
	return s
}

// tukeyBox draws one horizontal box of s, centred on y.
type tukeyBox struct {
	s        boxStats
	y        float64
	outliers bool // draw the outliers (not when every point is drawn)
}

// Plot implements plot.Plotter.
func (t *tukeyBox) Plot(c draw.Canvas, p *plot.Plot) {
	s := t.s
	if s.n == 0 {
		return
	}
	trX, trY := p.Transforms(&c)
	yc := trY(t.y)
	half := (trY(t.y+boxWidth/2) - trY(t.y-boxWidth/2)) / 2
	line := draw.LineStyle{Color: color.Black, Width: vg.Points(0.75)}
	x1, xm, x3 := trX(s.q1), trX(s.median), trX(s.q3)
	box := []vg.Point{{X: x1, Y: yc - half}, {X: x3, Y: yc - half}, {X: x3, Y: yc + half}, {X: x1, Y: yc + half}, {X: x1, Y: yc - half}}
	c.StrokeLines(line, box)
	med := line
	med.Width = vg.Points(1.5)
	c.StrokeLine2(med, xm, yc-half, xm, yc+half)
	for _, w := range [][2]float64{{s.q1, s.lowWhisk}, {s.q3, s.hiWhisk}} {
		xw := trX(w[1])
		c.StrokeLine2(line, trX(w[0]), yc, xw, yc)
		c.StrokeLine2(line, xw, yc-half/2, xw, yc+half/2)
	}
	if t.outliers {
		g := draw.GlyphStyle{Color: color.Black, Radius: vg.Points(1.5), Shape: draw.RingGlyph{}}
		for _, v := range s.outliers {
			c.DrawGlyph(g, vg.Point{X: trX(v), Y: yc})
		}
	}
}

// DataRange implements plot.DataRanger.
func (t *tukeyBox) DataRange() (xmin, xmax, ymin, ymax float64) {
	xmin, xmax = t.s.lowWhisk, t.s.hiWhisk
	for _, v := range t.s.outliers {
		xmin, xmax = min(xmin, v), max(xmax, v)
	}
	if t.s.n == 0 {
		xmin, xmax = math.Inf(1), math.Inf(-1)
	}
	return xmin, xmax, t.y - boxWidth/2, t.y + boxWidth/2
}

// jitterPoints draws values (NaN left out) as small grey points at y, each moved across the row
// by its own fixed offset within ±spread/2: the golden-ratio sequence of its index, so that the
// same values are always drawn at the same places and near values fall apart.
type jitterPoints struct {
	values    []float64
	y, spread float64
}

// Plot implements plot.Plotter.
func (j *jitterPoints) Plot(c draw.Canvas, p *plot.Plot) {
	trX, trY := p.Transforms(&c)
	g := draw.GlyphStyle{Color: color.Gray{Y: 150}, Radius: vg.Points(1.2), Shape: draw.CircleGlyph{}}
	for i, v := range j.values {
		if math.IsNaN(v) {
			continue
		}
		off := (math.Mod(float64(i+1)*0.6180339887498949, 1) - 0.5) * j.spread
		c.DrawGlyph(g, vg.Point{X: trX(v), Y: trY(j.y + off)})
	}
}

// Profile is the input of ProfileFigure.
type Profile struct {
	// Measure and Unit name the values ("time", "s"; "NCA", "").
	Measure, Unit string
	// Algorithms and Values: Values[a][p] is algorithm a's value on problem (data set) p, all
	// rows of one length; NaN or ±Inf is a failed or missing run, which never counts as solved.
	Algorithms []string
	Values     [][]float64
	// Ratio draws the profile of Dolan and Moré (Math. Program. 91, 2002): the ratio
	// τ = value / the best value on the problem, on a log₂ axis from 1, for values that are
	// positive and lower is better (times). Otherwise the profile is of the difference
	// δ = |value − the best value on the problem| on a linear axis from 0, for a score such as
	// NCA, where a ratio has no meaning (scores of 0 or below, and the best score 1 would make
	// 1 − score a ratio of 0/0).
	Ratio bool
	// HigherIsBetter says which value is the best of a problem (not with Ratio).
	HigherIsBetter bool
}

// profileDashes are the dash patterns of the profiles' lines, with seriesColours: curves that
// coincide or cross stay apart in grey print and for a reader who confuses colours.
var profileDashes = [][]vg.Length{nil, {vg.Points(4), vg.Points(2)}, {vg.Points(1), vg.Points(1.5)}, {vg.Points(5), vg.Points(1.5), vg.Points(1), vg.Points(1.5)}}

// ProfileFigure draws the performance profile of each algorithm of pr as base.png, base.svg and
// base.pdf, width wide: ρ(τ), the fraction of the problems on which the algorithm's ratio (or
// difference) to the best algorithm of the problem is at most τ, a step line per algorithm
// from τ = 1 (δ = 0), where ρ is the fraction on which it is the best, to the largest finite
// ratio (difference), past which it stays level: below 1 if it failed on any problem. A problem
// on which every algorithm failed counts against every one. The legend is right of the plot.
func ProfileFigure(base string, width vg.Length, pr Profile) (Figure, error) {
	k := len(pr.Algorithms)
	if err := checkWidth(width); err != nil {
		return Figure{}, err
	}
	if k == 0 || len(pr.Values) != k {
		return Figure{}, fmt.Errorf("performance profile: %d algorithms and %d rows of values, want the same number, at least one", k, len(pr.Values))
	}
	n := len(pr.Values[0])
	for a, row := range pr.Values {
		if len(row) != n {
			return Figure{}, fmt.Errorf("performance profile: %s has %d values and %s %d, want one per problem for each", pr.Algorithms[a], len(row), pr.Algorithms[0], n)
		}
		for _, v := range row {
			if pr.Ratio && finite(v) && v <= 0 {
				return Figure{}, fmt.Errorf("performance profile: %s has the value %v; a ratio profile needs values above 0", pr.Algorithms[a], v)
			}
		}
	}
	if n == 0 {
		return Figure{}, errors.New("performance profile: no problems")
	}
	perf := profileRatios(pr)
	// The x axis: log₂ τ from 0, or δ from 0, to the largest finite value.
	most := 0.0
	for _, row := range perf {
		for _, r := range row {
			if finite(r) {
				most = max(most, r)
			}
		}
	}
	xOf := func(r float64) float64 { return r }
	xLabel := fmt.Sprintf("δ: %s below the best on the data set", axisLabel(pr.Measure, pr.Unit))
	if !pr.HigherIsBetter {
		xLabel = fmt.Sprintf("δ: %s above the best on the data set", axisLabel(pr.Measure, pr.Unit))
	}
	yLabel := "ρ(δ): fraction of data sets"
	var xMax float64
	if pr.Ratio {
		xOf = math.Log2
		xLabel = fmt.Sprintf("τ: %s / the best %s on the data set (log₂ scale)", pr.Measure, pr.Measure)
		yLabel = "ρ(τ): fraction of data sets"
		xMax = max(1, math.Ceil(math.Log2(most)*1.05*10)/10)
	} else {
		xMax = most * 1.05
		if xMax == 0 {
			xMax = 1
		}
	}
	p := journalPlot(xLabel, yLabel)
	p.Add(journalGrid())
	p.X.Min, p.X.Max = 0, xMax
	p.Y.Min, p.Y.Max = 0, 1.02
	p.Y.Tick.Marker = plainTicks{}
	p.X.Tick.Marker = plainTicks{}
	if pr.Ratio {
		p.X.Tick.Marker = log2Ticks{}
	}
	var entries []legendEntry
	var failed []string
	for a, row := range perf {
		var xs []float64
		bad := 0
		for _, r := range row {
			if finite(r) {
				xs = append(xs, xOf(r))
			} else {
				bad++
			}
		}
		if bad > 0 {
			failed = append(failed, fmt.Sprintf("%s %d", pr.Algorithms[a], bad))
		}
		slices.Sort(xs)
		// The steps: level at the fraction solved so far, up at each value.
		pts := plotter.XYs{{X: 0, Y: 0}}
		for i, x := range xs {
			pts = append(pts, plotter.XY{X: x, Y: pts[len(pts)-1].Y}, plotter.XY{X: x, Y: float64(i+1) / float64(n)})
		}
		pts = append(pts, plotter.XY{X: xMax, Y: pts[len(pts)-1].Y})
		line, err := plotter.NewLine(pts)
		if err != nil {
			return Figure{}, err
		}
		line.Color = seriesColour(a)
		line.Width = vg.Points(1.25)
		line.Dashes = profileDashes[(a/len(seriesColours)+a)%len(profileDashes)]
		p.Add(line)
		entries = append(entries, legendEntry{name: pr.Algorithms[a], line: line.LineStyle})
	}
	// The legend is under the plot, in as many columns as fit: beside it, it took a third of a
	// column's width from the data, and inside it, it would hide some curve on some data.
	legend := newGridLegend(entries, width)
	plotH := 2.4 * vg.Inch
	if width == PageWidth {
		plotH = 3.6 * vg.Inch
	}
	files, err := saveFigureAs(width, plotH+legend.height(), base, journalFormats, func(dc draw.Canvas) {
		p.Draw(draw.Crop(dc, 0, 0, legend.height(), 0))
		legend.draw(draw.Crop(dc, 0, 0, 0, -plotH))
	})

	var caption string
	if pr.Ratio {
		caption = fmt.Sprintf("Performance profiles (Dolan and Moré, 2002) of %d algorithms by %s over %s: ρ(τ) is the fraction of data sets on which an algorithm's %s is at most τ times the best algorithm's on that data set; ρ(1) is the fraction on which it is the best.",
			k, pr.Measure, dataSets(n), pr.Measure)
	} else {
		caption = fmt.Sprintf("Performance profiles of %d algorithms by %s over %s, by difference rather than ratio (a ratio of scores has no meaning): ρ(δ) is the fraction of data sets on which an algorithm's %s is within δ of the best algorithm's on that data set; ρ(0) is the fraction on which it is the best.",
			k, pr.Measure, dataSets(n), pr.Measure)
	}
	if len(failed) > 0 {
		caption += " Failed or missing runs count as never solved, so those curves stay below 1 (" + strings.Join(failed, ", ") + " of " + dataSets(n) + ")."
	}
	return Figure{Files: files, Caption: caption}, err
}

// legendEntry is a line of a legend: a name and the style of its series' line.
type legendEntry struct {
	name string
	line draw.LineStyle
}

// gridLegend lays out line entries in columns of one width, filled row by row, centred across
// the figure.
type gridLegend struct {
	entries    []legendEntry
	cols       int
	colW, rowH vg.Length
}

// The geometry of a gridLegend.
const (
	legendThumb  = 18 * vg.Length(1) // the length of an entry's line, in points
	legendSpace  = 3                 // between the line and the name, and around the legend
	legendColGap = 10                // between columns
)

// newGridLegend lays entries out in as many columns as fit width (at least one).
func newGridLegend(entries []legendEntry, width vg.Length) gridLegend {
	ts := journalStyle(journalSmallSize)
	g := gridLegend{entries: entries, rowH: ts.Height("M") * 1.35}
	for _, e := range entries {
		g.colW = max(g.colW, legendThumb+legendSpace+ts.Width(e.name))
	}
	g.cols = max(1, min(len(entries), int((width-2*legendSpace+legendColGap)/(g.colW+legendColGap))))
	return g
}

// height is the legend's height, with room above and below it.
func (g gridLegend) height() vg.Length {
	rows := (len(g.entries) + g.cols - 1) / g.cols
	return vg.Length(rows)*g.rowH + 2*legendSpace
}

// draw draws the legend at the top of dc.
func (g gridLegend) draw(dc draw.Canvas) {
	ts := journalStyle(journalSmallSize)
	ts.YAlign = draw.YCenter
	total := vg.Length(g.cols)*g.colW + vg.Length(g.cols-1)*legendColGap
	left := dc.Min.X + (dc.Size().X-total)/2
	for i, e := range g.entries {
		x := left + vg.Length(i%g.cols)*(g.colW+legendColGap)
		y := dc.Max.Y - legendSpace - (vg.Length(i/g.cols)+0.5)*g.rowH
		dc.StrokeLine2(e.line, x, y, x+legendThumb, y)
		dc.FillText(ts, vg.Point{X: x + legendThumb + legendSpace, Y: y}, e.name)
	}
}

// profileRatios returns, per algorithm and problem, the ratio to the problem's best value
// (pr.Ratio) or the difference from it, +Inf where the run failed (or every run of the problem
// did).
func profileRatios(pr Profile) [][]float64 {
	n := len(pr.Values[0])
	out := make([][]float64, len(pr.Values))
	for a := range out {
		out[a] = make([]float64, n)
	}
	for p := range n {
		best := math.NaN()
		for _, row := range pr.Values {
			v := row[p]
			if !finite(v) {
				continue
			}
			if math.IsNaN(best) || (pr.HigherIsBetter && !pr.Ratio && v > best) || ((!pr.HigherIsBetter || pr.Ratio) && v < best) {
				best = v
			}
		}
		for a, row := range pr.Values {
			v := row[p]
			switch {
			case !finite(v) || math.IsNaN(best):
				out[a][p] = math.Inf(1)
			case pr.Ratio:
				out[a][p] = max(1, v/best) // not below 1 by rounding
			default:
				out[a][p] = math.Abs(v - best)
			}
		}
	}
	return out
}

// log2Ticks marks an axis of log₂ τ at the powers of two, labelled with τ ("1", "2", "4", …,
// "1024"), every second or more of them where there would be more than 8, and at the halves
// between them unlabelled when there are few.
type log2Ticks struct{}

// Ticks implements plot.Ticker.
func (log2Ticks) Ticks(lo, hi float64) []plot.Tick {
	step := 1
	for (hi-lo)/float64(step) > 8 {
		step *= 2
	}
	var ticks []plot.Tick
	for e := int(math.Ceil(lo - 1e-9)); float64(e) <= hi+1e-9; e++ {
		t := plot.Tick{Value: float64(e)}
		if e%step == 0 {
			t.Label = strconv.FormatFloat(math.Exp2(float64(e)), 'g', -1, 64)
		}
		ticks = append(ticks, t)
	}
	if hi-lo <= 3 {
		for h := math.Ceil(lo*2-1e-9) / 2; h <= hi+1e-9; h += 1 {
			if h != math.Trunc(h) {
				ticks = append(ticks, plot.Tick{Value: h})
			}
		}
	}
	return ticks
}

// Scatter is the input of ScatterFigure.
type Scatter struct {
	// Metric and Unit name the scores ("NCA", "").
	Metric, Unit string
	// X and Y name the two algorithms; XValues[p] and YValues[p] are their scores on data set
	// p. A data set where either is NaN (failed or missing) is left out, and counted.
	X, Y             string
	XValues, YValues []float64
	// Labels, if not nil, label the points: Labels[p] is written beside data set p's point,
	// nothing where it is "" (label a few: the largest differences, say).
	Labels []string
	// HigherIsBetter says which side of y = x is Y's better side, for the caption.
	HigherIsBetter bool
}

// ScatterFigure draws Y's scores against X's, a point per data set, with the line y = x, as
// base.png, base.svg and base.pdf: width wide, both axes over the same range at the same scale
// (the data area is square). The caption counts the data sets above, below and on the line.
func ScatterFigure(base string, width vg.Length, s Scatter) (Figure, error) {
	if err := checkWidth(width); err != nil {
		return Figure{}, err
	}
	if len(s.XValues) != len(s.YValues) || (s.Labels != nil && len(s.Labels) != len(s.XValues)) {
		return Figure{}, fmt.Errorf("scatter: %d values of %s, %d of %s and %d labels, want one per data set each", len(s.XValues), s.X, len(s.YValues), s.Y, len(s.Labels))
	}
	var pts plotter.XYs
	var labels []string
	above, below, on, missing := 0, 0, 0, 0
	for i := range s.XValues {
		x, y := s.XValues[i], s.YValues[i]
		if !finite(x) || !finite(y) {
			missing++
			continue
		}
		pts = append(pts, plotter.XY{X: x, Y: y})
		if s.Labels != nil {
			labels = append(labels, s.Labels[i])
		}
		// Equal to the last few bits: scores of the same partition computed in another order.
		switch tol := 1e-12 * max(1, math.Abs(x), math.Abs(y)); {
		case y > x+tol:
			above++
		case y < x-tol:
			below++
		default:
			on++
		}
	}
	lo, hi := 0.0, 1.0
	if len(pts) > 0 {
		lo, hi = math.Inf(1), math.Inf(-1)
		for _, q := range pts {
			lo, hi = min(lo, q.X, q.Y), max(hi, q.X, q.Y)
		}
		if lo == hi {
			r := max(0.5, 0.05*math.Abs(lo))
			lo, hi = lo-r, hi+r
		} else {
			lo, hi = lo-0.05*(hi-lo), hi+0.05*(hi-lo)
		}
	}
	p := journalPlot(axisLabel(s.Metric, s.Unit)+" of "+s.X, axisLabel(s.Metric, s.Unit)+" of "+s.Y)
	p.Add(journalGrid())
	diag, err := plotter.NewLine(plotter.XYs{{X: lo, Y: lo}, {X: hi, Y: hi}})
	if err != nil {
		return Figure{}, err
	}
	diag.Color = color.Gray{Y: 96}
	diag.Dashes = []vg.Length{vg.Points(3), vg.Points(2)}
	p.Add(diag)
	if len(pts) > 0 {
		sc, err := plotter.NewScatter(pts)
		if err != nil {
			return Figure{}, err
		}
		sc.GlyphStyle = draw.GlyphStyle{Color: seriesColour(0), Radius: vg.Points(2), Shape: draw.RingGlyph{}}
		p.Add(sc)
		if slices.ContainsFunc(labels, func(l string) bool { return l != "" }) {
			p.Add(&pointLabels{pts: pts, labels: labels, radius: sc.GlyphStyle.Radius})
		}
	}
	p.X.Min, p.X.Max, p.Y.Min, p.Y.Max = lo, hi, lo, hi
	p.X.Tick.Marker, p.Y.Tick.Marker = plainTicks{}, plainTicks{}
	// The height that makes the data area square: the axes' labels take more room across than
	// up, and one correction is exact, since the room they take does not depend on the height.
	h := width
	da := p.DataCanvas(draw.Canvas{Rectangle: vg.Rectangle{Max: vg.Point{X: width, Y: h}}})
	h += da.Size().X - da.Size().Y
	files, err := saveFigureAs(width, h, base, journalFormats, func(dc draw.Canvas) { p.Draw(dc) })

	better := "higher is better"
	if !s.HigherIsBetter {
		better = "lower is better"
	}
	caption := fmt.Sprintf("%s of %s (y) against %s (x), a point per data set on the %s where both completed, with the line y = x: %s scores higher on %d (above the line), lower on %d and the same on %d; %s.",
		s.Metric, s.Y, s.X, dataSets(len(pts)), s.Y, above, below, on, better)
	if missing > 0 {
		caption += fmt.Sprintf(" %s where either failed or is missing are left out.", strings.ToUpper(dataSets(missing)[:1])+dataSets(missing)[1:])
	}
	return Figure{Files: files, Caption: caption}, err
}

// pointLabels writes labels[i] beside pts[i] (nothing for ""), each at the first of eight places
// around its point (right, left, above, below, then the corners) that stays inside the data
// area and covers no label already written and no point; failing that, the place that covers
// the fewest (a label over a label counts as ten points). gonum's Labels writes every label
// right of its point: labels of near points overwrote one another, and those near the right
// edge were cut off.
type pointLabels struct {
	pts    plotter.XYs
	labels []string
	radius vg.Length // of the points' glyphs
}

// Plot implements plot.Plotter.
func (l *pointLabels) Plot(c draw.Canvas, p *plot.Plot) {
	trX, trY := p.Transforms(&c)
	ts := journalStyle(journalSmallSize)
	var dots, placed []vg.Rectangle
	for _, q := range l.pts {
		at := vg.Point{X: trX(q.X), Y: trY(q.Y)}
		dots = append(dots, vg.Rectangle{Min: at.Sub(vg.Point{X: l.radius, Y: l.radius}), Max: at.Add(vg.Point{X: l.radius, Y: l.radius})})
	}
	overlaps := func(a, b vg.Rectangle) bool {
		return a.Min.X < b.Max.X && b.Min.X < a.Max.X && a.Min.Y < b.Max.Y && b.Min.Y < a.Max.Y
	}
	for i, text := range l.labels {
		if text == "" {
			continue
		}
		at := vg.Point{X: trX(l.pts[i].X), Y: trY(l.pts[i].Y)}
		w, h := ts.Width(text), ts.Height(text)
		gap := l.radius + 1
		// The lower left corners of the candidate places.
		corners := []vg.Point{
			{X: at.X + gap, Y: at.Y - h/2}, {X: at.X - gap - w, Y: at.Y - h/2},
			{X: at.X - w/2, Y: at.Y + gap}, {X: at.X - w/2, Y: at.Y - gap - h},
			{X: at.X + gap, Y: at.Y + gap}, {X: at.X - gap - w, Y: at.Y + gap},
			{X: at.X + gap, Y: at.Y - gap - h}, {X: at.X - gap - w, Y: at.Y - gap - h},
		}
		best, bestCost := vg.Rectangle{}, math.Inf(1)
		for _, m := range corners {
			r := vg.Rectangle{Min: m, Max: m.Add(vg.Point{X: w, Y: h})}
			cost := 0.0
			if !c.Contains(r.Min) || !c.Contains(r.Max) {
				cost += 1000
			}
			for _, o := range placed {
				if overlaps(r, o) {
					cost += 10
				}
			}
			for _, d := range dots {
				if overlaps(r, d) {
					cost++
				}
			}
			if cost < bestCost {
				best, bestCost = r, cost
			}
		}
		placed = append(placed, best)
		c.FillText(ts, best.Min, text)
	}
}
