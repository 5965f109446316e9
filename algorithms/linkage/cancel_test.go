package linkage

import (
	"context"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/hcbench/hcbench/internal/canceltest"
)

// TestCancelLatency cancels 200 ms into runs that take seconds: the Euclidean distances of 4000
// points in 500 dimensions, every method on the distances of 6000 points in the plane, and
// single linkage of 60,000 points without a distance array.
func TestCancelLatency(t *testing.T) {
	const delay = 200 * time.Millisecond
	rng := rand.New(rand.NewPCG(13, 14))
	t.Run("euclidean", func(t *testing.T) {
		x := points(rng, 4000, 500, 0)
		canceltest.Run(t, "Euclidean, 4000 points in 500 dimensions", delay, func(ctx context.Context) error {
			_, err := Euclidean(ctx, x)
			return err
		})
	})
	t.Run("run", func(t *testing.T) {
		const n = 6000
		d := euclidean(t, points(rng, n, 2, 0))
		for _, m := range methods {
			canceltest.Run(t, m.String()+" linkage, n = 6000", delay, func(ctx context.Context) error {
				_, _, err := Run(ctx, n, slices.Clone(d), m)
				return err
			})
		}
	})
	t.Run("ward-vectors", func(t *testing.T) {
		x := points(rng, 60000, 2, 0)
		canceltest.Run(t, "Ward linkage of vectors, n = 60000", delay, func(ctx context.Context) error {
			_, _, err := Vectors(ctx, x, Ward)
			return err
		})
	})
	t.Run("single-euclidean", func(t *testing.T) {
		x := points(rng, 60000, 2, 0)
		canceltest.Run(t, "SingleEuclidean, n = 60000", delay, func(ctx context.Context) error {
			_, _, err := SingleEuclidean(ctx, x)
			return err
		})
	})
}
