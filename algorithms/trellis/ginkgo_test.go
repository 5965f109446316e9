package trellis

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/stat/distuv"

	"github.com/hcbench/hcbench/algorithms/greedy"
	"github.com/hcbench/hcbench/algorithms/model"
	"github.com/hcbench/hcbench/algorithms/model/ginkgo"
	"github.com/hcbench/hcbench/algorithms/model/ginkgo/ginkgotest"
	"github.com/hcbench/hcbench/algorithms/tree"
)

func TestGinkgoAgainstBruteForce(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for n := 2; n <= 7; n++ {
		for range 4 {
			j := ginkgotest.RandomJet(t, rng, n)
			for _, v := range []ginkgo.Version{ginkgo.Version2020, ginkgo.Version2021} {
				m := ginkgotest.Model(t, j, v)
				name := fmt.Sprintf("N=%d %v", n, v)
				checkAgainstBruteForce(t, name+" kernel", m, build(t, m, Options{blockBits: 3}))
				checkAgainstBruteForce(t, name+" generic", m, build(t, m, Options{generic: true, blockBits: 3}))
				checkMAPOnly(t, name, m, build(t, m, Options{MAPOnly: true, blockBits: 3}))
			}
		}
	}
}

// checkMAPOnly compares a MAP-only pass (which prunes with its own bound) with enumeration: the
// MAP value (1e-10), a maximal tree, and the count of finite trees.
func checkMAPOnly(t *testing.T, name string, m model.Model, tr *Trellis) {
	t.Helper()
	bf := enumerate(t, m)
	if !close(tr.MAPValue(), bf.mapValue, 1e-10) || !math.IsNaN(tr.LogZ()) {
		t.Errorf("%s MAP-only: MAP %v (brute force %v), log Z %v (want NaN)", name, tr.MAPValue(), bf.mapValue, tr.LogZ())
	}
	if nw := tr.MAPTree().Canonical().Newick(nil); !bf.mapTrees[nw] && !math.IsInf(bf.mapValue, -1) {
		t.Errorf("%s MAP-only: tree %s is not maximal", name, nw)
	}
	if c, exact := tr.Count(); !exact || c != float64(bf.count) {
		t.Errorf("%s MAP-only: count %v, brute force %d", name, c, bf.count)
	}
}

// TestSlowPathOverflow runs a jet where most splits take the kernel's slow path: leaves in two
// exactly collinear massless groups, so every cluster inside a group has t = 0 and every split
// into a cluster of each group has a t = 0 child. A single block (blockBits = N) puts all of a
// parent's splits into one sweep, more than the deferral buffer holds. The kernel must agree
// with the generic path (1e-9).
func TestSlowPathOverflow(t *testing.T) {
	var leaves [][4]float64
	for i := range 12 {
		e := 10 + float64(i)
		if i%2 == 0 {
			leaves = append(leaves, [4]float64{e, 0, 0, e})
		} else {
			leaves = append(leaves, [4]float64{e, e, 0, 0})
		}
	}
	m, err := ginkgo.New(leaves, ginkgo.Params{Lambda: 1.5, LambdaRoot: 1.5, TCut: 1})
	if err != nil {
		t.Fatal(err)
	}
	for _, mapOnly := range []bool{false, true} {
		k := build(t, m, Options{blockBits: 12, MAPOnly: mapOnly})
		g := build(t, m, Options{blockBits: 12, MAPOnly: mapOnly, generic: true})
		if !close(k.MAPValue(), g.MAPValue(), 1e-9) || (!mapOnly && !close(k.LogZ(), g.LogZ(), 1e-9)) {
			t.Errorf("MAP-only %v: kernel MAP %v log Z %v, generic %v %v", mapOnly, k.MAPValue(), k.LogZ(), g.MAPValue(), g.LogZ())
		}
		if kc, _ := k.Count(); func() bool { gc, _ := g.Count(); return kc != gc }() {
			t.Errorf("MAP-only %v: counts differ", mapOnly)
		}
	}
}

