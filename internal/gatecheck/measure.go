package main

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/hcbench/hcbench/experiments/results"
)

// plantEnv is the variable that makes the planted binary slow its spin entries down; it is
// PlantEnv of ./internal/gatecheck/planted (TestPlantEnvMatches).
const plantEnv = "HCBENCH_GATECHECK_PLANT"

// planted is the table of planted slowdowns: a spin entry per level, on the data set
// plantedDataset, each slowed by its slowdown in the planted runs and not at all in the
// baseline runs.
var planted = []level{{"spin5", 0.05}, {"spin10", 0.10}, {"spin20", 0.20}}

// A level is a planted slowdown: its spin entry's label and its relative slowdown.
type level struct {
	label    string
	slowdown float64
}

// plantedDataset is the spin entries' data set: 20 generated jets of 5 to 12 leaves, on which
// spin takes a few milliseconds a task (above compare.MinTimed), and 20 timings a row at K = 1
// (above compare.MinTimeSamples).
const (
	plantedDataset = "planted"
	plantedYAML    = "{name: planted, generator: ginkgo, jets: 20, min_leaves: 5, max_leaves: 12, t_cut: 16}"
	spinWork       = 200000 // steps per leaf: about 2 to 6 ms a task on the development machine
)

// measureOptions are measure's flags.
type measureOptions struct {
	dir, config          *string
	pairs, kmax, workers *int
	load                 *int
	runSeconds           *float64
}

func measureFlags(fs *flag.FlagSet) measureOptions {
	return measureOptions{
		dir:        fs.String("dir", "", "the measurement's directory, outside the repository (created, or resumed)"),
		config:     fs.String("config", "configs/nightly.yaml", "the config whose rows are measured (the planted entries are added to it)"),
		pairs:      fs.Int("pairs", 20, "at least this many A/A pairs and this many planted pairs (2·(N/2 + 1) runs, N rounded up to even)"),
		kmax:       fs.Int("kmax", 5, "the -count of every run; the analysis tries K = 1 … kmax"),
		workers:    fs.Int("workers", runtime.NumCPU(), "the -workers of every run"),
		load:       fs.Int("load", 0, "background load during the runs: this many threads of this process, each a tight integer loop (one thread is one core busy)"),
		runSeconds: fs.Float64("run-seconds", 14, "a run's wall time at -count 1 on this machine, for the first estimate (14: configs/nightly.yaml on the 2-core development machine, 2026-11-28); later estimates use the runs' own times"),
	}
}

// plan is the measurement's parameters, kept in the directory (planFile) so that a resume runs
// the same measurement and report can analyse it.
type plan struct {
	KMax    int `json:"kmax"`
	Workers int `json:"workers"`
	Load    int `json:"load"`
	// Rounds is n: the runs are b00 p00 b01 p01 … in that order, n of each.
	Rounds int `json:"rounds"`
	// ConfigSHA256 is the measurement config's sum (config.yaml in the directory).
	ConfigSHA256 string `json:"config_sha256"`
	Base         string `json:"base_config"`
}

const (
	planFile   = "gatecheck.json"
	configFile = "config.yaml"
	binaryFile = "bin/hcbench-planted"
)

// runName is the name of round i's baseline (planted false) or planted run.
func runName(i int, isPlanted bool) string {
	if isPlanted {
		return fmt.Sprintf("p%02d", i)
	}
	return fmt.Sprintf("b%02d", i)
}

// rounds is the number of rounds that give at least pairs A/A pairs: 2(n−1) of them, from
// consecutive baseline runs and consecutive planted runs.
func rounds(pairs int) int { return (pairs+1)/2 + 1 }

