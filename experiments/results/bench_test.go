package results

import (
	"bytes"
	"math"
	"net/url"
	"slices"
	"strings"
	"testing"

	"golang.org/x/perf/benchfmt"
	"golang.org/x/perf/benchmath"
)

// benchRecords is a small run: a generated data set (jets) with a trellis, greedy and a label
// ending in -digits, and a labelled one (iris) with an awkward item id and a Bayesian algorithm;
// out of order, with a failure, a −Inf and an unscored tree, and tasks that ran 3 times beside
// tasks that ran once.
func benchRecords() (Manifest, []Record) {
	m := Manifest{
		Experiment: "bench test", Revision: "0123456789abcdef", Modified: true, OS: "linux", Arch: "amd64",
		ConfigHash: "c0ffee", Datasets: []string{"jets", "iris"}, Algorithms: []string{"trellis", "greedy", "beam-10", "bhc"},
	}
	rec := func(ds, item, label, name string, secs float64, ll *LogProb) Record {
		return Record{Schema: RecordSchema, Key: "dataset=" + ds + "|item=" + item + "|algorithm=" + label, Dataset: ds, Item: item,
			Algorithm: label, AlgorithmName: name, Seconds: secs, LogLikelihood: ll}
	}
	recs := []Record{
		rec("iris", "a b/c%", "bhc", "bhc", 0.5, nil),
		rec("jets", "10", "greedy", "greedy", 0.001, Log(-30)),
		rec("jets", "2", "beam-10", "beam", 0.02, Log(-20.25)),
		rec("jets", "2", "greedy", "greedy", 0.002, Log(-21)),
		rec("jets", "2", "trellis", "trellis", 1.5, Log(-20)),
		rec("jets", "10", "trellis", "trellis", 0, nil),
		rec("jets", "10", "beam-10", "beam", 0.25, Log(math.Inf(-1))),
	}
	recs[0].LogEvidence = Log(-123.5)
	recs[0].Metrics = map[string]float64{"dendrogram_purity": 0.875}
	recs[1].Times = []float64{0.0011, 0.001, 0.0009}
	recs[3].Times = []float64{0.003, 0.002, 0.001}
	recs[5].Error = "out of memory"
	recs[1].Counters = map[string]int64{"pair_evals": 32, "merges": 9}
	recs[3].Counters = map[string]int64{"pair_evals": 10, "merges": 0}
	recs[4].Counters = map[string]int64{"splits": 7}
	recs[5].Counters = map[string]int64{"splits": 1000} // failed: left out
	return m, recs
}

// benchLine is a result line of a benchmark file as benchfmt reads it.
type benchLine struct {
	name   string
	parts  []string // decoded name parts after the base name
	values map[string]float64
}

// readBench parses a benchmark file with benchfmt, checking every line: no syntax error, base
// name Hcbench, one iteration, units as written. It returns the result lines, the last line's
// configuration and the unit metadata.
func readBench(t *testing.T, b []byte) ([]benchLine, []benchfmt.Config, benchfmt.UnitMetadataMap) {
	t.Helper()
	var got []benchLine
	var config []benchfmt.Config
	rd := benchfmt.NewReader(bytes.NewReader(b), "bench.txt")
	for rd.Scan() {
		switch r := rd.Result().(type) {
		case *benchfmt.SyntaxError:
			t.Errorf("syntax error: %v", r)
		case *benchfmt.Result:
			base, parts := r.Name.Parts()
			if string(base) != "Hcbench" {
				t.Errorf("%s: base name %q", r.Name, base)
			}
			l := benchLine{name: "Benchmark" + r.Name.String(), values: map[string]float64{}}
			for _, p := range parts {
				s, err := url.PathUnescape(string(p))
				if err != nil {
					t.Errorf("%s: part %q does not unescape: %v", r.Name, p, err)
				}
				l.parts = append(l.parts, s)
			}
			if r.Iters != 1 {
				t.Errorf("%s: %d iterations", r.Name, r.Iters)
			}
			for _, v := range r.Values {
				if v.OrigUnit != "" {
					t.Errorf("%s: unit %q tidied to %q", r.Name, v.OrigUnit, v.Unit)
				}
				l.values[v.Unit] = v.Value
			}
			got = append(got, l)
			config = slices.Clone(r.Config)
		}
	}
	if err := rd.Err(); err != nil {
		t.Fatal(err)
	}
	return got, config, rd.Units()
}

