package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/hcbench/hcbench/experiments/compare"
	"github.com/hcbench/hcbench/experiments/results"
)

// A synthetic measurement: rows qcd/greedy (10 items) and the three planted rows (20 items
// each), K = 3 repetitions a record. Times are 3 ms × (1 + item/1000) with a jitter of at most
// 0.1 %, so that the pooled test sees every planted slowdown of 5 % or more and nothing else;
// planted runs multiply each spin row by 1 + its slowdown, and slow multiplies qcd/greedy's
// times in the named runs.
func writeMeasurement(t *testing.T, rounds int, slow map[string]float64) string {
	t.Helper()
	dir := t.TempDir()
	p := plan{KMax: 3, Workers: 2, Rounds: rounds, ConfigSHA256: "x", Base: "configs/nightly.yaml"}
	b, _ := json.Marshal(p)
	if err := os.WriteFile(filepath.Join(dir, planFile), b, 0o644); err != nil {
		t.Fatal(err)
	}
	seq := 0
	for i := range rounds {
		for _, pl := range []bool{false, true} {
			name := runName(i, pl)
			writeRun(t, filepath.Join(dir, name), pl, slow[name], seq)
			seq++
		}
	}
	return dir
}

func writeRun(t *testing.T, dir string, isPlanted bool, greedySlow float64, seq int) {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	m := results.NewManifest()
	m.Host, m.CPUs, m.Workers = "testhost", 2, 2
	m.Experiment, m.Status, m.ConfigHash = "nightly-gatecheck", results.StatusComplete, "h"
	m.Start = time.Date(2026, 11, 28, 20, seq, 0, 0, time.UTC)
	m.Datasets = []string{"qcd", plantedDataset}
	m.Algorithms = []string{"greedy", "spin5", "spin10", "spin20"}
	var lines []string
	add := func(ds, alg string, items int, factor float64) {
		m.Tasks++
		m.Finished++
		for it := range items {
			var times []float64
			for rep := range 3 {
				jitter := 1 + 0.001*float64((it*7+rep*3+seq*5)%11-5)/5
				times = append(times, 0.003*(1+float64(it)/1000)*jitter*factor)
			}
			r := results.Record{Schema: results.RecordSchema, Experiment: m.Experiment, Key: fmt.Sprintf("dataset=%s|item=%d|algorithm=%s", ds, it, alg),
				Dataset: ds, Item: fmt.Sprint(it), Algorithm: alg, AlgorithmName: strings.TrimRight(alg, "0123456789"),
				Seconds: results.Median(times), Times: times}
			b, err := json.Marshal(r)
			if err != nil {
				t.Fatal(err)
			}
			lines = append(lines, string(b))
		}
	}
	add("qcd", "greedy", 10, max(1, greedySlow))
	for _, l := range planted {
		f := 1.0
		if isPlanted {
			f += l.slowdown
		}
		add(plantedDataset, l.label, 20, f)
	}
	m.Tasks = len(lines)
	m.Finished = len(lines)
	if err := os.WriteFile(filepath.Join(dir, results.ResultsFile), []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := m.WriteFile(filepath.Join(dir, results.ManifestFile)); err != nil {
		t.Fatal(err)
	}
}

// TestPairs: 2n runs give 2(n−1) A/A pairs of consecutive runs of one kind and 2n−1 planted
// pairs, each planted run against the baseline runs before and after it; an unfinished round
// gives what its finished runs allow.
func TestPairs(t *testing.T) {
	var runs []*measuredRun
	for i := range 3 {
		runs = append(runs, &measuredRun{name: runName(i, false), round: i}, &measuredRun{name: runName(i, true), planted: true, round: i})
	}
	got := func(runs []*measuredRun) []string {
		var out []string
		for _, p := range pairsOf(runs) {
			out = append(out, fmt.Sprintf("%s %s-%s", p.kind, p.old.name, p.new.name))
		}
		return out
	}
	want := []string{"A/A baseline b00-b01", "A/A baseline b01-b02", "A/A planted p00-p01", "A/A planted p01-p02",
		"planted b00-p00", "planted, reversed b01-p00", "planted b01-p01", "planted, reversed b02-p01", "planted b02-p02"}
	if g := got(runs); !slices.Equal(g, want) {
		t.Errorf("pairs of 6 runs:\n%q\nwant\n%q", g, want)
	}
	if rounds(20) != 11 || rounds(19) != 11 || rounds(1) != 2 {
		t.Errorf("rounds(20, 19, 1) = %d, %d, %d; want 11, 11, 2", rounds(20), rounds(19), rounds(1))
	}
	// b00 p00 b01: the last round lacks its planted run.
	want = []string{"A/A baseline b00-b01", "planted b00-p00", "planted, reversed b01-p00"}
	if g := got(runs[:3]); !slices.Equal(g, want) {
		t.Errorf("pairs of b00 p00 b01: %q, want %q", g, want)
	}
}

// TestFirstRepetitions keeps a record's first k times, with their median as its seconds, and
// leaves the run it cut from as it was.
func TestFirstRepetitions(t *testing.T) {
	r := compareRun([]results.Record{{Key: "a", Times: []float64{5, 1, 3, 9}, Seconds: 4}, {Key: "b", Seconds: 2}})
	c := firstRepetitions(r, 2)
	if a := c.Records[0]; !slices.Equal(a.Times, []float64{5, 1}) || a.Seconds != 3 {
		t.Errorf("cut to 2: times %v seconds %g, want [5 1] and 3", a.Times, a.Seconds)
	}
	if b := c.Records[1]; b.Times != nil || b.Seconds != 2 {
		t.Errorf("a record of one run: %+v", b)
	}
	if !slices.Equal(r.Records[0].Times, []float64{5, 1, 3, 9}) || r.Records[0].Seconds != 4 {
		t.Errorf("the original was changed: %+v", r.Records[0])
	}
	if c := firstRepetitions(r, 1); !slices.Equal(c.Records[0].Timings(), []float64{5}) {
		t.Errorf("cut to 1: timings %v", c.Records[0].Timings())
	}
}

var testGrid = grid{tests: []string{"pooled"}, alphas: []float64{0.05}, threshold: []float64{0.02, 0.08}}

// TestTallies: the counts per setting are those the synthetic times imply. With qcd/greedy 50 %
// slower in b02, the A/A pair (b01, b02) flags it (1 of 4), and no other A/A pair flags
// anything; every planted row is flagged in all 5 planted pairs when its slowdown exceeds the
// threshold (5, 10 and 20 % over 2 %; 10 and 20 % over 8 %), at every K.
func TestTallies(t *testing.T) {
	dir := writeMeasurement(t, 3, map[string]float64{"b02": 1.5})
	ms, err := analyse(context.Background(), []string{dir}, testGrid)
	if err != nil {
		t.Fatal(err)
	}
	m := ms[0]
	if len(m.settings) != 6 {
		t.Fatalf("%d settings, want 2 thresholds × K = 1, 2, 3", len(m.settings))
	}
	for _, s := range m.settings {
		tl := m.tally(s)
		want := tally{AA: 4, AAFlagged: 1, Planted: 5, Detected: []int{5, 5, 5}}
		if s.Threshold == 0.08 {
			want.Detected[0] = 0
		}
		if tl.AA != want.AA || tl.AAFlagged != want.AAFlagged || tl.Planted != want.Planted || !slices.Equal(tl.Detected, want.Detected) {
			t.Errorf("%+v: %+v, want %+v", s, tl, want)
		}
	}
	for i, o := range m.outcomes[setting{"pooled", 0.05, 0.02, 1}] {
		p := m.pairs[o.pair]
		wantFlagged := p.kind == aaBaseline && p.new.name == "b02"
		if got := slices.Contains(o.flagged, "qcd/greedy"); got != wantFlagged {
			t.Errorf("pair %d (%s %s-%s): qcd/greedy flagged %v, want %v (flagged %q)", i, p.kind, p.old.name, p.new.name, got, wantFlagged, o.flagged)
		}
	}
	if _, ok, why := recommend(ms); ok || !strings.Contains(why, "no setting has fewer than 1 A/A pair in 20") {
		t.Errorf("recommended a setting with 1 A/A alarm in 4: %q", why)
	}
}

// TestRecommend: with quiet A/A pairs, the setting with the smallest K, then the smallest
// threshold, that detects the 10 % slowdown is recommended; a measurement that detects nothing
// recommends none and says why.
func TestRecommend(t *testing.T) {
	dir := writeMeasurement(t, 3, nil)
	ms, err := analyse(context.Background(), []string{dir}, testGrid)
	if err != nil {
		t.Fatal(err)
	}
	best, ok, why := recommend(ms)
	if !ok || best != (setting{"pooled", 0.05, 0.02, 1}) {
		t.Errorf("recommended %+v (%v, %q), want pooled, 0.05, 0.02, K = 1", best, ok, why)
	}
	// Thresholds of 25 and 30 %: nothing is flagged at all, so nothing detects 10 %.
	g := grid{tests: []string{"pooled"}, alphas: []float64{0.05}, threshold: []float64{0.25, 0.3}}
	ms, err = analyse(context.Background(), []string{dir}, g)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok, why := recommend(ms); ok || !strings.Contains(why, "detect a 10 % slowdown in at most 0 %") {
		t.Errorf("thresholds above every slowdown: ok %v, %q", ok, why)
	}
	// Two measurements: a setting must meet the aims in both. Here the second's A/A pair
	// (p00, p01) flags qcd/greedy, 50 % slower in p01 (the pair (p01, p02) sees it faster).
	loaded := writeMeasurement(t, 3, map[string]float64{"p01": 1.5})
	lp, _ := readPlan(loaded)
	lp.Load = 1
	b, _ := json.Marshal(lp)
	if err := os.WriteFile(filepath.Join(loaded, planFile), b, 0o644); err != nil {
		t.Fatal(err)
	}
	ms, err = analyse(context.Background(), []string{dir, loaded}, testGrid)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok, _ := recommend(ms); ok {
		t.Error("a setting with A/A alarms in the second measurement was recommended")
	}
	text := table(ms)
	for _, w := range []string{"| pooled | 0.05 | 0.02 | 1 | 0/4 | 5/5 | 5/5 | 5/5 | 1/4 | 5/5 | 5/5 | 5/5 |", "no added load: A/A flagged", "load 1: A/A flagged", "background load: 1 busy thread"} {
		if !strings.Contains(text, w) {
			t.Errorf("the table lacks %q:\n%s", w, text)
		}
	}
}

// TestWriteRegion replaces the region's text and nothing else, and refuses a page without it.
func TestWriteRegion(t *testing.T) {
	page := filepath.Join(t.TempDir(), "nightly.md")
	text := "# N\nbefore\n<!-- begin numbers:nightly.gate -->\nold table\n<!-- end numbers:nightly.gate -->\nafter\n"
	if err := os.WriteFile(page, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := writeRegion(page, "| new |\n| table |"); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(page)
	if want := strings.Replace(text, "old table", "| new |\n| table |", 1); string(b) != want {
		t.Errorf("page:\n%s\nwant\n%s", b, want)
	}
	if err := os.WriteFile(page, []byte("# N\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := writeRegion(page, "x"); err == nil || !strings.Contains(err.Error(), "no block region numbers:nightly.gate") {
		t.Errorf("a page without the region: %v", err)
	}
}

// TestDocsHaveTheRegion: docs/nightly.md has the region report -doc writes.
func TestDocsHaveTheRegion(t *testing.T) {
	b, err := os.ReadFile("../../docs/nightly.md")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), "<!-- begin numbers:"+regionName+" -->") {
		t.Errorf("docs/nightly.md has no region numbers:%s", regionName)
	}
}

// TestPending lists the runs without a complete directory, in run order: a resumed measurement
// runs them and keeps the others.
func TestPending(t *testing.T) {
	dir := writeMeasurement(t, 2, nil)
	p, _ := readPlan(dir)
	p.Rounds = 3
	m, _ := results.ReadManifest(filepath.Join(dir, "p00", results.ManifestFile))
	m.Status = results.StatusRunning
	if err := m.WriteFile(filepath.Join(dir, "p00", results.ManifestFile)); err != nil {
		t.Fatal(err)
	}
	left, total := pending(dir, p)
	var names []string
	for _, l := range left {
		names = append(names, l.name)
	}
	if total != 6 || !slices.Equal(names, []string{"p00", "b02", "p02"}) || !left[0].planted || left[1].planted {
		t.Errorf("pending: %d in all, %+v; want 6, p00 b02 p02", total, left)
	}
}

// TestKeepPlan refuses to resume a directory with another -kmax, -workers, -load or config,
// and accepts another -pairs.
func TestKeepPlan(t *testing.T) {
	dir := t.TempDir()
	p := plan{KMax: 5, Workers: 2, Load: 1, Rounds: 11, ConfigSHA256: "a"}
	if err := keepPlan(dir, p, []byte("cfg")); err != nil {
		t.Fatal(err)
	}
	more := p
	more.Rounds = 12
	if err := keepPlan(dir, more, []byte("cfg")); err != nil {
		t.Errorf("more pairs: %v", err)
	}
	for _, change := range []func(*plan){func(q *plan) { q.KMax = 3 }, func(q *plan) { q.Workers = 1 }, func(q *plan) { q.Load = 0 }, func(q *plan) { q.ConfigSHA256 = "b" }} {
		q := p
		change(&q)
		if err := keepPlan(dir, q, []byte("cfg")); err == nil || !strings.Contains(err.Error(), "measures another setting") {
			t.Errorf("%+v: %v", q, err)
		}
	}
}

// TestMeasurementConfig: the nightly config with reports off and, added, the planted data set
// and one spin entry per level; every entry of the nightly config is kept as it was.
func TestMeasurementConfig(t *testing.T) {
	base := "../../configs/nightly.yaml"
	out, err := measurementConfig(base)
	if err != nil {
		t.Fatal(err)
	}
	type cfg struct {
		Name       string           `yaml:"name"`
		Seed       uint64           `yaml:"seed"`
		Datasets   []map[string]any `yaml:"datasets"`
		Algorithms []any            `yaml:"algorithms"`
		Reports    []string         `yaml:"reports"`
	}
	var before, after cfg
	b, _ := os.ReadFile(base)
	if err := yaml.Unmarshal(b, &before); err != nil {
		t.Fatal(err)
	}
	if err := yaml.Unmarshal(out, &after); err != nil {
		t.Fatal(err)
	}
	if len(after.Reports) != 0 || after.Name != before.Name || after.Seed != before.Seed {
		t.Errorf("reports %v, name %q, seed %d", after.Reports, after.Name, after.Seed)
	}
	nd, na := len(before.Datasets), len(before.Algorithms)
	if len(after.Datasets) != nd+1 || len(after.Algorithms) != na+len(planted) || after.Datasets[nd]["name"] != plantedDataset {
		t.Fatalf("datasets %d → %d, algorithms %d → %d", nd, len(after.Datasets), na, len(after.Algorithms))
	}
	if fmt.Sprint(after.Datasets[:nd]) != fmt.Sprint(before.Datasets) || fmt.Sprint(after.Algorithms[:na]) != fmt.Sprint(before.Algorithms) {
		t.Error("the nightly config's entries changed")
	}
	for i, l := range planted {
		a := after.Algorithms[na+i].(map[string]any)
		if a["name"] != "spin" || a["label"] != l.label || a["slowdown"] != l.slowdown || fmt.Sprint(a["datasets"]) != "["+plantedDataset+"]" {
			t.Errorf("entry %d: %v", i, a)
		}
	}
}

// TestPlantEnvMatches: the driver sets the variable that the planted binary reads.
func TestPlantEnvMatches(t *testing.T) {
	b, err := os.ReadFile("planted/main.go")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), `const PlantEnv = "`+plantEnv+`"`) {
		t.Errorf("planted/main.go does not read %s", plantEnv)
	}
}

