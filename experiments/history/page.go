package history

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"fmt"
	"html/template"
	"io"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/hcbench/hcbench/experiments/metric"
	"github.com/hcbench/hcbench/experiments/results"
)

// PageFile is the page's default name.
const PageFile = "history.html"

//go:embed page.html.tmpl
var pageTemplate string

var pageTmpl = template.Must(template.New("history").Parse(pageTemplate))

// PageOptions are what the page says of where it comes from.
type PageOptions struct {
	// DB names the database; Generated is the time the page is written.
	DB        string
	Generated time.Time
}

// WritePage writes history.html: a table of the regressions, then per experiment and metric a
// folded section with, per data set, a grid of small multiples: one trend per algorithm over all
// N, then (folded) one per algorithm and N. The trends are drawn by the page's own script from
// the data embedded in it: the page needs nothing else, and its size grows with series × runs
// (a value of 7 digits per point), not with the drawing.
func WritePage(w io.Writer, h *History, o PageOptions) error {
	pd := pageData{DB: o.DB, Generated: o.Generated.UTC().Format("2006-01-02 15:04:05Z"), Runs: h.Runs}
	js := jsData{Series: map[string]jsSeries{}}
	ids := map[*Series]string{}
	for ei, e := range h.Experiments {
		je := jsExperiment{}
		for i, r := range e.Runs {
			cfg := shortConfig(r.ConfigHash)
			je.Runs = append(je.Runs, jsRun{
				T: r.Start.UTC().Format("2006-01-02 15:04Z"), Rev: RevisionLabel(r.Build), RevTime: r.RevisionTime,
				Exe: results.Short(r.Build.Executable), Go: r.Build.GoVersion, Host: r.Host, Dir: r.Dir, Cfg: cfg,
				Builds: r.Builds, Failed: r.Failed, N: i + 1,
			})
		}
		js.Experiments = append(js.Experiments, je)
		pe := pageExperiment{Name: e.Name, Runs: len(e.Runs), Dropped: e.Dropped, RunRows: runRows(e.Runs), CounterDefinition: metric.Builtin(metric.Counters).Definition}
		if len(e.Runs) > 0 {
			pe.From = e.Runs[0].Start.UTC().Format("2006-01-02 15:04Z")
			pe.To = e.Runs[len(e.Runs)-1].Start.UTC().Format("2006-01-02 15:04Z")
		}
		var pm *pageMetric
		var pds *pageDataset
		for _, s := range e.Series {
			id := fmt.Sprintf("s%d-%d", ei, len(ids))
			if s.Metric.Exact {
				ids[s] = counterRow(&pe, s, ei)
				continue
			}
			ids[s] = id
			js.Series[id] = seriesJS(s, ei, len(e.Runs))
			if pm == nil || pm.Key != s.Metric.Key {
				pe.Metrics = append(pe.Metrics, pageMetric{Key: s.Metric.Key, Name: s.Metric.Name, Better: BetterWords(s.Metric.Better), Definition: s.Metric.Definition})
				pm = &pe.Metrics[len(pe.Metrics)-1]
				pds = nil
			}
			if pds == nil || pds.Name != s.Dataset {
				pm.Datasets = append(pm.Datasets, pageDataset{Name: s.Dataset})
				pds = &pm.Datasets[len(pm.Datasets)-1]
			}
			p := pagePanel{ID: id, Algorithm: s.Algorithm, N: NLabel(s.N), Flag: flag(s),
				Latest: FormatValue(s.Points[len(s.Points)-1].Value, s.Metric.Unit)}
			if s.Noise != nil {
				p.Noise, p.Noisy = s.Noise.Why(), s.Noise.Noisy
				if p.Noisy {
					pm.Noisy++
				}
			}
			pm.Series++
			if p.Flag != "" {
				pm.Steps++
				pm.Open = true
			}
			if s.N == AllN {
				pds.All = append(pds.All, p)
			} else {
				pds.ByN = append(pds.ByN, p)
				if p.Flag != "" {
					pds.OpenByN = true
					pds.StepsByN++
				}
			}
		}
		// The first section open when none has a step, so that the page opens on trends.
		if len(pe.Metrics) > 0 && !slices.ContainsFunc(pe.Metrics, func(m pageMetric) bool { return m.Open }) {
			pe.Metrics[0].Open = true
		}
		pd.Experiments = append(pd.Experiments, pe)
	}
	for _, f := range h.Changes("") {
		e, s := f.Experiment, f.Series
		c := pageChange{
			ID: ids[f.Series], Kind: f.Kind(), Metric: s.Metric.Name, Dataset: s.Dataset, Algorithm: s.Algorithm, N: NLabel(s.N),
			From: s.Metric.Format(f.From), To: s.Metric.Format(f.To), Change: formatChange(s.Metric, f.From, f.To),
		}
		if f.Regression && f.Persists {
			c.Notes = append(c.Notes, "not recovered")
		} else if f.Regression {
			c.Notes = append(c.Notes, "recovered since")
		}
		if f.OnePoint {
			c.Notes = append(c.Notes, "latest run only")
		}
		if s.Noise != nil && s.Noise.Noisy {
			c.Notes = append(c.Notes, "noisy series: its times are not gated")
		}
		groups := &pd.Others
		if f.Regression {
			groups = &pd.Regressions
		}
		i := slices.IndexFunc(*groups, func(g pageSteps) bool { return g.exp == e && g.before == f.Before && g.after == f.After })
		if i < 0 {
			b, a := e.Runs[f.Before], e.Runs[f.After]
			g := pageSteps{exp: e, before: f.Before, after: f.After, Experiment: e.Name,
				BeforeRun: fmt.Sprintf("run %d (%s, %s)", f.Before+1, b.Start.UTC().Format("2006-01-02 15:04Z"), RevisionLabel(b.Build)),
				AfterRun:  fmt.Sprintf("run %d (%s, %s)", f.After+1, a.Start.UTC().Format("2006-01-02 15:04Z"), RevisionLabel(a.Build)),
			}
			if b.Build.Revision != "" && a.Build.Revision != "" && b.Build.Revision != a.Build.Revision {
				g.Bisect = "git bisect start " + a.Build.Revision + " " + b.Build.Revision
			}
			if f.ConfigChanged {
				g.Notes = append(g.Notes, "the config changed between these runs")
			}
			if f.HostChanged {
				g.Notes = append(g.Notes, "the machine changed between these runs")
			}
			*groups = append(*groups, g)
			i = len(*groups) - 1
		}
		if s.N == AllN {
			(*groups)[i].Rows = append((*groups)[i].Rows, c)
		} else {
			(*groups)[i].ByN = append((*groups)[i].ByN, c)
		}
	}
	// The series by N fold under those over all N; a pair of runs with steps by N only shows
	// them.
	for _, gs := range []*[]pageSteps{&pd.Regressions, &pd.Others} {
		for k := range *gs {
			g := &(*gs)[k]
			if len(g.Rows) == 0 {
				g.Rows, g.ByN = g.ByN, nil
			}
			g.Series = len(g.Rows) + len(g.ByN)
		}
	}
	for _, g := range pd.Regressions {
		pd.RegressionRows += g.Series
	}
	for _, g := range pd.Others {
		pd.OtherRows += g.Series
	}
	b, err := json.Marshal(js) // escapes <, > and &: nothing in it can end the script
	if err != nil {
		return err
	}
	pd.Data = template.JS(b)
	return pageTmpl.Execute(w, pd)
}

