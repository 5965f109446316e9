package metrics

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/hcbench/hcbench/algorithms/tree"
)

// lcaBrute returns the lowest common ancestor of the leaves of items i and j by parent pointers.
func lcaBrute(tr *tree.Tree, i, j int) int {
	parent := make([]int, len(tr.Nodes))
	parent[tr.Root] = -1
	leaf := map[int]int{}
	for v, nd := range tr.Nodes {
		for _, c := range nd.Children {
			parent[c] = v
		}
		if nd.IsLeaf() {
			leaf[nd.Item] = v
		}
	}
	above := map[int]bool{}
	for v := leaf[i]; v >= 0; v = parent[v] {
		above[v] = true
	}
	v := leaf[j]
	for !above[v] {
		v = parent[v]
	}
	return v
}

func randomVectors(rng *rand.Rand, n, d int) [][]float64 {
	x := make([][]float64, n)
	for i := range x {
		x[i] = make([]float64, d)
		for k := range x[i] {
			x[i][k] = rng.NormFloat64() * float64(1+k)
		}
	}
	return x
}

func euclid(x [][]float64) func(i, j int) float64 {
	return func(i, j int) float64 {
		s := 0.0
		for k := range x[i] {
			s += (x[i][k] - x[j][k]) * (x[i][k] - x[j][k])
		}
		return math.Sqrt(s)
	}
}

func TestDasguptaCostBruteForce(t *testing.T) {
	// Against the definition, pair by pair with the LCA found by parent pointers: 1e-9 relative
	// (sums of up to 300 terms in a different order).
	rng := rand.New(rand.NewPCG(13, 14))
	for range 200 {
		n := 1 + rng.IntN(25)
		tr := randomBinaryOrRose(rng, n)
		x := randomVectors(rng, n, 3)
		sim := GaussianSimilarity(x)
		cost, ratio := DasguptaCost(tr, sim)
		want, total := 0.0, 0.0
		for i := range n {
			for j := i + 1; j < n; j++ {
				want += sim(i, j) * float64(len(leafItems(tr, lcaBrute(tr, i, j))))
				total += sim(i, j)
			}
		}
		if math.Abs(cost-want) > 1e-9*want {
			t.Fatalf("%s: cost %v, brute force %v", tr.Newick(nil), cost, want)
		}
		if n >= 2 && math.Abs(ratio-want/(float64(n)*total)) > 1e-9 {
			t.Fatalf("%s: ratio %v, want %v", tr.Newick(nil), ratio, want/(float64(n)*total))
		}
	}
}

func TestDasguptaCostExample(t *testing.T) {
	// Items 0,1 similar (1), all other pairs 0.1. ((0,1),2) pays 1·2 + 0.2·3 = 2.6; ((0,2),1)
	// pays 0.1·2 + 1.1·3 = 3.5; the flat tree (0,1,2) pays 1.2·3 = 3.6 and has ratio 1.
	sim := func(i, j int) float64 {
		if min(i, j) == 0 && max(i, j) == 1 {
			return 1
		}
		return 0.1
	}
	for _, c := range []struct {
		newick      string
		cost, ratio float64
	}{
		{"((0,1),2);", 2.6, 2.6 / 3.6},
		{"((0,2),1);", 3.5, 3.5 / 3.6},
		{"(0,1,2);", 3.6, 1},
	} {
		cost, ratio := DasguptaCost(newick(t, c.newick, 3), sim)
		if math.Abs(cost-c.cost) > 1e-12 || math.Abs(ratio-c.ratio) > 1e-12 {
			t.Errorf("%s: (%v, %v), want (%v, %v)", c.newick, cost, ratio, c.cost, c.ratio)
		}
	}
}

func TestGaussianSimilarityBandwidth(t *testing.T) {
	// σ² is the mean squared distance over pairs, checked by enumeration: then the mean of
	// −2·log sim over pairs is 1.
	rng := rand.New(rand.NewPCG(15, 16))
	x := randomVectors(rng, 30, 4)
	sim := GaussianSimilarity(x)
	mean, pairs := 0.0, 0
	for i := range x {
		for j := i + 1; j < len(x); j++ {
			mean += -2 * math.Log(sim(i, j))
			pairs++
		}
	}
	if mean /= float64(pairs); math.Abs(mean-1) > 1e-12 {
		t.Errorf("mean of d²/σ² over pairs = %v, want 1", mean)
	}
	if s := GaussianSimilarity([][]float64{{1, 2}, {1, 2}})(0, 1); s != 1 {
		t.Errorf("equal vectors: sim %v, want 1", s)
	}
}

