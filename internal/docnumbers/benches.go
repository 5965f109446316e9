package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"math"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"

	"golang.org/x/perf/benchfmt"

	"github.com/hcbench/hcbench/experiments/memory"
	"github.com/hcbench/hcbench/experiments/plan"
)

// A benchGroup is one `go test -bench` command whose results documented numbers read.
type benchGroup struct {
	name string
	pkg  string // the package, as go test names it: ./algorithms/trellis
	// bench, benchtime and count are go test's flags.
	bench     string
	benchtime string
	count     int
}

// benchGroups are the benchmark commands of the documentation, by name.
var benchGroups = []benchGroup{
	{name: "trellis", pkg: "./algorithms/trellis", bench: "^BenchmarkTrellis$", benchtime: "1x", count: 2},
	// N = 22's log Z pass alone in a process, for its peak resident memory.
	{name: "trellis22", pkg: "./algorithms/trellis", bench: "^BenchmarkTrellis$/^N=22/logZ", benchtime: "1x", count: 1},
	{name: "beam", pkg: "./algorithms/beam", bench: "^BenchmarkBeam$/^N=20/", benchtime: "20x", count: 3},
	{name: "bhc1000", pkg: "./algorithms/bhc", bench: "^BenchmarkRun1000$", benchtime: "5x", count: 5},
	{name: "bhc-exact18", pkg: "./algorithms/bhc", bench: "^BenchmarkExactFixed18$", benchtime: "3x", count: 3},
	{name: "rbhc", pkg: "./algorithms/bhc", bench: "^BenchmarkRandomized(10k|100k|300k|1M)$", benchtime: "1x", count: 1},
	{name: "embhc", pkg: "./algorithms/bhc", bench: "^BenchmarkEM(10k|100k|300k|1M)$", benchtime: "1x", count: 1},
	{name: "brt1000", pkg: "./algorithms/brt", bench: "^BenchmarkRun1000$", benchtime: "5x", count: 5},
	{name: "external", pkg: "./experiments/registry", bench: "^BenchmarkExternalNoop$", benchtime: "2000x", count: 3},
}

// command is the go test command line of g, as the documentation names it.
func (g benchGroup) command() string {
	return fmt.Sprintf("go test -run '^$' -bench '%s' -benchtime %s -count %d %s", g.bench, g.benchtime, g.count, g.pkg)
}

// benchRun holds the results of a group's command: each result's full name (without the
// Benchmark prefix and the -GOMAXPROCS suffix) with its values by unit, in output order, and the
// process's peak resident memory.
type benchRun struct {
	group   benchGroup
	results []benchResult
	peakRSS int64
}

type benchResult struct {
	name   string
	values map[string]float64
}

// values returns the values of unit over the results whose name is name, in run order.
func (b *benchRun) values(name, unit string) ([]float64, error) {
	var out []float64
	for _, r := range b.results {
		if r.name == name {
			if v, ok := r.values[unit]; ok {
				out = append(out, v)
			}
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("benchmark %s (%s): no %s result", name, b.group.command(), unit)
	}
	return out, nil
}

// runBench builds a group's test binary into workDir and runs it in its package's directory (as
// go test does), so that the peak resident memory measured is the benchmark's alone.
func runBench(ctx context.Context, root, workDir string, g benchGroup) (*benchRun, error) {
	bin := filepath.Join(workDir, strings.ReplaceAll(strings.Trim(g.pkg, "./"), "/", "-")+".test")
	build := exec.CommandContext(ctx, "go", "test", "-c", "-o", bin, g.pkg)
	build.Dir = root
	if out, err := build.CombinedOutput(); err != nil {
		return nil, fmt.Errorf("go test -c %s: %v\n%s", g.pkg, err, out)
	}
	cmd := exec.CommandContext(ctx, bin, "-test.run", "^$", "-test.bench", g.bench, "-test.benchtime", g.benchtime, "-test.count", fmt.Sprint(g.count))
	cmd.Dir = filepath.Join(root, g.pkg)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return nil, fmt.Errorf("%s: %v\n%s%s", g.command(), err, lastLines(stdout.String(), 10), lastLines(stderr.String(), 10))
	}
	b := &benchRun{group: g}
	if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
		b.peakRSS = maxRSSBytes(ru)
	}
	var err error
	if b.results, err = parseBench(&stdout, g.name); err != nil {
		return nil, err
	}
	if len(b.results) == 0 {
		return nil, fmt.Errorf("%s printed no benchmark results:\n%s", g.command(), lastLines(stdout.String(), 10))
	}
	return b, nil
}

