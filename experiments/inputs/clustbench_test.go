package inputs

import (
	"bytes"
	"compress/gzip"
	"context"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/hcbench/hcbench/datasets/clustbench"
	"github.com/hcbench/hcbench/datasets/datadir"
	"github.com/hcbench/hcbench/datasets/datadir/datatest"
	"github.com/hcbench/hcbench/experiments/config"
	"github.com/hcbench/hcbench/experiments/item"
)

// openClustBench opens the one data set of a config whose clustbench entry has the keys keys.
func openClustBench(t *testing.T, keys string) (*Dataset, error) {
	t.Helper()
	cfg := parse(t, t.TempDir(), "version: 1\nname: c\nseed: 7\ndatasets:\n  - {name: cb, generator: clustbench, "+keys+"}\nalgorithms: [{name: linkage, method: single}]\n")
	return Open(context.Background(), cfg, cfg.Datasets[0])
}

// TestClustBenchRecommended: `batteries: recommended` names the suite's 69 data sets; the 68 whose
// data file the data directory holds are items, and sipu/worms_64 is left out with a warning.
// Every item is read with its catalog size and all its reference partitions, which follow its
// leaves: in the data's order they are the files' labels, and Labels is the first as strings
// ("" for noise). Preprocessed (original), each column has mean 0, and all entries together a
// standard deviation of at most 1: the divisor is their sd about their overall mean before the
// columns are centred (TestClustBenchPreprocess checks the values against numpy).
func TestClustBenchRecommended(t *testing.T) {
	datatest.Path(t, "clustbench/wut/x1.data.gz")
	d, err := openClustBench(t, "batteries: recommended")
	if err != nil {
		t.Fatal(err)
	}
	w := strings.Join(d.Warnings(), "\n")
	if d.Len() != 68 || !strings.Contains(w, "1 data set of ClustBench left out: sipu/worms_64 (") || !strings.Contains(w, "sipu/worms_64.data.gz, are absent from") {
		t.Fatalf("%d items; warnings %q", d.Len(), w)
	}
	if s := d.Size(); s.Items != 68 || s.MinLeaves != 105 || s.MaxLeaves != 105600 || s.Dims != 4 || s.Weights {
		t.Errorf("size %+v", s)
	}
	sets := map[string]datadir.ClustBenchSet{}
	for _, s := range datadir.ClustBenchSets {
		sets[s.ID()] = s
	}
	for i := range d.Len() {
		it, err := d.Load(context.Background(), i)
		if err != nil {
			t.Fatal(err)
		}
		set := sets[it.ID]
		if it.Leaves() != set.Points || len(it.References) != set.Labels || len(it.Warnings) != 0 || it.Order == nil {
			t.Fatalf("%s: %d leaves, %d references, warnings %q", it.ID, it.Leaves(), len(it.References), it.Warnings)
		}
		for k, ref := range it.References {
			f, err := os.Open(filepath.Join(datatest.Dir(t).Path, "clustbench", set.File("labels"+strconv.Itoa(k))))
			if err != nil {
				t.Fatal(err)
			}
			file, _, err := clustbench.ReadLabels(f, f.Name(), set.Points)
			f.Close()
			if err != nil {
				t.Fatal(err)
			}
			for j, l := range item.InData(it, ref) {
				if l != file[j] {
					t.Fatalf("%s: reference %d, point %d: %d, the file has %d", it.ID, k, j, l, file[j])
				}
			}
		}
		for j, l := range it.Labels {
			if want := it.References[0][j]; (l == "") != (want == 0) || l != "" && l != strconv.Itoa(want) {
				t.Fatalf("%s: leaf %d: label %q, reference 0 has %d", it.ID, j, l, want)
			}
		}
		checkStandardised(t, it)
	}
}

