package beam

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/hcbench/hcbench/algorithms/greedy"
	"github.com/hcbench/hcbench/algorithms/model"
	"github.com/hcbench/hcbench/algorithms/model/ginkgo"
	"github.com/hcbench/hcbench/algorithms/model/ginkgo/ginkgotest"
	"github.com/hcbench/hcbench/algorithms/model/modeltest"
	"github.com/hcbench/hcbench/algorithms/tree"
	"github.com/hcbench/hcbench/algorithms/trellis"
	"github.com/hcbench/hcbench/datasets/datadir/datatest"
	"github.com/hcbench/hcbench/datasets/jets"
)

func run(t *testing.T, m model.Model, opts Options) Result {
	t.Helper()
	r, err := Run(context.Background(), m, opts)
	if err != nil {
		t.Fatal(err)
	}
	if err := r.Tree.Validate(m.Items()); err != nil {
		t.Fatalf("invalid tree %s: %v", r.Tree.Newick(nil), err)
	}
	ll, _ := model.TreeLogLikelihood(m, r.Tree)
	if ll != r.LogLikelihood {
		t.Fatalf("reported %v, the tree scores %v", r.LogLikelihood, ll)
	}
	return r
}

func TestNumpySum(t *testing.T) {
	// Sums computed by np.sum (numpy 1.24.2, Debian bookworm's python3-numpy) of the same lists,
	// compared bit for bit: each differs from a plain left-to-right sum in the last bit, which
	// the reference's de-duplication sees.
	cases := []struct {
		xs   []float64
		want float64
	}{
		{[]float64{-8.712138, -13.987096, -13.684661, -8.844472, -3.010644, -13.204872, -11.763035, -5.902218, -1.25822}, -80.367356},
		{[]float64{-0.787465, -13.288046, -8.937219, -4.021457, -12.796224, -7.910035, -14.431495, -5.31087, -3.913722, -6.691124, -2.305572, -10.450661, -4.918217, -6.381637, -6.59152, -8.385023}, -117.12028699999999},
		{[]float64{-3.690442, -2.319559, -3.43084, -9.310506, -9.214807, -13.498712, -5.802801, -14.097407, -14.02346, -11.972934, -12.646604, -10.069222, -14.237654, -14.996617, -12.806658, -13.528767, -9.727656}, -175.374646},
		{[]float64{-14.594912, -10.948431, -11.241972, -4.958432, -1.130531, -8.515199, -1.413193, -0.673448, -1.152491, -9.71278, -11.803296, -11.710736, -12.147761, -12.036586, -5.951037, -1.945529, -2.813685, -8.047635, -5.531818, -3.405166, -13.770712, -5.421508, -1.808232}, -160.73509},
	}
	for _, c := range cases {
		if got := numpySum(c.xs); got != c.want {
			t.Errorf("numpySum of %d terms = %v, numpy gives %v", len(c.xs), got, c.want)
		}
	}
	// Beyond 128 terms numpy splits the array in halves, the first rounded down to a multiple of
	// 8. x_i = −((i·k) mod 1009)/97; np.sum(np.array(x)) under numpy 1.24.2 gives these values
	// bit for bit. Each differs from the plain sum, and the 129-, 200- and 300-term ones also from
	// a split at 128 or a split without the rounding, so a wrong block rule fails here.
	for _, c := range []struct {
		n, k int
		want float64
	}{
		{129, 104729, -689.1546391752578},
		{200, 104729, -1055.2164948453608},
		{300, 104729, -1590.061855670103},
		{513, 7919, -2663.360824742268},
	} {
		xs := make([]float64, c.n)
		for i := range xs {
			xs[i] = -float64(i*c.k%1009) / 97
		}
		if got := numpySum(xs); got != c.want {
			t.Errorf("numpySum of %d terms = %v, numpy gives %v", c.n, got, c.want)
		}
	}
	// np.sum starts from +0.0: np.sum([]) and np.sum([-0.0]*9) are +0.0 under numpy 1.24.2.
	for _, xs := range [][]float64{nil, slices.Repeat([]float64{math.Copysign(0, -1)}, 9)} {
		if got := numpySum(xs); got != 0 || math.Signbit(got) {
			t.Errorf("numpySum(%v) = %v, numpy gives +0", xs, got)
		}
	}
}

