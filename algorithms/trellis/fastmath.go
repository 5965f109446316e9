package trellis

import "math"

// Fast, accurate log, reciprocal and exp for the inner loops. math.Log and math.Exp are assembly
// functions that Go never inlines, and a call costs far more than the arithmetic around it
// (../shared/design/trellis-performance.md); these are small enough to inline and accurate to a
// few ulp, which TestFastMath checks against the math package.

const (
	tableBits = 10
	tableSize = 1 << tableBits
	ln2Hi     = 6.93147180369123816490e-01 // ln 2 split so that e·ln2Hi is exact for |e| < 2^20
	ln2Lo     = 1.90821492927058770002e-10
)

// logTable[j] = −log(invTable[j]), invTable[j] ≈ 1/(1 + (j+½)/tableSize): the mantissa m of x lies
// in [1 + j/tableSize, 1 + (j+1)/tableSize), so r = m·invTable[j] − 1 is below 2^−11 in size.
var logTable, invTable [tableSize]float64

// expTable[k] = 2^(k/64).
var expTable [64]float64

func init() {
	for j := range tableSize {
		inv := 1 / (1 + (float64(j)+0.5)/tableSize)
		// Keep 20 significant bits so that m·inv is exact in float64 (m has 53 bits).
		inv = math.Ldexp(math.Round(math.Ldexp(inv, 20)), -20)
		invTable[j] = inv
		logTable[j] = -math.Log(inv)
	}
	for k := range expTable {
		expTable[k] = math.Exp2(float64(k) / 64)
	}
}

// logRecip returns log x and 1/x for a normal, positive, finite x (x ≥ 2^−1000 and x < 2^1000).
// Callers route other values through math.Log.
func logRecip(x float64) (logx, inv float64) {
	b := math.Float64bits(x)
	e := int64(b>>52) - 1023
	j := (b >> (52 - tableBits)) & (tableSize - 1)
	m := math.Float64frombits(b&(1<<52-1) | 1023<<52)
	ij := invTable[j]
	r := m*ij - 1
	// log1p(r) to degree 4 (|r| < 2^−11: the next term is below 6e−18) and 1/(1+r) to degree 4.
	p := r - r*r*(0.5-r*(1.0/3-r*0.25))
	q := 1 - r*(1-r*(1-r*(1-r)))
	fe := float64(e)
	logx = fe*ln2Hi + (fe*ln2Lo + logTable[j] + p)
	inv = ij * q * math.Float64frombits(uint64(1023-e)<<52)
	return logx, inv
}

// expNeg returns e^x for x ≤ 0; it is 0 below −708 (where e^x is subnormal or zero) and for NaN,
// which −Inf − (−Inf) gives when a term and the running maximum are both −Inf.
func expNeg(x float64) float64 {
	if !(x >= -708) {
		return 0
	}
	// x = (k/64)·ln 2 + r with |r| ≤ ln2/128; e^x = 2^(k>>6) · 2^((k&63)/64) · e^r. k rounds
	// x·64/ln2 to nearest by truncating y − ½ (y ≤ 0), which, unlike math.Floor, needs no
	// SSE4.1 to inline.
	ki := int64(x*(64/math.Ln2) - 0.5)
	k := float64(ki)
	r := x - k*(ln2Hi/64) - k*(ln2Lo/64)
	// e^r to degree 6 (the next term is below 2e−20), in Estrin's form, whose shallow dependency
	// chain matters in the trellis's inner loop.
	r2 := r * r
	p := (1 + r) + r2*(0.5+r*(1.0/6)) + r2*r2*((1.0/24+r*(1.0/120))+r2*(1.0/720))
	return p * expTable[ki&63] * math.Float64frombits(uint64(1023+(ki>>6))<<52)
}