// counterRow adds a work counter's series to its row of the experiment's table of counters (one
// row per data set and algorithm, in the series' order) and returns the row's id, which the
// tables of steps link to.
func counterRow(pe *pageExperiment, s *Series, exp int) string {
	i := slices.IndexFunc(pe.Counters, func(r pageCounterRow) bool { return r.Dataset == s.Dataset && r.Algorithm == s.Algorithm })
	if i < 0 {
		pe.Counters = append(pe.Counters, pageCounterRow{ID: fmt.Sprintf("c%d-%d", exp, len(pe.Counters)), Dataset: s.Dataset, Algorithm: s.Algorithm})
		i = len(pe.Counters) - 1
	}
	r := &pe.Counters[i]
	c := pageCounter{Key: strings.TrimPrefix(s.Metric.Key, CounterPrefix), Latest: s.Metric.Format(s.Points[len(s.Points)-1].Value), Flag: flag(s)}
	for _, ch := range s.Changes {
		c.Steps = append(c.Steps, fmt.Sprintf("%s %s → %s at run %d", ch.Kind(), s.Metric.Format(ch.From), s.Metric.Format(ch.To), ch.After+1))
	}
	if len(c.Steps) > 0 {
		r.Stepped++
		pe.CounterSteps++
	}
	r.Counters = append(r.Counters, c)
	return r.ID
}