// formedMasks returns the item masks of t's clusters of two or more items, sorted: the forest a
// beam path has formed, as the reference runs below record it.
func formedMasks(t *tree.Tree) []uint32 {
	var out []uint32
	for _, c := range t.Clusters() {
		if len(c) < 2 {
			continue
		}
		var m uint32
		for _, i := range c {
			m |= 1 << i
		}
		out = append(out, m)
	}
	slices.Sort(out)
	return out
}

// hashPsi is the log ψ of the tie tests: a hash of the two children's item masks, −Inf for one
// pair in 11 and else one of 0, −0.5, …, −2, so that most candidates tie.
func hashPsi(n int, seed uint64) modeltest.Func {
	return modeltest.Func{N: n, Psi: func(l, r uint32) float64 {
		a, b := uint64(min(l, r)), uint64(max(l, r))
		h := (a*2654435761 ^ b*97 ^ seed*1000003) & 0xffffffff
		if h%11 == 0 {
			return math.Inf(-1)
		}
		return -0.5 * float64(h%5)
	}}
}

func TestFloatTieOrder(t *testing.T) {
	// The final beam of the float rule under hashPsi, path by path, as the forests (cluster
	// masks) the reference forms. Source: StandardHC d868706 beamSearchOptimal_invM.beamSearch,
	// run unmodified under Python 3.11 and numpy 1.24.2 (Debian bookworm) with split_logLH
	// replaced by hashPsi and one-hot leaves (so a node's content is its item indicator); a
	// numpy port of it agrees on all 270 cases of seeds 0–29, N ∈ {4, 5, 7}, B ∈ {2, 3, 6}, and
	// so do we. These three need both halves of the reference's tie order: a path's tied pairs
	// are represented by its smallest pair, and a full beam still looks at the rest of its last
	// total's group. The second keeps a −Inf path, since all −Inf totals collapse into one.
	for _, c := range []struct {
		seed    uint64
		n, b    int
		forests [][]uint32
	}{
		{1, 7, 6, [][]uint32{{5, 10, 48, 58, 69, 127}, {5, 48, 50, 58, 69, 127}, {5, 48, 50, 69, 77, 127}, {5, 10, 48, 69, 117, 127}, {5, 13, 48, 50, 114, 127}}},
		{11, 7, 3, [][]uint32{{6, 22, 30, 31, 96, 127}, {6, 22, 30, 96, 126, 127}}},
		{19, 7, 2, [][]uint32{{18, 26, 27, 31, 63, 127}, {18, 26, 27, 59, 123, 127}}},
	} {
		r := run(t, hashPsi(c.n, c.seed), Options{Size: c.b, Dedup: Float, All: true})
		var got [][]uint32
		for _, tr := range r.Trees {
			got = append(got, formedMasks(tr))
		}
		if fmt.Sprint(got) != fmt.Sprint(c.forests) {
			t.Errorf("seed %d N=%d B=%d: final beam %v, reference %v", c.seed, c.n, c.b, got, c.forests)
		}
	}
}

// nineLeafReference is the best tree of StandardHC d868706 beamSearchOptimal_invM.beamSearch on
// the 10 public 9-leaf jets (ClusterTrellis ab931e8 data/truth_9.pkl, here truth_9.jsonl) for
// every beam size B from 20 to 45, as runs of B with one tree. Source: the reference itself, run
// unmodified under Python 3.11 with numpy 1.24.2 (Debian bookworm), torch stubbed (beamSearch
// does not use it); log-likelihoods re-scored as its recluster does, λ_root at the root, summed
// in Python (so to ~1e-13). Trees are canonical Newick over the file's leaf order.
var nineLeafReference = []struct {
	jet, fromB, toB int
	tree            string
	ll              float64
}{
	{0, 20, 45, "((((0,5),(1,2)),(3,4)),(6,(7,8)));", -55.21866008635963},
	{1, 20, 45, "((((0,2),3),(6,7)),((1,4),(5,8)));", -54.63671780301708},
	{2, 20, 25, "(((0,6),(1,7)),((2,(5,8)),(3,4)));", -55.07829899771052},
	{2, 26, 26, "(((0,7),1),((2,(3,4)),((5,8),6)));", -52.842956729072014},
	{2, 27, 40, "(((0,7),1),((2,(5,8)),((3,4),6)));", -52.672641866851876},
	{2, 41, 45, "((0,1),((2,(7,8)),(((3,4),6),5)));", -52.316974960866006},
	{3, 20, 45, "((((0,2),(1,3)),(4,5)),(6,(7,8)));", -53.339236059426},
	{4, 20, 45, "(((0,7),6),(((1,8),(4,5)),(2,3)));", -54.03551255778029},
	{5, 20, 45, "((0,(4,5)),(((1,8),(2,3)),(6,7)));", -53.51772463761183},
	{6, 20, 45, "((((0,5),((1,2),3)),(4,6)),(7,8));", -54.36910323744303},
	{7, 20, 45, "(((0,2),4),(((1,8),(5,7)),(3,6)));", -53.57672100318858},
	{8, 20, 45, "((((0,8),(4,5)),(1,3)),((2,6),7));", -53.7849906235877},
	{9, 20, 45, "(((0,8),(5,7)),(((1,2),3),(4,6)));", -53.95817499855107},
}

