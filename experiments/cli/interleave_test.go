package cli

import (
	"context"
	"encoding/json"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/hcbench/hcbench/experiments/registry"
	"github.com/hcbench/hcbench/experiments/results"
	"github.com/hcbench/hcbench/experiments/results/resultstest"
)

// tally, a test-only algorithm registered from this file alone, builds the caterpillar tree and
// reports a work counter (its leaves, squared); in the runs of a context withTally made, it
// notes the key of every task it is called for, in call order, cancels the context at a given
// call (an interrupt at a known point of the run, with no timing involved), and can build
// another tree (a nondeterministic algorithm, seen across sessions).
func init() {
	registry.RegisterAlgorithm(registry.Algorithm{
		Name:      "tally",
		Help:      "builds the caterpillar tree and counts its leaves squared; in a run whose context withTally made, it notes each call and can stop the run at one: for tests",
		NewParams: func() registry.Params { return &registry.NoParams{} },
		Counters:  []registry.Counter{{Key: "leaf_pairs", Help: "leaves squared"}},
		Start: registry.Simple(func(ctx context.Context, _ *registry.NoParams, t registry.Task, run registry.Run) (registry.Solution, error) {
			if c, ok := ctx.Value(tallyKey{}).(*tallyCalls); ok {
				c.mu.Lock()
				c.keys = append(c.keys, t.Key)
				if len(c.keys) == c.stopAt {
					c.cancel()
				}
				c.mu.Unlock()
			}
			order := "index"
			if c, ok := ctx.Value(tallyKey{}).(*tallyCalls); ok && c.reversed {
				order = "reversed"
			}
			sol, err := solveCaterpillar(ctx, &CaterpillarParams{Order: order}, t, run)
			n := int64(t.Item.Leaves())
			sol.Counters = map[string]int64{"leaf_pairs": n * n}
			return sol, err
		}),
	})
}

type tallyKey struct{}

// tallyCalls are the task keys tally was called for, in order; the stopAt-th call cancels.
type tallyCalls struct {
	mu     sync.Mutex
	keys   []string
	stopAt int
	cancel context.CancelFunc
	// reversed builds the caterpillar in reversed leaf order: another tree than in other runs.
	reversed bool
}

// withTally returns a context whose runs note tally's calls in the returned tallyCalls, and
// which the stopAt-th call cancels (0: none).
func withTally(stopAt int) (context.Context, *tallyCalls) {
	ctx, cancel := context.WithCancel(context.Background())
	c := &tallyCalls{stopAt: stopAt, cancel: cancel}
	return context.WithValue(ctx, tallyKey{}, c), c
}

// untimedRecords reads the records of a run directory as JSON without the fields that differ
// between runs of a deterministic algorithm (the times), by key.
func untimedRecords(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	for k, r := range readRecords(t, dir) {
		r.Seconds, r.Times = 0, nil
		b, err := json.Marshal(r)
		if err != nil {
			t.Fatal(err)
		}
		out[k] = string(b)
	}
	return out
}

const interleaveConfig = "version: 1\nname: il\nseed: 5\ndatasets:\n  - {name: qcd, generator: ginkgo, jets: 8, min_leaves: 4, max_leaves: 6, t_cut: 16}\nalgorithms: [tally, greedy]\n"

