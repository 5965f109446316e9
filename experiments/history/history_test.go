package history

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hcbench/hcbench/experiments/metric"
	"github.com/hcbench/hcbench/experiments/results"
)

// fixture describes generated runs: a nightly experiment over one data set of 9 Ginkgo-like
// items (N = 5, 6 or 7) with truth, greedy, beam and trellis records, one run a day.
type fixture struct {
	// plant changes the records of run i (0-based) in place; nil plants nothing.
	plant func(i int, r *results.Record)
	// manifest changes the manifest of run i; nil changes nothing.
	manifest func(i int, m *results.Manifest)
}

var fixtureStart = time.Date(2026, 1, 1, 2, 0, 0, 0, time.UTC)

// revision is run i's revision: every night a new commit, with a new executable.
func revision(i int) string { return fmt.Sprintf("%06x%034x", 0xabc000+i, 0xbeef) }

// executable is run i's executable hash.
func executable(i int) string { return fmt.Sprintf("%06x%058x", 0xe00000+i, 7) }

// writeRuns writes n run directories under dir and returns them in time order.
func (f fixture) writeRuns(t testing.TB, dir string, n int) []string {
	t.Helper()
	var dirs []string
	for i := range n {
		d := filepath.Join(dir, fmt.Sprintf("nightly-%02d", i+1))
		f.writeRun(t, d, i, results.StatusComplete)
		dirs = append(dirs, d)
	}
	return dirs
}

// writeRun writes run i into d with the given status.
func (f fixture) writeRun(t testing.TB, d string, i int, status string) {
	t.Helper()
	if err := os.MkdirAll(d, 0o755); err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewPCG(uint64(i), 99))
	algs := []string{"truth", "greedy", "beam", "trellis"}
	var recs []results.Record
	for item := range 9 {
		n := 5 + item%3
		mapLL := -50 - float64(item)
		truthLL := mapLL - 0.7
		for _, a := range algs {
			ll := map[string]float64{"truth": truthLL, "greedy": mapLL - 0.25*float64(item%4), "beam": mapLL - 0.1*float64(item%2), "trellis": mapLL}[a]
			base := map[string]float64{"truth": 2e-5, "greedy": 3e-4, "beam": 2e-3, "trellis": 5e-3}[a]
			rec := results.Record{
				Schema: results.RecordSchema, Experiment: "nightly",
				Key:     fmt.Sprintf("dataset=qcd|item=%d|algorithm=%s", item, a),
				Dataset: "qcd", Item: fmt.Sprint(item), Algorithm: a, AlgorithmName: a, N: n,
				LogLikelihood: results.Log(ll), TruthLogLikelihood: results.Log(truthLL),
				// Times with 2 % noise: far below the 5 % tolerance.
				Seconds: base * math.Exp(0.02*r.NormFloat64()),
			}
			if a == "trellis" {
				rec.LogZ = results.Log(mapLL + 1.5)
			}
			// Work counters, the same every night: the trellis's grow as 3^N.
			if a != "truth" {
				rec.Counters = map[string]int64{"evals": int64(10*n + len(a))}
				if a == "trellis" {
					rec.Counters["splits"] = int64(math.Pow(3, float64(n)))
				}
			}
			if f.plant != nil {
				f.plant(i, &rec)
			}
			recs = append(recs, rec)
		}
	}
	w, err := results.Create(filepath.Join(d, results.ResultsFile))
	if err != nil {
		t.Fatal(err)
	}
	for k := range recs {
		if err := w.Write(&recs[k]); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	start := fixtureStart.Add(time.Duration(i) * 24 * time.Hour)
	m := results.Manifest{
		Schema: results.ManifestSchema, Tool: "hcbench", Version: "(devel)",
		Executable: executable(i), Revision: revision(i), RevisionTime: start.Add(-3 * time.Hour).Format(time.RFC3339), RevisionSource: "buildinfo",
		GoVersion: "go1.26.8", Host: "bench1", OS: "linux", Arch: "amd64", CPUs: 2, Workers: 2,
		Experiment: "nightly", Config: "configs/nightly.yaml", Seed: 1, Start: start, End: start.Add(time.Minute),
		Status: status, Tasks: len(recs), Finished: len(recs), ConfigHash: strings.Repeat("c", 64),
		Datasets: []string{"qcd"}, Algorithms: algs, Reports: []string{"summary"},
		Thresholds: results.Thresholds{"log_likelihood": 1e-6, "exact_gap": 1e-6, "log_evidence": 1e-6, "dendrogram_purity": 0.001},
	}
	if status != results.StatusComplete {
		m.Finished = len(recs) / 2
	}
	if f.manifest != nil {
		f.manifest(i, &m)
	}
	if err := m.WriteFile(filepath.Join(d, results.ManifestFile)); err != nil {
		t.Fatal(err)
	}
}

