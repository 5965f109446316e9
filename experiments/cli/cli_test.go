package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/hcbench/hcbench/algorithms/tree"
	"github.com/hcbench/hcbench/datasets/datadir/datatest"
	"github.com/hcbench/hcbench/experiments/metric"
	"github.com/hcbench/hcbench/experiments/results"
)

// run calls Run in-process and returns the exit code, stdout and stderr.
func run(t *testing.T, ctx context.Context, args ...string) (int, string, string) {
	t.Helper()
	var out, errOut bytes.Buffer
	code := Run(ctx, args, &out, &errOut)
	return code, out.String(), errOut.String()
}

func writeFile(t *testing.T, dir, name, content string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

const smallConfig = `version: 1
name: small
seed: 3
datasets:
  - name: qcd
    generator: ginkgo
    jets: 40
    min_leaves: 4
    max_leaves: 9
    t_cut: 16
algorithms: [truth, greedy]
`

func readRecords(t *testing.T, dir string) map[string]results.Record {
	t.Helper()
	recs, err := results.ReadFile(filepath.Join(dir, results.ResultsFile))
	if err != nil {
		t.Fatal(err)
	}
	byKey := map[string]results.Record{}
	for _, r := range recs {
		if _, dup := byKey[r.Key]; dup {
			t.Fatalf("task %s recorded twice", r.Key)
		}
		r.Seconds = 0 // the only field allowed to differ between runs
		byKey[r.Key] = r
	}
	return byKey
}

func TestRunIsIndependentOfWorkers(t *testing.T) {
	dir := t.TempDir()
	cfg := writeFile(t, dir, "small.yaml", smallConfig)
	var runs []map[string]results.Record
	for _, w := range []string{"1", "3"} {
		out := filepath.Join(dir, "run-"+w)
		code, stdout, stderr := run(t, context.Background(), "run", cfg, "-out", out, "-workers", w)
		if code != ExitOK {
			t.Fatalf("workers %s: exit %d\n%s", w, code, stderr)
		}
		if !strings.Contains(stdout, "report: "+filepath.Join(out, "reports", "summary.md")) {
			t.Errorf("stdout does not say where the report is:\n%s", stdout)
		}
		runs = append(runs, readRecords(t, out))
	}
	if len(runs[0]) != 80 {
		t.Fatalf("%d records, want 80 (40 jets × truth, greedy)", len(runs[0]))
	}
	for k, a := range runs[0] {
		ja, _ := json.Marshal(a)
		jb, _ := json.Marshal(runs[1][k])
		if !bytes.Equal(ja, jb) {
			t.Errorf("task %s differs between 1 and 3 workers:\n%s\n%s", k, ja, jb)
		}
	}
	for _, r := range runs[0] {
		if r.Error != "" || r.N < 4 || r.N > 9 || r.Newick == "" || r.TruthLogLikelihood == nil || r.LogLikelihood == nil {
			t.Errorf("incomplete record %+v", r)
		}
		if r.AlgorithmName == "truth" && *r.LogLikelihood != *r.TruthLogLikelihood {
			t.Errorf("truth record %s: log-likelihood %v != truth %v", r.Key, *r.LogLikelihood, *r.TruthLogLikelihood)
		}
	}
	var m results.Manifest
	b, err := os.ReadFile(filepath.Join(dir, "run-1", results.ManifestFile))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	if m.Status != results.StatusComplete || m.Tasks != 80 || m.Finished != 80 || m.Failed != 0 || m.Seed != 3 || m.End.IsZero() {
		t.Errorf("manifest %+v", m)
	}
	summary, err := os.ReadFile(filepath.Join(dir, "run-1", "reports", "summary.csv"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(summary), "qcd,greedy,40,0,0,") {
		t.Errorf("summary.csv lacks the greedy row:\n%s", summary)
	}
}

// TestSavedDataReproducesRun freezes generated jets with -save-data and runs them again from
// the file, which names no likelihood: every greedy tree and score must come back identical, also
// under the 2021 likelihood with a uniform λ on W jets (whose λ_root differs from λ), which the
// file's jets carry from the run that saved them.
func TestSavedDataReproducesRun(t *testing.T) {
	for _, c := range []struct{ name, config, likelihood, rootLambda string }{
		{"qcd default", smallConfig, "ginkgo2020", "generative"},
		{"w ginkgo2021 uniform", strings.Replace(smallConfig, "    t_cut: 16\n", "    t_cut: 16\n    jet_type: w\n    likelihood: ginkgo2021\n    root_lambda: uniform\n", 1), "ginkgo2021", "uniform"},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			cfg := writeFile(t, dir, "small.yaml", c.config)
			first := filepath.Join(dir, "first")
			if code, _, stderr := run(t, context.Background(), "run", cfg, "-out", first, "-save-data"); code != ExitOK {
				t.Fatalf("exit %d\n%s", code, stderr)
			}
			saved := filepath.Join(first, results.DataDir, "qcd.jsonl")
			again := writeFile(t, dir, "again.yaml", "version: 1\nname: small\nseed: 3\ndatasets:\n  - name: qcd\n    file: "+saved+"\nalgorithms: [truth, greedy]\n")
			second := filepath.Join(dir, "second")
			if code, _, stderr := run(t, context.Background(), "run", again, "-out", second); code != ExitOK {
				t.Fatalf("exit %d\n%s", code, stderr)
			}
			a, b := readRecords(t, first), readRecords(t, second)
			if len(a) != len(b) {
				t.Fatalf("%d records from the generator, %d from the saved file", len(a), len(b))
			}
			for k, ra := range a {
				rb, ok := b[k]
				if !ok {
					t.Fatalf("task %s missing from the rerun", k)
				}
				if ra.Newick != rb.Newick || ra.LogLikelihood.Value() != rb.LogLikelihood.Value() || ra.TruthLogLikelihood.Value() != rb.TruthLogLikelihood.Value() {
					t.Errorf("task %s: %s %v (truth %v) vs %s %v (truth %v)", k, ra.Newick, ra.LogLikelihood.Value(), ra.TruthLogLikelihood.Value(), rb.Newick, rb.LogLikelihood.Value(), rb.TruthLogLikelihood.Value())
				}
				for _, r := range []results.Record{ra, rb} {
					if r.DataParams["likelihood"] != c.likelihood || r.DataParams["root_lambda"] != c.rootLambda {
						t.Errorf("task %s: data_params %v, want likelihood %s and root_lambda %s", k, r.DataParams, c.likelihood, c.rootLambda)
					}
				}
			}
		})
	}
}

