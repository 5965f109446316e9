// Package cli is the hcbench command line: subcommands that validate, plan and run experiment
// configs. Main takes the arguments and writers and returns the exit code, so that the whole
// command is testable in-process.
//
// Exit codes: 0 success; 1 a bad config or data, a failed task, a run that could not finish (or
// is reported on unfinished), or a comparison that found a regression or an unfinished NEW run;
// 2 a usage error (unknown subcommand or flag); 130 interrupted by a signal.
package cli

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"golang.org/x/term"

	"github.com/hcbench/hcbench/datasets/datadir"
	"github.com/hcbench/hcbench/experiments/compare"
	"github.com/hcbench/hcbench/experiments/config"
	"github.com/hcbench/hcbench/experiments/memory"
	"github.com/hcbench/hcbench/experiments/metric"
	"github.com/hcbench/hcbench/experiments/plan"
	"github.com/hcbench/hcbench/experiments/results"
	"github.com/hcbench/hcbench/experiments/rundir"
	"github.com/hcbench/hcbench/experiments/runner"
	"github.com/hcbench/hcbench/internal/english"
	"github.com/hcbench/hcbench/internal/interrupt"
	"github.com/hcbench/hcbench/reports"
)

// Exit codes.
const (
	ExitOK          = 0
	ExitFailure     = 1
	ExitUsage       = 2
	ExitInterrupted = 130
)

const usage = `hcbench: exact and approximate hierarchical clustering experiments

Usage:
  hcbench run CONFIG [-out DIR] [-set PATH=VALUE]... [-only REGEX] [-retry-failed] [-count K]
            [-workers N] [-save-data] [-shard I/N] [-shards N] [-allow-other-build] [-data DIR]
                               run an experiment (or one shard of it) and write its run directory;
                               run again to resume (without -out: the latest unfinished run of
                               the config)
  hcbench merge [-out DIR] [-partial] [-allow-other-build] DIR...
                               join the shards found in the directories into one run, with reports
  hcbench report [-reports A,B] DIR
                               rebuild the reports, bench.txt and index.html of a run from its records
  hcbench compare [thresholds] [-allow-missing] OLD NEW
                               compare two runs task by task; exit 1 when quality regressed, NEW did
                               not finish or lacks tasks of OLD
  hcbench history [-db FILE] [-o FILE] [-last N] [-bisect METRIC] [RUN_DIR...]
                               add finished runs to a history database (runs/history.db) and
                               write history.html beside it: a trend per metric, steps and
                               regressions over runs; -bisect names the runs between which a
                               metric changed
  hcbench validate [-data DIR] [-set PATH=VALUE]... CONFIG...
                               check configs (read their data files, estimate their memory)
                               without running
  hcbench plan [-data DIR] [-set PATH=VALUE]... [-only REGEX] CONFIG
                               print the task list of a config, its expected time and memory
  hcbench data fetch [SET...]  download the real data sets (all by default) into the data directory
  hcbench data list            what each data set is, its licence, and whether it is present
  hcbench data verify [SET...] check the SHA-256 sums of the data sets present
  hcbench version              the build: module version, VCS revision, Go version
  hcbench help                 this text
  hcbench help COMMAND         a command's usage and flags (as COMMAND -h)
  hcbench help config          every config key, its meaning and default

With go run: go run . run configs/quickstart.yaml (batch systems should run a built binary:
go build -o hcbench .; a SIGTERM sent to go run reaches hcbench only as the go command's end).
Data: files named data:SET/FILE in configs are in the data directory: -data DIR, else
$HCBENCH_DATA, else hcbench/data in the user's cache directory; hcbench data fetch fills it.
Shards: -shard I/N runs the tasks at plan positions k with k mod N = I (0 ≤ I < N). Without it the
shard comes from the batch system: Slurm arrays (SLURM_ARRAY_TASK_ID − SLURM_ARRAY_TASK_MIN of
SLURM_ARRAY_TASK_COUNT) or Kubernetes Indexed Jobs (JOB_COMPLETION_INDEX of -shards N or the config's
shards); with HTCondor pass -shard $(Process)/N.
Exit codes: 0 ok, 1 bad input, failed tasks, an unfinished run, or a regression, 2 usage error,
130 interrupted.
`

// Main runs the command line args (without the program name) and returns the exit code. Ctrl-C
// and SIGTERM interrupt any command cleanly (exit 130; a run's manifest says interrupted); a
// second one ends the process at once. Run from `go run`, hcbench also stops when the go command
// ends, which is what a SIGTERM sent to `go run` does (see watchGoRun).
func Main(args []string, stdout, stderr io.Writer) int {
	// The signals are caught from the process's first moments (package interrupt); after the
	// first, the next one takes its default action: the process ends.
	sig, stop := interrupt.Context(context.Background())
	defer stop()
	// Before anything large is allocated (but after the signal handler, which should come first):
	// the limits are read while the address space holds little more than the runtime's
	// reservations, and the garbage collector keeps within a cgroup's or RLIMIT_AS's limit.
	memory.LimitRuntime()
	ctx, cancel := context.WithCancelCause(sig)
	defer cancel(nil)
	watchGoRun(ctx, cancel)
	return Run(ctx, args, stdout, stderr)
}

// Run is Main with the context given, for tests.
func Run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return ExitUsage
	}
	cmd, rest := args[0], args[1:]
	switch cmd {
	case "-h", "-help", "--help":
		cmd = "help"
	case "-version", "--version":
		cmd = "version"
	}
	for _, c := range commands() {
		if c.name == cmd {
			return c.run(ctx, rest, stdout, stderr)
		}
	}
	msg := fmt.Sprintf("unknown command %q", cmd)
	if best := config.Closest(cmd, commandNames()); best != "" {
		msg += fmt.Sprintf("; did you mean %q?", best)
	}
	fmt.Fprintf(stderr, "hcbench: %s\nRun 'hcbench help' for the commands, 'hcbench help COMMAND' for one.\n", msg)
	return ExitUsage
}

