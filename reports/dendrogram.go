package reports

import (
	"fmt"
	"image/color"
	"os"
	"path/filepath"
	"slices"
	"strconv"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
	"gonum.org/v1/plot/vg/vgsvg"

	"github.com/hcbench/hcbench/algorithms/tree"
	"github.com/hcbench/hcbench/experiments/results"
)

func init() {
	Register(Report{
		Name:  "dendrograms",
		Help:  "for labelled data: every algorithm's tree of the first item side by side, leaves named and coloured by class (grey: unknown), as ML4PS 2020 Fig. 4 (PNG and SVG)",
		Build: dendrograms,
		Plots: []string{"dendrograms-"},
	})
}

// unknownColor is the colour of leaves of unknown class (grey, as ML4PS 2020 Fig. 4).
var unknownColor = color.Gray{Y: 150}

// dendrograms draws, for the first item of each data set with labelled leaves, every algorithm's
// tree side by side, in the layout of ML4PS 2020 Fig. 4: greedy and the exact MAP tree first, next
// to each other, then the others in config order; leaves named and coloured by class, grey for
// unknown; the data set and item id (which subsample) in the figure's title. Files:
// dendrograms-<data set>.png, .svg.
func dendrograms(in Input, dir string) ([]string, error) {
	joined := byItem(in, anyRecord)
	var files []string
	for _, ds := range in.Datasets {
		items := joined[ds]
		if !hasLabels(items) {
			continue
		}
		id := sortedItemIDs(items)[0]
		recs := items[id]
		var panels []*plot.Plot
		classes := classColors(recs)
		n := 0
		for _, a := range panelOrder(in.Algorithms, recs) {
			r := recs[a]
			p, err := dendrogramPlot(r, classes)
			if err != nil {
				return files, fmt.Errorf("%s item %s, %s: %w", ds, id, a, err)
			}
			panels = append(panels, p)
			n = r.N
		}
		if len(panels) == 0 {
			continue
		}
		title := fmt.Sprintf("data set %s, item %s (%d leaves)", ds, id, n)
		panels = append(panels, legendPlot(classes))
		const titleH = 0.4 * vg.Inch
		w, h := vg.Length(len(panels)-1)*3.2*vg.Inch+1.6*vg.Inch, 5*vg.Inch+titleH
		base := filepath.Join(dir, "dendrograms-"+ds)
		for _, ext := range []string{"png", "svg"} {
			var c vg.CanvasWriterTo
			if ext == "png" {
				c = vgimg.PngCanvas{Canvas: vgimg.New(w, h)}
			} else {
				c = vgsvg.New(w, h)
			}
			dc := draw.New(c)
			ts := plot.New().Title.TextStyle
			ts.Font.Size = vg.Points(14)
			ts.YAlign = draw.YCenter
			dc.FillText(ts, vg.Point{X: dc.Center().X, Y: dc.Max.Y - titleH/2}, title)
			// The trees share the width left of a narrow legend column, below the title.
			treeW := (w - 1.6*vg.Inch)
			top := dc.Max.Y - titleH
			trees := draw.Canvas{Canvas: dc.Canvas, Rectangle: vg.Rectangle{Min: dc.Min, Max: vg.Point{X: dc.Min.X + treeW, Y: top}}}
			tiles := draw.Tiles{Rows: 1, Cols: len(panels) - 1, PadX: vg.Millimeter * 4, PadTop: vg.Millimeter * 2, PadBottom: vg.Millimeter * 2, PadLeft: vg.Millimeter * 2, PadRight: vg.Millimeter * 2}
			canvases := plot.Align([][]*plot.Plot{panels[:len(panels)-1]}, tiles, trees)
			for j, p := range panels[:len(panels)-1] {
				p.Draw(canvases[0][j])
			}
			legend := draw.Canvas{Canvas: dc.Canvas, Rectangle: vg.Rectangle{Min: vg.Point{X: dc.Min.X + treeW, Y: dc.Min.Y}, Max: vg.Point{X: dc.Max.X, Y: top}}}
			panels[len(panels)-1].Draw(legend)
			f, err := os.Create(base + "." + ext)
			if err != nil {
				return files, err
			}
			if _, err := c.WriteTo(f); err != nil {
				f.Close()
				return files, err
			}
			if err := f.Close(); err != nil {
				return files, err
			}
			files = append(files, base+"."+ext)
		}
	}
	return files, nil
}

// panelOrder lists the algorithms of an item's records that have a tree to draw (not truth): the
// greedy variants, then the exact MAP, so that the two trees Fig. 4 compares sit side by side,
// then the others in config order.
func panelOrder(algorithms []string, recs map[string]results.Record) []string {
	var greedy, exact, rest []string
	for _, a := range algorithms {
		r, ok := recs[a]
		switch {
		case !ok || r.AlgorithmName == "truth" || r.Newick == "":
		case r.AlgorithmName == "greedy":
			greedy = append(greedy, a)
		case r.AlgorithmName == results.ExactAlgorithm:
			exact = append(exact, a)
		default:
			rest = append(rest, a)
		}
	}
	return slices.Concat(greedy, exact, rest)
}

// classColors gives each known class a colour, in sorted order.
func classColors(recs map[string]results.Record) map[string]color.Color {
	var classes []string
	for _, r := range recs {
		for _, l := range r.LeafLabels {
			if l != "" && !slices.Contains(classes, l) {
				classes = append(classes, l)
			}
		}
	}
	slices.Sort(classes)
	out := map[string]color.Color{"": unknownColor}
	for i, c := range classes {
		out[c] = plotutil.Color(i)
	}
	return out
}

