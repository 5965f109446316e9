package history

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/hcbench/hcbench/experiments/results"
)

// Run is a run as the database holds it.
type Run struct {
	ID         int64
	Experiment string
	Start, End time.Time
	ConfigHash string
	// Build is the run's (its first session's) build; RevisionTime the revision's commit time
	// and Version the module version, where known.
	Build                 results.Build
	RevisionTime, Version string
	// Dir is the run directory, absolute, as it was when ingested.
	Dir, Host            string
	CPUs, Workers, Tasks int
	Failed               int
	// Builds counts the builds of the run's sessions (more than 1: a run resumed by another).
	Builds               int
	Datasets, Algorithms []string
	Thresholds           results.Thresholds
}

// Label names a run in messages: its start time, revision and directory.
func (r Run) Label() string {
	return fmt.Sprintf("%s  %s  %s", r.Start.UTC().Format("2006-01-02 15:04:05Z"), RevisionLabel(r.Build), r.Dir)
}

// RevisionLabel says a build's revision as a reader wants it: "revision " and 12 digits, with
// "+modified" for a build of a modified tree, or "revision unknown".
func RevisionLabel(b results.Build) string {
	switch {
	case b.Revision == "":
		return "revision unknown"
	case b.Modified:
		return "revision " + results.Short(b.Revision) + "+modified"
	}
	return "revision " + results.Short(b.Revision)
}

// Series is one metric of one group over the runs of an experiment.
type Series struct {
	Metric Metric
	GroupKey
	AlgorithmName string
	// Points are the runs that have the metric, in time order: their index in the
	// experiment's Runs, the value and the records it is over.
	Points []Point
	// Fit is the step fit of the values, and Changes its steps.
	Fit     Fit
	Changes []Change
	// Noise is a timing series' noise label (nil for the other metrics).
	Noise *TimeNoise
}

// Point is a series' value in one run.
type Point struct {
	Run   int
	Value float64
	Items int
}

// Change is a step of a series between two runs.
type Change struct {
	Step
	// Before and After index the experiment's Runs: the last run of the earlier level and the
	// first of the later one.
	Before, After int
	// Regression: the metric got worse; Improvement: it got better; neither for a metric
	// without a direction (log Z), whose every step is a change.
	Regression, Improvement bool
	// Persists: the latest level is still beyond the tolerance from the level before, in the
	// step's direction (a regression not fixed since).
	Persists bool
	// ConfigChanged and HostChanged say that the config hash or the host differ between the
	// runs on either side of the step: a step there may come from the config or the machine,
	// not the code.
	ConfigChanged, HostChanged bool
}

// Kind names the change: regression, improvement or change.
func (c Change) Kind() string {
	switch {
	case c.Regression:
		return "regression"
	case c.Improvement:
		return "improvement"
	}
	return "change"
}

// Experiment is the history of one experiment (config name).
type Experiment struct {
	Name string
	// Runs are the runs shown, in time order (the latest Last of them).
	Runs []Run
	// Dropped counts the older runs of the database not shown.
	Dropped int
	Series  []*Series
}

// History is what the database holds, as the page shows it.
type History struct {
	Experiments []*Experiment
	// Runs counts every run in the database.
	Runs int
}

