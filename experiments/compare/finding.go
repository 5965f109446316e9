package compare

import (
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/hcbench/hcbench/experiments/results"
	"github.com/hcbench/hcbench/internal/english"
)

// Finding is one line of a gate's verdict (compare -check, history -check): a regression, or
// something that kept the gate from deciding. The plain-text form is one line per finding for a
// CI log; the Markdown form a table for a pull-request comment.
type Finding struct {
	// Undecided is true for what kept the gate from deciding (a missing run, different configs or
	// data, a failed task), false for a regression.
	Undecided bool
	// Metric is the metric's key (log_likelihood, time, counters.splits, …), "" for a finding of
	// the whole run.
	Metric string
	// Dataset and Algorithm name the row ("" for a finding of the whole run).
	Dataset, Algorithm string
	// Old and New are the values as the finding prints them ("" where there are none).
	Old, New string
	// Figure is the test's figure: "p=0.003, +12.1% (threshold 5%)", "+1 (any rise)", or the
	// reason the gate could not decide.
	Figure string
}

// FailureMetric is the Metric of a finding about tasks that failed rather than a metric's value.
const FailureMetric = "task"

// Verdict is a gate's answer; its value is the exit code of compare -check and history -check.
type Verdict int

const (
	// Pass: nothing regressed, and the gate could decide.
	Pass Verdict = 0
	// Regressed: something regressed, whatever else kept the gate from deciding.
	Regressed Verdict = 1
	// Undecided: nothing regressed, but the gate could not decide (missing runs, different
	// configs or data, failed tasks, an unfinished run).
	Undecided Verdict = 2
)

// String is the verdict's word in the summary lines: "pass", "regressed", "undecided".
func (v Verdict) String() string {
	switch v {
	case Regressed:
		return "regressed"
	case Undecided:
		return "undecided"
	}
	return "pass"
}

// Decide returns the verdict of findings: Regressed if any is a regression, else Undecided if
// any is undecided, else Pass.
func Decide(fs []Finding) Verdict {
	v := Pass
	for _, f := range fs {
		if !f.Undecided {
			return Regressed
		}
		v = Undecided
	}
	return v
}

// Kind is the finding's first word: "regression" or "undecided".
func (f Finding) Kind() string {
	if f.Undecided {
		return "undecided"
	}
	return "regression"
}

// Where is the row as a finding names it: "data set/algorithm", either alone, or "".
func (f Finding) Where() string {
	switch {
	case f.Dataset != "" && f.Algorithm != "":
		return f.Dataset + "/" + f.Algorithm
	case f.Dataset != "":
		return f.Dataset
	}
	return f.Algorithm
}

// String is the finding's plain-text line, its parts separated by single spaces, each part left
// out where the finding has none:
//
//	KIND METRIC DATASET/ALGORITHM OLD → NEW (FIGURE)
//
// KIND is "regression" or "undecided". A finding of the whole run has only its figure:
// "undecided: FIGURE". For example
//
//	regression counters.splits jets/greedy 824 → 825 (+1, any rise; item 3: 206 → 207)
//	regression time t/greedy 0.101s → 0.11312s (+12.0%, p=0.000 n=15 stratified (threshold 10%))
//	undecided task iris/bhc (1 task failed in both runs)
//	undecided: the config hashes differ (old aaaaaaaaaaaa, new bbbbbbbbbbbb): different configs
//
// (the fixtures of the package's tests). Scripts may rely on the first word and on the order of
// the parts; docs/nightly.md documents the form.
func (f Finding) String() string {
	var parts []string
	for _, p := range []string{f.Metric, f.Where()} {
		if p != "" {
			parts = append(parts, p)
		}
	}
	if f.Old != "" || f.New != "" {
		parts = append(parts, orDash(f.Old)+" → "+orDash(f.New))
	}
	if len(parts) == 0 {
		return f.Kind() + ": " + f.Figure
	}
	s := f.Kind() + " " + strings.Join(parts, " ")
	if f.Figure != "" {
		s += " (" + f.Figure + ")"
	}
	return s
}

func orDash(s string) string {
	if s == "" {
		return "—"
	}
	return s
}

// Summary is the last line of a gate's plain-text output: "check: pass", "check: regressed
// (2 regressions, 1 undecided)", "check: undecided (1 undecided)"; the verdict's word is the exit
// code's meaning.
func Summary(fs []Finding) string {
	v := Decide(fs)
	if v == Pass {
		return "check: pass (nothing regressed)"
	}
	return fmt.Sprintf("check: %s (%s)", v, counts(fs))
}

