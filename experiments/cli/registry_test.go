package cli

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/hcbench/hcbench/experiments/config"
	"github.com/hcbench/hcbench/experiments/registry"
	"github.com/hcbench/hcbench/experiments/results/resultstest"
	"github.com/hcbench/hcbench/reports"
)

// needsSetUp are the algorithms that cannot run from their defaults alone, and the test that
// runs them end to end instead.
var needsSetUp = map[string]string{
	"external": "TestExternal* (it needs a program)",
}

// TestTablesAgree walks the algorithm, data source and report tables: every entry has help,
// `help config` lists it, a config may name it with its defaults (and validation runs its
// checks), and the runner can start every algorithm from those defaults.
func TestTablesAgree(t *testing.T) {
	var help strings.Builder
	if err := config.WriteHelp(&help); err != nil {
		t.Fatal(err)
	}
	// help config wraps its text at 120 columns: compare words, with every run of spaces and
	// line breaks made one space.
	flat := func(s string) string { return strings.Join(strings.Fields(s), " ") }
	words := flat(help.String())
	dir := t.TempDir()
	for _, a := range registry.Algorithms() {
		if a.Help == "" || !strings.Contains(words, flat("Algorithm "+a.Name+": "+a.Help)) {
			t.Errorf("algorithm %s: help config does not show its help %q", a.Name, a.Help)
		}
		if reflect.TypeOf(a.NewParams()).Kind() != reflect.Pointer {
			t.Errorf("algorithm %s: NewParams returns %T, not a pointer to a struct", a.Name, a.NewParams())
		}
		if _, skip := needsSetUp[a.Name]; skip {
			continue
		}
		cfg := writeFile(t, dir, a.Name+".yaml", "version: 1\nname: t\ndatasets:\n  - {name: q, generator: ginkgo, jets: 1, t_cut: 16, max_leaves: 6}\nalgorithms: ["+a.Name+"]\n")
		c, err := config.Load(cfg)
		if err != nil {
			t.Errorf("algorithm %s with its defaults: %v", a.Name, err)
			continue
		}
		sv, err := a.Start(c.Algorithms[0].Params, registry.Run{ConfigDir: dir, Workers: 1, Budget: registry.NewBudget(1 << 30)})
		if err != nil {
			t.Errorf("algorithm %s: the runner cannot start it: %v", a.Name, err)
			continue
		}
		sv.Close()
	}
	for _, s := range registry.Sources() {
		title := "generator: " + s.Name
		if s.File {
			title = "format: " + s.Name
		}
		if s.Help == "" || !strings.Contains(words, title) || !strings.Contains(words, flat(s.Help)) {
			t.Errorf("source %s: help config does not show %q with its help", s.Name, title)
		}
	}
	for _, r := range reports.All() {
		if r.Help == "" || !strings.Contains(help.String(), "  "+r.Name+" ") {
			t.Errorf("report %s: help config does not list it", r.Name)
		}
		cfg := writeFile(t, dir, "r.yaml", "version: 1\nname: t\ndatasets:\n  - {name: q, generator: ginkgo, jets: 1, t_cut: 16}\nalgorithms: [greedy]\nreports: ["+r.Name+"]\n")
		if _, err := config.Load(cfg); err != nil {
			t.Errorf("report %s: a config cannot name it: %v", r.Name, err)
		}
	}
}

// TestEveryRegisteredAlgorithmAndReportRuns runs every algorithm of the table (those that run
// from their defaults; see needsSetUp) on generated jets and on a labelled mixture, with every
// report: every algorithm has successful records on a data set it is for, every failure says the
// algorithm is not for that data set, and every report writes its files.
func TestEveryRegisteredAlgorithmAndReportRuns(t *testing.T) {
	dir := t.TempDir()
	var algs []string
	for _, a := range registry.Algorithms() {
		if _, skip := needsSetUp[a.Name]; !skip {
			algs = append(algs, a.Name)
		}
	}
	cfg := writeFile(t, dir, "every.yaml", fmt.Sprintf(`version: 1
name: every
datasets:
  - {name: qcd, generator: ginkgo, jets: 3, min_leaves: 5, max_leaves: 7, t_cut: 16}
  - {name: mix, generator: mixture, points: 9, components: 3, separation: 5, items: 2}
algorithms: [%s]
reports: [%s]
`, strings.Join(algs, ", "), strings.Join(reports.Names(), ", ")))
	out := filepath.Join(dir, "run")
	code, stdout, stderr := run(t, context.Background(), "run", cfg, "-out", out)
	if code != ExitOK && code != ExitFailure {
		t.Fatalf("exit %d\n%s%s", code, stdout, stderr)
	}
	resultstest.CheckRunDir(t, out) // every algorithm's records match the results schema
	ok := map[string]int{}
	for k, r := range readRecords(t, out) {
		switch {
		case r.Error == "":
			ok[r.AlgorithmName]++
		case r.Dataset == "qcd" && strings.Contains(r.Error, "feature vectors"):
			// the Bayesian algorithms and euclidean linkage are for vectors
		default:
			t.Errorf("%s: %s", k, r.Error)
		}
	}
	for _, a := range algs {
		if ok[a] == 0 {
			t.Errorf("algorithm %s has no successful record", a)
		}
	}
	entries, err := os.ReadDir(filepath.Join(out, "reports"))
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range reports.Names() {
		found := false
		for _, e := range entries {
			found = found || strings.HasPrefix(e.Name(), name) || strings.HasPrefix(e.Name(), strings.ReplaceAll(name, "_", "-"))
		}
		if !found {
			t.Errorf("report %s wrote no file (reports/: %d files)", name, len(entries))
		}
	}
}