// runRows lists the runs for the table of runs, in time order.
func runRows(runs []Run) []pageRun {
	var out []pageRun
	for i, r := range runs {
		out = append(out, pageRun{
			N: i + 1, Start: r.Start.UTC().Format("2006-01-02 15:04:05Z"), Revision: RevisionLabel(r.Build), RevisionTime: r.RevisionTime,
			Executable: results.Short(r.Build.Executable), GoVersion: r.Build.GoVersion, Host: r.Host, Cfg: shortConfig(r.ConfigHash),
			Dir: r.Dir, Builds: r.Builds, Failed: r.Failed,
		})
	}
	return out
}

// shortConfig is the first 8 digits of a config hash: enough to see that two differ.
func shortConfig(hash string) string {
	if len(hash) > 8 {
		return hash[:8]
	}
	return hash
}

// formatChange writes the change of a step: as a percentage for time, whose ratios mean
// something, exactly for a work counter, and as a difference in the metric's unit for the rest
// (a percentage of a log-likelihood does not).
func formatChange(m Metric, from, to float64) string {
	if m.Exact {
		return fmt.Sprintf("%+.0f", to-from)
	}
	if m.Key == MetricTime && from > 0 {
		return fmt.Sprintf("%+.1f %%", 100*(to-from)/from)
	}
	return strings.TrimSpace(fmt.Sprintf("%+.4g %s", to-from, m.Unit))
}

// flag is the class of a series' panel: the kind of its first step that is a regression, else
// of its first step, "" without steps.
func flag(s *Series) string {
	for _, c := range s.Changes {
		if c.Regression {
			return c.Kind()
		}
	}
	if len(s.Changes) > 0 {
		return s.Changes[0].Kind()
	}
	return ""
}

// seriesJS is a series as the page's script draws it: values aligned with the experiment's runs
// (null where a run lacks the series) and their item counts, both run-length coded; the fit's
// levels, outliers and steps.
func seriesJS(s *Series, exp, runs int) jsSeries {
	// Times to 4 digits (their noise is larger), the exact metrics to 7.
	digits := 7
	if s.Metric.Key == MetricTime {
		digits = 4
	}
	y := make([]json.RawMessage, runs)
	items := make([]json.RawMessage, runs)
	for i := range y {
		y[i], items[i] = json.RawMessage("null"), json.RawMessage("0")
	}
	same := true
	for _, p := range s.Points {
		y[p.Run] = number(p.Value, digits)
		items[p.Run] = json.RawMessage(strconv.Itoa(p.Items))
		same = same && p.Items == s.Points[0].Items
	}
	js := jsSeries{E: exp, Unit: s.Metric.Unit, Y: runLength(y)}
	// The item counts: one number when every run has the same.
	if b, err := json.Marshal(runLength(items)); err == nil && !same {
		js.Items = b
	} else {
		js.Items = json.RawMessage(strconv.Itoa(s.Points[0].Items))
	}
	for _, g := range s.Fit.Segments {
		js.Levels = append(js.Levels, []json.RawMessage{
			json.RawMessage(strconv.Itoa(s.Points[g.Points[0]].Run)),
			json.RawMessage(strconv.Itoa(s.Points[g.Points[len(g.Points)-1]].Run)),
			number(g.Level, digits),
		})
	}
	for _, o := range s.Fit.Outliers {
		js.Outliers = append(js.Outliers, s.Points[o].Run)
	}
	for _, c := range s.Changes {
		js.Steps = append(js.Steps, jsStep{c.Before, c.After, c.Kind()})
	}
	return js
}

// runLength writes k ≥ 2 equal values in a row as one [value, k]: the quality metrics of
// unchanged code repeat exactly from run to run, and most of a page's data would be their
// repeats (configs/nightly.yaml over 100 runs: a page of 548 KB without, 265 KB with). The page's
// script expands them (expand).
func runLength(vs []json.RawMessage) []json.RawMessage {
	var out []json.RawMessage
	for i := 0; i < len(vs); {
		k := 1
		for i+k < len(vs) && bytes.Equal(vs[i+k], vs[i]) {
			k++
		}
		if k == 1 {
			out = append(out, vs[i])
		} else {
			out = append(out, json.RawMessage("["+string(vs[i])+","+strconv.Itoa(k)+"]"))
		}
		i += k
	}
	return out
}

