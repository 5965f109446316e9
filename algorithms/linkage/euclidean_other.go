//go:build !amd64

package linkage

// useAVX2 is false: there is no AVX2 here.
const useAVX2 = false

// distRow2 writes the distances of the point (p0, p1) to the points of q, pairs of coordinates,
// into row: row[j] is the distance to (q[2j], q[2j+1]).
func distRow2(p0, p1 float64, q, row []float64) { distRow2Go(p0, p1, q, row) }
