// Package runner executes a plan: it materialises the data items, runs every task on a pool of
// workers, appends one result record per finished task to results.jsonl, and writes the manifest
// and the reports into the run directory. Each task draws from its own random stream (keyed by the
// task), so results do not depend on the number of workers or the order of tasks. Cancelling the
// context stops the run cleanly: tasks in flight are abandoned, every finished record is kept.
package runner

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"hcbench/datasets/jets"
	"hcbench/experiments/config"
	"hcbench/experiments/inputs"
	"hcbench/experiments/item"
	"hcbench/experiments/memory"
	"hcbench/experiments/plan"
	"hcbench/experiments/registry"
	"hcbench/experiments/results"
	"hcbench/experiments/seeds"
	"hcbench/reports/metrics"
)

// Options configure a run.
type Options struct {
	// Dir is the run directory: new or empty, or one that holds runs of the same config, which
	// the run then resumes (its finished tasks are skipped) or joins (another shard).
	Dir string
	// Shard limits the run to one shard of the plan; nil runs every task.
	Shard *results.Shard
	// Workers is the number of tasks run at once; ≤ 0 means the config's workers, and if that is
	// 0 too, runtime.GOMAXPROCS(0).
	Workers int
	// SaveData writes generated data sets to data/<name>.jsonl (also set by the config).
	SaveData bool
	// AllowOtherBuild resumes a run whose records another build (another executable, see
	// results.Build) wrote; the manifest's sessions then say which build wrote what.
	AllowOtherBuild bool
	// Args is the command line, recorded in the manifest.
	Args []string
	// Log receives progress and warnings; the runner also writes them to the run's log file as
	// JSON.
	Log *slog.Logger
	// Progress is where the progress bar is drawn when Terminal is true; otherwise a progress
	// line is logged every ProgressEvery (0: never).
	Progress      io.Writer
	Terminal      bool
	ProgressEvery time.Duration
}

// Outcome says how a run ended.
type Outcome struct {
	Dir      string
	Manifest results.Manifest
	Resumed  int      // tasks found finished in the directory and skipped
	Reports  []string // report files written
}

