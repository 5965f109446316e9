package cli

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// returnsLimit is how long a command that must fail at once may take before a test takes it for
// hung: far beyond what it needs on a loaded machine, so that only a hang reaches it.
const returnsLimit = 2 * time.Minute

// runReturns runs the command in-process and fails the test when it does not return within
// returnsLimit (its goroutine is then left running).
func runReturns(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	type result struct {
		code           int
		stdout, stderr string
	}
	done := make(chan result, 1)
	go func() {
		code, stdout, stderr := run(t, context.Background(), args...)
		done <- result{code, stdout, stderr}
	}()
	select {
	case r := <-done:
		return r.code, r.stdout, r.stderr
	case <-time.After(returnsLimit):
		t.Fatalf("%s did not return in %v: it hangs", strings.Join(args, " "), returnsLimit)
		return 0, "", ""
	}
}

// TestDefaultRunDirError: without -out, run and merge name a new directory under runs/; when
// they cannot tell whether a name is free (a file named runs, a config name too long for a file
// name), they say so and exit 1 instead of trying the next suffix forever.
func TestDefaultRunDirError(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	cfg := writeFile(t, dir, "small.yaml", smallConfig)
	shards := filepath.Join(dir, "shards")
	runOK(t, "run", cfg, "-out", shards, "-shard", "0/2")
	runOK(t, "run", cfg, "-out", shards, "-shard", "1/2")
	writeFile(t, dir, "runs", "not a directory\n")

	for _, args := range [][]string{{"run", cfg}, {"merge", shards}} {
		code, stdout, stderr := runReturns(t, args...)
		want := "runs is not a directory, and runs/ is where a run directory goes without -out"
		if code != ExitFailure || !strings.Contains(stderr, want) {
			t.Errorf("%s with a file named runs: exit %d\n%s%s\nwant exit %d and %q", args[0], code, stdout, stderr, ExitFailure, want)
		}
	}

	// With runs/ there, the name too long is found when the first name is tried.
	if err := os.Remove("runs"); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir("runs", 0o755); err != nil {
		t.Fatal(err)
	}
	long := strings.Repeat("n", 300) // more than the 255 bytes of a file name almost everywhere
	code, stdout, stderr := runReturns(t, "run", cfg, "-set", "name="+long)
	if code != ExitFailure || !strings.Contains(stderr, "cannot choose a new run directory: ") || !strings.Contains(stderr, "give one with -out DIR") {
		t.Errorf("a config name of 300 characters: exit %d\n%s%s", code, stdout, stderr)
	}
	if code, stdout, stderr := run(t, context.Background(), "run", cfg); code != ExitOK {
		t.Errorf("where runs/ can be made: exit %d\n%s%s", code, stdout, stderr)
	}
}

// TestHistoryPlaces: history keeps its database and page under runs/ by default (git ignores
// it: in a checkout, files in its top made every build +dirty and every record modified), makes
// the database's directory when missing (the -db history/history.db of docs/nightly.md failed,
// taken for "not a history database"), and makes no database when it adds no run.
func TestHistoryPlaces(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	cfg := writeFile(t, dir, "nightly.yaml", historyConfig)
	runOK(t, "run", cfg, "-out", "good")
	out := runOK(t, "history", "good")
	for _, f := range []string{filepath.Join("runs", "history.db"), filepath.Join("runs", "history.html")} {
		if _, err := os.Stat(f); err != nil || !strings.Contains(out, f) {
			t.Errorf("history without -db: %s: %v\n%s", f, err, out)
		}
	}
	entries, _ := os.ReadDir(".")
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	if strings.Join(names, " ") != "good nightly.yaml runs" {
		t.Errorf("after history, the directory holds %v; want good, nightly.yaml and runs", names)
	}

	runOK(t, "history", "-db", filepath.Join("history", "deeper", "h.db"), "good")
	for _, f := range []string{"h.db", "history.html"} {
		if _, err := os.Stat(filepath.Join("history", "deeper", f)); err != nil {
			t.Errorf("-db in a new directory: %v", err)
		}
	}

	// No run added: no database, nor its hidden file while it was written.
	code, _, stderr := run(t, context.Background(), "history", "-db", filepath.Join("none", "new.db"))
	if left, _ := os.ReadDir("none"); code != ExitFailure || !strings.Contains(stderr, "holds no run yet") || len(left) > 0 {
		t.Errorf("history without runs: exit %d, %d files left in none/\n%s", code, len(left), stderr)
	}
	// The hint that the file is no database is for a file that is none.
	writeFile(t, dir, "text.db", "not a database\n")
	if code, _, stderr := run(t, context.Background(), "history", "-db", "text.db", "good"); code != ExitFailure || !strings.Contains(stderr, "(is this an hcbench history database?)") {
		t.Errorf("-db a text file: exit %d\n%s", code, stderr)
	}
	if code, _, stderr := run(t, context.Background(), "history", "-db", "good", "good"); code != ExitFailure || strings.Contains(stderr, "is this an hcbench history database?") {
		t.Errorf("-db a directory: exit %d\n%s", code, stderr)
	}
}