// A subcommand is a command of hcbench: run with the arguments after its name, it returns the
// exit code. Every command prints its usage to stdout and exits 0 for -h (see flagError).
type subcommand struct {
	name string
	run  func(ctx context.Context, args []string, stdout, stderr io.Writer) int
}

// commands is the command table: Run dispatches on it, `help NAME` shows a command's usage (its
// -h), and a mistyped command is matched against it for a suggestion.
func commands() []subcommand {
	return []subcommand{
		{"run", cmdRun},
		{"merge", cmdMerge},
		{"report", cmdReport},
		{"compare", cmdCompare},
		{"history", cmdHistory},
		{"validate", cmdValidate},
		{"plan", cmdPlan},
		{"data", cmdData},
		{"version", cmdVersion},
		{"help", cmdHelp},
	}
}

// commandNames lists the names of the command table.
func commandNames() []string {
	var out []string
	for _, c := range commands() {
		out = append(out, c.name)
	}
	return out
}

// parse parses flags that may come before or after the positional arguments (stdlib flag stops
// at the first positional one) and returns the positional arguments.
func parse(fs *flag.FlagSet, args []string) ([]string, error) {
	// -h prints the usage to stdout (flagError), a wrong flag to stderr with the problem.
	usage := fs.Usage
	fs.Usage = func() {}
	defer func() { fs.Usage = usage }()
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			if !errors.Is(err, flag.ErrHelp) {
				usage()
			}
			return nil, err
		}
		if fs.NArg() == 0 {
			return pos, nil
		}
		pos = append(pos, fs.Arg(0))
		args = fs.Args()[1:]
	}
}

func newFlags(name string, stderr io.Writer, synopsis string) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "Usage: hcbench %s\n", synopsis)
		fs.PrintDefaults()
	}
	return fs
}

// flagError returns the exit code of a command whose flags did not parse (parse's error): for
// -h, -help or --help, 0 after printing the usage to stdout, as Go's tools do; otherwise 2, the
// problem and the usage having gone to stderr.
func flagError(fs *flag.FlagSet, err error, stdout io.Writer) int {
	if !errors.Is(err, flag.ErrHelp) {
		return ExitUsage
	}
	out := fs.Output()
	fs.SetOutput(stdout)
	fs.Usage()
	fs.SetOutput(out)
	return ExitOK
}

// cmdHelp prints the usage, or the help topic named: a command's usage (what its -h prints;
// "help data fetch" that of a data subcommand), or config's keys.
func cmdHelp(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	switch {
	case len(args) == 0 || len(args) == 1 && slices.Contains([]string{"help", "-h", "-help", "--help"}, args[0]):
		fmt.Fprint(stdout, usage)
		return ExitOK
	case len(args) == 1 && args[0] == "config":
		if err := config.WriteHelp(stdout); err != nil {
			fmt.Fprintln(stderr, "hcbench:", err)
			return ExitFailure
		}
		return ExitOK
	}
	for _, c := range commands() {
		if c.name == args[0] {
			return c.run(ctx, append(slices.Clone(args[1:]), "-h"), stdout, stderr)
		}
	}
	topics := append(commandNames(), "config")
	msg := fmt.Sprintf("unknown help topic %q", strings.Join(args, " "))
	if best := config.Closest(args[0], topics); best != "" {
		msg += fmt.Sprintf("; did you mean %q?", best)
	}
	fmt.Fprintf(stderr, "hcbench: %s (topics: %s)\n", msg, strings.Join(topics, ", "))
	return ExitUsage
}

// setFlag adds the repeatable -set PATH=VALUE flag, which overrides a key of the config.
func setFlag(fs *flag.FlagSet) *[]string {
	var sets []string
	fs.Func("set", "override a config key as if the file said so (repeatable): PATH=VALUE with a key path such as seed, datasets[0].jets or algorithms[2].beam_size, and a YAML value (3, 3n, [summary, runtime]); checked like the file", func(v string) error {
		sets = append(sets, v)
		return nil
	})
	return &sets
}

// onlyFlag adds the -only REGEX flag, which selects tasks by their keys (plan.Filter).
func onlyFlag(fs *flag.FlagSet) *string {
	return fs.String("only", "", "only the tasks whose key (dataset=NAME|item=ID|algorithm=LABEL, as plan lists them) matches this regular expression, unanchored as go test -run's: 'algorithm=beam$', 'dataset=q\\|item=3\\|' (escape |, which is the regexp's or)")
}

// checkFilter refuses a filter that selects no task of p: a typo, most likely, which would
// otherwise run nothing and say nothing.
func checkFilter(p *plan.Plan, f *plan.Filter, stderr io.Writer) int {
	if _, n := p.Selected(f, nil); n == 0 && len(p.Tasks) > 0 {
		fmt.Fprintf(stderr, "hcbench: -only %q matches none of the %s (the first is %s; hcbench plan -tasks lists them)\n", f, english.Count(len(p.Tasks), "task key", "task keys"), p.Tasks[0].Key)
		return ExitUsage
	}
	return ExitOK
}

// countFlag adds the -count flag of run and plan: the repeat of the algorithm entries without
// one (config.Options.Repeat); 0 leaves them at 1.
func countFlag(fs *flag.FlagSet) *int {
	return fs.Int("count", 0, fmt.Sprintf("run each algorithm this many times per item (1 to %d), timing each run and checking that each gives the same result, for entries without repeat (default: their repeat, else 1)", config.MaxRepeat))
}

