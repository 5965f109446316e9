package registry

import (
	"context"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/hcbench/hcbench/algorithms/linkage"
	"github.com/hcbench/hcbench/experiments/item"
)

// TestLinkageWard: ward is a method of linkage; it is refused with distance: weights and on data
// sets without feature vectors (a config error: it can run on none of their items), and on
// vectors it gives linkage.Run's Ward tree, as single linkage gives Run's single-linkage tree
// without a distance array.
func TestLinkageWard(t *testing.T) {
	for _, c := range []struct {
		p    LinkageParams
		want string
	}{
		{LinkageParams{Method: "ward", Distance: "euclidean"}, ""},
		{LinkageParams{Method: "ward", Distance: "weights"}, "method: ward needs distance: euclidean"},
		{LinkageParams{Method: "weighted", Distance: "euclidean"}, "method"},
		{LinkageParams{Method: "median", Distance: "weights"}, "method: median needs distance: euclidean"},
		{LinkageParams{Method: "centroid", Distance: "euclidean"}, ""},
		{LinkageParams{Method: "ward", Distance: "euclidean", Vectors: true}, ""},
		{LinkageParams{Method: "average", Distance: "euclidean", Vectors: true}, "vectors: is for method: ward"},
	} {
		var ch checker
		c.p.Check(&ch)
		if got := strings.Join(ch.bad, "; "); c.want == "" && got != "" || !strings.Contains(got, c.want) {
			t.Errorf("%+v: %q, want %q", c.p, got, c.want)
		}
	}
	alg, ok := LookupAlgorithm("linkage")
	if !ok {
		t.Fatal("no linkage algorithm")
	}
	ward, average := &LinkageParams{Method: "ward", Distance: "euclidean"}, &LinkageParams{Method: "average", Distance: "euclidean"}
	jets := item.Size{Items: 3, MinLeaves: 5, MaxLeaves: 9, Jets: true}
	if why := alg.CannotRun(ward, jets, 7, Run{}); !strings.Contains(why, "ward linkage needs feature vectors") {
		t.Errorf("ward on jets: %q", why)
	}
	if why := alg.CannotRun(average, jets, 7, Run{}); why != "" {
		t.Errorf("average on jets: %q (a task error, as before)", why)
	}
	if why := alg.CannotRun(ward, item.Size{Items: 1, MinLeaves: 50, MaxLeaves: 50, Dims: 2}, 50, Run{}); why != "" {
		t.Errorf("ward on vectors: %q", why)
	}
	// Memory: the condensed array and 128 bytes a leaf; single linkage of vectors keeps no
	// distances, only a copy of the points.
	if got := alg.Memory(ward, item.Size{Dims: 3}, 1000); got != 8*1000*999/2+128*1000 {
		t.Errorf("ward memory at n = 1000: %d", got)
	}
	if got := alg.Memory(&LinkageParams{Method: "single", Distance: "euclidean"}, item.Size{Dims: 3}, 1000); got != (128+8*3)*1000 {
		t.Errorf("single linkage of vectors: memory %d, want %d", got, (128+8*3)*1000)
	}

	rng := rand.New(rand.NewPCG(1, 2))
	x := make([][]float64, 40)
	for i := range x {
		x[i] = []float64{float64(rng.IntN(4)), float64(rng.IntN(4))} // ties
	}
	for _, m := range []linkage.Method{linkage.Ward, linkage.Single} {
		sol, err := solveLinkage(context.Background(), &LinkageParams{Method: m.String(), Distance: "euclidean"}, Task{Item: &item.Item{Vectors: x}}, Run{})
		if err != nil {
			t.Fatal(err)
		}
		d, err := linkage.Euclidean(context.Background(), x)
		if err != nil {
			t.Fatal(err)
		}
		want, _, err := linkage.Run(context.Background(), len(x), d, m)
		if err != nil {
			t.Fatal(err)
		}
		if got := sol.Tree.Newick(nil); got != want.Newick(nil) || !slices.Equal(sol.Tree.Nodes[len(x)].Children, want.Nodes[len(x)].Children) {
			t.Errorf("%v: tree %s, want %s", m, got, want.Newick(nil))
		}
	}
}

