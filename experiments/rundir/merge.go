package rundir

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/hcbench/hcbench/datasets/datafile"
	"github.com/hcbench/hcbench/experiments/results"
	"github.com/hcbench/hcbench/internal/english"
)

// MergeOptions configure Merge.
type MergeOptions struct {
	// Out is the merged run directory; it must not exist or be empty.
	Out string
	// Partial merges even when tasks are missing; the manifest then says "incomplete".
	Partial bool
	// AllowOtherBuild merges shards that different builds (other executables) wrote; the merged
	// manifest's sessions say which build ran which shard.
	AllowOtherBuild bool
	// Log receives warnings (a shard whose lock could not be probed); nil discards them.
	Log *slog.Logger
}

// shardRun is one shard found in a directory.
type shardRun struct {
	dir      string
	manifest results.Manifest
	path     string // its manifest file
	records  []results.Record
}

// Merge joins the shards found in dirs (any number of shards per directory) into one run
// directory, as if the plan had run whole: it checks that no shard is still running, that they
// belong to one config (the same config hash, shard count and task list) over the same data
// (the SHA-256 of every data file) and one build (unless o.AllowOtherBuild), that every record
// belongs to its shard, and that every planned task is present exactly once, listing what is
// missing; then it writes the records in plan order, a manifest that lists every shard's
// sessions and builds, and the reports, bench.txt and index.html. It writes into a new
// temporary directory beside o.Out and renames it to o.Out once everything is written, so that
// a merge that is killed or interrupted (ctx) leaves no partial o.Out to block the next try.
func Merge(ctx context.Context, dirs []string, o MergeOptions) (*Outcome, error) {
	if len(dirs) == 0 {
		return nil, errors.New("merge: no shard directories given")
	}
	log := o.Log
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	if err := distinctDirs(dirs); err != nil {
		return nil, err
	}
	shards, keys, err := readShards(ctx, dirs, log)
	if err != nil {
		return nil, err
	}
	present, err := checkShards(shards, o.AllowOtherBuild)
	if err != nil {
		return nil, err
	}
	all, missing, err := collect(shards, keys)
	if err != nil {
		return nil, err
	}
	if len(missing) > 0 && !o.Partial {
		return nil, missingError(missing, len(keys), absentShards(shards[0].manifest.Shard.Count, present))
	}
	if err := checkMergeOut(o.Out); err != nil {
		return nil, err
	}
	m := mergedManifest(shards, all, len(keys), len(missing))
	return writeMergeInto(ctx, o.Out, shards[0].dir, m, all, log)
}

// distinctDirs refuses a directory given twice, by name or through a link.
func distinctDirs(dirs []string) error {
	given := map[string]string{}
	for _, dir := range dirs {
		abs, err := filepath.Abs(dir)
		if err != nil {
			return fmt.Errorf("merge: %w", err)
		}
		if real, err := filepath.EvalSymlinks(abs); err == nil {
			abs = real
		}
		if prev, dup := given[abs]; dup {
			if prev == dir {
				return fmt.Errorf("merge: directory %s is given twice", dir)
			}
			return fmt.Errorf("merge: directories %s and %s are the same directory", prev, dir)
		}
		given[abs] = dir
	}
	return nil
}

// readShards reads every shard of the directories, with their records, after checking that no
// process still writes them; and the plan's task keys, which every directory must list alike.
func readShards(ctx context.Context, dirs []string, log *slog.Logger) ([]shardRun, []string, error) {
	var shards []shardRun
	var keys []string
	var keysFrom string
	for _, dir := range dirs {
		paths, err := filepath.Glob(filepath.Join(dir, results.ShardManifests))
		if err != nil {
			return nil, nil, err
		}
		if len(paths) == 0 {
			if _, err := os.Stat(filepath.Join(dir, results.ManifestFile)); err == nil {
				return nil, nil, fmt.Errorf("merge: %s holds a whole run, not shards", dir)
			}
			return nil, nil, fmt.Errorf("merge: %s holds no shards (no manifest-shard-*.json)", dir)
		}
		k, err := ReadTasks(dir)
		if err != nil {
			return nil, nil, fmt.Errorf("merge: %w", err)
		}
		if keys == nil {
			keys, keysFrom = k, dir
		} else if !slices.Equal(keys, k) {
			return nil, nil, fmt.Errorf("merge: %s and %s plan different tasks; they are not shards of one run", filepath.Join(keysFrom, results.TasksFile), filepath.Join(dir, results.TasksFile))
		}
		for _, p := range paths {
			sh, err := readShard(ctx, dir, p, log)
			if err != nil {
				return nil, nil, err
			}
			shards = append(shards, sh)
		}
	}
	return shards, keys, nil
}

