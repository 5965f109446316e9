package correlation

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/hcbench/hcbench/algorithms/logspace"
	"github.com/hcbench/hcbench/algorithms/model"
	"github.com/hcbench/hcbench/algorithms/model/modeltest"
	"github.com/hcbench/hcbench/algorithms/tree"
	"github.com/hcbench/hcbench/algorithms/trellis"
)

func randomVectors(rng *rand.Rand, n, d int) [][]float64 {
	x := make([][]float64, n)
	for i := range x {
		x[i] = make([]float64, d)
		for k := range x[i] {
			x[i][k] = rng.NormFloat64() + float64(i%3)*0.7*float64(k%2) // three loose groups
		}
	}
	return x
}

func TestFastPathsMatchPairSums(t *testing.T) {
	// log ψ from cluster sums (Clusters) and from subset tables (SubsetScorer) must equal −β·E(L, R)
	// summed pair by pair (1e-12 relative plus 1e-12: the same terms in another order).
	rng := rand.New(rand.NewPCG(1, 2))
	for _, ordered := range []bool{false, true} {
		m, err := New(t.Context(), randomVectors(rng, 12, 8), Params{Beta: 0.7, Ordered: ordered})
		if err != nil {
			t.Fatal(err)
		}
		sc, err := m.NewSubsetScorer()
		if err != nil {
			t.Fatal(err)
		}
		for range 500 {
			var l, r []int
			var lm, rm uint32
			for i := range 12 {
				switch rng.IntN(3) {
				case 0:
					l, lm = append(l, i), lm|1<<i
				case 1:
					r, rm = append(r, i), rm|1<<i
				}
			}
			if len(l) == 0 || len(r) == 0 {
				continue
			}
			want := -0.7 * m.Energy(l, r)
			c := m.NewClusters()
			byMerge := c.LogPsi(chain(c, l), chain(c, r))
			byItems := c.LogPsi(c.Cluster(l), c.Cluster(r))
			bySubset := sc.LogPsi(lm, rm)
			for name, got := range map[string]float64{"merges": byMerge, "items": byItems, "subsets": bySubset} {
				if math.Abs(got-want) > 1e-12*(1+math.Abs(want)) {
					t.Fatalf("ordered=%v %s: log ψ(%v, %v) = %v, pair sums give %v", ordered, name, l, r, got, want)
				}
			}
		}
	}
}

func chain(c model.Clusters, items []int) int {
	id := items[0]
	for _, it := range items[1:] {
		id = c.Merge(id, it)
	}
	return id
}

func TestTrellisAgainstBruteForce(t *testing.T) {
	// The trellis's MAP, log Z and count on this model equal enumeration of all (2N−3)!! trees
	// (N ≤ 7, 1e-9).
	rng := rand.New(rand.NewPCG(3, 4))
	for n := 2; n <= 7; n++ {
		m, err := New(t.Context(), randomVectors(rng, n, 6), Params{Beta: 1.3})
		if err != nil {
			t.Fatal(err)
		}
		best, logZ := math.Inf(-1), math.Inf(-1)
		for tr := range tree.AllBinary(n) {
			ll, err := model.TreeLogLikelihood(m, tr)
			if err != nil {
				t.Fatal(err)
			}
			best, logZ = max(best, ll), logspace.AddExp(logZ, ll)
		}
		tr, err := trellis.Build(context.Background(), m, trellis.Options{})
		if err != nil {
			t.Fatal(err)
		}
		ll, _ := model.TreeLogLikelihood(m, tr.MAPTree())
		if math.Abs(tr.MAPValue()-best) > 1e-9 || math.Abs(ll-best) > 1e-9 || math.Abs(tr.LogZ()-logZ) > 1e-9 {
			t.Errorf("N=%d: trellis MAP %v (tree scores %v), log Z %v; brute force %v, %v", n, tr.MAPValue(), ll, tr.LogZ(), best, logZ)
		}
		if c, _ := tr.Count(); c != tree.NumBinary(n) {
			t.Errorf("N=%d: %v finite trees, want all %v", n, c, tree.NumBinary(n))
		}
	}
}

