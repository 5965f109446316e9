package sparsetrellis

import (
	"context"
	"math/rand/v2"
	"testing"

	"github.com/hcbench/hcbench/algorithms/greedy"
	"github.com/hcbench/hcbench/algorithms/model/modeltest"
	"github.com/hcbench/hcbench/algorithms/tree"
)

// TestCounters checks Result.Energies against the model's own count of its log ψ calls (Run then
// scores the result's N − 1 splits once more), and Subsets and Splits against the full trellis's
// closed forms, 2^N − N − 1 and (3^N − 2^(N+1) + 1)/2, where every cluster gets all its splits;
// with larger items, the sampled cuts take energies of their own.
func TestCounters(t *testing.T) {
	for _, c := range []struct {
		n, allPairs int
		full        bool
	}{{4, 4, true}, {7, 8, true}, {9, 9, true}, {12, 4, false}, {16, 6, false}} {
		m := modeltest.Random(c.n, uint64(c.n), 0.1)
		g, err := greedy.Run(context.Background(), m)
		if err != nil {
			t.Fatal(err)
		}
		var calls int64
		psi := m.Psi
		m.Psi = func(l, r uint32) float64 { calls++; return psi(l, r) }
		r, err := Run(context.Background(), m, rand.New(rand.NewPCG(1, 2)), Options{
			Seeds: []*tree.Tree{g.Tree}, AllPairsMaxSize: c.allPairs, SplitsTried: 25, SplitsKept: 15, MaxClusters: 1 << 20,
		})
		if err != nil {
			t.Fatal(err)
		}
		if r.Energies != calls-int64(c.n-1) {
			t.Errorf("N=%d: %d energies counted, the model computed %d less the %d of the result's score", c.n, r.Energies, calls, c.n-1)
		}
		if r.Subsets != r.Clusters-c.n {
			t.Errorf("N=%d: %d subsets of %d clusters", c.n, r.Subsets, r.Clusters)
		}
		k := int64(c.n)
		pow := func(b int64) int64 {
			p := int64(1)
			for range k {
				p *= b
			}
			return p
		}
		if c.full && (int64(r.Subsets) != pow(2)-k-1 || int64(r.Splits) != (pow(3)-2*pow(2)+1)/2 || r.Energies != int64(r.Splits)) {
			t.Errorf("N=%d, all splits: %d subsets, %d splits, %d energies, want %d, %d and %d", c.n, r.Subsets, r.Splits, r.Energies, pow(2)-k-1, (pow(3)-2*pow(2)+1)/2, (pow(3)-2*pow(2)+1)/2)
		}
		if !c.full && r.Energies <= int64(r.Splits) {
			t.Errorf("N=%d: %d energies for %d splits: the cuts drawn and dropped were not counted", c.n, r.Energies, r.Splits)
		}
	}
}