// readShard reads the shard of the manifest p in dir and its records.
func readShard(ctx context.Context, dir, p string, log *slog.Logger) (shardRun, error) {
	m, err := results.ReadManifest(p)
	if err != nil {
		return shardRun{}, fmt.Errorf("merge: %w", err)
	}
	if m.Shard == nil {
		return shardRun{}, fmt.Errorf("merge: %s has no shard in it", p)
	}
	files := FilesOf(dir, m.Shard)
	warning, err := checkUnlocked(dir, files)
	if err != nil {
		return shardRun{}, fmt.Errorf("merge: %w", err)
	}
	if warning != "" {
		log.Warn("merge: " + warning)
	}
	recs, err := readRecords(ctx, files.Results)
	if err := ctx.Err(); err != nil {
		return shardRun{}, fmt.Errorf("merge: reading %s: %w", files.Results, context.Cause(ctx))
	}
	if err != nil {
		return shardRun{}, fmt.Errorf("merge: %w%s", err, damagedLineHint(err, files.Results))
	}
	return shardRun{dir: dir, manifest: m, path: p, records: recs}, nil
}

// checkShards checks that the shards are of one config, one shard count, one data and (unless
// allowOtherBuild) one build, each given once; it returns the manifest of each shard index given.
func checkShards(shards []shardRun, allowOtherBuild bool) (map[int]string, error) {
	first := shards[0]
	seen := map[int]string{}
	for _, s := range shards {
		switch {
		case s.manifest.ConfigHash != first.manifest.ConfigHash:
			return nil, fmt.Errorf("merge: %s and %s are shards of different configs (config hash %.12s… and %.12s…)", first.path, s.path, first.manifest.ConfigHash, s.manifest.ConfigHash)
		case s.manifest.Shard.Count != first.manifest.Shard.Count:
			return nil, fmt.Errorf("merge: %s is shard %v and %s shard %v: the shard counts differ", first.path, first.manifest.Shard, s.path, s.manifest.Shard)
		}
		if prev, dup := seen[s.manifest.Shard.Index]; dup {
			return nil, fmt.Errorf("merge: shard %v is given twice (%s and %s)", s.manifest.Shard, prev, s.path)
		}
		seen[s.manifest.Shard.Index] = s.path
		if ch := s.manifest.DataChanges(&first.manifest); len(ch) > 0 {
			return nil, fmt.Errorf("merge: %s and %s read different data: %s; a merged run must come from one data set: rerun the odd shards over the same files", first.path, s.path, strings.Join(ch, "; "))
		}
	}
	return seen, sameBuild(shards, allowOtherBuild)
}

// collect gathers the shards' records in plan order, checking that each belongs to the plan and
// to its shard and is recorded once; missing are the planned tasks without a record.
func collect(shards []shardRun, keys []string) (all []results.Record, missing []string, err error) {
	pos := make(map[string]int, len(keys))
	for i, k := range keys {
		pos[k] = i
	}
	// The record of each planned task, by position: placed, not sorted, into plan order.
	type from struct {
		shard *shardRun
		i     int
	}
	byPos := make([]from, len(keys))
	n := 0
	for si := range shards {
		s := &shards[si]
		for i, r := range s.records {
			k, ok := pos[r.Key]
			switch {
			case !ok:
				return nil, nil, fmt.Errorf("merge: %s has a record of task %q, which the plan does not hold", s.path, r.Key)
			case !InShard(k, s.manifest.Shard):
				return nil, nil, fmt.Errorf("merge: %s has a record of task %q, which belongs to shard %d/%d", s.path, r.Key, k%s.manifest.Shard.Count, s.manifest.Shard.Count)
			}
			if prev := byPos[k].shard; prev != nil {
				return nil, nil, fmt.Errorf("merge: task %q is recorded twice (%s and %s); resuming the shard (its run command again) keeps the first record of each task", r.Key, prev.path, s.path)
			}
			byPos[k] = from{s, i}
			n++
		}
	}
	all = make([]results.Record, 0, n)
	for k, f := range byPos {
		if f.shard == nil {
			missing = append(missing, keys[k])
			continue
		}
		all = append(all, f.shard.records[f.i])
	}
	return all, missing, nil
}

// absentShards names the shards of count that were not given ("2/8").
func absentShards(count int, present map[int]string) []string {
	var absent []string
	for i := range count {
		if _, ok := present[i]; !ok {
			absent = append(absent, fmt.Sprintf("%d/%d", i, count))
		}
	}
	return absent
}