// Run executes p (or the shard opts.Shard of it) into opts.Dir. Tasks that already have a record
// there are skipped, so a run that was interrupted or killed resumes where it stopped; a torn last
// record from a crash is dropped with a warning and its task redone, a task recorded twice keeps
// its first record, and a record of a task the plan does not hold is dropped with a warning. A
// directory holding a run of another config, or of the same config over data files that changed
// since (their SHA-256 is in the manifest), is refused, as is one whose records another build
// wrote (unless opts.AllowOtherBuild) and one that another process is running into (the run holds
// a lock on its directory, or on its shard, while it runs). A run whose estimated memory exceeds
// what the process may use is refused before anything is written.
//
// Run returns an error when the run could not be carried out (an unwritable directory, a record
// or the manifest that could not be written: the first write error stops the run at once, and
// the manifest then says "incomplete"); failed tasks are recorded in their records and counted
// in the manifest. When ctx is cancelled the run stops, and the manifest says "interrupted". A
// whole run ends by writing its reports, bench.txt and index.html, and only then says
// "complete"; a shard leaves them to merge.
func Run(ctx context.Context, p *plan.Plan, opts Options) (*Outcome, error) {
	resolved, err := p.Config.Resolved()
	if err != nil {
		return nil, err
	}
	hash, err := configHash(resolved)
	if err != nil {
		return nil, err
	}
	workers := opts.Workers
	if workers <= 0 {
		workers = p.Config.Workers
	}
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	if err := p.CheckMemory(workers, func(k int) bool { return inShard(k, opts.Shard) }); err != nil {
		return nil, err
	}
	if err := openRunDir(opts.Dir); err != nil {
		return nil, err
	}
	files := filesOf(opts.Dir, opts.Shard)
	lock, lockErr := lockRun(opts.Dir, files)
	if lock == nil {
		return nil, lockErr
	}
	defer lock.Close() // releases the lock
	prev, manifests, err := checkRunDir(opts.Dir, hash, resolved, opts.Shard)
	if err != nil {
		return nil, err
	}
	m := results.NewManifest()
	m.DataFiles, m.DataDir = dataFiles(p), p.Config.DataDir.Path
	if err := checkData(opts.Dir, manifests, &m); err != nil {
		return nil, err
	}
	other := otherBuild(opts.Dir, manifests, m.Build())
	if other != "" && !opts.AllowOtherBuild {
		return nil, fmt.Errorf("%s; resuming would mix results of different code in one run: resume with the build that wrote them, run this build into another -out, or pass -allow-other-build to resume anyway (the manifest then lists each session's build)", other)
	}
	logFile, err := os.OpenFile(files.log, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return nil, err
	}
	defer logFile.Close()
	log := slog.New(slog.NewMultiHandler(opts.Log.Handler(), slog.NewJSONHandler(logFile, nil)))
	if lockErr != nil {
		log.Warn(lockErr.Error())
	}
	if m.BuildWarning != "" {
		log.Warn(m.BuildWarning)
	}
	if other != "" {
		log.Warn(other + "; resuming anyway (-allow-other-build): the manifest lists each session's build")
	}
	for _, w := range p.Warnings {
		log.Warn(w)
	}
	// The reserve is disk space given back when the manifest cannot be written otherwise (a full
	// disk), so that the run still ends saying how it ended.
	reserve := reserveSpace(filepath.Join(opts.Dir, files.reserve))
	defer reserve.release()

	if err := results.WriteFileAtomic(filepath.Join(opts.Dir, results.ConfigFile), resolved); err != nil {
		return nil, err
	}
	if err := writeTasks(opts.Dir, p); err != nil {
		return nil, err
	}
	done, err := recoverRecords(ctx, files, p, opts.Shard, log)
	if err != nil {
		return nil, err
	}
	if prev == nil && len(done) > 0 {
		return nil, fmt.Errorf("%s has records but no manifest; it is not a run this build wrote", files.results)
	}
	m.Experiment, m.Config, m.Seed, m.ConfigHash, m.Shard = p.Config.Name, p.Config.Path, p.Config.Seed, hash, opts.Shard
	m.Workers, m.Args, m.Start = workers, opts.Args, time.Now().UTC()
	m.Reports, m.Thresholds = p.Config.Reports, p.Config.Thresholds
	if prev != nil {
		// A report added to the run since (report -reports) stays one of its reports.
		m.Reports = unionOf(p.Config.Reports, prev.Reports)
	}
	for _, d := range p.Datasets {
		m.Datasets = append(m.Datasets, d.Name)
	}
	for _, a := range p.Config.Algorithms {
		m.Algorithms = append(m.Algorithms, a.Label)
	}
	finished := map[string]bool{}
	for _, r := range done {
		finished[r.Key] = true
	}
	var todo []plan.Task
	for k, t := range p.Tasks {
		if inShard(k, opts.Shard) {
			m.Tasks++
			if !finished[t.Key] {
				todo = append(todo, t)
			}
		}
	}
	session := m.NewSession(workers, m.Start)
	if prev != nil {
		m.Start, m.Resumes = prev.Start, prev.Resumes+1
		m.Sessions = creditKilled(prev.AllSessions(), len(done))
		log.Info("resuming", "dir", opts.Dir, "finished", len(done), "left", len(todo))
	}
	m.Sessions = append(m.Sessions, session)
	if err := m.WriteFile(files.manifest); err != nil {
		return nil, err
	}

	log.Info("run", "experiment", p.Config.Name, "dir", opts.Dir, "shard", shardText(opts.Shard), "tasks", len(todo), "workers", workers)
	save := (opts.SaveData || p.Config.SaveData) && opts.Shard == nil
	if (opts.SaveData || p.Config.SaveData) && opts.Shard != nil {
		log.Warn("save_data is ignored by a shard, which loads only its own items; run the config whole to save its data")
	}
	items := loadItems(ctx, p, todo, save, workers, opts, log)
	for _, d := range p.Datasets {
		if w := items.shortfall(d); w != "" {
			log.Error(w)
			m.Warnings = append(m.Warnings, w)
		}
	}
	var runErr error
	if save && ctx.Err() == nil {
		runErr = saveData(opts.Dir, p, items, log)
	}
	var recs []results.Record
	if runErr == nil {
		recs, runErr = runAll(ctx, todo, p, items, files.results, workers, opts, log)
	}
	all := append(done, recs...)
	m.Finished = len(all)
	for _, r := range all {
		if r.Error != "" {
			m.Failed++
		}
	}
	out := &Outcome{Dir: opts.Dir, Resumed: len(done)}
	switch {
	case ctx.Err() != nil:
		m.Status = results.StatusInterrupted
	case runErr != nil || m.Finished < m.Tasks:
		// Records that could not be written (a full disk) leave their tasks without a record,
		// which compare and report must not take for a finished run.
		m.Status = results.StatusIncomplete
	case opts.Shard != nil:
		m.Status = results.StatusComplete // merge writes the reports
	default:
		// A run is complete only once its reports, bench.txt and index.html are written, so that
		// a kill in between leaves a run that a resume finishes, not one that looks finished.
		m.Status = results.StatusComplete
		out.Reports, runErr = Finish(ctx, opts.Dir, &m, all)
		if ctx.Err() != nil {
			m.Status = results.StatusInterrupted
		}
	}
	switch m.Status {
	case results.StatusInterrupted:
		log.Warn("interrupted: finished records are kept; run again with the same -out to resume", "finished", m.Finished, "tasks", m.Tasks)
	case results.StatusIncomplete:
		log.Warn("incomplete: run again with the same -out to resume", "finished", m.Finished, "tasks", m.Tasks)
	}
	m.End = time.Now().UTC()
	last := &m.Sessions[len(m.Sessions)-1]
	last.End, last.Records = m.End, len(recs)
	if err := writeFinalManifest(&m, files.manifest, reserve); err != nil {
		runErr = errors.Join(runErr, err)
	}
	out.Manifest = m
	return out, runErr
}

