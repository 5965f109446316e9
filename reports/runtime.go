package reports

import (
	"io"
	"math"
	"path/filepath"
	"slices"
	"strconv"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"

	"github.com/hcbench/hcbench/experiments/results"
	"github.com/hcbench/hcbench/reports/table"
)

func init() {
	Register(Report{
		Name:  "runtime",
		Help:  "per data set, median seconds per algorithm against the number of leaves N: a table (Markdown and CSV) and a log-scale plot with a panel per data set (PNG and SVG)",
		Build: runtime,
		Plots: []string{"runtime"},
	})
}

// runtimeStats are the task times of one algorithm at one N.
type runtimeStats struct {
	n                    int
	items                int
	median, lowest, most float64
}

// runtimeByN groups the times of the successful records by data set, algorithm and N
// (ascending). A time of 0 (not recorded, or below the clock's resolution) cannot be shown on the
// log axis of the plot, so it is left out of the table as well, which then agrees with the plot;
// its items column counts the times kept. Every median is positive.
func runtimeByN(in Input) map[[2]string][]runtimeStats {
	secs := map[[2]string]map[int][]float64{}
	for _, r := range in.Records {
		if r.Error != "" || r.Seconds <= 0 {
			continue
		}
		key := [2]string{r.Dataset, r.Algorithm}
		if secs[key] == nil {
			secs[key] = map[int][]float64{}
		}
		secs[key][r.N] = append(secs[key][r.N], r.Seconds)
	}
	out := map[[2]string][]runtimeStats{}
	for key, byN := range secs {
		var ns []int
		for n := range byN {
			ns = append(ns, n)
		}
		slices.Sort(ns)
		for _, n := range ns {
			xs := slices.Clone(byN[n])
			slices.Sort(xs)
			out[key] = append(out[key], runtimeStats{n: n, items: len(xs), median: results.Median(xs), lowest: xs[0], most: xs[len(xs)-1]})
		}
	}
	return out
}

// runtime writes runtime.md and runtime.csv (median task seconds per data set, algorithm and N)
// and the plot runtime.png / .svg (log scale), a panel per data set. Times of different data
// sets are not pooled: an algorithm's cost depends on the model as much as on N.
func runtime(in Input, dir string) ([]string, error) {
	stats := runtimeByN(in)
	csvT := table.Table{Header: []string{"dataset", "algorithm", "n", "items", "median_seconds", "min_seconds", "max_seconds"}}
	var sections []section
	var plotted []string
	for _, ds := range in.Datasets {
		var algs []string
		nset := map[int]bool{}
		for _, a := range in.Algorithms {
			if st := stats[[2]string{ds, a}]; len(st) > 0 {
				algs = append(algs, a)
				for _, s := range st {
					nset[s.n] = true
				}
			}
		}
		if len(algs) == 0 {
			continue
		}
		plotted = append(plotted, ds)
		var ns []int
		for n := range nset {
			ns = append(ns, n)
		}
		slices.Sort(ns)
		md := table.Table{Header: append([]string{"N"}, algs...), Numeric: make([]bool, len(algs)+1)}
		for i := range md.Numeric {
			md.Numeric[i] = true
		}
		for _, n := range ns {
			row := []string{strconv.Itoa(n)}
			for _, a := range algs {
				cell := ""
				for _, s := range stats[[2]string{ds, a}] {
					if s.n == n {
						cell = seconds(s.median)
					}
				}
				row = append(row, cell)
			}
			md.Rows = append(md.Rows, row)
		}
		for _, a := range algs {
			for _, s := range stats[[2]string{ds, a}] {
				csvT.Rows = append(csvT.Rows, []string{ds, a, strconv.Itoa(s.n), strconv.Itoa(s.items), num(s.median), num(s.lowest), num(s.most)})
			}
		}
		sections = append(sections, section{title: ds + ": median seconds per task", table: md})
	}
	notes := []string{"Median wall time per task (one algorithm on one item) by data set and the number of leaves N; the plot, runtime.png / .svg, has a panel per data set."}
	files, err := writeReport(dir, "runtime", "Runtime: "+in.Experiment, sections, notes, csvFile{"runtime.csv", csvT, "no successful task has a recorded time above 0"})
	if err != nil || len(plotted) == 0 {
		return files, err
	}
	plots, err := runtimePlot(in, plotted, stats, dir)
	return append(files, plots...), err
}