// missingError lists the tasks without a record (the first 20) and the shards not given.
func missingError(missing []string, planned int, absent []string) error {
	var b strings.Builder
	fmt.Fprintf(&b, "merge: %d of %s %s no record", len(missing), english.Count(planned, "planned task", "planned tasks"), english.Plural(len(missing), "has", "have"))
	if len(absent) > 0 {
		fmt.Fprintf(&b, " (shards not given: %s)", strings.Join(absent, ", "))
	}
	b.WriteString("; missing:")
	for i, k := range missing {
		if i == 20 {
			fmt.Fprintf(&b, "\n  … and %d more", len(missing)-20)
			break
		}
		b.WriteString("\n  " + k)
	}
	b.WriteString("\nresume the unfinished shards (the same run command), or merge with -partial")
	return errors.New(b.String())
}

// mergedManifest is the manifest of the merged run: the first shard's, with every shard's
// sessions, warnings and times, and the counts of the records; incomplete when missing tasks
// have no record (merge -partial).
func mergedManifest(shards []shardRun, all []results.Record, planned, missing int) results.Manifest {
	first := shards[0]
	m := first.manifest
	m.Shard, m.Resumes, m.Warnings, m.MergedFrom, m.Sessions = nil, 0, nil, nil, nil
	m.Args, m.Workers = nil, 0
	m.Tasks, m.Finished, m.Failed = planned, len(all), 0
	m.Start, m.End = first.manifest.Start, time.Time{}
	for _, s := range shards {
		m.MergedFrom = append(m.MergedFrom, s.path)
		for _, ss := range s.manifest.AllSessions() {
			ss.Shard = s.manifest.Shard
			m.Sessions = append(m.Sessions, ss)
		}
		m.Warnings = append(m.Warnings, s.manifest.Warnings...)
		if s.manifest.Start.Before(m.Start) {
			m.Start = s.manifest.Start
		}
		if s.manifest.End.After(m.End) {
			m.End = s.manifest.End
		}
		if s.manifest.Status != results.StatusComplete {
			m.Warnings = append(m.Warnings, fmt.Sprintf("%s: status %s", s.path, s.manifest.Status))
		}
	}
	for _, r := range all {
		if r.Error != "" {
			m.Failed++
		}
	}
	m.Status = results.StatusComplete
	if missing > 0 {
		m.Status = results.StatusIncomplete
		m.Warnings = append(m.Warnings, fmt.Sprintf("merged with %d of %s missing (-partial)", missing, english.Count(planned, "task", "tasks")))
	}
	return m
}

// mergingPattern is the name of the temporary directories the merges into out write in (beside
// it: os.MkdirTemp's pattern, the * its random part).
func mergingPattern(out string) string {
	out = filepath.Clean(out)
	return "." + filepath.Base(out) + ".merging-*"
}

// writeMergeInto writes the merged run into a new temporary directory beside out and renames it
// to out once everything is written; on failure or cancellation it removes it. The temporary
// directory holds the run's lock file, locked while the merge writes: a merge killed (SIGKILL, a
// power cut) leaves it unlocked, and the next merge or run into out removes it
// (RemoveAbandonedMerges) instead of leaving tens of megabytes behind for each kill.
func writeMergeInto(ctx context.Context, out, from string, m results.Manifest, all []results.Record, log *slog.Logger) (*Outcome, error) {
	RemoveAbandonedMerges(out, log)
	tmp, err := os.MkdirTemp(filepath.Dir(filepath.Clean(out)), mergingPattern(out))
	if err != nil {
		return nil, fmt.Errorf("merge: %w", err)
	}
	lock, err := Lock(tmp, FilesOf(tmp, nil))
	if lock == nil {
		os.RemoveAll(tmp)
		return nil, fmt.Errorf("merge: %w", err)
	}
	if err := os.Chmod(tmp, 0o755); err != nil {
		lock.Close()
		os.RemoveAll(tmp)
		return nil, fmt.Errorf("merge: %w", err)
	}
	o, reportErr := writeMerge(ctx, tmp, from, m, all)
	err = reportErr
	// The lock is released before the rename, which Windows refuses for a directory with a file
	// open in it; the next merge could only take the finished directory for an abandoned one in
	// the moment between, were it merging into the same out at the same time.
	lock.Close()
	if o != nil {
		// rename(2) replaces an empty directory, which checkMergeOut allowed out to be.
		err = os.Rename(tmp, out)
	}
	if o == nil || err != nil {
		os.RemoveAll(tmp)
		return nil, fmt.Errorf("merge: nothing written to %s: %w", out, err)
	}
	o.Dir = out
	for i, f := range o.Reports {
		if rel, err := filepath.Rel(tmp, f); err == nil {
			o.Reports[i] = filepath.Join(out, rel)
		}
	}
	return o, reportErr
}

