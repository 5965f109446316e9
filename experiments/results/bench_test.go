package results

import (
	"bytes"
	"math"
	"net/url"
	"slices"
	"strings"
	"testing"

	"golang.org/x/perf/benchfmt"
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
	for unit, better := range map[string]string{"loglik": "higher", "exact-gap": "lower", "log-evidence": "higher", "purity": "higher"} {
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
			map[string]float64{"sec/op": 1.5, "loglik": -20}},
		{"BenchmarkHcbench/dataset=jets/item=2/algorithm=greedy", []string{"/dataset=jets", "/item=2", "/algorithm=greedy"},
			map[string]float64{"sec/op": 0.001, "loglik": -21, "exact-gap": 1}},
		{"BenchmarkHcbench/dataset=jets/item=2/algorithm=beam%2D10", []string{"/dataset=jets", "/item=2", "/algorithm=beam-10"},
			map[string]float64{"sec/op": 0.02, "loglik": -20.25, "exact-gap": 0.25}},
		{"BenchmarkHcbench/dataset=jets/item=10/algorithm=greedy", []string{"/dataset=jets", "/item=10", "/algorithm=greedy"},
			map[string]float64{"sec/op": 0.001, "loglik": -30}},
		{"BenchmarkHcbench/dataset=jets/item=10/algorithm=beam%2D10", []string{"/dataset=jets", "/item=10", "/algorithm=beam-10"},
			map[string]float64{"sec/op": 0.25}},
		{"BenchmarkHcbench/dataset=iris/item=a%20b%2Fc%25/algorithm=bhc", []string{"/dataset=iris", "/item=a b/c%", "/algorithm=bhc"},
			map[string]float64{"sec/op": 0.5, "log-evidence": -123.5, "purity": 0.875}},
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
