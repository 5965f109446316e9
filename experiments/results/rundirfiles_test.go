package results

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hcbench/hcbench/internal/limittest"
)

// sparseTail writes a results file of one good record and then n zero bytes without a newline,
// as a hole (nothing written, nothing on disk), and returns its path.
func sparseTail(t *testing.T, n int64) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), ResultsFile)
	if err := os.WriteFile(path, []byte(goodRecord), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(path, int64(len(goodRecord))+n); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestRecoverLongTail: resuming reads the records a line at a time within MaxLine, as report,
// merge and compare do. An unterminated tail of up to MaxLine bytes is a torn record, cut off as
// after a kill; a longer one (200 MiB here; 1 GB was read whole into memory and dropped) is
// refused with the file, its line and the byte offset where it can be cut, having read and
// allocated about MaxLine, and the file is left as it was.
func TestRecoverLongTail(t *testing.T) {
	path := sparseTail(t, 200<<20)
	var err error
	a := limittest.Allocated(func() { _, _, err = Recover(path) })
	want := fmt.Sprintf("%s:2: from byte %d on, a line longer than 64 MiB (67108864 bytes), the limit for one result record", path, len(goodRecord))
	if err == nil || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), fmt.Sprintf("truncate -s %d %s", len(goodRecord), path)) {
		t.Errorf("error %v\nwant it to contain %q and the truncate command", err, want)
	}
	// The line is collected in chunks and refused once past the limit (package linelimit).
	const slack = 3 << 20
	if a > MaxLine+slack {
		t.Errorf("allocated %d bytes refusing a 200 MiB tail, want about the limit %d", a, MaxLine)
	}
	if fi, err := os.Stat(path); err != nil || fi.Size() != int64(len(goodRecord))+200<<20 {
		t.Errorf("the refused file was changed: %v %v", fi.Size(), err)
	}

	// At the limit, a tail is a torn record.
	path = sparseTail(t, MaxLine)
	recs, torn, err := Recover(path)
	if err != nil || len(recs) != 1 || !strings.Contains(torn, fmt.Sprintf(":2: dropped a torn last record (%d bytes without a newline)", MaxLine)) {
		t.Fatalf("tail of MaxLine bytes: %d records, torn %q, err %v", len(recs), torn, err)
	}
	if b, err := os.ReadFile(path); err != nil || string(b) != goodRecord {
		t.Errorf("file after Recover: %d bytes, %v", len(b), err)
	}
}

// TestNoFollow: the files of a run directory are opened, and its directories made, without
// following a symbolic link in their place: a results file, the reports directory, or a file
// that Recover would cut. What the link names is left as it was.
func TestNoFollow(t *testing.T) {
	dir := t.TempDir()
	victim := filepath.Join(dir, "victim")
	if err := os.WriteFile(victim, []byte("victim\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	victimDir := filepath.Join(dir, "victimdir")
	if err := os.Mkdir(victimDir, 0o755); err != nil {
		t.Fatal(err)
	}
	link := func(target, name string) string {
		p := filepath.Join(dir, name)
		if err := os.Symlink(target, p); err != nil {
			t.Skipf("no symbolic links: %v", err)
		}
		return p
	}
	isLink := func(what string, err error, path string) {
		t.Helper()
		if !errors.Is(err, ErrSymlink) || !strings.Contains(err.Error(), path+" is a symbolic link (to ") {
			t.Errorf("%s through a link: %v, want ErrSymlink naming %s", what, err, path)
		}
	}
	r := link(victim, ResultsFile)
	_, err := Append(r)
	isLink("Append", err, r)
	_, err = Create(r)
	isLink("Create", err, r)
	_, _, err = Recover(r)
	isLink("Recover", err, r)
	dangling := link(filepath.Join(dir, "absent"), ".reserve")
	_, err = OpenNoFollow(dangling, os.O_CREATE|os.O_WRONLY, 0o644)
	isLink("OpenNoFollow of a dangling link", err, dangling)
	if _, err := os.Stat(filepath.Join(dir, "absent")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a dangling link was followed to create its target: %v", err)
	}
	if b, err := os.ReadFile(victim); err != nil || string(b) != "victim\n" {
		t.Errorf("the file linked to holds %q (%v)", b, err)
	}

	reportsLink := link(victimDir, ReportsDir)
	isLink("MkdirNoFollow", MkdirNoFollow(reportsLink), reportsLink)
	if err := MkdirNoFollow(victim); err == nil || !strings.Contains(err.Error(), "is not a directory") {
		t.Errorf("MkdirNoFollow of a file: %v", err)
	}
	made := filepath.Join(dir, "data")
	if err := MkdirNoFollow(made); err != nil {
		t.Fatal(err)
	}
	if err := MkdirNoFollow(made); err != nil {
		t.Errorf("MkdirNoFollow of a directory there: %v", err)
	}
	if entries, _ := os.ReadDir(victimDir); len(entries) > 0 {
		t.Errorf("the directory linked to holds %d files", len(entries))
	}
}

// TestPendingFile: a file written through CreateAtomic appears whole at Commit, and only then;
// Close without Commit, or a write that fails, leaves the file as it was and no temporary file.
func TestPendingFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "summary.md")
	if err := os.WriteFile(path, []byte("old\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	f, err := CreateAtomic(path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.WriteString(f, strings.Repeat("new\n", 100000)); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(path); string(b) != "old\n" {
		t.Errorf("before Commit the file holds %d bytes, want the old 4", len(b))
	}
	f.Close() // discarded
	if b, _ := os.ReadFile(path); string(b) != "old\n" {
		t.Errorf("after Close without Commit the file holds %d bytes, want the old 4", len(b))
	}
	if err := f.Commit(); err == nil {
		t.Error("Commit after Close succeeded")
	}
	f, err = CreateAtomic(path)
	if err != nil {
		t.Fatal(err)
	}
	io.WriteString(f, "new\n")
	if err := f.Commit(); err != nil {
		t.Fatal(err)
	}
	f.Close() // does nothing after Commit
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	fi, _ := os.Stat(path)
	if string(b) != "new\n" || fi.Mode().Perm() != 0o644 {
		t.Errorf("after Commit: %q, mode %v; want \"new\\n\", 0644", b, fi.Mode().Perm())
	}
	// A path whose directory is gone: Commit fails, and says which file.
	gone := filepath.Join(dir, "gone")
	os.Mkdir(gone, 0o755)
	f, err = CreateAtomic(filepath.Join(gone, "x.csv"))
	if err != nil {
		t.Fatal(err)
	}
	io.WriteString(f, "a,b\n")
	os.RemoveAll(gone)
	if err := f.Commit(); err == nil || !strings.Contains(err.Error(), "writing "+filepath.Join(gone, "x.csv")) {
		t.Errorf("Commit into a removed directory: %v", err)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		var names []string
		for _, e := range entries {
			names = append(names, e.Name())
		}
		t.Errorf("files left in %s: %v, want summary.md alone", dir, names)
	}
}