// countOK reports whether count is a -count flag's value, saying why not on stderr.
func countOK(count int, stderr io.Writer) bool {
	if count < 0 || count > config.MaxRepeat {
		fmt.Fprintf(stderr, "hcbench: -count must be 1 to %d, got %d\n", config.MaxRepeat, count)
		return false
	}
	return true
}

// dataFlag adds the -data flag, which sets the data directory that configs' data: paths name.
func dataFlag(fs *flag.FlagSet) *string {
	return fs.String("data", "", "the data directory that data:SET/FILE paths name (default: $"+datadir.EnvDir+", else the user's cache directory; hcbench data list shows it)")
}

// load reads a config and opens its plan, with the data directory dataDir (the -data flag; ""
// for the default) and the options of the other flags in o (-set, -count); with check, it also checks the memory that all the plan's tasks would take
// on the config's workers (a run checks its own shard on its own workers). shards, when not nil,
// gives the number of shards of the run, so that the estimate made before the plan is made
// counts one shard's items and records. Problems go to stderr; code is the exit code to return
// when p is nil: ExitFailure, or ExitInterrupted when ctx was cancelled.
func load(ctx context.Context, path, dataDir string, o config.Options, check bool, shards func(*config.Config) int, stderr io.Writer) (p *plan.Plan, code int) {
	fail := func(err error) (*plan.Plan, int) {
		if ctx.Err() != nil {
			fmt.Fprintln(stderr, "hcbench: interrupted:", context.Cause(ctx))
			return nil, ExitInterrupted
		}
		fmt.Fprintln(stderr, err)
		return nil, ExitFailure
	}
	loc, err := datadir.Locate(dataDir, os.Getenv)
	if err != nil {
		return fail(err)
	}
	o.DataDir = loc
	cfg, err := config.LoadOptions(path, o)
	if err != nil {
		return fail(err)
	}
	n := 1
	if shards != nil {
		n = shards(cfg)
	}
	if p, err = plan.NewShard(ctx, cfg, n); err != nil {
		return fail(err)
	}
	if _, err := p.CheckMemory(p.Config.WorkersFor(0), nil); check && err != nil {
		return fail(fmt.Errorf("%s: %w", path, err))
	}
	if err := ctx.Err(); err != nil {
		return fail(err) // a config that reads no file, validated while Ctrl-C was pressed
	}
	for _, w := range p.Warnings {
		fmt.Fprintln(stderr, "hcbench: warning:", w)
	}
	return p, ExitOK
}

func cmdValidate(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := newFlags("validate", stderr, "validate [-data DIR] [-set PATH=VALUE]... CONFIG...")
	dataDir := dataFlag(fs)
	sets := setFlag(fs)
	files, err := parse(fs, args)
	if err != nil {
		return flagError(fs, err, stdout)
	}
	if len(files) == 0 {
		fs.Usage()
		return ExitUsage
	}
	code := ExitOK
	for _, f := range files {
		p, c := load(ctx, f, *dataDir, config.Options{Set: *sets}, true, nil, stderr)
		if c == ExitInterrupted {
			return c
		}
		if p == nil {
			code = ExitFailure
			continue
		}
		fmt.Fprintf(stdout, "%s: ok (%s, %s, %s; memory about %s)\n", f, english.Count(len(p.Datasets), "data set", "data sets"),
			english.Count(len(p.Config.Algorithms), "algorithm", "algorithms"), english.Count(len(p.Tasks), "task", "tasks"),
			memory.Format(p.Memory(p.Config.WorkersFor(0), nil).Bytes))
	}
	return code
}

func cmdPlan(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := newFlags("plan", stderr, "plan [-data DIR] [-set PATH=VALUE]... [-only REGEX] [-count K] [-tasks] CONFIG")
	dataDir := dataFlag(fs)
	sets := setFlag(fs)
	only := onlyFlag(fs)
	count := countFlag(fs)
	all := fs.Bool("tasks", false, fmt.Sprintf("list every task (of those -only selects) after the estimates; default: the first %d", planListed))
	files, err := parse(fs, args)
	if err != nil {
		return flagError(fs, err, stdout)
	}
	if len(files) != 1 || !countOK(*count, stderr) {
		if len(files) != 1 {
			fs.Usage()
		}
		return ExitUsage
	}
	filter, err := plan.NewFilter(*only)
	if err != nil {
		fmt.Fprintln(stderr, "hcbench:", err)
		return ExitUsage
	}
	p, code := load(ctx, files[0], *dataDir, config.Options{Set: *sets, Repeat: *count}, true, nil, stderr)
	if p == nil {
		return code
	}
	if code := checkFilter(p, filter, stderr); code != ExitOK {
		return code
	}
	workers := p.Config.WorkersFor(0)
	keep, _ := p.Selected(filter, nil)
	e := p.Memory(workers, keep)
	limit := planListed
	if *all {
		limit = -1
	}
	// The summary and the estimates first: the task list of a large config runs to thousands
	// of lines, which would scroll them away.
	err = errors.Join(p.WriteSummary(stdout, filter), p.WriteCosts(stdout, workers, keep))
	if err == nil {
		_, err = fmt.Fprintf(stdout, "# memory: about %s on %d %s (%s)\n", memory.Format(e.Bytes), workers, results.Plural(workers, "worker", "workers"), e)
	}
	if err == nil {
		err = p.Write(stdout, filter, limit)
	}
	if err != nil {
		fmt.Fprintln(stderr, "hcbench:", err)
		return ExitFailure
	}
	return ExitOK
}

// planListed is how many tasks plan lists without -tasks.
const planListed = 20

