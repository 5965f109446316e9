package metric

import (
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/hcbench/hcbench/algorithms/tree"
	"github.com/hcbench/hcbench/experiments/results"
)

// oldRecord is a record line as builds before the metric table wrote it (a bhc task on labelled
// data, from a bhc-purity run, trimmed): the purities were fields of the record.
const oldRecord = `{"schema":1,"experiment":"bhc-purity","key":"dataset=iris|item=0|algorithm=bhc","dataset":"iris","item":"0","algorithm":"bhc","algorithm_name":"bhc","params":{"alpha":1},"n":4,"seed":"17","newick":"((0,1),(2,3));","leaf_labels":["a","a","b",""],"dendrogram_purity":0.875,"dendrogram_purity_pair":0.8125,"labelled_leaves":3,"flat_purity":1,"adjusted_purity":0.6666666666666666,"log_evidence":-12.5,"clusters":[[0,1],[2,3]],"seconds":0.25}`

// TestOldRecordReads: a record of an earlier build reads with its purities as the metrics of the
// same keys, and writes back the same JSON object (its keys in another order).
func TestOldRecordReads(t *testing.T) {
	recs, err := results.Read(strings.NewReader(oldRecord+"\n"), "old.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	r := recs[0]
	want := map[string]float64{DendrogramPurity: 0.875, DendrogramPurityPair: 0.8125, FlatPurity: 1, AdjustedPurity: 2.0 / 3}
	if !reflect.DeepEqual(r.Metrics, want) || r.LabelledLeaves != 3 {
		t.Errorf("metrics %v, labelled leaves %d; want %v, 3", r.Metrics, r.LabelledLeaves, want)
	}
	if v, ok := Builtin(DendrogramPurity).Of(&r, nil); !ok || v != 0.875 {
		t.Errorf("dendrogram purity of the old record %v (%v)", v, ok)
	}
	b, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	var got, orig map[string]any
	json.Unmarshal(b, &got)
	json.Unmarshal([]byte(oldRecord), &orig)
	if !reflect.DeepEqual(got, orig) {
		t.Errorf("written back:\n%s\nwant the object of\n%s", b, oldRecord)
	}
}

// TestRecordMetricsJSON: NaN and ±Inf are left out, a metric named like a field is an error, and
// a key that holds no number is no metric.
func TestRecordMetricsJSON(t *testing.T) {
	r := results.Record{Key: "k", Metrics: map[string]float64{"a": 0.5, "b": math.NaN(), "c": math.Inf(1)}}
	b, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	if s := string(b); !strings.HasSuffix(s, `,"a":0.5}`) || strings.Contains(s, `"b"`) || strings.Contains(s, `"c"`) {
		t.Errorf("written %s", s)
	}
	r.Metrics = map[string]float64{"Seconds": 1}
	if _, err := json.Marshal(r); err == nil {
		t.Error("a metric named like a field of the record was written")
	}
	var back results.Record
	if err := json.Unmarshal([]byte(`{"key":"k","x":"text","y":null,"z":[1],"w":2}`), &back); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(back.Metrics, map[string]float64{"w": 2}) {
		t.Errorf("metrics read %v, want only w", back.Metrics)
	}
}

// rand is the Rand index (a test-only partition metric) from the contingency table: with
// n_ij points in predicted cluster i and reference cluster j, a_i and b_j its margins and n
// points, the pairs that agree are C(n,2) + 2·Σ C(n_ij,2) − Σ C(a_i,2) − Σ C(b_j,2).
func rand(pred, ref []int) float64 {
	type cell struct{ i, j int }
	nij, a, b := map[cell]int{}, map[int]int{}, map[int]int{}
	for k := range pred {
		nij[cell{pred[k], ref[k]}]++
		a[pred[k]]++
		b[ref[k]]++
	}
	c2 := func(m int) float64 { return float64(m*(m-1)) / 2 }
	sum := func(counts []int) (s float64) {
		for _, m := range counts {
			s += c2(m)
		}
		return s
	}
	pairs := c2(len(pred))
	return (pairs + 2*sum(slices.Collect(maps.Values(nij))) - sum(slices.Collect(maps.Values(a))) - sum(slices.Collect(maps.Values(b)))) / pairs
}

// register registers m for the test and removes it after.
func register(t *testing.T, m Metric) {
	Register(m)
	t.Cleanup(func() { Unregister(m.Key) })
}

// TestPartitionMetric: a partition metric scores the tree cut at each reference's number of
// clusters (metrics.Cut), noise left out, and keeps the best reference; items with labels and no
// references are scored against the labels. The tree ((0,1),(2,(3,4))) without heights cut in 2
// is {0,1} {2,3,4}, in 3 {0,1} {2} {3,4} (the cluster of most items split first); with heights
// that make {0,1} the highest merge below the root, in 3 it is {0} {1} {2,3,4}.
func TestPartitionMetric(t *testing.T) {
	register(t, Metric{Key: "test_rand", Name: "n", Short: "s", Definition: "d", Partition: rand, Needs: NeedsReferences})
	tr, err := tree.FromMerges(5, [][2]int{{0, 1}, {3, 4}, {2, 6}, {5, 7}})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name   string
		in     Input
		want   float64
		absent bool
	}{
		{name: "the cut matches", in: Input{Tree: tr, References: [][]int{{1, 1, 2, 2, 2}}}, want: 1},
		// k = 3: pred {0,1} {2} {3,4}; ref {0,1,2} {3} {4}: pairs agreeing 01 (together), 03 04 13
		// 14 23 24 (apart), 02 12 disagree (together in ref), 34 disagrees: 7 of 10.
		{name: "k = 3", in: Input{Tree: tr, References: [][]int{{1, 1, 1, 2, 3}}}, want: 0.7},
		{name: "the best of two", in: Input{Tree: tr, References: [][]int{{1, 1, 1, 2, 3}, {2, 2, 1, 1, 1}}}, want: 1},
		// Noise (0) left out: leaves 0, 1, 3 with ref {0,1} {3}; k = 2 cuts {0,1} {2,3,4}: all agree.
		{name: "noise left out", in: Input{Tree: tr, References: [][]int{{5, 5, 0, 7, 0}}}, want: 1},
		{name: "labels as the reference", in: Input{Tree: tr, Labels: []string{"x", "x", "y", "y", ""}}, want: 1},
		{name: "heights", in: Input{Tree: tr, Heights: []float64{0, 0, 0, 0, 0, 3, 1, 2, 4}, References: [][]int{{1, 2, 3, 3, 3}}}, want: 1},
		{name: "no reference", in: Input{Tree: tr}, absent: true},
		{name: "only noise", in: Input{Tree: tr, References: [][]int{{0, 0, 0, 0, 0}}}, absent: true},
	} {
		got, ok := ComputeAll(c.in)["test_rand"]
		if ok == c.absent || ok && math.Abs(got-c.want) > 1e-15 {
			t.Errorf("%s: %v (%v), want %v (absent %v)", c.name, got, ok, c.want, c.absent)
		}
	}
}

