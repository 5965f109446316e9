package history

import (
	"bufio"
	"fmt"
	"io"
	"math"
	"strings"

	"github.com/hcbench/hcbench/experiments/results"
)

// WriteBisect writes, for every series of the metric key, the runs between which its level
// changed: the last run of the earlier level and the first of the later one, with their start
// times, revisions and directories. Then the pairs of runs, each once with the number of series
// that changed between them and the revisions to bisect (a change of code shows in many series
// at once).
func WriteBisect(w io.Writer, h *History, key string) error {
	m, ok := MetricByKey(key)
	if !ok {
		return fmt.Errorf("unknown metric %q (metrics: %s)", key, strings.Join(MetricKeys(), ", "))
	}
	bw := bufio.NewWriter(w)
	found := h.Changes(key)
	nSeries := 0
	for _, e := range h.Experiments {
		for _, s := range e.Series {
			if s.Metric.Key == key {
				nSeries++
			}
		}
	}
	fmt.Fprintf(bw, "%s (%s, %s): %d %s in %d series\n", m.Key, m.Name, BetterWords(m.Better), len(found), results.Plural(len(found), "step", "steps"), nSeries)
	type pairKey struct {
		exp           *Experiment
		before, after int
	}
	pairs := map[pairKey]int{}
	var order []pairKey
	for _, f := range found {
		e, s := f.Experiment, f.Series
		fmt.Fprintf(bw, "\n%s · %s · %s · %s: %s %s → %s", e.Name, s.Dataset, s.Algorithm, NLabel(s.N), f.Kind(), m.Format(f.From), m.Format(f.To))
		fmt.Fprintf(bw, " (%s)", formatChange(m, f.From, f.To))
		var notes []string
		if f.Regression && f.Persists {
			notes = append(notes, "not recovered since")
		}
		if f.OnePoint {
			notes = append(notes, "seen in the latest run only")
		}
		if f.ConfigChanged {
			notes = append(notes, "the config changed between these runs")
		}
		if f.HostChanged {
			notes = append(notes, "the machine changed between these runs")
		}
		if len(notes) > 0 {
			fmt.Fprintf(bw, "; %s", strings.Join(notes, "; "))
		}
		fmt.Fprintf(bw, "\n  last run before:  %s\n  first run after:  %s\n", e.Runs[f.Before].Label(), e.Runs[f.After].Label())
		k := pairKey{e, f.Before, f.After}
		if pairs[k] == 0 {
			order = append(order, k)
		}
		pairs[k]++
	}
	if len(order) > 0 {
		fmt.Fprintf(bw, "\nThe steps by pair of runs:\n")
		for _, k := range order {
			b, a := k.exp.Runs[k.before], k.exp.Runs[k.after]
			fmt.Fprintf(bw, "  %s: %s → %s: %d %s", k.exp.Name, b.Start.UTC().Format("2006-01-02 15:04:05Z"), a.Start.UTC().Format("2006-01-02 15:04:05Z"),
				pairs[k], results.Plural(pairs[k], "series", "series"))
			switch {
			case b.Build.Revision != "" && a.Build.Revision != "" && b.Build.Revision != a.Build.Revision:
				fmt.Fprintf(bw, "; git bisect start %s %s", a.Build.Revision, b.Build.Revision)
			case b.Build.Same(a.Build):
				fmt.Fprintf(bw, "; the same build ran both: the change is not in the code")
			}
			fmt.Fprintln(bw)
		}
	}
	return bw.Flush()
}

// BetterWords says a direction in words.
func BetterWords(d Direction) string {
	switch d {
	case HigherIsBetter:
		return "higher is better"
	case LowerIsBetter:
		return "lower is better"
	}
	return "any change is a change"
}

// FormatValue writes a value with its unit (none for ""), to 4 significant digits; a time in
// seconds in the unit among s, ms, µs and ns that puts it at 1 or more ("8.963 µs", not
// "8.963e-06 s").
func FormatValue(v float64, unit string) string {
	if unit == "s" && v != 0 {
		for _, u := range []struct {
			name  string
			scale float64
		}{{"s", 1}, {"ms", 1e-3}, {"µs", 1e-6}, {"ns", 1e-9}} {
			if math.Abs(v) >= u.scale || u.name == "ns" {
				return fmt.Sprintf("%.4g %s", v/u.scale, u.name)
			}
		}
	}
	s := fmt.Sprintf("%.4g", v)
	if unit != "" {
		s += " " + unit
	}
	return s
}
