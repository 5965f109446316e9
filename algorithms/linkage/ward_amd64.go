package linkage

// wardAVX2 is wardSpanGo for the first n slots, n a positive multiple of 4, four at a time
// (ward_amd64.s), with w = (nx, ny, nx+ny, dxy) of u. The update's operations are wardSpanGo's,
// each correctly rounded and none fused, with 1/(nx+ny+ns) divided where update.ward looks it up
// in a table of the same quotients, so the distances are the same bit for bit (TestWardSpan).
// The roots and divisions of four slots cost about those of two.
//
//go:noescape
func wardAVX2(d *float64, tx, ty *int, qx, qy int, slots *int32, n int, size *float64, w *[4]float64)

// wardSpan writes the Ward update of merge u for each slot s of slots: d[ty[s]+qy] becomes
// u.ward(d[tx[s]+qx], d[ty[s]+qy], size[s]). tx and ty are the row offsets (for a column) or
// the identity (for a row), qx and qy the column or the row offset: the three spans of a merge
// (see chainState.merge). The positions must be in d.
func wardSpan(d []float64, tx, ty []int, qx, qy int, slots []int32, size []float64, u *update) {
	done := 0
	if useAVX2 {
		done = len(slots) &^ 3
		if done > 0 {
			w := [4]float64{u.nx, u.ny, u.nxy, u.dxy}
			wardAVX2(&d[0], &tx[0], &ty[0], qx, qy, &slots[0], done, &size[0], &w)
		}
	}
	wardSpanGo(d, tx, ty, qx, qy, slots[done:], size, u)
}