func TestBadInput(t *testing.T) {
	dir := t.TempDir()
	good := writeFile(t, dir, "good.yaml", smallConfig)
	jetsBad := writeFile(t, dir, "bad.jsonl", `{"leaves": [[1,0,0,1],[1,0,0,-1]], "Lambda": 1.5, "pt_cut": 0.1}`+"\n\n"+`{"leaves": [[1,0,0,1]], "Lambda": 1.5, "pt_cut": `+"\n")
	cases := []struct {
		name   string
		config string // written to x.yaml when not empty
		args   []string
		code   int
		stderr string
	}{
		{"syntax", "version: 1\nname: [x\n", nil, ExitFailure, "x.yaml:2: YAML syntax error"},
		{"unknown key", strings.Replace(smallConfig, "jets: 40", "jets: 40\n    jest: 3", 1), nil, ExitFailure, `x.yaml:8: datasets[0]: unknown key "jest"`},
		{"wrong type", strings.Replace(smallConfig, "jets: 40", "jets: forty", 1), nil, ExitFailure, `x.yaml:7: datasets[0].jets: want an integer, got "forty"`},
		{"missing key", strings.Replace(smallConfig, "    t_cut: 16\n", "", 1), nil, ExitFailure, "x.yaml:5: datasets[0].t_cut: missing required key"},
		{"min > max", strings.Replace(smallConfig, "min_leaves: 4", "min_leaves: 10", 1), nil, ExitFailure, "x.yaml:8: datasets[0].min_leaves: 10 is greater than max_leaves 9"},
		{"negative t_cut", strings.Replace(smallConfig, "t_cut: 16", "t_cut: -16", 1), nil, ExitFailure, "x.yaml:10: datasets[0].t_cut: must be positive, got -16"},
		{"malformed jets line", "version: 1\nname: f\ndatasets:\n  - name: mine\n    file: bad.jsonl\nalgorithms: [greedy]\n", nil, ExitFailure, jetsBad + ":3: not a jet in JSON"},
		{"missing data file", "version: 1\nname: f\ndatasets:\n  - name: mine\n    file: none.jsonl\nalgorithms: [greedy]\n", nil, ExitFailure, "x.yaml:5: datasets[0].file: " + filepath.Join(dir, "none.jsonl") + " does not exist"},
		{"missing config", "", []string{"run", filepath.Join(dir, "nope.yaml")}, ExitFailure, "cannot read config"},
		{"unknown command", "", []string{"rnu"}, ExitUsage, `unknown command "rnu"`},
		{"unknown flag", "", []string{"run", good, "-wokers", "2"}, ExitUsage, "flag provided but not defined: -wokers"},
		{"no config", "", []string{"run"}, ExitUsage, "Usage: hcbench run CONFIG"},
		{"bad workers", "", []string{"run", good, "-workers", "-1"}, ExitUsage, "-workers must be 0"},
		{"unknown help", "", []string{"help", "me"}, ExitUsage, "unknown help topic"},
		{"no args", "", []string{}, ExitUsage, "Usage:"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			args := c.args
			if c.config != "" {
				p := writeFile(t, dir, "x.yaml", c.config)
				args = []string{"validate", p}
			}
			code, _, stderr := run(t, context.Background(), args...)
			if code != c.code {
				t.Errorf("exit %d, want %d; stderr:\n%s", code, c.code, stderr)
			}
			if !strings.Contains(stderr, c.stderr) {
				t.Errorf("stderr does not contain %q:\n%s", c.stderr, stderr)
			}
			if c.config != "" {
				// run must refuse the same config before creating anything.
				out := filepath.Join(dir, "out-"+strings.ReplaceAll(c.name, " ", "-"))
				if code, _, _ := run(t, context.Background(), "run", filepath.Join(dir, "x.yaml"), "-out", out); code != c.code {
					t.Errorf("run: exit %d, want %d", code, c.code)
				}
				if _, err := os.Stat(out); !os.IsNotExist(err) {
					t.Errorf("run created %s for a bad config", out)
				}
			}
		})
	}
}

