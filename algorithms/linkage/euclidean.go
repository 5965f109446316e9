package linkage

import (
	"context"
	"math"
)

// Euclidean returns the Euclidean distances between the rows of x as a condensed array (see
// Run), computed as scipy.spatial.distance.pdist computes them: the root of the sum of the
// squared differences, in coordinate order. The rows must have equal lengths and finite
// entries; Euclidean returns an error otherwise, for no rows, or ctx.Err() once ctx is done
// (looked at once per row). Points in the plane go through a vector loop on processors with
// AVX2 (distRow2), with the same distances bit for bit.
//
// On Linux the array is backed by transparent huge pages where the system allows it (see
// NewCondensed).
func Euclidean(ctx context.Context, x [][]float64) ([]float64, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	pts, err := flatten(x)
	if err != nil {
		return nil, err
	}
	n, dims := len(x), len(x[0])
	d := NewCondensed(n)
	k := 0
	for i := range n {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		p := pts[i*dims : (i+1)*dims]
		row := d[k : k+n-1-i]
		if dims == 2 {
			distRow2(p[0], p[1], pts[(i+1)*2:], row)
		} else {
			for j := range row {
				row[j] = math.Sqrt(sqDist(p, pts[(i+1+j)*dims:(i+2+j)*dims]))
			}
		}
		k += len(row)
	}
	return d, nil
}

// distRow2Go is distRow2 in Go: the root of u² + w², each square rounded (not fused into a
// multiply-add, which pdist does not use).
func distRow2Go(p0, p1 float64, q, row []float64) {
	q = q[:2*len(row)]
	for j := range row {
		u, w := p0-q[2*j], p1-q[2*j+1]
		row[j] = math.Sqrt(float64(u*u) + float64(w*w))
	}
}

// sqDist returns the squared Euclidean distance of a and b, summed in coordinate order. The
// float64 conversion rounds each square, so that no compiler fuses it into a multiply-add (which
// pdist does not use).
func sqDist(a, b []float64) float64 {
	b = b[:len(a)]
	s := 0.0
	for k, v := range a {
		u := v - b[k]
		s += float64(u * u)
	}
	return s
}

// NewCondensed returns a zeroed condensed array for n items (see Run), of n(n−1)/2 float64. On
// Linux it asks the kernel to back the array with transparent huge pages (madvise
// MADV_HUGEPAGE, which a system in THP mode "madvise" needs, as numpy asks for its large
// arrays): the linkages read the array down columns, one page per entry, and with 4 KiB pages
// nearly every such read misses the TLB.
func NewCondensed(n int) []float64 {
	d := make([]float64, n*(n-1)/2)
	adviseHugePages(d)
	return d
}
