package bhc

import (
	"context"
	"math/rand/v2"
	"testing"
)

// BenchmarkRun1000 is the target: greedy BHC, NIW, n = 1000, d = 4.
func BenchmarkRun1000(b *testing.B) {
	m := niw(b, gaussian(b, 1, 1000, 4, 4), 20)
	b.ResetTimer()
	for range b.N {
		if _, err := Run(context.Background(), m, Prior{Alpha: 1}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkRandomized100k is the RBHC target: n = 100 000, d = 4, m = 50.
func BenchmarkRandomized100k(b *testing.B) {
	m := niw(b, gaussian(b, 1, 100000, 4, 4), 20)
	b.ResetTimer()
	for i := range b.N {
		rng := rand.New(rand.NewPCG(uint64(i), 1))
		if _, err := Randomized(context.Background(), m, Prior{Alpha: 1}, rng, RandomizedOptions{M: 50}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkEM100k is EMBHC on the same data, m = 50 clusters, 5 EM steps, clusters resolved by
// RBHC with m = 50.
func BenchmarkEM100k(b *testing.B) {
	x := gaussian(b, 1, 100000, 4, 4)
	m := niw(b, x, 20)
	b.ResetTimer()
	for i := range b.N {
		rng := rand.New(rand.NewPCG(uint64(i), 1))
		if _, err := EM(context.Background(), m, x, Prior{Alpha: 1}, rng, EMOptions{M: 50, Steps: 5, ResolveM: 50}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkExactFixed18 is the subset dynamic program at its documented comfortable size.
func BenchmarkExactFixed18(b *testing.B) {
	m := niw(b, gaussian(b, 1, 18, 3, 4), 20)
	b.ResetTimer()
	for range b.N {
		if _, err := ExactFixed(context.Background(), m, 0.5); err != nil {
			b.Fatal(err)
		}
	}
}