// RemoveAbandonedMerges removes the temporary directories that merges into out left beside it
// when they were killed: those whose lock no process holds (a live merge holds its own; see
// writeMergeInto). It logs each removal and each it could not make; it is called by every merge
// and every run into out.
func RemoveAbandonedMerges(out string, log *slog.Logger) {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	dirs, _ := filepath.Glob(filepath.Join(filepath.Dir(filepath.Clean(out)), mergingPattern(out)))
	for _, dir := range dirs {
		if st, err := os.Lstat(dir); err != nil || !st.IsDir() {
			continue
		}
		warning, err := checkUnlocked(dir, FilesOf(dir, nil))
		if err != nil {
			continue // a merge is writing it
		}
		if warning != "" {
			log.Warn("not removing the temporary directory of a merge, which may still be writing it", "dir", dir, "why", warning)
			continue
		}
		if err := os.RemoveAll(dir); err != nil {
			log.Warn("cannot remove the temporary directory of a merge that was killed", "dir", dir, "err", err)
			continue
		}
		log.Info("removed the temporary directory of a merge that was killed", "dir", dir)
	}
}

// writeMerge writes a merged run into dir: the config and task list of the shard directory from,
// the records in plan order, the manifest, then the reports, bench.txt and index.html.
func writeMerge(ctx context.Context, dir, from string, m results.Manifest, all []results.Record) (*Outcome, error) {
	for _, f := range []string{results.ConfigFile, results.TasksFile} {
		b, err := os.ReadFile(filepath.Join(from, f))
		if err != nil {
			return nil, err
		}
		if err := results.WriteFileAtomic(filepath.Join(dir, f), b); err != nil {
			return nil, err
		}
	}
	w, err := results.Create(filepath.Join(dir, results.ResultsFile))
	if err != nil {
		return nil, err
	}
	for i := range all {
		if i%1024 == 0 && ctx.Err() != nil {
			w.Close()
			return nil, context.Cause(ctx)
		}
		if err := w.Write(&all[i]); err != nil {
			w.Close()
			return nil, err
		}
	}
	if err := w.Close(); err != nil {
		return nil, err
	}
	reps, reportErr := Finish(ctx, dir, &m, all)
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if err := m.WriteFile(filepath.Join(dir, results.ManifestFile)); err != nil {
		return nil, err
	}
	return &Outcome{Dir: dir, Manifest: m, Reports: reps}, reportErr
}

// readRecords reads a results file through ctx (a cancelled ctx stops the reading).
func readRecords(ctx context.Context, path string) ([]results.Record, error) {
	f, err := datafile.Open(ctx, path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return results.Read(f, path)
}

// sameBuild checks that one build (results.Build.Same) wrote every shard, or, with allow, lets
// them differ.
func sameBuild(shards []shardRun, allow bool) error {
	var builds []results.Build
	for _, s := range shards {
		for _, b := range s.manifest.Builds() {
			if !slices.ContainsFunc(builds, b.Same) {
				builds = append(builds, b)
			}
		}
	}
	if len(builds) <= 1 || allow {
		return nil
	}
	var b strings.Builder
	fmt.Fprintf(&b, "merge: the shards were written by %d different builds (%s), so the merged run would mix results of different code:", len(builds), builds[0].Mismatch(builds[1]))
	for _, s := range shards {
		var bs []string
		for _, x := range s.manifest.Builds() {
			bs = append(bs, x.String())
		}
		fmt.Fprintf(&b, "\n  shard %v (%s): %s", s.manifest.Shard, s.path, strings.Join(bs, "; "))
	}
	b.WriteString("\nrerun the odd shards with one build (into another -out), or merge with -allow-other-build (the merged manifest then lists each shard's build)")
	return errors.New(b.String())
}

// checkMergeOut checks that the merge's output directory is new or empty, and that its parent
// exists or can be made (the merge is written beside it, then renamed to it).
func checkMergeOut(dir string) error {
	if dir == "" {
		return errors.New("merge: no output directory given")
	}
	entries, err := os.ReadDir(dir)
	switch {
	case err == nil && len(entries) > 0:
		return fmt.Errorf("merge: %s already exists and is not empty; choose another with -out", dir)
	case err != nil && !errors.Is(err, os.ErrNotExist):
		return err
	}
	return os.MkdirAll(filepath.Dir(filepath.Clean(dir)), 0o755)
}
