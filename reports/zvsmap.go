package reports

import (
	"fmt"
	"image/color"
	"math"
	"path/filepath"
	"slices"
	"strconv"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/palette/moreland"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/hcbench/hcbench/experiments/results"
	"github.com/hcbench/hcbench/reports/table"
)

func init() {
	Register(Report{
		Name:  "z_vs_map",
		Help:  "per data set, log Z against the exact MAP per item, coloured by N, with y = x (ML4PS 2020 Fig. 3), and the distribution of log Z − MAP: tables by N and plots with a panel per data set",
		Build: zVsMAP,
		Plots: []string{"z_vs_map", "z_minus_map"},
	})
}

// zPanelSize is the width of a panel of z_vs_map.png and z_minus_map.png, and the height of the
// first (the second is shorter).
const zPanelSize = 4.5 * vg.Inch

// zVsMAP plots log Z against the MAP log-likelihood of every exact trellis record (ML4PS 2020
// Fig. 3), one colour per number of leaves N, with the line y = x, a panel per data set, as
// z_vs_map.png and .svg; and the distribution of log Z − MAP, a panel per data set, as
// z_minus_map.png and .svg. It lists per data set and N the mean ± std of both and of
// their difference in z_vs_map.md and .csv. Data sets are never pooled: their models put the MAP
// on different scales (Ginkgo jets near −70, pam50 subsamples near −5).
func zVsMAP(in Input, dir string) ([]string, error) {
	byDS := map[string]map[int]plotter.XYs{}
	// In Write's record order, so that the sums below are the same every run. An item run by
	// several trellis variants (which agree on log Z and the MAP) is one point, its first record's.
	seen := map[[2]string]bool{}
	for _, r := range in.Records {
		if r.Error != "" || !r.HasRole(results.Exact) || r.LogZ == nil || r.LogLikelihood == nil {
			continue
		}
		key := [2]string{r.Dataset, r.Item}
		if seen[key] {
			continue
		}
		seen[key] = true
		z, m := r.LogZ.Value(), r.LogLikelihood.Value()
		if math.IsInf(z, -1) || math.IsInf(m, -1) {
			continue
		}
		if byDS[r.Dataset] == nil {
			byDS[r.Dataset] = map[int]plotter.XYs{}
		}
		byDS[r.Dataset][r.N] = append(byDS[r.Dataset][r.N], plotter.XY{X: m, Y: z})
	}

	csvT := table.Table{Header: []string{"dataset", "n", "items", "map_mean", "map_std", "logz_mean", "logz_std", "diff_mean", "diff_std"}}
	var sections []section
	for _, ds := range in.Datasets {
		byN := byDS[ds]
		if len(byN) == 0 {
			continue
		}
		md := table.Table{Header: []string{"N", "items", "MAP", "log Z", "log Z − MAP"}, Numeric: []bool{true, true, true, true, true}}
		for _, n := range sortedNs(byN) {
			var ms, zs, dd []float64
			for _, xy := range byN[n] {
				ms, zs, dd = append(ms, xy.X), append(zs, xy.Y), append(dd, xy.Y-xy.X)
			}
			mm, msd := meanStd(ms)
			zm, zsd := meanStd(zs)
			dm, dsd := meanStd(dd)
			md.Rows = append(md.Rows, []string{strconv.Itoa(n), strconv.Itoa(len(ms)), pm(mm, msd), pm(zm, zsd), pm(dm, dsd)})
			csvT.Rows = append(csvT.Rows, []string{ds, strconv.Itoa(n), strconv.Itoa(len(ms)), num(mm), num(msd), num(zm), num(zsd), num(dm), num(dsd)})
		}
		sections = append(sections, section{title: ds + ": by number of leaves N (mean ± std)", table: md})
	}
	notes := []string{
		"Records of the exact trellis in mode full with a finite MAP and log Z, per data set; the scatter is z_vs_map.png / .svg, the distribution of log Z − MAP z_minus_map.png / .svg, each with a panel per data set. ML4PS 2020 Fig. 3 shows the same for Ginkgo510.",
		fmt.Sprintf("The points are coloured by N from dark blue (smallest) through red to yellow (largest); with more than %d values of N the legend lists every few.", legendMax),
	}
	files, err := writeReport(dir, "z_vs_map", "log Z against the MAP: "+in.Experiment, sections, notes, csvFile{"z_vs_map.csv", csvT, "no exact trellis record has a finite log Z and MAP"})
	if err != nil {
		return files, err
	}
	var scatters, hists []*plot.Plot
	for _, ds := range in.Datasets {
		if len(byDS[ds]) == 0 {
			continue
		}
		sp, hp, err := zVsMAPPanels(ds, byDS[ds])
		if err != nil {
			return files, err
		}
		scatters, hists = append(scatters, sp), append(hists, hp)
	}
	if len(scatters) == 0 {
		return files, nil
	}
	plots, err := savePanels(figureTitle("log Z against the MAP", in.Experiment, scatters), scatters, nil, nil, zPanelSize, zPanelSize, filepath.Join(dir, "z_vs_map"))
	files = append(files, plots...)
	if err != nil {
		return files, err
	}
	plots, err = savePanels(figureTitle("log Z − MAP", in.Experiment, hists), hists, nil, nil, zPanelSize, 3.2*vg.Inch, filepath.Join(dir, "z_minus_map"))
	return append(files, plots...), err
}

// sortedNs returns the keys of byN, ascending.
func sortedNs(byN map[int]plotter.XYs) []int {
	var ns []int
	for n := range byN {
		ns = append(ns, n)
	}
	slices.Sort(ns)
	return ns
}