func TestWeights(t *testing.T) {
	x := [][]float64{{1, 0, 2}, {2, 0, 4}, {0, 3, 0}, {1, 1, 1}}
	// Cosine similarities: items 0 and 1 are parallel (1), 0 and 2 orthogonal (0).
	for _, c := range []struct{ centering Centering }{{NoCentering}, {MeanWithDiag}, {MeanWithoutDiag}} {
		m, err := New(t.Context(), x, Params{Beta: 1, Centering: c.centering})
		if err != nil {
			t.Fatal(err)
		}
		w := m.Weights()
		s01 := w[0][1] - w[0][2] // the centring cancels in differences
		if math.Abs(s01-1) > 1e-15 {
			t.Errorf("%v: w01 − w02 = %v, want 1", c.centering, s01)
		}
		for i := range w {
			if w[i][i] != 0 {
				t.Errorf("diagonal %d = %v", i, w[i][i])
			}
			for j := range w {
				if w[i][j] != w[j][i] {
					t.Fatalf("asymmetric at %d,%d", i, j)
				}
			}
		}
		// Against the definition: cosines by hand, minus the mean over the chosen entries.
		norm := func(v []float64) float64 { return math.Sqrt(v[0]*v[0] + v[1]*v[1] + v[2]*v[2]) }
		var sim [4][4]float64
		all, off := 0.0, 0.0
		for i := range x {
			for j := range x {
				sim[i][j] = (x[i][0]*x[j][0] + x[i][1]*x[j][1] + x[i][2]*x[j][2]) / (norm(x[i]) * norm(x[j]))
				all += sim[i][j]
				if i != j {
					off += sim[i][j]
				}
			}
		}
		mean := map[Centering]float64{NoCentering: 0, MeanWithDiag: all / 16, MeanWithoutDiag: off / 12}[c.centering]
		for i := range x {
			for j := range x {
				if want := sim[i][j] - mean; i != j && math.Abs(w[i][j]-want) > 1e-15 {
					t.Errorf("%v: w[%d][%d] = %v, want %v", c.centering, i, j, w[i][j], want)
				}
			}
		}
	}
	// Pearson is cosine of the centred vectors.
	x = [][]float64{{1, 0, 2}, {2, 0, 5}, {0, 3, 1}, {1, 2, 4}}
	p, err := New(t.Context(), x, Params{Beta: 1, Similarity: Pearson, Centering: NoCentering})
	if err != nil {
		t.Fatal(err)
	}
	cx := make([][]float64, len(x))
	for i := range x {
		cx[i] = centred(x[i])
	}
	cos, _ := New(t.Context(), cx, Params{Beta: 1, Centering: NoCentering})
	for i := range x {
		for j := range x {
			if math.Abs(p.Weights()[i][j]-cos.Weights()[i][j]) > 1e-15 {
				t.Fatalf("Pearson %v ≠ cosine of centred vectors %v", p.Weights()[i][j], cos.Weights()[i][j])
			}
		}
	}
}

func TestMissing(t *testing.T) {
	nan := math.NaN()
	x := [][]float64{{1, nan, 2}, {2, 5, 4}, {1, 3, nan}}
	if _, err := New(t.Context(), x, Params{Beta: 1}); err == nil {
		t.Error("NaN accepted without MaskMissing")
	}
	m, err := New(t.Context(), x, Params{Beta: 1, MaskMissing: true, Centering: NoCentering})
	if err != nil {
		t.Fatal(err)
	}
	// Items 0 and 1 share features 0 and 2: (1,2)·(2,4) → parallel, similarity 1.
	if math.Abs(m.Weights()[0][1]-1) > 1e-15 {
		t.Errorf("masked similarity %v, want 1", m.Weights()[0][1])
	}
	if _, err := New(t.Context(), [][]float64{{0, 0}, {1, 2}}, Params{Beta: 1}); err == nil {
		t.Error("zero vector accepted")
	}
	if _, err := New(t.Context(), x[:1], Params{Beta: 0, MaskMissing: true}); err == nil {
		t.Error("beta 0 accepted")
	}
}

