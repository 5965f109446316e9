package greedy

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"hcbench/algorithms/model"
	"hcbench/algorithms/model/ginkgo"
	"hcbench/algorithms/tree"
	"hcbench/datasets/jets"
	"hcbench/datasets/shareddata"
	gen "hcbench/generators/ginkgo"
)

// tableModel is a split model whose log ψ is given by a function of the two item sets, as
// bitmasks; it lets tests state ties and −Inf directly.
type tableModel struct {
	n   int
	psi func(a, b uint64) float64
}

func (m tableModel) Items() int { return m.n }
func (m tableModel) NewClusters() model.Clusters {
	c := &maskClusters{m: m}
	for i := range m.n {
		c.masks = append(c.masks, 1<<i)
	}
	return c
}

type maskClusters struct {
	m     tableModel
	masks []uint64
}

func (c *maskClusters) Merge(a, b int) int {
	c.masks = append(c.masks, c.masks[a]|c.masks[b])
	return len(c.masks) - 1
}
func (c *maskClusters) LogPsi(a, b int) float64 { return c.m.psi(c.masks[a], c.masks[b]) }

func run(t *testing.T, m model.Model) Result {
	t.Helper()
	r, err := Run(context.Background(), m)
	if err != nil {
		t.Fatal(err)
	}
	if err := r.Tree.Validate(m.Items()); err != nil {
		t.Fatalf("invalid tree %s: %v", r.Tree.Newick(nil), err)
	}
	return r
}

func TestTieRule(t *testing.T) {
	// With every split equal, the rule (smallest right position, then smallest left, merged
	// clusters appended at the end of the list) pairs list neighbours from the left. For n = 5:
	// [0 1 2 3 4] → (0,1) → [2 3 4 A] → (2,3) → [4 A B] → (4,A) → [B C] → (B,C).
	cases := map[int]string{
		2: "(0,1);",
		3: "(2,(0,1));",
		4: "((0,1),(2,3));",
		5: "((2,3),(4,(0,1)));",
		6: "((4,5),((0,1),(2,3)));",
	}
	for n, want := range cases {
		for _, v := range []float64{0, math.Inf(-1)} {
			r := run(t, tableModel{n: n, psi: func(a, b uint64) float64 { return v }})
			if got := r.Tree.Newick(nil); got != want {
				t.Errorf("n=%d, constant log ψ %v: tree %s, want %s", n, v, got, want)
			}
			if want := v * float64(n-1); r.LogLikelihood != want && !(math.IsInf(v, -1) && math.IsInf(r.LogLikelihood, -1)) {
				t.Errorf("n=%d: log-likelihood %v, want %v", n, r.LogLikelihood, want)
			}
		}
	}
}

func TestPrefersLargestSplit(t *testing.T) {
	// log ψ rewards joining 1 with 3 first, then the pair with 0; 2 joins last.
	psi := func(a, b uint64) float64 {
		switch u := a | b; u {
		case 0b1010:
			return 5
		case 0b1011:
			return 3
		}
		return 0
	}
	r := run(t, tableModel{n: 4, psi: psi})
	if got, want := r.Tree.Canonical().Newick(nil), "((0,(1,3)),2);"; got != want {
		t.Errorf("tree %s, want %s", got, want)
	}
	if r.LogLikelihood != 8 {
		t.Errorf("log-likelihood %v, want 8", r.LogLikelihood)
	}
}

func TestNeverBetterThanBruteForce(t *testing.T) {
	// Greedy's score must equal its tree re-scored (to 1e-9: the same terms summed in another
	// order), and never exceed the best of all (2N−3)!! trees, enumerated here for N ≤ 7.
	rng := rand.New(rand.NewPCG(7, 11))
	p, _ := gen.Preset(gen.QCD, 16)
	checked := 0
	for checked < 60 {
		j, err := gen.Generate(rng, p, 7)
		if err != nil || len(j.Leaves) < 3 {
			continue
		}
		m := jetModel(t, j)
		r := run(t, m)
		rescored, err := model.TreeLogLikelihood(m, r.Tree)
		if err != nil {
			t.Fatal(err)
		}
		if math.Abs(rescored-r.LogLikelihood) > 1e-9 {
			t.Errorf("jet %d: reported %v, re-scored %v", checked, r.LogLikelihood, rescored)
		}
		best := math.Inf(-1)
		for tr := range tree.AllBinary(len(j.Leaves)) {
			ll, err := model.TreeLogLikelihood(m, tr)
			if err != nil {
				t.Fatal(err)
			}
			best = max(best, ll)
		}
		if r.LogLikelihood > best+1e-9 {
			t.Errorf("jet %d (N=%d): greedy %v beats the brute-force best %v", checked, len(j.Leaves), r.LogLikelihood, best)
		}
		checked++
	}
}

func TestReferenceNineLeafJets(t *testing.T) {
	// Greedy log-likelihoods of the 10 public 9-leaf jets (ClusterTrellis ab931e8
	// data/truth_9.pkl), as computed by the reference StandardHC N2Greedy_invM.greedyLH and
	// listed in ../shared/design/trellis.md §10 to 3 decimals; tolerance 5e-4 for the rounding.
	want := []float64{-55.997, -54.660, -57.208, -55.378, -54.036, -53.518, -54.369, -55.021, -54.335, -56.332}
	path, err := shareddata.Path("clustertrellis/truth_9.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	js, err := jets.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(js) != len(want) {
		t.Fatalf("%d jets, want %d", len(js), len(want))
	}
	for i, j := range js {
		r := run(t, jetModel(t, j))
		if math.Abs(r.LogLikelihood-want[i]) > 5e-4 {
			t.Errorf("jet %s: greedy %.4f, reference %.3f", j.ID, r.LogLikelihood, want[i])
		}
	}
}

func TestCancel(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Run(ctx, tableModel{n: 5, psi: func(a, b uint64) float64 { return 0 }}); err != context.Canceled {
		t.Errorf("cancelled run returned %v, want context.Canceled", err)
	}
}

func jetModel(tb testing.TB, j jets.Jet) *ginkgo.Model {
	tb.Helper()
	m, err := ginkgo.New(j.Leaves, ginkgo.Params{Lambda: j.Lambda, LambdaRoot: j.RootLambdaOrDefault(), TCut: j.TCut})
	if err != nil {
		tb.Fatal(err)
	}
	return m
}

// benchModel returns the likelihood of the first n leaves of a QCD jet grown with a small t_cut
// (several hundred leaves); the leaves need not sum to the root for timing.
func benchModel(b *testing.B, n int) *ginkgo.Model {
	p, _ := gen.Preset(gen.QCD, 0.01)
	rng := rand.New(rand.NewPCG(1, 2))
	for {
		j, err := gen.Generate(rng, p, 0)
		if err != nil {
			b.Fatal(err)
		}
		if len(j.Leaves) >= n {
			j.Leaves = j.Leaves[:n]
			return jetModel(b, j)
		}
	}
}

func BenchmarkGreedy(b *testing.B) {
	for _, n := range []int{10, 30, 100} {
		b.Run(fmt.Sprintf("N=%d", n), func(b *testing.B) {
			m := benchModel(b, n)
			for b.Loop() {
				if _, err := Run(context.Background(), m); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