func TestValidateAndPlan(t *testing.T) {
	dir := t.TempDir()
	cfg := writeFile(t, dir, "small.yaml", smallConfig)
	code, stdout, stderr := run(t, context.Background(), "validate", cfg)
	if code != ExitOK || !strings.Contains(stdout, "ok (1 data set, 2 algorithms, 80 tasks; memory about ") {
		t.Errorf("validate: exit %d\n%s%s", code, stdout, stderr)
	}
	// plan: the summary and the estimates first, then the first 20 tasks; -tasks lists them all.
	code, stdout, _ = run(t, context.Background(), "plan", cfg)
	memoryAt, listAt := strings.Index(stdout, "\n# memory: about "), strings.Index(stdout, "\n# the first 20 of the 80 tasks (-tasks lists them all):\n")
	if code != ExitOK || !strings.HasPrefix(stdout, "# small: 80 tasks\n# expected time and working memory") || memoryAt < 0 || listAt < memoryAt ||
		strings.Count(stdout, "dataset=") != 20 || !strings.Contains(stdout, "dataset=qcd|item=9|algorithm=greedy\n") {
		t.Errorf("plan: exit %d\n%s", code, stdout)
	}
	code, stdout, _ = run(t, context.Background(), "plan", cfg, "-tasks")
	if code != ExitOK || !strings.Contains(stdout, "\n# the 80 tasks:\n") || !strings.Contains(stdout, "dataset=qcd|item=39|algorithm=greedy") || strings.Count(stdout, "dataset=") != 80 {
		t.Errorf("plan -tasks: exit %d\n%s", code, stdout)
	}
	code, stdout, _ = run(t, context.Background(), "plan", cfg, "-only", "item=3\\|algorithm=truth")
	if code != ExitOK || !strings.HasPrefix(stdout, "# small: 1 of 80 tasks (-only ") || !strings.Contains(stdout, "\n# the 1 task -only selects:\n") ||
		!regexp.MustCompile(`(?m)^qcd\s+truth\s+1\s+4–9\s`).MatchString(stdout) || strings.Count(stdout, "dataset=") != 1 {
		t.Errorf("plan -only, one task: exit %d\n%s", code, stdout)
	}
	code, stdout, _ = run(t, context.Background(), "help", "config")
	if code != ExitOK || !strings.Contains(stdout, "t_cut") {
		t.Errorf("help config: exit %d\n%s", code, stdout)
	}
}