// checkBenchConfig checks the file-level configuration lines of both benchmark files.
func checkBenchConfig(t *testing.T, config []benchfmt.Config) {
	t.Helper()
	want := map[string]string{"experiment": "bench test", "commit": "0123456789abcdef+modified", "goos": "linux", "goarch": "amd64", "config-hash": "c0ffee"}
	if len(config) != len(want) {
		t.Errorf("config %v, want %v", config, want)
	}
	for _, c := range config {
		if !c.File || want[c.Key] != string(c.Value) {
			t.Errorf("config %s = %q (file %v), want %q", c.Key, c.Value, c.File, want[c.Key])
		}
	}
}

func checkBenchLines(t *testing.T, got, want []benchLine) {
	t.Helper()
	if len(got) != len(want) {
		t.Errorf("%d result lines, want %d", len(got), len(want))
	}
	for i := range min(len(got), len(want)) {
		g, w := got[i], want[i]
		if g.name != w.name || !slices.Equal(g.parts, w.parts) {
			t.Errorf("line %d: name %s %q, want %s %q", i, g.name, g.parts, w.name, w.parts)
		}
		if len(g.values) != len(w.values) {
			t.Errorf("line %d (%s): values %v, want %v", i, g.name, g.values, w.values)
		}
		for u, v := range w.values {
			if gv, ok := g.values[u]; !ok || gv != v {
				t.Errorf("line %d (%s): %s = %v (present %v), want %v", i, g.name, u, gv, ok, v)
			}
		}
	}
}

// TestWriteBenchParses: bench.txt holds a line per run of every successful task, named after
// its data set and algorithm (no item), in config order (data set, then algorithm), items in
// numeric order and runs in run order; a task without times gives its seconds once. After a
// row's times, one line holds the total of each work counter over the row's successful tasks;
// the units are declared: sec/op as benchstat assumes it by default, the counters exact.
func TestWriteBenchParses(t *testing.T) {
	m, recs := benchRecords()
	var buf bytes.Buffer
	if err := writeBench(t.Context(), &buf, m, recs); err != nil {
		t.Fatal(err)
	}
	t.Logf("bench.txt:\n%s", buf.String())
	got, config, units := readBench(t, buf.Bytes())
	checkBenchConfig(t, config)
	for unit, assume := range map[string]string{UnitTime: "nothing", "pair-evals": "exact", "merges": "exact", "splits": "exact"} {
		if b := units.Get(unit, "better"); b == nil || b.Value != "lower" {
			t.Errorf("unit %s: better = %v, want lower", unit, b)
		}
		if a := units.Get(unit, "assume"); a == nil || a.Value != assume {
			t.Errorf("unit %s: assume = %v, want %s", unit, a, assume)
		}
	}
	if n := strings.Count(buf.String(), "\nUnit "); n != 4 {
		t.Errorf("%d Unit lines, want 4 (sec/op and 3 counters)", n)
	}
	sec := func(name string, parts []string, v float64) benchLine {
		return benchLine{name, parts, map[string]float64{UnitTime: v}}
	}
	trellis := []string{"/dataset=jets", "/algorithm=trellis"}
	greedy := []string{"/dataset=jets", "/algorithm=greedy"}
	beam := []string{"/dataset=jets", "/algorithm=beam-10"}
	bhc := []string{"/dataset=iris", "/algorithm=bhc"}
	want := []benchLine{
		// The failed trellis on item 10 is left out.
		sec("BenchmarkHcbench/dataset=jets/algorithm=trellis", trellis, 1.5),
		// Its failed task's counters are left out too.
		{"BenchmarkHcbench/dataset=jets/algorithm=trellis", trellis, map[string]float64{"splits": 7}},
		// Item 2's three runs, then item 10's, each in run order.
		sec("BenchmarkHcbench/dataset=jets/algorithm=greedy", greedy, 0.003),
		sec("BenchmarkHcbench/dataset=jets/algorithm=greedy", greedy, 0.002),
		sec("BenchmarkHcbench/dataset=jets/algorithm=greedy", greedy, 0.001),
		sec("BenchmarkHcbench/dataset=jets/algorithm=greedy", greedy, 0.0011),
		sec("BenchmarkHcbench/dataset=jets/algorithm=greedy", greedy, 0.001),
		sec("BenchmarkHcbench/dataset=jets/algorithm=greedy", greedy, 0.0009),
		// The row's counters, each its total over items 2 and 10, once.
		{"BenchmarkHcbench/dataset=jets/algorithm=greedy", greedy, map[string]float64{"pair-evals": 42, "merges": 9}},
		sec("BenchmarkHcbench/dataset=jets/algorithm=beam%2D10", beam, 0.02),
		sec("BenchmarkHcbench/dataset=jets/algorithm=beam%2D10", beam, 0.25),
		sec("BenchmarkHcbench/dataset=iris/algorithm=bhc", bhc, 0.5),
	}
	checkBenchLines(t, got, want)
}

