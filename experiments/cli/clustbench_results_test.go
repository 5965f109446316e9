package cli

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/hcbench/hcbench/datasets/clustbench"
	"github.com/hcbench/hcbench/datasets/datadir/datatest"
	"github.com/hcbench/hcbench/experiments/metric"
	"github.com/hcbench/hcbench/experiments/results"
	"github.com/hcbench/hcbench/experiments/results/resultstest"
	"github.com/hcbench/hcbench/reports/metrics"
)

// clustbenchResultsConfig runs single and average linkage on three ClustBench data sets: wut/x2
// (references of 3 clusters and of 4 with noise points), sipu/compound (five references of 6, 4,
// 5, 4 and 5 clusters, two with noise) and fcps/hepta (7 well-separated clusters), with the
// clustbench_results report.
const clustbenchResultsConfig = `version: 1
name: cbres
seed: %d
datasets:
  - {name: cb, generator: clustbench, datasets: [wut/x2, sipu/compound, fcps/hepta]}
algorithms:
  - {name: linkage, label: single, method: single}
  - {name: linkage, label: average, method: average}
reports: [clustbench_results]
`

// runClustBenchResults runs clustbenchResultsConfig with a seed and returns the run directory and
// its records by key.
func runClustBenchResults(t *testing.T, seed int) (string, map[string]results.Record) {
	t.Helper()
	dir := t.TempDir()
	cfg := writeFile(t, dir, "cb.yaml", fmt.Sprintf(clustbenchResultsConfig, seed))
	out := filepath.Join(dir, "run")
	if code, stdout, stderr := run(t, context.Background(), "run", cfg, "-out", out); code != ExitOK {
		t.Fatalf("run: exit %d\n%s%s", code, stdout, stderr)
	}
	resultstest.CheckRunDir(t, out) // the records, partitions included, match the schema
	return out, readRecords(t, out)
}

// clustbenchReferences reads a data set's reference labellings from the suite's files, in the
// files' order of points: the independent truth the records' partitions are held to.
func clustbenchReferences(t *testing.T, id string, points int) [][]int {
	t.Helper()
	var refs [][]int
	for k := 0; ; k++ {
		p := filepath.Join(datatest.Dir(t).Path, "clustbench", id+".labels"+strconv.Itoa(k)+".gz")
		f, err := os.Open(p)
		if os.IsNotExist(err) {
			return refs
		}
		if err != nil {
			t.Fatal(err)
		}
		labels, _, err := clustbench.ReadLabels(f, p, points)
		f.Close()
		if err != nil {
			t.Fatal(err)
		}
		refs = append(refs, labels)
	}
}

// sameUpToRelabelling reports whether two labellings put the same points together.
func sameUpToRelabelling(a, b []int) bool {
	ab, ba := map[int]int{}, map[int]int{}
	for i := range a {
		if x, ok := ab[a[i]]; ok && x != b[i] {
			return false
		}
		if y, ok := ba[b[i]]; ok && y != a[i] {
			return false
		}
		ab[a[i]], ba[b[i]] = b[i], a[i]
	}
	return len(a) == len(b)
}