func TestRefusesNonEmptyRunDir(t *testing.T) {
	dir := t.TempDir()
	cfg := writeFile(t, dir, "small.yaml", smallConfig)
	writeFile(t, dir, "keep.txt", "x")
	code, _, stderr := run(t, context.Background(), "run", cfg, "-out", dir)
	if code != ExitFailure || !strings.Contains(stderr, "is not empty and holds no hcbench run") {
		t.Errorf("exit %d\n%s", code, stderr)
	}
}

// TestInterruptKeepsFinishedRecords cancels a run once its first records are written: the run
// must stop, say so in its manifest and exit code, and keep every finished record whole.
func TestInterruptKeepsFinishedRecords(t *testing.T) {
	dir := t.TempDir()
	cfg := writeFile(t, dir, "long.yaml", strings.NewReplacer("jets: 40", "jets: 4000", "min_leaves: 4", "min_leaves: 14",
		"max_leaves: 9", "max_leaves: 30", "t_cut: 16", "t_cut: 1.21").Replace(smallConfig))
	out := filepath.Join(dir, "run")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		for ctx.Err() == nil {
			if st, err := os.Stat(filepath.Join(out, results.ResultsFile)); err == nil && st.Size() > 0 {
				cancel()
				return
			}
			time.Sleep(time.Millisecond)
		}
	}()
	code, stdout, stderr := run(t, ctx, "run", cfg, "-out", out, "-workers", "1")
	if code != ExitInterrupted {
		t.Fatalf("exit %d, want %d\n%s%s", code, ExitInterrupted, stdout, stderr)
	}
	recs := readRecords(t, out)
	var m results.Manifest
	b, _ := os.ReadFile(filepath.Join(out, results.ManifestFile))
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	if m.Status != results.StatusInterrupted || m.Finished != len(recs) || len(recs) == 0 || len(recs) >= m.Tasks {
		t.Errorf("manifest status %s, finished %d of %d, %d records on disk", m.Status, m.Finished, m.Tasks, len(recs))
	}
	for k, r := range recs {
		if r.Error != "" {
			t.Errorf("task %s recorded as failed after the interrupt: %s", k, r.Error)
		}
	}
}

// TestGenerationShortfallIsLoud asks for jets the generator cannot make within max_tries: the
// run must say so on stderr and in the manifest, record the tasks as failed, and exit 1.
func TestGenerationShortfallIsLoud(t *testing.T) {
	dir := t.TempDir()
	cfg := writeFile(t, dir, "rare.yaml", strings.NewReplacer("min_leaves: 4", "min_leaves: 60", "max_leaves: 9", "max_leaves: 60",
		"jets: 40", "jets: 2\n    max_tries: 5").Replace(smallConfig))
	out := filepath.Join(dir, "run")
	code, _, stderr := run(t, context.Background(), "run", cfg, "-out", out)
	if code != ExitFailure {
		t.Errorf("exit %d, want %d", code, ExitFailure)
	}
	if !strings.Contains(stderr, "data set qcd: 2 of 2 items could not be made") || !strings.Contains(stderr, "in 5 tries") {
		t.Errorf("stderr does not report the shortfall:\n%s", stderr)
	}
	recs := readRecords(t, out)
	if len(recs) != 4 {
		t.Fatalf("%d records, want 4", len(recs))
	}
	for k, r := range recs {
		if !strings.HasPrefix(r.Error, "data: ") {
			t.Errorf("task %s: error %q, want a data error", k, r.Error)
		}
	}
}

