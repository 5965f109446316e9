package results

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// manyRecords is a run of 4 items of each of 5000 algorithm labels: 20,000 successful records,
// bench files of about a megabyte and of 5000 lines.
func manyRecords() (Manifest, []Record) {
	m := Manifest{Experiment: "many", Datasets: []string{"d"}}
	var recs []Record
	for a := range 5000 {
		label := fmt.Sprintf("a%d", a)
		m.Algorithms = append(m.Algorithms, label)
		for item := range 4 {
			recs = append(recs, Record{Schema: RecordSchema, Dataset: "d", Item: fmt.Sprint(item), Algorithm: label, AlgorithmName: "greedy",
				Seconds: 0.001 * float64(item+1), Times: []float64{0.001, 0.002}, LogLikelihood: Log(-float64(a))})
		}
	}
	return m, recs
}

// cancelOnWrite cancels its context at its first Write, which the bench writers make when their
// buffer first fills: the event a cancellation in the middle of the writing stands for.
type cancelOnWrite struct {
	bytes.Buffer
	cancel context.CancelFunc
}

func (w *cancelOnWrite) Write(p []byte) (int, error) {
	w.cancel()
	return w.Buffer.Write(p)
}

// TestWriteBenchCancelled: a context cancelled while bench.txt or bench-quality.txt is being
// written stops the writing within a few thousand records, with the context's error; what was
// written is the start of the whole file.
func TestWriteBenchCancelled(t *testing.T) {
	m, recs := manyRecords()
	for _, c := range []struct {
		name  string
		write func(context.Context, io.Writer, Manifest, []Record) error
	}{{"WriteBench", writeBench}, {"WriteBenchQuality", writeBenchQuality}} {
		var whole bytes.Buffer
		if err := c.write(t.Context(), &whole, m, recs); err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithCancel(t.Context())
		w := &cancelOnWrite{cancel: cancel}
		err := c.write(ctx, w, m, recs)
		if !errors.Is(err, context.Canceled) {
			t.Errorf("%s cancelled while writing: %v, want the context's error", c.name, err)
		}
		if got := w.String(); !strings.HasPrefix(whole.String(), got) || len(got) > whole.Len()/2 {
			t.Errorf("%s cancelled while writing: wrote %d of the whole file's %d bytes, or not its start", c.name, len(got), whole.Len())
		}
		// Cancelled before it starts, it writes no line.
		var none bytes.Buffer
		if err := c.write(ctx, &none, m, recs); !errors.Is(err, context.Canceled) || strings.Contains(none.String(), "Benchmark") {
			t.Errorf("%s with a cancelled context: %v\n%s", c.name, err, none.String())
		}
	}
}

// TestRecordOrders: SortPlanOrder and the bench files' order are the stable sorts of the records
// by ConfigRank and CompareItems (the comparisons they once sorted with, kept here as the
// reference), on records in random order with names outside the config's lists, integer and
// other item ids, and tied records.
func TestRecordOrders(t *testing.T) {
	datasets, algorithms := []string{"jets", "iris", "jets"}, []string{"trellis", "greedy"}
	var recs []Record
	rng := rand.New(rand.NewPCG(1, 2))
	for i := range 3000 {
		recs = append(recs, Record{
			Dataset:   []string{"jets", "iris", "zz", "aa"}[rng.IntN(4)],
			Item:      []string{"7", "07", "10", "-1", "a", "b", "2"}[rng.IntN(7)],
			Algorithm: []string{"trellis", "greedy", "beam", "bhc"}[rng.IntN(4)],
			Seconds:   float64(i), // tells tied records apart
		})
		if rng.IntN(10) == 0 {
			recs[i].Error = "failed"
		}
	}
	dr, ar := ConfigRank(datasets), ConfigRank(algorithms)
	dataset := func(a, b Record) int { return dr(a.Dataset, b.Dataset) }
	algorithm := func(a, b Record) int { return ar(a.Algorithm, b.Algorithm) }
	item := func(a, b Record) int { return CompareItems(a.Item, b.Item) }
	// by compares by the first comparison, then by the next on a tie, and so on.
	by := func(cmps ...func(a, b Record) int) func(a, b Record) int {
		return func(a, b Record) int {
			for _, c := range cmps {
				if r := c(a, b); r != 0 {
					return r
				}
			}
			return 0
		}
	}

	plan := slices.Clone(recs)
	SortPlanOrder(plan, datasets, algorithms)
	want := slices.Clone(recs)
	slices.SortStableFunc(want, by(dataset, item, algorithm))
	if !slices.EqualFunc(plan, want, func(a, b Record) bool { return a.Seconds == b.Seconds }) {
		t.Error("SortPlanOrder differs from the stable sort by data set, item and algorithm")
	}

	m := Manifest{Datasets: datasets, Algorithms: algorithms}
	bench, err := benchOrder(t.Context(), m, recs)
	if err != nil {
		t.Fatal(err)
	}
	want = slices.DeleteFunc(slices.Clone(recs), func(r Record) bool { return r.Error != "" })
	slices.SortStableFunc(want, by(dataset, algorithm, item))
	if !slices.EqualFunc(bench, want, func(a *Record, b Record) bool { return a.Seconds == b.Seconds }) {
		t.Error("the bench files' order differs from the stable sort by data set, algorithm and item")
	}
}
