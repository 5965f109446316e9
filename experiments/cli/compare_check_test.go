package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hcbench/hcbench/experiments/results"
)

// editRecords rewrites the results file of the run in dir, calling edit on each record (as
// decoded JSON, numbers kept as written) with its line's index.
func editRecords(t *testing.T, dir string, edit func(i int, rec map[string]any)) {
	t.Helper()
	path := filepath.Join(dir, results.ResultsFile)
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	for i, line := range bytes.Split(bytes.TrimSpace(data), []byte("\n")) {
		dec := json.NewDecoder(bytes.NewReader(line))
		dec.UseNumber()
		var rec map[string]any
		if err := dec.Decode(&rec); err != nil {
			t.Fatalf("%s:%d: %v", path, i+1, err)
		}
		edit(i, rec)
		b, err := json.Marshal(rec)
		if err != nil {
			t.Fatal(err)
		}
		out.Write(append(b, '\n'))
	}
	if err := os.WriteFile(path, out.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

// editManifest rewrites the manifest of the run in dir through edit.
func editManifest(t *testing.T, dir string, edit func(m *results.Manifest)) {
	t.Helper()
	path := filepath.Join(dir, results.ManifestFile)
	m := readManifest(t, path)
	edit(&m)
	writeManifest(t, path, m)
}

// copyRun copies the run directory src to dst.
func copyRun(t *testing.T, src, dst string) {
	t.Helper()
	if err := os.CopyFS(dst, os.DirFS(src)); err != nil {
		t.Fatal(err)
	}
}

// plantCounters gives every successful record of the run in dir the work counters
// splits = splitsOf(key) and subsets = 7, the same in every run, as an algorithm that counts
// would (the records' order is the order their tasks finished in).
func plantCounters(t *testing.T, dir string) {
	editRecords(t, dir, func(i int, rec map[string]any) {
		if rec["error"] == nil {
			rec["counters"] = map[string]any{"splits": splitsOf(rec["key"].(string)), "subsets": 7}
		}
	})
}

// splitsOf is a task's planted splits counter: 1000 + its key's FNV-1a hash mod 1000.
func splitsOf(key string) int64 {
	h := fnv.New32a()
	h.Write([]byte(key))
	return 1000 + int64(h.Sum32()%1000)
}

// TestCompareCheck is the CI contract of compare -check: two runs of one config (an A/A pair)
// exit 0; NEW with one counter of one record raised by one unit exits 1 and prints that line;
// each thing that keeps the gate from deciding exits 2 (missing run, different config hash,
// different data, a failed task, NEW unfinished); and a regression beside an undecided part
// exits 1.
func TestCompareCheck(t *testing.T) {
	dir := t.TempDir()
	cfg := writeFile(t, dir, "small.yaml", smallConfig)
	a, b := filepath.Join(dir, "a"), filepath.Join(dir, "b")
	runOK(t, "run", cfg, "-out", a)
	runOK(t, "run", cfg, "-out", b)
	plantCounters(t, a)
	plantCounters(t, b)

	stdout := runOK(t, "compare", "-check", a, b)
	if !strings.HasSuffix(stdout, "\nno regressions\n\ncheck: pass (nothing regressed)\n") || !strings.Contains(stdout, "all 2 unchanged") {
		t.Errorf("A/A: output\n%s", stdout)
	}

	// The planted change: splits of the record on line 5 raised by one.
	planted := filepath.Join(dir, "planted")
	copyRun(t, b, planted)
	var item, alg string
	var was int64
	editRecords(t, planted, func(i int, rec map[string]any) {
		if i == 4 {
			was = splitsOf(rec["key"].(string))
			rec["counters"].(map[string]any)["splits"] = was + 1
			item, alg = rec["item"].(string), rec["algorithm"].(string)
		}
	})
	md := filepath.Join(dir, "findings.md")
	code, stdout, stderr := run(t, context.Background(), "compare", "-check", "-markdown", md, a, planted)
	line := "regression counters.splits qcd/" + alg + " "
	if code != ExitFailure || !strings.Contains(stdout, line) || !strings.Contains(stdout, fmt.Sprintf("(+1, any rise; item %s: %d → %d)\n", item, was, was+1)) ||
		!strings.HasSuffix(stdout, "check: regressed (1 regression)\n") {
		t.Errorf("planted counter: exit %d, want 1 with %q\n%s%s", code, line, stdout, stderr)
	}
	if m := mustRead(t, md); !strings.Contains(m, "### hcbench compare -check: regressed") || !strings.Contains(m, "| regression | `counters.splits` | qcd | "+alg+" |") {
		t.Errorf("markdown:\n%s", m)
	}
	// Without -check the regression fails the comparison as before; with -counters above the
	// relative rise it is none.
	if code, _, _ := run(t, context.Background(), "compare", a, planted); code != ExitFailure {
		t.Errorf("compare without -check: exit %d, want 1", code)
	}
	runOK(t, "compare", "-check", "-counters", "0.01", a, planted)

	undecided := func(name, old, new, want string) {
		t.Helper()
		code, stdout, stderr := run(t, context.Background(), "compare", "-check", old, new)
		if code != 2 || !strings.Contains(stdout, want) || !strings.HasSuffix(stdout, "check: undecided (1 undecided)\n") {
			t.Errorf("%s: exit %d, want 2 with %q\n%s%s", name, code, want, stdout, stderr)
		}
	}
	undecided("missing run", a, filepath.Join(dir, "nope"), "undecided: NEW run "+filepath.Join(dir, "nope")+" cannot be read: ")

	other := filepath.Join(dir, "other-config")
	copyRun(t, b, other)
	editManifest(t, other, func(m *results.Manifest) { m.ConfigHash = strings.Repeat("f", 64) })
	undecided("config hash", a, other, "undecided: the config hashes differ (old ")

	data := []results.DataFile{{Dataset: "qcd", File: "qcd.jsonl", SHA256: strings.Repeat("a", 64), Bytes: 100}}
	oldData, newData := filepath.Join(dir, "old-data"), filepath.Join(dir, "new-data")
	copyRun(t, a, oldData)
	copyRun(t, b, newData)
	editManifest(t, oldData, func(m *results.Manifest) { m.DataFiles = data })
	editManifest(t, newData, func(m *results.Manifest) {
		m.DataFiles = []results.DataFile{data[0]}
		m.DataFiles[0].SHA256 = strings.Repeat("b", 64)
	})
	undecided("different data", oldData, newData, "undecided: different data: data set qcd: qcd.jsonl has changed")
	editManifest(t, newData, func(m *results.Manifest) { m.DataFiles = data })
	runOK(t, "compare", "-check", oldData, newData) // the same sums: decided

	failed := filepath.Join(dir, "failed")
	copyRun(t, a, failed)
	editRecords(t, failed, func(i int, rec map[string]any) {
		if i == 2 {
			rec["error"] = "planted failure"
			delete(rec, "counters")
		}
	})
	undecided("failed task in OLD", failed, b, "undecided task qcd/")

	unfinished := filepath.Join(dir, "unfinished")
	copyRun(t, b, unfinished)
	editManifest(t, unfinished, func(m *results.Manifest) { m.Status = results.StatusInterrupted })
	undecided("NEW unfinished", a, unfinished, "undecided: NEW did not finish (interrupted")

	// The planted regression beside an undecided part: what regressed is certain, exit 1.
	editManifest(t, planted, func(m *results.Manifest) { m.ConfigHash = strings.Repeat("f", 64) })
	if code, stdout, _ := run(t, context.Background(), "compare", "-check", a, planted); code != ExitFailure || !strings.HasSuffix(stdout, "check: regressed (1 regression, 1 undecided)\n") {
		t.Errorf("regression and undecided: exit %d, want 1\n%s", code, stdout)
	}

	for _, c := range [][]string{{"-markdown", md, a, b}, {"-time-test", "median", a, b}, {"-alpha", "1", a, b}} {
		if code, _, stderr := run(t, context.Background(), append([]string{"compare"}, c...)...); code != ExitUsage {
			t.Errorf("compare %q: exit %d, want %d\n%s", c, code, ExitUsage, stderr)
		}
	}
	if stdout := runOK(t, "compare", "-check", "-time-test", "stratified", "-alpha", "0.01", a, b); !strings.Contains(stdout, "check: pass") {
		t.Errorf("stratified: %s", stdout)
	}
}
