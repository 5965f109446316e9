package results

import (
	"bytes"
	"context"
	"errors"
	"math"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

func TestRecordJSONNegInf(t *testing.T) {
	// −Inf is written as null and read back as −Inf; an absent field stays absent.
	r := Record{Schema: RecordSchema, Key: "k", LogLikelihood: Log(math.Inf(-1)), Params: map[string]any{}}
	var buf bytes.Buffer
	b, err := r.marshalLine()
	if err != nil {
		t.Fatal(err)
	}
	buf.Write(b)
	if !strings.Contains(buf.String(), `"log_likelihood":null`) || strings.Contains(buf.String(), "truth_log_likelihood") {
		t.Fatalf("encoded %s", buf.String())
	}
	recs, err := Read(&buf, "mem")
	if err != nil {
		t.Fatal(err)
	}
	if got := recs[0]; got.LogLikelihood == nil || !math.IsInf(float64(*got.LogLikelihood), -1) || got.TruthLogLikelihood != nil {
		t.Errorf("decoded log_likelihood %v, truth %v", got.LogLikelihood, got.TruthLogLikelihood)
	}
	if _, err := Log(math.NaN()).MarshalJSON(); err == nil {
		t.Error("NaN encoded without error")
	}
}

func TestReadErrorsNameTheLine(t *testing.T) {
	in := `{"schema":1,"key":"a"}` + "\n" + `{"schema":1,"key":` + "\n"
	_, err := Read(strings.NewReader(in), "results.jsonl")
	if err == nil || !strings.Contains(err.Error(), "results.jsonl:2:") {
		t.Errorf("error %v, want one naming line 2", err)
	}
	_, err = Read(strings.NewReader(`{"schema":99,"key":"a"}`+"\n"), "results.jsonl")
	if err == nil || !strings.Contains(err.Error(), "schema 99") {
		t.Errorf("error %v, want one naming the schema", err)
	}
}

func TestWriterConcurrentLinesStayWhole(t *testing.T) {
	path := filepath.Join(t.TempDir(), "r.jsonl")
	w, err := Create(path)
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Go(func() {
			for j := range 50 {
				r := Record{Schema: RecordSchema, Key: strings.Repeat("x", 100*i+j), LogLikelihood: Log(-float64(j))}
				if err := w.Write(&r); err != nil {
					t.Error(err)
				}
			}
		})
	}
	wg.Wait()
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	recs, err := ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) != 400 {
		t.Errorf("%d records, want 400", len(recs))
	}
}

// TestRecover checks the resume path: a torn last line (no newline) is cut off the file and
// reported, the whole records before it are kept, and appending after it gives whole lines; a
// corrupt complete line is an error naming its line; a missing file holds nothing.
func TestRecover(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "results.jsonl")
	whole := `{"schema":1,"key":"a"}` + "\n" + `{"schema":1,"key":"b"}` + "\n"
	if err := os.WriteFile(path, []byte(whole+`{"schema":1,"ke`), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadFile(path); err == nil || !strings.Contains(err.Error(), "results.jsonl:3: torn last record") {
		t.Errorf("Read of a torn file: %v", err)
	}
	recs, torn, err := Recover(path)
	if err != nil || len(recs) != 2 || !strings.Contains(torn, ":3: dropped a torn last record (15 bytes") {
		t.Fatalf("Recover: %d records, torn %q, err %v", len(recs), torn, err)
	}
	if b, _ := os.ReadFile(path); string(b) != whole {
		t.Errorf("file after Recover: %q", b)
	}
	w, err := Append(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Write(&Record{Schema: RecordSchema, Key: "c"}); err != nil {
		t.Fatal(err)
	}
	w.Close()
	if recs, err := ReadFile(path); err != nil || len(recs) != 3 || recs[2].Key != "c" {
		t.Errorf("after appending: %v, %v", recs, err)
	}
	if err := os.WriteFile(path, []byte(`{"schema":1,"key":"a"}`+"\n"+"garbage\n"+`{"schema":1,"key":"b"}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, _, err := Recover(path); err == nil || !strings.Contains(err.Error(), "results.jsonl:2: not a result record") {
		t.Errorf("corrupt line: %v", err)
	}
	if recs, torn, err := Recover(filepath.Join(dir, "none.jsonl")); recs != nil || torn != "" || err != nil {
		t.Errorf("missing file: %v %q %v", recs, torn, err)
	}
}

// TestRecoverContext: reading the records to resume stops once the context is cancelled, with its
// error, so that Ctrl-C during a resume of a large run ends it at once.
func TestRecoverContext(t *testing.T) {
	path := filepath.Join(t.TempDir(), "results.jsonl")
	line := `{"schema":1,"key":"a"}` + "\n"
	if err := os.WriteFile(path, []byte(strings.Repeat(line, 100000)), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if recs, _, err := RecoverContext(ctx, path); recs != nil || !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: %d records, %v", len(recs), err)
	}
	if recs, _, err := RecoverContext(context.Background(), path); err != nil || len(recs) != 100000 {
		t.Errorf("not cancelled: %d records, %v", len(recs), err)
	}
}