// TestLinkageVectors: ward with vectors: true, centroid and median run from the feature vectors
// (linkage.Vectors, O(n·d) memory, estimated as such), and the linkages that need the distance
// array are refused, naming those that do not, on items whose array exceeds what the process
// may use.
func TestLinkageVectors(t *testing.T) {
	alg, _ := LookupAlgorithm("linkage")
	rng := rand.New(rand.NewPCG(3, 4))
	x := make([][]float64, 60)
	for i := range x {
		x[i] = []float64{rng.NormFloat64(), rng.NormFloat64(), rng.NormFloat64()}
	}
	huge := item.Size{Items: 1, MinLeaves: 10_000_000, MaxLeaves: 10_000_000, Dims: 3}
	for _, c := range []struct {
		p LinkageParams
		m linkage.Method
	}{
		{LinkageParams{Method: "ward", Distance: "euclidean", Vectors: true}, linkage.Ward},
		{LinkageParams{Method: "centroid", Distance: "euclidean"}, linkage.Centroid},
		{LinkageParams{Method: "median", Distance: "euclidean"}, linkage.Median},
		{LinkageParams{Method: "single", Distance: "euclidean"}, linkage.Single},
	} {
		sol, err := solveLinkage(t.Context(), &c.p, Task{Item: &item.Item{Vectors: x}}, Run{})
		if err != nil {
			t.Fatal(err)
		}
		want, h, err := linkage.Vectors(t.Context(), x, c.m)
		if err != nil {
			t.Fatal(err)
		}
		if sol.Tree.Newick(nil) != want.Newick(nil) || !slices.Equal(sol.Heights[len(x):], h) {
			t.Errorf("%s: tree %s, want %s", c.p.Method, sol.Tree.Newick(nil), want.Newick(nil))
		}
		if got, want := alg.Memory(&c.p, item.Size{Dims: 3}, 1000), int64((128+8*3)*1000); got != want {
			t.Errorf("%s: memory %d at n = 1000, want %d", c.p.Method, got, want)
		}
		if why := alg.CannotRun(&c.p, huge, 10_000_000, Run{}); why != "" {
			t.Errorf("%s of 10,000,000 vectors: %q", c.p.Method, why)
		}
	}
	for _, method := range []string{"average", "complete", "ward"} {
		p := &LinkageParams{Method: method, Distance: "euclidean"}
		why := alg.CannotRun(p, huge, 10_000_000, Run{})
		for _, want := range []string{method + " linkage of 10,000,000 points needs 363.8 TiB for its distance matrix, more than the ", "; ward (with vectors: true), centroid, median and single linkage of feature vectors run in O(n·d) memory"} {
			if !strings.Contains(why, want) {
				t.Errorf("%s of 10,000,000 points: %q, want %q in it", method, why, want)
			}
		}
	}
}

// TestLinkageHeights: Solution.Heights is indexed by node, 0 for the leaves and a merge's height
// for the node it created; Ward's are non-decreasing up the tree and from leaf to root, on both
// paths (distances and vectors), and weights-based linkage has them too.
func TestLinkageHeights(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	x := make([][]float64, 50)
	for i := range x {
		x[i] = []float64{rng.NormFloat64(), rng.NormFloat64()}
	}
	for _, vectors := range []bool{false, true} {
		sol, err := solveLinkage(t.Context(), &LinkageParams{Method: "ward", Distance: "euclidean", Vectors: vectors}, Task{Item: &item.Item{Vectors: x}}, Run{})
		if err != nil {
			t.Fatal(err)
		}
		n := len(x)
		if len(sol.Heights) != len(sol.Tree.Nodes) {
			t.Fatalf("vectors %v: %d heights for %d nodes", vectors, len(sol.Heights), len(sol.Tree.Nodes))
		}
		d, _ := linkage.Euclidean(t.Context(), x)
		_, h, _ := linkage.Run(t.Context(), n, d, linkage.Ward)
		for v, nd := range sol.Tree.Nodes {
			switch {
			case v < n && sol.Heights[v] != 0:
				t.Errorf("vectors %v: leaf %d at height %v", vectors, v, sol.Heights[v])
			case v >= n && math.Abs(sol.Heights[v]-h[v-n]) > 1e-12*h[v-n]:
				t.Errorf("vectors %v: node %d at %v, merge %d of linkage.Run at %v", vectors, v, sol.Heights[v], v-n, h[v-n])
			}
			for _, c := range nd.Children {
				if sol.Heights[c] > sol.Heights[v] {
					t.Errorf("vectors %v: node %d at %v below its child %d at %v", vectors, v, sol.Heights[v], c, sol.Heights[c])
				}
			}
		}
	}
}
