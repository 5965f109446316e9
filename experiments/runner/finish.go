package runner

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"hcbench/experiments/results"
	"hcbench/reports"
	"hcbench/reports/webpage"
)

// Finish writes what a whole run (or a merge of shards) ends with, from its manifest and
// records alone: the reports the config asks for, bench.txt and index.html. It returns the
// report files written.
func Finish(dir string, m results.Manifest, recs []results.Record) ([]string, error) {
	in := reports.Input{Experiment: m.Experiment, Datasets: m.Datasets, Algorithms: m.Algorithms, Records: recs}
	files, err := reports.Write(m.Reports, in, filepath.Join(dir, ReportsDir))
	if err != nil {
		return files, err
	}
	var b bytes.Buffer
	if err := results.WriteBench(&b, m, recs); err != nil {
		return files, err
	}
	if err := results.WriteFileAtomic(filepath.Join(dir, BenchFile), b.Bytes()); err != nil {
		return files, err
	}
	page, err := webpage.Write(dir)
	if err != nil {
		return files, err
	}
	return append(files, page), nil
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
// its records, without running anything.
func Rebuild(dir string) ([]string, error) {
	m, recs, err := Open(dir)
	if err != nil {
		return nil, err
	}
	return Finish(dir, m, recs)
}
