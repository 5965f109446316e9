package results

import (
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

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
