package reports

import "gonum.org/v1/plot/vg"

// Layout is what a run's memory estimate knows of a data set before the run (see
// experiments/plan), enough to size the figures the reports draw of it.
type Layout struct {
	Trees    int  // the algorithms that run on it and draw a tree (all but truth)
	Leaves   int  // the most leaves of an item
	Labelled bool // its leaves have classes: the dendrograms report draws it
	LogZ     bool // the exact trellis computes log Z on it: the z_vs_map report draws it
}

// FigureBytes returns the memory that drawing the largest figure of the reports names allocates
// for the data sets ds: its image, 4 bytes a pixel at pngDPI, and a tenth more for the
// rasterizer, the PNG encoder (which works a row at a time) and the SVG (text). Figures of panels
// are sized with a legend column of at most panelLegendW; reports without figures take none.
func FigureBytes(names []string, ds []Layout) int64 {
	var most int64
	figure := func(w, h vg.Length) { most = max(most, figureBytes(w, h)) }
	panels := func(k int, pw, ph vg.Length) {
		if k == 0 {
			return
		}
		cols := min(k, panelCols)
		rows := (k + cols - 1) / cols
		figure(vg.Length(cols)*pw+panelLegendW, vg.Length(rows)*ph+panelTitleH)
	}
	for _, name := range names {
		switch name {
		case "dendrograms":
			for _, d := range ds {
				if d.Labelled && d.Trees > 0 {
					figure(dendrogramSize(d.Trees, d.Leaves))
				}
			}
		case "runtime":
			panels(len(ds), runtimePanelW, runtimePanelH)
		case "z_vs_map":
			k := 0
			for _, d := range ds {
				if d.LogZ {
					k++
				}
			}
			panels(k, zPanelSize, zPanelSize)
		case "likelihood_gap":
			figure(gapPlotW, gapPlotH)
		}
	}
	return most
}

// figureBytes is what drawing one figure of w × h allocates (see FigureBytes).
func figureBytes(w, h vg.Length) int64 {
	return int64(4 * 1.1 * float64(w/vg.Inch) * float64(h/vg.Inch) * pngDPI * pngDPI)
}

// panelLegendW and panelTitleH bound the legend column (its entries, or notes of
// legendNoteWidth characters) and the title row of a figure of panels (savePanels), for
// FigureBytes.
const panelLegendW, panelTitleH = 3.25 * vg.Inch, 0.5 * vg.Inch
