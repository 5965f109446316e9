package brt_test

import (
	"context"
	"math/rand/v2"
	"testing"

	"github.com/hcbench/hcbench/algorithms/brt"
)

// BenchmarkRun1000 times greedy BRT on n = 1000 points in d = 4 from a 4-component Gaussian
// mixture (unit variance, centres with standard deviation 3), NIWFromData(x, 10, 0.001), γ = 0.5.
func BenchmarkRun1000(b *testing.B) { benchmarkRun(b, 1000) }

// BenchmarkRun2000, BenchmarkRun4000 and BenchmarkRun10000 time BRT on the same kind of data at
// the sizes where its memory matters (issue 15: 2 GB at n = 10 000); their peak memory is
// measured by running one iteration under /usr/bin/time -v.
func BenchmarkRun2000(b *testing.B)  { benchmarkRun(b, 2000) }
func BenchmarkRun4000(b *testing.B)  { benchmarkRun(b, 4000) }
func BenchmarkRun10000(b *testing.B) { benchmarkRun(b, 10000) }

func benchmarkRun(b *testing.B, n int) {
	rng := rand.New(rand.NewPCG(uint64(n), 4))
	m := niw(b, gaussian(rng, n, 4, 4, 3), 10)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := brt.Run(context.Background(), m, brt.Options{Gamma: 0.5}); err != nil {
			b.Fatal(err)
		}
	}
}