// TestInterleavedRepetitions: with -count 3, a run starts the repetitions repetition-major,
// every task once per round, each round in an order drawn from the seed (another than the plan's,
// and another each round), the same order for the same seed; the manifest says so; the records,
// work counters included, are those of -count 1 apart from the times, with 1 worker and with
// 2; the repetitions file is gone once every task has its record.
func TestInterleavedRepetitions(t *testing.T) {
	dir := t.TempDir()
	cfg := writeFile(t, dir, "il.yaml", interleaveConfig)
	runWith := func(name string, args ...string) []string {
		ctx, calls := withTally(0)
		out := filepath.Join(dir, name)
		if code, _, stderr := run(t, ctx, append([]string{"run", cfg, "-out", out}, args...)...); code != ExitOK {
			t.Fatalf("%s: exit %d\n%s", name, code, stderr)
		}
		return calls.keys
	}
	once := runWith("once", "-count", "1", "-workers", "1")
	first := runWith("a", "-count", "3", "-workers", "1")
	again := runWith("b", "-count", "3", "-workers", "1")
	runWith("two", "-count", "3", "-workers", "2")

	if !slices.Equal(first, again) {
		t.Errorf("one seed, two orders:\n%q\n%q", first, again)
	}
	if len(first) != 3*8 {
		t.Fatalf("%d calls of tally, want 24 (8 items × 3)", len(first))
	}
	var rounds [][]string
	for r := range 3 {
		round := first[8*r : 8*(r+1)]
		if len(slices.Compact(slices.Sorted(slices.Values(round)))) != 8 {
			t.Errorf("round %d is not every task once: %q", r+1, round)
		}
		if slices.Equal(round, once) {
			t.Errorf("round %d in the plan's order", r+1)
		}
		rounds = append(rounds, round)
	}
	if slices.Equal(rounds[0], rounds[1]) || slices.Equal(rounds[1], rounds[2]) {
		t.Error("two rounds in the same order")
	}

	b, err := os.ReadFile(filepath.Join(dir, "a", results.ManifestFile))
	if err != nil {
		t.Fatal(err)
	}
	if err := resultstest.ValidateManifest(b); err != nil {
		t.Error(err)
	}
	if !strings.Contains(string(b), `"repetitions": {
    "count": 3,
    "order": "interleaved",
    "seed": "5"
  }`) {
		t.Errorf("manifest without its repetitions:\n%s", b)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "once", results.ManifestFile)); strings.Contains(string(b), `"repetitions"`) {
		t.Error("a run of one repetition says how repetitions were ordered")
	}
	for _, name := range []string{"once", "a", "two"} {
		if _, err := os.Stat(filepath.Join(dir, name, results.RepetitionsFile)); !os.IsNotExist(err) {
			t.Errorf("%s: %s left after a complete run (%v)", name, results.RepetitionsFile, err)
		}
	}

	want := untimedRecords(t, filepath.Join(dir, "once"))
	for _, name := range []string{"a", "two"} {
		got := untimedRecords(t, filepath.Join(dir, name))
		if len(got) != 16 {
			t.Errorf("%s: %d records, want 16", name, len(got))
		}
		for k, w := range want {
			if !strings.Contains(w, `"leaf_pairs"`) && strings.Contains(k, "tally") {
				t.Errorf("%s: no counter in %s", name, w)
			}
			if got[k] != w {
				t.Errorf("%s: record of %s with -count 3\n%s\nwith -count 1\n%s", name, k, got[k], w)
			}
		}
		recs, err := results.ReadFile(filepath.Join(dir, name, results.ResultsFile))
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range recs {
			if len(r.Times) != 3 || r.Seconds != results.Median(r.Times) {
				t.Errorf("%s: %s: times %v, seconds %v", name, r.Key, r.Times, r.Seconds)
			}
		}
	}
}

