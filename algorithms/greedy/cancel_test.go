package greedy

import (
	"context"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/hcbench/hcbench/algorithms/model/correlation"
	"github.com/hcbench/hcbench/internal/canceltest"
)

// TestCancelLatency cancels greedy search 200 ms into a run of seconds: the correlation energy of
// 1000 points, whose log ψ costs |A|·|B| weights, so that merges and repairs grow long.
func TestCancelLatency(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	x := make([][]float64, 1000)
	for i := range x {
		x[i] = []float64{rng.NormFloat64(), rng.NormFloat64(), rng.NormFloat64(), rng.NormFloat64()}
	}
	m, err := correlation.New(t.Context(), x, correlation.Params{Beta: 1})
	if err != nil {
		t.Fatal(err)
	}
	canceltest.Run(t, "greedy, correlation energy of 1000 points", 200*time.Millisecond, func(ctx context.Context) error {
		_, err := Run(ctx, m)
		return err
	})
}
