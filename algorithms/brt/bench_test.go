package brt_test

import (
	"context"
	"math/rand/v2"
	"testing"

	"github.com/hcbench/hcbench/algorithms/brt"
)

// BenchmarkRun1000 times greedy BRT on n = 1000 points in d = 4 from a 4-component Gaussian
// mixture (unit variance, centres with standard deviation 3), NIWFromData(x, 10, 0.001), γ = 0.5.
func BenchmarkRun1000(b *testing.B) {
	rng := rand.New(rand.NewPCG(1000, 4))
	m := niw(b, gaussian(rng, 1000, 4, 4, 3), 10)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := brt.Run(context.Background(), m, brt.Options{Gamma: 0.5}); err != nil {
			b.Fatal(err)
		}
	}
}
