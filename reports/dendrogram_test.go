package reports

import (
	"context"
	"fmt"
	"html"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/hcbench/hcbench/algorithms/tree"
	"github.com/hcbench/hcbench/experiments/results"
)

// svgText is a <text> of a gonum SVG at its anchor (x, y) in points; gonum flips the y axis with
// scale(1, −1), so a larger y is lower on the page.
type svgText struct {
	x, y float64
	text string
}

var svgTextRE = regexp.MustCompile(`<text x="([-0-9.e+]+)" y="([-0-9.e+]+)"[^>]*>([^<]*)</text>`)

// svgTexts returns the texts of an SVG file.
func svgTexts(t *testing.T, path string) []svgText {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out []svgText
	for _, m := range svgTextRE.FindAllStringSubmatch(string(b), -1) {
		x, errX := strconv.ParseFloat(m[1], 64)
		y, errY := strconv.ParseFloat(m[2], 64)
		if errX != nil || errY != nil {
			t.Fatalf("text at %q, %q", m[1], m[2])
		}
		out = append(out, svgText{x, -y, html.UnescapeString(m[3])})
	}
	return out
}

// bhcRecord is a labelled item of n leaves (l0, l1, …; classes A, B alternating) with the
// caterpillar tree of a Bayesian algorithm, its merges recorded with log r_k = logR[k].
func bhcRecord(ds, alg string, n int, logR []float64) results.Record {
	newick, names := caterpillar(n)
	r := results.Record{Schema: results.RecordSchema, Dataset: ds, Item: "0", Algorithm: alg, AlgorithmName: alg, N: n,
		Newick: newick, LeafNames: names, LogEvidence: results.Log(-40)}
	for i := range n {
		r.LeafLabels = append(r.LeafLabels, []string{"A", "B"}[i%2])
	}
	prev := 0
	for k, lr := range logR {
		r.Merges = append(r.Merges, results.Merge{Node: n + k, Children: [2]int{prev, k + 1}, Size: k + 2, LogR: results.LogProb(lr)})
		prev = n + k
	}
	return r
}

// TestDendrogramLeavesDoNotOverlap draws a tree of 45 leaves, as nightly's iris subsamples have
// 30 and its pam50 items up to 45: the figure grows with the leaves, so that in each panel the
// leaf names (10 pt) are at least 11 pt apart. At the old fixed 5 inches they were 6.5 pt apart,
// and overlapped.
func TestDendrogramLeavesDoNotOverlap(t *testing.T) {
	const n = 45
	in := Input{Experiment: "big", Datasets: []string{"genes"}, Algorithms: []string{"greedy", "bhc"}}
	for _, a := range in.Algorithms {
		r := bhcRecord("genes", a, n, nil)
		r.AlgorithmName = a
		in.Records = append(in.Records, r)
	}
	dir := t.TempDir()
	if _, err := Write(context.Background(), []string{"dendrograms"}, in, dir); err != nil {
		t.Fatal(err)
	}
	// Each panel's leaf names: the texts l0 … l44, the panels told apart by x.
	byPanel := map[int][]float64{}
	for _, tx := range svgTexts(t, filepath.Join(dir, "dendrograms-genes.svg")) {
		if regexp.MustCompile(`^l[0-9]+$`).MatchString(tx.text) {
			byPanel[int(tx.x/100)] = append(byPanel[int(tx.x/100)], tx.y)
		}
	}
	if len(byPanel) != 2 {
		t.Fatalf("leaf names in %d panels, want 2", len(byPanel))
	}
	for p, ys := range byPanel {
		if len(ys) != n {
			t.Errorf("panel %d: %d leaf names, want %d", p, len(ys), n)
		}
		slices.Sort(ys)
		for i := 1; i < len(ys); i++ {
			if ys[i]-ys[i-1] < 11 {
				t.Errorf("panel %d: leaf names %.1f pt apart, want at least 11", p, ys[i]-ys[i-1])
				break
			}
		}
	}
}

