package cli

import (
	"context"
	"encoding/csv"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/hcbench/hcbench/datasets/datadir/datatest"
)

// clustbenchSets are 8 small data sets of ClustBench (200 to 400 points): linkages of them
// take a second or two.
const clustbenchSets = "[fcps/hepta, fcps/lsun, fcps/tetra, graves/dense, graves/line, graves/zigzag, graves/zigzag_noisy, graves/zigzag_outliers]"

// clustbenchConfig is a config of the linkage methods (labelled by method) on clustbenchSets,
// with the reports given; it skips the test without the suite's files (fails under
// HCBENCH_REQUIRE_DATA=1).
func clustbenchConfig(t *testing.T, name string, methods []string, reports string) string {
	t.Helper()
	datatest.Path(t, "clustbench/fcps/hepta.data.gz")
	src := "version: 1\nname: " + name + "\nseed: 1\ndatasets:\n  - {name: cb, generator: clustbench, datasets: " + clustbenchSets + "}\nalgorithms:\n"
	for _, m := range methods {
		src += "  - {name: linkage, method: " + m + ", label: " + m + "}\n"
	}
	return src + "reports: " + reports + "\n"
}

// readCSVFile reads a CSV file, or fails the test.
func readCSVFile(t *testing.T, path string) [][]string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return rows
}

// TestCompareAcross runs compare -across on finished runs: two runs of other algorithms on the
// same data sets are compared as one (ranks.csv and pairs.csv hold the algorithms of both, every
// pair over the 8 data sets); a run merged from shards is read like any other; a task in two of
// the runs is refused, naming it; bad -rope and -metrics flags are usage errors.
func TestCompareAcross(t *testing.T) {
	dir := t.TempDir()
	ctx := context.Background()
	runs := map[string]string{}
	for name, methods := range map[string][]string{"a": {"single", "average"}, "b": {"complete", "ward"}, "c": {"average", "median"}} {
		cfg := writeFile(t, dir, name+".yaml", clustbenchConfig(t, "cb-"+name, methods, "[summary]"))
		runs[name] = filepath.Join(dir, name)
		runOK(t, "run", cfg, "-out", runs[name])
	}
	// a again, as two shards merged.
	shards, merged := filepath.Join(dir, "shards"), filepath.Join(dir, "merged")
	for _, s := range []string{"0/2", "1/2"} {
		runOK(t, "run", filepath.Join(dir, "a.yaml"), "-out", shards, "-shard", s)
	}
	runOK(t, "merge", "-out", merged, shards)

	var ranks [][]string
	for _, c := range []struct{ name, a string }{{"runs", runs["a"]}, {"merged shards", merged}} {
		out := filepath.Join(dir, "cmp-"+strings.ReplaceAll(c.name, " ", "-"))
		stdout := runOK(t, "compare", "-across", "-out", out, "-metrics", "nca,ari", "-rope", "nca=0.02", "-seed", "5", c.a, runs["b"])
		if !strings.Contains(stdout, "comparison: "+filepath.Join(out, "comparison.md")) {
			t.Errorf("%s: stdout does not name comparison.md:\n%s", c.name, stdout)
		}
		got := readCSVFile(t, filepath.Join(out, "comparison", "ranks.csv"))
		var algs []string
		for _, row := range got[1:] {
			if row[0] == "nca" {
				algs = append(algs, row[1])
			}
			if row[2] != "8" || row[3] == "" {
				t.Errorf("%s: rank row %v, want a mean rank over the 8 data sets", c.name, row)
			}
		}
		if !slices.Equal(algs, []string{"single", "average", "complete", "ward"}) || len(got) != 1+2*4 {
			t.Errorf("%s: ranks.csv has the algorithms %v (%d rows); want both runs', single, average, complete, ward, on nca and ari", c.name, algs, len(got)-1)
		}
		pairs := readCSVFile(t, filepath.Join(out, "comparison", "pairs.csv"))
		for _, row := range pairs[1:] {
			if row[3] != "8" || row[8] == "" {
				t.Errorf("%s: pair %v over %s data sets, p %q; want tested over 8", c.name, row[:3], row[3], row[8])
			}
		}
		if len(pairs) != 1+2*6 {
			t.Errorf("%s: %d pairs, want 12", c.name, len(pairs)-1)
		}
		md := mustRead(t, filepath.Join(out, "comparison.md"))
		if !strings.Contains(md, "Metrics: NCA (ROPE ±0.02), ARI (ROPE ±0.01)") || !strings.Contains(md, "Seed 5.") || !strings.Contains(md, "# Comparison of the algorithms") {
			t.Errorf("%s: comparison.md does not state the flags' metrics, ROPE and seed:\n%s", c.name, lastLines(md, 60))
		}
		// The merged shards give the very numbers of the single run.
		if ranks == nil {
			ranks = got
		} else if !slices.EqualFunc(ranks, got, slices.Equal) {
			t.Errorf("ranks of the merged shards differ from the run's:\n%v\n%v", got, ranks)
		}
	}

	// The same task (average on every data set) in a and c.
	code, stdout, stderr := run(t, ctx, "compare", "-across", "-out", filepath.Join(dir, "dup"), runs["a"], runs["c"])
	if code != ExitFailure || !strings.Contains(stderr, "algorithm=average") || !strings.Contains(stderr, "is in both "+runs["a"]+" and "+runs["c"]) {
		t.Errorf("a task in two runs: exit %d\n%s%s", code, stdout, stderr)
	}
	if _, err := os.Stat(filepath.Join(dir, "dup")); err == nil {
		t.Error("a refused comparison wrote its folder")
	}
	for _, c := range []struct {
		flags []string
		want  string
	}{
		{[]string{"-rope", "nca=-1"}, `-rope: nca: want a non-negative number, got "-1"`},
		{[]string{"-rope", "nca:0.1"}, `-rope: want METRIC=HALF_WIDTH, got "nca:0.1"`},
		{[]string{"-metrics", "nca,aari"}, `-metrics: unknown metric "aari" (did you mean "ari"?)`},
		{[]string{"-metrics", "nca", "-rope", "xyz=0.1"}, `-rope: unknown metric "xyz"`},
	} {
		args := append(append([]string{"compare", "-across", "-out", filepath.Join(dir, "bad")}, c.flags...), runs["a"], runs["b"])
		code, stdout, stderr := run(t, ctx, args...)
		if code != ExitUsage || !strings.Contains(stderr, c.want) {
			t.Errorf("%v: exit %d, want %d and %q\n%s%s", c.flags, code, ExitUsage, c.want, stdout, stderr)
		}
	}
	if code, _, stderr := run(t, ctx, "compare", "-across"); code != ExitUsage || !strings.Contains(stderr, "needs one run directory or more") {
		t.Errorf("no run: exit %d\n%s", code, stderr)
	}
}
