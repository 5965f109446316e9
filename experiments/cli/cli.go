// Package cli is the hcbench command line: subcommands that validate, plan and run experiment
// configs. Main takes the arguments and writers and returns the exit code, so that the whole
// command is testable in-process.
//
// Exit codes: 0 success; 1 a bad config or data, a failed task, or a run that could not finish;
// 2 a usage error (unknown subcommand or flag); 130 interrupted by a signal.
package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"golang.org/x/term"

	"hcbench/experiments/config"
	"hcbench/experiments/plan"
	"hcbench/experiments/results"
	"hcbench/experiments/runner"
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
  hcbench run CONFIG [-out DIR] [-workers N] [-save-data]
                               run an experiment and write its run directory and reports
  hcbench validate CONFIG...   check configs (and read their data files) without running
  hcbench plan CONFIG          print the task list of a config
  hcbench help                 this text
  hcbench help config          every config key, its meaning and default

With go run: go run . run configs/quickstart.yaml
Exit codes: 0 ok, 1 bad input or failed tasks, 2 usage error, 130 interrupted.
`

// Main runs the command line args (without the program name) and returns the exit code. Ctrl-C
// and SIGTERM interrupt a run cleanly.
func Main(args []string, stdout, stderr io.Writer) int {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
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
	case "run":
		return cmdRun(ctx, rest, stdout, stderr)
	case "validate":
		return cmdValidate(rest, stdout, stderr)
	case "plan":
		return cmdPlan(rest, stdout, stderr)
	case "help", "-h", "-help", "--help":
		return cmdHelp(rest, stdout, stderr)
	}
	fmt.Fprintf(stderr, "hcbench: unknown command %q\n\n%s", cmd, usage)
	return ExitUsage
}

// parse parses flags that may come before or after the positional arguments (stdlib flag stops
// at the first positional one) and returns the positional arguments.
func parse(fs *flag.FlagSet, args []string) ([]string, error) {
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
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
		fmt.Fprintf(stderr, "Usage: hcbench %s\n", synopsis)
		fs.PrintDefaults()
	}
	return fs
}

func cmdHelp(args []string, stdout, stderr io.Writer) int {
	switch {
	case len(args) == 0:
		fmt.Fprint(stdout, usage)
		return ExitOK
	case len(args) == 1 && args[0] == "config":
		if err := config.WriteHelp(stdout); err != nil {
			fmt.Fprintln(stderr, "hcbench:", err)
			return ExitFailure
		}
		return ExitOK
	}
	fmt.Fprintf(stderr, "hcbench: unknown help topic %q (try: hcbench help config)\n", strings.Join(args, " "))
	return ExitUsage
}

// load reads a config and opens its plan; problems go to stderr.
func load(path string, stderr io.Writer) (*plan.Plan, bool) {
	cfg, err := config.Load(path)
	if err != nil {
		fmt.Fprintln(stderr, err)
		return nil, false
	}
	p, err := plan.New(cfg)
	if err != nil {
		fmt.Fprintln(stderr, err)
		return nil, false
	}
	return p, true
}

func cmdValidate(args []string, stdout, stderr io.Writer) int {
	fs := newFlags("validate", stderr, "validate CONFIG...")
	files, err := parse(fs, args)
	if err != nil {
		return ExitUsage
	}
	if len(files) == 0 {
		fs.Usage()
		return ExitUsage
	}
	code := ExitOK
	for _, f := range files {
		p, ok := load(f, stderr)
		if !ok {
			code = ExitFailure
			continue
		}
		fmt.Fprintf(stdout, "%s: ok (%d data sets, %d algorithms, %d tasks)\n", f, len(p.Datasets), len(p.Config.Algorithms), len(p.Tasks))
	}
	return code
}

func cmdPlan(args []string, stdout, stderr io.Writer) int {
	fs := newFlags("plan", stderr, "plan CONFIG")
	files, err := parse(fs, args)
	if err != nil {
		return ExitUsage
	}
	if len(files) != 1 {
		fs.Usage()
		return ExitUsage
	}
	p, ok := load(files[0], stderr)
	if !ok {
		return ExitFailure
	}
	if err := p.Write(stdout); err != nil {
		fmt.Fprintln(stderr, "hcbench:", err)
		return ExitFailure
	}
	return ExitOK
}

func cmdRun(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := newFlags("run", stderr, "run CONFIG [-out DIR] [-workers N] [-save-data]")
	out := fs.String("out", "", "run directory (default runs/<name>-<UTC time>); must not exist or be empty")
	workers := fs.Int("workers", 0, "tasks run at once (default: the config's workers, else all cores)")
	saveData := fs.Bool("save-data", false, "also write generated data sets to data/<name>.jsonl in the run directory")
	every := fs.Duration("progress", 10*time.Second, "when stderr is not a terminal, log a progress line this often (0: never)")
	files, err := parse(fs, args)
	if err != nil {
		return ExitUsage
	}
	if len(files) != 1 {
		fs.Usage()
		return ExitUsage
	}
	if *workers < 0 {
		fmt.Fprintf(stderr, "hcbench: -workers must be 0 (all cores) or positive, got %d\n", *workers)
		return ExitUsage
	}
	p, ok := load(files[0], stderr)
	if !ok {
		return ExitFailure
	}
	dir := *out
	if dir == "" {
		dir = defaultRunDir(p.Config.Name, time.Now())
	}
	terminal := isTerminal(stderr)
	log := slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: slog.LevelInfo}))
	o, err := runner.Run(ctx, p, runner.Options{
		Dir:           dir,
		Workers:       *workers,
		SaveData:      *saveData,
		Args:          append([]string{"run"}, args...),
		Log:           log,
		Progress:      stderr,
		Terminal:      terminal,
		ProgressEvery: *every,
	})
	if err != nil {
		fmt.Fprintln(stderr, "hcbench:", err)
		if o == nil {
			return ExitFailure
		}
	}
	m := o.Manifest
	fmt.Fprintf(stdout, "run directory: %s\n", o.Dir)
	fmt.Fprintf(stdout, "tasks: %d finished of %d, %d failed\n", m.Finished, m.Tasks, m.Failed)
	for _, r := range o.Reports {
		if filepath.Ext(r) == ".md" {
			fmt.Fprintf(stdout, "report: %s\n", r)
		}
	}
	switch {
	case m.Status == results.StatusInterrupted:
		fmt.Fprintln(stderr, "hcbench: interrupted; the finished records are in", filepath.Join(o.Dir, runner.ResultsFile))
		return ExitInterrupted
	case err != nil || m.Failed > 0 || len(m.Warnings) > 0:
		return ExitFailure
	}
	return ExitOK
}

// defaultRunDir returns runs/<name>-<UTC time>, with a numeric suffix if that exists already.
func defaultRunDir(name string, now time.Time) string {
	base := filepath.Join("runs", name+"-"+now.UTC().Format("20060102-150405"))
	dir := base
	for i := 2; ; i++ {
		if _, err := os.Stat(dir); errors.Is(err, os.ErrNotExist) {
			return dir
		}
		dir = fmt.Sprintf("%s-%d", base, i)
	}
}

func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}
