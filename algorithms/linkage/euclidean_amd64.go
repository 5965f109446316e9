package linkage

import "golang.org/x/sys/cpu"

// useAVX2 says that distRow2 may use distRow2AVX2: the processor has AVX2.
var useAVX2 = cpu.X86.HasAVX2

// distRow2AVX2 is distRow2Go for the first len(row) &^ 7 entries of row, eight at a time with
// 4-lane vectors (euclidean_amd64.s): the same subtractions, products, sum and root, each
// correctly rounded and none fused, so the distances are the same bit for bit
// (TestDistRow2AVX2). The square root is most of the work, and a 4-lane root costs about two
// scalar ones.
//
//go:noescape
func distRow2AVX2(p0, p1 float64, q, row []float64)

// distRow2 writes the distances of the point (p0, p1) to the points of q, pairs of coordinates,
// into row: row[j] is the distance to (q[2j], q[2j+1]).
func distRow2(p0, p1 float64, q, row []float64) {
	done := 0
	if useAVX2 {
		done = len(row) &^ 7
		if done > 0 {
			distRow2AVX2(p0, p1, q[:2*done], row[:done])
		}
	}
	distRow2Go(p0, p1, q[2*done:], row[done:])
}
