package results

import (
	"bytes"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/hcbench/hcbench/internal/limittest"
)

// Allocation bound of Read: allocPerByte times the input, plus allocConst for the 64 KiB read
// buffer. Read stops at the first bad line, so only good records cost per byte. The worst cases
// are many small records, and long lists of small entries. The smallest record, `{"schema":1}`
// (13 bytes), is a Record of 496 bytes in a slice that doubles (about 2 to 4 times its final size
// allocated in all), with encoding/json's state for decoding it twice (see Record.UnmarshalJSON):
// some 1800 bytes. A merge "{}," of 3 bytes becomes a Merge of 64 bytes in a slice that grows by a
// quarter at a time, so that about 5 times its final size is allocated, besides the raw copy of
// the list: some 370 bytes. TestAllocBound measures these shapes at 1 MiB, at most 142 per byte
// (323 before Read decoded in place into a doubling slice); fuzzing found no input above the
// constant.
const (
	allocPerByte = 256
	allocConst   = 256 << 10
)

func checkAlloc(t *testing.T, what string, a uint64, n int) {
	t.Helper()
	if a > uint64(allocPerByte*n+allocConst) {
		t.Fatalf("%s allocated %d bytes for %d bytes of input (%.0f per byte), more than %d per byte and %d", what, a, n, float64(a)/float64(n), allocPerByte, allocConst)
	}
}

// encode writes records as Writer does, one line each.
func encode(t *testing.T, recs []Record) []byte {
	t.Helper()
	var b bytes.Buffer
	for i := range recs {
		line, err := recs[i].marshalLine()
		if err != nil {
			t.Fatalf("record %d read, but does not write: %v", i, err)
		}
		b.Write(line)
	}
	return b.Bytes()
}

// FuzzRead: Read never panics, allocates within the bound, and returns records of this schema,
// which written back read back the same: writing what was read gives the bytes that writing it
// again gives.
func FuzzRead(f *testing.F) {
	full := Record{
		Schema: RecordSchema, Experiment: "e", Key: "dataset=d|item=0|algorithm=t", Dataset: "d", Item: "0",
		Algorithm: "t", AlgorithmName: "trellis", Params: map[string]any{"mode": "map", "threads": 2.0, "nested": map[string]any{"a": []any{1.0, "x", nil, true}}},
		DataParams: map[string]any{"generator": "ginkgo"}, N: 3, Seed: 1<<63 + 5, LogLikelihood: Log(-3.5), TruthLogLikelihood: Log(-1e300),
		Newick: "((0,1),2);", LogZ: Log(0), Marginals: &Marginals{MAPClusters: []ClusterMarginal{{Cluster: []int{0, 1}, P: 0.5}}, TopClusters: []ClusterMarginal{}},
		Samples: []TreeSample{{Newick: "(0,1);", LogLikelihood: -2}}, LeafNames: []string{"a", "b", "c"}, LeafLabels: []string{"x", "", "y"},
		LeafPositions: []int{1, 2, 3}, Clusters: [][]int{{0}, {1, 2}}, Merges: []Merge{{Node: 3, Children: [2]int{0, 1}, Size: 2, LogR: -1}},
		Seconds: 0.25, Error: "boom", Warnings: []string{"w"},
	}
	line, err := full.marshalLine()
	if err != nil {
		f.Fatal(err)
	}
	for _, s := range []string{
		string(line),
		`{"schema":1,"key":"a"}` + "\n" + `{"schema":1,"key":"b"}` + "\n",
		`{"schema":1,"key":"a","log_likelihood":null,"log_z":null,"truth_log_likelihood":-1}` + "\n",
		`{"schema":1,"merges":[{"log_ml":null,"log_r":null}],"samples":[{"log_likelihood":null}]}` + "\n",
		"\n  \n" + `{"schema":1}` + "\r\n",
		`{"schema":1,"key":"a"}`,
		`{"schema":1,"key":` + "\n",
		`{"schema":2}` + "\n",
		`{"schema":1,"seed":7}` + "\n",
		`{"schema":1,"seed":"18446744073709551615","n_trees":1e308}` + "\n",
		`{"schema":1,"params":{"a":1e400}}` + "\n",
		"garbage\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var recs []Record
		var err error
		a := limittest.Allocated(func() { recs, err = Read(bytes.NewReader(data), "r.jsonl") })
		checkAlloc(t, "Read", a, len(data))
		if err != nil {
			if !strings.HasPrefix(err.Error(), "r.jsonl") {
				t.Fatalf("error %q does not name the file", err)
			}
			return
		}
		for i := range recs {
			if recs[i].Schema != RecordSchema {
				t.Fatalf("record %d has schema %d", i, recs[i].Schema)
			}
		}
		w1 := encode(t, recs)
		again, err := Read(bytes.NewReader(w1), "again.jsonl")
		if err != nil || len(again) != len(recs) {
			t.Fatalf("written back, the records do not read (%d of %d): %v\n%s", len(again), len(recs), err, w1)
		}
		if w2 := encode(t, again); !bytes.Equal(w1, w2) {
			t.Fatalf("written back, the records read differently:\n%s\n%s", w1, w2)
		}
	})
}

