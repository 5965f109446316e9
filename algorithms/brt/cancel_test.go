package brt_test

import (
	"context"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/hcbench/hcbench/algorithms/brt"
	"github.com/hcbench/hcbench/algorithms/conjugate"
	"github.com/hcbench/hcbench/internal/canceltest"
)

// TestCancelLatency cancels greedy BRT 200 ms into runs that take seconds: while it scores all
// pairs of 3000 points, and on 3000 equal binary rows, where every pair ties with the best and
// one step gathers, weighs and pushes back all 4.5 million of them.
func TestCancelLatency(t *testing.T) {
	const delay = 200 * time.Millisecond
	t.Run("pairs", func(t *testing.T) {
		m := niw(t, gaussian(rand.New(rand.NewPCG(1, 2)), 3000, 4, 4, 3), 10)
		canceltest.Run(t, "BRT, n = 3000", delay, func(ctx context.Context) error {
			_, err := brt.Run(ctx, m, brt.Options{Gamma: 0.5})
			return err
		})
	})
	t.Run("ties", func(t *testing.T) {
		x := make([][]float64, 3000)
		for i := range x {
			x[i] = []float64{1, 0, 1, 0}
		}
		a, b := conjugate.BernoulliFromData(x, 1)
		m, err := conjugate.NewBernoulli(x, a, b)
		if err != nil {
			t.Fatal(err)
		}
		canceltest.Run(t, "BRT, 3000 equal rows", delay, func(ctx context.Context) error {
			_, err := brt.Run(ctx, m, brt.Options{Gamma: 0.5})
			return err
		})
	})
}
