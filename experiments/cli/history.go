package cli

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/hcbench/hcbench/experiments/compare"
	"github.com/hcbench/hcbench/experiments/config"
	"github.com/hcbench/hcbench/experiments/history"
	"github.com/hcbench/hcbench/experiments/results"
	"github.com/hcbench/hcbench/internal/english"
)

// historyHelp follows the flags in history's usage: what the command does, for `help history`.
const historyHelp = `
history adds the finished run directories given (none: only redraw) to the history database,
keyed by experiment, start time, config hash and build: adding a run again replaces its rows.
It then writes history.html, a self-contained page: for every metric, data set, algorithm and
N, the trend over the runs of each experiment in time order, each point with its run's time,
build (executable SHA-256, Go version) and revision; a step fit of each trend (asv's model:
piecewise constant levels, an L1 Potts fit with a penalty scaled to the trend's noise, levels
closer than the config's threshold merged, a level of one run an outlier unless it is the
latest); and a table of the steps that made a metric worse. It prints the regressions;
-bisect METRIC prints every step of one metric with the last run before it and the first run
after it, and the git bisect command between their revisions. Work counters (counters.KEY) are
exact: every change is a step, a rise a regression. A timing series whose run-to-run spread
exceeds what the gate resolves is labelled noisy.

history -check is the gate for a nightly or CI job: it judges the last RUN_DIR (the run under
test) against those before it, given in time order, in a temporary database of them alone, and
prints one line per regression or undecided part.
`

// historyExits ends history's usage, after the list of metrics: a format of the time
// tolerance's relative part (%) and floor (ms).
const historyExits = `A step of a time must exceed %g %% of the level before (or the time threshold), and the
slower level %g ms.
Exit codes: 0 ok (regressions are on the page and printed, not an error), 1 a directory
skipped (not a run, or an unfinished one) or an unusable database, 2 usage, 130 interrupted.
With -check: 0 nothing regressed, 1 something regressed, 2 the gate could not decide (too few
runs, other configs or data, a failed task, a missing directory, a usage error) and nothing
regressed, 130 interrupted. See docs/history.md.
`

// defaultHistoryDB is the history database of the history command without -db.
var defaultHistoryDB = filepath.Join("runs", "history.db")

// maxListed is how many regressions history prints; the page lists them all.
const maxListed = 10

