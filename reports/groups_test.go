package reports

import (
	"context"
	"maps"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/hcbench/hcbench/experiments/results"
)

// sizedInput is a data set per entry of params, named by its key, with a greedy and a trellis
// record at each N of ns[name] (each record with that data set's params, or with params[name]'s
// values one per item where it is a list).
func sizedInput(names []string, params map[string][]map[string]any, ns map[string][]int) Input {
	in := Input{Experiment: "sizes", Datasets: names, Algorithms: []string{"greedy", "trellis"}}
	for _, ds := range names {
		for i, n := range ns[ds] {
			var dp map[string]any
			if ps := params[ds]; len(ps) > 0 {
				dp = ps[i%len(ps)]
			}
			for k, a := range in.Algorithms {
				in.Records = append(in.Records, results.Record{Schema: results.RecordSchema, Dataset: ds, Item: strconv.Itoa(i),
					Algorithm: a, AlgorithmName: a, DataParams: dp, N: n, Seconds: 1e-5 * float64(n*(k+1))})
			}
		}
	}
	return in
}

// with returns a copy of base with the keys of kv set.
func with(base map[string]any, kv ...any) map[string]any {
	out := maps.Clone(base)
	for i := 0; i+1 < len(kv); i += 2 {
		out[kv[i].(string)] = kv[i+1]
	}
	return out
}

// TestSizeGroups: data sets whose records differ only in size keys (the number of items, their
// leaves, t_cut, max_tries, sample_key) are one group; one that differs in any other key (λ, the
// likelihood, the jet type), or has no data_params at all, is a group of its own. A jets file's
// per-jet λ counts as the set of values its records hold.
func TestSizeGroups(t *testing.T) {
	qcd := map[string]any{"generator": "ginkgo", "jet_type": "qcd", "jets": 25, "lambda": 1.5, "likelihood": "ginkgo2020", "min_leaves": 5, "max_leaves": 9, "t_cut": 16, "max_tries": 20000}
	file := map[string]any{"file": "data:jets.jsonl", "format": "jets", "limit": 0, "likelihood": "ginkgo2020"}
	for _, c := range []struct {
		name   string
		params map[string][]map[string]any
		want   string // the groups, their data sets and the keys that differ
	}{
		{"sizes", map[string][]map[string]any{
			"small": {qcd},
			"n10":   {with(qcd, "jets", 5, "min_leaves", 10, "max_leaves", 10, "t_cut", 4)},
			"n15":   {with(qcd, "jets", 3, "min_leaves", 15, "max_leaves", 15, "t_cut", 1.21, "max_tries", 90000)},
		}, "[small n10 n15: jets min_leaves max_leaves t_cut max_tries]"},
		{"lambda", map[string][]map[string]any{
			"small": {qcd},
			"n10":   {with(qcd, "min_leaves", 10, "max_leaves", 10, "lambda", 2.0)},
			"n15":   {with(qcd, "min_leaves", 15, "max_leaves", 15)},
		}, "[small n15: min_leaves max_leaves] [n10: ]"},
		{"model", map[string][]map[string]any{
			"small": {qcd},
			"n10":   {with(qcd, "min_leaves", 10, "max_leaves", 10, "likelihood", "ginkgo2021")},
			"n15":   {with(qcd, "min_leaves", 15, "max_leaves", 15, "jet_type", "w")},
		}, "[small: ] [n10: ] [n15: ]"},
		{"no params", map[string][]map[string]any{"small": nil, "n10": nil, "n15": {qcd}}, "[small: ] [n10: ] [n15: ]"},
		{"per-jet lambda", map[string][]map[string]any{
			"small": {with(file, "lambda", 1.5), with(file, "lambda", 2.0)},
			"n10":   {with(file, "lambda", 2.0, "limit", 2), with(file, "lambda", 1.5, "limit", 2)},
			"n15":   {with(file, "lambda", 1.5, "limit", 2)},
		}, "[small n10: limit] [n15: ]"},
	} {
		t.Run(c.name, func(t *testing.T) {
			names := []string{"small", "n10", "n15"}
			in := sizedInput(names, c.params, map[string][]int{"small": {5, 6}, "n10": {10, 10}, "n15": {15}})
			var got []string
			for _, g := range sizeGroups(in, names) {
				got = append(got, "["+strings.Join(g.datasets, " ")+": "+strings.Join(g.differ, " ")+"]")
			}
			if s := strings.Join(got, " "); s != c.want {
				t.Errorf("groups %s, want %s", s, c.want)
			}
		})
	}
}

// TestRuntimePooledPanel: three data sets of one model at N = 5–6, 7 and 8–9 are one panel of
// the runtime plot, titled by them, with a line of five points per algorithm; its legend says
// that the panel pools them and in what they differ; and runtime.csv keeps a row per data set.
func TestRuntimePooledPanel(t *testing.T) {
	base := map[string]any{"generator": "ginkgo", "lambda": 1.5, "jets": 2}
	names := []string{"a", "b", "c"}
	in := sizedInput(names, map[string][]map[string]any{"a": {base}, "b": {with(base, "jets", 1)}, "c": {base}},
		map[string][]int{"a": {5, 6}, "b": {7}, "c": {8, 9}})
	dir := t.TempDir()
	if _, err := Write(context.Background(), []string{"runtime"}, in, dir); err != nil {
		t.Fatal(err)
	}
	shapes, texts := readPlot(t, filepath.Join(dir, "runtime"))
	for i, a := range in.Algorithms {
		if got := countGlyphs(shapes, seriesColour(i), defaultRadius); got != 5+1 {
			t.Errorf("%s: %d glyphs, want 5 points (N = 5 to 9) and 1 in the legend", a, got)
		}
	}
	if n := strings.Count(strings.Join(texts, "\n"), "N (leaves)"); n != 1 {
		t.Errorf("%d panels, want 1", n)
	}
	joined := strings.Join(texts, " ")
	for _, want := range []string{"Runtime: a, b, c (3 data sets)", "The panel pools 3 data sets by N; they differ only in size (jets)."} {
		if !strings.Contains(joined, want) {
			t.Errorf("the plot does not say %q: %q", want, texts)
		}
	}
	var ds []string
	for _, row := range readCSV(t, filepath.Join(dir, "runtime.csv"))[1:] {
		if !slices.Contains(ds, row[0]) {
			ds = append(ds, row[0])
		}
	}
	if !slices.Equal(ds, names) {
		t.Errorf("runtime.csv has rows of %q, want one set per data set %q", ds, names)
	}
}
