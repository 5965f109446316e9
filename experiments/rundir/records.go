package rundir

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/hcbench/hcbench/experiments/results"
)

// Outcome says how a run ended.
type Outcome struct {
	Dir      string
	Manifest results.Manifest
	Resumed  int      // tasks found finished in the directory and skipped
	Retried  int      // failed tasks run again (-retry-failed), whose new records replace the old
	Reports  []string // report files written
}

// CheckData refuses a run whose data files differ from those that the runs and shards already in
// dir read (manifests), naming each file that changed: their records would mix two data sets
// under one config.
func CheckData(dir string, manifests map[string]results.Manifest, m *results.Manifest) error {
	for _, path := range slices.Sorted(maps.Keys(manifests)) {
		old := manifests[path]
		if ch := m.DataChanges(&old); len(ch) > 0 {
			return fmt.Errorf("the data of the run in %s have changed since %s was written: %s; resuming would mix results of different data: restore the files, or run into another -out",
				dir, filepath.Base(path), strings.Join(ch, "; "))
		}
	}
	return nil
}

// RecoverRecords reads the records already in the results file of a run or shard: it cuts off a
// torn last record, drops the failed records that a retry's records replace, and, each with a
// warning, the duplicates of a task and the records of tasks that the run (or shard) does not
// plan (planned: their keys); it rewrites the file when it dropped any, so that the run counts
// only its own tasks, once each.
func RecoverRecords(ctx context.Context, files Files, planned map[string]bool, log *slog.Logger) ([]results.Record, error) {
	done, torn, err := results.RecoverContext(ctx, files.Results)
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("reading %s: %w", files.Results, context.Cause(ctx))
	}
	if err != nil {
		return nil, fmt.Errorf("cannot resume: %w%s", err, damagedLineHint(err, files.Results))
	}
	if torn != "" {
		log.Warn(torn)
	}
	// A retry killed before it dropped the failed records it replaced (SplitFailed) left them
	// before the new ones: the new record is the task's.
	done, superseded := supersede(done)
	if superseded > 0 {
		log.Info(fmt.Sprintf("%s: dropped %d failed %s that a retry's records replace", files.Results, superseded, results.Plural(superseded, "record", "records")))
	}
	done, dups := firstOfEach(done)
	if dups > 0 {
		log.Warn(fmt.Sprintf("%s: dropped %d duplicate %s (tasks recorded twice, as by two processes running into one directory at once); the first record of each task is kept",
			files.Results, dups, results.Plural(dups, "record", "records")))
	}
	var foreign []string
	kept := done[:0:0]
	for _, r := range done {
		if planned[r.Key] {
			kept = append(kept, r)
		} else {
			foreign = append(foreign, r.Key)
		}
	}
	if len(foreign) > 0 {
		log.Warn(fmt.Sprintf("%s: dropped %d %s of tasks that this config does not plan (%s); the run counts only its own tasks",
			files.Results, len(foreign), results.Plural(len(foreign), "record", "records"), firstKeys(foreign, 3)))
	}
	if superseded > 0 || dups > 0 || len(foreign) > 0 {
		if err := rewriteResults(files.Results, kept); err != nil {
			return nil, fmt.Errorf("cannot drop records of %s: %w", files.Results, err)
		}
	}
	return kept, nil
}

// firstKeys lists up to k keys, and how many more there are.
func firstKeys(keys []string, k int) string {
	if len(keys) <= k {
		return strings.Join(keys, ", ")
	}
	return fmt.Sprintf("%s and %d more", strings.Join(keys[:k], ", "), len(keys)-k)
}

// WriteFinalManifest writes the manifest that says how the run ended. When the write fails (a
// full disk), it gives back the Reserved space and tries once more; an error that remains is
// returned, saying that the file on disk still describes the run as running.
func WriteFinalManifest(m *results.Manifest, path string, r *Reserved) error {
	err := m.WriteFile(path)
	if err == nil {
		return nil
	}
	if r.Release() {
		if err = m.WriteFile(path); err == nil {
			return nil
		}
	}
	return fmt.Errorf("the manifest %s could not be written, so it still says %s, not %s: %w", path, results.StatusRunning, m.Status, err)
}