// parseBench reads benchmark output in the Go benchmark format. Each value is kept under the
// unit the benchmark printed (ns/split) as well as under benchfmt's tidied one (sec/op for
// ns/op), as regions ask for either.
func parseBench(out io.Reader, fileName string) ([]benchResult, error) {
	var results []benchResult
	r := benchfmt.NewReader(out, fileName)
	for r.Scan() {
		res, ok := r.Result().(*benchfmt.Result)
		if !ok {
			continue
		}
		name := strings.TrimPrefix(string(res.Name.Full()), "Benchmark")
		if i := strings.LastIndex(name, "-"); i > 0 && !strings.Contains(name[i:], "/") {
			name = name[:i] // the -GOMAXPROCS suffix
		}
		vals := map[string]float64{}
		for _, v := range res.Values {
			vals[v.Unit] = v.Value
			if v.OrigUnit != "" {
				vals[v.OrigUnit] = v.OrigValue
			}
		}
		results = append(results, benchResult{name: name, values: vals})
	}
	return results, r.Err()
}

// secondsRange writes the spread of a benchmark's ns/op over its runs: "4.6–4.8 s", or one time
// when they agree to the precision written.
func secondsRange(ns []float64) string {
	lo, hi := plan.FormatSeconds(slices.Min(ns)/1e9), plan.FormatSeconds(slices.Max(ns)/1e9)
	if lo == hi {
		return lo
	}
	// "4.6 s–4.8 s" reads as "4.6–4.8 s" when the units agree.
	if i, j := strings.LastIndex(lo, " "), strings.LastIndex(hi, " "); i > 0 && j > 0 && lo[i:] == hi[j:] {
		return lo[:i] + "–" + hi
	}
	return lo + "–" + hi
}

// benchRegions are the regions computed from benchmarks.
func benchRegions() []region {
	return []region{
		{name: "bench.trellis", benches: []string{"trellis", "trellis22"}, machine: true, render: trellisBenchTable},
		{name: "bench.beam", benches: []string{"beam"}, machine: true, render: beamBench},
		{name: "bench.bhc1000", benches: []string{"bhc1000"}, machine: true, render: minOverRuns("bhc1000", "Run1000")},
		{name: "bench.bhc-exact18", benches: []string{"bhc-exact18"}, machine: true, render: rangeOverRuns("bhc-exact18", "ExactFixed18")},
		{name: "bench.brt1000", benches: []string{"brt1000"}, machine: true, render: minOverRuns("brt1000", "Run1000")},
		{name: "bench.rbhc", benches: []string{"rbhc"}, machine: true, render: sizesTable("rbhc", "Randomized", "base", []string{"4", "1"}, "n (d = 4, m = 50)")},
		{name: "bench.embhc", benches: []string{"embhc"}, machine: true, render: sizesTable("embhc", "EM", "resolve_base", []string{"4", "1"}, "n (d = 4, m = 50, 5 steps, resolve_m 50)")},
		{name: "bench.rbhc-per-nlogn", benches: []string{"rbhc"}, machine: true, render: rbhcPerNLogN},
		{name: "bench.external", benches: []string{"external"}, machine: true, render: rangeOverRuns("external", "ExternalNoop")},
	}
}

func trellisBenchTable(e *env) (string, error) {
	b, err := e.bench("trellis")
	if err != nil {
		return "", err
	}
	b22, err := e.bench("trellis22")
	if err != nil {
		return "", err
	}
	var rows [][]string
	for _, n := range []int{12, 16, 18, 20, 22} {
		row := []string{fmt.Sprint(n)}
		for _, mode := range []string{"logZ+MAP", "MAP"} {
			name := fmt.Sprintf("Trellis/N=%d/%s", n, mode)
			ns, err := b.values(name, "ns/op")
			if err != nil {
				return "", err
			}
			cell := secondsRange(ns)
			if n >= 20 {
				split, err := b.values(name, "ns/split")
				if err != nil {
					return "", err
				}
				cell += fmt.Sprintf(" (%s ns per split)", fixed(median(split), 2))
			}
			if n == 22 && mode == "logZ+MAP" {
				cell += fmt.Sprintf("; %s resident", memory.Format(b22.peakRSS))
			}
			row = append(row, cell)
		}
		rows = append(rows, row)
	}
	t := markdownTable([]string{"N", "log Z + MAP + count", "MAP only"}, rows)
	return t + fmt.Sprintf("\n\n(%d runs of `%s`, wall time, both cores; the resident memory is the peak of `%s` alone. %s)",
		b.group.count, b.group.command(), b22.group.command(), e.machine.sentence()), nil
}

