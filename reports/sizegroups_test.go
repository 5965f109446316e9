package reports_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/hcbench/hcbench/datasets/datadir/datatest"
	"github.com/hcbench/hcbench/experiments/config"
	"github.com/hcbench/hcbench/experiments/inputs"
	"github.com/hcbench/hcbench/experiments/results"
	"github.com/hcbench/hcbench/reports"
)

// TestRuntimePoolsOnlyBySize reads the shipped configs as a run would (their data sets' resolved
// params, data_params in the records) and writes the runtime report of records at three leaf
// counts of each data set (the least, the middle and the most; one count where the config sets no
// range): configs/trellis-scaling.yaml's 12 data sets (one per range of N, with their own jets
// and t_cut) and ginkgo-large.yaml's 4 differ only in size, so each config gives one table, one
// curve over every N; nightly's data sets differ in their model, their source or their
// generator's settings (likelihood, jet type, file, split model, mixture kind, dimensions), so
// none is pooled with another.
func TestRuntimePoolsOnlyBySize(t *testing.T) {
	for _, c := range []struct {
		config string
		tables []string // the titles of runtime.md's tables, less ": median seconds per task"
		ns     string   // the N of the first table's rows
	}{
		{"trellis-scaling", []string{"n05-09, n10, …, n20 (12 data sets)"}, "5 7 9 10 11 12 13 14 15 16 17 18 19 20"},
		{"ginkgo-large", []string{"n20-30, n31-45, …, n61-100 (4 data sets)"}, "20 25 30 31 38 45 46 53 60 61 80 100"},
		{"nightly", []string{"qcd", "qcd21", "w-large", "public9", "pam50", "iris", "blobs", "bern"}, "5 8 12"},
	} {
		t.Run(c.config, func(t *testing.T) {
			if c.config == "nightly" {
				for _, f := range []string{"clustertrellis/truth_9.jsonl", "pam50/220arrays_nonUBCcommon+12normal_50g.txt", "uci/iris.csv"} {
					datatest.Path(t, f)
				}
			}
			cfg, err := config.LoadOptions(filepath.Join("..", "configs", c.config+".yaml"), config.Options{DataDir: datatest.Dir(t)})
			if err != nil {
				t.Fatal(err)
			}
			in := reports.Input{Experiment: c.config, Algorithms: []string{"greedy"}}
			for _, ds := range cfg.Datasets {
				d, err := inputs.Open(context.Background(), cfg, ds)
				if err != nil {
					t.Fatal(err)
				}
				ns := []int{10}
				if lo, ok := d.Params()["min_leaves"].(int); ok {
					hi := d.Params()["max_leaves"].(int)
					ns = []int{lo, (lo + hi) / 2, hi}
				}
				in.Datasets = append(in.Datasets, ds.Name)
				for i, n := range ns {
					in.Records = append(in.Records, results.Record{Schema: results.RecordSchema, Dataset: ds.Name, Item: strconv.Itoa(i),
						Algorithm: "greedy", AlgorithmName: "greedy", DataParams: d.Params(), N: n, Seconds: 1e-5 * float64(n)})
				}
			}
			dir := t.TempDir()
			if _, err := reports.Write(context.Background(), []string{"runtime"}, in, dir); err != nil {
				t.Fatal(err)
			}
			md, err := os.ReadFile(filepath.Join(dir, "runtime.md"))
			if err != nil {
				t.Fatal(err)
			}
			var titles []string
			for _, m := range regexp.MustCompile(`(?m)^## (.*): median seconds per task$`).FindAllStringSubmatch(string(md), -1) {
				titles = append(titles, m[1])
			}
			if fmt.Sprint(titles) != fmt.Sprint(c.tables) {
				t.Errorf("tables %q, want %q:\n%s", titles, c.tables, md)
			}
			var ns []string
			table := strings.SplitN(string(md), "\n## ", 3)[1]
			for _, m := range regexp.MustCompile(`(?m)^\|\s*(\d+) \|`).FindAllStringSubmatch(table, -1) {
				ns = append(ns, m[1])
			}
			if got := strings.Join(ns, " "); got != c.ns {
				t.Errorf("first table's N: %s, want %s", got, c.ns)
			}
			pooled := strings.Contains(string(md), "pools data sets that differ only in size")
			if pooled != (len(c.tables) == 1) {
				t.Errorf("the notes say pooling: %v, want %v", pooled, len(c.tables) == 1)
			}
		})
	}
}
