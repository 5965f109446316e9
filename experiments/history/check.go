package history

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/hcbench/hcbench/experiments/compare"
	"github.com/hcbench/hcbench/experiments/metric"
	"github.com/hcbench/hcbench/experiments/results"
	"github.com/hcbench/hcbench/internal/english"
)

// MinCheckRuns is the fewest runs a check needs: the run under test and MinPoints − 1 before it,
// the fewest in which the step fit finds a step.
const MinCheckRuns = MinPoints

// CheckResult is the verdict of Check on the newest of a list of runs against the runs before it.
type CheckResult struct {
	// Findings are the regressions of the run under test (Undecided false), then what kept the
	// gate from deciding (Undecided true).
	Findings []compare.Finding
	// Notes say what was left ungated and why (noisy timing series, time without a threshold).
	Notes []string
	// Tested is the run under test's directory, and History counts the runs before it that it
	// was judged against.
	Tested  string
	History int
}

// Regressed reports whether something regressed (compare.Decide's verdict).
func (c *CheckResult) Regressed() bool { return compare.Decide(c.Findings) == compare.Regressed }

// Undecided reports whether some part could not be decided.
func (c *CheckResult) Undecided() bool {
	for _, f := range c.Findings {
		if f.Undecided {
			return true
		}
	}
	return false
}