// TestConfidenceHeights checks the heights of the log_odds and r options against r_k by hand:
// a caterpillar of 4 leaves whose merges have r = 0.9, 0.5 and 0.2 from the deepest to the root,
// so −log(r/(1−r)) = −log 9, 0 and log 4, and 1 − r = 0.1, 0.5, 0.8 (to 1e-12: log and exp of
// these round to a few ulps). Leaves sit left of the lowest merge: by 5% of the span for log_odds
// (log 36 · 0.05), at 0 for r. Reversed (r = 0.2, 0.5, 0.9 from the deepest), with the default
// top_down cut every node is drawn at its parent's height, −log 9, the root's (no node above its
// parent, so that the tree reads as that cut: one cluster, left of 0); with params.cut cut_every
// every node at its child's, log 4 (no node below a child: the deepest merge splits, and so do
// all above it). A record without merges, or whose merges are another tree than its Newick,
// keeps the merge count.
func TestConfidenceHeights(t *testing.T) {
	r := bhcRecord("d", "bhc", 4, []float64{math.Log(0.9), math.Log(0.5), math.Log(0.2)})
	tr, err := tree.ParseNewick(r.Newick, r.LeafNames)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		height dendrogramHeight
		merges []float64
		leaf   float64
	}{
		{heightLogOdds, []float64{-math.Log(9), 0, math.Log(4)}, -math.Log(9) - 0.05*math.Log(36)},
		{heightR, []float64{0.1, 0.5, 0.8}, 0},
		{"top_down", []float64{-math.Log(9), -math.Log(9), -math.Log(9)}, -math.Log(9) - 0.05},
		{"cut_every", []float64{math.Log(4), math.Log(4), math.Log(4)}, math.Log(4) - 0.05},
	} {
		rec, height := r, c.height
		if cut := string(height); cut == "top_down" || cut == "cut_every" {
			rec, height = bhcRecord("d", "bhc", 4, []float64{math.Log(0.2), math.Log(0.5), math.Log(0.9)}), heightLogOdds
			rec.Params = map[string]any{"cut": cut}
		}
		_, h, ok := confidenceHeights(rec, tr, height)
		if !ok {
			t.Fatalf("%s: no heights", c.height)
		}
		want := append([]float64{c.leaf, c.leaf, c.leaf, c.leaf}, c.merges...)
		for i := range want {
			if math.Abs(h[i]-want[i]) > 1e-12 {
				t.Errorf("%s: heights %v, want %v", c.height, h, want)
				break
			}
		}
	}
	none := r
	none.Merges = nil
	other := bhcRecord("d", "bhc", 4, []float64{0, 0, 0})
	other.Merges[1].Children = [2]int{2, 3} // ((0,1),(2,3)), not the caterpillar
	other.Merges[2].Children = [2]int{4, 5}
	for name, rec := range map[string]results.Record{"no merges": none, "another tree": other} {
		if _, _, ok := confidenceHeights(rec, tr, heightLogOdds); ok {
			t.Errorf("%s: confidence heights given", name)
		}
	}
}

// TestDendrogramHeightOption draws a BHC tree with its merges and a BRT tree without under each
// height option: the x axis says what it shows, the confidence options draw the cut at r = 0.5
// (a dashed red line), and the tree without r_k says it has none.
func TestDendrogramHeightOption(t *testing.T) {
	in := Input{Experiment: "conf", Datasets: []string{"genes"}, Algorithms: []string{"bhc", "brt"}}
	in.Records = append(in.Records, bhcRecord("genes", "bhc", 4, []float64{math.Log(0.9), math.Log(0.5), math.Log(0.2)}))
	brt := bhcRecord("genes", "brt", 4, nil)
	in.Records = append(in.Records, brt)
	for _, c := range []struct {
		height   dendrogramHeight
		bhc, brt string
	}{
		{heightMerges, "height (merges below)", "height (merges below)"},
		{heightLogOdds, "−log(r_k/(1−r_k)), log-odds against the merge", "height (merges below; no r_k recorded)"},
		{heightR, "1 − r_k, the merge's posterior against", "height (merges below; no r_k recorded)"},
	} {
		in.Options = map[string]any{"dendrograms": &dendrogramOptions{Height: c.height}}
		dir := t.TempDir()
		if _, err := Write(context.Background(), []string{"dendrograms"}, in, dir); err != nil {
			t.Fatal(err)
		}
		var labels []string
		for _, tx := range svgTexts(t, filepath.Join(dir, "dendrograms-genes.svg")) {
			if strings.Contains(tx.text, "height") || strings.Contains(tx.text, "r_k") {
				labels = append(labels, tx.text)
			}
		}
		if want := []string{c.bhc, c.brt}; !slices.Equal(labels, want) {
			t.Errorf("%s: x axes %q, want %q", c.height, labels, want)
		}
		svg, _ := os.ReadFile(filepath.Join(dir, "dendrograms-genes.svg"))
		if cut := strings.Contains(string(svg), "stroke:#D62728"); cut != (c.height != heightMerges) {
			t.Errorf("%s: cut line drawn %v", c.height, cut)
		}
	}
}

// TestOptionDefaults checks every report's options: NewOptions sets each field to the value of
// its default tag (which config applies and help shows), and every field has a help tag.
func TestOptionDefaults(t *testing.T) {
	for _, r := range All() {
		if r.NewOptions == nil {
			continue
		}
		v := reflect.ValueOf(r.NewOptions()).Elem()
		for i := range v.NumField() {
			f := v.Type().Field(i)
			if f.Tag.Get("help") == "" || f.Tag.Get("yaml") == "" {
				t.Errorf("%s: option %s lacks a yaml key or help", r.Name, f.Name)
			}
			if got, want := fmt.Sprint(v.Field(i).Interface()), f.Tag.Get("default"); got != want {
				t.Errorf("%s: option %s is %q, its default tag %q", r.Name, f.Name, got, want)
			}
		}
	}
}

// TestWholeTicks: whole numbers only, "0" rather than "-0" from an axis starting at −0.5, and
// steps of 1, 2 or 5 times a power of ten.
func TestWholeTicks(t *testing.T) {
	for _, c := range []struct {
		lo, hi float64
		want   []string
	}{
		{-0.5, 3.5, []string{"0", "1", "2", "3"}},
		{0, 33.6, []string{"0", "10", "20", "30"}},
		{4.5, 12.5, []string{"6", "8", "10", "12"}},
	} {
		var got []string
		for _, tk := range (wholeTicks{}).Ticks(c.lo, c.hi) {
			got = append(got, tk.Label)
		}
		if !slices.Equal(got, c.want) {
			t.Errorf("ticks of [%g, %g]: %q, want %q", c.lo, c.hi, got, c.want)
		}
	}
}
