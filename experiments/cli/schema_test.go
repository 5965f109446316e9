package cli

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/hcbench/hcbench/experiments/results"
	"github.com/hcbench/hcbench/experiments/results/resultstest"
	"github.com/hcbench/hcbench/internal/externaltest"
)

// schemaCSV is a labelled CSV: named rows of three features, classes a and b and an unknown
// label, for the record fields of vector data read from a file (leaf names, labels, positions,
// missing cells, purities).
const schemaCSV = `name,f1,f2,f3,label
r1,0.1,1.2,3.0,a
r2,0.3,1.1,2.7,a
r3,0.2,0.9,3.1,a
r4,2.1,0.2,0.4,b
r5,2.4,0.1,0.2,b
r6,1.9,0.3,0.5,b
r7,1.0,1.0,1.0,Unknown
r8,1.2,0.8,1.4,Unknown
`

// writeClustBenchIris5 writes a stand-in for ClustBench's other/iris5 into dir: the catalog's
// 105 points of 4 features (three groups, made up here, not the suite's data) and two reference
// labellings, one with noise points, so that records of a clustbench item (partitions) need no
// data directory.
func writeClustBenchIris5(t *testing.T, dir string) {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	var data, l0, l1 strings.Builder
	for i := range 105 {
		g := i % 3
		fmt.Fprintf(&data, "%d.%d %d.%d %d %d\n", 3*g, i%7, g, i%5, i%4, 2*g)
		fmt.Fprintf(&l0, "%d\n", g+1)
		if i%10 == 0 {
			fmt.Fprintln(&l1, 0)
		} else {
			fmt.Fprintln(&l1, min(g, 1)+1)
		}
	}
	for name, text := range map[string]string{"iris5.data.gz": data.String(), "iris5.labels0.gz": l0.String(), "iris5.labels1.gz": l1.String()} {
		var b bytes.Buffer
		w := gzip.NewWriter(&b)
		w.Write([]byte(text))
		w.Close()
		if err := os.WriteFile(filepath.Join(dir, name), b.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// TestRecordsMatchTheSchema runs a config whose tasks write every field of a record, as two
// shards and their merge, each algorithm twice per item (-count 2), and checks every line of the
// results files and every manifest (the shards' and the merge's) against the JSON Schemas of
// package results (resultstest): a field the record schema does not know, or a value of the
// wrong type, fails here. Every property of the record schema must appear in some record, so the
// run keeps exercising all of them.
func TestRecordsMatchTheSchema(t *testing.T) {
	dir := t.TempDir()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	q, _ := json.Marshal(exe) // a JSON string is a YAML string
	writeFile(t, dir, "vec.csv", schemaCSV)
	writeClustBenchIris5(t, filepath.Join(dir, "cb", "other"))
	cfg := writeFile(t, dir, "schema.yaml", fmt.Sprintf(`version: 1
name: schema
seed: 9
datasets:
  - {name: qcd, generator: ginkgo, jets: 2, min_leaves: 5, max_leaves: 6, t_cut: 16}
  - {name: vec, file: vec.csv, name_column: name, unknown_label: Unknown, subsamples: 2, per_label: 2, unknown: 1}
  - {name: mix, generator: mixture, points: 8, components: 2, separation: 5, split_model: none}
  - {name: cb, generator: clustbench, dir: cb, datasets: [other/iris5]}
algorithms:
  - truth
  - greedy
  - {name: beam, datasets: [qcd, vec]}
  - {name: trellis, marginals: 2, samples: 2, count_map_trees: true, datasets: [qcd, vec]}
  - {name: sparse_trellis, datasets: [qcd]}
  - {name: linkage, datasets: [vec, cb]}
  - {name: bhc, merges: true, datasets: [vec, mix]}
  - {name: rbhc, m: 4, datasets: [mix]}
  - {name: embhc, m: 2, datasets: [mix]}
  - {name: bhc_exact, datasets: [mix]}
  - {name: brt, datasets: [mix]}
  - {name: external, label: ext, command: [%[1]s, %[2]s, wrong-ll, -bad, "0"], datasets: [qcd]}
  - {name: external, label: fails, command: [%[1]s, %[2]s, error], datasets: [qcd]}
reports: [summary]
`, q, externaltest.Arg))
	shards := filepath.Join(dir, "shards")
	for i := range 2 {
		code, stdout, stderr := run(t, context.Background(), "run", cfg, "-out", shards, "-shard", fmt.Sprintf("%d/2", i), "-count", "2", "-workers", "2")
		if code != ExitOK && code != ExitFailure { // exit 1: the failing variant's tasks
			t.Fatalf("shard %d: exit %d\n%s%s", i, code, stdout, stderr)
		}
	}
	merged := filepath.Join(dir, "merged")
	if code, stdout, stderr := run(t, context.Background(), "merge", "-out", merged, shards); code != ExitOK && code != ExitFailure {
		t.Fatalf("merge: exit %d\n%s%s", code, stdout, stderr)
	}
	n, _ := resultstest.CheckRunDir(t, shards)
	records, fields := resultstest.CheckRunDir(t, merged)
	if records != n || records < 25 {
		t.Errorf("%d records in the shards, %d merged; want the same, and at least 25", n, records)
	}
	var schema struct{ Properties map[string]any }
	if err := json.Unmarshal([]byte(results.RecordJSONSchema), &schema); err != nil {
		t.Fatal(err)
	}
	var missing []string
	for p := range schema.Properties {
		if fields[p] == 0 {
			missing = append(missing, p)
		}
	}
	sort.Strings(missing)
	if len(missing) > 0 {
		t.Errorf("no record of the run has %s: the config no longer exercises every field of a record", strings.Join(missing, ", "))
	}
}

// TestShippedRunsMatchTheSchema runs shipped configs as a user would, and checks every record
// and manifest against the JSON Schemas: the quickstart (generated jets; smaller), and the
// nightly config's real data sets (the public ClusterTrellis jets, pam50 and iris: every item)
// with the first item of its generated ones (-only). The nightly part needs the data directory
// (HCBENCH_DATA); without it, it skips naming the data set.
func TestShippedRunsMatchTheSchema(t *testing.T) {
	for _, c := range []struct {
		config string
		args   []string
		min    int // records the run must have
	}{
		{"quickstart.yaml", []string{"-set", "datasets[0].jets=20"}, 40},
		{"nightly.yaml", []string{"-only", `^dataset=(public9|pam50|iris)\||^dataset=(qcd|qcd21|bern|blobs)\|item=0\|`}, 80},
	} {
		t.Run(c.config, func(t *testing.T) {
			cfg := filepath.Join("..", "..", "configs", c.config)
			requireConfigData(t, cfg)
			out := filepath.Join(t.TempDir(), "run")
			args := append([]string{"run", cfg, "-out", out}, c.args...)
			if code, stdout, stderr := run(t, context.Background(), args...); code != ExitOK {
				t.Fatalf("hcbench %s: exit %d\n%s%s", strings.Join(args, " "), code, stdout, stderr)
			}
			if n, _ := resultstest.CheckRunDir(t, out); n < c.min {
				t.Errorf("%d records; want at least %d", n, c.min)
			}
		})
	}
}
