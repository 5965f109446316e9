package rundir

import (
	"bytes"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hcbench/hcbench/experiments/results"
)

// TestRecoverRepetitions: the repetitions of the tasks still to run are returned by key; a torn
// last line is dropped with a warning, the lines of tasks recorded since (or not planned) and a
// repetition's second line silently; the file is rewritten with what is kept, so that a line
// appended next follows a whole one, and removed when nothing is kept. No file: no repetitions.
func TestRecoverRepetitions(t *testing.T) {
	dir := t.TempDir()
	files := FilesOf(dir, &results.Shard{Index: 1, Count: 2})
	if filepath.Base(files.Repetitions) != "repetitions-shard-1-of-2.jsonl" {
		t.Errorf("shard's repetitions file %s", files.Repetitions)
	}
	var logged bytes.Buffer
	log := slog.New(slog.NewTextHandler(&logged, nil))
	open := func(key string) bool { return key != "done" }
	if reps, err := RecoverRepetitions(files, open, log); err != nil || len(reps) != 0 {
		t.Fatalf("no file: %v, %v", reps, err)
	}
	rec := &results.Record{Schema: results.RecordSchema, Key: "a"}
	lines := `{"key":"a","repetition":1,"seconds":0.5,"digest":"d","record":{"schema":1,"key":"a","seconds":0}}
{"key":"done","repetition":1,"seconds":0.1,"digest":"d"}
{"key":"a","repetition":2,"seconds":0.25,"digest":"d"}
{"key":"a","repetition":2,"seconds":9,"digest":"d"}
{"key":"b","repetition":1,"seconds":0.75,"digest":"e","record":{"schema":1,"key":"b","seconds":0}}
{"key":"b","repetit`
	if err := os.WriteFile(files.Repetitions, []byte(lines), 0o644); err != nil {
		t.Fatal(err)
	}
	reps, err := RecoverRepetitions(files, open, log)
	if err != nil {
		t.Fatal(err)
	}
	if a, b := reps["a"], reps["b"]; len(reps) != 2 || len(a) != 2 || a[0].Record == nil || a[0].Record.Key != rec.Key || a[1].Seconds != 0.25 || len(b) != 1 || b[0].Seconds != 0.75 {
		t.Errorf("repetitions %+v", reps)
	}
	if !strings.Contains(logged.String(), "dropped 1 torn or damaged line") {
		t.Errorf("log:\n%s", logged.String())
	}
	kept, dropped, err := results.ReadRepetitions(files.Repetitions)
	if err != nil || dropped != 0 || len(kept) != 3 {
		t.Errorf("file after recovery: %d lines, %d dropped, %v; want the 3 kept", len(kept), dropped, err)
	}

	// Every task recorded since: the file goes.
	if reps, err := RecoverRepetitions(files, func(string) bool { return false }, log); err != nil || len(reps) != 0 {
		t.Errorf("all recorded: %v, %v", reps, err)
	}
	if _, err := os.Stat(files.Repetitions); !os.IsNotExist(err) {
		t.Errorf("file left with no repetition to keep: %v", err)
	}
}