// runtimePlot draws runtime.png and .svg: a panel per data set of the medians against N (log
// scale), an algorithm a line with its own colour and marker (seriesColour, seriesShape, by its
// place among the algorithms of any panel, so the same in every panel), one legend beside the
// panels.
func runtimePlot(in Input, datasets []string, stats map[[2]string][]runtimeStats, dir string) ([]string, error) {
	var algs []string // the algorithms of any panel, in config order: the legend's entries
	for _, a := range in.Algorithms {
		if slices.ContainsFunc(datasets, func(ds string) bool { return len(stats[[2]string{ds, a}]) > 0 }) {
			algs = append(algs, a)
		}
	}
	legend := plot.NewLegend()
	for i, a := range algs {
		// An entry draws only the thumbnails of its plotters, not their points.
		line, points, err := plotter.NewLinePoints(plotter.XYs{{}})
		if err != nil {
			return nil, err
		}
		line.Color, points.Color, points.Shape = seriesColour(i), seriesColour(i), seriesShape(i)
		legend.Add(a, line, points)
	}
	var panels []*plot.Plot
	for _, ds := range datasets {
		p := plot.New()
		p.Title.Text = ds
		p.X.Label.Text = "N (leaves)"
		// No y label: the figure's title says what y is. gonum reserves room for a y label at
		// the linear midpoint of the range, near the top of a log axis, and shrank the data area
		// by a third to fit it.
		p.Y.Scale = plot.LogScale{}
		p.Y.Tick.Marker = decadeTicks{}
		p.Add(plotter.NewGrid())
		lo, hi := math.Inf(1), math.Inf(-1)
		nLo, nHi := math.Inf(1), math.Inf(-1)
		for i, a := range algs {
			st := stats[[2]string{ds, a}]
			if len(st) == 0 {
				continue
			}
			xys := make(plotter.XYs, len(st))
			for j, s := range st {
				xys[j] = plotter.XY{X: float64(s.n), Y: s.median}
				lo, hi = min(lo, s.median), max(hi, s.median)
				nLo, nHi = min(nLo, float64(s.n)), max(nHi, float64(s.n))
			}
			line, points, err := plotter.NewLinePoints(xys)
			if err != nil {
				return nil, err
			}
			line.Color, points.Color, points.Shape = seriesColour(i), seriesColour(i), seriesShape(i)
			p.Add(line, points)
		}
		// gonum widens an empty range (one median, or all equal) to ±1 around it, below zero,
		// which a log axis cannot show: whole decades always have room.
		p.Y.Min, p.Y.Max = decadeRange(lo, hi)
		// Half a leaf on each side, so that the points at the ends are not on the frame, and a
		// single N has a range.
		p.X.Min, p.X.Max = nLo-0.5, nHi+0.5
		p.X.Tick.Marker = wholeTicks{}
		panels = append(panels, p)
	}
	return savePanels("Runtime: "+in.Experiment+", median seconds per task", panels, &legend, 4.5*vg.Inch, 3.5*vg.Inch, filepath.Join(dir, "runtime"))
}

// wholeTicks marks an axis of whole numbers (N, counts) at whole numbers only, labelled without
// decimals ("25", never "25.00"), every 1, 2 or 5 times a power of ten: about six labels.
type wholeTicks struct{}

// Ticks implements plot.Ticker.
func (wholeTicks) Ticks(lo, hi float64) []plot.Tick {
	step := niceCount(max((hi-lo)/6, 1))
	var ticks []plot.Tick
	// From 0 rather than −0 (the ceiling of −0.5), which prints as "-0".
	for v := math.Ceil(lo/step)*step + 0; v <= hi; v += step {
		ticks = append(ticks, plot.Tick{Value: v, Label: strconv.FormatFloat(v, 'f', 0, 64)})
	}
	return ticks
}

// decadeRange returns the powers of ten around the positive range [lo, hi], at least one decade
// apart.
func decadeRange(lo, hi float64) (float64, float64) {
	a, b := math.Pow10(int(math.Floor(math.Log10(lo)))), math.Pow10(int(math.Ceil(math.Log10(hi))))
	if a == b {
		b *= 10
	}
	return a, b
}

// decadeTicks marks a log axis at every power of ten, labelled, and at the multiples 2 to 9 of
// each between them. It replaces plot.LogTicks, which starts from the wrong decade below 1 (it
// truncates the logarithm toward zero): on an axis from 2e-5 to 6e-5 seconds it labels nothing.
type decadeTicks struct{}

// Ticks implements plot.Ticker for 0 < lo ≤ hi.
func (decadeTicks) Ticks(lo, hi float64) []plot.Tick {
	var ticks []plot.Tick
	for e := int(math.Floor(math.Log10(lo))); e <= int(math.Ceil(math.Log10(hi))); e++ {
		d := math.Pow10(e)
		for m := 1; m < 10; m++ {
			v := float64(m) * d
			if v < lo || v > hi {
				continue
			}
			t := plot.Tick{Value: v}
			if m == 1 {
				t.Label = strconv.FormatFloat(v, 'g', -1, 64)
			}
			ticks = append(ticks, t)
		}
	}
	return ticks
}

// writeCSV writes t to path.
func writeCSV(path string, t table.Table) error {
	return writeFile(path, func(w io.Writer) error { return table.WriteCSV(w, t) })
}
