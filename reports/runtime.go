package reports

import (
	"fmt"
	"io"
	"math"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"

	"github.com/hcbench/hcbench/experiments/results"
	"github.com/hcbench/hcbench/reports/table"
)

func init() {
	Register(Report{
		Name:  "runtime",
		Help:  "median seconds per task against the number of leaves N, per algorithm: a table (Markdown and CSV) and a log-scale plot, a panel per data set, data sets that differ only in size (jets, leaves, t_cut, …) pooled in one panel and table (PNG and SVG)",
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

// runtimeByN groups the times of the successful records by group (groupOf of the data set),
// algorithm and N (ascending). A time of 0 (not recorded, or below the clock's resolution) cannot
// be shown on the log axis of the plot, so it is left out of the table as well, which then agrees
// with the plot; its items column counts the times kept. Every median is positive.
func runtimeByN(in Input, groupOf func(dataset string) string) map[[2]string][]runtimeStats {
	secs := map[[2]string]map[int][]float64{}
	for _, r := range in.Records {
		if r.Error != "" || r.Seconds <= 0 {
			continue
		}
		key := [2]string{groupOf(r.Dataset), r.Algorithm}
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

// runtime writes runtime.md (median task seconds by algorithm and N), runtime.csv (the same per
// data set, algorithm and N, with the fastest and slowest task) and the plot runtime.png / .svg
// (log scale). Data sets that differ only in size (sizeGroups: configs/trellis-scaling.yaml's
// one data set per N) are pooled by N in one table and one panel, so that their times make one
// curve; any other data sets stay apart, since an algorithm's cost depends on the model and
// the data as much as on N. runtime.csv keeps a row per data set.
func runtime(in Input, dir string) ([]string, error) {
	perDataset := runtimeByN(in, func(ds string) string { return ds })
	var timed []string
	for _, ds := range in.Datasets {
		if slices.ContainsFunc(in.Algorithms, func(a string) bool { return len(perDataset[[2]string{ds, a}]) > 0 }) {
			timed = append(timed, ds)
		}
	}
	groups := sizeGroups(in, timed)
	groupOf := map[string]string{}
	for _, g := range groups {
		for _, ds := range g.datasets {
			groupOf[ds] = g.name()
		}
	}
	stats := runtimeByN(in, func(ds string) string { return groupOf[ds] })
	csvT := table.Table{Header: []string{"dataset", "algorithm", "n", "items", "median_seconds", "min_seconds", "max_seconds"}}
	for _, ds := range timed {
		for _, a := range in.Algorithms {
			for _, s := range perDataset[[2]string{ds, a}] {
				csvT.Rows = append(csvT.Rows, []string{ds, a, strconv.Itoa(s.n), strconv.Itoa(s.items), num(s.median), num(s.lowest), num(s.most)})
			}
		}
	}
	var sections []section
	pooled := false
	for _, g := range groups {
		name := g.name()
		var algs []string
		nset := map[int]bool{}
		for _, a := range in.Algorithms {
			if st := stats[[2]string{name, a}]; len(st) > 0 {
				algs = append(algs, a)
				for _, s := range st {
					nset[s.n] = true
				}
			}
		}
		var ns []int
		for n := range nset {
			ns = append(ns, n)
		}
		slices.Sort(ns)
		md := table.Table{Header: []string{"N"}}
		if len(g.datasets) > 1 {
			pooled = true
			md.Header = append(md.Header, "data set")
		}
		md.Header = append(md.Header, algs...)
		md.Numeric = make([]bool, len(md.Header))
		for i := range md.Numeric {
			md.Numeric[i] = md.Header[i] != "data set"
		}
		for _, n := range ns {
			row := []string{strconv.Itoa(n)}
			if len(g.datasets) > 1 {
				var of []string
				for _, ds := range g.datasets {
					if slices.ContainsFunc(algs, func(a string) bool {
						return slices.ContainsFunc(perDataset[[2]string{ds, a}], func(s runtimeStats) bool { return s.n == n })
					}) {
						of = append(of, ds)
					}
				}
				row = append(row, strings.Join(of, ", "))
			}
			for _, a := range algs {
				cell := ""
				for _, s := range stats[[2]string{name, a}] {
					if s.n == n {
						cell = seconds(s.median)
					}
				}
				row = append(row, cell)
			}
			md.Rows = append(md.Rows, row)
		}
		sections = append(sections, section{title: name + ": median seconds per task", table: md})
	}
	notes := []string{"Median wall time per task (one algorithm on one item) by the number of leaves N; the plot, runtime.png / .svg, has a panel per table. runtime.csv has a row per data set, algorithm and N, with the fastest and the slowest task."}
	if pooled {
		notes = append(notes, "A table of several data sets pools data sets that differ only in size: in the number of items, their leaves, the Ginkgo t_cut that sets how many leaves a jet has, max_tries or sample_key, and in no other setting (data_params); where two of them share an N, its median runs over the tasks of both.")
	}
	files, err := writeReport(dir, "runtime", "Runtime: "+in.Experiment, sections, notes, csvFile{"runtime.csv", csvT, "no successful task has a recorded time above 0"})
	if err != nil || len(groups) == 0 {
		return files, err
	}
	plots, err := runtimePlot(in, groups, stats, dir)
	return append(files, plots...), err
}

// The size of a panel of runtime.png.
const runtimePanelW, runtimePanelH = 4.5 * vg.Inch, 3.5 * vg.Inch

// runtimePlot draws runtime.png and .svg: a panel per group of the medians against N (log
// scale), an algorithm a line with its own colour and marker (seriesColour, seriesShape, by its
// place among the algorithms of any panel, so the same in every panel), one legend beside the
// panels, which says which panels pool data sets and in what they differ.
func runtimePlot(in Input, groups []sizeGroup, stats map[[2]string][]runtimeStats, dir string) ([]string, error) {
	var algs []string // the algorithms of any panel, in config order: the legend's entries
	for _, a := range in.Algorithms {
		if slices.ContainsFunc(groups, func(g sizeGroup) bool { return len(stats[[2]string{g.name(), a}]) > 0 }) {
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
	// The legend says which panels pool data sets, and in what those differ.
	var notes []string
	for _, g := range groups {
		if len(g.datasets) > 1 {
			panel := "The panel"
			if len(groups) > 1 {
				panel = "Panel " + g.name()
			}
			notes = append(notes, fmt.Sprintf("%s pools %d data sets by N; they differ only in size (%s).", panel, len(g.datasets), strings.Join(g.differ, ", ")))
		}
	}
	var panels []*plot.Plot
	for _, g := range groups {
		p := plot.New()
		p.Title.Text = g.name()
		p.X.Label.Text = "N (leaves)"
		p.Y.Label.Text = "median time per task"
		p.Add(plotter.NewGrid())
		lo, hi := math.Inf(1), math.Inf(-1)
		nLo, nHi := math.Inf(1), math.Inf(-1)
		for _, a := range algs {
			for _, s := range stats[[2]string{g.name(), a}] {
				lo, hi = min(lo, s.median), max(hi, s.median)
				nLo, nHi = min(nLo, float64(s.n)), max(nHi, float64(s.n))
			}
		}
		y := logY(p, lo, hi)
		for i, a := range algs {
			st := stats[[2]string{g.name(), a}]
			if len(st) == 0 {
				continue
			}
			xys := make(plotter.XYs, len(st))
			for j, s := range st {
				xys[j] = plotter.XY{X: float64(s.n), Y: y(s.median)}
			}
			line, points, err := plotter.NewLinePoints(xys)
			if err != nil {
				return nil, err
			}
			line.Color, points.Color, points.Shape = seriesColour(i), seriesColour(i), seriesShape(i)
			p.Add(line, points)
		}
		// Half a leaf on each side, so that the points at the ends are not on the frame, and a
		// single N has a range.
		p.X.Min, p.X.Max = nLo-0.5, nHi+0.5
		p.X.Tick.Marker = wholeTicks{}
		panels = append(panels, p)
	}
	return savePanels(figureTitle("Runtime", in.Experiment, panels), panels, &legend, notes, runtimePanelW, runtimePanelH, filepath.Join(dir, "runtime"))
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

// logY makes p's y axis of seconds logarithmic over the decades around [lo, hi] (positive) and
// returns the value to plot for y: log₁₀ y, on a linear axis whose ticks (decadeTicks) are
// labelled with the powers of ten in seconds ("1 µs", "10 ms"). gonum's own log scale misplaces the y label: it reserves the label's room at the
// linear midpoint of the range, near the top of a log axis, and shrank the data area by a third.
func logY(p *plot.Plot, lo, hi float64) func(y float64) float64 {
	a, b := decadeRange(lo, hi)
	p.Y.Min, p.Y.Max = math.Log10(a), math.Log10(b)
	p.Y.Tick.Marker = decadeTicks{label: secondsLabel}
	return math.Log10
}

// decadeTicks marks an axis of log₁₀ values at every power of ten 10^e, labelled label(e), and at
// the multiples 2 to 9 of each between them, unlabelled. It replaces plot.LogTicks,
// which starts from the wrong decade below 1 (it truncates the logarithm toward zero): on an axis
// from 2e-5 to 6e-5 seconds it labels nothing.
type decadeTicks struct {
	label func(e int) string
}

// Ticks implements plot.Ticker for the log₁₀ range [lo, hi].
func (d decadeTicks) Ticks(lo, hi float64) []plot.Tick {
	var ticks []plot.Tick
	const eps = 1e-9 // the rounding of log₁₀ at the ends of the range
	for e := int(math.Floor(lo + eps)); e <= int(math.Ceil(hi-eps)); e++ {
		for m := 1; m < 10; m++ {
			v := float64(e) + math.Log10(float64(m))
			if v < lo-eps || v > hi+eps {
				continue
			}
			t := plot.Tick{Value: v}
			if m == 1 {
				v = float64(e)
				t.Value = v
				t.Label = d.label(e)
			}
			ticks = append(ticks, t)
		}
	}
	return ticks
}

// secondsLabel names 10^e seconds with the unit that makes it 1, 10 or 100: "100 ns", "1 µs",
// "10 ms", "1 s"; from 1000 s on, seconds ("1000 s", "1e+04 s").
func secondsLabel(e int) string {
	if e >= 0 {
		return strconv.FormatFloat(math.Pow10(e), 'g', 4, 64) + " s"
	}
	units := []string{"ms", "µs", "ns", "ps"}
	k := min((-e+2)/3, len(units)) // 10^e s = 10^(e+3k) of the k-th unit below seconds
	return strconv.FormatFloat(math.Pow10(e+3*k), 'g', -1, 64) + " " + units[k-1]
}

// writeCSV writes t to path.
func writeCSV(path string, t table.Table) error {
	return writeFile(path, func(w io.Writer) error { return table.WriteCSV(w, t) })
}
