package reports

import (
	"fmt"
	"image/color"
	"math"
	"path/filepath"
	"slices"
	"strconv"

	"go.yaml.in/yaml/v3"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/hcbench/hcbench/algorithms/tree"
	"github.com/hcbench/hcbench/experiments/results"
	"github.com/hcbench/hcbench/internal/english"
)

func init() {
	Register(Report{
		Name:       "dendrograms",
		Help:       "for labelled data: every algorithm's tree of the first item side by side, per data set (dendrograms-<data set>), leaves named and coloured by class (grey: unknown), as ML4PS 2020 Fig. 4 (PNG and SVG); the figure grows with the number of leaves",
		Build:      dendrograms,
		Plots:      []string{"dendrograms-"},
		NewOptions: func() any { return &dendrogramOptions{Height: heightMerges} },
	})
}

// dendrogramOptions are the options of the dendrograms report.
type dendrogramOptions struct {
	Height dendrogramHeight `yaml:"height" default:"merges" help:"the horizontal axis of the trees: merges (a node one more than its highest child), or, for Bayesian trees whose merges are recorded (bhc, rbhc, embhc, bhc_exact with merges: true), the model's confidence in each merge: log_odds (at −log(r_k/(1−r_k)), the log-odds against the merge) or r (at 1 − r_k), a node no higher than its parent, so that the clusters of BHC's cut at r_k = 0.5 are the subtrees left of the dashed line; other trees keep merges"`
}

// dendrogramHeight is what places a tree's nodes along the horizontal axis.
type dendrogramHeight string

// The dendrogram heights.
const (
	heightMerges  dendrogramHeight = "merges"
	heightLogOdds dendrogramHeight = "log_odds"
	heightR       dendrogramHeight = "r"
)

var dendrogramHeights = []dendrogramHeight{heightMerges, heightLogOdds, heightR}

// DecodeYAML reads one of the heights.
func (h *dendrogramHeight) DecodeYAML(n *yaml.Node) error {
	if n.Kind == yaml.ScalarNode {
		for _, v := range dendrogramHeights {
			if n.Value == string(v) {
				*h = v
				return nil
			}
		}
	}
	return fmt.Errorf("want one of merges, log_odds, r; got %q", n.Value)
}

// YAMLType names the values for help.
func (*dendrogramHeight) YAMLType() string { return "merges, log_odds or r" }

// MarshalYAML writes the height as its name, for the resolved config.
func (h dendrogramHeight) MarshalYAML() (any, error) { return string(h), nil }

// unknownColor is the colour of leaves of unknown class (grey, as ML4PS 2020 Fig. 4).
var unknownColor = color.Gray{Y: 150}

// leafSpacing is the height given to each leaf of a dendrogram, so that the names (10 pt) never
// overlap: the figure grows with the number of leaves, from 5 inches, up to maxNamedLeaves.
const leafSpacing = 13 * vg.Length(1)

// dendrograms draws, for the first item of each data set with labelled leaves, every algorithm's
// tree side by side, in the layout of ML4PS 2020 Fig. 4: greedy and the exact MAP tree first, next
// to each other, then the others in config order; leaves named and coloured by class, grey for
// unknown; the data set and item id (which subsample) in the figure's title. Files:
// dendrograms-<data set>.png, .svg.
func dendrograms(in Input, dir string) ([]string, error) {
	opts := optionsOf[dendrogramOptions](in, "dendrograms")
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
			p, err := dendrogramPlot(r, classes, opts.Height)
			if err != nil {
				return files, fmt.Errorf("%s item %s, %s: %w", ds, id, a, err)
			}
			panels = append(panels, p)
			n = r.N
		}
		if len(panels) == 0 {
			continue
		}
		title := fmt.Sprintf("data set %s, item %s (%s)", ds, id, english.Count(n, "leaf", "leaves"))
		legend := legendPlot(classes)
		w, h := dendrogramSize(len(panels), n)
		fs, err := saveFigure(w, h, filepath.Join(dir, "dendrograms-"+FileName(ds)), func(dc draw.Canvas) {
			ts := plot.New().Title.TextStyle
			ts.Font.Size = vg.Points(14)
			ts.YAlign = draw.YCenter
			dc.FillText(ts, vg.Point{X: dc.Center().X, Y: dc.Max.Y - dendrogramTitleH/2}, title)
			// The trees share the width left of a narrow legend column, below the title.
			trees := draw.Crop(dc, 0, -dendrogramLegendW, 0, -dendrogramTitleH)
			tiles := draw.Tiles{Rows: 1, Cols: len(panels), PadX: vg.Millimeter * 4, PadTop: vg.Millimeter * 2, PadBottom: vg.Millimeter * 2, PadLeft: vg.Millimeter * 2, PadRight: vg.Millimeter * 2}
			canvases := plot.Align([][]*plot.Plot{panels}, tiles, trees)
			for j, p := range panels {
				p.Draw(canvases[0][j])
			}
			legend.Draw(draw.Crop(dc, w-dendrogramLegendW, 0, 0, -dendrogramTitleH))
		})
		files = append(files, fs...)
		if err != nil {
			return files, err
		}
	}
	return files, nil
}

