package trellis

import (
	"context"
	"math"
	"math/bits"
	"slices"
	"sort"
	"testing"

	"github.com/hcbench/hcbench/algorithms/logspace"
	"github.com/hcbench/hcbench/algorithms/model"
	"github.com/hcbench/hcbench/algorithms/model/modeltest"
	"github.com/hcbench/hcbench/algorithms/tree"
)

// marginalsOf builds m's trellis and runs Marginals.
func marginalsOf(t *testing.T, m model.Model) *Trellis {
	t.Helper()
	tr := build(t, m, Options{blockBits: 3})
	if err := tr.Marginals(context.Background()); err != nil {
		t.Fatal(err)
	}
	return tr
}

func TestSubHierarchyMarginalsAgainstBruteForce(t *testing.T) {
	// Every sub-hierarchy with at least two items of a random N = 6 model: Σ_{k=2..6} C(6,k)·
	// (2k−3)!! = 1,875 of them. The reference is enumeration: P(H_i) = Σ over the 945 trees that
	// hold H_i as a subtree of exp(ℓ(H) − log Z). Tolerance 1e-12 absolute: both sides are sums
	// of at most 945 probabilities, in other orders (the largest difference seen is below 4e−16).
	for _, pInf := range []float64{0, 0.05} {
		m := modeltest.Random(6, 11, pInf)
		tr := marginalsOf(t, m)
		logZ := math.Inf(-1)
		subLZ := map[string]float64{} // canonical Newick of a sub-hierarchy → log Σ φ(H) over the trees holding it
		rep := map[string]*tree.Tree{}
		for h := range tree.AllBinary(6) {
			ll, err := model.TreeLogLikelihood(m, h)
			if err != nil {
				t.Fatal(err)
			}
			logZ = logspace.AddExp(logZ, ll)
			for v, nd := range h.Nodes {
				if nd.IsLeaf() {
					continue
				}
				// The subtree rooted at v: the same nodes, another root.
				sub := &tree.Tree{Nodes: h.Nodes, Root: v}
				key := sub.Canonical().Newick(nil)
				old, ok := subLZ[key]
				if !ok {
					old = math.Inf(-1)
					rep[key] = sub.Clone() // AllBinary reuses its tree
				}
				subLZ[key] = logspace.AddExp(old, ll)
			}
		}
		if len(subLZ) != 1875 {
			t.Fatalf("%d sub-hierarchies, want 1,875", len(subLZ))
		}
		if !close(tr.LogZ(), logZ, 1e-12) {
			t.Errorf("pInf %v: log Z %v, brute force %v", pInf, tr.LogZ(), logZ)
		}
		worst, zeros, bad := 0.0, 0, 0
		for key, lz := range subLZ {
			want := math.Exp(lz - logZ)
			got, err := tr.SubHierarchyMarginal(rep[key])
			if err != nil {
				t.Fatal(err)
			}
			if d := math.Abs(got - want); !(d <= 1e-12) {
				if bad++; bad <= 10 {
					t.Errorf("pInf %v: P(%s) = %v, brute force %v", pInf, key, got, want)
				}
			} else {
				worst = max(worst, d)
			}
			if want == 0 {
				zeros++
			}
		}
		t.Logf("pInf %v: largest difference %.2g over 1,875 sub-hierarchies, %d of probability 0", pInf, worst, zeros)
	}
}

func TestSubHierarchyMarginalBadInput(t *testing.T) {
	tr := build(t, modeltest.Random(4, 1, 0), Options{})
	leaf := tree.Leaf(0)
	if _, err := tr.SubHierarchyMarginal(leaf); err == nil {
		t.Error("before Marginals: no error")
	}
	if err := tr.Marginals(context.Background()); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name string
		h    *tree.Tree
	}{
		{"nil", nil},
		{"root outside the nodes", &tree.Tree{Nodes: []tree.Node{{Item: 0}}, Root: 3}},
		{"item outside", tree.Leaf(4)},
		{"repeated item", &tree.Tree{Nodes: []tree.Node{{Item: 1}, {Item: 1}, {Children: []int{0, 1}, Item: -1}}, Root: 2}},
		{"three children", &tree.Tree{Nodes: []tree.Node{{Item: 0}, {Item: 1}, {Item: 2}, {Children: []int{0, 1, 2}, Item: -1}}, Root: 3}},
		{"child outside the nodes", &tree.Tree{Nodes: []tree.Node{{Item: 0}, {Children: []int{0, 5}, Item: -1}}, Root: 1}},
	} {
		if _, err := tr.SubHierarchyMarginal(c.h); err == nil {
			t.Errorf("%s: no error", c.name)
		}
	}
	// A single item is a sub-hierarchy of every tree.
	if p, err := tr.SubHierarchyMarginal(leaf); err != nil || !close(p, 1, 1e-12) {
		t.Errorf("P({0}) = %v, %v; want 1", p, err)
	}
}