// checkStandardised checks that each column of the item's points has mean 0 (to 1e-9) and all
// entries together a standard deviation (ddof 1) in (0, 1].
func checkStandardised(t *testing.T, it *item.Item) {
	t.Helper()
	d := len(it.Vectors[0])
	mean := make([]float64, d)
	var ss float64
	for _, x := range it.Vectors {
		for j, v := range x {
			mean[j] += v
			ss += v * v
		}
	}
	for j := range mean {
		if math.Abs(mean[j]/float64(len(it.Vectors))) > 1e-9 {
			t.Errorf("%s: column %d has mean %g", it.ID, j, mean[j]/float64(len(it.Vectors)))
		}
	}
	if sd := math.Sqrt(ss / float64(len(it.Vectors)*d-1)); !(sd > 0 && sd <= 1+1e-12) {
		t.Errorf("%s: overall sd %v", it.ID, sd)
	}
}

// TestClustBenchPreprocess: the points of three data sets, preprocessed (original), against numpy
// 1.24.2's (the suite's load_data without its noise: X = X[:, X.var(axis=0) > 0];
// s = X.std(axis=None, ddof=1); X = (X - X.mean(axis=0))/s), to 1e-12: the first point's
// coordinates and the last two of the last point, in the data's order. ionosphere loses its
// constant second column (34 → 33). With jitter 1e-6, a seed gives the same points, another seed
// others, and the noise is of the stated size.
func TestClustBenchPreprocess(t *testing.T) {
	datatest.Path(t, "clustbench/wut/x1.data.gz")
	want := map[string]struct {
		dims        int
		first, last []float64
	}{
		"wut/x1":         {2, []float64{-0.5974872576214693, 0.00159039541457849}, []float64{-1.2840441639259805, -1.3353855734699305}},
		"uci/ionosphere": {33, []float64{0.18579705421071918, 0.6076096616872333, -0.177215772792189}, []float64{0.8722927225385094, -0.13041256585123776}},
		"other/iris":     {4, []float64{-0.3762779556621163, 0.22407942830461416, -1.1936279185443088}, []float64{0.6793251343029946, 0.30405958569647207}},
	}
	d, err := openClustBench(t, "datasets: [x1, uci/ionosphere, other/iris]")
	if err != nil {
		t.Fatal(err)
	}
	for i := range d.Len() {
		it, err := d.Load(context.Background(), i)
		if err != nil {
			t.Fatal(err)
		}
		x := item.InData(it, it.Vectors)
		w := want[it.ID]
		last := x[len(x)-1][len(x[0])-2:]
		for j, v := range append(slices.Clone(x[0][:len(w.first)]), last...) {
			if ref := append(slices.Clone(w.first), w.last...)[j]; len(x[0]) != w.dims || math.Abs(v-ref) > 1e-12 {
				t.Errorf("%s: %d dims; value %d is %.17g, numpy's %.17g", it.ID, len(x[0]), j, v, ref)
			}
		}
	}

	load := func(keys string) [][]float64 {
		d, err := openClustBench(t, "datasets: [wut/x1], "+keys)
		if err != nil {
			t.Fatal(err)
		}
		it, err := d.Load(context.Background(), 0)
		if err != nil {
			t.Fatal(err)
		}
		if it.DataParams["jitter"] == nil || it.DataParams["preprocess"] != "original" {
			t.Errorf("data_params %v", it.DataParams)
		}
		return item.InData(it, it.Vectors)
	}
	plain, a, b := load("jitter: 0"), load("jitter: 1e-6"), load("jitter: 1e-6")
	var ss float64
	for i := range a {
		for j := range a[i] {
			if a[i][j] != b[i][j] {
				t.Fatalf("jitter differs for one seed at %d,%d", i, j)
			}
			ss += (a[i][j] - plain[i][j]) * (a[i][j] - plain[i][j])
		}
	}
	// Preprocessed, the overall sd is 1: the noise's is about 1e-6 (240 draws: within 25 %).
	if sd := math.Sqrt(ss / 240); math.Abs(sd/1e-6-1) > 0.25 {
		t.Errorf("jitter of sd %g, want about 1e-6", sd)
	}
}

