package plan

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/hcbench/hcbench/experiments/config"
	"github.com/hcbench/hcbench/experiments/memory"
	"github.com/hcbench/hcbench/experiments/registry"
	"github.com/hcbench/hcbench/experiments/results"
	"github.com/hcbench/hcbench/internal/limittest"
)

// buildHCBench builds hcbench into a temporary directory of t (the test binary itself is larger,
// and its resident memory with it), or skips t where there is no go command.
func buildHCBench(t *testing.T) string {
	t.Helper()
	goCmd, err := exec.LookPath("go")
	if err != nil {
		t.Skipf("no go command to build hcbench with: %v", err)
	}
	bin := filepath.Join(t.TempDir(), "hcbench")
	if out, err := exec.Command(goCmd, "build", "-o", bin, "github.com/hcbench/hcbench").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

// peakRun is one measured run: the plan's estimate for its workers and the peak resident memory
// of the process that ran it.
type peakRun struct {
	estimate Estimate
	peak     int64 // bytes
}

// measurePeak makes the plan of config file path, as `hcbench run` would with workers, and runs
// it in a new process of hcbench binary bin, returning the estimate and the process's peak
// resident memory.
func measurePeak(t *testing.T, bin, path string, workers int) peakRun {
	t.Helper()
	cfg, err := config.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	p, err := New(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	e := p.Memory(workers, nil)
	out := filepath.Join(t.TempDir(), "run")
	cmd := exec.Command(bin, "run", path, "-out", out, "-workers", fmt.Sprint(workers))
	cmd.Env = append(os.Environ(), "SLURM_ARRAY_TASK_ID=", "JOB_COMPLETION_INDEX=")
	output, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("hcbench run %s: %v\n%s", path, err, output)
	}
	return peakRun{estimate: e, peak: loggedPeak(t, out)}
}

// loggedPeak returns the peak resident memory that the run in dir logged at its end
// (results.LoggedPeak).
func loggedPeak(t *testing.T, dir string) int64 {
	t.Helper()
	peak, ok, err := results.LoggedPeak(filepath.Join(dir, results.LogFile))
	if err != nil {
		t.Fatal(err)
	}
	if !ok {
		if _, ok := memory.Peak(); !ok {
			t.Skip("the system gives no peak resident memory")
		}
		t.Fatalf("%s logs no peak memory", dir)
	}
	return peak
}

// peakCase is a config of one algorithm on one data set, at one size.
type peakCase struct {
	name    string
	dataset string // a data set entry, named d
	alg     string // an algorithm entry
}

// peakCases are every algorithm but external (whose program's memory is its own) at three sizes,
// each run on two items, so that the second task allocates while the first one's memory waits
// for a collection, as in a real run.
func peakCases() []peakCase {
	jets := func(n int) string {
		tcut := map[int]string{8: "16", 12: "4", 15: "1.21", 16: "2", 17: "1.21", 20: "1.21", 40: "0.3", 50: "0.08", 60: "0.08", 80: "0.02", 100: "0.02"}[n]
		return fmt.Sprintf("{name: d, generator: ginkgo, jets: 2, min_leaves: %d, max_leaves: %d, t_cut: %s}", n, n, tcut)
	}
	points := func(n int) string {
		return fmt.Sprintf("{name: d, generator: mixture, items: 2, points: %d, dims: 4, split_model: none}", n)
	}
	var cases []peakCase
	add := func(name, alg string, data func(int) string, sizes ...int) {
		for _, n := range sizes {
			cases = append(cases, peakCase{fmt.Sprintf("%s/%d", name, n), data(n), alg})
		}
	}
	add("truth", "truth", jets, 20, 60, 100)
	add("greedy", "greedy", jets, 20, 60, 100)
	add("beam", "{name: beam, beam_size: 3n}", jets, 20, 50, 80)
	add("trellis", "trellis", jets, 12, 15, 17)
	add("sparse_trellis", "{name: sparse_trellis, beam_size: 3n, max_clusters: 10000}", jets, 8, 16, 40)
	add("bhc", "bhc", points, 200, 800, 1600)
	add("brt", "brt", points, 200, 800, 1600)
	add("bhc_exact", "bhc_exact", points, 8, 14, 18)
	add("rbhc", "rbhc", points, 1000, 5000, 15000)
	add("embhc", "embhc", points, 1000, 5000, 15000)
	add("average-linkage", "{name: linkage, method: average}", points, 500, 2000, 4000)
	add("single-linkage", "{name: linkage, method: single}", points, 500, 2000, 5000)
	return cases
}

// TestPeakWithinEstimate runs every algorithm at three sizes in a process of its own and checks
// that the plan's estimate bounds the peak resident memory of the run, by no more than half
// again: the estimate is at least the peak and at most 1.5 times it. It prints the table.
func TestPeakWithinEstimate(t *testing.T) {
	if testing.Short() {
		t.Skip("runs hcbench 33 times, about a minute")
	}
	if limittest.Race {
		t.Skip("the race detector multiplies the memory a process takes")
	}
	bin := buildHCBench(t)
	// Every algorithm of the table has its cases, external aside.
	cases := peakCases()
	for _, name := range registry.AlgorithmNames() {
		if name != "external" && !slices.ContainsFunc(cases, func(c peakCase) bool {
			return c.alg == name || strings.HasPrefix(c.alg, "{name: "+name+",")
		}) {
			t.Errorf("algorithm %s has no case in peakCases", name)
		}
	}
	var table strings.Builder
	fmt.Fprintf(&table, "%-22s %10s %10s %6s\n", "case", "estimate", "peak RSS", "ratio")
	for _, c := range cases {
		src := fmt.Sprintf("version: 1\nname: peak\nseed: 3\ndatasets:\n  - %s\nalgorithms:\n  - %s\nreports: []\n", c.dataset, c.alg)
		path := filepath.Join(t.TempDir(), "c.yaml")
		if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
		r := measurePeak(t, bin, path, 1)
		ratio := float64(r.estimate.Bytes) / float64(r.peak)
		fmt.Fprintf(&table, "%-22s %10s %10s %6.2f\n", c.name, memory.Format(r.estimate.Bytes), memory.Format(r.peak), ratio)
		if ratio < 1 || ratio > maxEstimateRatio {
			t.Errorf("%s: estimate %s, peak %s: ratio %.2f, want 1 to %.1f (%s)", c.name, memory.Format(r.estimate.Bytes), memory.Format(r.peak), ratio, maxEstimateRatio, r.estimate)
		}
	}
	t.Log("\n" + table.String())
}

// maxEstimateRatio is how far an estimate may exceed the peak it bounds.
const maxEstimateRatio = 1.5

// TestShippedConfigsPeak runs every shipped config (configs/*.yaml) whose name matches the
// regular expression in HCBENCH_PEAK_CONFIGS, as `hcbench run` does (the config's workers, else
// one per core), and checks its estimate against the peak resident memory of the run as
// TestPeakWithinEstimate does. It prints the table config | estimate | peak RSS | ratio in
// Markdown. Opt-in, as every config runs in full; .ci/memory runs them all.
func TestShippedConfigsPeak(t *testing.T) {
	pattern := os.Getenv("HCBENCH_PEAK_CONFIGS")
	if pattern == "" {
		t.Skip("set HCBENCH_PEAK_CONFIGS to a regular expression of config names (. for all), as .ci/memory does")
	}
	if limittest.Race {
		t.Skip("the race detector multiplies the memory a process takes")
	}
	match, err := regexp.Compile(pattern)
	if err != nil {
		t.Fatalf("HCBENCH_PEAK_CONFIGS: %v", err)
	}
	paths, err := filepath.Glob(filepath.Join("..", "..", "configs", "*.yaml"))
	if err != nil || len(paths) == 0 {
		t.Fatalf("no shipped configs: %v", err)
	}
	bin := buildHCBench(t)
	var table strings.Builder
	table.WriteString("| config | estimate | peak RSS | ratio |\n|---|---:|---:|---:|\n")
	for _, path := range paths {
		name := strings.TrimSuffix(filepath.Base(path), ".yaml")
		if !match.MatchString(name) {
			continue
		}
		cfg, err := config.Load(path)
		if err != nil {
			t.Fatal(err)
		}
		workers := cfg.WorkersFor(0)
		r := measurePeak(t, bin, path, workers)
		ratio := float64(r.estimate.Bytes) / float64(r.peak)
		fmt.Fprintf(&table, "| %s (%d %s) | %s | %s | %.2f |\n", name, workers, results.Plural(workers, "worker", "workers"), memory.Format(r.estimate.Bytes), memory.Format(r.peak), ratio)
		t.Logf("%s: estimate %s (%s), peak %s", name, memory.Format(r.estimate.Bytes), r.estimate, memory.Format(r.peak))
		if ratio < 1 || ratio > maxEstimateRatio {
			t.Errorf("%s: estimate %s, peak %s: ratio %.2f, want 1 to %.1f", name, memory.Format(r.estimate.Bytes), memory.Format(r.peak), ratio, maxEstimateRatio)
		}
	}
	t.Log("\n" + table.String())
}