// The dendrograms figure's title row and legend column.
const dendrogramTitleH, dendrogramLegendW = 0.4 * vg.Inch, 1.6 * vg.Inch

// dendrogramSize is the size of a dendrograms figure of panels trees of n leaves: a column per
// tree beside the legend, under the title; room for the panel titles (two lines) and the x axis,
// and a row per leaf, up to maxNamedLeaves.
func dendrogramSize(panels, n int) (w, h vg.Length) {
	treesH := max(5*vg.Inch, 1.4*vg.Inch+vg.Length(min(n, maxNamedLeaves))*leafSpacing)
	return vg.Length(panels)*3.2*vg.Inch + dendrogramLegendW, treesH + dendrogramTitleH
}

// panelOrder lists the algorithms of an item's records that have a tree to draw (not truth): the
// greedy variants, then the exact MAP, so that the two trees Fig. 4 compares sit side by side,
// then the others in config order.
func panelOrder(algorithms []string, recs map[string]results.Record) []string {
	var greedy, exact, rest []string
	for _, a := range algorithms {
		r, ok := recs[a]
		switch {
		case !ok || r.HasRole(results.Truth) || r.Newick == "":
		case r.HasRole(results.Baseline):
			greedy = append(greedy, a)
		case r.HasRole(results.Exact):
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

// dendrogramPlot draws one tree: leaves on the left, the root on the right, leaf names as the y
// ticks (see layoutDendrogram), nodes along the x axis by height (dendrogramOptions.Height). The
// exact MAP tree's title says so, and how many trees share its likelihood where the trellis
// counted them.
func dendrogramPlot(r results.Record, colors map[string]color.Color, height dendrogramHeight) (*plot.Plot, error) {
	t, err := tree.ParseNewick(r.Newick, r.LeafNames)
	if err != nil {
		return nil, err
	}
	p := plot.New()
	name := r.Algorithm
	if r.HasRole(results.Exact) {
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
	d := layoutDendrogram(t)
	p.X.Label.Text = "height (merges below)"
	p.X.Tick.Marker = wholeTicks{}
	if height != heightMerges {
		if mt, conf, ok := confidenceHeights(r, t, height); ok {
			t, d = mt, layoutDendrogram(mt)
			p.X.Tick.Marker = plainTicks{}
			cut := 0.0
			p.X.Label.Text = "−log(r_k/(1−r_k)), log-odds against the merge"
			if height == heightR {
				cut = 0.5
				p.X.Label.Text = "1 − r_k, the merge's posterior against"
			}
			d.setHeights(conf, heightUnit(height), cut)
			// The cut at r_k = 0.5: merges left of it are the flat clusters BHC keeps.
			line, err := plotter.NewLine(plotter.XYs{{X: cut, Y: -0.5}, {X: cut, Y: float64(t.Items()) - 0.5}})
			if err != nil {
				return nil, err
			}
			line.Color = color.RGBA{R: 0xd6, G: 0x27, B: 0x28, A: 0xff}
			line.Dashes = []vg.Length{vg.Points(4), vg.Points(3)}
			p.Add(line)
		} else if r.LogEvidence != nil {
			p.X.Label.Text = "height (merges below; no r_k recorded)"
		}
	}
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
		p.Y.Label.Text = english.Count(len(names), "leaf", "leaves")
	}
	// Leaf markers in the class colours.
	for _, v := range t.PostOrder() {
		nd := t.Nodes[v]
		if !nd.IsLeaf() {
			continue
		}
		s, err := plotter.NewScatter(plotter.XYs{{X: d.height[v], Y: d.y[v]}})
		if err != nil {
			return nil, err
		}
		label := r.LeafLabels[nd.Item]
		s.GlyphStyle = draw.GlyphStyle{Color: colors[label], Radius: vg.Points(4), Shape: draw.CircleGlyph{}}
		p.Add(s)
	}
	lo, hi := d.xRange()
	p.X.Min, p.X.Max = lo-d.margin, hi
	return p, nil
}

// confidenceHeights returns the tree of a record's merges (Record.Merges, leaves 0..n−1, merge k
// node n+k) and each node's height by the model's confidence in the merge: −logit r_k
// (log_odds) or 1 − r_k (r), r_k of exactly 1 or 0 a step beyond the others. BHC's r_k need not
// fall towards the root, so that a tree drawn at them runs edges back and crosses itself; it is
// drawn instead so that the flat clusters of the record's cut (params.cut) are the largest
// subtrees left of the cut at r_k = 0.5: for top_down (the default) a node no higher than its
// parent (the least of its own height and its ancestors'), for cut_every no lower than its
// children (the greatest of its own and its descendants'). Leaves sit a little left of the lowest
// merge (at 0 for r). ok is false when the record has no merges, or they are not the tree of its
// Newick.
func confidenceHeights(r results.Record, newick *tree.Tree, height dendrogramHeight) (*tree.Tree, []float64, bool) {
	n := newick.Items()
	if len(r.Merges) != n-1 || n < 2 {
		return nil, nil, false
	}
	merges := make([][2]int, len(r.Merges))
	for k, m := range r.Merges {
		if m.Node != n+k {
			return nil, nil, false
		}
		merges[k] = m.Children
	}
	t, err := tree.FromMerges(n, merges)
	if err != nil || !tree.SameClusters(t, newick) {
		return nil, nil, false
	}
	h := make([]float64, len(t.Nodes))
	lo, hi := math.Inf(1), math.Inf(-1)
	for k, m := range r.Merges {
		lr := m.LogR.Value()
		v := 1 - math.Exp(lr)
		if height == heightLogOdds {
			// −log(r/(1−r)) = log(1−r) − log r, with log(1−r) = log(−expm1(log r)) exact for r near 1.
			v = math.Log(-math.Expm1(lr)) - lr
		}
		h[n+k] = v
		if !math.IsInf(v, 0) && !math.IsNaN(v) {
			lo, hi = min(lo, v), max(hi, v)
		}
	}
	if math.IsInf(lo, 1) {
		lo, hi = 0, 1
	}
	unit := heightUnit(height)
	step := 0.05 * max(hi-lo, unit)
	for i, v := range h[n:] {
		switch {
		case math.IsInf(v, -1) || math.IsNaN(v):
			h[n+i] = lo - step
		case math.IsInf(v, 1):
			h[n+i] = hi + step
		}
	}
	order := t.PostOrder()
	if r.Params["cut"] == "cut_every" {
		for _, v := range order { // children before parents
			for _, c := range t.Nodes[v].Children {
				h[v] = max(h[v], h[c])
			}
		}
	} else {
		for i := len(order) - 1; i >= 0; i-- { // parents before children
			for _, c := range t.Nodes[order[i]].Children {
				h[c] = min(h[c], h[order[i]])
			}
		}
	}
	lo, hi = slices.Min(h[n:]), slices.Max(h[n:])
	leaf := lo - 0.05*max(hi-lo, unit)
	if height == heightR {
		leaf = min(0, lo)
	}
	for i := range n {
		h[i] = leaf
	}
	return t, h, true
}

// heightUnit is the least span of heights a tree is drawn over: a nat of log-odds, a tenth of r.
func heightUnit(h dendrogramHeight) float64 {
	if h == heightR {
		return 0.1
	}
	return 1
}

// dendrogram is a gonum plotter drawing a tree's edges; data coordinates are (height, leaf row):
// leaves on the left, a node at x = its height, so the root is on the right (leaves on the right
// would hide their names).
type dendrogram struct {
	t      *tree.Tree
	height []float64
	y      []float64
	// margin is the room left and right of the heights: half a merge, or that setHeights sets.
	margin float64
	// cut is the height of the cut at r_k = 0.5, nil for heights by merges.
	cut *float64
}

// layoutDendrogram places the nodes of t: leaves in rows 0, 1, … in post-order at height 0, an
// internal node at one more than its highest child's height, and at the middle of its children's
// rows. Rose-tree nodes (more than two children) are placed the same way.
func layoutDendrogram(t *tree.Tree) *dendrogram {
	d := &dendrogram{t: t, height: make([]float64, len(t.Nodes)), y: make([]float64, len(t.Nodes)), margin: 0.5}
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

// setHeights places the nodes at heights h (by node index) in place of their merge counts, and
// shows them over a range that holds the cut too, with a margin of 3% of its span, or of unit if
// it spans less.
func (d *dendrogram) setHeights(h []float64, unit, cut float64) {
	d.height = h
	d.cut = &cut
	lo, hi := d.xRange()
	d.margin = 0.03 * max(hi-lo, unit)
}

// xRange is the range of the heights and the cut, with the margin on the right for the root's
// edge.
func (d *dendrogram) xRange() (float64, float64) {
	lo, hi := slices.Min(d.height), slices.Max(d.height)
	if d.cut != nil {
		lo, hi = min(lo, *d.cut), max(hi, *d.cut)
	}
	return lo, hi + d.margin
}

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
	lo, hi := d.xRange()
	return lo, hi, -0.5, float64(d.t.Items()) - 0.5
}