// TestUsage: bad flags and commands exit 2 with a message, before anything runs.
func TestUsage(t *testing.T) {
	for _, args := range [][]string{{}, {"frob"}, {"measure"}, {"measure", "-dir", t.TempDir(), "-tests", "welch"},
		{"measure", "-dir", t.TempDir(), "-alphas", "2"}, {"report"}, {"measure", "-dir", ".", "-pairs", "0"}} {
		var out, errOut strings.Builder
		if code := run(context.Background(), args, &out, &errOut); code != 2 || errOut.Len() == 0 {
			t.Errorf("%q: exit %d, stderr %q", args, code, errOut.String())
		}
	}
	var out, errOut strings.Builder
	if code := run(context.Background(), []string{"measure", "-dir", "."}, &out, &errOut); code != 2 || !strings.Contains(errOut.String(), "inside a git checkout") {
		t.Errorf("-dir in the repository: exit %d, %q", code, errOut.String())
	}
}

func compareRun(recs []results.Record) compare.Run { return compare.Run{Records: recs} }

// TestAims: fewer than 1 A/A pair in 20 flagged (1 of 20 is not, 1 of 21 is), and the 10 %
// slowdown flagged in at least 19 pairs of 20 (19 of 20 is, 19 of 21 is not).
func TestAims(t *testing.T) {
	for _, c := range []struct {
		t        tally
		quiet    bool
		detected bool
	}{
		{tally{AA: 20, AAFlagged: 1, Planted: 20, Detected: []int{0, 19, 0}}, false, true},
		{tally{AA: 21, AAFlagged: 1, Planted: 21, Detected: []int{0, 19, 0}}, true, false},
		{tally{AA: 20, AAFlagged: 0, Planted: 21, Detected: []int{21, 20, 21}}, true, true},
		{tally{Detected: []int{0, 0, 0}}, false, false}, // no pairs: nothing is shown
	} {
		if c.t.falseAlarmsOK() != c.quiet || c.t.detects() != c.detected {
			t.Errorf("%+v: false alarms ok %v, detects %v; want %v, %v", c.t, c.t.falseAlarmsOK(), c.t.detects(), c.quiet, c.detected)
		}
	}
}
