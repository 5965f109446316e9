package trellis

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/hcbench/hcbench/algorithms/logspace"
	"github.com/hcbench/hcbench/algorithms/model"
	"github.com/hcbench/hcbench/algorithms/model/ginkgo"
	"github.com/hcbench/hcbench/algorithms/model/ginkgo/ginkgotest"
	"github.com/hcbench/hcbench/algorithms/model/modeltest"
	"github.com/hcbench/hcbench/algorithms/tree"
)

// bruteForce enumerates every binary tree of m (N ≤ 8) and returns what the trellis computes:
// log Z, the MAP value and the canonical Newick of every maximal tree, the number of trees with
// finite log-potential, and the log of Σ φ(H) over the trees H that hold each cluster.
type bruteForce struct {
	logZ      float64
	mapValue  float64
	mapTrees  map[string]bool
	count     int
	clusterLZ map[uint32]float64
}

func enumerate(t *testing.T, m model.Model) bruteForce {
	t.Helper()
	bf := bruteForce{logZ: math.Inf(-1), mapValue: math.Inf(-1), mapTrees: map[string]bool{}, clusterLZ: map[uint32]float64{}}
	for tr := range tree.AllBinary(m.Items()) {
		ll, err := model.TreeLogLikelihood(m, tr)
		if err != nil {
			t.Fatal(err)
		}
		bf.logZ = logspace.AddExp(bf.logZ, ll)
		nw := tr.Canonical().Newick(nil)
		switch {
		case ll > bf.mapValue:
			bf.mapValue = ll
			bf.mapTrees = map[string]bool{nw: true}
		case ll == bf.mapValue:
			bf.mapTrees[nw] = true
		}
		if !math.IsInf(ll, -1) {
			bf.count++
		}
		for _, c := range tr.Clusters() {
			var x uint32
			for _, i := range c {
				x |= 1 << i
			}
			old, ok := bf.clusterLZ[x]
			if !ok {
				old = math.Inf(-1)
			}
			bf.clusterLZ[x] = logspace.AddExp(old, ll)
		}
	}
	return bf
}

func build(t *testing.T, m model.Model, opts Options) *Trellis {
	t.Helper()
	tr, err := Build(context.Background(), m, opts)
	if err != nil {
		t.Fatal(err)
	}
	return tr
}

// checkAgainstBruteForce compares a trellis with full enumeration. Tolerances: 1e-10 absolute on
// log Z and MAP (sums of at most 2N−2 terms of size ≲ 100 in a different order, and the fast
// kernel's log is exact to a few ulp), 1e-9 on marginals.
func checkAgainstBruteForce(t *testing.T, name string, m model.Model, tr *Trellis) {
	t.Helper()
	checkAgainst(t, name, m, tr, enumerate(t, m))
}

// checkAgainst is checkAgainstBruteForce with the enumeration of m done by the caller, for
// tests that compare several trellises of one model.
func checkAgainst(t *testing.T, name string, m model.Model, tr *Trellis, bf bruteForce) {
	t.Helper()
	if !close(tr.LogZ(), bf.logZ, 1e-10) {
		t.Errorf("%s: log Z %v, brute force %v", name, tr.LogZ(), bf.logZ)
	}
	if !close(tr.MAPValue(), bf.mapValue, 1e-10) {
		t.Errorf("%s: MAP %v, brute force %v", name, tr.MAPValue(), bf.mapValue)
	}
	mt := tr.MAPTree()
	if err := mt.Validate(m.Items()); err != nil {
		t.Fatalf("%s: MAP tree invalid: %v", name, err)
	}
	ll, _ := model.TreeLogLikelihood(m, mt)
	if !close(ll, tr.MAPValue(), 1e-10) {
		t.Errorf("%s: MAP tree re-scores to %v, reported %v", name, ll, tr.MAPValue())
	}
	if !bf.mapTrees[mt.Canonical().Newick(nil)] && !math.IsInf(bf.mapValue, -1) {
		t.Errorf("%s: MAP tree %s is not among the maximal trees %v", name, mt.Canonical().Newick(nil), bf.mapTrees)
	}
	if c, exact := tr.Count(); !exact || c != float64(bf.count) {
		t.Errorf("%s: count %v (exact %v), brute force %d", name, c, exact, bf.count)
	}
	if math.IsInf(bf.logZ, -1) {
		return
	}
	if err := tr.Marginals(context.Background()); err != nil {
		t.Fatal(err)
	}
	for x := uint32(1); x <= tr.full; x++ {
		want := 0.0
		if lz, ok := bf.clusterLZ[x]; ok {
			want = math.Exp(lz - bf.logZ)
		}
		if got := tr.ClusterMarginal(x); !close(got, want, 1e-9) {
			t.Errorf("%s: marginal of %v = %v, brute force %v", name, Items(x), got, want)
		}
	}
}

