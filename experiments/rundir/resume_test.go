package rundir

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/hcbench/hcbench/experiments/results"
)

// TestResumable: of the run directories named like a config's new runs, the latest unfinished
// run of the same config, build and data that no process holds is the one to resume; a complete
// run, a shard, another config or experiment are not candidates; one locked, of another build
// (unless allowed) or over changed data is passed over with the reason.
func TestResumable(t *testing.T) {
	root := t.TempDir()
	build := results.Build{GoVersion: "go1.26", Executable: "aa"}
	data := []results.DataFile{{Dataset: "q", File: "q.jsonl", SHA256: "11", Bytes: 3}}
	t0 := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	write := func(name string, m results.Manifest, records int) string {
		t.Helper()
		dir := filepath.Join(root, name)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		m.Schema, m.Tool = results.ManifestSchema, "hcbench"
		if m.ConfigHash == "" {
			m.ConfigHash = "h"
		}
		if m.Executable == "" {
			m.Executable = build.Executable
		}
		if m.DataFiles == nil {
			m.DataFiles = data
		}
		m.Sessions = []results.Session{m.NewSession(1, m.Start)}
		if err := m.WriteFile(filepath.Join(dir, results.ManifestFile)); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, results.ResultsFile), []byte(strings.Repeat("{}\n", records)), 0o644); err != nil {
			t.Fatal(err)
		}
		return dir
	}
	at := func(k int) time.Time { return t0.Add(time.Duration(k) * time.Hour) }
	oldest := write("x-20260102-030405", results.Manifest{Status: results.StatusInterrupted, Start: at(0), Tasks: 9}, 2)
	write("x-20260102-040405", results.Manifest{Status: results.StatusComplete, Start: at(1)}, 9)
	write("x-20260102-050405", results.Manifest{Status: results.StatusIncomplete, Start: at(2), Shard: &results.Shard{Index: 0, Count: 2}}, 1)
	write("x-20260102-060405", results.Manifest{Status: results.StatusRunning, Start: at(3), ConfigHash: "other"}, 1)
	write("xy-20260102-070405", results.Manifest{Status: results.StatusInterrupted, Start: at(4)}, 1)
	write("x-notatime", results.Manifest{Status: results.StatusInterrupted, Start: at(5)}, 1)
	killed := write("x-20260102-080405-2", results.Manifest{Status: results.StatusRunning, Start: at(6), Tasks: 9}, 4)

	want := Search{Name: "x", ConfigHash: "h", Build: build, Data: data}
	u, skipped, ok := Resumable(root, want)
	if !ok || u.Dir != killed || u.Recorded != 4 || len(skipped) != 0 {
		t.Fatalf("Resumable: %+v %v %v, want %s with 4 records", u, skipped, ok, killed)
	}
	// Locked by a process still running it: the older interrupted run is taken instead.
	lock, err := Lock(killed, FilesOf(killed, nil))
	if err != nil {
		t.Fatal(err)
	}
	u, skipped, ok = Resumable(root, want)
	lock.Close()
	if !ok || u.Dir != oldest || len(skipped) != 1 || skipped[0].Dir != killed || skipped[0].Why != "another process is running it" {
		t.Errorf("with the latest locked: %s %+v %v, want %s", u.Dir, skipped, ok, oldest)
	}
	other := want
	other.Build = results.Build{GoVersion: "go1.26", Executable: "bb"}
	if _, skipped, ok := Resumable(root, other); ok || len(skipped) != 2 || !strings.Contains(skipped[0].Why, "another build wrote it") {
		t.Errorf("another build: %+v %v, want both passed over", skipped, ok)
	}
	other.AllowOtherBuild = true
	if u, _, ok := Resumable(root, other); !ok || u.Dir != killed {
		t.Errorf("another build allowed: %s %v", u.Dir, ok)
	}
	changed := want
	changed.Data = []results.DataFile{{Dataset: "q", File: "q.jsonl", SHA256: "22", Bytes: 3}}
	if _, skipped, ok := Resumable(root, changed); ok || len(skipped) != 2 || !strings.Contains(skipped[0].Why, "its data files have changed since (data set q: q.jsonl has changed") {
		t.Errorf("changed data: %+v %v", skipped, ok)
	}
	if _, _, ok := Resumable(filepath.Join(root, "none"), want); ok {
		t.Error("a run found under a root that does not exist")
	}
	// A complete run with failed tasks is one to resume for -retry-failed (Failed), only then.
	failed := write("x-20260102-090405", results.Manifest{Status: results.StatusComplete, Start: at(7), Tasks: 9, Failed: 2}, 9)
	if u, _, ok := Resumable(root, want); !ok || u.Dir != killed {
		t.Errorf("a complete run with failures taken without Failed: %s", u.Dir)
	}
	want.Failed = true
	if u, _, ok := Resumable(root, want); !ok || u.Dir != failed || u.Recorded != 9 {
		t.Errorf("with Failed: %s (%d records), want %s", u.Dir, u.Recorded, failed)
	}
}