func measure(ctx context.Context, o measureOptions, g grid, stdout io.Writer) error {
	switch {
	case *o.dir == "":
		return usageError{errors.New("measure needs -dir")}
	case *o.pairs < 1 || *o.kmax < 1 || *o.kmax > 100 || *o.workers < 1 || *o.load < 0 || *o.runSeconds <= 0:
		return usageError{errors.New("-pairs, -kmax (at most 100) and -workers must be at least 1, -load at least 0, -run-seconds positive")}
	}
	dir, err := filepath.Abs(*o.dir)
	if err != nil {
		return err
	}
	if inRepository(dir) {
		return usageError{fmt.Errorf("-dir %s is inside a git checkout: measure into a scratch directory", dir)}
	}
	cfg, err := measurementConfig(*o.config)
	if err != nil {
		return err
	}
	sum := sha256.Sum256(cfg)
	p := plan{KMax: *o.kmax, Workers: *o.workers, Load: *o.load, Rounds: rounds(*o.pairs), ConfigSHA256: hex.EncodeToString(sum[:]), Base: *o.config}
	if err := os.MkdirAll(filepath.Join(dir, "logs"), 0o755); err != nil {
		return err
	}
	if err := keepPlan(dir, p, cfg); err != nil {
		return err
	}
	bin := filepath.Join(dir, binaryFile)
	if _, err := os.Stat(bin); err != nil {
		fmt.Fprintf(stdout, "gatecheck: go build -o %s ./internal/gatecheck/planted\n", bin)
		build := exec.CommandContext(ctx, "go", "build", "-o", bin, "./internal/gatecheck/planted")
		if out, err := build.CombinedOutput(); err != nil {
			return fmt.Errorf("building the planted hcbench: %v\n%s", err, out)
		}
	} else {
		fmt.Fprintf(stdout, "gatecheck: resuming %s with its binary %s\n", dir, bin)
	}

	left, total := pending(dir, p)
	perRun := float64(p.KMax) * *o.runSeconds
	fmt.Fprintf(stdout, "gatecheck: %d runs (%d A/A pairs, %d planted pairs) of %s with -count %d -workers %d, background load: %s\n",
		total, 2*(p.Rounds-1), 2*p.Rounds-1, *o.config, p.KMax, p.Workers, loadName(p.Load))
	fmt.Fprintf(stdout, "gatecheck: %d to run, about %s each (-count %d × %gs), about %s in all\n",
		len(left), duration(perRun), p.KMax, *o.runSeconds, duration(perRun*float64(len(left))))

	stopLoad := startLoad(p.Load)
	var spent float64
	for j, t := range left {
		if err := ctx.Err(); err != nil {
			stopLoad()
			return fmt.Errorf("interrupted before %s: the same command resumes it: %w", t.name, err)
		}
		start := time.Now()
		err := runOne(ctx, dir, bin, t.name, t.planted, p)
		secs := time.Since(start).Seconds()
		if err != nil {
			stopLoad()
			return err
		}
		spent += secs
		remaining := float64(len(left)-j-1) * spent / float64(j+1)
		fmt.Fprintf(stdout, "gatecheck: [%d/%d] %s (%s) took %s; about %s left\n", j+1, len(left), t.name, kindOfRun(t.planted), duration(secs), duration(remaining))
	}
	stopLoad()
	ms, err := analyse(ctx, []string{dir}, g)
	if err != nil {
		return err
	}
	return writeOutputs(ms[0], stdout)
}

func kindOfRun(isPlanted bool) string {
	if isPlanted {
		return "planted"
	}
	return "baseline"
}

// loadName says what background load the measurement ran under.
func loadName(n int) string {
	switch n {
	case 0:
		return "none added"
	case 1:
		return "1 busy thread (a tight integer loop)"
	}
	return fmt.Sprintf("%d busy threads (tight integer loops)", n)
}

func duration(secs float64) string {
	return time.Duration(secs * float64(time.Second)).Round(time.Second).String()
}

// inRepository reports whether dir is in a git work tree (a .git entry in it or above it).
func inRepository(dir string) bool {
	for d := dir; ; d = filepath.Dir(d) {
		if _, err := os.Stat(filepath.Join(d, ".git")); err == nil {
			return true
		}
		if filepath.Dir(d) == d {
			return false
		}
	}
}

// measurementConfig returns the config of base with reports off (reports do not enter the
// config hash) and the planted data set and spin entries added.
func measurementConfig(base string) ([]byte, error) {
	text, err := os.ReadFile(base)
	if err != nil {
		return nil, err
	}
	var doc yaml.Node
	if err := yaml.Unmarshal(text, &doc); err != nil {
		return nil, fmt.Errorf("%s: %w", base, err)
	}
	if len(doc.Content) != 1 || doc.Content[0].Kind != yaml.MappingNode {
		return nil, fmt.Errorf("%s: not a config (a mapping)", base)
	}
	root := doc.Content[0]
	value := func(key string) *yaml.Node {
		for i := 0; i+1 < len(root.Content); i += 2 {
			if root.Content[i].Value == key {
				return root.Content[i+1]
			}
		}
		return nil
	}
	node := func(s string) *yaml.Node {
		var n yaml.Node
		if err := yaml.Unmarshal([]byte(s), &n); err != nil {
			panic(err) // the entries below are constants
		}
		return n.Content[0]
	}
	ds, algs := value("datasets"), value("algorithms")
	if ds == nil || algs == nil || ds.Kind != yaml.SequenceNode || algs.Kind != yaml.SequenceNode {
		return nil, fmt.Errorf("%s: no datasets or algorithms list", base)
	}
	ds.Content = append(ds.Content, node(plantedYAML))
	for _, l := range planted {
		algs.Content = append(algs.Content, node(fmt.Sprintf("{name: spin, label: %s, work: %d, slowdown: %g, datasets: [%s]}", l.label, spinWork, l.slowdown, plantedDataset)))
	}
	if r := value("reports"); r != nil {
		*r = *node("[]")
	} else {
		root.Content = append(root.Content, node("reports"), node("[]"))
	}
	var out bytes.Buffer
	enc := yaml.NewEncoder(&out)
	enc.SetIndent(2)
	if err := enc.Encode(&doc); err != nil {
		return nil, err
	}
	return out.Bytes(), enc.Close()
}