func cmdRun(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := newFlags("run", stderr, "run CONFIG [-out DIR] [-set PATH=VALUE]... [-only REGEX] [-retry-failed] [-count K] [-workers N] [-save-data] [-shard I/N] [-shards N] [-allow-other-build] [-data DIR]")
	dataDir := dataFlag(fs)
	sets := setFlag(fs)
	only := onlyFlag(fs)
	retry := fs.Bool("retry-failed", false, "run again the tasks whose records have an error (of those -only selects); a failed record stays until its task's new record replaces it. Without -out: in the latest run of this config that is unfinished or has failed tasks")
	out := fs.String("out", "", "run directory; a directory of the same config is resumed. Default: the latest unfinished run of this config (and build) in runs/, which is resumed, else a new runs/<name>-<UTC time> (runs/<name>-shards for a shard)")
	shardSpec := fs.String("shard", "", "run only shard I of N (I/N, 0 ≤ I < N); default: from SLURM_ARRAY_TASK_ID or JOB_COMPLETION_INDEX if set")
	shardCount := fs.Int("shards", 0, "number of shards, for JOB_COMPLETION_INDEX (overrides the config's shards)")
	workers := fs.Int("workers", 0, "tasks run at once (default: the config's workers, else all cores); at most 4 × the CPUs")
	saveData := fs.Bool("save-data", false, "also write generated data sets into data/ of the run directory (jets to <name>.jsonl, mixtures to <name>-<item>.csv)")
	every := fs.Duration("progress", 10*time.Second, "when stderr is not a terminal, log a progress line this often (0: never)")
	otherBuild := fs.Bool("allow-other-build", false, "resume a run directory whose records another build (another executable: its SHA-256 differs) wrote; the manifest lists each session's build")
	count := countFlag(fs)
	files, err := parse(fs, args)
	if err != nil {
		return flagError(fs, err, stdout)
	}
	if len(files) != 1 {
		fs.Usage()
		return ExitUsage
	}
	if *workers < 0 {
		fmt.Fprintf(stderr, "hcbench: -workers must be 0 (all cores) or positive, got %d\n", *workers)
		return ExitUsage
	}
	if err := checkWorkers(*workers, "-workers"); err != nil {
		fmt.Fprintln(stderr, "hcbench:", err)
		return ExitUsage
	}
	if !countOK(*count, stderr) {
		return ExitUsage
	}
	filter, err := plan.NewFilter(*only)
	if err != nil {
		fmt.Fprintln(stderr, "hcbench:", err)
		return ExitUsage
	}
	shardsOf := func(cfg *config.Config) int {
		if s, err := chooseShard(*shardSpec, *shardCount, cfg.Shards, os.Getenv); err == nil && s != nil {
			return s.Count
		}
		return 1 // a bad shard is reported once the plan is made
	}
	p, code := load(ctx, files[0], *dataDir, config.Options{Set: *sets, Repeat: *count}, false, shardsOf, stderr)
	if p == nil {
		return code
	}
	if err := checkWorkers(p.Config.Workers, p.Config.Path+": workers:"); *workers == 0 && err != nil {
		fmt.Fprintln(stderr, "hcbench:", err) // -workers overrides it
		return ExitUsage
	}
	shard, err := chooseShard(*shardSpec, *shardCount, p.Config.Shards, os.Getenv)
	if err != nil {
		fmt.Fprintln(stderr, "hcbench:", err)
		return ExitUsage
	}
	if code := checkFilter(p, filter, stderr); code != ExitOK {
		return code
	}
	dir := *out
	switch {
	case dir == "" && shard != nil:
		dir = filepath.Join("runs", p.Config.Name+"-shards")
	case dir == "":
		if dir, err = resumableRunDir(p, args, *otherBuild, *retry, stderr); err != nil {
			fmt.Fprintln(stderr, "hcbench:", err)
			return ExitFailure
		}
	}
	terminal := isTerminal(stderr)
	var console io.Writer = stderr
	if terminal {
		// Log lines go above the progress bar while it is drawn, not into it.
		console = runner.NewConsole(stderr)
	}
	log := slog.New(slog.NewTextHandler(console, &slog.HandlerOptions{Level: slog.LevelInfo}))
	rundir.RemoveAbandonedMerges(dir, log)
	o, err := runner.Run(ctx, p, runner.Options{
		Dir:             dir,
		Shard:           shard,
		Workers:         *workers,
		SaveData:        *saveData,
		AllowOtherBuild: *otherBuild,
		Args:            append([]string{"run"}, args...),
		Only:            filter,
		RetryFailed:     *retry,
		Log:             log,
		Progress:        console,
		Terminal:        terminal,
		ProgressEvery:   *every,
	})
	if err != nil {
		if o == nil && ctx.Err() != nil {
			// Interrupted before the run started (reading the records to resume): nothing ran,
			// and the run the directory holds, if any, resumes as it would have.
			fmt.Fprintln(stderr, "hcbench: interrupted:", context.Cause(ctx))
			if _, err := os.Stat(rundir.FilesOf(dir, shard).Manifest); err == nil {
				fmt.Fprintln(stderr, "resume with:", resumeCommand(args, *out != "", dir, true))
			}
			return ExitInterrupted
		}
		fmt.Fprintln(stderr, "hcbench:", err)
		if o == nil {
			return ExitFailure
		}
	}
	m := o.Manifest
	fmt.Fprintf(stdout, "run directory: %s\n", o.Dir)
	if m.Shard != nil {
		fmt.Fprintf(stdout, "shard %v: ", m.Shard)
	}
	fmt.Fprintf(stdout, "tasks: %d finished of %d, %d failed", m.Finished, m.Tasks, m.Failed)
	if o.Resumed > 0 {
		fmt.Fprintf(stdout, " (%d found finished and skipped)", o.Resumed)
	}
	if o.Retried > 0 {
		fmt.Fprintf(stdout, " (%d failed %s run again)", o.Retried, results.Plural(o.Retried, "task", "tasks"))
	}
	fmt.Fprintln(stdout)
	if filter != nil && m.Status == results.StatusIncomplete && err == nil {
		fmt.Fprintf(stdout, "-only %s: its tasks have run; the other %d run with: %s\n", filter, m.Tasks-m.Finished, resumeCommand(args, *out != "", o.Dir, false))
	}
	printReports(stdout, o.Reports)
	if m.Shard != nil && m.Status == results.StatusComplete {
		fmt.Fprintf(stdout, "merge the shards with: hcbench merge %s\n", o.Dir)
	}
	switch {
	case m.Status == results.StatusInterrupted:
		fmt.Fprintln(stderr, "hcbench: interrupted; the finished records are in", filepath.Join(o.Dir, results.ResultsFile))
		fmt.Fprintln(stderr, "resume with:", resumeCommand(args, *out != "", o.Dir, true))
		return ExitInterrupted
	case m.Status == results.StatusIncomplete && (filter == nil || err != nil):
		fmt.Fprintln(stderr, "resume with:", resumeCommand(args, *out != "", o.Dir, true))
		return ExitFailure
	case err != nil || m.Failed > 0 || len(m.Warnings) > 0:
		if m.Failed > 0 && err == nil {
			cmd := resumeCommand(args, *out != "", o.Dir, true)
			if !*retry {
				cmd += " -retry-failed"
			}
			fmt.Fprintf(stderr, "run the %d failed %s again with: %s\n", m.Failed, results.Plural(m.Failed, "task", "tasks"), cmd)
		}
		return ExitFailure
	}
	return ExitOK
}

