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

	"hcbench/algorithms/tree"
	"hcbench/experiments/results"
)

// unknownColor is the colour of leaves of unknown class (grey, as ML4PS 2020 Fig. 4).
var unknownColor = color.Gray{Y: 150}

// dendrograms draws, for the first item of each data set with labelled leaves, every algorithm's
// tree side by side (ML4PS 2020 Fig. 4 shows the greedy and the MAP tree of a pam50 subsample):
// leaves named and coloured by class, grey for unknown. Files: dendrograms-<data set>.png, .svg.
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
		for _, a := range in.Algorithms {
			r, ok := recs[a]
			if !ok || r.AlgorithmName == "truth" || r.Newick == "" {
				continue
			}
			p, err := dendrogramPlot(r, classes)
			if err != nil {
				return files, fmt.Errorf("%s item %s, %s: %w", ds, id, a, err)
			}
			panels = append(panels, p)
		}
		if len(panels) == 0 {
			continue
		}
		panels = append(panels, legendPlot(classes))
		w, h := vg.Length(len(panels)-1)*3.2*vg.Inch+1.6*vg.Inch, 5*vg.Inch
		base := filepath.Join(dir, "dendrograms-"+ds)
		for _, ext := range []string{"png", "svg"} {
			var c vg.CanvasWriterTo
			if ext == "png" {
				c = vgimg.PngCanvas{Canvas: vgimg.New(w, h)}
			} else {
				c = vgsvg.New(w, h)
			}
			dc := draw.New(c)
			// The trees share the width left of a narrow legend column.
			treeW := (w - 1.6*vg.Inch)
			trees := draw.Canvas{Canvas: dc.Canvas, Rectangle: vg.Rectangle{Min: dc.Min, Max: vg.Point{X: dc.Min.X + treeW, Y: dc.Max.Y}}}
			tiles := draw.Tiles{Rows: 1, Cols: len(panels) - 1, PadX: vg.Millimeter * 4, PadTop: vg.Millimeter * 2, PadBottom: vg.Millimeter * 2, PadLeft: vg.Millimeter * 2, PadRight: vg.Millimeter * 2}
			canvases := plot.Align([][]*plot.Plot{panels[:len(panels)-1]}, tiles, trees)
			for j, p := range panels[:len(panels)-1] {
				p.Draw(canvases[0][j])
			}
			legend := draw.Canvas{Canvas: dc.Canvas, Rectangle: vg.Rectangle{Min: vg.Point{X: dc.Min.X + treeW, Y: dc.Min.Y}, Max: dc.Max}}
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

// dendrogramPlot draws one tree: leaves on the left at height 0, the root on the right (a node's
// height is one more than its highest child's), leaf names as the y ticks.
func dendrogramPlot(r results.Record, colors map[string]color.Color) (*plot.Plot, error) {
	t, err := tree.ParseNewick(r.Newick, r.LeafNames)
	if err != nil {
		return nil, err
	}
	p := plot.New()
	switch {
	case r.LogLikelihood != nil:
		p.Title.Text = fmt.Sprintf("%s (log-lik %.2f)", r.Algorithm, r.LogLikelihood.Value())
	case r.LogEvidence != nil:
		p.Title.Text = fmt.Sprintf("%s (log p(D|T) %.2f)", r.Algorithm, r.LogEvidence.Value())
	default:
		p.Title.Text = r.Algorithm
	}
	p.X.Label.Text = "height (merges below)"
	d := &dendrogram{t: t, height: make([]float64, len(t.Nodes)), y: make([]float64, len(t.Nodes))}
	var names []string
	for _, v := range t.PostOrder() {
		nd := t.Nodes[v]
		if nd.IsLeaf() {
			d.y[v] = float64(len(names))
			if r.LeafNames != nil {
				names = append(names, r.LeafNames[nd.Item])
			} else {
				names = append(names, strconv.Itoa(nd.Item))
			}
			continue
		}
		lo, hi := d.y[nd.Children[0]], d.y[nd.Children[0]]
		for _, c := range nd.Children {
			d.height[v] = max(d.height[v], d.height[c]+1)
			lo, hi = min(lo, d.y[c]), max(hi, d.y[c])
		}
		d.y[v] = (lo + hi) / 2
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

// dendrogram is a gonum plotter drawing a tree's edges; data coordinates are (height, leaf row),
// drawn with the root on the left.
type dendrogram struct {
	t      *tree.Tree
	height []float64
	y      []float64
}

func (d *dendrogram) top() float64 { return d.height[d.t.Root] }

func (d *dendrogram) Plot(c draw.Canvas, p *plot.Plot) {
	trX, trY := p.Transforms(&c)
	style := draw.LineStyle{Color: color.Black, Width: vg.Points(1)}
	// x in the plot is top − height: leaves at the right edge would hide their names, so leaves
	// sit at x = 0 on the left and the root at the right.
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