// Load reads the database and detects the steps of every series, over the latest last runs of
// each experiment (every run for last ≤ 0). A group of a data set and algorithm whose items all
// have one N has no series per N (it would repeat the one over all N).
func (h *DB) Load(ctx context.Context, last int) (*History, error) {
	rows, err := h.db.QueryContext(ctx, `SELECT r.id, r.experiment, r.start, r.end_time, r.config_hash, r.dir, r.host, r.cpus, r.workers, r.tasks, r.failed, r.builds,
			r.datasets, r.algorithms, r.thresholds, b.executable_sha256, b.revision, b.revision_time, b.modified, b.go_version, b.version
		FROM runs r JOIN builds b ON b.id = r.build_id ORDER BY r.experiment, r.start, r.id`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	hist := &History{}
	byName := map[string]*Experiment{}
	for rows.Next() {
		var r Run
		var start, end, datasets, algorithms, thresholds string
		if err := rows.Scan(&r.ID, &r.Experiment, &start, &end, &r.ConfigHash, &r.Dir, &r.Host, &r.CPUs, &r.Workers, &r.Tasks, &r.Failed, &r.Builds,
			&datasets, &algorithms, &thresholds, &r.Build.Executable, &r.Build.Revision, &r.RevisionTime, &r.Build.Modified, &r.Build.GoVersion, &r.Version); err != nil {
			return nil, err
		}
		if r.Start, err = parseTime(start); err != nil {
			return nil, fmt.Errorf("run %d: start: %w", r.ID, err)
		}
		if r.End, err = parseTime(end); err != nil {
			return nil, fmt.Errorf("run %d: end: %w", r.ID, err)
		}
		for _, f := range []struct {
			s string
			v any
		}{{datasets, &r.Datasets}, {algorithms, &r.Algorithms}, {thresholds, &r.Thresholds}} {
			if err := json.Unmarshal([]byte(f.s), f.v); err != nil {
				return nil, fmt.Errorf("run %d: %w", r.ID, err)
			}
		}
		e := byName[r.Experiment]
		if e == nil {
			e = &Experiment{Name: r.Experiment}
			byName[r.Experiment] = e
			hist.Experiments = append(hist.Experiments, e)
		}
		e.Runs = append(e.Runs, r)
		hist.Runs++
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	where := map[int64][2]int{} // run id → experiment, index in its Runs
	for ei, e := range hist.Experiments {
		if last > 0 && len(e.Runs) > last {
			e.Dropped = len(e.Runs) - last
			e.Runs = e.Runs[e.Dropped:]
		}
		for i, r := range e.Runs {
			where[r.ID] = [2]int{ei, i}
		}
	}

	type seriesKey struct {
		exp    int
		metric string
		GroupKey
	}
	series := map[seriesKey]*Series{}
	arows, err := h.db.QueryContext(ctx, `SELECT a.run_id, a.dataset, a.algorithm, a.n, a.metric, a.value, a.items, g.algorithm_name
		FROM aggregates a JOIN groups g USING (run_id, dataset, algorithm, n)`)
	if err != nil {
		return nil, err
	}
	defer arows.Close()
	for arows.Next() {
		var id int64
		var k GroupKey
		var metric, algName string
		var p Point
		if err := arows.Scan(&id, &k.Dataset, &k.Algorithm, &k.N, &metric, &p.Value, &p.Items, &algName); err != nil {
			return nil, err
		}
		at, shown := where[id]
		m, known := MetricByKey(metric)
		if !shown || !known || math.IsNaN(p.Value) || math.IsInf(p.Value, 0) {
			continue
		}
		p.Run = at[1]
		sk := seriesKey{at[0], m.Key, k} // an old key's points join the series of its current one
		s := series[sk]
		if s == nil {
			s = &Series{Metric: m, GroupKey: k}
			series[sk] = s
		}
		s.Points = append(s.Points, p)
		s.AlgorithmName = algName // the latest run's, once sorted below
	}
	if err := arows.Err(); err != nil {
		return nil, err
	}

	// Ns per experiment, data set and algorithm, to drop the per-N series of single-N groups.
	type dsAlg struct {
		exp          int
		ds, alg, met string
	}
	ns := map[dsAlg]map[int]bool{}
	for k := range series {
		if k.N != AllN {
			d := dsAlg{k.exp, k.Dataset, k.Algorithm, k.metric}
			if ns[d] == nil {
				ns[d] = map[int]bool{}
			}
			ns[d][k.N] = true
		}
	}
	for k, s := range series {
		if k.N != AllN && len(ns[dsAlg{k.exp, k.Dataset, k.Algorithm, k.metric}]) < 2 {
			continue
		}
		slices.SortFunc(s.Points, func(a, b Point) int { return cmp.Compare(a.Run, b.Run) })
		e := hist.Experiments[k.exp]
		detect(s, e.Runs)
		e.Series = append(e.Series, s)
	}
	for _, e := range hist.Experiments {
		latest := e.Runs[len(e.Runs)-1]
		dsRank, algRank := results.ConfigRank(latest.Datasets), results.ConfigRank(latest.Algorithms)
		metricRank := map[string]int{}
		for i, m := range Metrics() {
			metricRank[m.Key] = i
		}
		// The work counters after the table's metrics, by key.
		rank := func(k string) int {
			if r, ok := metricRank[k]; ok {
				return r
			}
			return len(metricRank)
		}
		slices.SortFunc(e.Series, func(a, b *Series) int {
			return cmp.Or(cmp.Compare(rank(a.Metric.Key), rank(b.Metric.Key)), cmp.Compare(a.Metric.Key, b.Metric.Key), dsRank(a.Dataset, b.Dataset),
				algRank(a.Algorithm, b.Algorithm), cmp.Compare(a.N, b.N))
		})
	}
	return hist, nil
}

// detect fits the series and classifies its steps, and labels a timing series' noise; the
// tolerance comes from the thresholds of the latest run that has the series. A work counter's
// every change is a step (ExactSteps), a regression when it rises beyond the tolerance.
func detect(s *Series, runs []Run) {
	y := make([]float64, len(s.Points))
	for i, p := range s.Points {
		y[i] = p.Value
	}
	tol := s.Metric.Tolerance(runs[s.Points[len(s.Points)-1].Run].Thresholds)
	if s.Metric.Exact {
		s.Fit = ExactSteps(y)
	} else {
		s.Fit = DetectSteps(y, tol)
	}
	if s.Metric.Key == MetricTime {
		n := TimeNoiseOf(y, tol.Rel)
		s.Noise = &n
	}
	lastLevel := s.Fit.Segments[len(s.Fit.Segments)-1].Level
	for _, st := range s.Fit.Steps() {
		c := Change{Step: st, Before: s.Points[st.Before].Run, After: s.Points[st.After].Run}
		c.Regression = s.Metric.Better.Worse(st.From, st.To)
		if s.Metric.Exact {
			c.Regression = c.Regression && math.Abs(st.To-st.From) > tol.Rel*math.Abs(st.From)
		}
		c.Improvement = s.Metric.Better != Neither && !s.Metric.Better.Worse(st.From, st.To)
		need := max(tol.Abs, tol.Rel*math.Abs(st.From))
		c.Persists = math.Abs(lastLevel-st.From) > need && (s.Metric.Better == Neither || s.Metric.Better.Worse(st.From, lastLevel) == c.Regression)
		b, a := runs[c.Before], runs[c.After]
		c.ConfigChanged = b.ConfigHash != a.ConfigHash
		c.HostChanged = b.Host != a.Host || b.CPUs != a.CPUs
		s.Changes = append(s.Changes, c)
	}
}

// Found is a change with its experiment and series, for the regressions table and Bisect.
type Found struct {
	Experiment *Experiment
	Series     *Series
	Change
}

// Changes returns every change of the history, of the metric key (all metrics for ""), the
// persisting regressions first, then the latest first.
func (h *History) Changes(metric string) []Found {
	var out []Found
	for _, e := range h.Experiments {
		for _, s := range e.Series {
			if metric != "" && s.Metric.Key != metric {
				continue
			}
			for _, c := range s.Changes {
				out = append(out, Found{e, s, c})
			}
		}
	}
	rank := func(f Found) int {
		switch {
		case f.Regression && f.Persists:
			return 0
		case f.Regression:
			return 1
		case !f.Improvement:
			return 2
		}
		return 3
	}
	slices.SortStableFunc(out, func(a, b Found) int {
		return cmp.Or(cmp.Compare(rank(a), rank(b)), b.Experiment.Runs[b.After].Start.Compare(a.Experiment.Runs[a.After].Start))
	})
	return out
}