// TestRegisterRefuses: a bad entry panics at registration, naming the key.
func TestRegisterRefuses(t *testing.T) {
	ok := Metric{Key: "x_ok", Name: "n", Short: "s", Definition: "d", Compute: func(Input) (float64, bool) { return 0, true }}
	for name, edit := range map[string]func(m *Metric){
		"a repeated key":         func(m *Metric) { m.Key = DendrogramPurity },
		"a repeated old key":     func(m *Metric) { m.Key = "purity" },
		"a field of the record":  func(m *Metric) { m.Key = "seconds" },
		"a key with capitals":    func(m *Metric) { m.Key = "Purity2" },
		"two ways to compute":    func(m *Metric) { m.Partition = rand },
		"no way to compute":      func(m *Metric) { m.Compute = nil },
		"bench without a unit":   func(m *Metric) { m.Track = Bench },
		"an unknown ThresholdOf": func(m *Metric) { m.ThresholdOf = "nope" },
		"no definition":          func(m *Metric) { m.Definition = "" },
	} {
		m := ok
		edit(&m)
		func() {
			defer func() {
				if r := recover(); r == nil || !strings.Contains(r.(string), "metric") {
					t.Errorf("%s: recovered %v, want a panic", name, r)
				}
			}()
			Register(m)
			Unregister(m.Key)
		}()
	}
}