// cmdHistory ingests run directories into the history database and writes history.html; with
// -bisect it also prints the runs between which a metric changed. An unfinished run or a
// directory that is no run is skipped with a message, and makes the exit code 1; regressions do
// not (the history holds old ones), -bisect and the page show them.
func cmdHistory(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := newFlags("history", stderr, "history [-db FILE] [-o FILE] [-last N] [-bisect METRIC] [RUN_DIR...]\n       hcbench history -check [-markdown FILE] RUN_DIR...")
	synopsis := fs.Usage
	fs.Usage = func() {
		synopsis()
		fmt.Fprint(fs.Output(), historyHelp)
		fmt.Fprintln(fs.Output(), "\nMetrics (-bisect takes the key):")
		for _, m := range history.Metrics() {
			fmt.Fprintf(fs.Output(), "  %-15s %s (%s)\n", m.Key, m.Name, history.BetterWords(m.Better))
		}
		c := history.CounterMetric("KEY")
		fmt.Fprintf(fs.Output(), "  %-15s %s (%s; exact: any change is a step)\n", c.Key, c.Name, history.BetterWords(c.Better))
		fmt.Fprintf(fs.Output(), historyExits, 100*history.TimeTolerance.Rel, 1000*history.TimeTolerance.Floor)
	}
	// The defaults are under runs/, which git ignores: in a checkout, a database and page in its
	// top would make every build report +dirty, and every record say modified.
	dbPath := fs.String("db", defaultHistoryDB, "the history database (SQLite), created (and its directory) when missing")
	out := fs.String("o", "", "the page to write (default: "+history.PageFile+" in the database's directory)")
	last := fs.Int("last", 100, "show the latest N runs of each experiment and find the steps in them (0: all)")
	bisect := fs.String("bisect", "", "print every step of this metric (a key of the list below): the runs between which it changed")
	check := fs.Bool("check", false, "the gate: judge the last RUN_DIR against those before it (in time order), in a temporary database of them alone; exit 0 nothing regressed, 1 something did, 2 undecided")
	markdown := fs.String("markdown", "", "with -check: also write the findings as Markdown (a pull-request comment) to this file")
	dirs, err := parse(fs, args)
	if err != nil {
		return flagError(fs, err, stdout)
	}
	if *check || *markdown != "" {
		return historyCheck(ctx, fs, dirs, *check, *markdown, stdout, stderr)
	}
	if *last < 0 {
		fmt.Fprintf(stderr, "hcbench: -last must be 0 (all runs) or positive, got %d\n", *last)
		return ExitUsage
	}
	if *bisect != "" {
		if _, ok := history.MetricByKey(*bisect); !ok {
			msg := fmt.Sprintf("hcbench: -bisect: unknown metric %q", *bisect)
			if best := config.Closest(*bisect, history.MetricKeys()); best != "" {
				msg += fmt.Sprintf("; did you mean %q?", best)
			}
			fmt.Fprintf(stderr, "%s (metrics: %s)\n", msg, strings.Join(history.MetricKeys(), ", "))
			return ExitUsage
		}
	}
	if *out == "" {
		*out = filepath.Join(filepath.Dir(*dbPath), history.PageFile)
	}
	interrupted := func() int {
		fmt.Fprintln(stderr, "hcbench: interrupted:", context.Cause(ctx))
		return ExitInterrupted
	}
	db, err := history.Open(ctx, *dbPath)
	if ctx.Err() != nil {
		if err == nil {
			db.Close()
		}
		return interrupted()
	}
	if err != nil {
		fmt.Fprintln(stderr, "hcbench:", err)
		return ExitFailure
	}
	defer db.Close()

	code := ExitOK
	for _, d := range dirs {
		in, err := db.Ingest(ctx, d)
		switch {
		case ctx.Err() != nil:
			return interrupted()
		case errors.Is(err, history.ErrUnfinished):
			fmt.Fprintf(stderr, "hcbench: skipped %v\n", err)
			code = ExitFailure
			continue
		case err != nil:
			fmt.Fprintf(stderr, "hcbench: skipped %s: %v\n", d, err)
			code = ExitFailure
			continue
		}
		what := "ingested"
		if !in.New {
			what = "already in the history, refreshed"
		}
		exe := ""
		if in.Build.Executable != "" {
			exe = ", executable " + results.Short(in.Build.Executable)
		}
		fmt.Fprintf(stdout, "%s: %s (%s run of %s, %s%s, %s)\n", d, what, in.Experiment, in.Start.UTC().Format("2006-01-02 15:04:05Z"),
			history.RevisionLabel(in.Build), exe, english.Count(in.Records, "record", "records"))
	}

	h, err := db.Load(ctx, *last)
	if ctx.Err() != nil {
		return interrupted()
	}
	if err != nil {
		fmt.Fprintf(stderr, "hcbench: history database %s: %v\n", *dbPath, err)
		return ExitFailure
	}
	if h.Runs == 0 {
		fmt.Fprintf(stderr, "hcbench: %s holds no run yet: give run directories to ingest (hcbench history -db %s RUN_DIR...)\n", *dbPath, *dbPath)
		return ExitFailure
	}
	var page bytes.Buffer
	if err := history.WritePage(&page, h, history.PageOptions{DB: *dbPath, Generated: time.Now()}); err != nil {
		fmt.Fprintln(stderr, "hcbench:", err)
		return ExitFailure
	}
	if err := os.MkdirAll(filepath.Dir(*out), 0o755); err != nil {
		fmt.Fprintln(stderr, "hcbench:", err)
		return ExitFailure
	}
	if err := results.WriteFileAtomic(*out, page.Bytes()); err != nil {
		fmt.Fprintln(stderr, "hcbench:", err)
		return ExitFailure
	}
	series := 0
	for _, e := range h.Experiments {
		series += len(e.Series)
	}
	fmt.Fprintf(stdout, "history: %d %s of %d %s in %s, %d series\n", h.Runs, results.Plural(h.Runs, "run", "runs"),
		len(h.Experiments), results.Plural(len(h.Experiments), "experiment", "experiments"), *dbPath, series)
	writeRegressions(stdout, h)
	fmt.Fprintf(stdout, "page: %s (%.0f KB)\n", *out, float64(page.Len())/1000)
	if *bisect != "" {
		fmt.Fprintln(stdout)
		if err := history.WriteBisect(stdout, h, *bisect); err != nil {
			fmt.Fprintln(stderr, "hcbench:", err)
			return ExitFailure
		}
	}
	return code
}

