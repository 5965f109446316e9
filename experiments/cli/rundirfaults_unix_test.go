//go:build unix

package cli

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/hcbench/hcbench/experiments/results"
)

// TestRunDirSymlinks: a symbolic link in place of a file or directory that a run writes in its
// directory (planted, or left by a copy) is refused with a message naming it, and what it names is
// left as it was: a link named .reserve had the run write 256 KiB of zeros over its target.
func TestRunDirSymlinks(t *testing.T) {
	dir := t.TempDir()
	cfg := writeFile(t, dir, "small.yaml", smallConfig)
	victim := writeFile(t, dir, "victim", "victim\n")
	for _, name := range []string{".lock", ".reserve", results.LogFile, results.ResultsFile} {
		out := filepath.Join(dir, "run"+name)
		if err := os.Mkdir(out, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(victim, filepath.Join(out, name)); err != nil {
			t.Skipf("no symbolic links: %v", err)
		}
		code, stdout, stderr := run(t, context.Background(), "run", cfg, "-out", out)
		want := filepath.Join(out, name) + " is a symbolic link (to " + victim + ")"
		if code != ExitFailure || !strings.Contains(stderr, want) {
			t.Errorf("%s a link: exit %d\n%s%s\nwant exit %d and %q", name, code, stdout, stderr, ExitFailure, want)
		}
		if b := mustRead(t, victim); b != "victim\n" {
			t.Errorf("%s a link: the file it names now holds %d bytes", name, len(b))
		}
	}

	// reports/ a link to another directory: report refuses to write into it.
	out := filepath.Join(dir, "run")
	runOK(t, "run", cfg, "-out", out)
	elsewhere := filepath.Join(dir, "elsewhere")
	if err := os.Mkdir(elsewhere, 0o755); err != nil {
		t.Fatal(err)
	}
	reportsDir := filepath.Join(out, results.ReportsDir)
	if err := os.RemoveAll(reportsDir); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(elsewhere, reportsDir); err != nil {
		t.Fatal(err)
	}
	code, stdout, stderr := run(t, context.Background(), "report", out)
	want := reportsDir + " is a symbolic link (to " + elsewhere + ")"
	if code != ExitFailure || !strings.Contains(stderr, want) {
		t.Errorf("reports a link: exit %d\n%s%s\nwant exit %d and %q", code, stdout, stderr, ExitFailure, want)
	}
	if entries, _ := os.ReadDir(elsewhere); len(entries) > 0 {
		t.Errorf("report wrote %d files into the directory that reports/ links to", len(entries))
	}
}

// TestReportWriteError rebuilds the reports of a run in another process under a file size limit
// (RLIMIT_FSIZE, as a full disk would) that the largest Markdown report and the plots exceed: the
// command fails naming the error, every report file is as it was (none cut or emptied: they were
// written in place), no temporary file is left, and the reports it lists as written are the
// whole ones (a Markdown report whose writes failed was listed).
func TestReportWriteError(t *testing.T) {
	dir := t.TempDir()
	cfg := writeFile(t, dir, "small.yaml", smallConfig+"reports: [summary, runtime, likelihood_gap]\n")
	out := filepath.Join(dir, "run")
	runOK(t, "run", cfg, "-out", out)
	reportsDir := filepath.Join(out, results.ReportsDir)
	before := map[string]string{}
	entries, err := os.ReadDir(reportsDir)
	if err != nil {
		t.Fatal(err)
	}
	largestMD, limit := "", 0
	for _, e := range entries {
		p := filepath.Join(reportsDir, e.Name())
		before[e.Name()] = mustRead(t, p)
		if n := len(before[e.Name()]); filepath.Ext(p) == ".md" && n > limit+1 {
			largestMD, limit = p, n-1
		}
	}
	var smaller []string
	for name, b := range before {
		if len(b) <= limit {
			smaller = append(smaller, name)
		}
	}
	if len(smaller) == 0 {
		t.Fatalf("no report file within the limit %d bytes that the largest Markdown report exceeds", limit)
	}
	t.Logf("limit %d bytes: %s is larger; within it: %s", limit, filepath.Base(largestMD), strings.Join(smaller, " "))

	cmd := command(t, "report", out)
	cmd.Env = append(cmd.Env, "HCBENCH_TEST_FSIZE="+strconv.Itoa(limit))
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err = cmd.Run()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != ExitFailure || !strings.Contains(stderr.String(), "file too large") {
		t.Fatalf("report under a file size limit: %v, want exit %d naming the error\n%s%s", err, ExitFailure, &stdout, &stderr)
	}
	after, err := os.ReadDir(reportsDir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range after {
		b := mustRead(t, filepath.Join(reportsDir, e.Name()))
		switch old, ok := before[e.Name()]; {
		case !ok:
			t.Errorf("report left %s behind", e.Name())
		case b != old:
			t.Errorf("%s: %d bytes, was %d: a failed write changed it", e.Name(), len(b), len(old))
		}
	}
	if len(after) != len(before) {
		t.Errorf("%d report files, were %d", len(after), len(before))
	}
	var listed []string
	for line := range strings.Lines(stdout.String()) {
		if p, ok := strings.CutPrefix(strings.TrimSpace(line), "report: "); ok {
			listed = append(listed, p)
		}
	}
	if slices.Contains(listed, largestMD) {
		t.Errorf("%s is listed as written, but no more than %d of its %d bytes could be", largestMD, limit, limit+1)
	}
	for _, name := range smaller {
		if p := filepath.Join(reportsDir, name); filepath.Ext(name) == ".md" && !slices.Contains(listed, p) {
			t.Errorf("%s, written whole, is not listed:\n%s", p, &stdout)
		}
	}
}

// TestHistoryWriteError runs history in another process under a file size limit that the
// database outgrows (RLIMIT_FSIZE, as a full disk would): it says that the database could not be
// written and why that may be (SQLite says "disk I/O error" alone), leaves no file where it
// was to make a new database (it left an empty one), and leaves an existing database as it was.
func TestHistoryWriteError(t *testing.T) {
	dir := t.TempDir()
	cfg := writeFile(t, dir, "nightly.yaml", historyConfig)
	a, b := filepath.Join(dir, "a"), filepath.Join(dir, "b")
	runOK(t, "run", cfg, "-out", a)
	runOK(t, "run", cfg, "-out", b, "-set", "seed=2")
	dbDir := filepath.Join(dir, "h")
	db := filepath.Join(dbDir, "h.db")
	limited := func(want string, args ...string) {
		t.Helper()
		cmd := command(t, append([]string{"history", "-db", db, "-o", filepath.Join(dir, "page.html")}, args...)...)
		cmd.Env = append(cmd.Env, "HCBENCH_TEST_FSIZE=8192") // a database of hcbench's tables takes 45 KB
		out, err := cmd.CombinedOutput()
		var ee *exec.ExitError
		if !errors.As(err, &ee) || ee.ExitCode() != ExitFailure || !strings.Contains(string(out), want) {
			t.Errorf("history under a file size limit: %v, want exit %d and %q\n%s", err, ExitFailure, want, out)
		}
	}
	limited("history database "+db+" could not be written (sqlite3: disk I/O error): is the disk full? (df "+dbDir+" shows the space left); SQLite undid the change, so no database is left at "+db, a)
	if left, _ := os.ReadDir(dbDir); len(left) > 0 {
		t.Errorf("%d files left in %s, want none", len(left), dbDir)
	}
	runOK(t, "history", "-db", db, "-o", filepath.Join(dir, "page.html"), a)
	before := mustRead(t, db)
	limited("SQLite undid the change, so the database is as it was", b)
	if mustRead(t, db) != before {
		t.Error("the database changed")
	}
	if out := runOK(t, "history", "-db", db, "-o", filepath.Join(dir, "page.html"), b); !strings.Contains(out, "history: 2 runs of 1 experiment") {
		t.Errorf("without the limit:\n%s", out)
	}
}
