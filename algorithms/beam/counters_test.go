package beam

import (
	"context"
	"testing"

	"github.com/hcbench/hcbench/algorithms/model/modeltest"
)

// TestCounters checks the beam's counters against the model's own count of its log ψ calls (Run
// then scores the result's N − 1 splits once more), against each other (every level but the
// first expands what the level before kept; the last level's kept are the final beam), and, for
// B = 1, against the closed forms: N − 1 partial hierarchies expanded, candidates ranked and kept,
// and N(N−1)/2 + (N−1)(N−2)/2 = (N−1)² energies.
func TestCounters(t *testing.T) {
	for n := 2; n <= 10; n++ {
		for seed := range uint64(3) {
			for _, b := range []int{1, 3, n * (n - 1) / 2} {
				for _, d := range []Dedup{Structure, Float} {
					m := modeltest.Random(n, seed, 0.1)
					if seed == 0 {
						m = modeltest.Constant(n, -1) // ties: the dedup rules drop candidates
					}
					var calls int64
					psi := m.Psi
					m.Psi = func(l, r uint32) float64 { calls++; return psi(l, r) }
					r, err := Run(context.Background(), m, Options{Size: b, Dedup: d, All: true})
					if err != nil {
						t.Fatal(err)
					}
					c := r.Counters
					if c.Energies != calls-int64(n-1) {
						t.Errorf("N=%d seed %d B=%d %v: %d energies counted, the model computed %d less the %d of the result's score", n, seed, b, d, c.Energies, calls, n-1)
					}
					if c.Expanded != 1+c.Kept-int64(len(r.Trees)) || c.Ranked < c.Kept || c.Kept < int64(n-1) {
						t.Errorf("N=%d seed %d B=%d %v: counters %+v with a final beam of %d", n, seed, b, d, c, len(r.Trees))
					}
					if k := int64(n - 1); b == 1 && c != (Counters{Expanded: k, Ranked: k, Kept: k, Energies: k * k}) {
						t.Errorf("N=%d seed %d B=1 %v: counters %+v, want %d expanded, ranked and kept, %d energies", n, seed, d, c, k, k*k)
					}
				}
			}
		}
	}
}
