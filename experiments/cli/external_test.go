package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/hcbench/hcbench/algorithms/tree"
	"github.com/hcbench/hcbench/experiments/results"
	"github.com/hcbench/hcbench/internal/externaltest"
)

// The test binary is also an external program (internal/externaltest) when its first argument
// asks: an init function, because TestMain (shards_test.go) runs hcbench itself.
func init() {
	if externaltest.IsProgram(os.Args) {
		os.Exit(externaltest.Main(os.Args[2:]))
	}
}

// externalConfig runs two external variants beside greedy: one that runs hcbench's greedy
// itself and answers merges, and one that answers a malformed line for item 2.
func externalConfig(t *testing.T) string {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	q, _ := json.Marshal(exe) // a JSON string is a YAML string
	return fmt.Sprintf(`version: 1
name: ext
seed: 5
datasets:
  - {name: qcd, generator: ginkgo, jets: 6, min_leaves: 5, max_leaves: 8, t_cut: 16}
algorithms:
  - greedy
  - name: external
    label: ext
    command: [%[1]s, %[2]s, greedy-merges]
    timeout: 30s
    params: {temperature: 0.5, steps: [1, 2]}
  - {name: external, label: bad, command: [%[1]s, %[2]s, malformed, -bad, "2"]}
reports: [summary, likelihood_gap]
`, q, externaltest.Arg)
}

// TestExternalRun runs a config with external algorithms through the command line on 1 and on 2
// workers: the program's trees are scored as the built-in greedy's, its own numbers are
// recorded, the task whose answer is malformed fails alone (exit 1, the run goes on), and the
// records are the same for both worker counts.
func TestExternalRun(t *testing.T) {
	dir := t.TempDir()
	cfg := writeFile(t, dir, "ext.yaml", externalConfig(t))
	var runs []map[string]results.Record
	for _, w := range []string{"1", "2"} {
		out := filepath.Join(dir, "run-"+w)
		code, stdout, stderr := run(t, context.Background(), "run", cfg, "-out", out, "-workers", w)
		if code != ExitFailure {
			t.Fatalf("workers %s: exit %d, want %d (a failed task)\n%s%s", w, code, ExitFailure, stdout, stderr)
		}
		if !strings.Contains(stdout, "tasks: 18 finished of 18, 1 failed") {
			t.Errorf("workers %s: stdout\n%s", w, stdout)
		}
		if !strings.Contains(stderr, "external program stderr") {
			t.Errorf("workers %s: the programs' stderr is not in the log:\n%s", w, stderr)
		}
		recs := readRecords(t, out)
		for k, r := range recs {
			r.ReportedSeconds = nil // the program's own time, and its pid and count of requests
			r.Extra = nil
			recs[k] = r
		}
		runs = append(runs, recs)
	}
	recs := runs[0]
	if len(recs) != 18 {
		t.Fatalf("%d records, want 18", len(recs))
	}
	for k, r := range recs {
		one, two := r, runs[1][k]
		if one.Error != "" && two.Error != "" {
			// A failed task's error names the program's pid and quotes its stderr, which
			// depend on which program served which items before.
			one.Error, two.Error = "", ""
		}
		if a, b := mustJSON(t, one), mustJSON(t, two); !bytes.Equal(a, b) {
			t.Errorf("%s differs between 1 and 2 workers:\n%s\n%s", k, a, b)
		}
		item := r.Item
		switch r.Algorithm {
		case "ext":
			g := recs[strings.Replace(k, "algorithm=ext", "algorithm=greedy", 1)]
			gt, _ := tree.ParseNewick(g.Newick, nil)
			et, _ := tree.ParseNewick(r.Newick, nil)
			// The same tree, and the same score up to the order of the sum (greedy adds its
			// splits as it merges, hcbench's score of a tree in post-order).
			if r.Error != "" || !tree.SameClusters(gt, et) || r.LogLikelihood == nil || !near(*r.LogLikelihood, *g.LogLikelihood) || r.ReportedLogLikelihood == nil || len(r.Warnings) > 0 {
				t.Errorf("%s: %+v\ngreedy's %+v", k, r, g)
			}
			if r.Params["params"] == nil || fmt.Sprint(r.Params["command"]) == "" {
				t.Errorf("%s: params %v", k, r.Params)
			}
		case "bad":
			if item == "2" {
				if !strings.Contains(r.Error, "not a JSON object") || !strings.Contains(r.Error, "request 3: item 2") || r.Newick != "" {
					t.Errorf("%s: error %q", k, r.Error)
				}
			} else if r.Error != "" || r.LogLikelihood == nil {
				t.Errorf("%s: %+v", k, r)
			}
		}
	}
	summary := mustRead(t, filepath.Join(dir, "run-1", "reports", "summary.md"))
	if !strings.Contains(summary, "| ext ") || !strings.Contains(summary, "| bad ") {
		t.Errorf("summary lacks the external variants:\n%s", summary)
	}
}