// resumableRunDir returns the directory of a whole run of p without -out: the latest unfinished
// run of the same config in runs/ that this build may resume (with retryFailed, a complete run
// with failed tasks too), saying so on stderr (and which it passed over, why, and the command
// that resumes one anyway), else a new runs/<name>-<UTC time> (see defaultRunDir for its error).
// args are the run command's.
func resumableRunDir(p *plan.Plan, args []string, allowOtherBuild, retryFailed bool, stderr io.Writer) (string, error) {
	u, skipped, ok, err := runner.Resumable(p, "runs", allowOtherBuild, retryFailed)
	if err != nil {
		ok = false // the run itself reports a config that cannot be resolved
	}
	for _, s := range skipped {
		fmt.Fprintf(stderr, "hcbench: not resuming %s, an unfinished run of this config: %s", s.Dir, s.Why)
		if s.Flag != "" {
			fmt.Fprintf(stderr, "; resume it with: %s %s", resumeCommand(args, false, s.Dir, true), s.Flag)
		}
		fmt.Fprintln(stderr)
	}
	if !ok {
		return defaultRunDir(p.Config.Name, time.Now())
	}
	status := u.Manifest.Status
	switch {
	case status == results.StatusRunning:
		status = "killed"
	case status == results.StatusComplete:
		status = fmt.Sprintf("complete, %d failed", u.Manifest.Failed)
	}
	fmt.Fprintf(stderr, "hcbench: resuming %s (%s): %d of %s done; -out DIR runs into another directory\n", u.Dir, status, u.Recorded, english.Count(u.Manifest.Tasks, "task", "tasks"))
	return u.Dir, nil
}

// resumeCommand returns the command line that resumes the run into dir: the run command's args,
// with -out dir added when it was not given (outGiven), and without -only unless keepOnly.
func resumeCommand(args []string, outGiven bool, dir string, keepOnly bool) string {
	words := []string{"hcbench", "run"}
	for i := 0; i < len(args); i++ {
		a := args[i]
		if !keepOnly {
			name := strings.TrimLeft(a, "-")
			if strings.HasPrefix(a, "-") && name == "only" {
				i++ // and its value
				continue
			}
			if strings.HasPrefix(a, "-") && strings.HasPrefix(name, "only=") {
				continue
			}
		}
		words = append(words, shellQuote(a))
	}
	if !outGiven {
		words = append(words, "-out", shellQuote(dir))
	}
	return strings.Join(words, " ")
}

