package linkage

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestDistRow2AVX2 compares distRow2, with its vector loop, with distRow2Go bit for bit, on rows
// of every length up to 40 (the vector loop's multiples of 8 and the scalar tails) of points at
// scales from 1e−160 to 1e160, where squares underflow, lose digits or overflow.
func TestDistRow2AVX2(t *testing.T) {
	if !useAVX2 {
		t.Skip("no AVX2")
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for _, scale := range []float64{1, 1e-160, 1e-3, 1e8, 1e160} {
		for n := range 41 {
			q := make([]float64, 2*n)
			for k := range q {
				q[k] = scale * (rng.Float64()*2 - 1)
			}
			p0, p1 := scale*rng.NormFloat64(), scale*rng.NormFloat64()
			if n > 3 { // a point equal to p: distance 0
				q[4], q[5] = p0, p1
			}
			got, want := make([]float64, n), make([]float64, n)
			distRow2(p0, p1, q, got)
			distRow2Go(p0, p1, q, want)
			for j := range want {
				if math.Float64bits(got[j]) != math.Float64bits(want[j]) {
					t.Fatalf("scale %g, n = %d, entry %d: %v, want %v", scale, n, j, got[j], want[j])
				}
			}
		}
	}
}
