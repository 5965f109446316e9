package rundir

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/hcbench/hcbench/datasets/datafile"
	"github.com/hcbench/hcbench/experiments/config"
	"github.com/hcbench/hcbench/experiments/metric"
	"github.com/hcbench/hcbench/experiments/results"
	"github.com/hcbench/hcbench/reports"
	"github.com/hcbench/hcbench/reports/webpage"
)

// Finish writes what a whole run (or a merge of shards) ends with, from its manifest m and
// records alone: the reports the manifest names, bench.txt, bench-quality.txt and index.html (which shows m). It
// returns the report files written. When a report or file cannot be written, m says so: its
// status becomes incomplete, with a warning that `hcbench report` rebuilds them. A cancelled ctx
// stops it between reports, and within the writing of bench.txt and bench-quality.txt.
func Finish(ctx context.Context, dir string, m *results.Manifest, recs []results.Record) ([]string, error) {
	return finish(ctx, dir, m, recs, m.Reports)
}

// finish is Finish with only the reports named.
func finish(ctx context.Context, dir string, m *results.Manifest, recs []results.Record, names []string) ([]string, error) {
	in := reports.Input{Experiment: m.Experiment, Datasets: m.Datasets, Algorithms: m.Algorithms, Records: recs}
	// The reports' options are those of the run's resolved config; a run without one (or one
	// whose options no longer decode, which the error says) gets the defaults.
	path := filepath.Join(dir, results.ConfigFile)
	src, oerr := os.ReadFile(path)
	switch {
	case errors.Is(oerr, os.ErrNotExist):
		oerr = nil
	case oerr == nil:
		in.Options, oerr = config.ReportOptions(path, src)
	}
	// A report that fails does not keep bench.txt and the page from being written: they hold the
	// records and the reports that did succeed. Its error is returned after them.
	files, err := writeReports(ctx, names, in, dir)
	err = errors.Join(oerr, err)
	if ctx.Err() != nil {
		return files, err
	}
	for _, bf := range []struct {
		name  string
		write func(context.Context, io.Writer, results.Manifest, []results.Record) error
	}{{results.BenchFile, writeBench}, {results.BenchQualityFile, writeBenchQuality}} {
		var b bytes.Buffer
		if berr := bf.write(ctx, &b, *m, recs); ctx.Err() != nil {
			return files, errors.Join(err, berr)
		} else if berr != nil {
			err = errors.Join(err, berr)
		} else if berr := results.WriteFileAtomic(filepath.Join(dir, bf.name), b.Bytes()); berr != nil {
			err = errors.Join(err, berr)
		}
	}
	failed := func(err error) {
		m.Status = results.StatusIncomplete
		m.Warnings = append(m.Warnings, fmt.Sprintf("%s (hcbench report DIR rebuilds them): %v", reportsFailed, err))
	}
	if err != nil {
		failed(err)
	}
	if ctx.Err() != nil {
		return files, errors.Join(err, context.Cause(ctx))
	}
	page, perr := webpage.WriteFor(dir, *m)
	if perr != nil {
		if err == nil {
			failed(perr)
		}
		return files, errors.Join(err, perr)
	}
	return append(files, page), err
}

// Open reads a whole or merged run directory: its manifest and records, the records through ctx
// (a cancelled ctx stops the reading). A directory of shards is refused with a hint to merge them.
func Open(ctx context.Context, dir string) (results.Manifest, []results.Record, error) {
	m, err := results.ReadManifest(filepath.Join(dir, results.ManifestFile))
	if errors.Is(err, os.ErrNotExist) {
		if shards, _ := filepath.Glob(filepath.Join(dir, results.ShardManifests)); len(shards) > 0 {
			return m, nil, fmt.Errorf("%s holds %d shard(s) of a run, not a whole run; merge them first (hcbench merge)", dir, len(shards))
		}
		return m, nil, fmt.Errorf("%s is not a run directory (no %s)", dir, results.ManifestFile)
	}
	if err != nil {
		return m, nil, err
	}
	f, err := datafile.Open(ctx, filepath.Join(dir, results.ResultsFile))
	if err != nil {
		return m, nil, err
	}
	defer f.Close()
	recs, err := results.Read(f, f.Name())
	return m, recs, err
}

