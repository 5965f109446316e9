// Package runner executes a plan: it materialises the data items, starts each algorithm variant
// (package registry), runs every task on a pool of workers and appends one result record per
// finished task to results.jsonl, in a run directory that package rundir keeps (its lock,
// identity, manifest and reports). Each task draws from its own random stream (keyed by the
// task), so results do not depend on the number of workers or the order of tasks. The repetitions
// of repeated tasks (-count K) run in rounds over the whole run, in an order drawn from the seed
// (results.OrderInterleaved). Cancelling the context stops the run cleanly: tasks in flight are
// abandoned, every finished record and repetition is kept.
package runner

import (
	"bytes"
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/hcbench/hcbench/experiments/rundir"
	"github.com/hcbench/hcbench/internal/english"
	"io"
	"log/slog"
	"maps"
	"math"
	"os"
	"path/filepath"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/hcbench/hcbench/datasets/jets"
	"github.com/hcbench/hcbench/experiments/config"
	"github.com/hcbench/hcbench/experiments/inputs"
	"github.com/hcbench/hcbench/experiments/item"
	"github.com/hcbench/hcbench/experiments/memory"
	"github.com/hcbench/hcbench/experiments/metric"
	"github.com/hcbench/hcbench/experiments/plan"
	"github.com/hcbench/hcbench/experiments/registry"
	"github.com/hcbench/hcbench/experiments/results"
	"github.com/hcbench/hcbench/experiments/seeds"
	"github.com/hcbench/hcbench/reports/metrics"
)

