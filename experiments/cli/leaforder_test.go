package cli

import (
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/hcbench/hcbench/algorithms/model"
	"github.com/hcbench/hcbench/algorithms/tree"
	"github.com/hcbench/hcbench/datasets/datadir/datatest"
	"github.com/hcbench/hcbench/datasets/jets"
	"github.com/hcbench/hcbench/experiments/metric"
	"github.com/hcbench/hcbench/experiments/registry"
	"github.com/hcbench/hcbench/experiments/results"
	"github.com/hcbench/hcbench/internal/externaltest"
	"github.com/hcbench/hcbench/reports/metrics"
)

// TestAdjacentScoresChance: an external program blind to the data, which pairs adjacent leaves
// (externaltest's adjacent mode), scores what chance gives on pam50's stratified subsamples
// (configs/pam50.yaml's draws) and on mixtures, whose data list the leaves class by class (on
// which it scored dendrogram purity 1.000 on every item when the leaves were given in the data's
// order).
//
// Chance is the program's expected purity when the leaves come in a uniformly random order: the
// mean, over 20,000 random permutations of an item's labels, of the purity of its tree (a fixed
// shape over the positions), with its standard deviation σ. The mean over the data set's items
// must lie within 4σ/√items of the mean of their chance levels (the items are independent draws,
// so a correct program fails this for fewer than 1 seed in 15,000; the config's seed is fixed, so
// the test itself never flips). The standard error of the chance level itself (σ/√20,000) is
// below 1 % of the tolerance.
func TestAdjacentScoresChance(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	q, _ := json.Marshal(exe)
	datasets := `  - {name: mixture, generator: mixture, items: 20, points: 16, components: 4, split_model: none}
`
	if p, ok := datatest.Optional(t, "pam50/220arrays_nonUBCcommon+12normal_50g.txt", "the pam50 data set"); ok {
		pq, _ := json.Marshal(p)
		datasets += fmt.Sprintf("  - {name: pam50, file: %s, format: pam50, subsamples: 20, per_label: 2, unknown: 2}\n", pq)
	}
	dir := t.TempDir()
	cfg := writeFile(t, dir, "adjacent.yaml", fmt.Sprintf(`version: 1
name: adjacent
seed: 50
datasets:
%salgorithms:
  - {name: external, label: adjacent, command: [%s, %s, adjacent]}
reports: []
`, datasets, q, externaltest.Arg))
	out := filepath.Join(dir, "run")
	runOK(t, "run", cfg, "-out", out)
	type stat struct{ items, sum, chance, variance float64 }
	by := map[string]*stat{}
	rng := rand.New(rand.NewPCG(1, 2))
	type level struct{ mean, sd float64 }
	levels := map[string]level{} // by the item's sorted labels: the chance level depends on no more
	for _, r := range readRecords(t, out) {
		purity, ok := r.Metric(metric.DendrogramPurity)
		if !ok {
			t.Fatalf("%s: no purity (error %q)", r.Key, r.Error)
		}
		s := by[r.Dataset]
		if s == nil {
			s = &stat{}
			by[r.Dataset] = s
		}
		key := fmt.Sprint(slices.Sorted(slices.Values(r.LeafLabels)))
		l, ok := levels[key]
		if !ok {
			tr, err := tree.FromMerges(r.N, externaltest.AdjacentMerges(r.N))
			if err != nil {
				t.Fatal(err)
			}
			l.mean, l.sd = permutedPurity(tr, r.LeafLabels, 20000, rng)
			levels[key] = l
		}
		s.items++
		s.sum += purity
		s.chance += l.mean
		s.variance += l.sd * l.sd
	}
	for _, ds := range []string{"mixture", "pam50"} {
		s := by[ds]
		if s == nil {
			if ds == "mixture" {
				t.Fatalf("no records of %s", ds)
			}
			continue
		}
		got, chance := s.sum/s.items, s.chance/s.items
		tol := 4 * math.Sqrt(s.variance) / s.items // 4 standard errors of the mean of the items
		t.Logf("%s: the adjacent-pairs program's mean dendrogram purity %.3f over %v items; chance %.3f ± %.3f (4 standard errors)", ds, got, s.items, chance, tol)
		if math.Abs(got-chance) > tol {
			t.Errorf("%s: the adjacent-pairs program scores dendrogram purity %.3f, chance %.3f ± %.3f: the order of the leaves tells it something", ds, got, chance, tol)
		}
	}
}

// permutedPurity returns the mean and standard deviation of the dendrogram purity of t over k
// uniformly random permutations of labels.
func permutedPurity(t *tree.Tree, labels []string, k int, rng *rand.Rand) (mean, sd float64) {
	perm := make([]string, len(labels))
	var sum, sq float64
	for range k {
		for i, j := range rng.Perm(len(labels)) {
			perm[i] = labels[j]
		}
		p, _, _ := metrics.DendrogramPurity(t, perm)
		sum += p
		sq += p * p
	}
	mean = sum / float64(k)
	return mean, math.Sqrt(max(sq/float64(k)-mean*mean, 0))
}