// TestTrellisRecords runs the trellis with marginals and samples: records carry log Z ≥ the MAP,
// the tree count, the marginals and the samples, identically for 1 and 2 workers; a task over the
// memory limit fails with a message naming N, the estimate and the limit, and the others go on;
// validation warns of them, and refuses a limit that no item fits.
func TestTrellisRecords(t *testing.T) {
	dir := t.TempDir()
	// A jet whose t_cut lies above its root's t: every split is impossible (log Z = −Inf).
	writeFile(t, dir, "impossible.jsonl", `{"id": "imp", "leaves": [[10,0,0,10],[10,0,0,-10],[5,3,0,4]], "Lambda": 1.5, "pt_cut": 1e6}
`)
	cfg := writeFile(t, dir, "tr.yaml", `version: 1
name: tr
datasets:
  - {name: qcd, generator: ginkgo, jets: 6, min_leaves: 5, max_leaves: 8, t_cut: 16}
  - {name: imp, file: impossible.jsonl}
  - {name: mix, generator: mixture, points: 8, components: 2, separation: 3, items: 2}
algorithms:
  - {name: trellis, marginals: 3, samples: 4, datasets: [qcd, imp]}
  - {name: trellis, label: tiny, memory_limit: 4KiB, datasets: [qcd]}
  - {name: trellis, label: ties, count_map_trees: true, datasets: [mix]}
`)
	// 52 bytes a subset (node, backpointer, count, t): N ≤ 6 fits 4 KiB, N = 7 and 8 do not.
	code, _, stderr := run(t, context.Background(), "validate", cfg)
	if code != ExitOK || !strings.Contains(stderr, "tr.yaml:9: algorithms[1] (tiny) fails on the items of data set qcd with more than 6 leaves") {
		t.Errorf("validate: exit %d\n%s", code, stderr)
	}
	none := writeFile(t, dir, "none.yaml", strings.Replace(mustRead(t, cfg), "memory_limit: 4KiB", "memory_limit: 1KiB", 1))
	code, _, stderr = run(t, context.Background(), "validate", none)
	if code != ExitFailure || !strings.Contains(stderr, "none.yaml:9: algorithms[1] (tiny) cannot run on data set qcd: N = 5 needs about 2 KiB") {
		t.Errorf("validate with a limit no item fits: exit %d\n%s", code, stderr)
	}
	var runs []map[string]results.Record
	for _, w := range []string{"1", "2"} {
		out := filepath.Join(dir, "run-"+w)
		code, _, stderr := run(t, context.Background(), "run", cfg, "-out", out, "-workers", w)
		if code != ExitFailure {
			t.Fatalf("exit %d, want %d (the tiny tasks fail)\n%s", code, ExitFailure, stderr)
		}
		runs = append(runs, readRecords(t, out))
	}
	for k, r := range runs[0] {
		jr, _ := json.Marshal(r)
		jr2, _ := json.Marshal(runs[1][k])
		if !bytes.Equal(jr, jr2) {
			t.Errorf("task %s differs between 1 and 2 workers", k)
		}
		switch {
		case r.Dataset == "imp":
			// No NaN, no failure: null log Z and log-likelihood, no trees, a warning instead of
			// marginals and samples.
			if r.Error != "" || !math.IsInf(r.LogZ.Value(), -1) || !math.IsInf(r.LogLikelihood.Value(), -1) || r.NTrees == nil || *r.NTrees != 0 ||
				r.Marginals != nil || r.Samples != nil || len(r.Warnings) != 1 || !strings.Contains(r.Warnings[0], "impossible") {
				t.Errorf("%s: %+v", k, r)
			}
		case r.Algorithm == "ties":
			// Two Gaussian clusters of 4 under the correlation energy: at least the tie rule's tree
			// reaches the MAP, and its purity lies in the range over all MAP trees.
			pair, ok := r.Metric(metric.DendrogramPurityPair)
			if r.Error != "" || r.MAPTrees == nil || *r.MAPTrees < 1 || r.MAPPurityPairMin == nil || r.MAPPurityPairMax == nil || !ok ||
				*r.MAPPurityPairMin > pair+1e-12 || pair > *r.MAPPurityPairMax+1e-12 {
				t.Errorf("%s: %+v", k, r)
			}
		case r.Algorithm == "trellis":
			if r.Error != "" || r.LogZ == nil || *r.LogZ < *r.LogLikelihood || r.NTrees == nil || *r.NTrees < 1 || r.NTreesExact == nil || !*r.NTreesExact {
				t.Errorf("%s: %+v", k, r)
			}
			if r.Marginals == nil || len(r.Marginals.TopClusters) != 3 || len(r.Marginals.MAPClusters) != r.N-1 || len(r.Samples) != 4 {
				t.Errorf("%s: marginals %+v, %d samples", k, r.Marginals, len(r.Samples))
			}
			if r.Marginals != nil && r.Marginals.MAPClusters[0].P < 0.999999 { // the root
				t.Errorf("%s: root marginal %v", k, r.Marginals.MAPClusters[0].P)
			}
		case r.Algorithm == "tiny" && r.N <= 6:
			if r.Error != "" {
				t.Errorf("%s: N = %d fits 4 KiB, error %q", k, r.N, r.Error)
			}
		case r.Algorithm == "tiny":
			// The plan's reason, which its warning gave, recorded before the task starts.
			if !strings.Contains(r.Error, "N = "+strconv.Itoa(r.N)) || !strings.Contains(r.Error, "over its memory_limit of 4 KiB") {
				t.Errorf("%s: error %q", k, r.Error)
			}
		}
	}
}

