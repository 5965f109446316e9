package registry

import (
	"context"
	"maps"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/hcbench/hcbench/experiments/item"
	"github.com/hcbench/hcbench/experiments/metric"
)

// solveTwice solves the task of the vectors x with the algorithm's parameters p twice, from the
// same seed, checks that both return exactly the declared counters, with valid keys, non-negative
// and equal, and returns them.
func solveTwice(t *testing.T, name string, p Params, x [][]float64) map[string]int64 {
	t.Helper()
	alg, ok := LookupAlgorithm(name)
	if !ok {
		t.Fatalf("no algorithm %s", name)
	}
	var ch checker
	p.Check(&ch)
	if len(ch.bad) > 0 {
		t.Fatalf("%s: %s", name, strings.Join(ch.bad, "; "))
	}
	var declared []string
	for _, c := range alg.Counters {
		if !metric.ValidCounterKey(c.Key) || c.Help == "" {
			t.Errorf("%s: counter %q with help %q", name, c.Key, c.Help)
		}
		declared = append(declared, c.Key)
	}
	slices.Sort(declared)
	var first map[string]int64
	for rep := range 2 {
		s, err := alg.Start(p, Run{})
		if err != nil {
			t.Fatal(err)
		}
		sol, err := s.Solve(context.Background(), Task{Item: &item.Item{Vectors: x}, RNG: rand.New(rand.NewPCG(7, 7))})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if got := slices.Sorted(maps.Keys(sol.Counters)); !slices.Equal(got, declared) || len(declared) == 0 {
			t.Errorf("%s: counters %v, declared %v", name, got, declared)
		}
		for k, v := range sol.Counters {
			if v < 0 {
				t.Errorf("%s: counter %s is %d", name, k, v)
			}
		}
		if rep == 0 {
			first = sol.Counters
		} else if !maps.Equal(first, sol.Counters) {
			t.Errorf("%s: counters %v, then %v from the same seed", name, first, sol.Counters)
		}
	}
	return first
}

// blobs returns n points in dims coordinates around k centres, and their 0/1 signs.
func blobs(n, dims, k int) (x, bin [][]float64) {
	rng := rand.New(rand.NewPCG(uint64(n), 3))
	for i := range n {
		row, b := make([]float64, dims), make([]float64, dims)
		for j := range row {
			row[j] = float64(4*(i%k)) + rng.NormFloat64()
			if row[j] > float64(2*k) {
				b[j] = 1
			}
		}
		x, bin = append(x, row), append(bin, b)
	}
	return x, bin
}

// TestBayesianAndLinkageCounters: every Bayesian algorithm and every linkage returns exactly the
// counters it declares, the same from the same seed; greedy BHC's have their closed forms (n²
// marginal likelihoods, (n−1)² merges scored on n points), also summed over the runs of the cc
// search (a multiple k ≥ 2 of both, with the same k), and so do the exact program's and the
// distance array's Lance–Williams updates.
func TestBayesianAndLinkageCounters(t *testing.T) {
	const n = 40
	x, bin := blobs(n, 3, 3)
	cm := func(model string, cc CC) ClusterModel {
		return ClusterModel{Model: model, NIW: NIWPrior{Kappa0: 0.001}, CC: cc}
	}
	bhcP := BHCParams{Prior: "dp", Alpha: 1, Pi: 0.5, ClusterModel: cm("niw", CC{Value: 1}), Cut: "top_down"}
	c := solveTwice(t, "bhc", &bhcP, x)
	if c["marginal_likelihoods"] != n*n || c["merges_scored"] != (n-1)*(n-1) {
		t.Errorf("bhc on %d points: %v, want n² = %d and (n−1)² = %d", n, c, n*n, (n-1)*(n-1))
	}
	opt := bhcP
	opt.ClusterModel = cm("bernoulli", CC{Optimise: true})
	c = solveTwice(t, "bhc", &opt, bin)
	if k := c["marginal_likelihoods"] / (n * n); k < 2 || c["marginal_likelihoods"] != k*n*n || c["merges_scored"] != k*(n-1)*(n-1) {
		t.Errorf("bhc with cc: optimise: %v, want k·n² and k·(n−1)² for the k ≥ 2 runs of the search", c)
	}
	solveTwice(t, "rbhc", &RBHCParams{BHCParams: bhcP, M: 8, Base: 1, Filter: "note"}, x)
	solveTwice(t, "rbhc", &RBHCParams{BHCParams: bhcP, M: 8, Base: 1, Filter: "logodds"}, x)
	solveTwice(t, "embhc", &EMBHCParams{BHCParams: bhcP, M: 5, Steps: 3, ResolveM: 4, ResolveBase: 1}, x)
	solveTwice(t, "brt", &BRTParams{Gamma: 0.5, ClusterModel: cm("niw", CC{Value: 1})}, x)
	const small = 8
	c = solveTwice(t, "bhc_exact", &BHCExactParams{Pi: 0.5, ClusterModel: cm("niw", CC{Value: 1}), Cut: "top_down"}, x[:small])
	if c["splits"] != (6561-512+1)/2 || c["marginal_likelihoods"] != 255+2*small-1 {
		t.Errorf("bhc_exact on %d points: %v, want (3^8 − 2^9 + 1)/2 = 3025 splits and 2^8 − 1 + 15 marginal likelihoods", small, c)
	}
	for _, p := range []LinkageParams{
		{Method: "average", Distance: "euclidean"}, {Method: "complete", Distance: "euclidean"},
		{Method: "ward", Distance: "euclidean"}, {Method: "ward", Distance: "euclidean", Vectors: true},
		{Method: "single", Distance: "euclidean"}, {Method: "centroid", Distance: "euclidean"}, {Method: "median", Distance: "euclidean"},
	} {
		c := solveTwice(t, "linkage", &p, x)
		switch {
		case p.Method == "single" && c["distance_updates"] != n*(n-1)/2,
			p.Method != "single" && !p.fromVectors() && c["distance_updates"] != (n-1)*(n-2)/2,
			p.Vectors && c["distance_updates"] != 0,
			c["neighbour_scans"] < n-1:
			t.Errorf("linkage %+v on %d points: %v", p, n, c)
		}
	}
}