// nineLeafJets returns the 10 public 9-leaf jets.
func nineLeafJets(t *testing.T) []jets.Jet {
	t.Helper()
	path := datatest.Path(t, "clustertrellis/truth_9.jsonl")
	js, err := jets.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return js
}

func TestReferenceNineLeafJets(t *testing.T) {
	// The float rule gives the reference's tree (and its log-likelihood to 1e-9) on every jet
	// and B = 20..45 but the listed ones. There the reference's search turns on totals of the
	// same forest, reached in two merge orders, being equal or not in the last bit, and our
	// split values (Go's math.Log, t = E² − |p|², our term order) differ from numpy's in the last
	// bits: from the third level on, the two beams hold different duplicates. The list must be
	// exact, so a change in either direction shows.
	exceptions := map[[2]int]bool{}
	for b := 26; b <= 32; b++ {
		exceptions[[2]int{2, b}] = true
	}
	for b := 41; b <= 45; b++ {
		exceptions[[2]int{2, b}] = true
	}
	exceptions[[2]int{3, 20}], exceptions[[2]int{3, 21}] = true, true
	js := nineLeafJets(t)
	for _, ref := range nineLeafReference {
		m := ginkgotest.Model(t, js[ref.jet], ginkgo.Version2020)
		for b := ref.fromB; b <= ref.toB; b++ {
			r := run(t, m, Options{Size: b, Dedup: Float})
			got := r.Tree.Canonical().Newick(nil)
			same := got == ref.tree && math.Abs(r.LogLikelihood-ref.ll) <= 1e-9
			switch {
			case !same && !exceptions[[2]int{ref.jet, b}]:
				t.Errorf("jet %d B=%d: %s %.12f, reference %s %.12f", ref.jet, b, got, r.LogLikelihood, ref.tree, ref.ll)
			case same && exceptions[[2]int{ref.jet, b}]:
				t.Errorf("jet %d B=%d now gives the reference's tree; drop it from the exceptions", ref.jet, b)
			}
		}
	}
}

func TestShippedNineLeafBeam(t *testing.T) {
	// trellis.md §10: the beam column of ClusterTrellis's shipped data/TruthBSGD_9.pkl (3
	// decimals; tolerance 5e-4), which the design note says the reference reproduces for every
	// B in 28..43. We reproduce it there except on jet 2 at B = 28–32, one of the last-bit
	// exceptions of TestReferenceNineLeafJets (where the reference gives the shipped −52.673).
	// Under numpy 1.24.2 the reference itself gives −52.317 for jet 2 at B = 41–43, where we
	// give the shipped value.
	shipped := []float64{-55.219, -54.637, -52.673, -53.339, -54.036, -53.518, -54.369, -53.577, -53.785, -53.958}
	js := nineLeafJets(t)
	for i, want := range shipped {
		m := ginkgotest.Model(t, js[i], ginkgo.Version2020)
		for b := 28; b <= 43; b++ {
			r := run(t, m, Options{Size: b, Dedup: Float})
			miss := math.Abs(r.LogLikelihood-want) > 5e-4
			exception := i == 2 && b <= 32
			if miss != exception {
				t.Errorf("jet %d B=%d: %.4f, shipped %.3f (listed as an exception: %v)", i, b, r.LogLikelihood, want, exception)
			}
		}
	}
}

