// Package reports turns the records of a run into the report files a config asks for: tables as
// Markdown and CSV, and plots as PNG and SVG. Every report reads only results records, so
// reports can be rebuilt from a run directory without re-running anything.
package reports

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"gonum.org/v1/gonum/stat"

	"github.com/hcbench/hcbench/experiments/results"
	"github.com/hcbench/hcbench/reports/table"
)

// Input is what every report reads.
type Input struct {
	Experiment string
	Datasets   []string // data set names, in config order
	Algorithms []string // algorithm labels, in config order
	Records    []results.Record
	// Options are the options of the reports that have them (Report.NewOptions), by report name,
	// as the config sets them; a report not here runs with its defaults.
	Options map[string]any
}

// Report is an entry of the report table: what a config's `reports:` names. Adding a report is
// one new file of this package that registers it (see docs/extending.md); config validation,
// `help config`, the runner and index.html read the table.
type Report struct {
	// Name is what configs write; Help says what the report shows, for help config.
	Name, Help string
	// Build writes the report into dir from the records alone and returns the files written.
	Build func(in Input, dir string) ([]string, error)
	// Plots are the file-name prefixes of the plots it draws (beyond files named after the
	// report), by which index.html puts a plot in the report's section.
	Plots []string
	// NewOptions returns the report's options set to their defaults, nil for a report without
	// options: a pointer to a struct whose exported fields carry the tags that config decodes
	// (yaml, help, and default, which must agree with the value NewOptions sets), as an
	// algorithm's parameters do (see experiments/registry.Params). A config sets them in the
	// report's entry: reports: [summary, {name: dendrograms, height: log_odds}].
	NewOptions func() any
	// AcrossDatasets marks a report whose unit is the data set (the comparison): it ranks and
	// tests algorithms over the data sets, pairing their values item by item, and never pools
	// the values of several data sets into one mean, so the rule that every row and plot is of
	// one data set does not apply to it.
	AcrossDatasets bool
}

// optionsOf returns the options of report name that in holds, or its defaults.
func optionsOf[T any](in Input, name string) *T {
	if o, ok := in.Options[name].(*T); ok {
		return o
	}
	r, _ := Lookup(name)
	return r.NewOptions().(*T)
}

var (
	reportsMu   sync.RWMutex
	reportTable = map[string]*Report{}
)

// Register adds r to the table; it panics on a duplicate or empty name or a missing Build (a
// mistake in the program, found at start-up).
func Register(r Report) {
	reportsMu.Lock()
	defer reportsMu.Unlock()
	if r.Name == "" || r.Build == nil {
		panic(fmt.Sprintf("reports: report %q needs a name and Build", r.Name))
	}
	if _, dup := reportTable[r.Name]; dup {
		panic(fmt.Sprintf("reports: report %q registered twice", r.Name))
	}
	reportTable[r.Name] = &r
}

// Lookup returns the report of a name.
func Lookup(name string) (*Report, bool) {
	reportsMu.RLock()
	defer reportsMu.RUnlock()
	r, ok := reportTable[name]
	return r, ok
}

// All returns every report, by name.
func All() []*Report {
	reportsMu.RLock()
	defer reportsMu.RUnlock()
	out := make([]*Report, 0, len(reportTable))
	for _, r := range reportTable {
		out = append(out, r)
	}
	slices.SortFunc(out, func(a, b *Report) int { return strings.Compare(a.Name, b.Name) })
	return out
}

// Names returns the report names a config may ask for, sorted.
func Names() []string {
	var out []string
	for _, r := range All() {
		out = append(out, r.Name)
	}
	return out
}

// Check refuses a name that no report has, naming the reports there are.
func Check(names []string) error {
	for _, n := range names {
		if _, ok := Lookup(n); !ok {
			return fmt.Errorf("unknown report %q (the reports: %s)", n, strings.Join(Names(), ", "))
		}
	}
	return nil
}

// Write builds the named reports into dir (created if needed) and returns the paths written.
//
// The reports see a data set whose records carry several models split by model (splitModels), so
// that no report pools unlike data by grouping on Record.Dataset. They see the records sorted by data set and algorithm (config order) and item id, so
// that what they write does not depend on the order the tasks finished in (the order of
// results.jsonl): float sums taken in another order differ in the last bits. A report that fails,
// or panics on a bug, does not stop the others; the errors of all of them are returned together.
// A cancelled ctx stops it before the next report, with ctx's error among them.
func Write(ctx context.Context, names []string, in Input, dir string) ([]string, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	in = splitModels(in)
	in.Records = sortedRecords(in)
	var files []string
	var errs []error
	for _, n := range names {
		if err := ctx.Err(); err != nil {
			return files, errors.Join(append(errs, fmt.Errorf("writing the reports: %w", context.Cause(ctx)))...)
		}
		r, ok := Lookup(n)
		if !ok {
			errs = append(errs, fmt.Errorf("unknown report %q", n))
			continue
		}
		fs, err := build(r.Build, in, dir)
		files = append(files, fs...)
		if err != nil {
			errs = append(errs, fmt.Errorf("report %s: %w", n, err))
		}
	}
	return files, errors.Join(errs...)
}

