package registry

import (
	"context"
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
		{LinkageParams{Method: "median", Distance: "euclidean"}, "method"},
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