// TestRecordsInDataOrder: whatever order an algorithm is given the leaves in, its record names
// them in the data's order. The same data (a jets file and a CSV) run under two master seeds, so
// given in two orders (leaf_order_seed differs), give the same records, up to the rounding of
// sums taken in another order, for every algorithm that breaks no ties by index: the same trees
// (as sets of clusters), marginals, BHC merges and flat clusters. And within a record, every
// field that names leaves names them as the data do: each tree, sample and truth scores under the
// model built on the data's order as the record says, the truth tree is the file's, the BHC
// merges build the recorded tree, and the leaves' labels, names and positions are the file's.
func TestRecordsInDataOrder(t *testing.T) {
	dir := t.TempDir()
	gen := writeFile(t, dir, "gen.yaml", "version: 1\nname: gen\nseed: 4\ndatasets:\n  - {name: q, generator: ginkgo, jets: 4, min_leaves: 6, max_leaves: 8, t_cut: 16}\nalgorithms: [truth]\nreports: []\n")
	runOK(t, "run", gen, "-out", filepath.Join(dir, "gen"), "-save-data")
	jetsFile := filepath.Join(dir, "gen", results.DataDir, "q.jsonl")
	f, err := os.Open(jetsFile)
	if err != nil {
		t.Fatal(err)
	}
	js, err := jets.Read(f, jetsFile)
	f.Close()
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(5, 6))
	var csv strings.Builder
	csv.WriteString("x1,x2,x3,label\n")
	var labels []string
	for i := range 10 {
		l := string(rune('a' + i%3))
		labels = append(labels, l)
		fmt.Fprintf(&csv, "%v,%v,%v,%s\n", rng.NormFloat64()+float64(i%3), rng.NormFloat64(), rng.NormFloat64(), l)
	}
	writeFile(t, dir, "v.csv", csv.String())
	q, _ := json.Marshal(jetsFile)
	var runs [2]map[string]results.Record
	for k, seed := range []int{1, 2} {
		cfg := writeFile(t, dir, "o.yaml", fmt.Sprintf(`version: 1
name: o
seed: %d
datasets:
  - {name: q, file: %s}
  - {name: v, file: v.csv, split_model: none}
algorithms:
  - truth
  - {name: greedy, datasets: [q]}
  - {name: beam, datasets: [q]}
  - {name: trellis, marginals: 4, samples: 3, datasets: [q]}
  - {name: linkage, method: average, datasets: [v]}
  - {name: bhc, merges: true, datasets: [v]}
reports: []
`, seed, q))
		out := filepath.Join(dir, fmt.Sprint("run", seed))
		runOK(t, "run", cfg, "-out", out)
		runs[k] = readRecords(t, out)
	}
	for key, a := range runs[0] {
		b, ok := runs[1][key]
		if !ok {
			t.Fatalf("%s: only in the first run", key)
		}
		if a.LeafOrderSeed == 0 || a.LeafOrderSeed == b.LeafOrderSeed {
			t.Errorf("%s: leaf order seeds %d and %d", key, a.LeafOrderSeed, b.LeafOrderSeed)
		}
		for _, r := range []results.Record{a, b} {
			checkDataOrder(t, r, js, labels)
		}
		ta, tb := parseNewick(t, a.Newick), parseNewick(t, b.Newick)
		if !tree.SameClusters(ta, tb) {
			t.Errorf("%s: trees %s and %s given the leaves in two orders", key, a.Newick, b.Newick)
		}
		if !nearLog(a.LogLikelihood, b.LogLikelihood) || !nearLog(a.LogZ, b.LogZ) || !nearLog(a.LogEvidence, b.LogEvidence) || !nearLog(a.TruthLogLikelihood, b.TruthLogLikelihood) {
			t.Errorf("%s: log-likelihood %v, %v; log Z %v, %v; log evidence %v, %v; truth %v, %v", key, a.LogLikelihood, b.LogLikelihood, a.LogZ, b.LogZ, a.LogEvidence, b.LogEvidence, a.TruthLogLikelihood, b.TruthLogLikelihood)
		}
		if !reflect.DeepEqual(a.Clusters, b.Clusters) || !reflect.DeepEqual(mergeSets(a.Merges), mergeSets(b.Merges)) {
			t.Errorf("%s: clusters %v, %v; merges %v, %v", key, a.Clusters, b.Clusters, a.Merges, b.Merges)
		}
		if (a.Marginals == nil) != (b.Marginals == nil) {
			t.Fatalf("%s: marginals %v, %v", key, a.Marginals, b.Marginals)
		}
		if a.Marginals != nil {
			for k, ca := range append(a.Marginals.MAPClusters, a.Marginals.TopClusters...) {
				cb := append(b.Marginals.MAPClusters, b.Marginals.TopClusters...)[k]
				if !slices.Equal(ca.Cluster, cb.Cluster) || math.Abs(ca.P-cb.P) > 1e-9 {
					t.Errorf("%s: marginal %d: %v, %v", key, k, ca, cb)
				}
			}
		}
	}
}

