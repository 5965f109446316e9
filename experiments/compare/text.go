package compare

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"math"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/hcbench/hcbench/experiments/metric"
	"github.com/hcbench/hcbench/experiments/results"
	"github.com/hcbench/hcbench/internal/english"
)

// listed is how many task keys a note lists before "… (n more)".
const listed = 5

// WriteText writes the report printed by the command: both runs and how they ended, the
// thresholds, notes on the configs and on tasks in one run only, a table per data set, the
// regressions and the problems.
func (r *Result) WriteText(w io.Writer) error {
	var buf bytes.Buffer
	r.writeText(&buf)
	// tabwriter pads empty trailing cells; drop the trailing blanks.
	bw := bufio.NewWriter(w)
	for line := range strings.Lines(buf.String()) {
		bw.WriteString(strings.TrimRight(line, " \n"))
		bw.WriteByte('\n')
	}
	return bw.Flush()
}

func (r *Result) writeText(bw *bytes.Buffer) {
	fmt.Fprintln(bw, "hcbench compare")
	tw := tabwriter.NewWriter(bw, 0, 4, 2, ' ', 0)
	for _, run := range []struct {
		name     string
		m        results.Manifest
		recorded int
	}{{"old", r.Old, r.OldRecorded}, {"new", r.New, r.NewRecorded}} {
		fmt.Fprintf(tw, "  %s\t%s\t%s\t%s\t%s\t%s\n", run.name, results.OrUnknown(run.m.Experiment, "(experiment unknown)"), builds(run.m), started(run.m.Start), host(run.m), status(run.m, run.recorded))
	}
	tw.Flush()
	fmt.Fprintf(bw, "  thresholds: %s\n", r.thresholds())
	if r.ConfigHashDiffers() {
		fmt.Fprintf(bw, "  note: the config hashes differ (old %s, new %s): the runs come from different configs, and only the tasks they share are compared\n",
			results.Short(results.OrUnknown(r.Old.ConfigHash, "unknown")), results.Short(results.OrUnknown(r.New.ConfigHash, "unknown")))
	}
	for _, only := range []struct {
		run  string
		keys []string
	}{{"OLD", r.OnlyOld}, {"NEW", r.OnlyNew}} {
		if n := len(only.keys); n > 0 {
			fmt.Fprintf(bw, "  note: %d %s only in %s (not compared): %s\n", n, results.Plural(n, "task", "tasks"), only.run, firstFew(only.keys, listed))
		}
	}
	if timeThreshold(r.Thresholds) > 0 && r.TimeNote != "" {
		fmt.Fprintf(bw, "  note: times are reported, not checked: %s\n", r.TimeNote)
	}

	for i := 0; i < len(r.Rows); {
		ds := r.Rows[i].Dataset
		fmt.Fprintf(bw, "\ndata set %s\n", ds)
		tw := tabwriter.NewWriter(bw, 0, 4, 2, ' ', 0)
		fmt.Fprintln(tw, "  algorithm\ttasks\tmetric\told\tnew\tΔ")
		for ; i < len(r.Rows) && r.Rows[i].Dataset == ds; i++ {
			r.Rows[i].writeRows(tw, r.Thresholds)
		}
		tw.Flush()
	}

	regs := r.Regressions()
	if len(regs) == 0 {
		fmt.Fprintln(bw, "\nno regressions")
	} else {
		fmt.Fprintf(bw, "\n%d %s:\n", len(regs), results.Plural(len(regs), "regression", "regressions"))
		for _, l := range regs {
			fmt.Fprintf(bw, "  %s\n", l)
		}
	}
	if probs := r.Problems(); len(probs) > 0 {
		fmt.Fprintf(bw, "\n%d %s:\n", len(probs), results.Plural(len(probs), "problem", "problems"))
		for _, l := range probs {
			fmt.Fprintf(bw, "  %s\n", l)
		}
	}
}