// counts counts the findings of each kind: "2 regressions, 1 undecided".
func counts(fs []Finding) string {
	regs, und := 0, 0
	for _, f := range fs {
		if f.Undecided {
			und++
		} else {
			regs++
		}
	}
	var parts []string
	if regs > 0 {
		parts = append(parts, english.Count(regs, "regression", "regressions"))
	}
	if und > 0 {
		parts = append(parts, fmt.Sprintf("%d undecided", und))
	}
	return strings.Join(parts, ", ")
}

// WriteFindingsText writes the findings one per line (Finding.String), regressions first, then
// the Summary line: the plain-text form of a gate's verdict for a CI log.
func WriteFindingsText(w io.Writer, fs []Finding) error {
	var b strings.Builder
	for _, f := range sortFindings(fs) {
		b.WriteString(f.String() + "\n")
	}
	b.WriteString(Summary(fs) + "\n")
	_, err := io.WriteString(w, b.String())
	return err
}

// WriteFindingsMarkdown writes the findings as Markdown for a pull-request comment: a heading
// "TITLE: VERDICT", the Summary's counts, and a table with a row per finding, regressions first:
//
//	| finding | metric | data set | algorithm | old | new | figure |
//
// Cells escape '|' and hold no line breaks; empty cells are blank. Without findings it writes
// the heading and "Nothing regressed." only.
func WriteFindingsMarkdown(w io.Writer, title string, fs []Finding) error {
	var b strings.Builder
	fmt.Fprintf(&b, "### %s: %s\n\n", cell(title), Decide(fs))
	if len(fs) == 0 {
		b.WriteString("Nothing regressed.\n")
	} else {
		fmt.Fprintf(&b, "%s.\n\n", counts(fs))
		b.WriteString("| finding | metric | data set | algorithm | old | new | figure |\n")
		b.WriteString("|---|---|---|---|---|---|---|\n")
		for _, f := range sortFindings(fs) {
			metric := f.Metric
			if metric != "" {
				metric = "`" + metric + "`"
			}
			fmt.Fprintf(&b, "| %s | %s | %s | %s | %s | %s | %s |\n", f.Kind(), cell(metric), cell(f.Dataset), cell(f.Algorithm), cell(f.Old), cell(f.New), cell(f.Figure))
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// cell makes s fit a Markdown table cell.
func cell(s string) string {
	return strings.NewReplacer("|", `\|`, "\r", " ", "\n", " ").Replace(s)
}

// sortFindings puts the regressions first, each kind in its given order.
func sortFindings(fs []Finding) []Finding {
	out := slices.Clone(fs)
	slices.SortStableFunc(out, func(a, b Finding) int {
		switch {
		case a.Undecided == b.Undecided:
			return 0
		case b.Undecided:
			return -1
		}
		return 1
	})
	return out
}

// Findings returns the comparison as a gate's verdict (compare -check): the regressions of every
// row (quality and failures, work counters, time), then what kept the gate from deciding: the
// problems (Problems), OLD unfinished (unless AllowMissing: tasks of NEW then go unchecked),
// different configs (config hash), different data (DataChanges), and per row the tasks that
// failed in OLD (in both runs, or in OLD only). A slowdown on another machine, or over too few
// timings, is neither: times are then reported, not checked.
func (r *Result) Findings() []Finding {
	var out []Finding
	for i := range r.Rows {
		for _, g := range r.Rows[i].regressions() {
			out = append(out, g.finding)
		}
	}
	und := func(figure string) { out = append(out, Finding{Undecided: true, Figure: figure}) }
	for _, p := range r.Problems() {
		und(p)
	}
	if st := r.Old.Status; st != results.StatusComplete && !r.AllowMissing {
		und(fmt.Sprintf("OLD did not finish (%s): tasks it lacks are not checked", status(r.Old, r.OldRecorded)))
	}
	if r.ConfigHashDiffers() {
		und(fmt.Sprintf("the config hashes differ (old %s, new %s): different configs",
			results.Short(results.OrUnknown(r.Old.ConfigHash, "unknown")), results.Short(results.OrUnknown(r.New.ConfigHash, "unknown"))))
	}
	for _, d := range r.DataChanges {
		und("different data: " + d)
	}
	for i := range r.Rows {
		rw := &r.Rows[i]
		f := Finding{Undecided: true, Metric: FailureMetric, Dataset: rw.Dataset, Algorithm: rw.Algorithm}
		if rw.FailedBoth > 0 {
			f.Figure = fmt.Sprintf("%s failed in both runs", english.Count(rw.FailedBoth, "task", "tasks"))
			out = append(out, f)
		}
		if n := len(rw.Fixed); n > 0 {
			f.Figure = fmt.Sprintf("%s failed in OLD and succeed in NEW: %s", english.Count(n, "task", "tasks"), firstFew(rw.Fixed, 3))
			out = append(out, f)
		}
	}
	return out
}
