package sparsetrellis

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/hcbench/hcbench/algorithms/beam"
	"github.com/hcbench/hcbench/algorithms/greedy"
	"github.com/hcbench/hcbench/algorithms/model"
	"github.com/hcbench/hcbench/algorithms/model/ginkgo"
	"github.com/hcbench/hcbench/algorithms/model/ginkgo/ginkgotest"
	"github.com/hcbench/hcbench/algorithms/tree"
	"github.com/hcbench/hcbench/algorithms/trellis"
)

// seeds returns the greedy tree and the final beam (B = 3n) with the best of their scores.
func seeds(t testing.TB, m model.Model) ([]*tree.Tree, float64) {
	g, err := greedy.Run(context.Background(), m)
	if err != nil {
		t.Fatal(err)
	}
	b, err := beam.Run(context.Background(), m, beam.Options{Size: 3 * m.Items(), All: true})
	if err != nil {
		t.Fatal(err)
	}
	return append([]*tree.Tree{g.Tree}, b.Trees...), max(g.LogLikelihood, b.LogLikelihood)
}

func run(t testing.TB, m model.Model, seed uint64, opts Options) Result {
	t.Helper()
	r, err := Run(context.Background(), m, rand.New(rand.NewPCG(seed, 1)), opts)
	if err != nil {
		t.Fatal(err)
	}
	if err := r.Tree.Validate(m.Items()); err != nil {
		t.Fatalf("invalid tree: %v", err)
	}
	// The reported value is the tree's own score, bit for bit, as beam search and greedy report.
	if ll, _ := model.TreeLogLikelihood(m, r.Tree); ll != r.LogLikelihood {
		t.Fatalf("reported %v, the tree scores %v", r.LogLikelihood, ll)
	}
	return r
}

func TestFullSetIsExact(t *testing.T) {
	// With every cluster allowed all its splits, the sparse trellis is the full one: its MAP and
	// log Z equal the exact trellis's (1e-9; the sums run in another order).
	rng := rand.New(rand.NewPCG(1, 2))
	for _, n := range []int{2, 4, 7, 10} {
		for range 3 {
			m := ginkgotest.Model(t, ginkgotest.RandomJet(t, rng, n), ginkgo.Version2020)
			g, _ := seeds(t, m)
			r := run(t, m, 1, Options{Seeds: g[:1], AllPairsMaxSize: n, MaxClusters: 1 << 20})
			tr, err := trellis.Build(context.Background(), m, trellis.Options{})
			if err != nil {
				t.Fatal(err)
			}
			if math.Abs(r.LogLikelihood-tr.MAPValue()) > 1e-9 || math.Abs(r.LogZ-tr.LogZ()) > 1e-9 {
				t.Errorf("N=%d: sparse MAP %v log Z %v, exact %v %v", n, r.LogLikelihood, r.LogZ, tr.MAPValue(), tr.LogZ())
			}
			if r.Clusters != 1<<n-1 {
				t.Errorf("N=%d: %d clusters, want all %d", n, r.Clusters, 1<<n-1)
			}
			// Every seed (greedy and the whole beam, which share most of their splits): each
			// split is held once, (3^N+1)/2 − 2^N splits over the 2^N − 1 clusters, and log Z
			// counts each tree once.
			all := run(t, m, 1, Options{Seeds: g, AllPairsMaxSize: n, MaxClusters: 1 << 20})
			if want := (int(math.Pow(3, float64(n)))+1)/2 - 1<<n; all.Splits != want {
				t.Errorf("N=%d, %d seeds: %d splits, want %d", n, len(g), all.Splits, want)
			}
			if math.Abs(all.LogZ-tr.LogZ()) > 1e-9 {
				t.Errorf("N=%d, %d seeds: log Z %v, exact %v", n, len(g), all.LogZ, tr.LogZ())
			}
		}
	}
}

