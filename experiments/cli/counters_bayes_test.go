package cli

import (
	"context"
	"maps"
	"path/filepath"
	"testing"
)

// TestBayesianAndLinkageCountersIndependentOfWorkers: the work counters of the Bayesian
// algorithms and of every linkage are recorded for every task, and are the same with 1 and 2
// workers (two processes' runs of the same tasks).
func TestBayesianAndLinkageCountersIndependentOfWorkers(t *testing.T) {
	dir := t.TempDir()
	cfg := writeFile(t, dir, "c.yaml", `version: 1
name: counters
seed: 5
datasets:
  - {name: blobs, generator: mixture, kind: gaussian, items: 3, points: 18, components: 3, dims: 2, separation: 6, spread: 1, split_model: none}
  - {name: bits, generator: mixture, kind: bernoulli, items: 2, points: 16, components: 2, dims: 8, separation: 1, split_model: none}
algorithms:
  - {name: bhc, model: auto}
  - {name: bhc, label: bhc-cc, model: auto, cc: optimise}
  - {name: rbhc, model: auto, m: 4, base: 1}
  - {name: rbhc, label: rbhc-logodds, model: auto, m: 4, base: 1, filter: logodds}
  - {name: embhc, model: auto, m: 3, steps: 2, resolve_m: 3, resolve_base: 1}
  - {name: bhc_exact, model: auto}
  - {name: brt, model: auto}
  - {name: linkage, label: average}
  - {name: linkage, label: single, method: single}
  - {name: linkage, label: complete, method: complete}
  - {name: linkage, label: ward, method: ward}
  - {name: linkage, label: ward-vectors, method: ward, vectors: true}
  - {name: linkage, label: centroid, method: centroid}
  - {name: linkage, label: median, method: median}
`)
	var runs []map[string]map[string]int64
	for _, w := range []string{"1", "2"} {
		out := filepath.Join(dir, "run-"+w)
		code, _, stderr := run(t, context.Background(), "run", cfg, "-out", out, "-workers", w)
		if code != ExitOK {
			t.Fatalf("workers %s: exit %d\n%s", w, code, stderr)
		}
		counters := map[string]map[string]int64{}
		for k, r := range readRecords(t, out) {
			if len(r.Counters) == 0 {
				t.Errorf("workers %s: %s recorded no counters (error %q)", w, k, r.Error)
			}
			counters[k] = r.Counters
		}
		runs = append(runs, counters)
	}
	if len(runs[0]) != 5*14 {
		t.Errorf("%d records, want 70 (5 items × 14 variants)", len(runs[0]))
	}
	for k, c := range runs[0] {
		if !maps.Equal(c, runs[1][k]) {
			t.Errorf("%s: counters %v with 1 worker, %v with 2", k, c, runs[1][k])
		}
	}
}