// number writes v to the significant digits given.
func number(v float64, digits int) json.RawMessage {
	return json.RawMessage(strconv.FormatFloat(v, 'g', digits, 64))
}

type pageData struct {
	DB, Generated string
	Runs          int
	Experiments   []pageExperiment
	// Regressions are the steps that made a metric worse, Others the rest, by the pair of runs
	// they lie between; the Rows count their series.
	Regressions, Others       []pageSteps
	RegressionRows, OtherRows int
	Data                      template.JS
}

type pageExperiment struct {
	Name          string
	Runs, Dropped int
	From, To      string
	Metrics       []pageMetric
	// RunRows are the runs as the table of runs lists them.
	RunRows []pageRun
	// Counters are the rows of the work counters' table; CounterSteps counts the counters with
	// a step.
	Counters          []pageCounterRow
	CounterSteps      int
	CounterDefinition string
}

// pageCounterRow is a data set and algorithm's line of the work counters' table: each counter's
// latest total, and its steps.
type pageCounterRow struct {
	ID, Dataset, Algorithm string
	Counters               []pageCounter
	// Stepped counts the counters with a step.
	Stepped int
}

type pageCounter struct {
	Key, Latest, Flag string
	Steps             []string
}

// pageRun is a row of the table of runs: what each point of the trends comes from.
type pageRun struct {
	N                                     int
	Start, Revision, RevisionTime         string
	Executable, GoVersion, Host, Cfg, Dir string
	Builds, Failed                        int
}

type pageMetric struct {
	Key, Name, Better, Definition string
	Series, Steps                 int
	// Noisy counts the timing series labelled noisy.
	Noisy    int
	Open     bool
	Datasets []pageDataset
}

type pageDataset struct {
	Name     string
	All, ByN []pagePanel
	OpenByN  bool
	StepsByN int
}

type pagePanel struct {
	ID, Algorithm, N, Flag string
	// Noise is a timing series' noise label in words (TimeNoise.Why), Noisy its verdict.
	Noise string
	Noisy bool
	// Latest is the value of the latest run that has the series.
	Latest string
}

// pageSteps are the steps of one experiment between the same two runs.
type pageSteps struct {
	exp                         *Experiment
	before, after               int
	Experiment                  string
	BeforeRun, AfterRun, Bisect string
	Notes                       []string
	// Rows are the series over all N, ByN those by N (folded); Series counts both.
	Rows, ByN []pageChange
	Series    int
}

type pageChange struct {
	ID, Kind                   string
	Metric, Dataset, Algorithm string
	N, From, To, Change        string
	Notes                      []string
}

type jsData struct {
	Experiments []jsExperiment      `json:"exps"`
	Series      map[string]jsSeries `json:"series"`
}

type jsExperiment struct {
	Runs []jsRun `json:"runs"`
}

type jsRun struct {
	N       int    `json:"n"`
	T       string `json:"t"`
	Rev     string `json:"rev"`
	RevTime string `json:"revTime,omitempty"`
	Exe     string `json:"exe,omitempty"`
	Go      string `json:"go,omitempty"`
	Host    string `json:"host,omitempty"`
	Dir     string `json:"dir"`
	Cfg     string `json:"cfg"`
	Builds  int    `json:"builds,omitempty"`
	Failed  int    `json:"failed,omitempty"`
}

type jsSeries struct {
	E        int                 `json:"e"`
	Unit     string              `json:"u,omitempty"`
	Y        []json.RawMessage   `json:"y"` // run-length coded (runLength)
	Items    json.RawMessage     `json:"n"`
	Levels   [][]json.RawMessage `json:"lv"`
	Outliers []int               `json:"out,omitempty"`
	Steps    []jsStep            `json:"st,omitempty"`
}

type jsStep struct {
	Before, After int
	Kind          string
}

// MarshalJSON writes a step as [before, after, kind].
func (s jsStep) MarshalJSON() ([]byte, error) {
	return json.Marshal([]any{s.Before, s.After, s.Kind})
}