// TestWriteBenchQuality: bench-quality.txt holds, per data set and algorithm, the mean of each
// quality metric over the successful tasks that have it, declared exact, with better= metadata.
func TestWriteBenchQuality(t *testing.T) {
	m, recs := benchRecords()
	var buf bytes.Buffer
	if err := writeBenchQuality(t.Context(), &buf, m, recs); err != nil {
		t.Fatal(err)
	}
	t.Logf("bench-quality.txt:\n%s", buf.String())
	got, config, units := readBench(t, buf.Bytes())
	checkBenchConfig(t, config)
	for unit, better := range map[string]string{"neg-loglik": "lower", "exact-gap": "lower", "neg-log-evidence": "lower", "purity": "higher"} {
		if b := units.Get(unit, "better"); b == nil || b.Value != better {
			t.Errorf("unit %s: better = %v, want %s", unit, b, better)
		}
		if a := units.Get(unit, "assume"); a == nil || a.Value != "exact" {
			t.Errorf("unit %s: assume = %v, want exact", unit, a)
		}
	}
	// The trellis has item 2 only (item 10 failed), so greedy and beam have an exact gap on
	// item 2 alone; beam's item 10 (−Inf) has no log-likelihood. The means are of values
	// exact in binary, so they compare with ==.
	want := []benchLine{
		{"BenchmarkHcbench/dataset=jets/algorithm=trellis", []string{"/dataset=jets", "/algorithm=trellis"},
			map[string]float64{"neg-loglik": 20}},
		{"BenchmarkHcbench/dataset=jets/algorithm=greedy", []string{"/dataset=jets", "/algorithm=greedy"},
			map[string]float64{"neg-loglik": 25.5, "exact-gap": 1}},
		{"BenchmarkHcbench/dataset=jets/algorithm=beam%2D10", []string{"/dataset=jets", "/algorithm=beam-10"},
			map[string]float64{"neg-loglik": 20.25, "exact-gap": 0.25}},
		{"BenchmarkHcbench/dataset=iris/algorithm=bhc", []string{"/dataset=iris", "/algorithm=bhc"},
			map[string]float64{"neg-log-evidence": 123.5, "purity": 0.875}},
	}
	checkBenchLines(t, got, want)
}

func TestWriteBenchUnknownRevision(t *testing.T) {
	var buf bytes.Buffer
	if err := WriteBench(t.Context(), &buf, Manifest{Experiment: "x\ny", Modified: true}, nil, nil); err != nil {
		t.Fatal(err)
	}
	out := buf.String()
	if !strings.Contains(out, "\ncommit: unknown\n") || !strings.HasPrefix(out, "experiment: x y\n") {
		t.Errorf("bench.txt:\n%s", out)
	}
	for _, key := range []string{"goos:", "goarch:", "config-hash:", "Benchmark"} {
		if strings.Contains(out, key) {
			t.Errorf("empty %s written:\n%s", key, out)
		}
	}
}

func TestBenchName(t *testing.T) {
	for _, c := range []struct{ ds, label, want string }{
		{"jets", "greedy", "BenchmarkHcbench/dataset=jets/algorithm=greedy"},
		{"jets", "beam-10", "BenchmarkHcbench/dataset=jets/algorithm=beam%2D10"},
		{"jets", "beam-10x", "BenchmarkHcbench/dataset=jets/algorithm=beam-10x"},
		{"a-1", "b-", "BenchmarkHcbench/dataset=a-1/algorithm=b-"},
		{"d s", "a/b", "BenchmarkHcbench/dataset=d%20s/algorithm=a%2Fb"},
		{"tab\there", "x\u00a0y", "BenchmarkHcbench/dataset=tab%09here/algorithm=x%C2%A0y"},
		{"é", "x%", "BenchmarkHcbench/dataset=é/algorithm=x%25"},
	} {
		if got := BenchName(c.ds, c.label); got != c.want {
			t.Errorf("BenchName(%q, %q) = %s, want %s", c.ds, c.label, got, c.want)
		}
	}
}