// TestEveryAlgorithmAndReport runs each algorithm and report once on small jets: every task
// succeeds, and every report writes its files.
func TestEveryAlgorithmAndReport(t *testing.T) {
	dir := t.TempDir()
	cfg := writeFile(t, dir, "all.yaml", `version: 1
name: all
datasets:
  - {name: qcd, generator: ginkgo, jets: 8, min_leaves: 5, max_leaves: 8, t_cut: 16}
algorithms:
  - truth
  - greedy
  - {name: beam, beam_size: 3n}
  - trellis
  - {name: sparse_trellis, all_pairs_max_size: 4, splits_tried: 5, splits_kept: 3}
reports: [summary, likelihood_gap, z_vs_map, runtime]
`)
	out := filepath.Join(dir, "run")
	code, stdout, stderr := run(t, context.Background(), "run", cfg, "-out", out)
	if code != ExitOK {
		t.Fatalf("exit %d\n%s%s", code, stdout, stderr)
	}
	for _, f := range []string{"summary.md", "likelihood_gap.md", "likelihood_gap.csv", "z_vs_map.png", "z_vs_map.svg", "runtime.png"} {
		if _, err := os.Stat(filepath.Join(out, "reports", f)); err != nil {
			t.Errorf("report file %s: %v", f, err)
		}
	}
	for k, r := range readRecords(t, out) {
		if r.Error != "" {
			t.Errorf("%s: %s", k, r.Error)
		}
		if r.AlgorithmName == "sparse_trellis" && (r.SparseClusters == 0 || r.SparseSplits == 0) {
			t.Errorf("%s: sparse trellis size missing: %+v", k, r)
		}
	}
}

// TestShippedConfigs validates every config in configs/ (reading its data files from the data
// directory), so that a shipped config never rots. A config whose data set is not fetched is
// skipped, naming the set (HCBENCH_REQUIRE_DATA=1 fails instead).
func TestShippedConfigs(t *testing.T) {
	files, err := filepath.Glob("../../configs/*.yaml")
	if err != nil || len(files) == 0 {
		t.Fatalf("no shipped configs: %v", err)
	}
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			requireConfigData(t, f)
			if code, _, stderr := run(t, context.Background(), "validate", f); code != ExitOK {
				t.Errorf("exit %d\n%s", code, stderr)
			}
		})
	}
}

// requireConfigData skips the test (or fails it, with HCBENCH_REQUIRE_DATA=1) unless every file
// of the data directory that the config at path names is there, naming the data set missing.
func requireConfigData(t *testing.T, path string) {
	t.Helper()
	for _, m := range dataRef.FindAllSubmatch([]byte(mustRead(t, path)), -1) {
		datatest.Path(t, string(m[1]))
	}
}

// dataRef finds the data references of a config: "file: data:SET/FILE".
var dataRef = regexp.MustCompile(`(?m)^\s*(?:-\s*)?file:\s*data:(\S+)`)

