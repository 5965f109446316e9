package trellis

import (
	"math"
	"math/rand/v2"
	"testing"
)

// ulp returns the spacing of float64s at |x|.
func ulp(x float64) float64 {
	x = math.Abs(x)
	return math.Nextafter(x, math.Inf(1)) - x
}

func TestFastMath(t *testing.T) {
	// logRecip and expNeg against the math package, over their whole domains: 3·10^5 points
	// log-uniform in x ∈ [2^−1000, 2^1000) and uniform in [−708, 0], then the edges. Tolerances,
	// each about twice the largest error seen over 10^7 points:
	//   - log x to 3 ulp of max(|log x|, 1): the error is absolute near x = 1, where log x → 0
	//     (the trellis adds these logs to sums of order 1 to 100, so absolute error is what
	//     matters);
	//   - 1/x to 2^−51 relative (1 ulp seen);
	//   - e^x to 5 ulp of math.Exp's result (4 seen, rarely).
	checkLog := func(x float64) {
		t.Helper()
		lx, inv := logRecip(x)
		want := math.Log(x)
		if d := math.Abs(lx - want); !(d <= 3*ulp(max(math.Abs(want), 1))) {
			t.Errorf("logRecip(%v): log %v, math.Log %v (%.3g ulp)", x, lx, want, d/ulp(max(math.Abs(want), 1)))
		}
		if d := math.Abs(inv*x - 1); !(d <= 0x1p-51) {
			t.Errorf("logRecip(%v): 1/x %v, relative error %.3g", x, inv, d)
		}
	}
	checkExp := func(x float64) {
		t.Helper()
		got, want := expNeg(x), math.Exp(x)
		if d := math.Abs(got - want); !(d <= 5*ulp(want)) {
			t.Errorf("expNeg(%v) = %v, math.Exp %v (%.3g ulp)", x, got, want, d/ulp(want))
		}
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for range 300_000 {
		checkLog(math.Exp2(-1000 + 2000*rng.Float64()))
		checkExp(-708 * rng.Float64())
	}

	lo, hi := math.Exp2(-1000), math.Exp2(1000)
	edges := []float64{lo, math.Nextafter(lo, 2), 1.5 * lo, 1e-300, 1e-10, 0.5, math.Nextafter(1, 0), 1,
		math.Nextafter(1, 2), 1 + 1e-12, 2, math.E, 1e10, 1e300, math.Nextafter(hi, 0)}
	// Both sides of every table bin edge, 1 + j/1024, where the table index changes.
	for j := range tableSize {
		m := 1 + float64(j)/tableSize
		edges = append(edges, m, math.Nextafter(m, 0), 3*m, math.Nextafter(m, 0)/7)
	}
	for _, x := range edges {
		checkLog(x)
	}
	for _, x := range []float64{0, math.Copysign(0, -1), -math.SmallestNonzeroFloat64, -1e-300, -1e-17, -0x1p-53,
		-math.Ln2 / 128, -math.Ln2 / 64, -1, -math.Ln2, -10, -700, -707.9, math.Nextafter(-708, 0), -708} {
		checkExp(x)
	}
	if expNeg(0) != 1 {
		t.Errorf("expNeg(0) = %v, want 1 exactly", expNeg(0))
	}
	// Below −708 (e^x subnormal or 0), at −Inf and at NaN (−Inf − (−Inf)): 0.
	for _, x := range []float64{math.Nextafter(-708, -709), -709, -745.2, -1e300, math.Inf(-1), math.NaN()} {
		if got := expNeg(x); got != 0 {
			t.Errorf("expNeg(%v) = %v, want 0", x, got)
		}
	}
}