// keepPlan writes the plan and the config into a new measurement directory, or checks that a
// resumed one measures the same (its round count may change: -pairs only adds or drops runs).
func keepPlan(dir string, p plan, cfg []byte) error {
	path := filepath.Join(dir, planFile)
	b, err := os.ReadFile(path)
	if err == nil {
		var old plan
		if err := json.Unmarshal(b, &old); err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
		if old.KMax != p.KMax || old.Workers != p.Workers || old.Load != p.Load || old.ConfigSHA256 != p.ConfigSHA256 {
			return usageError{fmt.Errorf("%s measures another setting (-kmax %d -workers %d -load %d, config sha256 %.12s; now -kmax %d -workers %d -load %d, %.12s): use another -dir",
				dir, old.KMax, old.Workers, old.Load, old.ConfigSHA256, p.KMax, p.Workers, p.Load, p.ConfigSHA256)}
		}
	} else if !errors.Is(err, os.ErrNotExist) {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, configFile), cfg, 0o644); err != nil {
		return err
	}
	b, _ = json.MarshalIndent(p, "", "  ")
	return os.WriteFile(path, append(b, '\n'), 0o644)
}

func readPlan(dir string) (plan, error) {
	var p plan
	b, err := os.ReadFile(filepath.Join(dir, planFile))
	if err != nil {
		return p, fmt.Errorf("%s is not a gatecheck measurement: %w", dir, err)
	}
	if err := json.Unmarshal(b, &p); err != nil {
		return p, fmt.Errorf("%s: %w", filepath.Join(dir, planFile), err)
	}
	return p, nil
}

// A todo is a run still to run.
type todo struct {
	name    string
	planted bool
}

// pending lists the plan's runs that have no complete run directory yet, in run order, and
// counts all of them.
func pending(dir string, p plan) (left []todo, total int) {
	for i := range p.Rounds {
		for _, pl := range []bool{false, true} {
			total++
			if !complete(filepath.Join(dir, runName(i, pl))) {
				left = append(left, todo{runName(i, pl), pl})
			}
		}
	}
	return left, total
}

// complete reports whether the run directory holds a complete run.
func complete(dir string) bool {
	m, err := results.ReadManifest(filepath.Join(dir, results.ManifestFile))
	return err == nil && m.Status == results.StatusComplete
}

// runOne runs one run of the measurement into dir/name, from its start: an unfinished run of
// an earlier attempt is removed (resuming it would mix its times with another moment's load).
func runOne(ctx context.Context, dir, bin, name string, isPlanted bool, p plan) error {
	out := filepath.Join(dir, name)
	if err := os.RemoveAll(out); err != nil {
		return err
	}
	logPath := filepath.Join(dir, "logs", name+".log")
	log, err := os.Create(logPath)
	if err != nil {
		return err
	}
	defer log.Close()
	cmd := exec.CommandContext(ctx, bin, "run", filepath.Join(dir, configFile), "-out", out,
		"-count", strconv.Itoa(p.KMax), "-workers", strconv.Itoa(p.Workers))
	cmd.Cancel = func() error { return cmd.Process.Signal(os.Interrupt) }
	cmd.WaitDelay = 30 * time.Second
	cmd.Stdout, cmd.Stderr = log, log
	env := []string{}
	for _, e := range os.Environ() {
		if len(e) < len(plantEnv)+1 || e[:len(plantEnv)+1] != plantEnv+"=" {
			env = append(env, e)
		}
	}
	if isPlanted {
		env = append(env, plantEnv+"=1")
	}
	cmd.Env = env
	runErr := cmd.Run()
	if ctx.Err() != nil {
		return fmt.Errorf("interrupted in %s: the same command resumes the measurement: %w", name, ctx.Err())
	}
	if !complete(out) {
		return fmt.Errorf("run %s did not complete (%v): see %s", name, runErr, logPath)
	}
	if runErr != nil {
		// Complete with a failed task: compare then leaves that task out of its row.
		fmt.Fprintf(os.Stderr, "gatecheck: warning: %s: %v (a task failed; see %s)\n", name, runErr, logPath)
	}
	return nil
}

// startLoad starts n busy threads and returns the function that stops them.
func startLoad(n int) func() {
	if n == 0 {
		return func() {}
	}
	if runtime.GOMAXPROCS(0) < n+1 {
		runtime.GOMAXPROCS(n + 1)
	}
	var stop atomic.Bool
	var wg sync.WaitGroup
	for range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			runtime.LockOSThread()
			x := uint64(1)
			for !stop.Load() {
				for range 1 << 20 {
					x ^= x << 13
					x ^= x >> 7
					x ^= x << 17
				}
			}
			sink.Add(x)
		}()
	}
	var once sync.Once
	return func() { once.Do(func() { stop.Store(true); wg.Wait() }) }
}

// sink keeps the busy loops' results live.
var sink atomic.Uint64