func TestThreeItemsByHand(t *testing.T) {
	// x0 = (1, 0), x1 = (1, 1), x2 = (−1, 0) without centring: w01 = cos 45° = 1/√2, w02 = −1,
	// w12 = −1/√2. The three trees' energies, by hand from the definition (c = 1 unordered, 2
	// ordered):
	//   ((0,1),2): root cuts w02, w12 (not positive: 0), keeps nothing negative together;
	//              {0,1} cuts w01 = 1/√2.                                   E = 1/√2
	//   ((0,2),1): root cuts w01 = 1/√2, keeps w02 inside {0,2}: c·1.      E = 1/√2 + c
	//   ((1,2),0): root cuts w01 = 1/√2, keeps w12 inside {1,2}: c/√2.     E = 1/√2 + c/√2
	// log-likelihood −β·E, to 1e-15 (a few roundings of numbers below 3).
	x := [][]float64{{1, 0}, {1, 1}, {-1, 0}}
	const beta = 1.3
	s := 1 / math.Sqrt2
	for _, c := range []struct {
		ordered bool
		c       float64
	}{{false, 1}, {true, 2}} {
		m, err := New(t.Context(), x, Params{Beta: beta, Centering: NoCentering, Ordered: c.ordered})
		if err != nil {
			t.Fatal(err)
		}
		want := map[string]float64{"((0,1),2);": s, "((0,2),1);": s + c.c, "((1,2),0);": s + c.c*s}
		logZ := math.Inf(-1)
		for nw, e := range want {
			tr, err := tree.ParseNewick(nw, nil)
			if err != nil {
				t.Fatal(err)
			}
			ll, err := model.TreeLogLikelihood(m, tr)
			if err != nil {
				t.Fatal(err)
			}
			if math.Abs(ll-(-beta*e)) > 1e-15 {
				t.Errorf("ordered=%v %s: log-likelihood %v, by hand %v", c.ordered, nw, ll, -beta*e)
			}
			logZ = logspace.AddExp(logZ, -beta*e)
		}
		tr, err := trellis.Build(context.Background(), m, trellis.Options{})
		if err != nil {
			t.Fatal(err)
		}
		if got := tr.MAPTree().Canonical().Newick(nil); got != "((0,1),2);" || math.Abs(tr.MAPValue()+beta*s) > 1e-15 || math.Abs(tr.LogZ()-logZ) > 1e-15 {
			t.Errorf("ordered=%v: trellis MAP %s %v, log Z %v; by hand ((0,1),2); %v, %v", c.ordered, got, tr.MAPValue(), tr.LogZ(), -beta*s, logZ)
		}
	}
}

func TestMAPDoesNotDependOnBeta(t *testing.T) {
	// ψ = exp(−β·E) with β > 0 orders the trees by E alone, so the MAP energy −MAP/β is the same
	// for every β (to 1e-12 relative: sums of ~20 terms), every β's MAP tree has that energy, and the
	// set of trees reaching it has the same size (within 1e-9 per split; the energy's ties are
	// exact in real arithmetic, so the tie rule may pick a different one of them per β).
	x := randomVectors(rand.New(rand.NewPCG(5, 6)), 9, 7)
	var energy, trees float64
	for k, beta := range []float64{0.05, 1, 3.7, 40} {
		m, err := New(t.Context(), x, Params{Beta: beta})
		if err != nil {
			t.Fatal(err)
		}
		tr, err := trellis.Build(context.Background(), m, trellis.Options{})
		if err != nil {
			t.Fatal(err)
		}
		ties, err := tr.MAPTies(context.Background(), 1e-9*beta, nil)
		if err != nil {
			t.Fatal(err)
		}
		ll, err := model.TreeLogLikelihood(m, tr.MAPTree())
		if err != nil {
			t.Fatal(err)
		}
		e := -tr.MAPValue() / beta
		if k == 0 {
			energy, trees = e, ties.Trees
			continue
		}
		if math.Abs(e-energy) > 1e-12*energy || math.Abs(-ll/beta-energy) > 1e-12*energy {
			t.Errorf("β = %v: MAP energy %v (its tree %v), at β = 0.05 %v", beta, e, -ll/beta, energy)
		}
		if ties.Trees != trees {
			t.Errorf("β = %v: %v trees reach the MAP, at β = 0.05 %v", beta, ties.Trees, trees)
		}
	}
}

// TestRelabel: a model renumbered by a permutation holds the former weights renumbered, and
// scores every split as the model on the former vectors did, to the bit.
func TestRelabel(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	x := randomVectors(rng, 11, 6)
	for _, p := range []Params{{Beta: 0.7}, {Beta: 2, Ordered: true, Similarity: Pearson, Centering: MeanWithoutDiag}} {
		build := func() *Model {
			m, err := New(t.Context(), x, p)
			if err != nil {
				t.Fatal(err)
			}
			return m
		}
		a, b := build(), build()
		order := rng.Perm(len(x))
		modeltest.CheckRelabel(t, a, b, order, rng)
		for i := range x {
			for j := range x {
				if b.Weights()[i][j] != a.Weights()[order[i]][order[j]] {
					t.Fatalf("w[%d][%d] = %v relabelled, want the former w[%d][%d] = %v", i, j, b.Weights()[i][j], order[i], order[j], a.Weights()[order[i]][order[j]])
				}
			}
		}
	}
}