func beamBench(e *env) (string, error) {
	b, err := e.bench("beam")
	if err != nil {
		return "", err
	}
	var all []float64
	for _, d := range []string{"structure", "float"} {
		ns, err := b.values("Beam/N=20/B=190/"+d, "ns/op")
		if err != nil {
			return "", err
		}
		all = append(all, ns...)
	}
	return fmt.Sprintf("N = 20 with B = 190 takes %s (`%s`, either rule)", secondsRange(all), b.group.command()), nil
}

// minOverRuns renders a benchmark's least ns/op over its runs and its greatest, which a busy
// machine gives: "0.29 s (the least of 5 runs of 5 iterations; the most 0.48 s)".
func minOverRuns(group, name string) func(e *env) (string, error) {
	return func(e *env) (string, error) {
		b, ns, err := e.nsPerOp(group, name)
		if err != nil {
			return "", err
		}
		return fmt.Sprintf("%s (the least of %d runs of %s iterations, the most %s; `%s`)", plan.FormatSeconds(slices.Min(ns)/1e9),
			b.group.count, strings.TrimSuffix(b.group.benchtime, "x"), plan.FormatSeconds(slices.Max(ns)/1e9), b.group.command()), nil
	}
}

// rangeOverRuns renders the spread of a benchmark's ns/op over its runs.
func rangeOverRuns(group, name string) func(e *env) (string, error) {
	return func(e *env) (string, error) {
		b, ns, err := e.nsPerOp(group, name)
		if err != nil {
			return "", err
		}
		return fmt.Sprintf("%s (%d runs of `%s`)", secondsRange(ns), b.group.count, b.group.command()), nil
	}
}

// bhcSizes are the sizes of the RBHC and EMBHC benchmarks, as named and as n.
var bhcSizes = []struct {
	name string
	n    float64
}{{"10k", 1e4}, {"100k", 1e5}, {"300k", 3e5}, {"1M", 1e6}}

// sizesTable renders a table of CPU seconds of prefix<size>/<key>=<value> benchmarks: one row per
// value, one column per size.
func sizesTable(group, prefix, key string, vals []string, corner string) func(e *env) (string, error) {
	return func(e *env) (string, error) {
		b, err := e.bench(group)
		if err != nil {
			return "", err
		}
		header := []string{corner}
		for _, s := range bhcSizes {
			header = append(header, thousands(s.n))
		}
		var rows [][]string
		for _, v := range vals {
			row := []string{fmt.Sprintf("`%s: %s` (CPU-s)", key, v)}
			for _, s := range bhcSizes {
				cpu, err := b.values(fmt.Sprintf("%s%s/%s=%s", prefix, s.name, key, v), "cpu-s/op")
				if err != nil {
					return "", err
				}
				row = append(row, threeDigits(cpu[0]))
			}
			rows = append(rows, row)
		}
		return markdownTable(header, rows) + fmt.Sprintf("\n\n(One run of `%s`. %s)", b.group.command(), e.machine.sentence()), nil
	}
}

// threeDigits writes x with three significant digits: 0.22, 2.43, 28.7.
func threeDigits(x float64) string {
	switch {
	case x >= 100:
		return fixed(x, 0)
	case x >= 10:
		return fixed(x, 1)
	case x >= 1:
		return fixed(x, 2)
	}
	return fixed(x, 2)
}

func rbhcPerNLogN(e *env) (string, error) {
	b, err := e.bench("rbhc")
	if err != nil {
		return "", err
	}
	var parts []string
	for _, s := range bhcSizes[1:] {
		cpu, err := b.values(fmt.Sprintf("Randomized%s/base=4", s.name), "cpu-s/op")
		if err != nil {
			return "", err
		}
		parts = append(parts, fixed(cpu[0]/(s.n*math.Log2(s.n))*1e6, 2))
	}
	return "the time per n·log₂ n is " + joinAnd(parts) + " µs at 100,000, 300,000 and a million points", nil
}
