package reports

import (
	"github.com/hcbench/hcbench/experiments/results"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/hcbench/hcbench/reports/table"
)

func init() {
	Register(Report{
		Name:  "runtime",
		Help:  "median seconds per algorithm against the number of leaves N: a table (Markdown and CSV) and a log-scale plot (PNG and SVG)",
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

// runtimeByN groups the times of the successful records by algorithm and N (ascending). A time of
// 0 (not recorded, or below the clock's resolution) cannot be shown on the log axis of the plot,
// so it is left out of the table as well, which then agrees with the plot; its items column
// counts the times kept. Every median is positive.
func runtimeByN(in Input) map[string][]runtimeStats {
	secs := map[string]map[int][]float64{}
	for _, r := range in.Records {
		if r.Error != "" || r.Seconds <= 0 {
			continue
		}
		if secs[r.Algorithm] == nil {
			secs[r.Algorithm] = map[int][]float64{}
		}
		secs[r.Algorithm][r.N] = append(secs[r.Algorithm][r.N], r.Seconds)
	}
	out := map[string][]runtimeStats{}
	for alg, byN := range secs {
		var ns []int
		for n := range byN {
			ns = append(ns, n)
		}
		slices.Sort(ns)
		for _, n := range ns {
			xs := slices.Clone(byN[n])
			slices.Sort(xs)
			out[alg] = append(out[alg], runtimeStats{n: n, items: len(xs), median: results.Median(xs), lowest: xs[0], most: xs[len(xs)-1]})
		}
	}
	return out
}

// runtime writes runtime.md and runtime.csv (median task seconds per algorithm and N) and the
// plot runtime.png / runtime.svg (log scale).
func runtime(in Input, dir string) ([]string, error) {
	stats := runtimeByN(in)
	var algs []string
	nset := map[int]bool{}
	for _, a := range in.Algorithms {
		if len(stats[a]) > 0 {
			algs = append(algs, a)
			for _, s := range stats[a] {
				nset[s.n] = true
			}
		}
	}
	var ns []int
	for n := range nset {
		ns = append(ns, n)
	}
	slices.Sort(ns)

	md := table.Table{Header: append([]string{"N"}, algs...), Numeric: make([]bool, len(algs)+1)}
	for i := range md.Numeric {
		md.Numeric[i] = true
	}
	csvT := table.Table{Header: []string{"algorithm", "n", "items", "median_seconds", "min_seconds", "max_seconds"}}
	for _, n := range ns {
		row := []string{strconv.Itoa(n)}
		for _, a := range algs {
			cell := ""
			for _, s := range stats[a] {
				if s.n == n {
					cell = seconds(s.median)
				}
			}
			row = append(row, cell)
		}
		md.Rows = append(md.Rows, row)
	}
	for _, a := range algs {
		for _, s := range stats[a] {
			csvT.Rows = append(csvT.Rows, []string{a, strconv.Itoa(s.n), strconv.Itoa(s.items), num(s.median), num(s.lowest), num(s.most)})
		}
	}
	notes := []string{"Median wall time per task (one algorithm on one item) by the number of leaves N; the plot is runtime.png / runtime.svg."}
	files, err := writeReport(dir, "runtime", "Runtime: "+in.Experiment, []section{{title: "Median seconds per task", table: md}}, notes, csvFile{"runtime.csv", csvT})
	if err != nil {
		return files, err
	}

	p := plot.New()
	p.Title.Text = "Runtime: " + in.Experiment
	p.X.Label.Text = "N (leaves)"
	p.Y.Label.Text = "median seconds per task"
	p.Y.Scale = plot.LogScale{}
	p.Y.Tick.Marker = decadeTicks{}
	p.Add(plotter.NewGrid())
	lo, hi := math.Inf(1), math.Inf(-1)
	for i, a := range algs {
		xys := make(plotter.XYs, len(stats[a]))
		for j, s := range stats[a] {
			xys[j] = plotter.XY{X: float64(s.n), Y: s.median}
			lo, hi = min(lo, s.median), max(hi, s.median)
		}
		line, points, err := plotter.NewLinePoints(xys)
		if err != nil {
			return files, err
		}
		line.Color = plotutil.Color(i)
		points.Color = plotutil.Color(i)
		points.Shape = runtimeShapes[i%len(runtimeShapes)]
		p.Add(line, points)
		p.Legend.Add(a, line, points)
	}
	if len(algs) > 0 {
		// gonum widens an empty range (one median, or all equal) to ±1 around it, below zero,
		// which a log axis cannot show: whole decades always have room.
		p.Y.Min, p.Y.Max = decadeRange(lo, hi)
	}
	p.Legend.Top = true
	p.Legend.Left = true
	plots, err := savePlot(p, 6*vg.Inch, 4*vg.Inch, filepath.Join(dir, "runtime"))
	return append(files, plots...), err
}

// runtimeShapes mark the algorithms of the runtime plot, with plotutil's colours (a colour and
// shape pair repeats after 42 algorithms). They are closed shapes only: a plus or a cross on the
// line through it is hard to make out.
var runtimeShapes = []draw.GlyphDrawer{draw.CircleGlyph{}, draw.BoxGlyph{}, draw.PyramidGlyph{}, draw.RingGlyph{}, draw.SquareGlyph{}, draw.TriangleGlyph{}}

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
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := table.WriteCSV(f, t); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