// TestClustBenchPartitions: every record of a ClustBench item holds the tree cut at each
// distinct number of clusters of the item's references, as the suite's label files give them
// (counted here from the files: x2 {3, 4}, compound {4, 5, 6}, hepta {7}), ascending. Each
// partition gives every point a label 1..k, uses all k, is numbered by first appearance in the
// data's order, and refines the one at the next smaller k (the cut's partitions are nested).
// Single linkage on fcps/hepta, 7 clusters far apart, finds the reference exactly up to the
// clusters' names: the partition is in the data file's order of points, not in the shuffled
// order the algorithm was given them. Another seed, which shuffles the leaves otherwise, gives the
// same partitions. Scored against the label files (best over the references, as the suite
// does), the partitions give the record's NCA and ARI to 1e-12. Records of items without
// references of their own (a labelled CSV, whose metrics use a reference made from the labels)
// hold none.
func TestClustBenchPartitions(t *testing.T) {
	datatest.Path(t, "clustbench/wut/x2.data.gz")
	datatest.Path(t, "clustbench/sipu/compound.data.gz")
	datatest.Path(t, "clustbench/fcps/hepta.data.gz")
	_, recs := runClustBenchResults(t, 5)
	wantKs := map[string][]int{"wut/x2": {3, 4}, "sipu/compound": {4, 5, 6}, "fcps/hepta": {7}}
	if len(recs) != 6 {
		t.Fatalf("%d records, want 6", len(recs))
	}
	for key, r := range recs {
		if r.Error != "" {
			t.Fatalf("%s: %s", key, r.Error)
		}
		refs := clustbenchReferences(t, r.Item, r.N)
		var ks []int
		for _, ref := range refs {
			seen := map[int]bool{}
			for _, l := range ref {
				if l != 0 {
					seen[l] = true
				}
			}
			ks = append(ks, len(seen))
		}
		slices.Sort(ks)
		ks = slices.Compact(ks)
		if !slices.Equal(ks, wantKs[r.Item]) {
			t.Fatalf("%s: the label files give k %v, want %v", r.Item, ks, wantKs[r.Item])
		}
		var got []int
		for i, p := range r.Partitions {
			got = append(got, p.K)
			if len(p.Labels) != r.N {
				t.Fatalf("%s: k = %d: %d labels for %d points", key, p.K, len(p.Labels), r.N)
			}
			next := 1
			for j, l := range p.Labels {
				if l < 1 || l > next {
					t.Fatalf("%s: k = %d: point %d has label %d, want 1..%d numbered by first appearance", key, p.K, j, l, next)
				}
				if l == next {
					next++
				}
			}
			if next-1 != p.K {
				t.Errorf("%s: k = %d: %d clusters", key, p.K, next-1)
			}
			if i > 0 { // nested: each cluster at k lies within one cluster at the smaller k
				coarse := r.Partitions[i-1].Labels
				in := map[int]int{}
				for j, l := range p.Labels {
					if c, ok := in[l]; ok && c != coarse[j] {
						t.Errorf("%s: the partition at k = %d does not refine the one at k = %d", key, p.K, r.Partitions[i-1].K)
						break
					}
					in[l] = coarse[j]
				}
			}
		}
		if !slices.Equal(got, ks) {
			t.Errorf("%s: partitions at k %v, want %v", key, got, ks)
		}
		// The partition metrics cut the tree in the item's order of leaves, the partitions are in
		// the data's: scored against the label files, the partitions give the record's values.
		for _, m := range []struct {
			key   string
			score func(pred, ref []int) float64
		}{{metric.NCA, metrics.NormalizedClusteringAccuracy}, {metric.ARI, metrics.AdjustedRand}} {
			best := math.Inf(-1)
			for _, ref := range refs {
				for _, p := range r.Partitions {
					if p.K == metrics.ReferenceClusters(ref) {
						best = max(best, m.score(p.Labels, ref))
					}
				}
			}
			if v, ok := r.Metric(m.key); !ok || math.Abs(v-best) > 1e-12 {
				t.Errorf("%s: %s %v (recorded: %v), the partitions score %v", key, m.key, v, ok, best)
			}
		}
		if r.Item == "fcps/hepta" && r.Algorithm == "single" && !sameUpToRelabelling(r.Partitions[0].Labels, refs[0]) {
			t.Errorf("%s: single linkage's 7 clusters are not hepta's reference in the data's order of points", key)
		}
	}

	_, other := runClustBenchResults(t, 6)
	for key, r := range recs {
		o := other[key]
		if o.LeafOrderSeed == r.LeafOrderSeed {
			t.Fatalf("%s: seeds 5 and 6 gave the leaves in one order; the check below would prove nothing", key)
		}
		if !slices.EqualFunc(o.Partitions, r.Partitions, func(a, b results.Partition) bool { return a.K == b.K && slices.Equal(a.Labels, b.Labels) }) {
			t.Errorf("%s: the partitions differ between two orders of the leaves", key)
		}
	}

	// A labelled CSV: its metrics derive a reference from the labels, its records keep no partitions.
	dir := t.TempDir()
	writeFile(t, dir, "lab.csv", "f1,f2,label\n0,0,a\n0.1,0,a\n5,5,b\n5.1,5,b\n")
	cfg := writeFile(t, dir, "lab.yaml", "version: 1\nname: lab\ndatasets:\n  - {name: lab, file: lab.csv}\nalgorithms: [{name: linkage, method: single}]\n")
	out := filepath.Join(dir, "run")
	if code, stdout, stderr := run(t, context.Background(), "run", cfg, "-out", out); code != ExitOK {
		t.Fatalf("run: exit %d\n%s%s", code, stdout, stderr)
	}
	for key, r := range readRecords(t, out) {
		if r.Error != "" || r.Partitions != nil || len(r.Metrics) == 0 {
			t.Errorf("%s: error %q, partitions %v, metrics %v; want no partitions beside the label metrics", key, r.Error, r.Partitions, r.Metrics)
		}
	}
}