// writeRows writes a row's lines: its status, then a line per metric.
func (r *Row) writeRows(tw io.Writer, th results.Thresholds) {
	label := r.Algorithm
	if r.AlgorithmName != "" && r.AlgorithmName != r.Algorithm {
		label += " (" + r.AlgorithmName + ")"
	}
	// The quality line counts the regressions of quality and failures; a slower time is shown on
	// its own line.
	n := len(r.qualityRegressions)
	status := "no change"
	switch {
	case r.Tasks == 0 && len(r.NewFailures)+len(r.Fixed)+r.FailedBoth == 0:
		status = "no task in both runs"
	case n > 0:
		status = fmt.Sprintf("%d %s", n, results.Plural(n, "REGRESSION", "REGRESSIONS"))
	case !r.qualityUnchanged():
		status = "changed, within thresholds"
	case len(r.Fixed) > 0:
		status = fmt.Sprintf("no change; %d %s fixed", len(r.Fixed), results.Plural(len(r.Fixed), "task", "tasks"))
	}
	fmt.Fprintf(tw, "  %s\t%d\tquality\t\t\t\t%s\n", label, r.Tasks, status)
	line := func(metric, old, new, delta, verdict string) {
		fmt.Fprintf(tw, "  \t\t%s\t%s\t%s\t%s\t%s\n", metric, old, new, delta, verdict)
	}
	for _, mt := range Quality() {
		m, lim := r.Quality[mt.Key], mt.ThresholdIn(th)
		if m.Items == 0 {
			continue
		}
		verdict := ""
		switch worse := worsening(mt, m); {
		case m.Changed == 0:
		case beyond(worse, lim, m):
			verdict = fmt.Sprintf("REGRESSION (%s by %s > %g)", wayWorse(mt), num(worse), lim)
		case worse > 0:
			verdict = "worse, within threshold"
		default:
			verdict = "better"
		}
		if m.Changed > 0 {
			verdict += fmt.Sprintf("; %d of %s differ", m.Changed, english.Count(m.Items, "item", "items"))
		}
		line(fmt.Sprintf("%s (%d)", mt.Short, m.Items), num(m.Old), num(m.New), signed(m.Delta), verdict)
	}
	if n := len(r.NewlyInfinite); n > 0 {
		line("log-likelihood −Inf", "finite", "−Inf", "", fmt.Sprintf("REGRESSION: %d %s (%s)", n, results.Plural(n, "item", "items"), firstFew(r.NewlyInfinite, listed)))
	}
	r.writeCounters(line, th)
	if t := r.Time; t.Tasks > 0 {
		verdict := fmt.Sprintf("p=%.3f n=%s", t.P, t.N())
		if t.Test == TestStratified {
			verdict = fmt.Sprintf("p=%.3f n=%s stratified", t.P, t.N())
		}
		if !t.Significant {
			verdict = "~ (" + verdict + ")"
		}
		slow := t.Slowdown()
		switch {
		case r.TimeRegressed():
			verdict = fmt.Sprintf("REGRESSION (slower by %.1f%% > %g%%) %s", 100*(slow-1), 100*timeThreshold(th), verdict)
		case r.TimeWaived != "":
			verdict = fmt.Sprintf("slower by %.1f%% > %g%%, not a regression (%s) %s", 100*(slow-1), 100*timeThreshold(th), r.TimeWaived, verdict)
		}
		// The Δ is the test's own measure of the slowdown: the ratio of the pooled medians, or
		// the items' geometric mean (Time.Effect) for the stratified test.
		delta := "—"
		if !math.IsNaN(slow) {
			delta = fmt.Sprintf("%+.1f%%", 100*(slow-1))
		}
		line("time (median s)", num(t.Old), num(t.New), delta, verdict)
	}
	for _, f := range r.NewFailures {
		line("fails in NEW", "ok", "error", "", fmt.Sprintf("REGRESSION: item %s: %s", f.Item, oneLine(f.Error)))
	}
	if n := len(r.Fixed); n > 0 {
		line("fixed in NEW", "error", "ok", "", fmt.Sprintf("%d %s: %s", n, results.Plural(n, "task", "tasks"), firstFew(r.Fixed, listed)))
	}
	if r.FailedBoth > 0 {
		line("failed in both", "", "", "", fmt.Sprintf("%d %s", r.FailedBoth, results.Plural(r.FailedBoth, "task", "tasks")))
	}
}

func signed(v float64) string {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return "—"
	}
	if v == 0 {
		return "0"
	}
	return fmt.Sprintf("%+.3g", v)
}

// builds names the run's build, or its builds should its sessions have mixed them.
func builds(m results.Manifest) string {
	bs := m.Builds()
	if len(bs) == 0 {
		bs = []results.Build{m.Build()}
	}
	if len(bs) == 1 {
		return bs[0].String()
	}
	var parts []string
	for _, b := range bs {
		parts = append(parts, b.String())
	}
	return "mixed builds: " + strings.Join(parts, " + ")
}

func started(t time.Time) string {
	if t.IsZero() {
		return "start unknown"
	}
	return "started " + t.UTC().Format("2006-01-02 15:04:05 UTC")
}

func host(m results.Manifest) string {
	var parts []string
	if m.Host != "" {
		parts = append(parts, m.Host)
	}
	if m.CPUs > 0 {
		parts = append(parts, fmt.Sprintf("%d CPUs", m.CPUs))
	}
	return strings.Join(parts, ", ")
}

func (r *Result) thresholds() string {
	th := r.Thresholds
	t := "time not checked (0)"
	if lim := timeThreshold(th); lim > 0 {
		t = fmt.Sprintf("time %g%% slower with p < %g", 100*lim, r.Alpha)
		if r.TimeTest != DefaultTimeTest {
			t += " (" + r.TimeTest + " test)"
		}
	}
	var parts []string
	for _, m := range Quality() {
		parts = append(parts, fmt.Sprintf("%s %s %g", m.Flag(), wayWorse(m), m.ThresholdIn(th)))
	}
	parts = append(parts, fmt.Sprintf("%s %s", metric.Counters, counterRule(counterThreshold(th))))
	return strings.Join(append(parts, t), ", ")
}

// wayWorse says which way a metric gets worse: "drop", "rise", or "change" for a metric better in
// neither direction.
func wayWorse(m *metric.Metric) string {
	switch m.Better {
	case metric.HigherIsBetter:
		return "drop"
	case metric.LowerIsBetter:
		return "rise"
	}
	return "change"
}
