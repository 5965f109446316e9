package linkage

import (
	"context"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/hcbench/hcbench/internal/canceltest"
)

// TestCancelLatency cancels 200 ms into runs that take seconds: the Euclidean distances of 4000
// points in 500 dimensions, and average and complete linkage on the star matrix of
// BenchmarkRunStar2000 at n = 3000, whose merges repair nearly every cluster's nearest neighbour.
func TestCancelLatency(t *testing.T) {
	const delay = 200 * time.Millisecond
	rng := rand.New(rand.NewPCG(13, 14))
	t.Run("euclidean", func(t *testing.T) {
		x := make([][]float64, 4000)
		for i := range x {
			x[i] = make([]float64, 500)
			for k := range x[i] {
				x[i][k] = rng.NormFloat64()
			}
		}
		canceltest.Run(t, "Euclidean, 4000 points in 500 dimensions", delay, func(ctx context.Context) error {
			_, err := Euclidean(ctx, x)
			return err
		})
	})
	t.Run("star", func(t *testing.T) {
		d := randomMatrix(3000, func(_, j int) float64 { return float64(j+1) + 0.5*rng.Float64() })
		for _, m := range []Method{Average, Complete} { // single linkage needs no repairs here
			canceltest.Run(t, m.String()+" linkage, star matrix, n = 3000", delay, func(ctx context.Context) error {
				_, _, err := Run(ctx, d, m)
				return err
			})
		}
	})
}
