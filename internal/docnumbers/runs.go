package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"time"

	"github.com/hcbench/hcbench/datasets/datadir"
	"github.com/hcbench/hcbench/experiments/cli"
	"github.com/hcbench/hcbench/experiments/config"
	"github.com/hcbench/hcbench/experiments/plan"
	"github.com/hcbench/hcbench/experiments/registry"
	"github.com/hcbench/hcbench/experiments/results"
)

// A configRun is a shipped config (configs/NAME.yaml) run to the end: its records and manifest,
// what the plan expected of it, and, when it ran as a process of its own, what it cost.
type configRun struct {
	name     string
	dir      string
	records  []results.Record
	manifest results.Manifest
	// planSeconds and planMemory are what `hcbench plan` expects: the wall time on the config's
	// workers and the memory estimate.
	planSeconds float64
	planMemory  int64
	// algorithms are the variants of the plan's tasks by task key, for what the plan expected
	// of each task (expectedSeconds).
	algorithms map[string]config.Algorithm
	// measured says wall, cpu and peakRSS are set (a run in a child process).
	measured  bool
	wall, cpu time.Duration
	peakRSS   int64
	// gaps are the values a region asked of the records and did not find (see missing); render
	// fails the region when there are any.
	gaps []string
}

// missing notes that a region's renderer asked for values the records do not hold: a renamed
// data set or algorithm, or a failed algorithm, which must fail the region, not print NaN.
func (r *configRun) missing(what string) {
	r.gaps = append(r.gaps, r.name+": "+what)
}

// records returns the records of data set ds and algorithm label alg, in plan order.
func (r *configRun) recordsOf(ds, alg string) []results.Record {
	var out []results.Record
	for _, rec := range r.records {
		if rec.Dataset == ds && rec.Algorithm == alg {
			out = append(out, rec)
		}
	}
	return out
}

// A configRunner runs configs: as child processes of a built hcbench (the script, which measures
// them), or in this process (the test, which needs only their records).
type configRunner struct {
	root    string // the module root
	data    datadir.Location
	workDir string // run directories go to workDir/NAME
	binary  string // the built hcbench; "" runs in this process
}

// configPath is the path of the shipped config name.
func (c *configRunner) configPath(name string) string {
	return filepath.Join(c.root, "configs", name+".yaml")
}

// build compiles hcbench into the work directory, for runs measured as processes of their own.
func (c *configRunner) build(ctx context.Context) error {
	c.binary = filepath.Join(c.workDir, "hcbench")
	cmd := exec.CommandContext(ctx, "go", "build", "-o", c.binary, ".")
	cmd.Dir = c.root
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("go build: %v\n%s", err, out)
	}
	return nil
}

// run runs the config name into a fresh directory and reads what it wrote. A run with a failed
// task is an error: documented numbers come from complete runs.
func (c *configRunner) run(ctx context.Context, name string) (*configRun, error) {
	r := &configRun{name: name, dir: filepath.Join(c.workDir, name)}
	if err := os.RemoveAll(r.dir); err != nil {
		return nil, err
	}
	if err := r.expect(ctx, c.configPath(name), c.data); err != nil {
		return nil, err
	}
	args := []string{"run", c.configPath(name), "-out", r.dir, "-data", c.data.Path, "-progress", "0"}
	var stderr bytes.Buffer
	if c.binary == "" {
		if code := cli.Run(ctx, args, &bytes.Buffer{}, &stderr); code != cli.ExitOK {
			return nil, fmt.Errorf("%s: hcbench run exited %d: %s", name, code, lastLines(stderr.String(), 10))
		}
	} else {
		cmd := exec.CommandContext(ctx, c.binary, args...)
		cmd.Dir = c.root
		cmd.Stderr = &stderr
		start := time.Now()
		err := cmd.Run()
		r.wall = time.Since(start)
		if err != nil {
			return nil, fmt.Errorf("%s: %s: %v: %s", name, strings.Join(cmd.Args, " "), err, lastLines(stderr.String(), 10))
		}
		r.measured = true
		r.cpu = cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
		// The run's own peak, as it logged it: wait4's would count this process's, which holds
		// the records of the runs before it.
		peak, ok, err := results.LoggedPeak(filepath.Join(r.dir, results.LogFile))
		if err != nil {
			return nil, err
		}
		if !ok {
			return nil, fmt.Errorf("%s: the run logged no peak memory (%s)", name, filepath.Join(r.dir, results.LogFile))
		}
		r.peakRSS = peak
	}
	var err error
	if r.records, err = results.ReadFile(filepath.Join(r.dir, results.ResultsFile)); err != nil {
		return nil, err
	}
	if r.manifest, err = results.ReadManifest(filepath.Join(r.dir, results.ManifestFile)); err != nil {
		return nil, err
	}
	if r.manifest.Failed > 0 || r.manifest.Status != results.StatusComplete {
		return nil, fmt.Errorf("%s: the run ended %s with %d failed tasks (%s)", name, r.manifest.Status, r.manifest.Failed, r.dir)
	}
	return r, nil
}

// expect fills in what the plan expects of the config: the time on its workers and the memory.
func (r *configRun) expect(ctx context.Context, path string, data datadir.Location) error {
	cfg, err := config.LoadOptions(path, config.Options{DataDir: data})
	if err != nil {
		return err
	}
	p, err := plan.NewShard(ctx, cfg, 1)
	if err != nil {
		return err
	}
	r.algorithms = make(map[string]config.Algorithm, len(p.Tasks))
	for _, t := range p.Tasks {
		r.algorithms[t.Key] = t.Algorithm
	}
	workers := p.Config.WorkersFor(0)
	r.planSeconds = p.ExpectedSeconds(workers, nil)
	r.planMemory = p.Memory(workers, nil).Bytes
	return nil
}

// maxRSSBytes is a child's peak resident set in bytes (Linux counts ru_maxrss in KiB, macOS in
// bytes).
func maxRSSBytes(ru *syscall.Rusage) int64 {
	if runtime.GOOS == "darwin" {
		return int64(ru.Maxrss)
	}
	return int64(ru.Maxrss) * 1024
}

// lastLines is the end of a command's output, for an error message.
func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

// expectedSeconds is the time the plan's cost model gives the task of record rec, at its item's
// leaf count, one run of it (rec.Seconds is one run's time, or the median of its runs); false
// for a task the plan does not hold.
func (r *configRun) expectedSeconds(rec *results.Record) (string, float64, bool) {
	a, ok := r.algorithms[rec.Key]
	if !ok {
		return "", 0, false
	}
	alg, ok := registry.LookupAlgorithm(a.Name)
	if !ok {
		return "", 0, false
	}
	return a.Name, alg.TaskSeconds(a.Params, rec.N), true
}