// TestInterleavedResume: a shard with -count 3 stopped in its second round keeps every finished
// repetition in its repetitions file; a torn line (a kill while writing) is dropped with a
// warning; the resume runs only the repetitions left and the one in flight when the run
// stopped, and the merge of it with the other shard has the records of an uninterrupted run,
// apart from the times. Run directories without the file (the other shard, the uninterrupted
// run) are unaffected.
func TestInterleavedResume(t *testing.T) {
	dir := t.TempDir()
	cfg := writeFile(t, dir, "il.yaml", strings.Replace(interleaveConfig, "[tally, greedy]", "[tally]", 1))
	whole, shards := filepath.Join(dir, "whole"), filepath.Join(dir, "shards")
	runOK(t, "run", cfg, "-out", whole, "-count", "3")

	// Shard 1 of 2 holds 4 tasks, 12 repetitions; the 6th call stops it.
	ctx, calls := withTally(6)
	code, _, stderr := run(t, ctx, "run", cfg, "-out", shards, "-shard", "1/2", "-count", "3", "-workers", "1")
	if code != ExitInterrupted {
		t.Fatalf("shard 1/2 stopped: exit %d, want %d\n%s", code, ExitInterrupted, stderr)
	}
	side := filepath.Join(shards, results.ShardRepetitions(results.Shard{Index: 1, Count: 2}))
	reps, dropped, err := results.ReadRepetitions(side)
	if err != nil || dropped != 0 || len(reps) != 5 {
		t.Fatalf("%s: %d repetitions, %d dropped, %v; want the 5 that finished before the 6th", side, len(reps), dropped, err)
	}
	for _, r := range reps {
		if (r.N == 1) != (r.Record != nil) || len(r.Digest) != 64 || r.Seconds <= 0 {
			t.Errorf("repetition %+v", r)
		}
	}
	f, err := os.OpenFile(side, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString(`{"key":"dataset=qcd|item=1|algorithm=tally","repetit`)
	f.Close()

	ctx, resumed := withTally(0)
	code, _, stderr = run(t, ctx, "run", cfg, "-out", shards, "-shard", "1/2", "-count", "3", "-workers", "1")
	if code != ExitOK || !strings.Contains(stderr, "dropped 1 torn or damaged line") {
		t.Fatalf("resumed shard: exit %d, want %d and a warning of the torn line\n%s", code, ExitOK, stderr)
	}
	if got := len(resumed.keys); got != 12-5 {
		t.Errorf("the resume ran %d repetitions, want 7 (12, less the 5 kept)", got)
	}
	n := map[string]int{}
	for _, k := range append(calls.keys, resumed.keys...) {
		n[k]++
	}
	extra := 0
	for k, c := range n {
		if c != 3 {
			extra += c - 3
			if c != 4 {
				t.Errorf("%s ran %d times", k, c)
			}
		}
	}
	if extra != 1 {
		t.Errorf("%d repetitions ran twice, want the one in flight when the run stopped", extra)
	}
	if _, err := os.Stat(side); !os.IsNotExist(err) {
		t.Errorf("%s left after the shard completed (%v)", side, err)
	}
	runOK(t, "run", cfg, "-out", shards, "-shard", "0/2", "-count", "3")
	merged := filepath.Join(dir, "merged")
	runOK(t, "merge", "-out", merged, shards)
	want, got := untimedRecords(t, whole), untimedRecords(t, merged)
	if len(got) != 8 || !maps.Equal(want, got) {
		t.Errorf("merged records differ from an uninterrupted run's apart from times:\n%v\n%v", got, want)
	}
	for k, r := range readRecords(t, merged) {
		if len(r.Times) != 3 {
			t.Errorf("%s: times %v", k, r.Times)
		}
	}
	runOK(t, "report", merged)
}

// TestInterleavedResumeChecksDeterminism: a repetition run after a resume is checked against the
// first repetition's record that the repetitions file kept: an algorithm that builds another tree
// in the resumed session fails its tasks as not deterministic, naming the tree.
func TestInterleavedResumeChecksDeterminism(t *testing.T) {
	dir := t.TempDir()
	cfg := writeFile(t, dir, "il.yaml", strings.Replace(interleaveConfig, "[tally, greedy]", "[{name: tally, repeat: 2}]", 1))
	out := filepath.Join(dir, "run")
	ctx, _ := withTally(9) // round 1's 8, then the first of round 2 stops the run
	if code, _, stderr := run(t, ctx, "run", cfg, "-out", out, "-workers", "1"); code != ExitInterrupted {
		t.Fatalf("exit %d, want %d\n%s", code, ExitInterrupted, stderr)
	}
	ctx, calls := withTally(0)
	calls.reversed = true
	if code, _, stderr := run(t, ctx, "run", cfg, "-out", out, "-workers", "1"); code != ExitFailure {
		t.Fatalf("resumed: exit %d, want %d (failed tasks)\n%s", code, ExitFailure, stderr)
	}
	if len(calls.keys) != 8 {
		t.Errorf("the resume ran %d repetitions, want 8 (round 2)", len(calls.keys))
	}
	for k, r := range readRecords(t, out) {
		if !strings.HasPrefix(r.Error, "run 2 of 2 differs from run 1 in newick (") || len(r.Times) != 2 {
			t.Errorf("%s: error %q, times %v; want the nondeterminism named, both times", k, r.Error, r.Times)
		}
	}
}