// referenceTrellis holds log Z, the MAP log-likelihood and the number of finite-likelihood trees
// of the 30 public jets (../shared/data/clustertrellis, from ClusterTrellis ab931e8
// data/truth_{4,5,9}.pkl), computed by running that reference trellis (HierarchicalTrellis.py,
// PYTHONHASHSEED=0) on them. Its stored 9-leaf results (experiments/TrellisExactTruth_9_10_jets.pkl)
// agree to 5e−14; ../shared/design/trellis.md §10 lists them to 3 decimals.
var referenceTrellis = []struct {
	id             string
	logZ, mapValue float64
	count          float64
}{
	{"truth_4-0", -22.249110356495724, -23.59189277682998, 15},
	{"truth_4-1", -20.7433632370808, -21.165564461867636, 12},
	{"truth_4-2", -21.7963720261356, -22.98571927128576, 15},
	{"truth_4-3", -21.016668547378018, -21.894475410529218, 15},
	{"truth_4-4", -20.115804207986077, -20.977773592177552, 15},
	{"truth_4-5", -21.31108440471977, -22.29153190418472, 15},
	{"truth_4-6", -20.785521727071306, -22.224718425960397, 15},
	{"truth_4-7", -20.21436906814783, -20.520453328198997, 15},
	{"truth_4-8", -22.63178128460967, -24.29309530396239, 15},
	{"truth_4-9", -20.420587312300505, -21.17452673543661, 15},
	{"truth_5-0", -25.450608960062443, -27.548423454516815, 90},
	{"truth_5-1", -24.701363125797965, -25.926422782307256, 90},
	{"truth_5-2", -26.180177554720245, -26.94947351154468, 90},
	{"truth_5-3", -27.472760961206053, -29.108140152313773, 105},
	{"truth_5-4", -26.787513604758917, -29.130490846216567, 105},
	{"truth_5-5", -27.274692705060097, -29.13354373023875, 75},
	{"truth_5-6", -27.58206885750835, -30.38352853046107, 105},
	{"truth_5-7", -26.650824287741113, -28.911200804429182, 105},
	{"truth_5-8", -26.40012872987784, -28.344205637078918, 105},
	{"truth_5-9", -26.340763707303612, -27.803898807941312, 90},
	{"truth_9-0", -45.19359206941172, -54.32581855184802, 1507275},
	{"truth_9-1", -45.598147459324444, -53.45407081511547, 661500},
	{"truth_9-2", -45.63583169742162, -52.02241716994402, 330750},
	{"truth_9-3", -44.54803920822538, -52.70717013256726, 869400},
	{"truth_9-4", -45.56027930542516, -53.15575183270826, 544320},
	{"truth_9-5", -44.96894752466734, -53.422101137833835, 945000},
	{"truth_9-6", -45.75730568396841, -53.01180598185559, 727650},
	{"truth_9-7", -44.93591319752503, -52.75951548539146, 688905},
	{"truth_9-8", -45.253596677601564, -53.075788817054246, 388080},
	{"truth_9-9", -45.83863936353085, -51.88802502699751, 476280},
}

func TestReferenceJets(t *testing.T) {
	// Tolerance 1e-6 as the issue asks; the agreement seen is about 1e-13.
	js := ginkgotest.PublicJets(t)
	worst := 0.0
	for _, ref := range referenceTrellis {
		tr := build(t, ginkgotest.Model(t, js[ref.id], ginkgo.Version2020), Options{})
		dz, dm := math.Abs(tr.LogZ()-ref.logZ), math.Abs(tr.MAPValue()-ref.mapValue)
		worst = max(worst, dz, dm)
		if dz > 1e-6 || dm > 1e-6 {
			t.Errorf("jet %s: log Z %.12f MAP %.12f, reference %.12f %.12f", ref.id, tr.LogZ(), tr.MAPValue(), ref.logZ, ref.mapValue)
		}
		if c, exact := tr.Count(); c != ref.count || !exact {
			t.Errorf("jet %s: %v finite trees, reference %v", ref.id, c, ref.count)
		}
	}
	t.Logf("largest difference from the reference: %.2g", worst)
}