// cophenetRefs are scipy 1.10.1's cophenet(linkage(X, method), pdist(X)) for 10 points, with the
// linkage matrices; the centroid one has an inversion (row 2 at 0.2794 below row 1 at 0.2802).
var cophenetRefs = []struct {
	x    [][]float64
	z    [][3]float64
	want float64
}{
	{ // average, numpy default_rng(7), coordinates rounded to 3 decimals
		[][]float64{{0.001, 0.299}, {-0.274, -0.891}, {-0.455, -0.992}, {0.06, 1.34}, {-0.492, -0.62}, {0.49, 0.357}, {0.105, -0.93}, {-0.029, 0.695}, {-1.344, -0.458}, {-1.901, -1.29}},
		[][3]float64{{1, 2, 0.2072727671451317}, {4, 10, 0.3608178776744188}, {0, 7, 0.3971347378409499}, {6, 11, 0.5390369645416021}, {5, 12, 0.5558930993986267}, {3, 14, 0.9222389091697454}, {8, 9, 1.001235736477679}, {13, 16, 1.4165471073264828}, {15, 17, 1.8748838862846642}},
		0.7834121172413404,
	},
	{ // centroid, numpy default_rng(3)
		[][]float64{{2.041, -2.556}, {0.418, -0.568}, {-0.453, -0.216}, {-2.02, -0.232}, {-0.865, 3.323}, {0.226, -0.353}, {-0.281, -0.668}, {-1.055, -0.391}, {0.482, -0.239}, {0.958, -0.2}},
		[][3]float64{{5, 8, 0.28023561515267825}, {1, 10, 0.27942798714516764}, {2, 6, 0.4836196852900015}, {9, 11, 0.6118373058982991}, {7, 12, 0.6898876720162492}, {13, 14, 1.1205618134568827}, {3, 15, 2.0671944213136326}, {0, 16, 3.1499066702443743}, {4, 17, 4.027429258484719}},
		0.9172678855701176,
	},
}

func TestCopheneticCorrelationScipy(t *testing.T) {
	// 45 pairs; a correlation of O(1) values: 1e-12.
	for _, c := range cophenetRefs {
		tr, heights := linkageTree(t, c.z)
		got, err := CopheneticCorrelation(tr, heights, euclid(c.x))
		if err != nil {
			t.Fatal(err)
		}
		if math.Abs(got-c.want) > 1e-12 {
			t.Errorf("got %.17g, scipy %.17g", got, c.want)
		}
	}
}

func TestCopheneticCorrelationBruteForce(t *testing.T) {
	// Two-pass Pearson over the pairs with the LCA by parent pointers, on rose and binary trees.
	rng := rand.New(rand.NewPCG(17, 18))
	for range 100 {
		n := 3 + rng.IntN(20)
		tr := randomBinaryOrRose(rng, n)
		heights := monotoneHeights(rng, tr)
		dist := euclid(randomVectors(rng, n, 2))
		var xs, ys []float64
		for i := range n {
			for j := i + 1; j < n; j++ {
				xs = append(xs, dist(i, j))
				ys = append(ys, heights[lcaBrute(tr, i, j)])
			}
		}
		mx, my := mean(xs), mean(ys)
		var sxy, sxx, syy float64
		for k := range xs {
			sxy += (xs[k] - mx) * (ys[k] - my)
			sxx += (xs[k] - mx) * (xs[k] - mx)
			syy += (ys[k] - my) * (ys[k] - my)
		}
		want := sxy / math.Sqrt(sxx*syy)
		if syy == 0 {
			want = math.NaN()
		}
		got, err := CopheneticCorrelation(tr, heights, dist)
		if err != nil || !(same(got, want) || math.Abs(got-want) <= 1e-12) {
			t.Fatalf("%s: got (%v, %v), want %v", tr.Newick(nil), got, err, want)
		}
	}
	tr := newick(t, "((0,1),2);", 3)
	if _, err := CopheneticCorrelation(tr, []float64{1, 2}, euclid(randomVectors(rng, 3, 2))); err == nil {
		t.Error("short heights: no error")
	}
	if _, err := CopheneticCorrelation(tr, []float64{math.Inf(1), math.Inf(1), math.Inf(1), math.Inf(1), math.Inf(1)}, euclid(randomVectors(rng, 3, 2))); err == nil {
		t.Error("infinite height: no error")
	}
}

func mean(x []float64) float64 {
	s := 0.0
	for _, v := range x {
		s += v
	}
	return s / float64(len(x))
}