// near reports whether two log-likelihoods agree to 1e-9.
func near(a, b results.LogProb) bool { return math.Abs(float64(a-b)) <= 1e-9 }

func mustJSON(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestExternalRunRefusesMissingProgram: a program that is not there is a config error, at the
// line of its command, naming the path it looked for; validate says so, and run starts nothing.
func TestExternalRunRefusesMissingProgram(t *testing.T) {
	dir := t.TempDir()
	cfg := writeFile(t, dir, "ext.yaml", `version: 1
name: ext
datasets:
  - {name: qcd, generator: ginkgo, jets: 2, min_leaves: 3, max_leaves: 5, t_cut: 16}
algorithms:
  - {name: external, label: mine, command: [bin/my_clusterer, --fast]}
`)
	want := "ext.yaml:6: algorithms[0].command: the program " + filepath.Join(dir, "bin", "my_clusterer") + " does not exist"
	for _, args := range [][]string{{"validate", cfg}, {"run", cfg, "-out", filepath.Join(dir, "run")}} {
		code, stdout, stderr := run(t, context.Background(), args...)
		if code != ExitFailure || !strings.Contains(stderr, want) {
			t.Errorf("%s: exit %d, want %d with %q\n%s%s", args[0], code, ExitFailure, want, stdout, stderr)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "run")); !os.IsNotExist(err) {
		t.Errorf("run made its directory for a config with a missing program: %v", err)
	}
}

// TestExternalExampleConfig runs the shipped configs/external.yaml (its Python program and its
// shell-and-awk one) on fewer jets: no task fails, the Python greedy's trees score as hcbench's
// own greedy, its own log-likelihood agrees with hcbench's (no warning), and its counter of
// pairs scored, recorded as counters.pairs_scored, is its closed form (n−1)². Skipped without
// python3 on PATH.
func TestExternalExampleConfig(t *testing.T) {
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("python3 is not on PATH: the example's program cannot run (", err, ")")
	}
	if runtime.GOOS == "windows" {
		t.Skip("the example's shell script needs sh")
	}
	src := mustRead(t, "../../configs/external.yaml")
	if !strings.Contains(src, "jets: 50") {
		t.Fatal("configs/external.yaml no longer draws 50 jets; update this test")
	}
	// A copy in a temporary folder, its paths to the programs made absolute.
	examples, err := filepath.Abs(filepath.Join("..", "..", "examples", "external"))
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(src, "../examples/external/"); n != 3 {
		t.Fatalf("configs/external.yaml names the examples %d times, want 3; update this test", n)
	}
	src = strings.ReplaceAll(strings.Replace(src, "jets: 50", "jets: 8", 1), "../examples/external/", examples+"/")
	dir := t.TempDir()
	cfg := writeFile(t, dir, "external.yaml", src)
	out := filepath.Join(dir, "run")
	code, stdout, stderr := run(t, context.Background(), "run", cfg, "-out", out, "-workers", "2")
	if code != ExitOK {
		t.Fatalf("exit %d\n%s%s", code, stdout, stderr)
	}
	recs := readRecords(t, out)
	if len(recs) != 8*6 {
		t.Errorf("%d records, want 48", len(recs))
	}
	for k, r := range recs {
		if r.Error != "" || len(r.Warnings) > 0 || r.LogLikelihood == nil {
			t.Errorf("%s: error %q, warnings %q", k, r.Error, r.Warnings)
		}
		if r.Algorithm == "noisy-py" && (r.Params["leaf_labels"] != "name" || r.Extra["noise"] == nil) {
			t.Errorf("%s: the Newick variant's params %v, extra %v", k, r.Params, r.Extra)
		}
		if r.Algorithm == "greedy-py" {
			g := recs[strings.Replace(k, "algorithm=greedy-py", "algorithm=greedy", 1)]
			if !near(*r.LogLikelihood, *g.LogLikelihood) || r.ReportedLogLikelihood == nil || r.ReportedSeconds == nil || r.Counters["pairs_scored"] != int64(r.N-1)*int64(r.N-1) {
				t.Errorf("%s: %+v\ngreedy's %+v", k, r, g)
			}
		}
	}
}