func TestPublishedFiveLeafPosterior(t *testing.T) {
	// trellis.md §4: for truth_5 jet 2, 90 of the 105 trees are finite, the truth tree is the MAP,
	// and exp(MAP − log Z) = 0.463 (3 digits).
	j := ginkgotest.PublicJets(t)["truth_5-2"]
	m := ginkgotest.Model(t, j, ginkgo.Version2020)
	tr := build(t, m, Options{})
	if p := math.Exp(tr.MAPValue() - tr.LogZ()); math.Abs(p-0.463) > 5e-4 {
		t.Errorf("P(MAP) = %v, want 0.463", p)
	}
	truth, err := j.TruthTree()
	if err != nil {
		t.Fatal(err)
	}
	if !tree.SameClusters(truth, tr.MAPTree()) {
		t.Errorf("MAP tree %s, want the truth %s", tr.MAPTree().Canonical().Newick(nil), truth.Canonical().Newick(nil))
	}
}

func TestGinkgoInvariants(t *testing.T) {
	// On three random jets for each N from 8 to 14, beyond enumeration: log Z ≥ MAP ≥ greedy >
	// −Inf, the MAP tree re-scores to the MAP value (1e-9), the fast kernel agrees with the
	// generic path (1e-9, counts exactly), and, on the first jet of each N (the outside pass is
	// the slow part), the root and leaves have marginal 1 (1e-9).
	rng := rand.New(rand.NewPCG(5, 6))
	for i := range 3 * 7 {
		n := 8 + i/3
		name := fmt.Sprintf("N=%d jet %d", n, i%3)
		j := ginkgotest.RandomJet(t, rng, n)
		m := ginkgotest.Model(t, j, ginkgo.Version2020)
		tr := build(t, m, Options{blockBits: 6})
		g, err := greedy.Run(context.Background(), m)
		if err != nil {
			t.Fatal(err)
		}
		if !(tr.LogZ() >= tr.MAPValue() && tr.MAPValue() >= g.LogLikelihood-1e-9 && !math.IsInf(g.LogLikelihood, -1)) {
			t.Errorf("%s: log Z %v, MAP %v, greedy %v", name, tr.LogZ(), tr.MAPValue(), g.LogLikelihood)
		}
		ll, _ := model.TreeLogLikelihood(m, tr.MAPTree())
		if !close(ll, tr.MAPValue(), 1e-9) {
			t.Errorf("%s: MAP tree re-scores to %v, reported %v", name, ll, tr.MAPValue())
		}
		gen := build(t, m, Options{generic: true, blockBits: 6})
		if !close(gen.LogZ(), tr.LogZ(), 1e-9) || !close(gen.MAPValue(), tr.MAPValue(), 1e-9) {
			t.Errorf("%s: generic path log Z %v MAP %v, kernel %v %v", name, gen.LogZ(), gen.MAPValue(), tr.LogZ(), tr.MAPValue())
		}
		kc, _ := tr.Count()
		if gc, _ := gen.Count(); gc != kc {
			t.Errorf("%s: generic path counts %v trees, kernel %v", name, gc, kc)
		}
		if i%3 != 0 {
			continue
		}
		if err := tr.Marginals(context.Background()); err != nil {
			t.Fatal(err)
		}
		if p := tr.ClusterMarginal(tr.full); !close(p, 1, 1e-9) {
			t.Errorf("%s: P(root) = %v", name, p)
		}
		for k := range n {
			if p := tr.ClusterMarginal(1 << k); !close(p, 1, 1e-9) {
				t.Errorf("%s: P({%d}) = %v", name, k, p)
			}
		}
	}
}

func TestGinkgoWorkersBitIdentical(t *testing.T) {
	j := ginkgotest.RandomJet(t, rand.New(rand.NewPCG(9, 9)), 15)
	m := ginkgotest.Model(t, j, ginkgo.Version2020)
	a := build(t, m, Options{Workers: 1, blockBits: 8})
	b := build(t, m, Options{Workers: 2, blockBits: 8})
	for x := range a.nodes {
		if a.nodes[x] != b.nodes[x] || a.count[x] != b.count[x] || a.bp[x] != b.bp[x] {
			t.Fatalf("subset %v differs between 1 and 2 workers", Items(uint32(x)))
		}
	}
	mo := build(t, m, Options{Workers: 2, blockBits: 8, MAPOnly: true, NoCount: true})
	if mo.MAPValue() != a.MAPValue() || mo.MAPTree().Newick(nil) != a.MAPTree().Newick(nil) || !math.IsNaN(mo.LogZ()) {
		t.Errorf("MAP-only: %v %s, full pass %v %s", mo.MAPValue(), mo.MAPTree().Newick(nil), a.MAPValue(), a.MAPTree().Newick(nil))
	}
}