// shellQuote quotes s for a POSIX shell where it holds anything but plain characters.
func shellQuote(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_@%+=:,./-") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// printReports lists the Markdown reports and the HTML page of a run.
func printReports(w io.Writer, files []string) {
	for _, r := range files {
		if ext := filepath.Ext(r); ext == ".md" || ext == ".html" {
			fmt.Fprintf(w, "report: %s\n", r)
		}
	}
}

// chooseShard picks the shard of a run: the -shard flag, else the batch system's environment
// (Slurm arrays, Kubernetes Indexed Jobs), else none (every task). count is the -shards flag and
// cfgCount the config's shards, used with JOB_COMPLETION_INDEX.
func chooseShard(spec string, count, cfgCount int, getenv func(string) string) (*results.Shard, error) {
	if spec != "" {
		return parseShard(spec)
	}
	if id := getenv("SLURM_ARRAY_TASK_ID"); id != "" {
		n := getenv("SLURM_ARRAY_TASK_COUNT")
		if n == "" {
			return nil, fmt.Errorf("SLURM_ARRAY_TASK_ID is %s but SLURM_ARRAY_TASK_COUNT is not set; give -shard I/N", id)
		}
		i, err1 := strconv.Atoi(id)
		c, err2 := strconv.Atoi(n)
		lo := 0
		if m := getenv("SLURM_ARRAY_TASK_MIN"); m != "" {
			var err error
			if lo, err = strconv.Atoi(m); err != nil {
				return nil, fmt.Errorf("SLURM_ARRAY_TASK_MIN %q is not an integer", m)
			}
		}
		if err1 != nil || err2 != nil {
			return nil, fmt.Errorf("SLURM_ARRAY_TASK_ID %q and SLURM_ARRAY_TASK_COUNT %q must be integers", id, n)
		}
		s, err := newShard(i-lo, c)
		if err != nil {
			return nil, fmt.Errorf("from SLURM_ARRAY_TASK_ID %d (min %d) and SLURM_ARRAY_TASK_COUNT %d: %w (hcbench wants the array to be contiguous, e.g. --array=0-%d)", i, lo, c, err, c-1)
		}
		return s, nil
	}
	if id := getenv("JOB_COMPLETION_INDEX"); id != "" {
		if count == 0 {
			count = cfgCount
		}
		if count == 0 {
			return nil, fmt.Errorf("JOB_COMPLETION_INDEX is %s but the number of shards is not given: pass -shards N (the Job's completions) or set shards in the config", id)
		}
		i, err := strconv.Atoi(id)
		if err != nil {
			return nil, fmt.Errorf("JOB_COMPLETION_INDEX %q is not an integer", id)
		}
		return newShard(i, count)
	}
	return nil, nil
}

// parseShard reads "I/N".
func parseShard(spec string) (*results.Shard, error) {
	a, b, ok := strings.Cut(spec, "/")
	i, err1 := strconv.Atoi(strings.TrimSpace(a))
	n, err2 := strconv.Atoi(strings.TrimSpace(b))
	if !ok || err1 != nil || err2 != nil {
		return nil, fmt.Errorf("-shard wants I/N with integers, shard I of N counted from 0 (for example 0/4), got %q", spec)
	}
	return newShard(i, n)
}

// newShard checks 0 ≤ i < n; n = 1 means the whole run.
func newShard(i, n int) (*results.Shard, error) {
	switch {
	case n < 1:
		return nil, fmt.Errorf("the number of shards must be at least 1, got %d", n)
	case i < 0 || i >= n:
		return nil, fmt.Errorf("shard index %d is outside 0 to %d (shards are counted from 0)", i, n-1)
	case n == 1:
		return nil, nil
	}
	return &results.Shard{Index: i, Count: n}, nil
}

func cmdMerge(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := newFlags("merge", stderr, "merge [-out DIR] [-partial] [-allow-other-build] DIR...")
	out := fs.String("out", "", "the merged run directory (default runs/<name>-merged-<UTC time>); must not exist or be empty")
	partial := fs.Bool("partial", false, "merge even when tasks are missing (the manifest then says incomplete)")
	otherBuild := fs.Bool("allow-other-build", false, "merge shards that different builds (other executables: their SHA-256 differ) wrote; the merged manifest lists each shard's build")
	dirs, err := parse(fs, args)
	if err != nil {
		return flagError(fs, err, stdout)
	}
	if len(dirs) == 0 {
		fs.Usage()
		return ExitUsage
	}
	dir := *out
	if dir == "" {
		name := "merged"
		if ms, err := filepath.Glob(filepath.Join(dirs[0], results.ShardManifests)); err == nil && len(ms) > 0 {
			if m, err := results.ReadManifest(ms[0]); err == nil {
				name = m.Experiment + "-merged"
			}
		}
		if dir, err = defaultRunDir(name, time.Now()); err != nil {
			fmt.Fprintln(stderr, "hcbench: merge:", err)
			return ExitFailure
		}
	}
	log := slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: slog.LevelInfo}))
	o, err := rundir.Merge(ctx, dirs, rundir.MergeOptions{Out: dir, Partial: *partial, AllowOtherBuild: *otherBuild, Log: log})
	if ctx.Err() != nil {
		fmt.Fprintln(stderr, "hcbench: merge interrupted; nothing was written to", dir)
		return ExitInterrupted
	}
	if o == nil {
		fmt.Fprintln(stderr, "hcbench:", err)
		return ExitFailure
	}
	if err != nil {
		fmt.Fprintln(stderr, "hcbench:", err)
	}
	m := o.Manifest
	fmt.Fprintf(stdout, "merged %s into %s\n", english.Count(len(m.MergedFrom), "shard", "shards"), o.Dir)
	fmt.Fprintf(stdout, "tasks: %d finished of %d, %d failed\n", m.Finished, m.Tasks, m.Failed)
	printReports(stdout, o.Reports)
	if m.Status != results.StatusComplete || m.Failed > 0 || len(m.Warnings) > 0 {
		for _, w := range m.Warnings {
			fmt.Fprintln(stderr, "hcbench: warning:", w)
		}
		return ExitFailure
	}
	return ExitOK
}

func cmdReport(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := newFlags("report", stderr, "report [-reports A,B] DIR")
	only := fs.String("reports", "", "rebuild only these reports (comma-separated), adding any new one to the run's reports; default: the run's reports")
	dirs, err := parse(fs, args)
	if err != nil {
		return flagError(fs, err, stdout)
	}
	if len(dirs) != 1 {
		fs.Usage()
		return ExitUsage
	}
	var names []string
	if *only != "" {
		for n := range strings.SplitSeq(*only, ",") {
			if n = strings.TrimSpace(n); n != "" {
				names = append(names, n)
			}
		}
		if len(names) == 0 {
			fmt.Fprintf(stderr, "hcbench: -reports %q names no report\n", *only)
			return ExitUsage
		}
		if err := reports.Check(names); err != nil {
			fmt.Fprintln(stderr, "hcbench: -reports:", err)
			fs.Usage()
			return ExitUsage
		}
	}
	m, files, err := rundir.Rebuild(ctx, dirs[0], names)
	if ctx.Err() != nil {
		fmt.Fprintln(stderr, "hcbench: interrupted:", context.Cause(ctx))
		return ExitInterrupted
	}
	printReports(stdout, files) // those written whole, also when others failed
	if err != nil {
		fmt.Fprintln(stderr, "hcbench:", err)
		return ExitFailure
	}
	if m.Status != results.StatusComplete {
		// The reports are written, but a nightly job must not take them for a whole run's.
		fmt.Fprintf(stderr, "hcbench: warning: %s is not a finished run (status %s, %d of %s); its reports cover only the finished tasks\n", dirs[0], m.Status, m.Finished, english.Count(m.Tasks, "task", "tasks"))
		return ExitFailure
	}
	return ExitOK
}

