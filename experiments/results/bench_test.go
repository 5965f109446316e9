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

func ptr(v float64) *float64 { return &v }

// benchRecords is a small run: a generated data set (jets) with a trellis, greedy and a label
// ending in -digits, and a labelled one (iris) with an awkward item id and a Bayesian algorithm;
// out of order, with a failure, a −Inf and an unscored tree.
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
		rec("jets", "2", "greedy", "greedy", 0.001, Log(-21)),
		rec("jets", "2", "trellis", "trellis", 1.5, Log(-20)),
		rec("jets", "10", "trellis", "trellis", 0, nil),
		rec("jets", "10", "beam-10", "beam", 0.25, Log(math.Inf(-1))),
	}
	recs[0].LogEvidence = Log(-123.5)
	recs[0].DendrogramPurity = ptr(0.875)
	recs[5].Error = "out of memory"
	return m, recs
}

func TestWriteBenchParses(t *testing.T) {
	m, recs := benchRecords()
	var buf bytes.Buffer
	if err := WriteBench(&buf, m, recs); err != nil {
		t.Fatal(err)
	}
	t.Logf("bench.txt:\n%s", buf.String())

	type line struct {
		name   string
		parts  []string // decoded name parts after the base name
		values map[string]float64
	}
	var got []line
	var config []benchfmt.Config
	rd := benchfmt.NewReader(&buf, "bench.txt")
	for rd.Scan() {
		switch r := rd.Result().(type) {
		case *benchfmt.SyntaxError:
			t.Errorf("syntax error: %v", r)
		case *benchfmt.Result:
			base, parts := r.Name.Parts()
			if string(base) != "Hcbench" {
				t.Errorf("%s: base name %q", r.Name, base)
			}
			l := line{name: "Benchmark" + r.Name.String(), values: map[string]float64{}}
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

	wantConfig := map[string]string{"experiment": "bench test", "commit": "0123456789abcdef+modified", "goos": "linux", "goarch": "amd64", "config-hash": "c0ffee"}
	if len(config) != len(wantConfig) {
		t.Errorf("config %v, want %v", config, wantConfig)
	}
	for _, c := range config {
		if !c.File || wantConfig[c.Key] != string(c.Value) {
			t.Errorf("config %s = %q (file %v), want %q", c.Key, c.Value, c.File, wantConfig[c.Key])
		}
	}

	units := rd.Units()
	for unit, better := range map[string]string{"neg-loglik": "lower", "exact-gap": "lower", "neg-log-evidence": "lower", "purity": "higher"} {
		if b := units.Get(unit, "better"); b == nil || b.Value != better {
			t.Errorf("unit %s: better = %v, want %s", unit, b, better)
		}
		if a := units.Get(unit, "assume"); a == nil || a.Value != "exact" {
			t.Errorf("unit %s: assume = %v, want exact", unit, a)
		}
	}
	if units.Get("sec/op", "assume") != nil || units.Get("sec/op", "better") != nil {
		t.Error("sec/op has unit metadata; it should keep benchstat's defaults")
	}

	// Plan order: jets before iris (manifest), items 2 before 10 (numeric), algorithms in
	// manifest order; the failed trellis on jets item 10 is left out.
	want := []line{
		{"BenchmarkHcbench/dataset=jets/item=2/algorithm=trellis", []string{"/dataset=jets", "/item=2", "/algorithm=trellis"},
			map[string]float64{"sec/op": 1.5, "neg-loglik": 20}},
		{"BenchmarkHcbench/dataset=jets/item=2/algorithm=greedy", []string{"/dataset=jets", "/item=2", "/algorithm=greedy"},
			map[string]float64{"sec/op": 0.001, "neg-loglik": 21, "exact-gap": 1}},
		{"BenchmarkHcbench/dataset=jets/item=2/algorithm=beam%2D10", []string{"/dataset=jets", "/item=2", "/algorithm=beam-10"},
			map[string]float64{"sec/op": 0.02, "neg-loglik": 20.25, "exact-gap": 0.25}},
		{"BenchmarkHcbench/dataset=jets/item=10/algorithm=greedy", []string{"/dataset=jets", "/item=10", "/algorithm=greedy"},
			map[string]float64{"sec/op": 0.001, "neg-loglik": 30}},
		{"BenchmarkHcbench/dataset=jets/item=10/algorithm=beam%2D10", []string{"/dataset=jets", "/item=10", "/algorithm=beam-10"},
			map[string]float64{"sec/op": 0.25}},
		{"BenchmarkHcbench/dataset=iris/item=a%20b%2Fc%25/algorithm=bhc", []string{"/dataset=iris", "/item=a b/c%", "/algorithm=bhc"},
			map[string]float64{"sec/op": 0.5, "neg-log-evidence": 123.5, "purity": 0.875}},
	}
	if len(got) != len(want) {
		t.Fatalf("%d result lines, want %d", len(got), len(want))
	}
	for i, w := range want {
		g := got[i]
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

func TestWriteBenchUnknownRevision(t *testing.T) {
	var buf bytes.Buffer
	if err := WriteBench(&buf, Manifest{Experiment: "x\ny", Modified: true}, nil); err != nil {
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
	for _, c := range []struct{ ds, item, label, want string }{
		{"jets", "0", "greedy", "BenchmarkHcbench/dataset=jets/item=0/algorithm=greedy"},
		{"jets", "0", "beam-10", "BenchmarkHcbench/dataset=jets/item=0/algorithm=beam%2D10"},
		{"jets", "0", "beam-10x", "BenchmarkHcbench/dataset=jets/item=0/algorithm=beam-10x"},
		{"a-1", "x-2", "b-", "BenchmarkHcbench/dataset=a-1/item=x-2/algorithm=b-"},
		{"d s", "tab\there", "a/b", "BenchmarkHcbench/dataset=d%20s/item=tab%09here/algorithm=a%2Fb"},
		{"jets", "é", "x\u00a0y", "BenchmarkHcbench/dataset=jets/item=é/algorithm=x%C2%A0y"},
	} {
		if got := BenchName(c.ds, c.item, c.label); got != c.want {
			t.Errorf("BenchName(%q, %q, %q) = %s, want %s", c.ds, c.item, c.label, got, c.want)
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
	if err := WriteBench(&buf, m, nil); err != nil {
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
				LogEvidence: Log(ev), DendrogramPurity: ptr(pur)},
		}
		var buf bytes.Buffer
		if err := WriteBench(&buf, m, recs); err != nil {
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