// checkDataOrder checks that record r names the leaves in the data's order: the jets js of data
// set q, or the CSV rows of data set v, whose labels are labels.
func checkDataOrder(t *testing.T, r results.Record, js []jets.Jet, labels []string) {
	t.Helper()
	tr := parseNewick(t, r.Newick)
	switch r.Dataset {
	case "q":
		i, _ := strconv.Atoi(r.Item)
		m, err := registry.JetModel(&js[i], registry.JetLikelihood{Likelihood: "ginkgo2020", RootLambda: "generative"})
		if err != nil {
			t.Fatal(err)
		}
		score := func(what, newick string, want *results.LogProb) {
			ll, err := model.TreeLogLikelihood(m, parseNewick(t, newick))
			if err != nil || !nearLog(results.Log(ll), want) {
				t.Errorf("%s: %s %s scores %v (%v) in the data's order, the record says %v", r.Key, what, newick, ll, err, want)
			}
		}
		score("the tree", r.Newick, r.LogLikelihood)
		for _, s := range r.Samples {
			score("the sample", s.Newick, &s.LogLikelihood)
		}
		truth, err := js[i].TruthTree()
		if err != nil {
			t.Fatal(err)
		}
		want, err := model.TreeLogLikelihood(m, truth)
		if err != nil || r.TruthLogLikelihood == nil || float64(*r.TruthLogLikelihood) != want {
			t.Errorf("%s: truth log-likelihood %v, %v (%v) in the data's order", r.Key, r.TruthLogLikelihood, want, err)
		}
		if r.Algorithm == "truth" && r.Newick != truth.Newick(nil) {
			t.Errorf("%s: truth %s, the file's %s", r.Key, r.Newick, truth.Newick(nil))
		}
		if r.Marginals != nil {
			for _, c := range r.Marginals.MAPClusters {
				if !slices.ContainsFunc(tr.Clusters(), func(s []int) bool { return slices.Equal(s, c.Cluster) }) {
					t.Errorf("%s: MAP cluster %v is not a cluster of the MAP tree %s", r.Key, c.Cluster, r.Newick)
				}
			}
		}
	case "v":
		if !slices.Equal(r.LeafLabels, labels) || len(r.LeafPositions) != len(labels) || r.LeafPositions[3] != 4 || r.LeafNames[3] != "3" {
			t.Errorf("%s: labels %v, positions %v, names %v; the file's labels %v", r.Key, r.LeafLabels, r.LeafPositions, r.LeafNames, labels)
		}
		if r.Merges != nil {
			merges := make([][2]int, len(r.Merges))
			for k, m := range r.Merges {
				merges[k] = m.Children
			}
			built, err := tree.FromMerges(r.N, merges)
			if err != nil || !tree.SameClusters(built, tr) {
				t.Errorf("%s: the merges %v build %v (%v), not the tree %s", r.Key, merges, built, err, r.Newick)
			}
		}
		for _, c := range r.Clusters {
			if !slices.ContainsFunc(tr.Clusters(), func(s []int) bool { return slices.Equal(s, c) }) {
				t.Errorf("%s: flat cluster %v is not a cluster of the tree %s", r.Key, c, r.Newick)
			}
		}
	}
}

// parseNewick reads a record's tree, its leaves named by their indices.
func parseNewick(t *testing.T, s string) *tree.Tree {
	t.Helper()
	tr, err := tree.ParseNewick(s, nil)
	if err != nil {
		t.Fatalf("%s: %v", s, err)
	}
	return tr
}

// nearLog reports whether two log-probabilities agree to 1e-9 relative (both absent, or both
// −Inf, included).
func nearLog(a, b *results.LogProb) bool {
	if a == nil || b == nil {
		return a == b
	}
	x, y := float64(*a), float64(*b)
	return x == y || math.Abs(x-y) <= 1e-9*math.Abs(x)
}

// mergeSets returns each merge's node and children as a set, so that merges compare whatever the
// order of their two children.
func mergeSets(ms []results.Merge) [][3]int {
	out := make([][3]int, len(ms))
	for k, m := range ms {
		out[k] = [3]int{m.Node, min(m.Children[0], m.Children[1]), max(m.Children[0], m.Children[1])}
	}
	return out
}