// CreditKilled credits the last of the sessions with the records found on resume that no
// session claims: a session killed (SIGKILL, a node lost) never wrote its count.
func CreditKilled(sessions []results.Session, found int) []results.Session {
	sessions = slices.Clone(sessions)
	claimed := 0
	for _, s := range sessions {
		claimed += s.Records
	}
	if n := len(sessions); n > 0 && found > claimed {
		sessions[n-1].Records += found - claimed
	}
	return sessions
}

// firstOfEach keeps the first record of every task and counts the others.
func firstOfEach(recs []results.Record) ([]results.Record, int) {
	seen := make(map[string]bool, len(recs))
	out := recs[:0:0]
	for _, r := range recs {
		if !seen[r.Key] {
			seen[r.Key] = true
			out = append(out, r)
		}
	}
	return out, len(recs) - len(out)
}

// rewriteResults replaces a results file by recs, one JSON line each, atomically
// (results.WriteFileAtomic) so that a kill leaves either file whole.
func rewriteResults(path string, recs []results.Record) error {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	for i := range recs {
		if err := enc.Encode(&recs[i]); err != nil {
			return fmt.Errorf("record %s: %w", recs[i].Key, err)
		}
	}
	return results.WriteFileAtomic(path, b.Bytes())
}

// UnionOf returns the names of a, then those of b that a lacks, each once, in order.
func UnionOf(a, b []string) []string {
	var out []string
	for _, n := range slices.Concat(a, b) {
		if !slices.Contains(out, n) {
			out = append(out, n)
		}
	}
	return out
}

// badLine matches the error of a results file line that is not a record: "PATH:N: not a …".
var badLine = regexp.MustCompile(`^(.*):(\d+): not a result record`)

// damagedLineHint says how to recover from a line of the results file path that is not a record,
// if that is what err reports, else "".
func damagedLineHint(err error, path string) string {
	if m := badLine.FindStringSubmatch(err.Error()); m != nil && m[1] == path {
		return fmt.Sprintf("\nline %s of %s is damaged (a disk, copy or editing error): delete that line (its task then runs again) and resume the run (its run command again), or run into another -out", m[2], path)
	}
	return ""
}

// RecoverRepetitions reads the finished repetitions in the repetitions file of a run or shard
// (results.Repetition) of the tasks that are to run (unfinished: planned, without a record), by
// task key. It drops, with a warning, the torn or damaged lines that a kill leaves, and silently
// the lines of tasks that have their record since (or that the run does not plan) and a
// repetition found twice (its first line is kept); it rewrites the file without them, so that
// lines appended next follow whole ones, and removes it when nothing is left. A missing file
// holds none: a run of a build before repetitions were interleaved, or one whose tasks run once.
func RecoverRepetitions(files Files, unfinished func(key string) bool, log *slog.Logger) (map[string][]results.Repetition, error) {
	reps, dropped, err := results.ReadRepetitions(files.Repetitions)
	if err != nil {
		return nil, fmt.Errorf("cannot resume: %w", err)
	}
	if dropped > 0 {
		log.Warn(fmt.Sprintf("%s: dropped %d torn or damaged %s; their repetitions run again", files.Repetitions, dropped, results.Plural(dropped, "line", "lines")))
	}
	out := map[string][]results.Repetition{}
	seen := map[string]map[int]bool{}
	var kept bytes.Buffer
	enc := json.NewEncoder(&kept)
	for i, r := range reps {
		if !unfinished(r.Key) || seen[r.Key][r.N] {
			continue
		}
		if seen[r.Key] == nil {
			seen[r.Key] = map[int]bool{}
		}
		seen[r.Key][r.N] = true
		out[r.Key] = append(out[r.Key], r)
		if err := enc.Encode(&reps[i]); err != nil {
			return nil, fmt.Errorf("%s: %w", files.Repetitions, err)
		}
	}
	n := 0
	for _, rs := range out {
		n += len(rs)
	}
	switch {
	case n == 0 && len(reps)+dropped > 0:
		err = os.Remove(files.Repetitions)
	case n < len(reps) || dropped > 0:
		err = results.WriteFileAtomic(files.Repetitions, kept.Bytes())
	}
	if err != nil {
		return nil, fmt.Errorf("cannot drop the finished repetitions of %s: %w", files.Repetitions, err)
	}
	return out, nil
}