// Check decides whether the last of dirs, the run under test, regressed against the runs of dirs
// before it, in a temporary database of those runs alone (removed when it returns; no other
// database is read or written). A run before it that is no finished run, of another experiment or
// config, of other data files, with failed tasks, or that started after the run under test is
// left out of the history, and is a finding that the gate could not decide; so is a run under
// test with failed tasks (the others of its tasks are judged) and a history of fewer than
// MinCheckRuns runs in all (nothing is judged).
//
// In the run under test, a series regressed when the step fit of the series (as the page fits
// it) ends with a step into that run that makes it worse: a work counter's any rise beyond the
// `counters` threshold (0: any rise), a quality metric's change beyond its threshold (log Z's
// any change beyond it), and, where the `time` threshold is positive (0: time is never a
// regression, as in compare), a slowdown beyond the time's tolerance of a timing series that is
// not noisy (TimeNoise) and ran on the same machine as the run before. A series by N is listed
// only where the series over all N of its metric, data set and algorithm did not regress.
//
// The error is for the check itself failing (the temporary database, a cancelled ctx).
func Check(ctx context.Context, dirs []string) (*CheckResult, error) {
	if len(dirs) == 0 {
		return nil, errors.New("no run directories")
	}
	res := &CheckResult{Tested: dirs[len(dirs)-1]}
	undecided := func(metric, figure string) {
		res.Findings = append(res.Findings, compare.Finding{Undecided: true, Metric: metric, Figure: figure})
	}
	mt, err := checkManifest(res.Tested)
	if err != nil {
		undecided("", err.Error())
		return res, nil
	}
	keep := []string{}
	for _, d := range dirs[:len(dirs)-1] {
		m, err := checkManifest(d)
		var why string
		switch {
		case err != nil:
			why = err.Error()
		case m.Experiment != mt.Experiment || m.ConfigHash != mt.ConfigHash:
			why = fmt.Sprintf("%s: another config (experiment %s, config %s; the run under test: %s, %s)", d, m.Experiment, shortConfig(m.ConfigHash), mt.Experiment, shortConfig(mt.ConfigHash))
		case len(mt.DataChanges(&m)) > 0:
			why = fmt.Sprintf("%s: other data: %s", d, strings.Join(mt.DataChanges(&m), "; "))
		case m.Failed > 0:
			why = fmt.Sprintf("%s: %s failed: its means are over fewer items", d, english.Count(m.Failed, "task", "tasks"))
		case !m.Start.Before(mt.Start):
			why = fmt.Sprintf("%s: started %s, not before the run under test (%s): give the runs in time order, the run under test last", d, m.Start.UTC().Format(startLayout), mt.Start.UTC().Format(startLayout))
		}
		if why != "" {
			undecided("", why+"; left out of the history")
			continue
		}
		keep = append(keep, d)
	}
	if mt.Failed > 0 {
		undecided("", fmt.Sprintf("%s: %s failed in the run under test: they are not judged", res.Tested, english.Count(mt.Failed, "task", "tasks")))
	}

	tmp, err := os.MkdirTemp("", "hcbench-check-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(tmp)
	db, err := Open(ctx, filepath.Join(tmp, "history.db"))
	if err != nil {
		return nil, err
	}
	defer db.Close()
	for _, d := range append(keep, res.Tested) {
		if _, err := db.Ingest(ctx, d); err != nil {
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			if d == res.Tested {
				undecided("", fmt.Sprintf("%s: %v", d, err))
				return res, nil
			}
			undecided("", fmt.Sprintf("%s: %v; left out of the history", d, err))
		}
	}
	h, err := db.Load(ctx, 0)
	if err != nil {
		return nil, err
	}
	e := h.Experiments[0] // the run under test's experiment alone
	res.History = len(e.Runs) - 1
	if len(e.Runs) < MinCheckRuns {
		undecided("", fmt.Sprintf("%s before the run under test, %d needed: nothing is judged", english.Count(res.History, "run", "runs"), MinCheckRuns-1))
		return res, nil
	}
	judge(res, e)
	// The regressions first: what regressed is certain, beside what could not be decided.
	slices.SortStableFunc(res.Findings, func(a, b compare.Finding) int { return cmp.Compare(btoi(a.Undecided), btoi(b.Undecided)) })
	return res, nil
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

// startLayout is how Check writes a run's start in its findings.
const startLayout = "2006-01-02 15:04:05Z"

// checkManifest reads a run directory's manifest for Check.
func checkManifest(dir string) (results.Manifest, error) {
	if _, err := os.Stat(dir); err != nil {
		return results.Manifest{}, fmt.Errorf("%s: no such run directory", dir)
	}
	m, err := results.ReadManifest(filepath.Join(dir, results.ManifestFile))
	if errors.Is(err, os.ErrNotExist) {
		return m, fmt.Errorf("%s is not a run directory (no %s)", dir, results.ManifestFile)
	}
	if err != nil {
		return m, fmt.Errorf("%s: %w", dir, err)
	}
	return m, nil
}

// judge adds the regressions of the latest run of e, against the runs before it, to res.
func judge(res *CheckResult, e *Experiment) {
	last := len(e.Runs) - 1
	th := e.Runs[last].Thresholds
	timeGated := metric.Builtin(metric.Time).ThresholdIn(th) > 0
	if !timeGated {
		res.Notes = append(res.Notes, "time: not gated (the run's time threshold is 0: time is reported, never a regression)")
	}
	type rowKey struct{ metric, ds, alg string }
	regressedAllN := map[rowKey]bool{}
	// A row whose latest value is over other items than the run before's (a failed task) has
	// means that differ for that alone: it is not judged, and said once.
	otherItems := map[rowKey]bool{}
	var byN []compare.Finding
	unknownNoise := 0
	for _, s := range e.Series {
		if s.Points[len(s.Points)-1].Run != last {
			continue
		}
		isTime := s.Metric.Key == MetricTime
		if isTime && !timeGated {
			continue
		}
		var step *Change
		for i := range s.Changes {
			if s.Changes[i].After == last {
				step = &s.Changes[i]
			}
		}
		if p := s.Points; len(p) > 1 && p[len(p)-1].Items != p[len(p)-2].Items {
			if k := (rowKey{"", s.Dataset, s.Algorithm}); !otherItems[k] && s.N == AllN {
				otherItems[k] = true
				res.Findings = append(res.Findings, compare.Finding{Undecided: true, Dataset: s.Dataset, Algorithm: s.Algorithm, Figure: fmt.Sprintf(
					"%s over %d items in the run under test, %d in the run before: the row is not judged", s.Metric.Key, p[len(p)-1].Items, p[len(p)-2].Items)})
			}
			continue
		}
		if isTime && s.N == AllN {
			switch {
			case !s.Noise.Known:
				unknownNoise++
				continue
			case s.Noise.Noisy:
				res.Notes = append(res.Notes, fmt.Sprintf("time · %s · %s: %s", s.Dataset, s.Algorithm, s.Noise.Why()))
				continue
			}
		}
		if isTime && s.N != AllN && (s.Noise == nil || !s.Noise.Known || s.Noise.Noisy) {
			continue
		}
		if step == nil || !(step.Regression || s.Metric.Better == Neither) {
			continue
		}
		tol := s.Metric.Tolerance(th)
		f := compare.Finding{Metric: s.Metric.Key, Dataset: s.Dataset, Algorithm: s.Algorithm, Old: s.Metric.Format(step.From), New: s.Metric.Format(step.To)}
		switch {
		case s.Metric.Exact:
			rule := "any rise"
			if tol.Rel > 0 {
				rule = fmt.Sprintf("threshold %g %%", 100*tol.Rel)
			}
			f.Figure = fmt.Sprintf("%+.0f, %s", step.To-step.From, rule)
			if step.From != 0 {
				f.Figure = fmt.Sprintf("%+.0f (%+.3g %%), %s", step.To-step.From, 100*(step.To-step.From)/math.Abs(step.From), rule)
			}
		case isTime:
			if step.HostChanged {
				res.Findings = append(res.Findings, compare.Finding{Undecided: true, Metric: s.Metric.Key, Dataset: s.Dataset, Algorithm: s.Algorithm,
					Old: f.Old, New: f.New, Figure: "slower, but the run before ran on another machine"})
				continue
			}
			f.Figure = fmt.Sprintf("%s, tolerance %g %%; %s", formatChange(s.Metric, step.From, step.To), 100*tol.Rel, s.Noise.Why())
		default:
			f.Figure = fmt.Sprintf("%s, threshold %g", formatChange(s.Metric, step.From, step.To), tol.Abs)
		}
		if s.N != AllN {
			f.Figure = NLabel(s.N) + ": " + f.Figure
			byN = append(byN, f)
			continue
		}
		regressedAllN[rowKey{s.Metric.Key, s.Dataset, s.Algorithm}] = true
		res.Findings = append(res.Findings, f)
	}
	for _, f := range byN {
		if !regressedAllN[rowKey{f.Metric, f.Dataset, f.Algorithm}] {
			res.Findings = append(res.Findings, f)
		}
	}
	if unknownNoise > 0 {
		res.Findings = append(res.Findings, compare.Finding{Undecided: true, Metric: MetricTime, Figure: fmt.Sprintf(
			"the noise of %s is unknown (%s before the run under test, %d needed): %s not judged",
			english.Count(unknownNoise, "timing series", "timing series"), english.Count(last, "run", "runs"), NoiseMinRuns, results.Plural(unknownNoise, "its time is", "their times are"))})
	}
}

// Format writes a value of the metric: a work counter's exactly, as an integer; the others as
// FormatValue does.
func (m Metric) Format(v float64) string {
	if m.Exact {
		return strconv.FormatFloat(v, 'f', -1, 64)
	}
	return FormatValue(v, m.Unit)
}
