package rundir

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/hcbench/hcbench/experiments/results"
)

// SplitFailed takes out of recs (the records found in a run's results file) the failed records
// of the tasks retry selects (-retry-failed), so that a resume runs those tasks again; the file
// is left as it is. A failed record stays there until its task's new record follows it, which
// supersedes it (DropSuperseded, and RecoverRecords on the next resume): a retry interrupted
// or killed at any point leaves each task its new record or its old one, never none.
func SplitFailed(recs []results.Record, retry func(key string) bool) (kept, failed []results.Record) {
	kept = recs[:0:0]
	for _, r := range recs {
		if r.Error != "" && retry(r.Key) {
			failed = append(failed, r)
		} else {
			kept = append(kept, r)
		}
	}
	return kept, failed
}

// supersede drops from recs, in file order, the failed records that a later record of the same
// task follows (a retry's), and counts them.
func supersede(recs []results.Record) ([]results.Record, int) {
	last := make(map[string]int, len(recs))
	for i, r := range recs {
		last[r.Key] = i
	}
	out := recs[:0:0]
	for i, r := range recs {
		if r.Error != "" && last[r.Key] > i {
			continue
		}
		out = append(out, r)
	}
	return out, len(recs) - len(out)
}

// DropSuperseded rewrites a run's results file without the failed records that a retry's
// records supersede (see SplitFailed), so that each task has one record again; it returns how
// many it dropped. The file is replaced atomically: a kill leaves the old file or the new.
func DropSuperseded(files Files) (int, error) {
	recs, err := results.ReadFile(files.Results)
	if err != nil {
		return 0, fmt.Errorf("cannot drop the failed records of %s that retries replaced: %w", files.Results, err)
	}
	kept, n := supersede(recs)
	if n == 0 {
		return 0, nil
	}
	if err := rewriteResults(files.Results, kept); err != nil {
		return 0, fmt.Errorf("cannot drop the failed records of %s that retries replaced: %w", files.Results, err)
	}
	return n, nil
}

// Unfinished is a run directory that a run of a config may resume (Resumable).
type Unfinished struct {
	Dir      string
	Manifest results.Manifest
	// Recorded counts the lines of its results file: the tasks with a record, as far as it can
	// tell without reading them (a torn last line counts too).
	Recorded int
}

// Skipped is a run directory of the same config that Resumable passed over, and why; Flag is the
// flag of the run command that resumes it anyway, if one does.
type Skipped struct {
	Dir, Why, Flag string
}

// A Search says which run Resumable looks for: one of the experiment Name and the config whose
// hash is ConfigHash, that Build may resume (the build that wrote it, or any with
// AllowOtherBuild) over the same data files (Data; see results.Manifest.DataChanges). An
// unfinished run is one interrupted, incomplete, or killed (still "running" with no process
// holding its lock); with Failed, a complete run with failed tasks counts too (-retry-failed
// runs them again).
type Search struct {
	Name, ConfigHash string
	Build            results.Build
	AllowOtherBuild  bool
	Data             []results.DataFile
	Failed           bool
}

// Resumable looks in root for the run directories that the run command names for a whole run of
// an experiment (root/<name>-<UTC time>[-k], see the cli's defaultRunDir) and returns the
// latest by start time that holds an unfinished run that s looks for. ok is false when there is
// none. skipped lists the unfinished runs of the same config that could not be resumed, latest
// first, for a message.
func Resumable(root string, s Search) (u Unfinished, skipped []Skipped, ok bool) {
	entries, err := os.ReadDir(root)
	if err != nil {
		return u, nil, false
	}
	named := regexp.MustCompile(`^` + regexp.QuoteMeta(s.Name) + `-\d{8}-\d{6}(-\d+)?$`)
	var found []Unfinished
	for _, e := range entries {
		if !e.IsDir() || !named.MatchString(e.Name()) {
			continue
		}
		dir := filepath.Join(root, e.Name())
		m, err := results.ReadManifest(filepath.Join(dir, results.ManifestFile))
		if err != nil || m.ConfigHash != s.ConfigHash || m.Shard != nil || m.MergedFrom != nil ||
			m.Status == results.StatusComplete && !(s.Failed && m.Failed > 0) {
			continue
		}
		found = append(found, Unfinished{Dir: dir, Manifest: m})
	}
	slices.SortFunc(found, func(a, b Unfinished) int {
		if c := b.Manifest.Start.Compare(a.Manifest.Start); c != 0 {
			return c
		}
		return strings.Compare(b.Dir, a.Dir)
	})
	for _, f := range found {
		files := FilesOf(f.Dir, nil)
		if _, err := checkUnlocked(f.Dir, files); err != nil {
			skipped = append(skipped, Skipped{Dir: f.Dir, Why: "another process is running it"})
			continue
		}
		ms := map[string]results.Manifest{files.Manifest: f.Manifest}
		if other := OtherBuild(f.Dir, ms, s.Build); other != "" && !s.AllowOtherBuild {
			skipped = append(skipped, Skipped{Dir: f.Dir, Why: "another build wrote it", Flag: "-allow-other-build"})
			continue
		}
		now := results.Manifest{DataFiles: s.Data}
		if ch := now.DataChanges(&f.Manifest); len(ch) > 0 {
			skipped = append(skipped, Skipped{Dir: f.Dir, Why: "its data files have changed since (" + ch[0] + ")"})
			continue
		}
		f.Recorded = countLines(files.Results)
		return f, skipped, true
	}
	return u, skipped, false
}

// countLines counts the lines of a file, a last one without a newline included (0 if it cannot
// be read): records are one JSON line each.
func countLines(path string) int {
	f, err := os.Open(path)
	if err != nil {
		return 0
	}
	defer f.Close()
	n, last := 0, byte('\n')
	buf := make([]byte, 1<<16)
	for {
		k, err := f.Read(buf)
		if k > 0 {
			n += bytes.Count(buf[:k], []byte{'\n'})
			last = buf[k-1]
		}
		if err != nil {
			break
		}
	}
	if last != '\n' {
		n++
	}
	return n
}