func TestFloatSearchesRootWithLambda(t *testing.T) {
	// The reference ranks the last merge with λ and re-scores the returned tree with λ_root, so
	// its trees do not depend on λ_root. Public jet 3 with λ_root = 3 (a W jet's) is a case
	// where ranking the last merge with λ_root would pick another tree at B = 2 and 15 (at B = 15,
	// ((((0,8),(1,3)),(6,7)),(2,(4,5)))). Source: the reference run as in nineLeafReference with
	// LambdaRoot set to 3; its tree is the same as with λ_root = 1.5, its re-scored value is
	// ours to 1e-9.
	j := nineLeafJets(t)[3]
	j.LambdaRoot = 3
	m := ginkgotest.Model(t, j, ginkgo.Version2020)
	for _, c := range []struct {
		b    int
		tree string
		ll   float64
	}{
		{2, "((((0,3),(1,8)),(4,5)),((2,6),7));", -54.848843511799},
		{15, "(((0,(1,3)),(4,5)),((2,6),(7,8)));", -53.94693836154769},
	} {
		r := run(t, m, Options{Size: c.b, Dedup: Float})
		if got := r.Tree.Canonical().Newick(nil); got != c.tree || math.Abs(r.LogLikelihood-c.ll) > 1e-9 {
			t.Errorf("B=%d: %s %.12f, reference %s %.12f", c.b, got, r.LogLikelihood, c.tree, c.ll)
		}
	}
}

func TestSizeOneIsGreedy(t *testing.T) {
	// With B = 1 beam search is greedy search up to ties: without ties (random jets) the trees
	// are the same and the scores agree to 1e-9 (summed in other orders).
	rng := rand.New(rand.NewPCG(1, 2))
	for _, n := range []int{3, 6, 9, 14, 20} {
		for range 5 {
			m := ginkgotest.Model(t, ginkgotest.RandomJet(t, rng, n), ginkgo.Version2020)
			g, err := greedy.Run(context.Background(), m)
			if err != nil {
				t.Fatal(err)
			}
			for _, d := range []Dedup{Structure, Float} {
				r := run(t, m, Options{Size: 1, Dedup: d})
				if r.Tree.Canonical().Newick(nil) != g.Tree.Canonical().Newick(nil) || math.Abs(r.LogLikelihood-g.LogLikelihood) > 1e-9 {
					t.Errorf("N=%d %v: beam B=1 %s %v, greedy %s %v", n, d, r.Tree.Canonical().Newick(nil), r.LogLikelihood, g.Tree.Canonical().Newick(nil), g.LogLikelihood)
				}
			}
		}
	}
	// With ties the two break them differently, so only scores can be compared, on models where
	// every tie-break scores the same: a constant ψ ((N−1)·log ψ for every tree, exactly), a
	// constant −Inf, and a ψ of −1 that is −Inf for a cluster holding items 0 and 1 short of
	// the root, which both avoid until the root merge, for −(N−1) exactly.
	apart := func(n int) modeltest.Func {
		return modeltest.Func{N: n, Psi: func(l, r uint32) float64 {
			if u := l | r; u&3 == 3 && u != 1<<n-1 {
				return math.Inf(-1)
			}
			return -1
		}}
	}
	for _, n := range []int{2, 5, 9} {
		for _, c := range []struct {
			m    modeltest.Func
			want float64
		}{
			{modeltest.Constant(n, -1.5), -1.5 * float64(n-1)},
			{modeltest.Constant(n, math.Inf(-1)), math.Inf(-1)},
			{apart(n), -float64(n - 1)},
		} {
			m, want := c.m, c.want
			g, err := greedy.Run(context.Background(), m)
			if err != nil {
				t.Fatal(err)
			}
			if g.LogLikelihood != want {
				t.Fatalf("N=%d: greedy %v, want %v", n, g.LogLikelihood, want)
			}
			for _, d := range []Dedup{Structure, Float} {
				if r := run(t, m, Options{Size: 1, Dedup: d}); r.LogLikelihood != want {
					t.Errorf("N=%d %v: beam B=1 %v, greedy %v", n, d, r.LogLikelihood, want)
				}
			}
		}
	}
}

