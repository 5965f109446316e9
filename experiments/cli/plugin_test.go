package cli

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hcbench/hcbench/algorithms/model"
	"github.com/hcbench/hcbench/algorithms/tree"
	"github.com/hcbench/hcbench/experiments/registry"
)

// A test-only algorithm, registered from this file alone, as docs/extending.md shows: the
// caterpillar tree (leaf k joined to the tree of leaves before it). TestPluginAlgorithm checks
// that help, validation, the run and the reports take it with no other edit.
func init() {
	registry.RegisterAlgorithm(registry.Algorithm{
		Name:      "caterpillar",
		Help:      "joins leaf k to the tree of leaves 0..k−1: the deepest tree, a baseline",
		NewParams: func() registry.Params { return &CaterpillarParams{} },
		Start:     registry.Simple(solveCaterpillar),
	})
}

// CaterpillarParams: `caterpillar` builds a caterpillar tree.
type CaterpillarParams struct {
	Order string `yaml:"order" default:"index" help:"index (leaf 0 first) or reversed"`
}

// Check checks the parameters.
func (p *CaterpillarParams) Check(c registry.Checker) {
	registry.OneOf(c, "order", p.Order, "index", "reversed")
}

func solveCaterpillar(_ context.Context, p *CaterpillarParams, t registry.Task, _ registry.Run) (registry.Solution, error) {
	m, err := registry.NeedModel("caterpillar", t.Item) // the split model, or why the item has none
	if err != nil {
		return registry.Solution{}, err
	}
	n := t.Item.Leaves()
	leaf := func(k int) int {
		if p.Order == "reversed" {
			return n - 1 - k
		}
		return k
	}
	var merges [][2]int
	for k := 1; k < n; k++ {
		prev := leaf(0)
		if k > 1 {
			prev = n + k - 2 // the node the previous merge made
		}
		merges = append(merges, [2]int{prev, leaf(k)})
	}
	tr, err := tree.FromMerges(n, merges)
	if err != nil {
		return registry.Solution{}, err
	}
	ll, err := model.TreeLogLikelihood(m, tr)
	return registry.Solution{Tree: tr, LogLikelihood: ll}, err
}

// TestPluginAlgorithm: the caterpillar, registered above, is in help config with its key, is
// validated at the line of its key, runs beside the built-in algorithms with their records, and
// has its rows in the reports and bench.txt.
func TestPluginAlgorithm(t *testing.T) {
	code, help, _ := run(t, context.Background(), "help", "config")
	if code != ExitOK || !strings.Contains(help, "Algorithm caterpillar: joins leaf k") || !strings.Contains(help, "index (leaf 0 first) or reversed") {
		t.Errorf("help config does not describe the caterpillar:\n%s", lastLines(help, 30))
	}
	dir := t.TempDir()
	bad := writeFile(t, dir, "bad.yaml", "version: 1\nname: c\ndatasets:\n  - {name: q, generator: ginkgo, jets: 4, t_cut: 16, max_leaves: 8}\nalgorithms:\n  - {name: caterpillar,\n     order: sideways}\n")
	if code, _, stderr := run(t, context.Background(), "validate", bad); code != ExitFailure ||
		!strings.Contains(stderr, `bad.yaml:7: algorithms[0].order: must be index or reversed, got "sideways"`) {
		t.Errorf("validate: exit %d\n%s", code, stderr)
	}
	cfg := writeFile(t, dir, "c.yaml", "version: 1\nname: c\ndatasets:\n  - {name: q, generator: ginkgo, jets: 4, min_leaves: 5, t_cut: 16, max_leaves: 8}\nalgorithms: [truth, greedy, trellis, caterpillar, {name: caterpillar, label: backwards, order: reversed}]\nreports: [summary, likelihood_gap]\n")
	out := filepath.Join(dir, "run")
	runOK(t, "run", cfg, "-out", out)
	for k, r := range readRecords(t, out) {
		if r.Error != "" || r.LogLikelihood == nil {
			t.Errorf("%s: error %q, log-likelihood %v", k, r.Error, r.LogLikelihood)
		}
		if r.AlgorithmName == "caterpillar" && r.Params["order"] == nil {
			t.Errorf("%s: params %v lack order", k, r.Params)
		}
	}
	for _, f := range []string{"reports/summary.md", "reports/likelihood_gap.md", "bench.txt"} {
		if s := mustRead(t, filepath.Join(out, f)); !strings.Contains(s, "caterpillar") || !strings.Contains(s, "backwards") {
			t.Errorf("%s does not show the caterpillar variants", f)
		}
	}
}