// dataFiles lists the data files the plan read, for the manifest.
func dataFiles(p *plan.Plan) []results.DataFile {
	var out []results.DataFile
	for _, d := range p.Datasets {
		if f := d.File(); f != nil {
			out = append(out, results.DataFile{Dataset: d.Name, File: f.File, SHA256: f.SHA256, Bytes: f.Bytes})
		}
	}
	return out
}

// checkData refuses a run whose data files differ from those that the runs and shards already in
// dir read (manifests), naming each file that changed: their records would mix two data sets
// under one config.
func checkData(dir string, manifests map[string]results.Manifest, m *results.Manifest) error {
	for _, path := range slices.Sorted(maps.Keys(manifests)) {
		old := manifests[path]
		if ch := m.DataChanges(&old); len(ch) > 0 {
			return fmt.Errorf("the data of the run in %s have changed since %s was written: %s; resuming would mix results of different data: restore the files, or run into another -out",
				dir, filepath.Base(path), strings.Join(ch, "; "))
		}
	}
	return nil
}

// recoverRecords reads the records already in the results file of a run or shard: it cuts off a
// torn last record, drops the duplicates of a task and the records of tasks that this plan (or
// shard) does not hold, each with a warning, and rewrites the file when it dropped any, so that
// the run counts only its own tasks.
func recoverRecords(ctx context.Context, files runFiles, p *plan.Plan, shard *results.Shard, log *slog.Logger) ([]results.Record, error) {
	done, torn, err := results.RecoverContext(ctx, files.results)
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("reading %s: %w", files.results, context.Cause(ctx))
	}
	if err != nil {
		return nil, fmt.Errorf("cannot resume: %w%s", err, damagedLineHint(err, files.results))
	}
	if torn != "" {
		log.Warn(torn)
	}
	done, dups := firstOfEach(done)
	if dups > 0 {
		log.Warn(fmt.Sprintf("%s: dropped %d duplicate %s (tasks recorded twice, as by two processes running into one directory at once); the first record of each task is kept",
			files.results, dups, results.Plural(dups, "record", "records")))
	}
	planned := map[string]bool{}
	for k, t := range p.Tasks {
		if inShard(k, shard) {
			planned[t.Key] = true
		}
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
			files.results, len(foreign), results.Plural(len(foreign), "record", "records"), firstKeys(foreign, 3)))
	}
	if dups > 0 || len(foreign) > 0 {
		if err := rewriteResults(files.results, kept); err != nil {
			return nil, fmt.Errorf("cannot drop records of %s: %w", files.results, err)
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

// writeFinalManifest writes the manifest that says how the run ended. When the write fails (a
// full disk), it gives back the reserved space and tries once more; an error that remains is
// returned, saying that the file on disk still describes the run as running.
func writeFinalManifest(m *results.Manifest, path string, r *reserved) error {
	err := m.WriteFile(path)
	if err == nil {
		return nil
	}
	if r.release() {
		if err = m.WriteFile(path); err == nil {
			return nil
		}
	}
	return fmt.Errorf("the manifest %s could not be written, so it still says %s, not %s: %w", path, results.StatusRunning, m.Status, err)
}

// creditKilled credits the last of the sessions with the records found on resume that no
// session claims: a session killed (SIGKILL, a node lost) never wrote its count.
func creditKilled(sessions []results.Session, found int) []results.Session {
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

// unionOf returns the names of a, then those of b that a lacks, each once, in order.
func unionOf(a, b []string) []string {
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

func shardText(s *results.Shard) string {
	if s == nil {
		return "all"
	}
	return s.String()
}

// itemSet holds the items of a run: items[k][i] is item i of data set k, loaded only when
// a task needs it.
type itemSet struct {
	items [][]*item.Item
	errs  [][]error
	index map[*inputs.Dataset]int
}

func (s *itemSet) get(d *inputs.Dataset, i int) (*item.Item, error) {
	k := s.index[d]
	return s.items[k][i], s.errs[k][i]
}

// shortfall describes the items of d that could not be made, or "".
func (s *itemSet) shortfall(d *inputs.Dataset) string {
	k := s.index[d]
	n, first := 0, error(nil)
	for _, err := range s.errs[k] {
		if err != nil && !errors.Is(err, context.Canceled) {
			if first == nil {
				first = err
			}
			n++
		}
	}
	if n == 0 {
		return ""
	}
	return fmt.Sprintf("data set %s: %d of %d items could not be made, and their tasks fail; first: %v", d.Name, n, d.Len(), first)
}

// loadItems materialises the items that the tasks need (every item, with all) on the worker pool.
// Items are independent (each has its own random stream), so the result does not depend on the
// pool or on which items are loaded.
func loadItems(ctx context.Context, p *plan.Plan, tasks []plan.Task, all bool, workers int, opts Options, log *slog.Logger) *itemSet {
	s := &itemSet{index: map[*inputs.Dataset]int{}}
	need := make([][]bool, len(p.Datasets))
	for k, d := range p.Datasets {
		s.index[d] = k
		s.items = append(s.items, make([]*item.Item, d.Len()))
		s.errs = append(s.errs, make([]error, d.Len()))
		need[k] = make([]bool, d.Len())
		for i := range need[k] {
			need[k][i] = all
		}
	}
	for _, t := range tasks {
		need[s.index[t.Dataset]][t.Item] = true
	}
	type job struct{ d, i int }
	var jobs []job
	for k := range need {
		for i, ok := range need[k] {
			if ok {
				jobs = append(jobs, job{k, i})
			}
		}
	}
	// Making items can take long (rejection sampling of rare leaf counts), so it shows progress too.
	pr := newProgress("items", len(jobs), opts.Terminal, opts.Progress, log, opts.ProgressEvery)
	forEach(ctx, len(jobs), workers, func(j int) {
		jb := jobs[j]
		s.items[jb.d][jb.i], s.errs[jb.d][jb.i] = p.Datasets[jb.d].Load(ctx, jb.i)
		pr.add(s.errs[jb.d][jb.i] != nil)
	})
	pr.close(ctx.Err() != nil)
	for _, jb := range jobs {
		if s.items[jb.d][jb.i] == nil && s.errs[jb.d][jb.i] == nil {
			s.errs[jb.d][jb.i] = ctx.Err()
		}
	}
	return s
}

// forEach calls f(0..n−1) on up to workers goroutines, and stops handing out indices once ctx is
// cancelled.
func forEach(ctx context.Context, n, workers int, f func(i int)) {
	var wg sync.WaitGroup
	next := make(chan int)
	for range min(workers, n) {
		wg.Go(func() {
			for i := range next {
				f(i)
			}
		})
	}
feed:
	for i := range n {
		select {
		case next <- i:
		case <-ctx.Done():
			break feed
		}
	}
	close(next)
	wg.Wait()
}

// saveData writes the generated data sets into data/ of the run directory, so that they can be
// read back as data files: jets as data/NAME.jsonl (format jets), mixtures as one CSV per item,
// data/NAME-ID.csv (format csv: features x1…xd, then the label), since a CSV holds one item.
func saveData(dir string, p *plan.Plan, items *itemSet, log *slog.Logger) error {
	for _, d := range p.Datasets {
		if !d.Generated {
			continue
		}
		if err := os.MkdirAll(filepath.Join(dir, results.DataDir), 0o755); err != nil {
			return err
		}
		var js []jets.Jet
		var files []string
		for i := range d.Len() {
			it, _ := items.get(d, i)
			switch {
			case it == nil:
			case it.Jet != nil:
				js = append(js, *it.Jet)
			case it.Vectors != nil:
				path := filepath.Join(dir, results.DataDir, d.Name+"-"+d.ID(i)+".csv")
				if err := results.WriteFileAtomic(path, vectorsCSV(it)); err != nil {
					return err
				}
				files = append(files, path)
			}
		}
		if len(files) > 0 {
			log.Info("saved data", "dataset", d.Name, "files", filepath.Join(dir, results.DataDir, d.Name+"-*.csv"), "items", len(files))
			continue
		}
		path := filepath.Join(dir, results.DataDir, d.Name+".jsonl")
		var b bytes.Buffer
		if err := jets.Write(&b, js); err != nil {
			return err
		}
		if err := results.WriteFileAtomic(path, b.Bytes()); err != nil {
			return err
		}
		log.Info("saved data", "dataset", d.Name, "file", path, "items", len(js))
	}
	return nil
}

// vectorsCSV writes an item of labelled vectors as CSV: a header x1…xd,label, then a row per
// leaf with its features (shortest round-trip form, so that reading them back gives the same
// numbers) and its label.
func vectorsCSV(it *item.Item) []byte {
	var b bytes.Buffer
	d := 0
	if len(it.Vectors) > 0 {
		d = len(it.Vectors[0])
	}
	for k := range d {
		fmt.Fprintf(&b, "x%d,", k+1)
	}
	b.WriteString("label\n")
	for i, row := range it.Vectors {
		for _, v := range row {
			b.WriteString(strconv.FormatFloat(v, 'g', -1, 64))
			b.WriteByte(',')
		}
		if it.Labels != nil {
			b.WriteString(it.Labels[i])
		}
		b.WriteByte('\n')
	}
	return b.Bytes()
}

// runAll opens the results file, runs the tasks into it and closes it: the records written, and
// the first error writing them, which stops the run.
func runAll(ctx context.Context, tasks []plan.Task, p *plan.Plan, items *itemSet, path string, workers int, opts Options, log *slog.Logger) ([]results.Record, error) {
	w, err := results.Append(path)
	if err != nil {
		return nil, err
	}
	recs, err := runTasks(ctx, tasks, p, items, w, workers, opts, log)
	if cerr := w.Close(); cerr != nil && err == nil {
		err = fmt.Errorf("closing %s: %w", path, cerr)
	}
	return recs, err
}

// runTasks runs every task and returns the records written, in the order they finished. The
// first record that cannot be written (a full disk, an I/O error) stops the run: no task starts
// after it, tasks in flight are abandoned, and that one error is returned.
func runTasks(ctx context.Context, tasks []plan.Task, p *plan.Plan, items *itemSet, w *results.Writer, workers int, opts Options, log *slog.Logger) ([]results.Record, error) {
	pr := newProgress("tasks", len(tasks), opts.Terminal, opts.Progress, log, opts.ProgressEvery)
	runCtx, stop := context.WithCancelCause(ctx)
	defer stop(nil)
	var (
		mu   sync.Mutex
		recs []results.Record
	)
	solvers, err := startSolvers(p, workers, log)
	if err != nil {
		return nil, err
	}
	defer solvers.close(log)
	var started atomic.Int64
	forEach(runCtx, len(tasks), workers, func(k int) {
		if runCtx.Err() != nil {
			return // handed out as the run stopped
		}
		t := tasks[k]
		started.Add(1)
		rec, ok := runTask(runCtx, p, t, items, solvers.of[t.Algorithm.Label])
		if !ok || runCtx.Err() != nil {
			return // abandoned on cancellation; a resumed run redoes it
		}
		if err := w.Write(&rec); err != nil {
			stop(fmt.Errorf("writing the record of %s: %w", rec.Key, err))
			return
		}
		if rec.Error != "" {
			log.Warn("task failed", "key", rec.Key, "error", rec.Error)
		}
		mu.Lock()
		recs = append(recs, rec)
		mu.Unlock()
		pr.add(rec.Error != "")
	})
	pr.close(ctx.Err() != nil)
	if ctx.Err() == nil && runCtx.Err() != nil {
		err := context.Cause(runCtx)
		log.Error("the run stops: a record could not be written", "error", err, "recorded", len(recs), "started", started.Load())
		return recs, err
	}
	return recs, nil
}

// runTask runs one task and builds its record. ok is false when the task was cut short by
// cancellation and must not be recorded.
func runTask(ctx context.Context, p *plan.Plan, t plan.Task, items *itemSet, solver registry.Solver) (rec results.Record, ok bool) {
	d := t.Dataset
	rec = results.Record{
		Schema:        results.RecordSchema,
		Experiment:    p.Config.Name,
		Key:           t.Key,
		Dataset:       d.Name,
		Item:          d.ID(t.Item),
		Algorithm:     t.Algorithm.Label,
		AlgorithmName: t.Algorithm.Name,
		Params:        config.ParamsMap(t.Algorithm.Params),
		DataParams:    d.Params(),
		Seed:          seeds.Uint64(p.Config.Seed, plan.SeedKey(t.Key)),
	}
	it, err := items.get(d, t.Item)
	if err != nil {
		if ctx.Err() != nil {
			return rec, false
		}
		rec.Error = "data: " + err.Error()
		return rec, true
	}
	rec.N = it.Leaves()
	rec.DataParams = it.DataParams
	rec.MissingCells = it.MissingCells
	rec.LeafPositions = it.Positions
	rec.Warnings = slices.Clone(it.Warnings) // the data's warnings, in failed records too
	if it.Labels != nil {
		rec.LeafNames, rec.LeafLabels = it.Names, it.Labels
	}
	if it.Truth != nil {
		rec.TruthLogLikelihood = results.Log(it.TruthLogLikelihood)
	}
	task := registry.Task{Key: t.Key, Dataset: d.Name, Item: it, Seed: rec.Seed, RNG: seeds.Stream(p.Config.Seed, plan.SeedKey(t.Key))}
	start := time.Now()
	sol, err := safeSolve(ctx, solver, task)
	rec.Seconds = time.Since(start).Seconds()
	if err != nil {
		if ctx.Err() != nil && errors.Is(err, ctx.Err()) {
			return rec, false
		}
		rec.Error = err.Error()
		return rec, true
	}
	if !math.IsNaN(sol.LogLikelihood) {
		rec.LogLikelihood = results.Log(sol.LogLikelihood)
	}
	rec.Clusters = sol.Clusters
	rec.Newick = sol.Tree.Newick(it.Names)
	rec.Warnings = append(rec.Warnings, sol.Warnings...)
	if sol.Fill != nil {
		sol.Fill(&rec)
	}
	if it.Labels != nil {
		addPurity(&rec, sol, it.Labels)
	}
	return rec, true
}

// safeSolve turns a panic inside an algorithm into a failed task, so that one bad task never
// takes the others down; the stack goes into the error for a bug report.
func safeSolve(ctx context.Context, solver registry.Solver, t registry.Task) (sol registry.Solution, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("internal error (please report): panic: %v\n%s", r, debug.Stack())
		}
	}()
	sol, err = solver.Solve(ctx, t)
	if err == nil && sol.Tree == nil {
		err = errors.New("internal error (please report): the algorithm returned no tree")
	}
	return sol, err
}

// solverSet holds the solvers of a run's algorithm variants, by label.
type solverSet struct {
	of map[string]registry.Solver
}

// startSolvers starts every algorithm variant of the plan for a run on workers (registry.Run):
// their solvers, which the tasks share, with the run's memory budget.
func startSolvers(p *plan.Plan, workers int, log *slog.Logger) (*solverSet, error) {
	run := registry.Run{ConfigDir: p.Config.Dir(), Workers: workers, Budget: registry.NewBudget(memory.Budget()), Log: log}
	set := &solverSet{of: map[string]registry.Solver{}}
	for _, a := range p.Config.Algorithms {
		alg, ok := registry.LookupAlgorithm(a.Name)
		if !ok {
			set.close(log)
			return nil, fmt.Errorf("algorithm %q is not in this build's table", a.Name)
		}
		sv, err := alg.Start(a.Params, run)
		if err != nil {
			set.close(log)
			return nil, fmt.Errorf("algorithms[%d] (%s): %w", a.Index, a.Label, err)
		}
		set.of[a.Label] = sv
	}
	return set, nil
}

// close closes every solver, logging what fails.
func (s *solverSet) close(log *slog.Logger) {
	for label, sv := range s.of {
		if err := sv.Close(); err != nil {
			log.Warn("closing an algorithm", "algorithm", label, "error", err)
		}
	}
}

// addPurity scores the tree (and the flat clustering, if any) against the item's labels.
func addPurity(rec *results.Record, sol registry.Solution, labels []string) {
	finite := func(x float64) *float64 {
		if math.IsNaN(x) {
			return nil
		}
		return &x
	}
	leaf, pair, used := metrics.DendrogramPurity(sol.Tree, labels)
	rec.DendrogramPurity, rec.DendrogramPurityPair, rec.LabelledLeaves = finite(leaf), finite(pair), used
	if sol.Clusters != nil {
		p, adj := metrics.FlatPurity(sol.Clusters, labels)
		rec.FlatPurity, rec.AdjustedPurity = finite(p), finite(adj)
	}
}
