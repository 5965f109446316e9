package rundir

import (
	"os"
	"path/filepath"
	"testing"
)

// TestRemoveAbandonedMerges: of the temporary directories beside a merge's output, those whose
// lock no process holds (a killed merge's, with or without its lock file) are removed; one whose
// lock is held (a merge still writing) and the directories of other outputs stay.
func TestRemoveAbandonedMerges(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "merged")
	mk := func(name string) string {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(p, 0o755); err != nil {
			t.Fatal(err)
		}
		return p
	}
	killed, early, live, other := mk(".merged.merging-1"), mk(".merged.merging-2"), mk(".merged.merging-3"), mk(".other.merging-1")
	for _, d := range []string{killed, live} {
		lock, err := Lock(d, FilesOf(d, nil))
		if lock == nil {
			t.Fatal(err)
		}
		if d == killed {
			lock.Close() // as the kill does
		} else {
			defer lock.Close()
		}
	}
	if err := os.WriteFile(filepath.Join(killed, "results.jsonl"), []byte("{}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	RemoveAbandonedMerges(out, nil)
	for d, want := range map[string]bool{killed: false, early: false, live: true, other: true} {
		if _, err := os.Stat(d); (err == nil) != want {
			t.Errorf("%s: present %v, want %v", filepath.Base(d), err == nil, want)
		}
	}
}