// Rebuild rebuilds the reports, bench.txt and index.html of a whole or merged run directory from
// its records, without running anything: the reports of its manifest, or only those named in
// only, which are added to the manifest's reports if new (so that index.html shows them and a
// later Rebuild rebuilds them). It holds the directory's lock meanwhile, so it refuses a run
// that a process is still writing. A run that has a record of every planned task (tasks.txt) and
// whose reports are now all written is marked complete: one killed, or whose reports failed,
// after its last record. It returns the manifest, whose status says whether the reports cover a
// finished run.
func Rebuild(ctx context.Context, dir string, only []string) (results.Manifest, []string, error) {
	var m results.Manifest
	if _, err := os.Stat(filepath.Join(dir, results.ManifestFile)); err != nil {
		if _, _, oerr := Open(ctx, dir); oerr != nil {
			return m, nil, oerr // says what dir holds instead
		}
		return m, nil, err
	}
	files := FilesOf(dir, nil)
	lock, err := Lock(dir, files)
	if lock == nil {
		return m, nil, err
	}
	defer lock.Close()
	m, recs, err := Open(ctx, dir)
	if err != nil {
		return m, nil, err
	}
	names := m.Reports
	if only != nil {
		if err := reports.Check(only); err != nil {
			return m, nil, err
		}
		names = only
		if reps := UnionOf(m.Reports, only); len(reps) > len(m.Reports) {
			m.Reports = reps
			if err := m.WriteFile(files.Manifest); err != nil {
				return m, nil, err
			}
		}
	}
	// A run that holds a record of every planned task is complete once its reports are written
	// (a run killed, or whose reports failed, after its last record), so the page shows it so.
	before := m.Status
	if keys, err := ReadTasks(dir); before != results.StatusComplete && m.MergedFrom == nil && err == nil && coversPlan(recs, keys) {
		m.Status, m.Finished, m.Failed, m.Tasks = results.StatusComplete, len(recs), 0, len(keys)
		for _, r := range recs {
			if r.Error != "" {
				m.Failed++
			}
		}
		m.Warnings = slices.DeleteFunc(m.Warnings, func(w string) bool { return strings.HasPrefix(w, reportsFailed) })
	}
	written, err := finish(ctx, dir, &m, recs, names)
	if ctx.Err() != nil {
		return m, written, err
	}
	if m.Status != before || err != nil {
		if werr := m.WriteFile(files.Manifest); werr != nil {
			err = errors.Join(err, werr)
		}
	}
	return m, written, err
}

// reportsFailed starts the manifest warning of a run whose reports could not all be written.
const reportsFailed = "the reports could not all be written"

// coversPlan reports whether recs hold exactly one record of every key.
func coversPlan(recs []results.Record, keys []string) bool {
	if len(recs) != len(keys) {
		return false
	}
	have := make(map[string]bool, len(recs))
	for _, r := range recs {
		have[r.Key] = true
	}
	for _, k := range keys {
		if !have[k] {
			return false
		}
	}
	return true
}

// writeReports writes the reports named into reports/ of the run directory dir, which must be a
// directory there, not a symbolic link (results.MkdirNoFollow).
func writeReports(ctx context.Context, names []string, in reports.Input, dir string) ([]string, error) {
	out := filepath.Join(dir, results.ReportsDir)
	if err := results.MkdirNoFollow(out); err != nil {
		return nil, err
	}
	return reports.Write(ctx, names, in, out)
}

// writeBench writes bench.txt: the times, and the work counters of the table's counters entry.
func writeBench(ctx context.Context, w io.Writer, m results.Manifest, recs []results.Record) error {
	return results.WriteBench(ctx, w, m, recs, metric.BenchCounters(recs))
}

// writeBenchQuality writes bench-quality.txt: the metrics of the table that it tracks.
func writeBenchQuality(ctx context.Context, w io.Writer, m results.Manifest, recs []results.Record) error {
	return results.WriteBenchQuality(ctx, w, m, recs, metric.BenchColumns(recs))
}