// TestBenchColumns: the table's bench-quality.txt columns are those results' own tests use
// (results/table_test.go): units, better= and signs of the built-in metrics, in order.
func TestBenchColumns(t *testing.T) {
	var got []string
	for _, c := range BenchColumns(nil) {
		got = append(got, c.Unit+" "+c.Better+" "+map[bool]string{true: "+", false: "-"}[c.Sign > 0])
	}
	want := []string{"neg-loglik lower -", "exact-gap lower +", "neg-log-evidence lower -", "purity higher +"}
	if !slices.Equal(got, want) {
		t.Errorf("bench columns %q, want %q", got, want)
	}
}

// TestBenchCounters: bench.txt's counters are those results' own tests use (results/
// table_test.go's benchCounters): one per key any record holds, sorted, '-' for '_', lower is
// better, over the successful records that report it.
func TestBenchCounters(t *testing.T) {
	recs := []results.Record{
		{Counters: map[string]int64{"pair_evals": 3, "merges": 0}},
		{Counters: map[string]int64{"pair_evals": 5}, Error: "failed"},
		{},
	}
	var got []string
	for _, c := range BenchCounters(recs) {
		var vals []string
		for i := range recs {
			v, ok := c.Value(&recs[i])
			vals = append(vals, fmt.Sprint(v, ok))
		}
		got = append(got, c.Unit+" "+c.Better+" "+strings.Join(vals, ","))
	}
	want := []string{"merges lower 0 true,0 false,0 false", "pair-evals lower 3 true,0 false,0 false"}
	if !slices.Equal(got, want) {
		t.Errorf("bench counters %q, want %q", got, want)
	}
}

// TestThresholds: the defaults are the tracked metrics'; an old key is read as its metric's; a
// metric without a threshold of its own takes ThresholdOf's; time is among the keys.
func TestThresholds(t *testing.T) {
	def := DefaultThresholds()
	if !reflect.DeepEqual(def, results.Thresholds{LogLikelihood: 1e-6, ExactGap: 1e-6, LogEvidence: 1e-6, DendrogramPurity: 0.001, NCA: 0.001, ARI: 0.001, Time: 0, Counters: 0}) {
		t.Errorf("defaults %v", def)
	}
	old := results.Thresholds{"purity": 0.5, LogLikelihood: 3}
	if got := Resolve(old); got[DendrogramPurity] != 0.5 || got[LogLikelihood] != 3 || got[ExactGap] != 1e-6 {
		t.Errorf("resolved %v", got)
	}
	if got := Builtin(TruthGap).ThresholdIn(old); got != 3 {
		t.Errorf("truth gap threshold %v, want the log-likelihood's 3", got)
	}
	if got := Builtin(MAPShare).ThresholdIn(old); got != 1e-9 {
		t.Errorf("map share threshold %v, want its default", got)
	}
}

// TestSchemas: the record schema has a property per computed metric with its definition and
// range, and no other addition; the manifest's thresholds require every tracked key.
func TestSchemas(t *testing.T) {
	var rec map[string]any
	if err := json.Unmarshal([]byte(RecordJSONSchema()), &rec); err != nil {
		t.Fatal(err)
	}
	p, _ := rec["properties"].(map[string]any)[DendrogramPurity].(map[string]any)
	if p == nil || p["description"] != Builtin(DendrogramPurity).Definition || p["maximum"] != 1.0 {
		t.Errorf("dendrogram_purity property %v", p)
	}
	if _, has := rec["properties"].(map[string]any)[LogLikelihood]; !has {
		t.Error("the record's own log_likelihood property is gone")
	}
	var man map[string]any
	if err := json.Unmarshal([]byte(ManifestJSONSchema()), &man); err != nil {
		t.Fatal(err)
	}
	th := man["$defs"].(map[string]any)["thresholds"].(map[string]any)
	if got := th["required"]; !reflect.DeepEqual(got, []any{LogLikelihood, ExactGap, LogEvidence, DendrogramPurity, NCA, ARI, Time, Counters}) {
		t.Errorf("thresholds required %v", got)
	}
}
