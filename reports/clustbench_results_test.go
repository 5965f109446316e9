package reports

import (
	"compress/gzip"
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hcbench/hcbench/experiments/results"
)

// TestClustBenchResultsSkipsAndRefuses: records without partitions, failed ones and items whose
// ids are not BATTERY/DATASET write no file (the Markdown says none was written when none is);
// one algorithm on one ClustBench data set in two data sets of a run is an error naming both
// records and the file, whose contents stay the first data set's.
func TestClustBenchResultsSkipsAndRefuses(t *testing.T) {
	part := []results.Partition{{K: 2, Labels: []int{1, 1, 2}}}
	rec := func(ds, item string, p []results.Partition, errText string) results.Record {
		return results.Record{Key: "dataset=" + ds + "|item=" + item + "|algorithm=single", Dataset: ds, Item: item, Algorithm: "single", N: 3, Partitions: p, Error: errText}
	}
	dir := t.TempDir()
	in := Input{Experiment: "e", Datasets: []string{"a", "b"}, Algorithms: []string{"single"}, Records: []results.Record{
		rec("a", "0", part, ""), rec("a", "wut/x1", nil, ""), rec("a", "wut/x2", part, "failed"), rec("a", "../x", part, ""),
	}}
	files, err := Write(context.Background(), []string{"clustbench_results"}, in, dir)
	if err != nil || len(files) != 1 || !strings.Contains(mustReadFile(t, files[0]), "no file was written") {
		t.Fatalf("files %q, error %v", files, err)
	}
	if _, err := os.Stat(filepath.Join(dir, clustbenchDir)); !os.IsNotExist(err) {
		t.Errorf("clustbench/ was made for records without partitions: %v", err)
	}

	other := []results.Partition{{K: 2, Labels: []int{1, 2, 2}}}
	in.Records = []results.Record{rec("a", "wut/x1", part, ""), rec("b", "wut/x1", other, "")}
	_, err = Write(context.Background(), []string{"clustbench_results"}, in, dir)
	path := filepath.Join(dir, clustbenchDir, "single", "wut", "x1.result2.gz")
	if err == nil || !strings.Contains(err.Error(), "dataset=a|item=wut/x1|algorithm=single and dataset=b|item=wut/x1|algorithm=single would both write "+path) {
		t.Fatalf("error %v", err)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	z, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	if b, _ := io.ReadAll(z); string(b) != "\"single\"\n1\n1\n2\n" {
		t.Errorf("%s holds %q, want data set a's partition", path, b)
	}
}

func mustReadFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