// writeRegressions prints the number of regressions and the first maxListed: over all N before
// by N, and then those not recovered since first.
func writeRegressions(w io.Writer, h *history.History) {
	var regs []history.Found
	open := 0
	for _, f := range h.Changes("") {
		if f.Regression {
			regs = append(regs, f)
			if f.Persists {
				open++
			}
		}
	}
	if len(regs) == 0 {
		fmt.Fprintln(w, "regressions: none")
		return
	}
	// The series over all N first: a change shows in them and again in every N.
	slices.SortStableFunc(regs, func(a, b history.Found) int {
		return cmp.Compare(min(a.Series.N, 1), min(b.Series.N, 1))
	})
	fmt.Fprintf(w, "regressions: %d (%d not recovered since)\n", len(regs), open)
	for i, f := range regs {
		if i == maxListed {
			fmt.Fprintf(w, "  … and %d more on the page\n", len(regs)-maxListed)
			break
		}
		e, s := f.Experiment, f.Series
		after := e.Runs[f.After]
		// A step in the latest run alone may be a noisy night: said, so that the next night tells.
		latest := ""
		if f.OnePoint {
			latest = "; latest run only"
		}
		fmt.Fprintf(w, "  %s: %s · %s · %s · %s: %s → %s from run %d (%s, %s%s)\n", s.Metric.Key, e.Name, s.Dataset, s.Algorithm, history.NLabel(s.N),
			s.Metric.Format(f.From), s.Metric.Format(f.To), f.After+1, after.Start.UTC().Format("2006-01-02 15:04Z"),
			history.RevisionLabel(after.Build), latest)
	}
}

// historyCheck is history -check: the gate over the run directories given, the last the run
// under test (history.Check). It prints the findings one per line, then what was not gated, and
// writes them as Markdown to markdown when named.
func historyCheck(ctx context.Context, fs *flag.FlagSet, dirs []string, check bool, markdown string, stdout, stderr io.Writer) int {
	var other []string
	fs.Visit(func(f *flag.Flag) {
		if f.Name != "check" && f.Name != "markdown" {
			other = append(other, "-"+f.Name)
		}
	})
	switch {
	case !check:
		fmt.Fprintln(stderr, "hcbench: history: -markdown goes with -check")
		return ExitUsage
	case len(other) > 0:
		fmt.Fprintf(stderr, "hcbench: history -check judges the directories given in a temporary database of them alone: %s %s no part in it\n",
			strings.Join(other, ", "), results.Plural(len(other), "takes", "take"))
		return ExitUsage
	case len(dirs) == 0:
		fmt.Fprintln(stderr, "hcbench: history -check: give the run directories in time order, the run under test last")
		return ExitUsage
	}
	res, err := history.Check(ctx, dirs)
	switch {
	case ctx.Err() != nil:
		fmt.Fprintln(stderr, "hcbench: interrupted:", context.Cause(ctx))
		return ExitInterrupted
	case err != nil:
		fmt.Fprintln(stderr, "hcbench: history -check could not decide:", err)
		return ExitUsage
	}
	fmt.Fprintf(stdout, "history -check: %s against %s before it\n", res.Tested, english.Count(res.History, "run", "runs"))
	for _, n := range res.Notes {
		fmt.Fprintln(stdout, "note:", n)
	}
	if err := compare.WriteFindingsText(stdout, res.Findings); err != nil {
		fmt.Fprintln(stderr, "hcbench:", err)
		return ExitUsage
	}
	code := int(compare.Decide(res.Findings))
	if markdown != "" {
		var b bytes.Buffer
		compare.WriteFindingsMarkdown(&b, "hcbench history -check "+res.Tested, res.Findings) // a bytes.Buffer does not fail
		for _, n := range res.Notes {
			fmt.Fprintf(&b, "\n- note: %s", n)
		}
		if len(res.Notes) > 0 {
			b.WriteString("\n")
		}
		if err := results.WriteFileAtomic(markdown, b.Bytes()); err != nil {
			fmt.Fprintln(stderr, "hcbench:", err)
			return max(code, ExitUsage)
		}
	}
	return code
}