// zVsMAPPanels draws one data set's panels: the scatter of (MAP, log Z) points by N, with its
// legend in the empty corner below the diagonal, and the histogram of log Z − MAP.
func zVsMAPPanels(ds string, byN map[int]plotter.XYs) (*plot.Plot, *plot.Plot, error) {
	ns := sortedNs(byN)
	colours, err := nColours(len(ns))
	if err != nil {
		return nil, nil, err
	}
	p := plot.New()
	p.Title.Text = ds
	p.X.Label.Text = "MAP log-likelihood (nats)"
	p.Y.Label.Text = "log Z (nats)"
	p.Add(plotter.NewGrid())
	lo, hi := math.Inf(1), math.Inf(-1)
	var diffs []float64
	for _, n := range ns {
		for _, xy := range byN[n] {
			lo, hi = min(lo, xy.X, xy.Y), max(hi, xy.X, xy.Y)
			diffs = append(diffs, xy.Y-xy.X)
		}
	}
	ref := plotter.NewFunction(func(x float64) float64 { return x })
	ref.Dashes = []vg.Length{vg.Points(4), vg.Points(3)}
	ref.Color = color.Gray{Y: 90}
	p.Add(ref)
	p.Legend.Add("y = x", ref)
	inLegend := legendNs(len(ns))
	radius, alpha := markerStyle(len(diffs))
	for i, n := range ns {
		s, err := plotter.NewScatter(byN[n])
		if err != nil {
			return nil, nil, err
		}
		s.Color = translucent(colours[i], alpha)
		s.Shape = draw.CircleGlyph{}
		s.Radius = radius
		p.Add(s)
		if inLegend[i] {
			// The legend's glyph opaque and of the usual size, however faint the points.
			key := &plotter.Scatter{GlyphStyle: draw.GlyphStyle{Color: colours[i], Shape: draw.CircleGlyph{}, Radius: vg.Points(scatterRadius)}}
			p.Legend.Add(fmt.Sprintf("N = %d", n), key)
		}
	}
	// At least half a nat on each side, so that one point (or all on one spot) has a range.
	pad := max((hi-lo)*0.03, 0.5)
	p.X.Min, p.X.Max, p.Y.Min, p.Y.Max = lo-pad, hi+pad, lo-pad, hi+pad
	p.X.Tick.Marker, p.Y.Tick.Marker = plainTicks{}, plainTicks{}
	// The corner below the diagonal (MAP ≤ log Z always) is empty; the legend sits in it, clear of
	// the axes, in the ticks' size.
	p.Legend.Top, p.Legend.Left = false, false
	p.Legend.XOffs, p.Legend.YOffs = -2*vg.Millimeter, 2*vg.Millimeter
	p.Legend.TextStyle.Font.Size = vg.Points(10)

	h := plot.New()
	h.Title.Text = ds
	h.X.Label.Text = "log Z − MAP log-likelihood (nats)"
	h.Y.Label.Text = "items"
	addHistogram(h, diffs)
	return p, h, nil
}

// scatterRadius is the radius of a scatter's points, in points, where there are few of them.
const scatterRadius = 2

// markerStyle returns the radius and opacity of the points of a scatter of n points: up to 200,
// opaque points of scatterRadius; more, smaller and translucent ones (alpha 200/n, at least
// 0.25), so that where thousands overlap (ginkgo510's 5000 items) the density shows, and a point
// alone still does.
func markerStyle(n int) (vg.Length, float64) {
	if n <= 200 {
		return vg.Points(scatterRadius), 1
	}
	return vg.Points(1.4), max(0.25, 200/float64(n))
}

// translucent returns c with opacity alpha (premultiplied, as color.RGBA holds it).
func translucent(c color.Color, alpha float64) color.Color {
	if alpha >= 1 {
		return c
	}
	r, g, b, _ := c.RGBA()
	return color.NRGBA64{R: uint16(r), G: uint16(g), B: uint16(b), A: uint16(alpha * 0xffff)}
}

// legendMax is the most values of N the z_vs_map legend lists one by one.
const legendMax = 12

// nColours returns k colours for the k distinct values of N in ascending order, evenly spaced on
// gonum's extended black-body scale (dark blue, purple, red, orange, yellow; its luminance rises
// linearly). N is ordered, so a scale shows the order, and it never repeats where a qualitative
// palette (plotutil's 7 colours) does; the scale's black and white ends (below 0.15, above
// 0.75) are left out, so that every point shows on white and stays apart from the grid. Up to
// 20 values of N, neighbours differ by ΔE*76 ≥ 6.
func nColours(k int) ([]color.Color, error) {
	scale := moreland.ExtendedBlackBody()
	scale.SetMin(0)
	scale.SetMax(1)
	out := make([]color.Color, k)
	for i := range out {
		t := 0.45
		if k > 1 {
			t = 0.15 + 0.6*float64(i)/float64(k-1)
		}
		c, err := scale.At(t)
		if err != nil {
			return nil, err
		}
		out[i] = c
	}
	return out, nil
}

// legendNs says which of k ascending values of N the legend lists: all of up to legendMax,
// else every ⌈k/(legendMax−2)⌉-th from the smallest, and the largest, so that the legend keeps a
// readable length and still shows both ends of the colour scale.
func legendNs(k int) []bool {
	show := make([]bool, k)
	step := 1
	if k > legendMax {
		step = (k + legendMax - 3) / (legendMax - 2)
	}
	for i := 0; i < k; i += step {
		show[i] = true
	}
	if k > 0 {
		show[k-1] = true
	}
	return show
}