// plantedGap makes greedy worse by 0.3 nats on every item from run 17 (index 16) on.
func plantedGap(i int, r *results.Record) {
	if i >= 16 && r.Algorithm == "greedy" {
		*r.LogLikelihood -= 0.3
	}
}

func openDB(t testing.TB) *DB {
	t.Helper()
	db, err := Open(context.Background(), filepath.Join(t.TempDir(), "history.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

func ingestAll(t testing.TB, db *DB, dirs []string) {
	t.Helper()
	for _, d := range dirs {
		if _, err := db.Ingest(context.Background(), d); err != nil {
			t.Fatal(err)
		}
	}
}

// TestIngestIsIdempotent: ingesting the same runs again, or a copy of a run directory, adds no
// row; every table keeps its count.
func TestIngestIsIdempotent(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	dirs := fixture{}.writeRuns(t, dir, 3)
	db := openDB(t)
	for _, d := range dirs {
		in, err := db.Ingest(ctx, d)
		if err != nil || !in.New || in.Records != 36 {
			t.Fatalf("%s: %+v, %v", d, in, err)
		}
	}
	first, err := db.Counts(ctx)
	if err != nil {
		t.Fatal(err)
	}
	// 3 runs of 3 builds; per run 4 algorithms × (3 N + all N) groups; aggregates: every
	// algorithm has log-likelihood, truth gap (not truth) and time, exact gap and MAP share
	// (not trellis, not... truth has both), log Z (trellis).
	want := map[string]int{"builds": 3, "runs": 3, "groups": 3 * 4 * 4}
	for k, v := range want {
		if first[k] != v {
			t.Errorf("%s: %d rows, want %d", k, first[k], v)
		}
	}
	// Again, and a copy of the last run under another name.
	cp := filepath.Join(dir, "copy")
	fixture{}.writeRun(t, cp, 2, results.StatusComplete)
	for _, d := range append(dirs, cp) {
		in, err := db.Ingest(ctx, d)
		if err != nil || in.New {
			t.Fatalf("%s again: %+v, %v", d, in, err)
		}
	}
	again, err := db.Counts(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range first {
		if again[k] != v {
			t.Errorf("%s: %d rows after ingesting again, %d before", k, again[k], v)
		}
	}
	t.Logf("rows: %v", again)
}

// TestIngestRefuses: a directory that is not a run, one of shards, an interrupted run and a
// file that is not a database are errors that say so.
func TestIngestRefuses(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	db := openDB(t)
	if _, err := db.Ingest(ctx, dir); err == nil || !strings.Contains(err.Error(), "not a run directory") {
		t.Errorf("empty directory: %v", err)
	}
	part := filepath.Join(dir, "part")
	fixture{}.writeRun(t, part, 0, results.StatusInterrupted)
	_, err := db.Ingest(ctx, part)
	if !errors.Is(err, ErrUnfinished) || !strings.Contains(err.Error(), "status interrupted") || !strings.Contains(err.Error(), "-out "+part) {
		t.Errorf("interrupted run: %v", err)
	}
	if c, _ := db.Counts(ctx); c["runs"] != 0 {
		t.Errorf("%d runs in the database after refusals", c["runs"])
	}
	bad := filepath.Join(dir, "bad.db")
	if err := os.WriteFile(bad, bytes.Repeat([]byte("not sqlite "), 100), 0o644); err != nil {
		t.Fatal(err)
	}
	if db, err := Open(ctx, bad); err == nil {
		db.Close()
		t.Error("a text file opened as a database")
	} else if !strings.Contains(err.Error(), "bad.db") || !strings.Contains(err.Error(), "history database") {
		t.Errorf("text file: %v", err)
	}
}

// TestSummarise checks one group's metrics by hand: greedy on N = 5 (items 0, 3, 6).
func TestSummarise(t *testing.T) {
	dir := t.TempDir()
	fixture{}.writeRun(t, dir, 0, results.StatusComplete)
	recs, err := results.ReadFile(filepath.Join(dir, results.ResultsFile))
	if err != nil {
		t.Fatal(err)
	}
	var g *Group
	groups := Summarise(recs)
	for i := range groups {
		if groups[i].GroupKey == (GroupKey{"qcd", "greedy", 5}) {
			g = &groups[i]
		}
	}
	if g == nil {
		t.Fatal("no group qcd greedy N = 5")
	}
	// Items 0, 3, 6: greedy's gaps to the MAP are 0.25·(item mod 4) = 0, 0.75, 0.5.
	want := map[string]float64{
		metric.ExactGap: (0 + 0.75 + 0.5) / 3,
		MetricTruthGap:  ((-0.7 + 0) + (-0.7 + 0.75) + (-0.7 + 0.5)) / 3,
		MetricMAPShare:  1.0 / 3,
	}
	for k, v := range want {
		if math.Abs(g.Values[k]-v) > 1e-12 || g.Items[k] != 3 {
			t.Errorf("%s: %v over %d items, want %v over 3", k, g.Values[k], g.Items[k], v)
		}
	}
	if g.Records != 3 || g.Failed != 0 {
		t.Errorf("records %d, failed %d", g.Records, g.Failed)
	}
	if _, ok := g.Values[MetricLogZ]; ok {
		t.Error("greedy has a log Z")
	}
}

// TestPlantedStepFoundAndBisected: 30 generated runs, greedy 0.3 nats worse from run 17 on.
// Every step found is a regression of a greedy series between runs 16 and 17, the exact gap of
// greedy over all N among them, and -bisect names the two runs and their revisions.
func TestPlantedStepFoundAndBisected(t *testing.T) {
	ctx := context.Background()
	dirs := fixture{plant: plantedGap}.writeRuns(t, t.TempDir(), 30)
	db := openDB(t)
	ingestAll(t, db, dirs)
	h, err := db.Load(ctx, 0)
	if err != nil {
		t.Fatal(err)
	}
	found := h.Changes("")
	var gapAll bool
	for _, f := range found {
		if f.Before != 15 || f.After != 16 || !f.Regression || !f.Persists || f.Series.Algorithm != "greedy" {
			t.Errorf("%s %s %s: %s between runs %d and %d (persists %v)", f.Series.Metric.Key, f.Series.Algorithm, NLabel(f.Series.N), f.Kind(), f.Before+1, f.After+1, f.Persists)
		}
		if f.Series.Metric.Key == metric.ExactGap && f.Series.N == AllN {
			gapAll = true
			if math.Abs(f.To-f.From-0.3) > 1e-9 {
				t.Errorf("exact gap step %g → %g, planted +0.3", f.From, f.To)
			}
		}
	}
	if !gapAll {
		t.Errorf("no step in greedy's exact gap over all N; found %d steps", len(found))
	}
	t.Logf("%d steps found, all at run 17", len(found))

	var b bytes.Buffer
	if err := WriteBisect(&b, h, metric.ExactGap); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	t.Logf("bisect:\n%s", out)
	for _, want := range []string{
		"nightly · qcd · greedy · all N: regression 0.3333 nats → 0.6333 nats",
		"last run before:  2026-01-16 02:00:00Z  revision " + results.Short(revision(15)) + "  " + dirs[15],
		"first run after:  2026-01-17 02:00:00Z  revision " + results.Short(revision(16)) + "  " + dirs[16],
		"git bisect start " + revision(16) + " " + revision(15),
	} {
		if !strings.Contains(out, want) {
			t.Errorf("bisect output lacks %q", want)
		}
	}
	if err := WriteBisect(&b, h, "exact-gapp"); err == nil || !strings.Contains(err.Error(), "exact_gap") {
		t.Errorf("unknown metric: %v", err)
	}
}

// TestNoStepsWithoutPlant: the same 30 runs without the plant show no step at all, the times'
// 2 % noise included.
func TestNoStepsWithoutPlant(t *testing.T) {
	db := openDB(t)
	ingestAll(t, db, fixture{}.writeRuns(t, t.TempDir(), 30))
	h, err := db.Load(context.Background(), 0)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range h.Changes("") {
		t.Errorf("%s %s %s: %s at run %d", f.Series.Metric.Key, f.Series.Algorithm, NLabel(f.Series.N), f.Kind(), f.After+1)
	}
	if n := len(h.Experiments[0].Series); n < 50 {
		t.Errorf("%d series, want every metric of every group", n)
	}
}

// TestLoadLast: -last keeps the latest runs of each experiment.
func TestLoadLast(t *testing.T) {
	db := openDB(t)
	dirs := fixture{plant: plantedGap}.writeRuns(t, t.TempDir(), 30)
	ingestAll(t, db, dirs)
	h, err := db.Load(context.Background(), 10)
	if err != nil {
		t.Fatal(err)
	}
	e := h.Experiments[0]
	if len(e.Runs) != 10 || e.Dropped != 20 || h.Runs != 30 || !e.Runs[0].Start.Equal(fixtureStart.Add(20*24*time.Hour)) {
		t.Errorf("%d runs shown, %d dropped, %d in all, first %v", len(e.Runs), e.Dropped, h.Runs, e.Runs[0].Start)
	}
	// The step at run 17 is before the window: no step.
	if c := h.Changes(""); len(c) != 0 {
		t.Errorf("%d steps in the last 10 runs", len(c))
	}
}

// TestFormatValue: times take the unit that puts them at 1 or more, other units are kept.
func TestFormatValue(t *testing.T) {
	for _, c := range []struct {
		v    float64
		unit string
		want string
	}{
		{8.963e-6, "s", "8.963 µs"}, {0.0015669, "s", "1.567 ms"}, {2.5, "s", "2.5 s"}, {1.2e-7, "s", "120 ns"},
		{3e-12, "s", "0.003 ns"}, {0, "s", "0 s"}, {-0.3, "nats", "-0.3 nats"}, {1.0 / 3, "", "0.3333"},
	} {
		if got := FormatValue(c.v, c.unit); got != c.want {
			t.Errorf("FormatValue(%g, %q) = %q, want %q", c.v, c.unit, got, c.want)
		}
	}
}

// TestRunLength: repeats become [value, count], single values stay, and nothing is lost.
func TestRunLength(t *testing.T) {
	var in []json.RawMessage
	for _, v := range []string{"1", "1", "1", "2", "null", "null", "1", "3", "3"} {
		in = append(in, json.RawMessage(v))
	}
	b, err := json.Marshal(runLength(in))
	if err != nil {
		t.Fatal(err)
	}
	if want := `[[1,3],2,[null,2],1,[3,2]]`; string(b) != want {
		t.Errorf("runLength: %s, want %s", b, want)
	}
	if got := runLength(nil); len(got) != 0 {
		t.Errorf("runLength(nil) = %s", got)
	}
}
