package linkage

import (
	"context"
	"fmt"
	"testing"
)

// uniformPoints returns n points uniform in [0, 1)^dims, coordinate k of point i from the
// (i·dims + k + 1)-th output of SplitMix64 with the given seed, the top 53 bits over 2^53. The
// generator is fixed here so that testdata/compare.py draws the same points for fastcluster and
// scipy.
func uniformPoints(n, dims int, seed uint64) [][]float64 {
	x := make([][]float64, n)
	s := seed
	for i := range x {
		x[i] = make([]float64, dims)
		for k := range x[i] {
			s += 0x9e3779b97f4a7c15
			z := s
			z = (z ^ z>>30) * 0xbf58476d1ce4e5b9
			z = (z ^ z>>27) * 0x94d049bb133111eb
			z ^= z >> 31
			x[i][k] = float64(z>>11) * 0x1p-53
		}
	}
	return x
}

func TestUniformPoints(t *testing.T) {
	// SplitMix64 from seed 0 starts 0xe220a8397b1dcdaf (Vigna's reference implementation), and
	// testdata/compare.py prints 0.8833108082136426 for the first coordinate.
	if got, want := uniformPoints(1, 1, 0)[0][0], float64(uint64(0xe220a8397b1dcdaf)>>11)*0x1p-53; got != want || got != 0.8833108082136426 {
		t.Errorf("first coordinate %v, want %v", got, want)
	}
}

// BenchmarkLinkage is every method on n points uniform in the unit square, from the points to
// the tree: the Euclidean distances, then Run, as fastcluster.linkage(X, method) and scipy's
// linkage(X, method) time them; and without distances, by Vectors, as
// fastcluster.linkage_vector(X, method) times it.
// testdata/compare.py runs them beside fastcluster and scipy.
func BenchmarkLinkage(b *testing.B) {
	for _, n := range []int{5000, 20000} {
		x := uniformPoints(n, 2, 1)
		for _, m := range methods {
			b.Run(fmt.Sprintf("n=%d/%v", n, m), func(b *testing.B) {
				for b.Loop() {
					d, err := Euclidean(context.Background(), x)
					if err != nil {
						b.Fatal(err)
					}
					if _, _, err := Run(context.Background(), n, d, m); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
		b.Run(fmt.Sprintf("n=%d/single-vectors", n), func(b *testing.B) { benchmarkVectors(b, x, Single) })
		for _, m := range []Method{Ward, Centroid, Median} {
			b.Run(fmt.Sprintf("n=%d/%v-vectors", n, m), func(b *testing.B) { benchmarkVectors(b, x, m) })
		}
	}
	// 100,000 and 200,000 points: 5 and 20 billion pairs, no distance array (40 and 160 GB).
	for _, n := range []int{100000, 200000} {
		for _, m := range []Method{Single, Ward} {
			b.Run(fmt.Sprintf("n=%d/%v-vectors", n, m), func(b *testing.B) { benchmarkVectors(b, uniformPoints(n, 2, 1), m) })
		}
	}
}

// benchmarkVectors times Vectors (SingleEuclidean for Single) on x.
func benchmarkVectors(b *testing.B, x [][]float64, m Method) {
	for b.Loop() {
		if _, _, err := Vectors(context.Background(), x, m); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkEuclidean is the distance step of BenchmarkLinkage alone, at n = 20,000: writing
// 1.6 GB, most of its time is the kernel's, faulting the pages in.
func BenchmarkEuclidean(b *testing.B) {
	x := uniformPoints(20000, 2, 1)
	for b.Loop() {
		if _, err := Euclidean(context.Background(), x); err != nil {
			b.Fatal(err)
		}
	}
}
