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