// TestRetryKeepsFailedRecords: SplitFailed takes out the failed records of the tasks selected
// and leaves the results file alone; once a retry has appended new records, DropSuperseded
// drops the failed records they replace (and only those: a failed task not retried keeps its
// record), and a resume after a retry killed before that (RecoverRecords) takes the new
// record of each task, without a warning of duplicates.
func TestRetryKeepsFailedRecords(t *testing.T) {
	dir := t.TempDir()
	files := FilesOf(dir, nil)
	recs := []results.Record{{Key: "a|x"}, {Key: "b|x", Error: "boom"}, {Key: "c|y", Error: "boom"}, {Key: "d|x"}, {Key: "e|x", Error: "boom"}}
	for i := range recs {
		recs[i].Schema = results.RecordSchema
	}
	if err := rewriteResults(files.Results, recs); err != nil {
		t.Fatal(err)
	}
	kept, failed := SplitFailed(recs, func(k string) bool { return strings.HasSuffix(k, "|x") })
	if len(kept) != 3 || len(failed) != 2 || failed[0].Key != "b|x" || failed[1].Key != "e|x" {
		t.Fatalf("SplitFailed: kept %+v, failed %+v; want b|x and e|x failed", kept, failed)
	}
	if onDisk, err := results.ReadFile(files.Results); err != nil || len(onDisk) != 5 {
		t.Fatalf("SplitFailed changed the results file: %d records, %v", len(onDisk), err)
	}
	// The retry reaches b|x, which succeeds, and is killed before e|x.
	w, err := results.Append(files.Results)
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Write(&results.Record{Schema: results.RecordSchema, Key: "b|x", Seconds: 1}); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	var logged bytes.Buffer
	log := slog.New(slog.NewTextHandler(&logged, nil))
	planned := map[string]bool{"a|x": true, "b|x": true, "c|y": true, "d|x": true, "e|x": true}
	got, err := RecoverRecords(context.Background(), files, planned, log)
	if err != nil {
		t.Fatal(err)
	}
	want := "a|x  c|y boom d|x  e|x boom b|x  "
	if s := keysAndErrors(got); s != want {
		t.Errorf("RecoverRecords after a killed retry: %q, want %q (b|x's new record, e|x's old)", s, want)
	}
	if strings.Contains(logged.String(), "duplicate") || !strings.Contains(logged.String(), "dropped 1 failed record that a retry's records replace") {
		t.Errorf("log:\n%s", &logged)
	}
	// DropSuperseded on the file as the retry left it (RecoverRecords has rewritten it: nothing to drop).
	if n, err := DropSuperseded(files); n != 0 || err != nil {
		t.Errorf("DropSuperseded after RecoverRecords: %d, %v; want 0", n, err)
	}
	if err := rewriteResults(files.Results, append(slices.Clone(recs), results.Record{Schema: results.RecordSchema, Key: "e|x", Error: "again"})); err != nil {
		t.Fatal(err)
	}
	if n, err := DropSuperseded(files); n != 1 || err != nil {
		t.Errorf("DropSuperseded: %d, %v; want 1", n, err)
	}
	onDisk, err := results.ReadFile(files.Results)
	if s := keysAndErrors(onDisk); err != nil || s != "a|x  b|x boom c|y boom d|x  e|x again " {
		t.Errorf("results file after DropSuperseded: %q, %v", s, err)
	}
}

// keysAndErrors lists records' keys and errors, in order.
func keysAndErrors(recs []results.Record) string {
	var b strings.Builder
	for _, r := range recs {
		fmt.Fprintf(&b, "%s %s ", r.Key, r.Error)
	}
	return b.String()
}
