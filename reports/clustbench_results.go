package reports

import (
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"

	"github.com/hcbench/hcbench/experiments/results"
	"github.com/hcbench/hcbench/reports/table"
)

func init() {
	Register(Report{
		Name: "clustbench_results",
		Help: "ClustBench data sets (generator: clustbench): each algorithm's partitions at the references' numbers of clusters (the records' partitions) in the suite's results layout, " +
			"clustbench/ALGORITHM/BATTERY/DATASET.resultK.gz (gzip CSV: the algorithm's label in double quotes, then each point's cluster 1..K, one a line, in the data set's order), " +
			"which the suite's load_results and its published comparisons read; and a table of the files written (Markdown)",
		Build: clustbenchResults,
	})
}

// clustbenchDir is the folder of the reports directory that clustbench_results writes its
// partition files into, laid out as the suite's results repository is under a preprocessing's
// folder (clustering-results-v1/original): METHOD_GROUP/BATTERY/DATASET.resultK.gz.
const clustbenchDir = "clustbench"

// pathName matches a name that is safe as one component of a path: what a config allows for an
// algorithm's label (registry.NameRule), and the suite's battery and data set names.
var pathName = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]*$`)

// resultFileName matches the name of a partition file, DATASET.resultK.gz.
var resultFileName = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]*\.result[0-9]+\.gz$`)

// clustbenchResults writes each successful record's partitions (Record.Partitions) of an item of
// ClustBench, whose id is BATTERY/DATASET, as clustbench/ALGORITHM/BATTERY/DATASET.resultK.gz: a
// gzip-compressed CSV of one column, its header the algorithm's label in double quotes, then the
// label 1..K of each point in the data set's own order. That is the layout of the suite's
// published results (github.com/gagolews/clustering-results-v1), whose Python package reads it
// with clustbench.load_results(ALGORITHM, BATTERY, DATASET, K, path=".../reports/clustbench"),
// one method per column header. Records of other items (whose ids are not BATTERY/DATASET) have no
// partitions and are skipped. Two records that would write one file (the same algorithm and item
// in two data sets of the run) are an error, since the layout has one file per algorithm, data
// set and K: the files of the first are written. A partition file left in the folder by an
// earlier build of the report and not written now is removed, so that a reader globbing the
// folder finds only this run's. clustbench_results.md lists, per data set of the run, each
// algorithm's folder and how many data sets and files it wrote.
func clustbenchResults(in Input, dir string) ([]string, error) {
	root := filepath.Join(dir, clustbenchDir)
	written := map[string]string{} // path → the record key that wrote it
	var files []string
	var errs []error
	var sections []section
	for _, ds := range in.Datasets {
		t := table.Table{Header: []string{"algorithm", "folder", "data sets", "files"}, Numeric: []bool{false, false, true, true}}
		for _, alg := range in.Algorithms {
			sets, n := 0, 0
			for _, r := range in.group(ds, alg) {
				battery, name, ok := strings.Cut(r.Item, "/")
				if r.Error != "" || len(r.Partitions) == 0 || !ok || !pathName.MatchString(battery) || !pathName.MatchString(name) {
					continue
				}
				if !pathName.MatchString(r.Algorithm) {
					errs = append(errs, fmt.Errorf("%s: the algorithm's label %q is not a name a folder may have", r.Key, r.Algorithm))
					continue
				}
				folder := filepath.Join(root, r.Algorithm, battery)
				for _, d := range []string{root, filepath.Dir(folder), folder} {
					if err := results.MkdirNoFollow(d); err != nil {
						return files, err
					}
				}
				for _, p := range r.Partitions {
					path := filepath.Join(folder, name+".result"+strconv.Itoa(p.K)+".gz")
					if prev, dup := written[path]; dup {
						errs = append(errs, fmt.Errorf("%s and %s would both write %s: the suite's layout has one file per algorithm, data set and number of clusters; give the algorithm another label in one of the data sets (an algorithm entry's datasets: key)", prev, r.Key, path))
						continue
					}
					if err := writeFile(path, func(w io.Writer) error { return writePartition(w, r.Algorithm, p.Labels) }); err != nil {
						return files, err
					}
					written[path] = r.Key
					files = append(files, path)
					n++
				}
				sets++
			}
			if sets > 0 {
				t.Rows = append(t.Rows, []string{alg, clustbenchDir + "/" + alg + "/", strconv.Itoa(sets), strconv.Itoa(n)})
			}
		}
		if len(t.Rows) > 0 {
			sections = append(sections, section{title: ds, table: t})
		}
	}
	if err := removeStale(root, written); err != nil {
		errs = append(errs, err)
	}
	notes := []string{"Each algorithm's partitions of the ClustBench data sets, the tree cut at each reference labelling's number of clusters K (the records' partitions), are in the suite's results layout under " +
		clustbenchDir + "/: ALGORITHM/BATTERY/DATASET.resultK.gz, a gzip-compressed CSV whose header is the algorithm's label in double quotes, then each point's cluster (1..K), one a line, in the data set's own order. " +
		"The suite's clustbench.load_results(\"*\", BATTERY, DATASET, K, path=\"reports/" + clustbenchDir + "\") reads them beside its published results."}
	if len(sections) == 0 {
		notes = []string{"No record holds partitions (items of generator: clustbench with a tree), so no file was written."}
	}
	md, err := writeMarkdown(dir, "clustbench_results", "ClustBench results: "+in.Experiment, sections, notes)
	return append(files, md...), errors.Join(append(errs, err)...)
}

// writePartition writes one partition file's contents: gzip of the label in double quotes, then
// one cluster label a line. The gzip header carries no name and no time, so that the same
// partition gives the same bytes.
func writePartition(w io.Writer, label string, labels []int) error {
	z := gzip.NewWriter(w)
	b := make([]byte, 0, len(label)+3+4*len(labels))
	b = append(strconv.AppendQuote(b, label), '\n')
	for _, l := range labels {
		b = append(strconv.AppendInt(b, int64(l), 10), '\n')
	}
	if _, err := z.Write(b); err != nil {
		return err
	}
	return z.Close()
}

// removeStale removes the partition files under root, ALGORITHM/BATTERY/DATASET.resultK.gz, that
// this build did not write (written), left by an earlier build of the report on other records.
// It goes into no symbolic link and removes nothing else; a missing root is nothing to do.
func removeStale(root string, written map[string]string) error {
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		if d.Type().IsRegular() && strings.Count(rel, string(filepath.Separator)) == 2 && resultFileName.MatchString(d.Name()) && written[path] == "" {
			return os.Remove(path)
		}
		return nil
	})
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	return err
}