// TestClustBenchResultsReport: clustbench_results writes, for every record's partition,
// reports/clustbench/ALGORITHM/BATTERY/DATASET.resultK.gz, gzip of the label in double quotes and
// then the partition's labels one a line, and nothing else under clustbench/; rebuilt with
// `hcbench report`, it writes the same bytes and removes a stale partition file left in the
// folder. pandas reads every file (pd.read_csv, as the suite's load_results does) as one column
// named by the algorithm's label holding the labels; the glob of load_results("*", BATTERY,
// DATASET, K) (clustbench 1.1, transcribed below) finds one column per algorithm.
func TestClustBenchResultsReport(t *testing.T) {
	datatest.Path(t, "clustbench/wut/x2.data.gz")
	datatest.Path(t, "clustbench/sipu/compound.data.gz")
	datatest.Path(t, "clustbench/fcps/hepta.data.gz")
	out, recs := runClustBenchResults(t, 5)
	root := filepath.Join(out, "reports", "clustbench")
	want := map[string][]int{} // path relative to root → labels
	header := map[string]string{}
	for _, r := range recs {
		for _, p := range r.Partitions {
			rel := filepath.Join(r.Algorithm, r.Item+".result"+strconv.Itoa(p.K)+".gz")
			want[rel], header[rel] = p.Labels, r.Algorithm
		}
	}
	if len(want) != 2*(2+3+1) {
		t.Fatalf("%d partitions, want 12", len(want))
	}
	read := func() map[string][]byte {
		got := map[string][]byte{}
		err := filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
			if err == nil && !d.IsDir() {
				rel, _ := filepath.Rel(root, path)
				got[rel], err = os.ReadFile(path)
			}
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
		return got
	}
	files := read()
	if len(files) != len(want) {
		t.Errorf("%d files under reports/clustbench, want %d", len(files), len(want))
	}
	for rel, labels := range want {
		z, err := gzip.NewReader(bytes.NewReader(files[rel]))
		if err != nil {
			t.Fatalf("%s: %v", rel, err)
		}
		text, err := io.ReadAll(z)
		if err != nil {
			t.Fatalf("%s: %v", rel, err)
		}
		var b strings.Builder
		fmt.Fprintf(&b, "%q\n", header[rel])
		for _, l := range labels {
			fmt.Fprintf(&b, "%d\n", l)
		}
		if string(text) != b.String() {
			t.Errorf("%s holds\n%.80s…\nwant\n%.80s…", rel, text, b.String())
		}
	}
	md := strings.Join(strings.Fields(mustRead(t, filepath.Join(out, "reports", "clustbench_results.md"))), " ") // the table's columns padded
	for _, s := range []string{"| single | clustbench/single/ | 3 | 6 |", "| average | clustbench/average/ | 3 | 6 |", "load_results"} {
		if !strings.Contains(md, s) {
			t.Errorf("clustbench_results.md lacks %q:\n%s", s, md)
		}
	}

	stale := filepath.Join(root, "single", "wut", "x1.result3.gz")
	if err := os.WriteFile(stale, []byte("stale"), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, stdout, stderr := run(t, context.Background(), "report", "-reports", "clustbench_results", out); code != ExitOK {
		t.Fatalf("report: exit %d\n%s%s", code, stdout, stderr)
	}
	again := read()
	if len(again) != len(files) {
		t.Errorf("after the rebuild %d files, want %d (the stale one removed)", len(again), len(files))
	}
	for rel, b := range files {
		if !bytes.Equal(again[rel], b) {
			t.Errorf("%s: the rebuild wrote other bytes", rel)
		}
	}

	py := pandasPython(t)
	script := filepath.Join(t.TempDir(), "read.py")
	// The loop of clustbench.load_results (clustbench 1.1), whose package Debian lacks: every
	// file of the glob read with pandas, each column a method's label vector by its header.
	if err := os.WriteFile(script, []byte(`import glob, json, os, sys
import pandas as pd
root, items = sys.argv[1], json.loads(sys.argv[2])
out = {}
for battery, dataset, k in items:
    results = dict()
    for fname in sorted(glob.glob(os.path.join(root, "*", battery, dataset) + ".result%d.gz" % k)):
        labels = pd.read_csv(fname)
        for i in range(labels.shape[1]):
            results[labels.columns[i]] = [int(x) for x in labels.iloc[:, i]]
    out["%s/%s/%d" % (battery, dataset, k)] = results
print(json.dumps(out))
`), 0o644); err != nil {
		t.Fatal(err)
	}
	var items [][]any
	for _, id := range []string{"wut/x2", "sipu/compound", "fcps/hepta"} {
		battery, name, _ := strings.Cut(id, "/")
		for k := 3; k <= 7; k++ {
			if _, ok := want[filepath.Join("single", id+".result"+strconv.Itoa(k)+".gz")]; ok {
				items = append(items, []any{battery, name, k})
			}
		}
	}
	arg, _ := json.Marshal(items)
	cmd := exec.Command(py, "-W", "error", script, root, string(arg))
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	b, err := cmd.Output()
	if err != nil {
		t.Fatalf("pandas: %v\n%s", err, stderr.String())
	}
	var got map[string]map[string][]int
	if err := json.Unmarshal(b, &got); err != nil {
		t.Fatalf("%v: %s", err, b)
	}
	if len(got) != 6 {
		t.Errorf("load_results read %d (data set, k), want 6", len(got))
	}
	for _, it := range items {
		key := fmt.Sprintf("%s/%s/%d", it...)
		methods := got[key]
		if len(methods) != 2 {
			t.Errorf("%s: load_results finds methods %v, want single and average", key, methods)
		}
		for _, alg := range []string{"single", "average"} {
			rel := filepath.Join(alg, it[0].(string), it[1].(string)+".result"+strconv.Itoa(it[2].(int))+".gz")
			if !slices.Equal(methods[alg], want[rel]) {
				t.Errorf("%s: pandas reads %s's column as %d labels, want the record's %d", key, alg, len(methods[alg]), len(want[rel]))
			}
		}
	}
}
