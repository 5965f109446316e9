package cli

import (
	"context"
	"maps"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hcbench/hcbench/experiments/registry"
	"github.com/hcbench/hcbench/experiments/results"
)

// A test-only algorithm, registered from this file alone: the caterpillar tree, with the work
// counters its parameter says, against a declaration of one counter, steps.
func init() {
	registry.RegisterAlgorithm(registry.Algorithm{
		Name:      "miscounter",
		Help:      "builds the caterpillar tree and returns the work counters its counters parameter names: a declaration broken on purpose, for tests",
		NewParams: func() registry.Params { return &MiscounterParams{} },
		Counters:  []registry.Counter{{Key: "steps", Help: "leaves joined"}},
		Start: registry.Simple(func(ctx context.Context, p *MiscounterParams, t registry.Task, run registry.Run) (registry.Solution, error) {
			sol, err := solveCaterpillar(ctx, &CaterpillarParams{Order: "index"}, t, run)
			sol.Counters = map[string]int64{}
			for _, k := range p.Counters {
				sol.Counters[k] = int64(t.Item.Leaves() - 1)
			}
			return sol, err
		}),
	})
}

// MiscounterParams: `miscounter` returns the counters named.
type MiscounterParams struct {
	Counters []string `yaml:"counters" default:"[steps]" help:"the counters returned"`
}

// Check checks nothing.
func (p *MiscounterParams) Check(registry.Checker) {}

// TestCountersDeterministic runs one config with 1 and 2 workers, each with -count 1 and 3, and
// checks that every record's work counters are the same in all four runs, and that the trellis
// (log Z and MAP-only, on 1 and 2 threads), beam, greedy and the sparse trellis report theirs.
func TestCountersDeterministic(t *testing.T) {
	dir := t.TempDir()
	cfg := writeFile(t, dir, "c.yaml", `version: 1
name: c
seed: 4
datasets:
  - {name: qcd, generator: ginkgo, jets: 3, min_leaves: 11, max_leaves: 12, t_cut: 16}
  - {name: mix, generator: mixture, points: 9, components: 2, separation: 5, split_model: none}
algorithms:
  - {name: trellis, threads: 1, datasets: [qcd]}
  - {name: trellis, label: trellis2, threads: 2, datasets: [qcd]}
  - {name: trellis, label: trellis_map, mode: map, count_trees: false, threads: 2, datasets: [qcd]}
  - {name: beam, beam_size: 3n, datasets: [qcd]}
  - {name: greedy, datasets: [qcd]}
  - {name: sparse_trellis, all_pairs_max_size: 4, datasets: [qcd]}
  - {name: bhc, datasets: [mix]}
  - {name: linkage, datasets: [mix]}
`)
	counts := func(workers, count string) map[string]map[string]int64 {
		out := filepath.Join(dir, "w"+workers+"c"+count)
		runOK(t, "run", cfg, "-out", out, "-workers", workers, "-count", count)
		recs, err := results.ReadFile(filepath.Join(out, results.ResultsFile))
		if err != nil {
			t.Fatal(err)
		}
		got := map[string]map[string]int64{}
		for _, r := range recs {
			if r.Error != "" {
				t.Fatalf("-workers %s -count %s: %s: %s", workers, count, r.Key, r.Error)
			}
			got[r.Key] = r.Counters
		}
		return got
	}
	ref := counts("1", "1")
	counted := map[string]bool{}
	for key, c := range ref {
		_, label, _ := strings.Cut(key, "|algorithm=")
		if len(c) > 0 {
			counted[label] = true
		}
	}
	for _, label := range []string{"trellis", "trellis2", "trellis_map", "beam", "greedy", "sparse_trellis"} {
		if !counted[label] {
			t.Errorf("%s reports no counters", label)
		}
	}
	for key, c := range ref {
		if strings.HasSuffix(key, "|algorithm=trellis") {
			if c2 := ref[strings.Replace(key, "|algorithm=trellis", "|algorithm=trellis2", 1)]; !maps.Equal(c, c2) {
				t.Errorf("%s: counters %v on 1 thread, %v on 2", key, c, c2)
			}
		}
	}
	for _, run := range [][2]string{{"1", "3"}, {"2", "1"}, {"2", "3"}} {
		got := counts(run[0], run[1])
		if len(got) != len(ref) {
			t.Fatalf("-workers %s -count %s: %d records, want %d", run[0], run[1], len(got), len(ref))
		}
		for key, c := range ref {
			if !maps.Equal(got[key], c) {
				t.Errorf("-workers %s -count %s: %s: counters %v, want %v as with -workers 1 -count 1", run[0], run[1], key, got[key], c)
			}
		}
	}
}

// TestCountersMustMatchTheDeclaration checks that a built-in algorithm's task fails, naming the
// counter, when it returns a counter it does not declare or leaves out one it does.
func TestCountersMustMatchTheDeclaration(t *testing.T) {
	dir := t.TempDir()
	cfg := writeFile(t, dir, "c.yaml", `version: 1
name: c
datasets:
  - {name: qcd, generator: ginkgo, jets: 1, min_leaves: 4, max_leaves: 4, t_cut: 16}
algorithms:
  - {name: miscounter, label: good, counters: [steps]}
  - {name: miscounter, label: extra, counters: [steps, sneaky]}
  - {name: miscounter, label: missing, counters: []}
  - {name: miscounter, label: bad_key, counters: [steps, Bad-Key]}
`)
	out := filepath.Join(dir, "run")
	if code, stdout, stderr := run(t, context.Background(), "run", cfg, "-out", out); code != ExitFailure {
		t.Fatalf("exit %d, want %d (failed tasks)\n%s%s", code, ExitFailure, stdout, stderr)
	}
	recs, err := results.ReadFile(filepath.Join(out, results.ResultsFile))
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{
		"good":    "",
		"extra":   `returned the work counter "sneaky", which it does not declare`,
		"missing": `declares the work counter "steps" but did not return it`,
		"bad_key": `work counter named "Bad-Key"`,
	}
	for _, r := range recs {
		w, ok := want[r.Algorithm] // the variant's label
		switch {
		case !ok:
			t.Errorf("%s: unexpected record", r.Key)
		case w == "" && (r.Error != "" || r.Counters["steps"] != 3):
			t.Errorf("%s: error %q, counters %v; want none and steps = 3", r.Key, r.Error, r.Counters)
		case w != "" && !strings.Contains(r.Error, w):
			t.Errorf("%s: error %q, want it to say %q", r.Key, r.Error, w)
		case w != "" && r.Counters != nil:
			t.Errorf("%s: a failed task with counters %v", r.Key, r.Counters)
		}
	}
}

// registryCounters returns the work counters the algorithm of a name declares.
func registryCounters(name string) []registry.Counter {
	a, ok := registry.LookupAlgorithm(name)
	if !ok {
		return nil
	}
	return a.Counters
}