// Options configure a run.
type Options struct {
	// Dir is the run directory: new or empty, or one that holds runs of the same config, which
	// the run then resumes (its finished tasks are skipped) or joins (another shard).
	Dir string
	// Shard limits the run to one shard of the plan; nil runs every task.
	Shard *results.Shard
	// Workers is the -workers flag: the number of tasks run at once when positive (see
	// config.Config.WorkersFor).
	Workers int
	// SaveData writes generated data sets to data/<name>.jsonl (also set by the config).
	SaveData bool
	// AllowOtherBuild resumes a run whose records another build (another executable, see
	// results.Build) wrote; the manifest's sessions then say which build wrote what.
	AllowOtherBuild bool
	// Args is the command line, recorded in the manifest.
	Args []string
	// Only selects the tasks to run (-only; nil: all). The others keep whatever records they
	// have, and the run stays incomplete until a session without a filter runs them; a run
	// whose selected tasks all ran still writes its reports, over the records it has.
	Only *plan.Filter
	// RetryFailed runs again the tasks (of Only) whose records have an error. A failed record
	// stays in the results file until its task's new record replaces it, so an interrupted
	// retry loses nothing (rundir.SplitFailed).
	RetryFailed bool
	// Log receives progress and warnings; the runner also writes them to the run's log file as
	// JSON.
	Log *slog.Logger
	// Progress is where the progress bar is drawn when Terminal is true; otherwise a progress
	// line is logged every ProgressEvery (0: never).
	Progress      io.Writer
	Terminal      bool
	ProgressEvery time.Duration
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
func Run(ctx context.Context, p *plan.Plan, opts Options) (*rundir.Outcome, error) {
	s, err := open(ctx, p, opts)
	if err != nil {
		return nil, err
	}
	defer s.close()
	recs, runErr := s.execute(ctx)
	return s.conclude(ctx, recs, runErr)
}

// session is one process's part of a run: its directory, lock, log and manifest, and the tasks
// it has to run.
type session struct {
	p       *plan.Plan
	opts    Options
	workers int
	files   rundir.Files
	lock    *os.File
	logFile *os.File
	log     *slog.Logger
	reserve *rundir.Reserved
	m       results.Manifest
	done    []results.Record // records found in the directory
	todo    []plan.Task
	retry   []results.Record // failed records found in the directory whose tasks run again
	// reps are the finished repetitions of tasks without a record, found in the directory.
	reps map[string][]results.Repetition
	// estimate is the run's memory estimate, which the log's last line sets beside the peak.
	estimate int64
}

// open is a run's first phase: it checks the memory, prepares and locks the directory, checks
// that it may take this run (the config, the data, the build), opens the log, reads the
// records already there and writes the manifest of the session, status running.
func open(ctx context.Context, p *plan.Plan, opts Options) (*session, error) {
	resolved, err := p.Config.Resolved()
	if err != nil {
		return nil, err
	}
	hash, err := rundir.ConfigHash(resolved)
	if err != nil {
		return nil, err
	}
	s := &session{p: p, opts: opts, workers: p.Config.WorkersFor(opts.Workers)}
	selected, _ := p.Selected(opts.Only, func(k int) bool { return rundir.InShard(k, opts.Shard) })
	e, err := p.CheckMemory(s.workers, selected)
	if err != nil {
		return nil, err
	}
	// The garbage collector keeps the heap within the estimate that plan prints.
	memory.SetEstimate(e.Bytes)
	s.estimate = e.Bytes
	if err := rundir.Prepare(opts.Dir); err != nil {
		return nil, err
	}
	s.files = rundir.FilesOf(opts.Dir, opts.Shard)
	lock, lockErr := rundir.Lock(opts.Dir, s.files)
	if lock == nil {
		return nil, lockErr
	}
	s.lock = lock
	ok := false
	defer func() {
		if !ok {
			s.close()
		}
	}()
	prev, manifests, err := rundir.Check(opts.Dir, hash, resolved, opts.Shard)
	if err != nil {
		return nil, err
	}
	s.m = results.NewManifest()
	m := &s.m
	m.DataFiles, m.DataDir = dataFiles(p), p.Config.DataDir.Path
	if err := rundir.CheckData(opts.Dir, manifests, m); err != nil {
		return nil, err
	}
	other := rundir.OtherBuild(opts.Dir, manifests, m.Build())
	if other != "" && !opts.AllowOtherBuild {
		return nil, fmt.Errorf("%s; resuming would mix results of different code in one run: resume with the build that wrote them, run this build into another -out, or pass -allow-other-build to resume anyway (the manifest then lists each session's build)", other)
	}
	if s.logFile, err = results.OpenNoFollow(s.files.Log, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644); err != nil {
		return nil, err
	}
	s.log = slog.New(slog.NewMultiHandler(opts.Log.Handler(), slog.NewJSONHandler(s.logFile, nil)))
	for _, w := range []string{errText(lockErr), m.BuildWarning} {
		if w != "" {
			s.log.Warn(w)
		}
	}
	if other != "" {
		s.log.Warn(other + "; resuming anyway (-allow-other-build): the manifest lists each session's build")
	}
	for _, w := range p.Warnings {
		s.log.Warn(w)
	}
	// The reserve is disk space given back when the manifest cannot be written otherwise (a full
	// disk), so that the run still ends saying how it ended.
	if s.reserve, err = rundir.Reserve(filepath.Join(opts.Dir, s.files.Reserve)); err != nil {
		return nil, err
	}

	if err := results.WriteFileAtomic(filepath.Join(opts.Dir, results.ConfigFile), resolved); err != nil {
		return nil, err
	}
	keys := make([]string, len(p.Tasks))
	planned := map[string]bool{}
	for k, t := range p.Tasks {
		keys[k] = t.Key
		if rundir.InShard(k, opts.Shard) {
			planned[t.Key] = true
		}
	}
	if err := rundir.WriteTasks(opts.Dir, keys); err != nil {
		return nil, err
	}
	if s.done, err = rundir.RecoverRecords(ctx, s.files, planned, s.log); err != nil {
		return nil, err
	}
	if prev == nil && len(s.done) > 0 {
		return nil, fmt.Errorf("%s has records but no manifest; it is not a run this build wrote", s.files.Results)
	}
	recorded := make(map[string]bool, len(s.done))
	for _, r := range s.done {
		recorded[r.Key] = true
	}
	if s.reps, err = rundir.RecoverRepetitions(s.files, func(key string) bool { return planned[key] && !recorded[key] }, s.log); err != nil {
		return nil, err
	}
	if opts.RetryFailed {
		if s.done, s.retry = rundir.SplitFailed(s.done, opts.Only.Match); len(s.retry) > 0 {
			s.log.Info("retrying failed tasks", "tasks", len(s.retry))
		}
	}
	s.describe(hash, prev)
	if err := m.WriteFile(s.files.Manifest); err != nil {
		return nil, err
	}
	ok = true
	return s, nil
}

// errText is err's message, or "" for nil.
func errText(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

// describe fills the manifest of the session (the run, its tasks, its sessions; a resume keeps
// the earlier ones, prev) and lists the tasks still to run.
func (s *session) describe(hash string, prev *results.Manifest) {
	p, m := s.p, &s.m
	m.Experiment, m.Config, m.Seed, m.ConfigHash, m.Shard = p.Config.Name, p.Config.Path, p.Config.Seed, hash, s.opts.Shard
	m.Workers, m.Args, m.Start = s.workers, s.opts.Args, time.Now().UTC()
	m.Overrides, m.Only = p.Config.Overrides, s.opts.Only.String()
	m.Reports, m.Thresholds = p.Config.Reports, p.Config.Thresholds
	if prev != nil {
		// A report added to the run since (report -reports) stays one of its reports.
		m.Reports = rundir.UnionOf(p.Config.Reports, prev.Reports)
	}
	for _, d := range p.Datasets {
		m.Datasets = append(m.Datasets, d.Name)
	}
	for _, a := range p.Config.Algorithms {
		m.Algorithms = append(m.Algorithms, a.Label)
	}
	m.Repetitions = nil
	for _, t := range p.Tasks {
		if t.Algorithm.Repeat > 1 && (m.Repetitions == nil || t.Algorithm.Repeat > m.Repetitions.Count) {
			m.Repetitions = &results.Repetitions{Count: t.Algorithm.Repeat, Order: results.OrderInterleaved, Seed: p.Config.Seed}
		}
	}
	finished := map[string]bool{}
	for _, r := range s.done {
		finished[r.Key] = true
	}
	for k, t := range p.Tasks {
		if rundir.InShard(k, s.opts.Shard) {
			m.Tasks++
			if !finished[t.Key] && s.opts.Only.Match(t.Key) {
				s.todo = append(s.todo, t)
			}
		}
	}
	session := m.NewSession(s.workers, m.Start)
	if prev != nil {
		m.Start, m.Resumes = prev.Start, prev.Resumes+1
		m.Sessions = rundir.CreditKilled(prev.AllSessions(), len(s.done)+len(s.retry))
		s.log.Info("resuming", "dir", s.opts.Dir, "finished", len(s.done), "left", len(s.todo))
	}
	m.Sessions = append(m.Sessions, session)
}

// execute is a run's second phase: it makes the items the tasks need (and saves generated data),
// then runs the tasks, appending their records; it returns the records written and the error
// that stopped it, if any.
func (s *session) execute(ctx context.Context) ([]results.Record, error) {
	p, opts, log := s.p, s.opts, s.log
	log.Info("run", "experiment", p.Config.Name, "dir", opts.Dir, "shard", shardText(opts.Shard), "tasks", len(s.todo), "workers", s.workers)
	save := (opts.SaveData || p.Config.SaveData) && opts.Shard == nil
	if (opts.SaveData || p.Config.SaveData) && opts.Shard != nil {
		log.Warn("save_data is ignored by a shard, which loads only its own items; run the config whole to save its data")
	}
	items := loadItems(ctx, p, s.todo, save, s.workers, opts, log)
	for _, d := range p.Datasets {
		if w := items.shortfall(d); w != "" {
			log.Error(w)
			s.m.Warnings = append(s.m.Warnings, w)
		}
	}
	if save && ctx.Err() == nil {
		if err := saveData(opts.Dir, p, items, log); err != nil {
			return nil, err
		}
	}
	return runAll(ctx, s.todo, s.reps, p, items, s.files, s.workers, opts, log)
}

// conclude is a run's last phase: it judges how the run ended, writes a whole run's reports,
// bench.txt and index.html (only then is it complete), and writes the final manifest.
func (s *session) conclude(ctx context.Context, recs []results.Record, runErr error) (*rundir.Outcome, error) {
	m := &s.m
	// A failed task retried has its new record; one the run did not reach (interrupted) keeps
	// its old, and the file loses the old records that new ones replace.
	ran := make(map[string]bool, len(recs))
	for _, r := range recs {
		ran[r.Key] = true
	}
	all, retried := slices.Clone(s.done), 0
	for _, r := range s.retry {
		if ran[r.Key] {
			retried++
		} else {
			all = append(all, r)
		}
	}
	resumed := len(all)
	all = append(all, recs...)
	if retried > 0 {
		if _, err := rundir.DropSuperseded(s.files); err != nil {
			runErr = errors.Join(runErr, err)
		}
	}
	m.Finished = len(all)
	for _, r := range all {
		if r.Error != "" {
			m.Failed++
		}
	}
	// Every task has its record: no repetition is left to keep.
	if m.Finished == m.Tasks {
		if err := os.Remove(s.files.Repetitions); err != nil && !errors.Is(err, os.ErrNotExist) {
			runErr = errors.Join(runErr, err)
		}
	}
	out := &rundir.Outcome{Dir: s.opts.Dir, Resumed: resumed, Retried: retried}
	// A filtered run (-only) that ran every task it selected leaves the others without a record:
	// it is incomplete, so that a resume without the filter runs them, yet its reports are
	// written, over the records it has.
	selectedRan := s.opts.Only != nil && runErr == nil
	switch {
	case ctx.Err() != nil:
		m.Status = results.StatusInterrupted
	case runErr != nil || m.Finished < m.Tasks && !selectedRan:
		// Records that could not be written (a full disk) leave their tasks without a record,
		// which compare and report must not take for a finished run.
		m.Status = results.StatusIncomplete
	case s.opts.Shard != nil:
		m.Status = results.StatusComplete // merge writes the reports
		if m.Finished < m.Tasks {
			m.Status = results.StatusIncomplete
		}
	default:
		// A run is complete only once its reports, bench.txt and index.html are written, so that
		// a kill in between leaves a run that a resume finishes, not one that looks finished.
		m.Status = results.StatusComplete
		if m.Finished < m.Tasks {
			m.Status = results.StatusIncomplete
		}
		out.Reports, runErr = rundir.Finish(ctx, s.opts.Dir, m, all)
		if ctx.Err() != nil {
			m.Status = results.StatusInterrupted
		}
	}
	switch m.Status {
	case results.StatusInterrupted:
		s.log.Warn("interrupted: finished records are kept; run again with the same -out to resume", "finished", m.Finished, "tasks", m.Tasks)
	case results.StatusIncomplete:
		if selectedRan && runErr == nil {
			s.log.Info("the tasks -only selects have run; the run is incomplete until a run without -only, into the same directory, runs the others", "only", m.Only, "finished", m.Finished, "tasks", m.Tasks)
			break
		}
		s.log.Warn("incomplete: run again with the same -out to resume", "finished", m.Finished, "tasks", m.Tasks)
	}
	// The process's peak resident memory beside its estimate, for the next batch job's limit.
	if peak, ok := memory.Peak(); ok {
		s.log.Info(results.PeakMsg, "peak", memory.Format(peak), "estimate", memory.Format(s.estimate), results.PeakKey, peak, results.EstimateKey, s.estimate)
	}
	m.End = time.Now().UTC()
	last := &m.Sessions[len(m.Sessions)-1]
	last.End, last.Records = m.End, len(recs)
	if err := rundir.WriteFinalManifest(m, s.files.Manifest, s.reserve); err != nil {
		runErr = errors.Join(runErr, err)
	}
	out.Manifest = *m
	return out, runErr
}

// close gives back the reserve, closes the log and releases the lock.
func (s *session) close() {
	if s.reserve != nil {
		s.reserve.Release()
	}
	if s.logFile != nil {
		s.logFile.Close()
	}
	s.lock.Close()
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
	return fmt.Sprintf("data set %s: %d of %s could not be made, and their tasks fail; first: %v", d.Name, n, english.Count(d.Len(), "item", "items"), first)
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
	pr := newProgress("items", len(jobs), nil, workers, opts.Terminal, opts.Progress, log, opts.ProgressEvery)
	forEach(ctx, len(jobs), workers, func(j int) {
		jb := jobs[j]
		start := time.Now()
		s.items[jb.d][jb.i], s.errs[jb.d][jb.i] = p.Datasets[jb.d].Load(ctx, jb.i)
		pr.add(j, time.Since(start).Seconds(), s.errs[jb.d][jb.i] != nil)
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
		if err := results.MkdirNoFollow(filepath.Join(dir, results.DataDir)); err != nil {
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
				// A clustbench item's id is BATTERY/NAME: one file, not a folder.
				path := filepath.Join(dir, results.DataDir, d.Name+"-"+strings.ReplaceAll(d.ID(i), "/", "_")+".csv")
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
// leaf, in the data's order (as the records name the leaves), with its features (shortest
// round-trip form, so that reading them back gives the same numbers) and its label.
func vectorsCSV(it *item.Item) []byte {
	var b bytes.Buffer
	vectors, labels := item.InData(it, it.Vectors), item.InData(it, it.Labels)
	d := 0
	if len(vectors) > 0 {
		d = len(vectors[0])
	}
	for k := range d {
		fmt.Fprintf(&b, "x%d,", k+1)
	}
	b.WriteString("label\n")
	for i, row := range vectors {
		for _, v := range row {
			b.WriteString(strconv.FormatFloat(v, 'g', -1, 64))
			b.WriteByte(',')
		}
		if labels != nil {
			b.WriteString(labels[i])
		}
		b.WriteByte('\n')
	}
	return b.Bytes()
}

// runAll opens the results file, runs the tasks into it and closes it: the records written, and
// the first error writing them, which stops the run. reps are the finished repetitions of the
// tasks found in the repetitions file (rundir.RecoverRepetitions), which do not run again.
func runAll(ctx context.Context, tasks []plan.Task, reps map[string][]results.Repetition, p *plan.Plan, items *itemSet, files rundir.Files, workers int, opts Options, log *slog.Logger) ([]results.Record, error) {
	w, err := results.Append(files.Results)
	if err != nil {
		return nil, err
	}
	recs, err := runTasks(ctx, tasks, reps, p, items, w, files.Repetitions, workers, opts, log)
	if cerr := w.Close(); cerr != nil && err == nil {
		err = fmt.Errorf("closing %s: %w", files.Results, cerr)
	}
	return recs, err
}

// A repetition is one run of a task's algorithm on its item: the task (its index among the
// tasks run) and the repetition's number, 0-based.
type repetition struct{ task, n int }

// repetitionOrder returns the repetitions of tasks still to run, in the order they start: with
// tasks that all run once, the tasks in their order; otherwise repetition-major, as
// results.OrderInterleaved says (round r: the tasks whose repeat is at least r, in ascending
// order of seeds.Uint64(seed, "repetition=r|"+key)). A task's repetitions below from[task]
// have finished and are left out. The order of any subset of a plan's tasks (a shard, a resume)
// is the order of the whole plan's restricted to it.
func repetitionOrder(seed uint64, tasks []plan.Task, from []int) []repetition {
	rounds := 1
	for _, t := range tasks {
		rounds = max(rounds, t.Algorithm.Repeat)
	}
	var out []repetition
	for r := range rounds {
		start := len(out)
		for j, t := range tasks {
			if r < max(t.Algorithm.Repeat, 1) && r >= from[j] {
				out = append(out, repetition{j, r})
			}
		}
		if rounds == 1 {
			break
		}
		round := out[start:]
		keys := make(map[int]uint64, len(round))
		for _, u := range round {
			keys[u.task] = seeds.Uint64(seed, fmt.Sprintf("repetition=%d|%s", r+1, tasks[u.task].Key))
		}
		slices.SortFunc(round, func(a, b repetition) int {
			return cmp.Or(cmp.Compare(keys[a.task], keys[b.task]), cmp.Compare(a.task, b.task))
		})
	}
	return out
}

// repeatedTask is what a run knows of a task between its repetitions, which run one at a time
// in order.
type repeatedTask struct {
	k     int             // the task's repeat
	times []float64       // the finished repetitions' times, in order
	first *results.Record // the first repetition's record, without times
	// base is the record of what the item alone says (runTask), which a failed task's record is.
	base *results.Record
	done bool // the task's record is made
}

// runTasks runs the repetitions of every task in repetitionOrder and returns the records
// written, in the order the tasks were completed. A task's record is written after its last
// repetition; before, each finished repetition is appended to the repetitions file at reps
// (results.Repetition), so that a kill loses none. A task's repetitions run one at a time: a
// repetition whose task has one running waits for it, and the repetitions after it in the order
// wait too, so that starts follow the order. The first record or repetition that cannot be
// written (a full disk, an I/O error) stops the run: no repetition starts after it, those in
// flight are abandoned, and that one error is returned.
func runTasks(ctx context.Context, tasks []plan.Task, found map[string][]results.Repetition, p *plan.Plan, items *itemSet, w *results.Writer, repsPath string, workers int, opts Options, log *slog.Logger) ([]results.Record, error) {
	state := make([]repeatedTask, len(tasks))
	from := make([]int, len(tasks))
	repeated := false
	for j, t := range tasks {
		st := &state[j]
		st.k = max(t.Algorithm.Repeat, 1)
		repeated = repeated || st.k > 1
		// The finished repetitions 1, 2, … in turn: the repetitions of a task run one at a
		// time, so what a kill leaves is such a prefix, the first with its record (which its
		// digest checks).
		rs := slices.SortedFunc(slices.Values(found[t.Key]), func(a, b results.Repetition) int { return cmp.Compare(a.N, b.N) })
		for _, r := range rs {
			if r.N != len(st.times)+1 || r.N >= st.k || r.N == 1 && (r.Record == nil || digest(r.Record) != r.Digest) {
				break
			}
			if r.N == 1 {
				st.first = r.Record
			}
			st.times = append(st.times, r.Seconds)
		}
		from[j] = len(st.times)
	}
	order := repetitionOrder(p.Config.Seed, tasks, from)
	what := "tasks"
	if repeated {
		what = "runs"
	}
	pr := newProgress(what, len(order), repetitionCosts(tasks, order, items), workers, opts.Terminal, opts.Progress, log, opts.ProgressEvery)
	runCtx, stop := context.WithCancelCause(ctx)
	defer stop(nil)
	var (
		mu   sync.Mutex
		recs []results.Record
		repW *results.Writer
	)
	if repeated {
		var err error
		if repW, err = results.Append(repsPath); err != nil {
			return nil, err
		}
		defer repW.Close()
	}
	solvers, err := startSolvers(p, workers, log)
	if err != nil {
		return nil, err
	}
	defer solvers.close(log)
	var started atomic.Int64
	forEachInTurn(runCtx, len(order), workers, func(i int) int { return order[i].task }, func(i int) {
		if runCtx.Err() != nil {
			return // handed out as the run stopped
		}
		u := order[i]
		t, st := tasks[u.task], &state[u.task]
		mu.Lock()
		done := st.done
		mu.Unlock()
		if done {
			pr.skip(i) // the task failed on an earlier repetition
			return
		}
		started.Add(1)
		pr.begin(i)
		start := time.Now()
		rec, rep, ok := runRepetition(runCtx, p, t, u.n, st, items, solvers.of[t.Algorithm.Label], &mu)
		took := time.Since(start).Seconds()
		if !ok || runCtx.Err() != nil {
			return // abandoned on cancellation; a resumed run redoes it
		}
		if rep != nil {
			if err := repW.WriteRepetition(rep); err != nil {
				stop(fmt.Errorf("writing repetition %d of %s: %w", rep.N, rep.Key, err))
				return
			}
			pr.add(i, took, false)
			return
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
		pr.add(i, took, rec.Error != "")
	})
	pr.close(ctx.Err() != nil)
	if ctx.Err() == nil && runCtx.Err() != nil {
		err := context.Cause(runCtx)
		log.Error("the run stops: a record could not be written", "error", err, "recorded", len(recs), "started", started.Load())
		return recs, err
	}
	return recs, nil
}

// forEachInTurn calls f(i) for i = 0, …, n−1 on workers goroutines, handing the indices out in
// order; an index of the same group(i) as one still running waits until it has returned (and
// so do the indices after it). It stops handing out when ctx is done.
func forEachInTurn(ctx context.Context, n, workers int, group func(i int) int, f func(i int)) {
	type turn struct {
		i    int
		done chan struct{}
	}
	var wg sync.WaitGroup
	next := make(chan turn)
	for range min(workers, n) {
		wg.Go(func() {
			for t := range next {
				f(t.i)
				close(t.done)
			}
		})
	}
	running := map[int]chan struct{}{}
feed:
	for i := range n {
		g := group(i)
		if prev := running[g]; prev != nil {
			select {
			case <-prev:
			case <-ctx.Done():
				break feed
			}
		}
		done := make(chan struct{})
		running[g] = done
		select {
		case next <- turn{i, done}:
		case <-ctx.Done():
			break feed
		}
	}
	close(next)
	wg.Wait()
}

// repetitionCosts returns the expected seconds of the repetitions (registry.Algorithm.TaskSeconds
// on their items' leaves), grouped by algorithm variant, for the progress's estimate of the time
// left. A task whose item could not be made fails at once: it costs nothing.
func repetitionCosts(tasks []plan.Task, order []repetition, items *itemSet) []unitCost {
	costs := make([]unitCost, len(order))
	for i, u := range order {
		t := tasks[u.task]
		costs[i].group = t.Algorithm.Label
		it, err := items.get(t.Dataset, t.Item)
		alg, ok := registry.LookupAlgorithm(t.Algorithm.Name)
		if err != nil || it == nil || !ok {
			continue
		}
		costs[i].expected = alg.TaskSeconds(t.Algorithm.Params, it.Leaves())
	}
	return costs
}

// runRepetition runs repetition n of task t, whose state st (guarded by mu) holds the
// repetitions before it, and returns the task's record when the task is complete: after its
// last repetition, or the first that fails or differs from the first. Otherwise it returns the
// repetition for the repetitions file. Each run gets the task's random stream afresh and its own
// copy of the parameters, so a deterministic algorithm gives the same record every time; a run
// that differs from the first (its tree, a number, a warning, a parameter it reports using; all
// but the times and an external program's extra) fails the task as not deterministic, naming
// the run and what differs. A run that fails fails the task, its error naming the run when
// there are several. The record's Seconds is the median of the runs' times, and Times keeps
// them when there were several. ok is false when the run was cut short by cancellation and
// must not be recorded.
func runRepetition(ctx context.Context, p *plan.Plan, t plan.Task, n int, st *repeatedTask, items *itemSet, solver registry.Solver, mu *sync.Mutex) (rec results.Record, rep *results.Repetition, ok bool) {
	mu.Lock()
	base := st.base
	mu.Unlock()
	var it *item.Item
	if base == nil || n == 0 {
		b, item, final, ok := taskRecord(ctx, p, t, items)
		if !ok || final {
			return b, nil, ok
		}
		base, it = &b, item
		mu.Lock()
		st.base = base
		mu.Unlock()
	} else if it, _ = items.get(t.Dataset, t.Item); it == nil {
		return rec, nil, false // the item was made for the first repetition
	}
	task := registry.Task{Key: t.Key, Dataset: t.Dataset.Name, Item: it.ForAlgorithm(), Seed: base.Seed, RNG: seeds.Stream(p.Config.Seed, plan.SeedKey(t.Key))}
	start := time.Now()
	sol, err := safeSolve(ctx, solver, task)
	took := time.Since(start).Seconds()
	if err != nil && ctx.Err() != nil && errors.Is(err, ctx.Err()) {
		return rec, nil, false
	}
	mu.Lock()
	defer mu.Unlock()
	st.times = append(st.times, took)
	timed := func(r results.Record) results.Record {
		r.Seconds = results.Median(st.times)
		if len(st.times) > 1 {
			r.Times = slices.Clone(st.times)
		}
		st.done = true
		return r
	}
	if err != nil {
		rec = *base
		rec.Error = err.Error()
		if st.k > 1 {
			rec.Error = fmt.Sprintf("run %d of %d: %s", n+1, st.k, rec.Error)
		}
		return timed(rec), nil, true
	}
	r := *base
	r.Params = config.ParamsMap(t.Algorithm.Params) // Fill may change the params it reports
	r.Warnings = slices.Clone(base.Warnings)
	fillSolution(&r, sol, it)
	if n == 0 {
		st.first = &r
	} else if diff := differs(st.first, &r); diff != "" {
		rec = *base
		rec.Error = fmt.Sprintf("run %d of %d differs from run 1 in %s: the algorithm is not deterministic on this item, so its runs are not repeats of one measurement (run it with repeat: 1)", n+1, st.k, diff)
		return timed(rec), nil, true
	}
	if len(st.times) == st.k {
		return timed(*st.first), nil, true
	}
	rep = &results.Repetition{Key: t.Key, N: n + 1, Seconds: took, Digest: digest(&r)}
	if n == 0 {
		rep.Record = &r
	}
	return rec, rep, true
}

// taskRecord builds the record of what task t's item alone says. final is true when that is
// the task's record: its item could not be made, or the plan says it cannot run. ok is false
// when the task was cut short by cancellation and must not be recorded.
func taskRecord(ctx context.Context, p *plan.Plan, t plan.Task, items *itemSet) (rec results.Record, it *item.Item, final, ok bool) {
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
			return rec, nil, false, false
		}
		rec.Error = "data: " + err.Error()
		return rec, nil, true, true
	}
	rec.N = it.Leaves()
	rec.DataParams = it.DataParams
	rec.MissingCells = it.MissingCells
	// The record speaks of the data's leaves, in the data's order: the item's are in the order
	// the algorithm is given them (item.Item.Present).
	rec.LeafPositions = item.InData(it, it.Positions)
	rec.LeafOrderSeed = it.OrderSeed
	rec.Warnings = slices.Clone(it.Warnings) // the data's warnings, in failed records too
	if it.Labels != nil {
		rec.LeafNames, rec.LeafLabels = item.InData(it, it.Names), item.InData(it, it.Labels)
	}
	if it.Truth != nil {
		rec.TruthLogLikelihood = results.Log(it.TruthLogLikelihood)
	}
	if why := p.CannotRun(t, rec.N); why != "" {
		rec.Error = why // the plan warned of it; nothing has been allocated
		return rec, nil, true, true
	}
	return rec, it, false, true
}

// fillSolution adds a solution to its record: the tree and its scores, the algorithm's own
// fields and the metrics of the table computed from the tree (metric.ComputeAll: for labelled
// items, the purities). What names leaves is renumbered from the item's
// order, in which the algorithm was given them, to the data's (item.Item.DataTree), and leaves
// are written by their names in the data where they have them. The metrics are computed in the
// item's order, which the tree, the clusters and the item's data share; they are the same in
// either order.
func fillSolution(rec *results.Record, sol registry.Solution, it *item.Item) {
	if !math.IsNaN(sol.LogLikelihood) {
		rec.LogLikelihood = results.Log(sol.LogLikelihood)
	}
	names := item.InData(it, it.Names)
	rec.Newick = it.DataTree(sol.Tree).Newick(names)
	rec.Clusters = it.DataSets(sol.Clusters)
	slices.SortFunc(rec.Clusters, slices.Compare) // a flat clustering has no order of its own
	for _, s := range sol.Samples {
		rec.Samples = append(rec.Samples, results.TreeSample{Newick: it.DataTree(s.Tree).Newick(names), LogLikelihood: results.LogProb(s.LogLikelihood)})
	}
	if m := sol.Marginals; m != nil {
		rec.Marginals = &results.Marginals{MAPClusters: dataMarginals(it, m.MAPClusters), TopClusters: dataMarginals(it, m.TopClusters)}
		// Largest first, as the trellis lists them; clusters of one size in the data's order,
		// not in the order of a walk of the tree the trellis was given.
		slices.SortStableFunc(rec.Marginals.MAPClusters, func(a, b results.ClusterMarginal) int {
			return cmp.Or(cmp.Compare(len(b.Cluster), len(a.Cluster)), slices.Compare(a.Cluster, b.Cluster))
		})
	}
	for _, m := range sol.Merges {
		for c, v := range m.Children {
			if v < rec.N { // a leaf; merge nodes keep their numbers
				m.Children[c] = it.DataLeaf(v)
			}
		}
		rec.Merges = append(rec.Merges, m)
	}
	rec.Warnings = append(rec.Warnings, sol.Warnings...)
	if len(sol.Counters) > 0 {
		rec.Counters = maps.Clone(sol.Counters)
	}
	if sol.Fill != nil {
		sol.Fill(rec)
	}
	rec.Metrics = metric.ComputeAll(metric.Input{Tree: sol.Tree, Heights: sol.Heights, Clusters: sol.Clusters,
		Labels: it.Labels, References: it.References, Vectors: it.Vectors, Model: it.Model})
	for _, l := range it.Labels {
		if l != "" {
			rec.LabelledLeaves++
		}
	}
	rec.Partitions = referencePartitions(rec, sol, it)
}

// referencePartitions returns the tree cut at each distinct number of clusters k of the item's
// own reference labellings (metrics.Cut, the cut the partition metrics score), k ascending, each
// in the data's order and renumbered there by first appearance, so that they do not depend on the
// order the algorithm was given the leaves in. Items whose only reference is the one the metrics
// derive from class labels have none: their records stay as they were. A k above the number of
// leaves has no partition; a tree that cannot be cut otherwise (a NaN height) is a warning.
func referencePartitions(rec *results.Record, sol registry.Solution, it *item.Item) []results.Partition {
	if it.References == nil || sol.Tree == nil {
		return nil
	}
	var ks []int
	for _, ref := range it.References {
		if k := metrics.ReferenceClusters(ref); k > 0 && k <= sol.Tree.Items() {
			ks = append(ks, k)
		}
	}
	slices.Sort(ks)
	var out []results.Partition
	for _, k := range slices.Compact(ks) {
		labels, err := metrics.Cut(sol.Tree, sol.Heights, k)
		if err != nil {
			rec.Warnings = append(rec.Warnings, fmt.Sprintf("no partition into %d clusters: %v", k, err))
			continue
		}
		out = append(out, results.Partition{K: k, Labels: metrics.Renumber(item.InData(it, labels))})
	}
	return out
}

// dataMarginals returns cluster marginals with their clusters renumbered to the data's order,
// in the same order.
func dataMarginals(it *item.Item, cs []results.ClusterMarginal) []results.ClusterMarginal {
	sets := make([][]int, len(cs))
	for k, c := range cs {
		sets[k] = c.Cluster
	}
	out := make([]results.ClusterMarginal, len(cs))
	for k, s := range it.DataSets(sets) {
		out[k] = results.ClusterMarginal{Cluster: s, P: cs[k].P}
	}
	return out
}

// digest is the SHA-256 (hex) of a record without its timingFields, as differs compares them:
// two runs' records have the same digest when differs finds them equal.
func digest(r *results.Record) string {
	b, _ := json.Marshal(untimed(r)) // a map: its keys sorted
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

// untimed is r's fields as JSON without its timingFields (nil when it cannot be written as
// JSON).
func untimed(r *results.Record) map[string]json.RawMessage {
	raw, err := json.Marshal(r)
	if err != nil {
		return nil
	}
	var m map[string]json.RawMessage
	if json.Unmarshal(raw, &m) != nil {
		return nil
	}
	for _, k := range timingFields {
		delete(m, k)
	}
	return m
}

// timingFields are the record fields that may differ between runs of a deterministic
// algorithm: the times, and an external program's reported time and its own values (which may
// be timings too).
var timingFields = []string{"seconds", "times", "reported_seconds", "extra"}

// differs compares two runs' records field by field, as JSON, leaving out timingFields; it
// returns "" when they agree, else the first field that differs with both values, the tree
// (newick) before the other fields and those in name order:
//
//	newick ("((0,1),2);" in run 1, "(0,(1,2));" in this run)
//
// A record that cannot be written as JSON (which fails its task when it is written) compares
// as agreeing.
func differs(a, b *results.Record) string {
	fa, fb := untimed(a), untimed(b)
	if fa == nil || fb == nil {
		return ""
	}
	keys := slices.Sorted(maps.Keys(fa))
	for k := range fb {
		if _, ok := fa[k]; !ok {
			keys = append(keys, k)
		}
	}
	slices.SortStableFunc(keys, func(x, y string) int {
		return cmp.Or(cmp.Compare(boolRank(y == "newick"), boolRank(x == "newick")), strings.Compare(x, y))
	})
	for _, k := range keys {
		if va, vb := fa[k], fb[k]; !bytes.Equal(va, vb) {
			return fmt.Sprintf("%s (%s in run 1, %s in this run)", k, excerpt(va), excerpt(vb))
		}
	}
	return ""
}

func boolRank(b bool) int {
	if b {
		return 1
	}
	return 0
}

// excerpt shortens a JSON value for a message: at most 60 bytes, "absent" for none.
func excerpt(v json.RawMessage) string {
	if v == nil {
		return "absent"
	}
	if len(v) > 60 {
		return string(v[:57]) + "…"
	}
	return string(v)
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
		set.of[a.Label] = countedSolver{sv, alg}
	}
	return set, nil
}

// countedSolver fails a task whose solution's work counters break its algorithm's declaration
// (registry.Algorithm.CheckCounters): a counter missing or undeclared would compare as a change
// of the code against every run before or after, so the task fails, naming the counter.
type countedSolver struct {
	registry.Solver
	alg *registry.Algorithm
}

func (s countedSolver) Solve(ctx context.Context, t registry.Task) (registry.Solution, error) {
	sol, err := s.Solver.Solve(ctx, t)
	if err == nil {
		err = s.alg.CheckCounters(sol.Counters)
	}
	return sol, err
}

// close closes every solver, logging what fails.
func (s *solverSet) close(log *slog.Logger) {
	for label, sv := range s.of {
		if err := sv.Close(); err != nil {
			log.Warn("closing an algorithm", "algorithm", label, "error", err)
		}
	}
}
