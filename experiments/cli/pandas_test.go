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
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/hcbench/hcbench/experiments/results"
	"github.com/hcbench/hcbench/internal/externaltest"
)

// pandasPython returns a Python that imports pandas, Debian's /usr/bin/python3 first (where
// python3-pandas installs it), or skips the test.
func pandasPython(t *testing.T) string {
	t.Helper()
	for _, c := range []string{"/usr/bin/python3", "python3"} {
		if p, err := exec.LookPath(c); err == nil && exec.Command(p, "-c", "import pandas").Run() == nil {
			return p
		}
	}
	t.Skip("no python3 with pandas (Debian: apt-get install python3-pandas)")
	return ""
}

// recipeRE finds the Python block of docs/results.md's pandas section.
var recipeRE = regexp.MustCompile("(?s)### Reading records with pandas\n.*?```python\n(.*?)```")

// TestPandasRecipe runs the pandas code of docs/results.md, as it stands there, on a run whose
// item ids all read as numbers in one data set and as text in others ("NA" and "nan" among
// them), whose seeds pass 2^53, and whose log-likelihoods are finite, null (an external
// program's caterpillar, which the jet's likelihood forbids) or absent (BHC on an item without
// a split model): item and seed
// stay the strings of the records, every finite log-likelihood the same float64, the null ones
// −inf and the absent ones NaN, the integers integer, and the records merge with
// purity_by_item.csv row for row. It runs only where pandas is installed.
func TestPandasRecipe(t *testing.T) {
	py := pandasPython(t)
	m := recipeRE.FindStringSubmatch(mustRead(t, "../../docs/results.md"))
	if m == nil {
		t.Fatal("docs/results.md has no Python block under \"### Reading records with pandas\"")
	}
	recipe := regexp.MustCompile(`(?m)^run = .*$`).ReplaceAllString(m[1], "run = sys.argv[1]")
	if n := strings.Count(recipe, "run = sys.argv[1]"); n != 1 {
		t.Fatalf("the recipe sets run %d times, want once:\n%s", n, m[1])
	}

	dir := t.TempDir()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	q, _ := json.Marshal(exe)
	writeFile(t, dir, "vec.csv", schemaCSV)
	// Three massless leaves, any two of which make a parent of mass² 0, 10 or 8, below t_cut: the
	// likelihood forbids every tree over them, the caterpillar of the external program too.
	writeFile(t, dir, "forbid.jsonl", `{"id": "j", "leaves": [[5,0,0,5],[4,0,0,4],[5,3,0,4]], "Lambda": 1.5, "pt_cut": 16}`+"\n")
	writeFile(t, dir, "zero.csv", "name,f1,f2,label\nNA,0.1,1.2,a\nnan,0.3,1.1,a\nr3,0,0,b\nr4,2.1,0.2,b\nr5,1.9,0.3,b\n")
	cfg := writeFile(t, dir, "p.yaml", fmt.Sprintf(`version: 1
name: pandas
seed: 11
datasets:
  - {name: qcd, generator: ginkgo, jets: 3, min_leaves: 6, max_leaves: 8, t_cut: 16}
  - {name: vec, file: vec.csv, name_column: name, unknown_label: Unknown, subsamples: 3, per_label: 2, unknown: 1}
  - {name: zero, file: zero.csv, name_column: name}
  - {name: forbid, file: forbid.jsonl}
algorithms:
  - truth
  - {name: greedy, datasets: [qcd, vec]}
  - {name: bhc, datasets: [vec, zero]}
  - {name: external, label: caterpillar, command: [%s, %s, caterpillar], datasets: [qcd, forbid]}
reports: [summary, purity]
`, q, externaltest.Arg))
	out := filepath.Join(dir, "run")
	if code, stdout, stderr := run(t, context.Background(), "run", cfg, "-out", out); code != ExitOK {
		t.Fatalf("run: exit %d\n%s%s", code, stdout, stderr)
	}

	script := filepath.Join(dir, "read.py")
	harness := "import sys\n" + recipe + `
report = {
    "item_types": sorted({type(v).__name__ for v in records["item"]} | {type(v).__name__ for v in purity["item"]}),
    "seed_types": sorted({type(v).__name__ for v in records["seed"]}),
    "seeds": dict(zip(records["key"], records["seed"])),
    "n": str(records["n"].dtype),
    "missing_cells": str(records["missing_cells"].dtype),
    "forbidden": sorted(forbidden["key"]),
    "not_applicable": sorted(not_applicable["key"]),
    "finite": {k: repr(v) for k, v in zip(records["key"], records["log_likelihood"]) if math.isfinite(v)},
    "merged": len(both),
    "purity_rows": len(purity),
}
print(json.dumps(report))
`
	if err := os.WriteFile(script, []byte(harness), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(py, "-W", "error", script, out) // a warning of the recipe fails the test
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	b, err := cmd.Output()
	if err != nil {
		t.Fatalf("the recipe: %v\n%s", err, stderr.String())
	}
	var got struct {
		ItemTypes     []string          `json:"item_types"`
		SeedTypes     []string          `json:"seed_types"`
		Seeds         map[string]string `json:"seeds"`
		N             string            `json:"n"`
		MissingCells  string            `json:"missing_cells"`
		Forbidden     []string          `json:"forbidden"`
		NotApplicable []string          `json:"not_applicable"`
		Finite        map[string]string `json:"finite"`
		Merged        int               `json:"merged"`
		PurityRows    int               `json:"purity_rows"`
	}
	if err := json.Unmarshal(b, &got); err != nil {
		t.Fatalf("%v: %s", err, b)
	}

	recs, err := results.ReadFile(filepath.Join(out, results.ResultsFile))
	if err != nil {
		t.Fatal(err)
	}
	var forbidden, absent []string
	bigSeed := false
	for _, r := range recs {
		if s := strconv.FormatUint(r.Seed, 10); got.Seeds[r.Key] != s {
			t.Errorf("%s: seed %q in pandas, %s in the record", r.Key, got.Seeds[r.Key], s)
		}
		bigSeed = bigSeed || r.Seed > 1<<53
		switch v := r.LogLikelihood.Value(); {
		case r.LogLikelihood == nil:
			absent = append(absent, r.Key)
		case math.IsInf(v, -1):
			forbidden = append(forbidden, r.Key)
		default:
			if p, err := strconv.ParseFloat(got.Finite[r.Key], 64); err != nil || p != v {
				t.Errorf("%s: log_likelihood %s in pandas, %v in the record", r.Key, got.Finite[r.Key], v)
			}
		}
	}
	slices.Sort(forbidden)
	slices.Sort(absent)
	if len(forbidden) == 0 || len(absent) == 0 || !bigSeed {
		t.Fatalf("the run should hold null and absent log-likelihoods and a seed past 2^53: %d null, %d absent", len(forbidden), len(absent))
	}
	if !slices.Equal(got.Forbidden, forbidden) || !slices.Equal(got.NotApplicable, absent) {
		t.Errorf("pandas: forbidden %q, not applicable %q; records: null %q, absent %q", got.Forbidden, got.NotApplicable, forbidden, absent)
	}
	if !slices.Equal(got.ItemTypes, []string{"str"}) || !slices.Equal(got.SeedTypes, []string{"str"}) || got.N != "Int64" || got.MissingCells != "Int64" {
		t.Errorf("pandas types: item %q, seed %q, n %s, missing_cells %s; want str, str, Int64, Int64", got.ItemTypes, got.SeedTypes, got.N, got.MissingCells)
	}
	if got.PurityRows == 0 || got.Merged != got.PurityRows {
		t.Errorf("%d records merged with the %d rows of purity_by_item.csv, want every row", got.Merged, got.PurityRows)
	}
}