func TestNeverBelowSeeds(t *testing.T) {
	// The seed trees are trees of the sparse trellis, so its MAP is at least their best; and it
	// stays below the exact MAP where that can be computed (N ≤ 14).
	rng := rand.New(rand.NewPCG(3, 4))
	for _, n := range []int{8, 14, 20, 30} {
		for range 2 {
			m := ginkgotest.Model(t, ginkgotest.RandomJet(t, rng, n), ginkgo.Version2020)
			sd, best := seeds(t, m)
			r := run(t, m, 7, Options{Seeds: sd, AllPairsMaxSize: 6, SplitsTried: 20, SplitsKept: 8, MaxClusters: 20000})
			if r.LogLikelihood < best-1e-9 {
				t.Errorf("N=%d: sparse MAP %v below the best seed %v", n, r.LogLikelihood, best)
			}
			if n <= 14 {
				tr, err := trellis.Build(context.Background(), m, trellis.Options{MAPOnly: true})
				if err != nil {
					t.Fatal(err)
				}
				if r.LogLikelihood > tr.MAPValue()+1e-9 {
					t.Errorf("N=%d: sparse MAP %v above the exact MAP %v", n, r.LogLikelihood, tr.MAPValue())
				}
			}
			t.Logf("N=%d: seeds %.3f, sparse %.3f (%d clusters, %d splits)", n, best, r.LogLikelihood, r.Clusters, r.Splits)
		}
	}
}

func TestLogZBelowExact(t *testing.T) {
	// trellis.md §8: the sparse trellis holds a subset of the trees, so its log Z is at most the
	// exact one (1e-9: the two sum in other orders). The trellises here are truly sparse (fewer
	// clusters than the 2^N − 1 of the full one), and −Inf splits flow through without NaN.
	rng := rand.New(rand.NewPCG(11, 12))
	for _, n := range []int{8, 11, 14} {
		for range 2 {
			m := ginkgotest.Model(t, ginkgotest.RandomJet(t, rng, n), ginkgo.Version2020)
			sd, _ := seeds(t, m)
			r := run(t, m, 3, Options{Seeds: sd, AllPairsMaxSize: 5, SplitsTried: 10, SplitsKept: 4, MaxClusters: 20000})
			tr, err := trellis.Build(context.Background(), m, trellis.Options{})
			if err != nil {
				t.Fatal(err)
			}
			if math.IsNaN(r.LogZ) || r.LogZ > tr.LogZ()+1e-9 {
				t.Errorf("N=%d: sparse log Z %v above the exact %v", n, r.LogZ, tr.LogZ())
			}
			if r.Clusters >= 1<<n-1 {
				t.Errorf("N=%d: %d clusters, the full trellis", n, r.Clusters)
			}
		}
	}
}

func TestDeterministicAndBounded(t *testing.T) {
	m := ginkgotest.Model(t, ginkgotest.RandomJet(t, rand.New(rand.NewPCG(5, 6)), 25), ginkgo.Version2020)
	sd, _ := seeds(t, m)
	opts := Options{Seeds: sd, AllPairsMaxSize: 8, SplitsTried: 25, SplitsKept: 15, MaxClusters: 3000}
	a, b := run(t, m, 9, opts), run(t, m, 9, opts)
	if a.Tree.Newick(nil) != b.Tree.Newick(nil) || a.LogLikelihood != b.LogLikelihood || a.Clusters != b.Clusters {
		t.Errorf("two runs from one seed differ: %v %d, %v %d", a.LogLikelihood, a.Clusters, b.LogLikelihood, b.Clusters)
	}
	if a.Clusters > 3000 {
		// The bound may only be passed by the seeds' own clusters, which are far fewer here.
		t.Errorf("%d clusters, over the bound of 3000", a.Clusters)
	}
	if _, err := Run(context.Background(), m, rand.New(rand.NewPCG(1, 1)), Options{}); err == nil {
		t.Error("no seeds accepted")
	}
}