// defaultRunDir returns runs/<name>-<UTC time>, with a numeric suffix if that exists already. It
// is an error when it cannot tell whether a name is free: runs is a file, or the name is too long
// for the file system (every suffix would fail alike).
func defaultRunDir(name string, now time.Time) (string, error) {
	if fi, err := os.Stat("runs"); err == nil && !fi.IsDir() {
		return "", errors.New("runs is not a directory, and runs/ is where a run directory goes without -out: move runs away, or give the directory with -out DIR")
	}
	base := filepath.Join("runs", name+"-"+now.UTC().Format("20060102-150405"))
	dir := base
	for i := 2; ; i++ {
		_, err := os.Lstat(dir)
		if errors.Is(err, os.ErrNotExist) {
			return dir, nil
		}
		if err != nil {
			return "", fmt.Errorf("cannot choose a new run directory: %w; give one with -out DIR", err)
		}
		dir = fmt.Sprintf("%s-%d", base, i)
	}
}

func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

// openRun opens a run directory for compare (rundir.Open, merged shards included); when it
// cannot, it says why on stderr and returns the exit code, else ExitOK.
func openRun(ctx context.Context, dir string, stderr io.Writer) (results.Manifest, []results.Record, int) {
	m, recs, err := rundir.Open(ctx, dir)
	if ctx.Err() != nil {
		fmt.Fprintln(stderr, "hcbench: interrupted:", context.Cause(ctx))
		return m, nil, ExitInterrupted
	}
	if err != nil {
		fmt.Fprintln(stderr, "hcbench:", err)
		return m, nil, ExitFailure
	}
	return m, recs, ExitOK
}

// compareAcross writes the comparison of the algorithms of the runs in dirs across their data
// sets into out (reports.BuildComparison) and prints its mean ranks. A task in two runs is an
// error: each (data set, item, algorithm) is compared once.
func compareAcross(ctx context.Context, dirs []string, o *reports.ComparisonOptions, out string, stdout, stderr io.Writer) int {
	if len(dirs) == 0 {
		fmt.Fprintln(stderr, "hcbench: compare -across needs one run directory or more")
		return ExitUsage
	}
	var in reports.Input
	from := map[string]string{} // task key → the run it came from
	var names []string
	for _, d := range dirs {
		m, recs, code := openRun(ctx, d, stderr)
		if code != ExitOK {
			return code
		}
		if m.Status != results.StatusComplete {
			fmt.Fprintf(stderr, "hcbench: warning: %s is %s: its %d finished tasks are compared\n", d, m.Status, len(recs))
		}
		if !slices.Contains(names, m.Experiment) {
			names = append(names, m.Experiment)
		}
		for _, ds := range m.Datasets {
			if !slices.Contains(in.Datasets, ds) {
				in.Datasets = append(in.Datasets, ds)
			}
		}
		for _, a := range m.Algorithms {
			if !slices.Contains(in.Algorithms, a) {
				in.Algorithms = append(in.Algorithms, a)
			}
		}
		for _, r := range recs {
			if prev, dup := from[r.Key]; dup {
				fmt.Fprintf(stderr, "hcbench: task %s is in both %s and %s; compare -across takes each task once (give one of the runs, or label the variants apart)\n", r.Key, prev, d)
				return ExitFailure
			}
			from[r.Key] = d
			in.Records = append(in.Records, r)
		}
	}
	in.Experiment = strings.Join(names, " + ")
	if err := os.MkdirAll(out, 0o755); err != nil {
		fmt.Fprintln(stderr, "hcbench:", err)
		return ExitFailure
	}
	files, err := reports.BuildComparison(in, o, out)
	if err != nil {
		fmt.Fprintln(stderr, "hcbench: compare -across:", err)
		return ExitFailure
	}
	ranks, err := os.ReadFile(filepath.Join(out, reports.ComparisonDir, "ranks.csv"))
	if err == nil {
		fmt.Fprintf(stdout, "%s", ranks)
	}
	fmt.Fprintf(stdout, "comparison: %s (%d files; %s)\n", filepath.Join(out, reports.ComparisonReport+".md"), len(files), filepath.Join(out, reports.ComparisonDir, "pairs.csv"))
	return ExitOK
}