// build runs one report and turns a panic into an error, so that a bug in one report (or in the
// plotting library under input it did not expect) cannot take the run and the other reports down;
// the stack goes into the error for a bug report.
func build(b func(Input, string) ([]string, error), in Input, dir string) (files []string, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("internal error (please report): panic: %v\n%s", r, debug.Stack())
		}
	}()
	return b(in, dir)
}

// sortedRecords returns a copy of the records in plan order (results.SortPlanOrder): data sets
// and algorithms in config order, items by id; names the config does not list come after the
// listed ones, by name.
func sortedRecords(in Input) []results.Record {
	out := slices.Clone(in.Records)
	results.SortPlanOrder(out, in.Datasets, in.Algorithms)
	return out
}

// group returns the records of one data set and algorithm label.
func (in Input) group(dataset, algorithm string) []results.Record {
	var out []results.Record
	for _, r := range in.Records {
		if r.Dataset == dataset && r.Algorithm == algorithm {
			out = append(out, r)
		}
	}
	return out
}

// writeMarkdown writes name.md: a title, one titled table per section, and notes. A column that
// no row of its table fills is left out: on the page it would be a heading over nothing.
func writeMarkdown(dir, name, title string, sections []section, notes []string) ([]string, error) {
	md := filepath.Join(dir, name+".md")
	f, err := results.CreateAtomic(md)
	if err != nil {
		return nil, err
	}
	fmt.Fprintf(f, "# %s\n", title)
	for _, s := range sections {
		fmt.Fprintf(f, "\n## %s\n\n", s.title)
		if err := table.WriteMarkdown(f, s.table.WithoutEmptyColumns()); err != nil {
			f.Close()
			return nil, err
		}
	}
	if len(notes) > 0 {
		fmt.Fprintln(f)
		for _, n := range notes {
			fmt.Fprintf(f, "%s\n", n)
		}
	}
	if err := f.Commit(); err != nil {
		return nil, err
	}
	return []string{md}, nil
}

// csvFile is a table to write as CSV under a file name; empty says when it has no rows ("no data
// set has labels"), for the note that then says it was not written.
type csvFile struct {
	name  string
	t     table.Table
	empty string
}

// writeReport writes name.md (see writeMarkdown) and the CSV files, and returns their paths. A
// CSV without rows is not written, so that no report leaves a file of a header alone for a
// program to read as data: the notes say which and why, and a copy left by an earlier build of
// the reports in dir is removed.
func writeReport(dir, name, title string, sections []section, notes []string, csvs ...csvFile) ([]string, error) {
	notes = slices.Clone(notes)
	for _, c := range csvs {
		if len(c.t.Rows) == 0 {
			notes = append(notes, fmt.Sprintf("%s is not written: %s.", c.name, c.empty))
		}
	}
	files, err := writeMarkdown(dir, name, title, sections, notes)
	if err != nil {
		return files, err
	}
	for _, c := range csvs {
		path := filepath.Join(dir, c.name)
		if len(c.t.Rows) == 0 {
			if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
				return files, err
			}
			continue
		}
		if err := writeCSV(path, c.t); err != nil {
			return files, err
		}
		files = append(files, path)
	}
	return files, nil
}

// section is one titled table of a Markdown report.
type section struct {
	title string
	table table.Table
}

// meanStd returns the mean and sample standard deviation; the deviation is NaN for fewer than two
// values and both are NaN for none.
func meanStd(xs []float64) (float64, float64) {
	switch len(xs) {
	case 0:
		return math.NaN(), math.NaN()
	case 1:
		return xs[0], math.NaN()
	}
	return stat.MeanStdDev(xs, nil)
}

// fixed3 formats x with three decimals, without the "-0.000" of a tiny negative x.
func fixed3(x float64) string {
	if math.Abs(x) < 0.0005 {
		x = 0
	}
	return fmt.Sprintf("%.3f", x)
}

// pm formats "mean ± std" with three decimals, or "" when there is nothing to show.
func pm(mean, std float64) string {
	switch {
	case math.IsNaN(mean):
		return ""
	case math.IsNaN(std):
		return fixed3(mean)
	}
	return fixed3(mean) + " ± " + fixed3(std)
}

// seconds formats a duration in seconds for people, to three significant digits.
func seconds(s float64) string {
	if math.IsNaN(s) {
		return ""
	}
	d := time.Duration(s * float64(time.Second))
	switch {
	case d >= time.Second:
		return d.Round(10 * time.Millisecond).String()
	case d >= time.Millisecond:
		return d.Round(10 * time.Microsecond).String()
	case d >= time.Microsecond:
		return d.Round(10 * time.Nanosecond).String()
	}
	return d.String()
}

// num formats a number at full precision for CSV, "" for NaN.
func num(x float64) string {
	if math.IsNaN(x) {
		return ""
	}
	return strconv.FormatFloat(x, 'g', -1, 64)
}