// TestClustBenchErrors: unknown names are refused at their config line with a suggestion; a
// data set filtered away entirely is a problem; malformed files are refused with their file and
// line when the item is loaded.
func TestClustBenchErrors(t *testing.T) {
	for _, c := range []struct{ keys, want string }{
		{"batteries: [wtu]", `unknown battery "wtu" (did you mean "wut"?)`},
		{"datasets: [sipu/worm_2]", `no data set "sipu/worm_2" in ClustBench v1.1.0 (did you mean "sipu/worms_2"?)`},
		{"datasets: [x1], batteries: wut", "give batteries or datasets, not both"},
		{"batteries: uci, max_points: 100", "no data set is left"},
		{"preprocess: standard", `must be original or none, got "standard"`},
		{"jitter: 2", "jitter: must be in [0, 1]"},
	} {
		dir := t.TempDir()
		path := filepath.Join(dir, "exp.yaml")
		os.WriteFile(path, []byte("version: 1\nname: c\ndatasets:\n  - {name: cb, generator: clustbench, "+c.keys+"}\nalgorithms: [greedy]\n"), 0o644)
		if _, err := config.Load(path); err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), "exp.yaml:4:") {
			t.Errorf("%s: %v, want %s", c.keys, err, c.want)
		}
	}

	datatest.Path(t, "clustbench/wut/x1.data.gz")
	dir := filepath.Join(t.TempDir(), "cb")
	os.MkdirAll(filepath.Join(dir, "wut"), 0o755)
	src := filepath.Join(datatest.Dir(t).Path, "clustbench", "wut")
	for _, f := range []string{"x1.data.gz", "x1.labels0.gz", "x2.data.gz", "x2.labels0.gz"} {
		b, err := os.ReadFile(filepath.Join(src, f))
		if err != nil {
			t.Fatal(err)
		}
		os.WriteFile(filepath.Join(dir, "wut", f), b, 0o644)
	}
	write := func(name, text string) {
		var b bytes.Buffer
		w := gzip.NewWriter(&b)
		w.Write([]byte(text))
		w.Close()
		os.WriteFile(filepath.Join(dir, "wut", name), b.Bytes(), 0o644)
	}
	write("x2.labels1.gz", strings.Repeat("1\n", 119)) // x2 has 120 points
	d, err := openClustBench(t, "dir: "+dir+", datasets: [x1, x2, x3]")
	if err != nil {
		t.Fatal(err)
	}
	if w := strings.Join(d.Warnings(), "\n"); d.Len() != 2 || !strings.Contains(w, "wut/x3 (its points, wut/x3.data.gz, are absent from "+dir+")") {
		t.Errorf("%d items, warnings %q", d.Len(), w)
	}
	if _, err := d.Load(context.Background(), 1); err == nil || !strings.Contains(err.Error(), "x2.labels1.gz: 119 labels, want one a point: 120") {
		t.Errorf("a short labelling: %v", err)
	}
	write("x1.data.gz", "1 2\n3\n")
	_, err = d.Load(context.Background(), 0)
	if err == nil || !strings.Contains(err.Error(), filepath.Join(dir, "wut", "x1.data.gz")+":2: 1 columns, the first line has 2") {
		t.Errorf("a ragged row: %v", err)
	}
	// A file of the right shape but not the suite's is read with a warning in its records.
	write("x1.data.gz", strings.Repeat("1 2\n", 119)+"3 5\n")
	it, err := d.Load(context.Background(), 0)
	if err != nil || len(it.Warnings) != 1 || !strings.Contains(it.Warnings[0], "x1.data.gz is not the suite's v1.1.0 file") {
		t.Errorf("a changed file: %v %q", err, it.Warnings)
	}
}

// BenchmarkClustBenchLoadRecommended reads and preprocesses the 68 recommended data sets present.
func BenchmarkClustBenchLoadRecommended(b *testing.B) {
	datatest.Path(b, "clustbench/wut/x1.data.gz")
	dir := b.TempDir()
	path := filepath.Join(dir, "exp.yaml")
	os.WriteFile(path, []byte("version: 1\nname: c\ndatasets:\n  - {name: cb, generator: clustbench}\nalgorithms: [greedy]\n"), 0o644)
	cfg, err := config.Load(path)
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		d, err := Open(context.Background(), cfg, cfg.Datasets[0])
		if err != nil {
			b.Fatal(err)
		}
		for i := range d.Len() {
			if _, err := d.Load(context.Background(), i); err != nil {
				b.Fatal(err)
			}
		}
	}
}
