package bhc

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"
)

// BenchmarkRun1000 is the target: greedy BHC, NIW, n = 1000, d = 4.
func BenchmarkRun1000(b *testing.B) { benchmarkRun(b, 1000) }

// BenchmarkRun2000, BenchmarkRun4000 and BenchmarkRun10000 time greedy BHC on the same data at
// the sizes where its memory matters (issue 15: 2 GB at n = 10 000); run one per process for
// its peak RSS:
//
//	go test -run XXX -bench 'Run10000$' -benchtime 1x ./algorithms/bhc/
func BenchmarkRun2000(b *testing.B)  { benchmarkRun(b, 2000) }
func BenchmarkRun4000(b *testing.B)  { benchmarkRun(b, 4000) }
func BenchmarkRun10000(b *testing.B) { benchmarkRun(b, 10000) }

func benchmarkRun(b *testing.B, n int) {
	m := niw(b, gaussian(b, 1, n, 4, 4), 20)
	defer reportRusage(b)()
	for range b.N {
		if _, err := Run(context.Background(), m, Prior{Alpha: 1}); err != nil {
			b.Fatal(err)
		}
	}
}

// reportRusage resets b's timer and returns a function that reports the CPU seconds per
// iteration since (user + system, all threads: wall time is noisy on a shared machine) and the
// process's peak RSS in MB, which covers the data set and every benchmark run before in the same
// process: run one benchmark per process to read it.
func reportRusage(b *testing.B) func() {
	b.ResetTimer()
	cpu0, _, ok := rusage(b)
	return func() {
		b.StopTimer()
		cpu1, rss, ok1 := rusage(b)
		if ok && ok1 {
			b.ReportMetric((cpu1-cpu0).Seconds()/float64(b.N), "cpu-s/op")
			b.ReportMetric(float64(rss)/1e6, "peak-RSS-MB")
		}
	}
}

// BenchmarkRandomized100k is the RBHC target: n = 100 000, d = 4, m = 50, with the
// recursion stopping at sets of 4m points (base=4, the harness's default) and at m points
// (base=1, Bioconductor's rule and this package's zero value).
func BenchmarkRandomized100k(b *testing.B) { benchmarkRandomized(b, 100000) }

// BenchmarkRandomized10k, BenchmarkRandomized300k and BenchmarkRandomized1M are RBHC on fewer
// and more points of the same mixture, for the growth of its time with n (issue 15: n log n to a
// million points). Benchmarks run only when named by -bench; the million takes about a minute.
func BenchmarkRandomized10k(b *testing.B)  { benchmarkRandomized(b, 10000) }
func BenchmarkRandomized300k(b *testing.B) { benchmarkRandomized(b, 300000) }
func BenchmarkRandomized1M(b *testing.B)   { benchmarkRandomized(b, 1000000) }

func benchmarkRandomized(b *testing.B, n int) {
	m := niw(b, gaussian(b, 1, n, 4, 4), 20)
	for _, base := range []int{4, 1} {
		b.Run(fmt.Sprintf("base=%d", base), func(b *testing.B) {
			defer reportRusage(b)()
			for i := range b.N {
				rng := rand.New(rand.NewPCG(uint64(i), 1))
				o := RandomizedOptions{M: 50, Base: base}
				if _, err := Randomized(context.Background(), m, Prior{Alpha: 1}, rng, o); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkEM100k is EMBHC on the same data, m = 50 clusters, 5 EM steps, clusters resolved by
// RBHC with m = 50 and Base 4 (resolve_base=4, the harness's default) or 1.
func BenchmarkEM100k(b *testing.B) { benchmarkEM(b, 100000) }

// BenchmarkEM10k, BenchmarkEM300k and BenchmarkEM1M are EMBHC on fewer and more points of the
// same mixture.
func BenchmarkEM10k(b *testing.B)  { benchmarkEM(b, 10000) }
func BenchmarkEM300k(b *testing.B) { benchmarkEM(b, 300000) }
func BenchmarkEM1M(b *testing.B)   { benchmarkEM(b, 1000000) }

func benchmarkEM(b *testing.B, n int) {
	x := gaussian(b, 1, n, 4, 4)
	m := niw(b, x, 20)
	for _, base := range []int{4, 1} {
		b.Run(fmt.Sprintf("resolve_base=%d", base), func(b *testing.B) {
			defer reportRusage(b)()
			for i := range b.N {
				rng := rand.New(rand.NewPCG(uint64(i), 1))
				o := EMOptions{M: 50, Steps: 5, ResolveM: 50, ResolveBase: base}
				if _, err := EM(context.Background(), m, x, Prior{Alpha: 1}, rng, o); err != nil {
					b.Fatal(err)
				}
			}
		})
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