func TestClusterListsAgainstBruteForce(t *testing.T) {
	// TopClusters and MAPClusterMarginals against the cluster marginals of enumeration (N = 7,
	// 10,395 trees), to 1e-9 as checkAgainstBruteForce.
	for seed := range uint64(3) {
		m := modeltest.Random(7, seed, 0.1)
		tr := marginalsOf(t, m)
		bf := enumerate(t, m)
		marg := func(x uint32) float64 {
			if lz, ok := bf.clusterLZ[x]; ok {
				return math.Exp(lz - bf.logZ)
			}
			return 0
		}
		// Every cluster with 2 to N−1 items, by decreasing brute-force marginal.
		var all []uint32
		for x := uint32(1); x < tr.full; x++ {
			if bits.OnesCount32(x) >= 2 {
				all = append(all, x)
			}
		}
		sort.SliceStable(all, func(i, j int) bool { return marg(all[i]) > marg(all[j]) })
		for _, k := range []int{1, 5, 40, len(all), len(all) + 10} {
			top, err := tr.TopClusters(t.Context(), k)
			if err != nil {
				t.Fatal(err)
			}
			if len(top) != min(k, len(all)) {
				t.Fatalf("seed %d k %d: %d clusters, want %d", seed, k, len(top), min(k, len(all)))
			}
			seen := map[uint32]bool{}
			for i, c := range top {
				x := mask(c.Items)
				if seen[x] || bits.OnesCount32(x) < 2 || x == tr.full {
					t.Errorf("seed %d k %d: cluster %v repeated, a singleton or the full set", seed, k, c.Items)
				}
				seen[x] = true
				// Its own marginal, and the i-th largest: so the list holds the k largest,
				// whichever of near-equal ones it picks.
				if !close(c.P, marg(x), 1e-9) || !close(c.P, marg(all[i]), 1e-9) {
					t.Errorf("seed %d k %d: #%d %v has P %v, brute force %v, #%d largest %v", seed, k, i, c.Items, c.P, marg(x), i, marg(all[i]))
				}
				if i > 0 && (c.P > top[i-1].P || (c.P == top[i-1].P && x < mask(top[i-1].Items))) {
					t.Errorf("seed %d k %d: #%d out of order", seed, k, i)
				}
			}
		}
		if top, err := tr.TopClusters(t.Context(), 0); len(top) != 0 || err != nil {
			t.Errorf("k = 0: %v", top)
		}
		if top, err := tr.TopClusters(t.Context(), -1); len(top) != 0 || err != nil {
			t.Errorf("k = −1: %v", top)
		}

		// MAPClusterMarginals: the MAP tree's clusters of two or more items, largest first.
		var want [][]int
		for _, c := range tr.MAPTree().Clusters() {
			if len(c) >= 2 {
				want = append(want, c)
			}
		}
		got := tr.MAPClusterMarginals()
		if len(got) != len(want) {
			t.Fatalf("seed %d: %d MAP clusters, want %d", seed, len(got), len(want))
		}
		var gotSets [][]int
		for i, c := range got {
			gotSets = append(gotSets, c.Items)
			if !close(c.P, marg(mask(c.Items)), 1e-9) {
				t.Errorf("seed %d: MAP cluster %v has P %v, brute force %v", seed, c.Items, c.P, marg(mask(c.Items)))
			}
			if i > 0 && len(c.Items) > len(got[i-1].Items) {
				t.Errorf("seed %d: MAP cluster #%d is larger than #%d", seed, i, i-1)
			}
		}
		slices.SortFunc(gotSets, slices.Compare)
		if !slices.EqualFunc(gotSets, want, slices.Equal) {
			t.Errorf("seed %d: MAP clusters %v, want %v", seed, gotSets, want)
		}
	}
}

// mask returns the bitmask of a list of items.
func mask(items []int) uint32 {
	var x uint32
	for _, i := range items {
		x |= 1 << i
	}
	return x
}