// TestAllocBound holds Read to the fuzz target's allocation bound on the inputs that allocate
// most per byte, 1 MiB of each: fuzzing explores small inputs, where the constant hides the slope.
func TestAllocBound(t *testing.T) {
	if testing.Short() {
		t.Skip("reads some MiB")
	}
	const size = 1 << 20
	line := func(key, entry string) string {
		return `{"schema":1,"` + key + `":[` + strings.Repeat(entry+",", size/(len(entry)+1)) + entry + "]}\n"
	}
	for _, c := range []struct{ name, text string }{
		{"records", strings.Repeat(`{"schema":1}`+"\n", size/13)},
		{"merges", line("merges", "{}")},
		{"samples", line("samples", "{}")},
		{"clusters", line("clusters", "[]")},
		{"positions", line("leaf_positions", "0")},
		{"names", line("leaf_names", `""`)},
		{"warnings", line("warnings", `""`)},
		{"marginals", `{"schema":1,"marginals":{"map_clusters":[` + strings.Repeat("{},", size/3) + "{}]}}\n"},
		{"params list", `{"schema":1,"params":{"a":[` + strings.Repeat("{},", size/3) + "{}]}}\n"},
		{"params nested", `{"schema":1,"params":{"a":` + strings.Repeat("[", 9000) + strings.Repeat("]", 9000) + "}}\n"},
		{"params keys", func() string {
			var b strings.Builder
			b.WriteString(`{"schema":1,"params":{`)
			for k := 0; b.Len() < size; k++ {
				fmt.Fprintf(&b, `"%d":0,`, k)
			}
			return b.String() + `"x":0}}` + "\n"
		}()},
		{"unknown keys", func() string {
			var b strings.Builder
			b.WriteString(`{"schema":1`)
			for k := 0; b.Len() < size; k++ {
				fmt.Fprintf(&b, `,"%d":0`, k)
			}
			return b.String() + "}\n"
		}()},
	} {
		var err error
		a := limittest.Allocated(func() { _, err = Read(strings.NewReader(c.text), "r.jsonl") })
		checkAlloc(t, "Read of "+c.name, a, len(c.text))
		t.Logf("%s: %.1f bytes per byte (%v)", c.name, float64(a)/float64(len(c.text)), err)
	}
}

// TestNullLogProbAnyCase: encoding/json matches keys case-insensitively, so a null under any
// spelling of a log-probability's key is −Inf, as under its own (it read as absent before
// Record.UnmarshalJSON matched keys as encoding/json does).
func TestNullLogProbAnyCase(t *testing.T) {
	recs, err := Read(strings.NewReader(`{"schema":1,"LOG_likelihood":null,"Log_Z":-2}`+"\n"), "r.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	if r := recs[0]; r.LogLikelihood == nil || r.LogLikelihood.Value() != math.Inf(-1) || r.LogZ == nil || *r.LogZ != -2 {
		t.Errorf("log_likelihood %v, log_z %v", r.LogLikelihood, r.LogZ)
	}
}