// TestWriteBenchMixedBuilds checks the commit line of a run whose sessions used two builds
// (resumed with -allow-other-build): both commits, in session order, each once.
func TestWriteBenchMixedBuilds(t *testing.T) {
	a := Build{Revision: "aaaa", GoVersion: "go1.26.0"}
	b := Build{Revision: "bbbb", Modified: true, GoVersion: "go1.26.0"}
	m := Manifest{Experiment: "x", Revision: "bbbb", Modified: true, Sessions: []Session{{Build: a}, {Build: b}, {Build: a}}}
	var buf bytes.Buffer
	if err := WriteBench(t.Context(), &buf, m, nil, nil); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(buf.String(), "\ncommit: aaaa,bbbb+modified\n") {
		t.Errorf("bench.txt:\n%s", buf.String())
	}
}

// TestBenchDeltaReadsTheRightWay writes two runs in which every quality metric got worse and
// formats each change as benchstat's text table does (benchmath's FormatDelta, new/old − 1,
// which ignores better=): a worse value must read "+" for a better=lower unit and "−" for a
// better=higher one. The reference numbers are the audit's: a log-likelihood falling from
// −52.88 to −52.93 under a trellis MAP of −50 reads +0.09% (neg-loglik 52.88 → 52.93) and
// +1.74% (exact-gap 2.88 → 2.93): both worse, both "+". Evidence −40 → −41 is +2.50%, purity
// 0.9 → 0.8 is −11.11%.
func TestBenchDeltaReadsTheRightWay(t *testing.T) {
	run := func(ll, ev, pur float64) []byte {
		m := Manifest{Experiment: "x", Datasets: []string{"d"}, Algorithms: []string{"trellis", "bhc"}}
		recs := []Record{
			{Schema: RecordSchema, Dataset: "d", Item: "0", Algorithm: "trellis", AlgorithmName: "trellis", Seconds: 1, LogLikelihood: Log(-50)},
			{Schema: RecordSchema, Dataset: "d", Item: "0", Algorithm: "bhc", AlgorithmName: "bhc", Seconds: 1, LogLikelihood: Log(ll),
				LogEvidence: Log(ev), Metrics: map[string]float64{"dendrogram_purity": pur}},
		}
		var buf bytes.Buffer
		if err := writeBenchQuality(t.Context(), &buf, m, recs); err != nil {
			t.Fatal(err)
		}
		return buf.Bytes()
	}
	values := func(b []byte) (map[string]float64, benchfmt.UnitMetadataMap) {
		out := map[string]float64{}
		rd := benchfmt.NewReader(bytes.NewReader(b), "bench.txt")
		for rd.Scan() {
			if r, ok := rd.Result().(*benchfmt.Result); ok && strings.HasSuffix(r.Name.String(), "algorithm=bhc") {
				for _, v := range r.Values {
					out[v.Unit] = v.Value
				}
			}
		}
		if err := rd.Err(); err != nil {
			t.Fatal(err)
		}
		return out, rd.Units()
	}
	oldV, units := values(run(-52.88, -40, 0.9))
	newV, _ := values(run(-52.93, -41, 0.8))
	want := map[string]string{UnitNegLogLikelihood: "+0.09%", UnitExactGap: "+1.74%", UnitNegLogEvidence: "+2.50%", UnitPurity: "-11.11%"}
	for unit, delta := range want {
		o, n := oldV[unit], newV[unit]
		cmp := benchmath.AssumeExact.Compare(benchmath.NewSample([]float64{o}, &benchmath.DefaultThresholds), benchmath.NewSample([]float64{n}, &benchmath.DefaultThresholds))
		got := cmp.FormatDelta(o, n)
		if got != delta {
			t.Errorf("%s: %v → %v reads %s, want %s", unit, o, n, got, delta)
		}
		better := units.Get(unit, "better").Value
		if worse := strings.HasPrefix(got, "+") == (better == "lower"); !worse {
			t.Errorf("%s (better=%s): a worse value reads %s, which says better", unit, better, got)
		}
	}
}