func TestSamplingChiSquare(t *testing.T) {
	// 20,000 samples from the posterior of a 5-leaf jet (105 trees) against the exact
	// probabilities exp(ℓ(H) − log Z) from enumeration: Pearson's χ² over the trees, with
	// expected counts below 5 pooled, must stay below the 0.999 quantile. The seed is fixed, so
	// the test is deterministic; a correct sampler fails it with probability 0.001 over seeds.
	j := ginkgotest.PublicJets(t)["truth_5-2"]
	m := ginkgotest.Model(t, j, ginkgo.Version2020)
	tr := build(t, m, Options{})
	probs := map[string]float64{}
	for h := range tree.AllBinary(5) {
		ll, _ := model.TreeLogLikelihood(m, h)
		probs[h.Canonical().Newick(nil)] = math.Exp(ll - tr.LogZ())
	}
	const k = 20000
	samples, err := tr.Sample(context.Background(), rand.New(rand.NewPCG(1, 1)), k)
	if err != nil {
		t.Fatal(err)
	}
	counts := map[string]int{}
	for _, s := range samples {
		nw := s.Tree.Canonical().Newick(nil)
		if probs[nw] == 0 {
			t.Fatalf("sampled an impossible tree %s", nw)
		}
		ll, _ := model.TreeLogLikelihood(m, s.Tree)
		if !close(ll, s.LogLikelihood, 1e-9) {
			t.Errorf("sample %s: log-likelihood %v, re-scored %v", nw, s.LogLikelihood, ll)
		}
		counts[nw]++
	}
	chi2, df := 0.0, -1
	pooledE, pooledO := 0.0, 0
	for nw, p := range probs {
		if p == 0 {
			continue
		}
		e := p * k
		if e < 5 {
			pooledE += e
			pooledO += counts[nw]
			continue
		}
		chi2 += (float64(counts[nw]) - e) * (float64(counts[nw]) - e) / e
		df++
	}
	if pooledE > 0 {
		chi2 += (float64(pooledO) - pooledE) * (float64(pooledO) - pooledE) / pooledE
		df++
	}
	limit := distuv.ChiSquared{K: float64(df)}.Quantile(0.999)
	t.Logf("χ² = %.1f with %d degrees of freedom (0.999 quantile %.1f)", chi2, df, limit)
	if chi2 > limit {
		t.Errorf("χ² = %.1f > %.1f: samples do not follow the posterior", chi2, limit)
	}
}

func benchJet(b testing.TB, n int) *ginkgo.Model {
	j := ginkgotest.RandomJet(b, rand.New(rand.NewPCG(uint64(n), 1)), n)
	return ginkgotest.Model(b, j, ginkgo.Version2020)
}

// BenchmarkTrellis times one jet's pass; ns/split divides by the (3^N − 1)/2 − (2^N − 1) splits.
func BenchmarkTrellis(b *testing.B) {
	for _, n := range []int{12, 16, 18, 20, 22} {
		m := benchJet(b, n)
		splits := (math.Pow(3, float64(n))-1)/2 - (math.Pow(2, float64(n)) - 1)
		for _, mode := range []struct {
			name string
			opts Options
		}{{"logZ+MAP", Options{}}, {"MAP", Options{MAPOnly: true, NoCount: true}}} {
			b.Run(fmt.Sprintf("N=%d/%s", n, mode.name), func(b *testing.B) {
				for b.Loop() {
					if _, err := Build(context.Background(), m, mode.opts); err != nil {
						b.Fatal(err)
					}
				}
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/splits, "ns/split")
			})
		}
	}
}
