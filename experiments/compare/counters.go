package compare

import (
	"fmt"

	"github.com/hcbench/hcbench/experiments/metric"
	"github.com/hcbench/hcbench/experiments/results"
	"github.com/hcbench/hcbench/internal/english"
)

// CounterPrefix begins the metric name of a work counter in compare's and history's output:
// "counters.splits".
const CounterPrefix = metric.Counters + "."

// CounterChange is a work counter of a row: its totals over the items where both runs have it.
// A counter is an exact count of the algorithm's work, the same on every run of a build, so any
// difference is a change of the code, never noise.
type CounterChange struct {
	Key      string
	Items    int
	Old, New int64 // totals over the Items
	// Differ are the items whose count differs, in plan order.
	Differ []CounterItem
}

// CounterItem is an item whose count differs between the runs.
type CounterItem struct {
	Item     string
	Old, New int64
}

// Name is the counter's metric name, "counters.<key>".
func (c CounterChange) Name() string { return CounterPrefix + c.Key }

// Rise is NEW's total minus OLD's.
func (c CounterChange) Rise() int64 { return c.New - c.Old }

// regressed reports whether the total rose by more than the relative threshold lim (0: any rise;
// a rise from 0 is beyond every threshold).
func (c CounterChange) regressed(lim float64) bool {
	rise := c.Rise()
	return rise > 0 && (c.Old == 0 || float64(rise)/float64(c.Old) > lim)
}

// counterChanges totals each work counter of the row's tasks (metric.CounterNames of both runs)
// over the tasks where both runs have it, in key order; a counter in one run only is left out.
func counterChanges(ps []pair) []CounterChange {
	recs := make([]results.Record, 0, 2*len(ps))
	for _, p := range ps {
		recs = append(recs, p.old, p.new)
	}
	var out []CounterChange
	for _, k := range metric.CounterNames(recs) {
		c := CounterChange{Key: k}
		for i := range ps {
			o, okO := metric.CounterOf(&ps[i].old, k)
			n, okN := metric.CounterOf(&ps[i].new, k)
			if !okO || !okN {
				continue
			}
			c.Items++
			c.Old += o
			c.New += n
			if o != n {
				c.Differ = append(c.Differ, CounterItem{Item: ps[i].new.Item, Old: o, New: n})
			}
		}
		if c.Items > 0 {
			out = append(out, c)
		}
	}
	return out
}

// counterThreshold is the threshold of the work counters in th.
func counterThreshold(th results.Thresholds) float64 {
	return metric.Builtin(metric.Counters).ThresholdIn(th)
}

// counterRule says what a counter's threshold lim means: "any rise", or the relative rise allowed.
func counterRule(lim float64) string {
	if lim == 0 {
		return "any rise"
	}
	return fmt.Sprintf("threshold %g%%", 100*lim)
}

// counterRise is a counter's rise as a finding shows it: "+1", or "+3 (+1.2%)" under a
// threshold above 0.
func counterRise(c CounterChange, lim float64) string {
	s := fmt.Sprintf("%+d", c.Rise())
	if lim > 0 && c.Old != 0 {
		s += fmt.Sprintf(" (%+.3g%%)", 100*float64(c.Rise())/float64(c.Old))
	}
	return s
}

// differing lists the items whose count differs: "item 3: 300 → 301", up to listed of them.
func differing(c CounterChange) string {
	parts := make([]string, 0, len(c.Differ))
	for _, d := range c.Differ {
		parts = append(parts, fmt.Sprintf("%s: %d → %d", d.Item, d.Old, d.New))
	}
	return results.Plural(len(parts), "item ", "items ") + firstFew(parts, listed)
}

// counterRegressions lists the row's work counters whose total rose beyond the threshold.
func counterRegressions(r *Row, th results.Thresholds) []regression {
	lim := counterThreshold(th)
	var out []regression
	for _, c := range r.Counters {
		if !c.regressed(lim) {
			continue
		}
		out = append(out, regression{
			line: fmt.Sprintf("%s/%s: %s rose by %d (%d → %d over %s; %s; %s, exact: any change is a change)",
				r.Dataset, r.Algorithm, c.Name(), c.Rise(), c.Old, c.New, english.Count(c.Items, "item", "items"), differing(c), counterRule(lim)),
			finding: Finding{Metric: c.Name(), Dataset: r.Dataset, Algorithm: r.Algorithm, Old: fmt.Sprint(c.Old), New: fmt.Sprint(c.New),
				Figure: fmt.Sprintf("%s, %s; %s", counterRise(c, lim), counterRule(lim), differing(c))},
		})
	}
	return out
}

// writeCounters writes the row's work counters in the report: a line per counter that changed,
// and one saying how many did not.
func (r *Row) writeCounters(line func(metric, old, new, delta, verdict string), th results.Thresholds) {
	lim := counterThreshold(th)
	same := 0
	for _, c := range r.Counters {
		if len(c.Differ) == 0 {
			same++
			continue
		}
		var verdict string
		switch {
		case c.regressed(lim):
			verdict = fmt.Sprintf("REGRESSION (%s; exact, not noise)", counterRule(lim))
		case c.Rise() > 0:
			verdict = fmt.Sprintf("rose, within %s", counterRule(lim))
		case c.Rise() < 0:
			verdict = "fell (better)"
		default:
			verdict = "same total"
		}
		line(fmt.Sprintf("%s (%d)", c.Name(), c.Items), fmt.Sprint(c.Old), fmt.Sprint(c.New), fmt.Sprintf("%+d", c.Rise()), verdict+"; "+differing(c))
	}
	switch {
	case same == 0:
	case same == len(r.Counters):
		line("work counters", "", "", "", fmt.Sprintf("all %d unchanged", same))
	default:
		line("work counters", "", "", "", fmt.Sprintf("the other %d unchanged", same))
	}
}