// legendPlot is a plot holding only the legend of the class colours.
func legendPlot(colors map[string]color.Color) *plot.Plot {
	p := plot.New()
	p.HideAxes()
	var classes []string
	for c := range colors {
		classes = append(classes, c)
	}
	slices.Sort(classes)
	for _, c := range classes {
		s, _ := plotter.NewScatter(plotter.XYs{})
		s.GlyphStyle = draw.GlyphStyle{Color: colors[c], Radius: vg.Points(4), Shape: draw.CircleGlyph{}}
		name := c
		if c == "" {
			name = "unknown"
		}
		p.Legend.Add(name, s)
	}
	p.Legend.Top, p.Legend.Left = true, true
	return p
}

// maxNamedLeaves is the most leaves whose names fit beside a dendrogram; larger trees show only
// the class colours.
const maxNamedLeaves = 80

// dendrogramPlot draws one tree: leaves on the left at height 0, the root on the right, leaf names
// as the y ticks (see layoutDendrogram). The exact MAP tree's title says so, and how many trees
// share its likelihood where the trellis counted them.
func dendrogramPlot(r results.Record, colors map[string]color.Color) (*plot.Plot, error) {
	t, err := tree.ParseNewick(r.Newick, r.LeafNames)
	if err != nil {
		return nil, err
	}
	p := plot.New()
	name := r.Algorithm
	if r.AlgorithmName == results.ExactAlgorithm {
		name += " (MAP)"
		if tt, ok := mapTies(r); ok && tt.trees > 1 {
			name = fmt.Sprintf("%s (MAP, 1 of %.0f tied)", r.Algorithm, tt.trees)
		}
	}
	switch {
	case r.LogLikelihood != nil:
		p.Title.Text = fmt.Sprintf("%s\nlog-lik %.2f", name, r.LogLikelihood.Value())
	case r.LogEvidence != nil:
		p.Title.Text = fmt.Sprintf("%s\nlog p(D|T) %.2f", name, r.LogEvidence.Value())
	default:
		p.Title.Text = name
	}
	p.X.Label.Text = "height (merges below)"
	d := layoutDendrogram(t)
	var names []string
	for _, v := range t.PostOrder() {
		if nd := t.Nodes[v]; nd.IsLeaf() {
			if r.LeafNames != nil {
				names = append(names, r.LeafNames[nd.Item])
			} else {
				names = append(names, strconv.Itoa(nd.Item))
			}
		}
	}
	p.Add(d)
	if len(names) <= maxNamedLeaves {
		p.NominalY(names...)
	} else {
		p.Y.Tick.Marker = plot.ConstantTicks(nil)
		p.Y.Label.Text = fmt.Sprintf("%d leaves", len(names))
	}
	// Leaf markers in the class colours.
	for _, v := range t.PostOrder() {
		nd := t.Nodes[v]
		if !nd.IsLeaf() {
			continue
		}
		s, err := plotter.NewScatter(plotter.XYs{{X: 0, Y: d.y[v]}})
		if err != nil {
			return nil, err
		}
		label := r.LeafLabels[nd.Item]
		s.GlyphStyle = draw.GlyphStyle{Color: colors[label], Radius: vg.Points(4), Shape: draw.CircleGlyph{}}
		p.Add(s)
	}
	p.X.Min = -0.5
	return p, nil
}

// dendrogram is a gonum plotter drawing a tree's edges; data coordinates are (height, leaf row):
// leaves at x = 0 on the left, a node at x = its height, so the root is on the right (leaves on the
// right would hide their names).
type dendrogram struct {
	t      *tree.Tree
	height []float64
	y      []float64
}

// layoutDendrogram places the nodes of t: leaves in rows 0, 1, … in post-order at height 0, an
// internal node at one more than its highest child's height, and at the middle of its children's
// rows. Rose-tree nodes (more than two children) are placed the same way.
func layoutDendrogram(t *tree.Tree) *dendrogram {
	d := &dendrogram{t: t, height: make([]float64, len(t.Nodes)), y: make([]float64, len(t.Nodes))}
	row := 0
	for _, v := range t.PostOrder() {
		nd := t.Nodes[v]
		if nd.IsLeaf() {
			d.y[v] = float64(row)
			row++
			continue
		}
		lo, hi := d.y[nd.Children[0]], d.y[nd.Children[0]]
		for _, c := range nd.Children {
			d.height[v] = max(d.height[v], d.height[c]+1)
			lo, hi = min(lo, d.y[c]), max(hi, d.y[c])
		}
		d.y[v] = (lo + hi) / 2
	}
	return d
}

func (d *dendrogram) top() float64 { return d.height[d.t.Root] }

func (d *dendrogram) Plot(c draw.Canvas, p *plot.Plot) {
	trX, trY := p.Transforms(&c)
	style := draw.LineStyle{Color: color.Black, Width: vg.Points(1)}
	for v, nd := range d.t.Nodes {
		if nd.IsLeaf() {
			continue
		}
		x := d.height[v]
		lo, hi := d.y[nd.Children[0]], d.y[nd.Children[0]]
		for _, ch := range nd.Children {
			lo, hi = min(lo, d.y[ch]), max(hi, d.y[ch])
			seg := []vg.Point{{X: trX(d.height[ch]), Y: trY(d.y[ch])}, {X: trX(x), Y: trY(d.y[ch])}}
			c.StrokeLines(style, c.ClipLinesXY(seg)...)
		}
		c.StrokeLines(style, c.ClipLinesXY([]vg.Point{{X: trX(x), Y: trY(lo)}, {X: trX(x), Y: trY(hi)}})...)
	}
}

func (d *dendrogram) DataRange() (xmin, xmax, ymin, ymax float64) {
	return 0, d.top() + 0.5, -0.5, float64(d.t.Items()) - 0.5
}
