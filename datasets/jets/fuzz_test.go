package jets_test

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/hcbench/hcbench/datasets/jets"
	"github.com/hcbench/hcbench/internal/limittest"
)

// Allocation bound of Read: allocPerByte times the input, plus allocConst for the 64 KiB read
// buffer and the few messages of bad lines (badlines.Max of them). Per byte the worst case is a
// file of two-byte bad lines ("1\n", "x\n"): each line, though only counted once badlines.Max
// are listed, is decoded into a Jet (350 bytes) with encoding/json's state, and its error made,
// some 700 bytes of garbage for 2 bytes of text. Good lines cost less: each is decoded twice (into
// a Jet, and into raw rows by checkRaw), so that a row "[]," of 3 bytes becomes a [4]float64 and
// a slice header, in slices that grow by a quarter at a time when large and so allocate about 5
// times their final size: some 330 bytes for 3. TestAllocBound measures these shapes at 1 MiB, at
// most 356 per byte; fuzzing found no input above the constant.
const (
	allocPerByte = 512
	allocConst   = 256 << 10
)

func checkAlloc(t *testing.T, what string, a uint64, n int) {
	t.Helper()
	if a > uint64(allocPerByte*n+allocConst) {
		t.Fatalf("%s allocated %d bytes for %d bytes of input (%.0f per byte), more than %d per byte and %d", what, a, n, float64(a)/float64(n), allocPerByte, allocConst)
	}
}

// FuzzRead: Read never panics, allocates within the bound, and returns valid jets with unique
// ids, in line order, which written back read back the same: writing what was read gives the
// bytes that writing it again gives.
func FuzzRead(f *testing.F) {
	for _, s := range []string{
		jet3,
		minimal,
		"\ufeff" + jet3 + "\r\n\n" + minimal + "\n",
		`{"id": 7, "leaves": [[1,0,0,1]], "Lambda": 1, "pt_cut": 1, "logLH": [null], "deltas": [0]}`,
		`{"leaves": [[1,0,0,1]], "Lambda": 1, "pt_cut": 1, "dij": [[1,2,3,4]], "draws": [null]}`,
		`{"leaves": [[1,0,0,1],[1,0,0]], "Lambda": 1, "pt_cut": 1}`,
		`{"leaves": [[1,0,0,1]], "Lambda": 1, "pt_cut": 1, "LambdaRoot": 0}`,
		`{"leaves": [[1,0,0,1],[2,0,0,2]], "Lambda": 1, "pt_cut": 1, "tree": [[1,2],[-1,-1],[-1,-1]], "root_id": 0}`,
		`{"leaves": [[1,0,0,1],[2,0,0,2]], "Lambda": 1, "pt_cut": 1, "tree": [[1,1],[-1,-1],[-1,-1]], "root_id": 0}`,
		`{"leaves": [[1,0,0,1],[2,0,0,2]], "Lambda": 1, "pt_cut": 1, "tree": [[1,2],[-1,-1],[-1,-1]], "root_id": 7}`,
		`{"leaves": [[1,0,0,1],[2,0,0,2]], "Lambda": 1, "pt_cut": 1, "tree": [[2,1],[-1,-1],[-1,-1]], "content": [[3,0,0,3],[1,0,0,1],[2,0,0,2]]}`,
		`{"id": "a", "leaves": [[1,0,0,1]], "Lambda": 1, "pt_cut": 1}` + "\n" + `{"id": "a", "leaves": [[1,0,0,1]], "Lambda": 1, "pt_cut": 1}`,
		`{"leaves": [[1e400,0,0,1]], "Lambda": 1, "pt_cut": 1}`,
		`{"leaves": [[1,0,0,1]], "Lambda": 1, "pt_cut": 1, "likelihood": "x"}`,
		"not json\n{}\n[]\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var js []jets.Jet
		var err error
		a := limittest.Allocated(func() { js, err = jets.Read(bytes.NewReader(data), "f.jsonl") })
		checkAlloc(t, "Read", a, len(data))
		if err != nil {
			if !strings.HasPrefix(err.Error(), "f.jsonl") {
				t.Fatalf("error %q does not name the file", err)
			}
			return
		}
		ids := map[jets.ID]bool{}
		for i := range js {
			j := &js[i]
			if err := j.Validate(); err != nil {
				t.Fatalf("jet %d read, but invalid: %v", i, err)
			}
			if j.Line < 1 || i > 0 && j.Line <= js[i-1].Line {
				t.Fatalf("jet %d on line %d, after line %d", i, j.Line, js[max(i-1, 0)].Line)
			}
			if j.ID != "" && ids[j.ID] {
				t.Fatalf("id %q twice", j.ID)
			}
			ids[j.ID] = true
			if j.HasTruth() {
				if _, err := j.TruthTree(); err != nil {
					t.Fatalf("jet %d: valid, but its tree: %v", i, err)
				}
			}
		}
		var w1, w2 bytes.Buffer
		if err := jets.Write(&w1, js); err != nil {
			t.Fatalf("the jets read do not write: %v", err)
		}
		again, err := jets.Read(bytes.NewReader(w1.Bytes()), "again.jsonl")
		if err != nil {
			t.Fatalf("written back, the jets do not read: %v\n%s", err, w1.Bytes())
		}
		if err := jets.Write(&w2, again); err != nil || !bytes.Equal(w1.Bytes(), w2.Bytes()) {
			t.Fatalf("written back, the jets read differently (%v):\n%s\n%s", err, w1.Bytes(), w2.Bytes())
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
	line := func(key, row string) string {
		return `{"Lambda": 1, "pt_cut": 1, "` + key + `": [` + strings.Repeat(row+",", size/(len(row)+1)) + row + "]}\n"
	}
	for _, c := range []struct{ name, text string }{
		{"empty leaves", line("leaves", "[]")},
		{"zero leaves", line("leaves", "[0,0,0,0]")},
		{"short leaves", line("leaves", "[0]")},
		{"empty tree rows", line("tree", "[]")},
		{"tree", line("tree", "[-1,-1]")},
		{"content", line("content", "[0,0,0,0]")},
		{"deltas", line("deltas", "0")},
		{"logLH", line("logLH", "null")},
		{"unknown", line("other", "[]")},
		{"nested unknown", line("other", "[[[[]]]]")},
		{"bad lines", strings.Repeat("{}\n", size/3)},
		{"numbers", strings.Repeat("1\n", size/2)},
		{"words", strings.Repeat("x\n", size/2)},
		{"lists", strings.Repeat("[]\n", size/3)},
		{"wrong types", strings.Repeat(`{"leaves":1}`+"\n", size/13)},
		{"jets", strings.Repeat(`{"leaves":[[1,0,0,1]],"Lambda":1,"pt_cut":1}`+"\n", size/46)},
		{"ids", func() string {
			var b strings.Builder
			for k := 0; b.Len() < size; k++ {
				fmt.Fprintf(&b, `{"id":%d,"leaves":[[1,0,0,1]],"Lambda":1,"pt_cut":1}`+"\n", k)
			}
			return b.String()
		}()},
	} {
		var err error
		a := limittest.Allocated(func() { _, err = jets.Read(strings.NewReader(c.text), "f.jsonl") })
		checkAlloc(t, "Read of "+c.name, a, len(c.text))
		t.Logf("%s: %.1f bytes per byte (%v)", c.name, float64(a)/float64(len(c.text)), err != nil)
	}
}
