//go:build !amd64

package linkage

// wardRow2 writes the halved Ward distances of the cluster of size nx at (p0, p1) to the
// clusters of sizes size at the points of q into row (see the amd64 version).
func wardRow2(p0, p1, nx float64, q, size, row []float64) { wardRow2Go(p0, p1, nx, q, size, row) }
