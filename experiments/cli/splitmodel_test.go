package cli

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
)

// TestUndefinedSplitModelFailsOnlyItsAlgorithms: one all-zero row has no direction, so the
// default correlation split model is not defined on an item holding it. Only the algorithms that
// score splits (greedy, beam, the trellises, linkage on the weights) fail on that item, with the
// model's error; BHC, BRT and euclidean linkage, which do not use it, run and record a tree
// without a log_likelihood, and every record of the item says why. An item without the row is
// untouched.
func TestUndefinedSplitModelFailsOnlyItsAlgorithms(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, dir, "z.csv", `name,f1,f2,label
r1,0.1,1.2,a
r2,0.3,1.1,a
r3,0.2,0.9,a
r4,2.1,0.2,b
r5,0,0,b
r6,1.9,0.3,b
`)
	cfg := writeFile(t, dir, "z.yaml", `version: 1
name: zero
seed: 4
datasets:
  - {name: all, file: z.csv, name_column: name}
  - {name: some, file: z.csv, name_column: name, classes: [a]}
algorithms:
  - greedy
  - {name: beam, beam_size: 4}
  - trellis
  - sparse_trellis
  - {name: linkage, label: linkage-weights, distance: weights}
  - {name: linkage, label: linkage-euclidean}
  - bhc
  - brt
`)
	out := filepath.Join(dir, "run")
	code, stdout, stderr := run(t, context.Background(), "run", cfg, "-out", out, "-workers", "2")
	if code != ExitFailure {
		t.Fatalf("exit %d, want 1 (failed tasks)\n%s%s", code, stdout, stderr)
	}
	const cause = "correlation: vector 4 has no direction"
	recs := readRecords(t, out)
	for _, label := range []string{"greedy", "beam", "trellis", "sparse_trellis", "linkage-weights", "linkage-euclidean", "bhc", "brt"} {
		r, ok := recs["dataset=all|item=all|algorithm="+label]
		if !ok {
			t.Fatalf("no record of %s on the item with the zero row", label)
		}
		needs := !strings.HasPrefix(label, "linkage-e") && label != "bhc" && label != "brt"
		warned := strings.Contains(strings.Join(r.Warnings, "\n"), "split_model correlation is not defined on this item ("+cause)
		switch {
		case needs && (!strings.Contains(r.Error, "needs the item's split model") || !strings.Contains(r.Error, cause)):
			t.Errorf("%s: error %q, want the split model's, %q", label, r.Error, cause)
		case !needs && (r.Error != "" || r.Newick == "" || r.LogLikelihood != nil):
			t.Errorf("%s does not use the split model: error %q, newick %q, log_likelihood %v; want a tree and no log_likelihood", label, r.Error, r.Newick, r.LogLikelihood)
		case !warned:
			t.Errorf("%s: warnings %q, want the split model's", label, r.Warnings)
		}
		if s := recs["dataset=some|item=all|algorithm="+label]; s.Error != "" || s.LogLikelihood == nil || len(s.Warnings) > 0 {
			t.Errorf("%s on the rows of class a: error %q, log_likelihood %v, warnings %q", label, s.Error, s.LogLikelihood, s.Warnings)
		}
	}
}
