package runner

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"hcbench/experiments/config"
	"hcbench/experiments/results"
	"hcbench/reports"
	"hcbench/reports/webpage"
)

// Finish writes what a whole run (or a merge of shards) ends with, from its manifest and
// records alone: the reports the config asks for, bench.txt and index.html. It returns the
// report files written.
func Finish(dir string, m results.Manifest, recs []results.Record) ([]string, error) {
	return finish(dir, m, recs, m.Reports)
}

// finish is Finish with only the reports named.
func finish(dir string, m results.Manifest, recs []results.Record, names []string) ([]string, error) {
	in := reports.Input{Experiment: m.Experiment, Datasets: m.Datasets, Algorithms: m.Algorithms, Records: recs}
	// A report that fails does not keep bench.txt and the page from being written: they hold the
	// records and the reports that did succeed. Its error is returned after them.
	files, reportErr := reports.Write(names, in, filepath.Join(dir, ReportsDir))
	var b bytes.Buffer
	if err := results.WriteBench(&b, m, recs); err != nil {
		return files, errors.Join(reportErr, err)
	}
	if err := results.WriteFileAtomic(filepath.Join(dir, BenchFile), b.Bytes()); err != nil {
		return files, errors.Join(reportErr, err)
	}
	page, err := webpage.Write(dir)
	if err != nil {
		return files, errors.Join(reportErr, err)
	}
	return append(files, page), reportErr
}

// CheckReports refuses a report name that no report has, naming the reports there are.
func CheckReports(names []string) error {
	for _, n := range names {
		if !slices.Contains(config.ReportNames(), n) {
			return fmt.Errorf("unknown report %q (the reports: %s)", n, strings.Join(config.ReportNames(), ", "))
		}
	}
	return nil
}

// Open reads a whole or merged run directory: its manifest and records. A directory of shards
// is refused with a hint to merge them.
func Open(dir string) (results.Manifest, []results.Record, error) {
	m, err := results.ReadManifest(filepath.Join(dir, ManifestFile))
	if errors.Is(err, os.ErrNotExist) {
		if shards, _ := filepath.Glob(filepath.Join(dir, "manifest-shard-*-of-*.json")); len(shards) > 0 {
			return m, nil, fmt.Errorf("%s holds %d shard(s) of a run, not a whole run; merge them first (hcbench merge)", dir, len(shards))
		}
		return m, nil, fmt.Errorf("%s is not a run directory (no %s)", dir, ManifestFile)
	}
	if err != nil {
		return m, nil, err
	}
	recs, err := results.ReadFile(filepath.Join(dir, ResultsFile))
	return m, recs, err
}

// Rebuild rebuilds the reports, bench.txt and index.html of a whole or merged run directory from
// its records, without running anything: the reports of its manifest, or only those named in
// only, which are added to the manifest's reports if new (so that index.html shows them and a
// later Rebuild rebuilds them). It holds the directory's lock meanwhile, so it refuses a run
// that a process is still writing. It returns the manifest, whose status says whether the
// reports cover a finished run.
func Rebuild(dir string, only []string) (results.Manifest, []string, error) {
	var m results.Manifest
	if _, err := os.Stat(filepath.Join(dir, ManifestFile)); err != nil {
		if _, _, oerr := Open(dir); oerr != nil {
			return m, nil, oerr // says what dir holds instead
		}
		return m, nil, err
	}
	files := filesOf(dir, nil)
	lock, err := lockRun(dir, files)
	if lock == nil {
		return m, nil, err
	}
	defer lock.Close()
	m, recs, err := Open(dir)
	if err != nil {
		return m, nil, err
	}
	names := m.Reports
	if only != nil {
		if err := CheckReports(only); err != nil {
			return m, nil, err
		}
		names = only
		if reps := unionOf(m.Reports, only); len(reps) > len(m.Reports) {
			m.Reports = reps
			if err := m.WriteFile(files.manifest); err != nil {
				return m, nil, err
			}
		}
	}
	written, err := finish(dir, m, recs, names)
	return m, written, err
}
