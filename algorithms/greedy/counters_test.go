package greedy

import (
	"testing"

	"github.com/hcbench/hcbench/algorithms/model/modeltest"
)

// TestEnergies checks Result.Energies against the model's own count of its log ψ calls, and, on a
// constant ψ (every pair ties, so every merge takes the first two clusters, whose removal sends
// every other cluster back to rescan its left side), against the closed form
// N(N−1)/2 + N(N−1)(N−2)/6.
func TestEnergies(t *testing.T) {
	for n := 2; n <= 12; n++ {
		for seed := range uint64(3) {
			m := modeltest.Random(n, seed, 0.1)
			if seed == 0 {
				m = modeltest.Constant(n, -1)
			}
			var calls int64
			psi := m.Psi
			m.Psi = func(l, r uint32) float64 { calls++; return psi(l, r) }
			r := run(t, m)
			if r.Energies != calls {
				t.Errorf("N=%d seed %d: %d energies counted, the model computed %d", n, seed, r.Energies, calls)
			}
			if k := int64(n); seed == 0 && r.Energies != k*(k-1)/2+k*(k-1)*(k-2)/6 {
				t.Errorf("N=%d, constant ψ: %d energies, want N(N−1)/2 + N(N−1)(N−2)/6 = %d", n, r.Energies, k*(k-1)/2+k*(k-1)*(k-2)/6)
			}
		}
	}
}