func close(a, b, tol float64) bool {
	if math.IsInf(a, -1) || math.IsInf(b, -1) {
		return a == b
	}
	return math.Abs(a-b) <= tol
}

func TestConstantPotential(t *testing.T) {
	// With log ψ ≡ 0 every tree has φ = 1: log Z = log (2N−3)!!, the count is (2N−3)!!, the MAP
	// is 0, and a cluster's marginal is the share of trees holding it.
	for n := 1; n <= 7; n++ {
		m := modeltest.Constant(n, 0)
		tr := build(t, m, Options{})
		want := 0.0
		if n >= 2 {
			want = math.Log(tree.NumBinary(n))
		}
		if !close(tr.LogZ(), want, 1e-12) || tr.MAPValue() != 0 {
			t.Errorf("n=%d: log Z %v (want %v), MAP %v", n, tr.LogZ(), want, tr.MAPValue())
		}
		checkAgainstBruteForce(t, "constant", m, tr)
	}
	// Larger N, where enumeration is out of reach: the identity alone, to 1e-12 relative.
	for _, n := range []int{12, 16} {
		tr := build(t, modeltest.Constant(n, 0), Options{blockBits: 6})
		want := math.Log(tree.NumBinary(n))
		if math.Abs(tr.LogZ()-want) > 1e-12*want {
			t.Errorf("n=%d: log Z %v, want log (2N−3)!! = %v", n, tr.LogZ(), want)
		}
		if c, exact := tr.Count(); c != tree.NumBinary(n) || !exact {
			t.Errorf("n=%d: count %v (exact %v), want %v", n, c, exact, tree.NumBinary(n))
		}
	}
}

func TestRandomPotentialsAgainstBruteForce(t *testing.T) {
	for n := 2; n <= 7; n++ {
		for seed := range uint64(4) {
			for _, pInf := range []float64{0, 0.2} {
				m := modeltest.Random(n, seed, pInf)
				// Small blocks so that the cross, intra and chunked paths all run at N ≤ 7.
				for _, b := range []int{0, 2, 3} {
					checkAgainstBruteForce(t, "random", m, build(t, m, Options{blockBits: b}))
				}
			}
		}
	}
}

func TestTieRule(t *testing.T) {
	// Every tree ties under a constant potential: the rule picks, at every cluster, the split
	// whose child L (holding the lowest item) has the smallest mask — the lowest item alone.
	tr := build(t, modeltest.Constant(5, 0), Options{blockBits: 2})
	if got, want := tr.MAPTree().Canonical().Newick(nil), "(0,(1,(2,(3,4))));"; got != want {
		t.Errorf("MAP tree %s, want %s", got, want)
	}
}

func TestImpossibleEverywhere(t *testing.T) {
	tr := build(t, modeltest.Constant(4, math.Inf(-1)), Options{})
	if !math.IsInf(tr.LogZ(), -1) || !math.IsInf(tr.MAPValue(), -1) {
		t.Errorf("log Z %v, MAP %v, want −Inf", tr.LogZ(), tr.MAPValue())
	}
	if c, _ := tr.Count(); c != 0 {
		t.Errorf("count %v, want 0", c)
	}
	if err := tr.MAPTree().Validate(4); err != nil {
		t.Errorf("no well-formed tree: %v", err)
	}
	if err := tr.Marginals(context.Background()); !errors.Is(err, ErrNoLogZ) {
		t.Errorf("Marginals: %v, want ErrNoLogZ", err)
	}
}

