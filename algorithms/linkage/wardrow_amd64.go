package linkage

// wardRow2AVX2 is wardRow2Go for len(row), a positive multiple of 4, four points at a time
// (wardrow_amd64.s): the same subtractions, products, sums and quotient, each correctly rounded
// and none fused, so the distances are the same bit for bit (TestWardRow2AVX2). The quotient is
// most of the work, and a 4-lane division costs about two scalar ones.
//
//go:noescape
func wardRow2AVX2(p0, p1, nx float64, q, size, row []float64)

// wardRow2 writes the halved Ward distances of the cluster of size nx at (p0, p1) to the
// clusters of sizes size at the points of q (pairs of coordinates) into row: row[j] =
// wardOf(squared distance to (q[2j], q[2j+1]), nx, size[j]).
func wardRow2(p0, p1, nx float64, q, size, row []float64) {
	done := 0
	if useAVX2 {
		done = len(row) &^ 3
		if done > 0 {
			wardRow2AVX2(p0, p1, nx, q[:2*done], size[:done], row[:done])
		}
	}
	wardRow2Go(p0, p1, nx, q[2*done:], size[done:], row[done:])
}
