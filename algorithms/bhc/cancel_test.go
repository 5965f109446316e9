package bhc

import (
	"context"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/hcbench/hcbench/internal/canceltest"
)

// TestCancelLatency cancels each search 200 ms into a run that takes seconds, in its longest
// phase: greedy BHC while it scores all pairs of 3000 points (4.5 million marginal likelihoods),
// RBHC and EMBHC on 100 000 points (RBHC filtering every point at each level, EMBHC assigning
// every point to one of 50 clusters), and the exact dynamic program over the 2^20 subsets of
// 20 points (a marginal likelihood per subset, then 1.7·10⁹ splits).
func TestCancelLatency(t *testing.T) {
	const delay = 200 * time.Millisecond
	t.Run("bhc", func(t *testing.T) {
		m := niw(t, gaussian(t, 1, 3000, 4, 4), 20)
		canceltest.Run(t, "greedy BHC, n = 3000", delay, func(ctx context.Context) error {
			_, err := Run(ctx, m, Prior{Alpha: 1})
			return err
		})
	})
	x := gaussian(t, 1, 100000, 4, 4)
	m := niw(t, x, 20)
	t.Run("rbhc", func(t *testing.T) {
		canceltest.Run(t, "RBHC, n = 100000, m = 50", delay, func(ctx context.Context) error {
			_, err := Randomized(ctx, m, Prior{Alpha: 1}, rand.New(rand.NewPCG(1, 1)), RandomizedOptions{M: 50})
			return err
		})
	})
	t.Run("embhc", func(t *testing.T) {
		canceltest.Run(t, "EMBHC, n = 100000, m = 50", delay, func(ctx context.Context) error {
			_, err := EM(ctx, m, x, Prior{Alpha: 1}, rand.New(rand.NewPCG(1, 1)), EMOptions{M: 50, Steps: 5, ResolveM: 50})
			return err
		})
	})
	t.Run("exact", func(t *testing.T) {
		m := niw(t, gaussian(t, 1, MaxExactItems, 3, 4), 20)
		canceltest.Run(t, "exact fixed-π BHC, n = 20", delay, func(ctx context.Context) error {
			_, err := ExactFixed(ctx, m, 0.5)
			return err
		})
	})
}