func TestWorkersAndBlocksBitIdentical(t *testing.T) {
	// Each parent's splits are added in the same order whatever the number of workers, so the
	// tables must be equal bit for bit.
	m := modeltest.Random(11, 5, 0.05)
	ref := build(t, m, Options{Workers: 1, blockBits: 4})
	for _, w := range []int{2, 3, 8} {
		tr := build(t, m, Options{Workers: w, blockBits: 4})
		for x := range ref.nodes {
			if ref.nodes[x] != tr.nodes[x] || ref.count[x] != tr.count[x] || ref.bp[x] != tr.bp[x] {
				t.Fatalf("workers %d: subset %v differs: %+v vs %+v", w, Items(uint32(x)), ref.nodes[x], tr.nodes[x])
			}
		}
	}
	// Another block size changes the order of the log Z sums (so only ~1e−13 agreement), but
	// neither the MAP value nor the MAP tree, by the tie rule.
	for _, b := range []int{1, 6, 11} {
		tr := build(t, m, Options{Workers: 2, blockBits: b})
		if tr.MAPValue() != ref.MAPValue() || tr.MAPTree().Newick(nil) != ref.MAPTree().Newick(nil) {
			t.Errorf("block bits %d: MAP %v %s, want %v %s", b, tr.MAPValue(), tr.MAPTree().Newick(nil), ref.MAPValue(), ref.MAPTree().Newick(nil))
		}
		if !close(tr.LogZ(), ref.LogZ(), 1e-12) {
			t.Errorf("block bits %d: log Z %v, want %v", b, tr.LogZ(), ref.LogZ())
		}
	}
}

func TestMemoryGuard(t *testing.T) {
	// The estimate is per subset 32 (nodes) + 4 (backpointers) + 8 (counts) + the model's scorer,
	// + 8 with marginals and + 8 with samples; modeltest's scorer holds no table.
	m := modeltest.Constant(20, 0)
	_, err := Build(context.Background(), m, Options{MemoryLimit: 1 << 20})
	if !errors.Is(err, ErrTooLarge) {
		t.Fatalf("got %v, want ErrTooLarge", err)
	}
	for _, s := range []string{"N = 20", "44.0 MiB", "1.0 MiB", "its tables"} {
		if !strings.Contains(err.Error(), s) {
			t.Errorf("error %q does not mention %q", err, s)
		}
	}
	for _, c := range []struct {
		opts Options
		per  int64
		msg  string
	}{
		{Options{}, 44, "its tables"},
		{Options{NoCount: true}, 36, "its tables"},
		{Options{Marginals: true}, 52, "its tables and marginals"},
		{Options{Samples: true}, 52, "its tables and sampling"},
		{Options{Marginals: true, Samples: true, NoCount: true}, 52, "its tables, marginals and sampling"},
	} {
		if got := MemoryNeeded(m, c.opts); got != c.per<<20 {
			t.Errorf("%+v: MemoryNeeded %d, want %d·2^20", c.opts, got, c.per)
		}
		c.opts.MemoryLimit = c.per<<20 - 1
		if _, err := Build(context.Background(), m, c.opts); !errors.Is(err, ErrTooLarge) || !strings.Contains(err.Error(), c.msg) {
			t.Errorf("%+v: got %v, want ErrTooLarge naming %q", c.opts, err, c.msg)
		}
	}
	// The Ginkgo model's scorer adds 8 bytes per subset, the correlation model's 16 (their
	// SubsetBytes).
	g := ginkgotest.Model(t, ginkgotest.RandomJet(t, rand.New(rand.NewPCG(1, 1)), 6), ginkgo.Version2020)
	if got := MemoryNeeded(g, Options{Marginals: true}); got != 60<<6 {
		t.Errorf("Ginkgo with marginals: MemoryNeeded %d, want 60·2^6", got)
	}
	if _, err := Build(context.Background(), modeltest.Constant(31, 0), Options{}); !errors.Is(err, ErrTooLarge) {
		t.Errorf("N = 31: got %v, want ErrTooLarge", err)
	}
	if _, err := Build(context.Background(), m, Options{MAPOnly: true, Marginals: true}); err == nil || !strings.Contains(err.Error(), "MAP-only") {
		t.Errorf("MAP-only with marginals: got %v, want an error", err)
	}
}