func cmdCompare(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	// The thresholds default to NEW's config (its manifest); a flag given overrides one. There is a
	// flag per metric that compare tracks (package metric's table; time among them), its key
	// with '-' for '_'.
	synopsis := "compare"
	tracked := metric.Tracked(metric.Compare)
	for _, m := range tracked {
		synopsis += " [-" + m.Flag() + " X]"
	}
	fs := newFlags("compare", stderr, synopsis+" [-time-test pooled|stratified] [-alpha A] [-allow-missing] [-check [-markdown FILE]] OLD NEW\n  hcbench compare -across [-out DIR] [-metrics M,…] [-rope M=X,…] [-seed S] RUN…")
	values := map[string]*float64{} // by flag name
	flagKey := map[string]string{}  // the metric key of each flag
	for _, m := range tracked {
		values[m.Flag()] = fs.Float64(m.Flag(), 0, m.ThresholdHelp+" (default: NEW's config)")
		flagKey[m.Flag()] = m.Key
		// A renamed metric keeps its earlier flag, so that scripts that use it still run.
		for _, old := range m.OldKeys {
			name := strings.ReplaceAll(old, "_", "-")
			values[name] = fs.Float64(name, 0, "the same as -"+m.Flag()+", its name in earlier builds")
			flagKey[name] = m.Key
		}
	}
	allowMissing := fs.Bool("allow-missing", false, "do not fail when NEW did not finish or lacks tasks of OLD; compare the tasks both have")
	timeTest := fs.String("time-test", compare.DefaultTimeTest, "the test of a row's times: pooled (Mann-Whitney over every timing, as benchstat) or stratified (van Elteren's test with the items as strata)")
	alpha := fs.Float64("alpha", compare.Alpha, "the time test's significance level (0 < A < 1)")
	check := fs.Bool("check", false, "the CI gate: after the report, print the findings one per line and exit 0 (nothing regressed), 1 (something regressed) or 2 (the gate could not decide: missing runs, different configs or data, failed tasks, an unfinished run)")
	markdown := fs.String("markdown", "", "with -check: also write the findings as Markdown (a table for a pull-request comment) to this file")
	across := fs.Bool("across", false, "compare the algorithms of finished runs across their data sets instead (the comparison report's statistics and figures; merged shards included)")
	acrossOut := fs.String("out", "comparison", "with -across: the folder the comparison is written to")
	acrossMetrics := fs.String("metrics", "", "with -across: the metrics compared, keys separated by commas (default: the comparison report's)")
	acrossROPE := fs.String("rope", "", "with -across: regions of practical equivalence, METRIC=HALF_WIDTH separated by commas (default: 0.01 for a score whose best is 1, else 0)")
	acrossSeed := fs.Uint64("seed", 1, "with -across: the seed of the bootstrap and the Bayesian test")
	dirs, err := parse(fs, args)
	if err != nil {
		return flagError(fs, err, stdout)
	}
	if *across {
		o := reports.NewComparisonOptions()
		o.Seed = *acrossSeed
		if err := o.SetFlags(*acrossMetrics, *acrossROPE); err != nil {
			fmt.Fprintln(stderr, "hcbench:", err)
			return ExitUsage
		}
		return compareAcross(ctx, dirs, o, *acrossOut, stdout, stderr)
	}
	if len(dirs) != 2 {
		fs.Usage()
		return ExitUsage
	}
	switch {
	case !compare.ValidTimeTest(*timeTest):
		fmt.Fprintf(stderr, "hcbench: -time-test must be one of %s, got %q\n", strings.Join(compare.TimeTests, ", "), *timeTest)
		return ExitUsage
	case !(*alpha > 0 && *alpha < 1):
		fmt.Fprintf(stderr, "hcbench: -alpha must be between 0 and 1, got %v\n", *alpha)
		return ExitUsage
	case *markdown != "" && !*check:
		fmt.Fprintln(stderr, "hcbench: -markdown needs -check")
		return ExitUsage
	}
	var runs [2]compare.Run
	var unreadable []compare.Finding // with -check: the runs that cannot be read
	for i, d := range dirs {
		var msg strings.Builder
		m, recs, code := openRun(ctx, d, io.MultiWriter(stderr, &msg))
		switch {
		case code == ExitOK:
			runs[i] = compare.Run{Manifest: m, Records: recs}
		case *check && code == ExitFailure:
			unreadable = append(unreadable, compare.Finding{Undecided: true,
				Figure: fmt.Sprintf("%s run %s cannot be read: %s", [2]string{"OLD", "NEW"}[i], d, strings.TrimPrefix(strings.TrimSpace(msg.String()), "hcbench: "))})
		default:
			return code
		}
	}
	if len(unreadable) > 0 {
		return gate(unreadable, *markdown, stdout, stderr)
	}
	th := metric.Resolve(runs[1].Manifest.Thresholds) // a copy, old keys renamed, defaults filled
	given := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { given[f.Name] = true })
	for _, name := range slices.Sorted(maps.Keys(values)) {
		if !given[name] {
			continue
		}
		if v := *values[name]; v < 0 || math.IsNaN(v) || math.IsInf(v, 0) {
			fmt.Fprintf(stderr, "hcbench: -%s must be a non-negative number, got %v\n", name, v)
			return ExitUsage
		}
		th.Set(flagKey[name], *values[name])
	}
	r := compare.Compare(runs[0], runs[1], compare.Options{Thresholds: th, AllowMissing: *allowMissing, TimeTest: *timeTest, Alpha: *alpha})
	if err := r.WriteText(stdout); err != nil {
		fmt.Fprintln(stderr, "hcbench:", err)
		return ExitFailure
	}
	if *check {
		fmt.Fprintln(stdout)
		return gate(r.Findings(), *markdown, stdout, stderr)
	}
	if r.Failed() {
		return ExitFailure
	}
	return ExitOK
}

// gate prints a gate's findings as plain text (compare.WriteFindingsText), writes them as
// Markdown to markdown unless it is "", and returns the verdict as the exit code: 0 nothing
// regressed, 1 something regressed, 2 the gate could not decide (a Markdown file that cannot be
// written among the reasons, unless something regressed).
func gate(fs []compare.Finding, markdown string, stdout, stderr io.Writer) int {
	if markdown != "" {
		var b bytes.Buffer
		err := compare.WriteFindingsMarkdown(&b, "hcbench compare -check", fs)
		if err == nil {
			err = os.WriteFile(markdown, b.Bytes(), 0o644)
		}
		if err != nil {
			fs = append(fs, compare.Finding{Undecided: true, Figure: "the Markdown findings cannot be written: " + err.Error()})
		}
	}
	if err := compare.WriteFindingsText(stdout, fs); err != nil {
		fmt.Fprintln(stderr, "hcbench:", err)
		fs = append(fs, compare.Finding{Undecided: true, Figure: "the findings cannot be printed: " + err.Error()})
	}
	return int(compare.Decide(fs))
}
