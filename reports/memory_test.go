package reports

import (
	"path/filepath"
	"testing"

	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/hcbench/hcbench/internal/limittest"
)

// TestFigureBytes draws the dendrograms figure of 6 trees of 200 leaves, the largest of the shipped
// configs, and checks FigureBytes against what saveFigure allocates for it (its PNG and SVG):
// FigureBytes must cover the allocation, by no more than half again, so that a change of the
// figures' resolution or of the canvas shows here.
func TestFigureBytes(t *testing.T) {
	layout := []Layout{{Trees: 6, Leaves: 200, Labelled: true}}
	est := FigureBytes([]string{"summary", "dendrograms"}, layout)
	w, h := dendrogramSize(6, 200)
	dir := t.TempDir()
	var err error
	got := int64(limittest.Allocated(func() {
		_, err = saveFigure(w, h, filepath.Join(dir, "f"), func(draw.Canvas) {})
	}))
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%.1f × %.1f in: FigureBytes %d, saveFigure allocated %d", float64(w/vg.Inch), float64(h/vg.Inch), est, got)
	if got > est || float64(est) > 1.5*float64(got) {
		t.Errorf("FigureBytes %d for a figure whose drawing allocates %d: want between 1 and 1.5 times it", est, got)
	}
	// Reports without figures, and data sets that a report does not draw, take nothing.
	if b := FigureBytes([]string{"summary", "purity", "evidence"}, layout); b != 0 {
		t.Errorf("tables only: %d", b)
	}
	if b := FigureBytes([]string{"dendrograms"}, []Layout{{Trees: 6, Leaves: 200}}); b != 0 {
		t.Errorf("dendrograms of unlabelled leaves: %d", b)
	}
	// The runtime figure grows with its panels: 12 data sets take 4 rows of 3.
	one, twelve := FigureBytes([]string{"runtime"}, make([]Layout, 1)), FigureBytes([]string{"runtime"}, make([]Layout, 12))
	if twelve <= 3*one {
		t.Errorf("runtime: %d for 12 panels, %d for one", twelve, one)
	}
}