func TestMemoryGuardUndeclared(t *testing.T) {
	// A trellis built at exactly its limit has no room for the marginals' or the sampler's 8
	// bytes per subset, which Marginals and Sample check before allocating; declared, Build
	// refuses instead, and with room for them both succeed.
	m := modeltest.Random(8, 1, 0)
	tight := build(t, m, Options{MemoryLimit: MemoryNeeded(m, Options{})})
	if err := tight.Marginals(context.Background()); !errors.Is(err, ErrTooLarge) || !strings.Contains(err.Error(), "marginals") {
		t.Errorf("Marginals at the limit: got %v, want ErrTooLarge", err)
	}
	if _, err := tight.Sample(context.Background(), rand.New(rand.NewPCG(1, 2)), 3); !errors.Is(err, ErrTooLarge) || !strings.Contains(err.Error(), "sampling") {
		t.Errorf("Sample at the limit: got %v, want ErrTooLarge", err)
	}
	both := Options{Marginals: true, Samples: true}
	need := MemoryNeeded(m, both)
	both.MemoryLimit = need - 1
	if _, err := Build(context.Background(), m, both); !errors.Is(err, ErrTooLarge) {
		t.Errorf("Build one byte short: got %v, want ErrTooLarge", err)
	}
	both.MemoryLimit = need
	tr := build(t, m, both)
	if err := tr.Marginals(context.Background()); err != nil {
		t.Errorf("Marginals within the limit: %v", err)
	}
	if _, err := tr.Sample(context.Background(), rand.New(rand.NewPCG(1, 2)), 3); err != nil {
		t.Errorf("Sample within the limit: %v", err)
	}
	// Undeclared, Sample after Marginals needs room for both.
	only := build(t, m, Options{MemoryLimit: MemoryNeeded(m, Options{Marginals: true})})
	if err := only.Marginals(context.Background()); err != nil {
		t.Errorf("Marginals within the limit: %v", err)
	}
	if _, err := only.Sample(context.Background(), rand.New(rand.NewPCG(1, 2)), 3); !errors.Is(err, ErrTooLarge) {
		t.Errorf("Sample after Marginals at the limit: got %v, want ErrTooLarge", err)
	}
}

func TestCancel(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Build(ctx, modeltest.Constant(14, 0), Options{blockBits: 6}); !errors.Is(err, context.Canceled) {
		t.Errorf("got %v, want context.Canceled", err)
	}
}

func TestMarginalIdentities(t *testing.T) {
	// At N = 10, beyond enumeration: Σ over clusters of P(cluster) = 2N − 1 (every tree has
	// 2N − 1 clusters); the root and every leaf have marginal 1; the marginal of the MAP tree as
	// a sub-hierarchy at the root is exp(MAP − log Z); the splits of a cluster partition its
	// marginal. Tolerance 1e-9. marginals_test.go compares with enumeration at N ≤ 7.
	m := modeltest.Random(10, 3, 0.1)
	tr := build(t, m, Options{blockBits: 5})
	if err := tr.Marginals(context.Background()); err != nil {
		t.Fatal(err)
	}
	sum := 0.0
	for x := uint32(1); x <= tr.full; x++ {
		sum += tr.ClusterMarginal(x)
	}
	if !close(sum, 19, 1e-9) {
		t.Errorf("Σ P(cluster) = %v, want 2N−1 = 19", sum)
	}
	for i := range 10 {
		if p := tr.ClusterMarginal(1 << i); !close(p, 1, 1e-9) {
			t.Errorf("P({%d}) = %v", i, p)
		}
	}
	if p := tr.ClusterMarginal(tr.full); !close(p, 1, 1e-9) {
		t.Errorf("P(root) = %v", p)
	}
	p, err := tr.SubHierarchyMarginal(tr.MAPTree())
	if err != nil {
		t.Fatal(err)
	}
	if want := math.Exp(tr.MAPValue() - tr.LogZ()); !close(p, want, 1e-9) {
		t.Errorf("P(MAP tree) = %v, want exp(MAP − log Z) = %v", p, want)
	}
	// Splits of a cluster partition its marginal.
	x := tr.full ^ 1
	total := 0.0
	low := x & -x
	rest := x ^ low
	for u := rest; ; u = (u - 1) & rest {
		if u != rest {
			total += tr.SplitMarginal(low|u, rest^u)
		}
		if u == 0 {
			break
		}
	}
	if !close(total, tr.ClusterMarginal(x), 1e-9) {
		t.Errorf("Σ split marginals of %v = %v, cluster marginal %v", Items(x), total, tr.ClusterMarginal(x))
	}
}