func TestBelowExactMAP(t *testing.T) {
	// Beam search can only find trees, so it never beats the exact MAP (1e-9).
	rng := rand.New(rand.NewPCG(3, 4))
	for _, n := range []int{5, 8, 11} {
		for range 4 {
			m := ginkgotest.Model(t, ginkgotest.RandomJet(t, rng, n), ginkgo.Version2020)
			tr, err := trellis.Build(context.Background(), m, trellis.Options{MAPOnly: true})
			if err != nil {
				t.Fatal(err)
			}
			for _, d := range []Dedup{Structure, Float} {
				r := run(t, m, Options{Size: n * (n - 1) / 2, Dedup: d})
				if r.LogLikelihood > tr.MAPValue()+1e-9 {
					t.Errorf("N=%d %v: beam %v above the exact MAP %v", n, d, r.LogLikelihood, tr.MAPValue())
				}
			}
		}
	}
}

func TestStructureBeamHasNoDuplicates(t *testing.T) {
	// Under the structure rule no beam holds two paths with the same set of formed clusters.
	rng := rand.New(rand.NewPCG(5, 6))
	for _, n := range []int{6, 10, 16} {
		m := ginkgotest.Model(t, ginkgotest.RandomJet(t, rng, n), ginkgo.Version2020)
		s := newSearch(m, Options{Size: 3 * n, Dedup: Structure})
		beam := []*path{s.start()}
		for level := 0; level < n-1; level++ {
			var err error
			if beam, err = s.step(t.Context(), beam, level); err != nil {
				t.Fatal(err)
			}
			seen := map[string]bool{}
			for _, p := range beam {
				key := fmt.Sprint(sortedSets(p))
				if seen[key] {
					t.Fatalf("N=%d level %d: the beam holds the forest %s twice", n, level, key)
				}
				seen[key] = true
			}
			if len(beam) == 0 || len(beam) > 3*n {
				t.Fatalf("N=%d level %d: beam of %d paths", n, level, len(beam))
			}
		}
	}
}

func sortedSets(p *path) []string {
	var out []string
	for _, s := range p.formed {
		out = append(out, s.String())
	}
	slices.Sort(out)
	return out
}

func TestErrors(t *testing.T) {
	m := ginkgotest.Model(t, ginkgotest.RandomJet(t, rand.New(rand.NewPCG(1, 1)), 5), ginkgo.Version2020)
	if _, err := Run(context.Background(), m, Options{Size: 0}); err == nil {
		t.Error("beam size 0 accepted")
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Run(ctx, m, Options{Size: 3}); err != context.Canceled {
		t.Errorf("cancelled: %v", err)
	}
}

func BenchmarkBeam(b *testing.B) {
	for _, n := range []int{10, 20, 30} {
		m := ginkgotest.Model(b, ginkgotest.RandomJet(b, rand.New(rand.NewPCG(uint64(n), 7)), n), ginkgo.Version2020)
		for _, d := range []Dedup{Structure, Float} {
			b.Run(fmt.Sprintf("N=%d/B=%d/%v", n, n*(n-1)/2, d), func(b *testing.B) {
				for b.Loop() {
					if _, err := Run(context.Background(), m, Options{Size: n * (n - 1) / 2, Dedup: d}); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}

func TestPathTotalIsTreeScore(t *testing.T) {
	// The total a path accumulates, split by split, is the log-likelihood of its tree (1e-9: the
	// same terms, summed in another order), for every path of the final beam.
	rng := rand.New(rand.NewPCG(8, 9))
	for _, n := range []int{4, 9, 15} {
		m := ginkgotest.Model(t, ginkgotest.RandomJet(t, rng, n), ginkgo.Version2020)
		for _, d := range []Dedup{Structure, Float} {
			s := newSearch(m, Options{Size: 2 * n, Dedup: d})
			beam := []*path{s.start()}
			for level := 0; level < n-1; level++ {
				var err error
				if beam, err = s.step(t.Context(), beam, level); err != nil {
					t.Fatal(err)
				}
			}
			for _, p := range beam {
				tr, err := tree.FromMerges(n, p.merges)
				if err != nil {
					t.Fatal(err)
				}
				ll, _ := model.TreeLogLikelihood(m, tr)
				if math.Abs(ll-p.sum) > 1e-9 || math.Abs(numpySum(p.terms)-p.sum) > 1e-9 {
					t.Errorf("N=%d %v: path total %v (numpy order %v), tree %v", n, d, p.sum, numpySum(p.terms), ll)
				}
			}
		}
	}
}
