// Command gatecheck measures how far to trust the nightly gate: how often `hcbench compare`
// flags a timing row between two runs of one binary (an A/A pair), and how often it flags a row
// that was slowed on purpose by 5, 10 and 20 % (a planted pair), for every candidate setting of
// the time test, its significance level, the minimum slowdown (the `time` threshold) and -count.
//
//	go run ./internal/gatecheck measure -dir /tmp/gate-quiet -pairs 20 -kmax 3
//	go run ./internal/gatecheck measure -dir /tmp/gate-load -pairs 20 -kmax 3 -load 1
//	go run ./internal/gatecheck report -doc docs/nightly.md /tmp/gate-quiet /tmp/gate-load
//
// measure builds hcbench with the test-only algorithm spin (./internal/gatecheck/planted) once,
// writes the measurement config (configs/nightly.yaml, reports off, plus three spin entries on a
// small data set of their own), and runs it alternately without and with the planted slowdowns:
// b00 p00 b01 p01 …, each with -count KMAX, each into its own directory under -dir. A measurement
// stopped midway is resumed by the same command: finished runs are kept, an unfinished one is
// run again from its start. It then analyses the runs (as report does) and writes gate.md,
// settings.csv and pairs.csv into -dir.
//
// report analyses one or more measurements (a quiet one and a loaded one) together and, with
// -doc, writes its table into the page's region numbers:nightly.gate (package docregion).
//
// The analysis keeps the first k repetitions' times of each record (records keep their times in
// repetition order, and each repetition is a shuffled pass over every task), so one measurement at
// -count KMAX gives every K from 1 to KMAX.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"slices"
	"strconv"
	"strings"
	"syscall"

	"github.com/hcbench/hcbench/experiments/compare"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	os.Exit(run(ctx, os.Args[1:], os.Stdout, os.Stderr))
}

const usage = `usage:
  go run ./internal/gatecheck measure -dir DIR [-pairs N] [-kmax K] [-workers W] [-load L] [-config FILE] [grid flags]
  go run ./internal/gatecheck report [-doc PAGE] [grid flags] DIR...
`

// run is the command: arguments and writers in, exit code out (0 done, 1 failed, 2 usage).
func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return 2
	}
	fs := flag.NewFlagSet("gatecheck "+args[0], flag.ContinueOnError)
	fs.SetOutput(stderr)
	g := gridFlags(fs)
	var err error
	switch args[0] {
	case "measure":
		m := measureFlags(fs)
		if code := parse(fs, args[1:], stderr); code >= 0 {
			return code
		}
		if fs.NArg() > 0 {
			fmt.Fprintf(stderr, "gatecheck measure: no arguments are taken, got %q\n", fs.Args())
			return 2
		}
		var grid grid
		if grid, err = g.grid(); err == nil {
			err = measure(ctx, m, grid, stdout)
		}
	case "report":
		doc := fs.String("doc", "", "write the table into this page's region numbers:"+regionName)
		if code := parse(fs, args[1:], stderr); code >= 0 {
			return code
		}
		if fs.NArg() == 0 {
			fmt.Fprint(stderr, "gatecheck report: name one measurement directory or more\n", usage)
			return 2
		}
		var grid grid
		if grid, err = g.grid(); err == nil {
			err = report(ctx, fs.Args(), grid, *doc, stdout)
		}
	default:
		fmt.Fprintf(stderr, "gatecheck: no command %q\n%s", args[0], usage)
		return 2
	}
	if err != nil {
		fmt.Fprintln(stderr, "gatecheck:", err)
		var u usageError
		if errors.As(err, &u) {
			return 2
		}
		return 1
	}
	return 0
}

// parse parses the flags; it returns -1 to go on, else the exit code.
func parse(fs *flag.FlagSet, args []string, stderr io.Writer) int {
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	return -1
}

// usageError is a bad flag value: exit 2.
type usageError struct{ error }

// gridSpec holds the flags of the candidate settings.
type gridSpec struct {
	tests, alphas, thresholds *string
}

func gridFlags(fs *flag.FlagSet) gridSpec {
	return gridSpec{
		tests:      fs.String("tests", "pooled,stratified", "the time tests to try (compare.Options.TimeTest)"),
		alphas:     fs.String("alphas", "0.05,0.01", "the significance levels to try"),
		thresholds: fs.String("thresholds", "0.02,0.05,0.08,0.1", "the minimum relative slowdowns (the time threshold) to try"),
	}
}

// grid is the candidate settings but K, which the runs' repetitions give.
type grid struct {
	tests             []string
	alphas, threshold []float64
}

func (g gridSpec) grid() (grid, error) {
	out := grid{tests: splitList(*g.tests)}
	for _, t := range out.tests {
		if !slices.Contains(compare.TimeTests, t) {
			return out, usageError{fmt.Errorf("-tests: %q is not a time test of compare (%s)", t, strings.Join(compare.TimeTests, ", "))}
		}
	}
	var err error
	if out.alphas, err = floats("-alphas", *g.alphas, 0, 1); err != nil {
		return out, err
	}
	out.threshold, err = floats("-thresholds", *g.thresholds, 0, 10)
	if len(out.tests) == 0 || len(out.alphas) == 0 || len(out.threshold) == 0 {
		return out, usageError{errors.New("-tests, -alphas and -thresholds each need a value")}
	}
	return out, err
}

func splitList(s string) []string {
	var out []string
	for _, f := range strings.Split(s, ",") {
		if f = strings.TrimSpace(f); f != "" {
			out = append(out, f)
		}
	}
	return out
}

// floats parses a comma-separated list of numbers in (lo, hi].
func floats(flagName, s string, lo, hi float64) ([]float64, error) {
	var out []float64
	for _, f := range splitList(s) {
		v, err := strconv.ParseFloat(f, 64)
		if err != nil || !(v > lo && v <= hi) {
			return nil, usageError{fmt.Errorf("%s: %q is not a number in (%g, %g]", flagName, f, lo, hi)}
		}
		out = append(out, v)
	}
	return out, nil
}