// TestPAM50Subsamples runs two stratified subsamples of the real pam50 matrix: 12 named, labelled
// leaves per item (2 per subtype, 2 unknown), purities recorded, the missing cells counted, and a
// missing matrix named with where to get it.
func TestPAM50Subsamples(t *testing.T) {
	datatest.Path(t, "pam50/220arrays_nonUBCcommon+12normal_50g.txt")
	dir := t.TempDir()
	src := `version: 1
name: p
datasets:
  - name: pam50
    file: data:pam50/220arrays_nonUBCcommon+12normal_50g.txt
    format: pam50
    subsamples: 2
algorithms: [trellis, greedy, {name: linkage, distance: weights}]
reports: [purity, dendrograms]
`
	cfg := writeFile(t, dir, "p.yaml", src)
	out := filepath.Join(dir, "run")
	if code, _, stderr := run(t, context.Background(), "run", cfg, "-out", out); code != ExitOK {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	for k, r := range readRecords(t, out) {
		counts := map[string]int{}
		for _, l := range r.LeafLabels {
			counts[l]++
		}
		if r.N != 12 || len(r.LeafNames) != 12 || fmt.Sprint(counts) != "map[:2 Basal:2 Her2:2 LumA:2 LumB:2 Normal:2]" {
			t.Errorf("%s: N %d, names %v, labels %v", k, r.N, r.LeafNames, counts)
		}
		if _, ok := r.Metric(metric.DendrogramPurity); !ok || r.LabelledLeaves != 10 {
			t.Errorf("%s: purity %v over %d leaves", k, r.Metrics, r.LabelledLeaves)
		}
	}
	if _, err := os.Stat(filepath.Join(out, "reports", "dendrograms-pam50.png")); err != nil {
		t.Error(err)
	}
	missing := writeFile(t, dir, "m.yaml", strings.Replace(src, "pam50/220arrays", "pam50/none", 1))
	code, _, stderr := run(t, context.Background(), "validate", missing)
	if code != ExitFailure || !strings.Contains(stderr, "does not exist") || !strings.Contains(stderr, "hcbench data fetch pam50") {
		t.Errorf("missing matrix: exit %d\n%s", code, stderr)
	}
}

// TestBayesianRecords runs the Bayesian family on generated mixtures and checks what their
// records must hold: log evidence; the Corollary-1 bound for the DP prior only; a flat clustering
// that partitions the items; per-merge quantities when asked; no log-likelihood without a split
// model or for a rose tree (join-only BRT trees are binary, and scored); rbhc with m ≥ n equal to bhc; bhc_exact never below greedy fixed-π
// BHC; brt with join_only equal to fixed-π BHC; the cc search recorded; and the reports written.
func TestBayesianRecords(t *testing.T) {
	dir := t.TempDir()
	cfg := writeFile(t, dir, "bayes.yaml", `version: 1
name: bayes
datasets:
  - {name: g, generator: mixture, points: 12, components: 3, separation: 4, items: 3}
algorithms:
  - {name: bhc, merges: true}
  - {name: rbhc, label: rbhc-all, m: 100}
  - {name: rbhc, m: 4}
  - {name: embhc, m: 3, steps: 3}
  - {name: bhc, label: fixed, prior: fixed, pi: 0.5, niw: {g: 10}}
  - {name: bhc_exact, pi: 0.5, niw: {g: 10}}
  - {name: brt, gamma: 0.5}
  - {name: brt, label: brt-join, gamma: 0.5, join_only: true}
reports: [summary, evidence, purity, dendrograms]
`)
	bern := writeFile(t, dir, "bern.yaml", `version: 1
name: bern
datasets:
  - {name: b, generator: mixture, kind: bernoulli, points: 12, components: 2, dims: 8, split_model: none, items: 2}
algorithms:
  - {name: bhc, model: bernoulli, cc: optimise}
  - {name: brt, model: bernoulli}
reports: [evidence, dendrograms]
`)
	recs := map[string]results.Record{}
	out := filepath.Join(dir, "run")
	for i, c := range []string{cfg, bern} {
		o := out + strconv.Itoa(i)
		if code, stdout, stderr := run(t, context.Background(), "run", c, "-out", o); code != ExitOK {
			t.Fatalf("exit %d\n%s%s", code, stdout, stderr)
		}
		maps.Copy(recs, readRecords(t, o))
	}
	get := func(ds, item, alg string) results.Record {
		t.Helper()
		r, ok := recs["dataset="+ds+"|item="+item+"|algorithm="+alg]
		if !ok {
			t.Fatalf("no record for %s/%s/%s", ds, item, alg)
		}
		return r
	}
	for k, r := range recs {
		if r.Error != "" {
			t.Errorf("%s: %s", k, r.Error)
			continue
		}
		if r.LogEvidence == nil || math.IsInf(r.LogEvidence.Value(), 0) {
			t.Errorf("%s: log evidence %v", k, r.LogEvidence)
		}
		dp := r.Params["prior"] == "dp"
		if (r.LowerBound != nil) != dp {
			t.Errorf("%s: lower bound %v with prior %v", k, r.LowerBound, r.Params["prior"])
		}
		if dp && r.LowerBound.Value() >= r.LogEvidence.Value() {
			t.Errorf("%s: lower bound %v not below log p(D|T) %v", k, r.LowerBound.Value(), r.LogEvidence.Value())
		}
		seen := make([]bool, r.N)
		for _, c := range r.Clusters {
			for _, i := range c {
				if seen[i] {
					t.Fatalf("%s: item %d in two clusters", k, i)
				}
				seen[i] = true
			}
		}
		if slices.Contains(seen, false) || !hasMetric(r, metric.FlatPurity) || !hasMetric(r, metric.DendrogramPurity) {
			t.Errorf("%s: clusters %v do not partition %d items, or purities missing", k, r.Clusters, r.N)
		}
		if scored := r.Dataset == "g" && r.Algorithm != "brt"; scored != (r.LogLikelihood != nil) {
			t.Errorf("%s: log-likelihood %v", k, r.LogLikelihood)
		}
		if tr, err := tree.ParseNewick(r.Newick, nil); err != nil || tr.Validate(r.N) != nil {
			t.Errorf("%s: newick %q: %v", k, r.Newick, err)
		}
		// Every record states its tie rule, and keeps only the settings that shaped it.
		if rule, _ := r.Params["tie_rule"].(string); rule == "" {
			t.Errorf("%s: no tie_rule in params %v", k, r.Params)
		}
		_, hasPi := r.Params["pi"]
		_, hasAlpha := r.Params["alpha"]
		_, hasCC := r.Params["cc"]
		_, hasNIW := r.Params["niw"]
		if (dp && hasPi) || (r.Params["prior"] == "fixed" && hasAlpha) || (r.Params["model_used"] == "niw") == (hasCC || !hasNIW) {
			t.Errorf("%s: params %v keep a setting the variant did not use", k, r.Params)
		}
	}
	for _, item := range []string{"0", "1", "2"} {
		b := get("g", item, "bhc")
		if len(b.Merges) != b.N-1 || b.Merges[len(b.Merges)-1].LogP != *b.LogEvidence {
			t.Errorf("item %s: %d merges, last %+v, evidence %v", item, len(b.Merges), b.Merges[len(b.Merges)-1], *b.LogEvidence)
		}
		if r := get("g", item, "rbhc-all"); r.Newick != b.Newick || *r.LogEvidence != *b.LogEvidence {
			t.Errorf("item %s: rbhc with m ≥ n differs from bhc: %s %v vs %s %v", item, r.Newick, *r.LogEvidence, b.Newick, *b.LogEvidence)
		}
		f, x := get("g", item, "fixed"), get("g", item, "bhc_exact")
		if x.LogEvidence.Value() < f.LogEvidence.Value()-1e-9 {
			t.Errorf("item %s: exact %v below greedy %v", item, *x.LogEvidence, *f.LogEvidence)
		}
		if j := get("g", item, "brt-join"); math.Abs(j.LogEvidence.Value()-f.LogEvidence.Value()) > 1e-9 {
			t.Errorf("item %s: join-only brt %v, fixed-π bhc %v", item, *j.LogEvidence, *f.LogEvidence)
		}
	}
	if cc, ok := get("b", "0", "bhc").Params["cc_used"].(float64); !ok || !(cc > 0) {
		t.Errorf("cc_used %v", get("b", "0", "bhc").Params["cc_used"])
	}
	for _, f := range []string{"0/reports/evidence.md", "0/reports/evidence.csv", "0/reports/evidence_differences.csv", "0/reports/purity.md", "0/reports/dendrograms-g.png", "1/reports/dendrograms-b.svg"} {
		if _, err := os.Stat(out + f); err != nil {
			t.Error(err)
		}
	}
}

// mustRead returns the contents of a file.
func mustRead(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// lastLines returns the last n lines of s.
func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	return strings.Join(lines[max(0, len(lines)-n):], "\n")
}

// hasMetric reports whether a record has a value of a computed metric.
func hasMetric(r results.Record, key string) bool {
	_, ok := r.Metric(key)
	return ok
}
