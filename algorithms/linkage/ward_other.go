//go:build !amd64

package linkage

// wardSpan writes the Ward update of merge u for each slot s of slots: d[ty[s]+qy] becomes
// u.ward(d[tx[s]+qx], d[ty[s]+qy], size[s]) (see the amd64 version).
func wardSpan(d []float64, tx, ty []int, qx, qy int, slots []int32, size []float64, u *update) {
	wardSpanGo(d, tx, ty, qx, qy, slots, size, u)
}
