package correlation

import (
	"context"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/hcbench/hcbench/internal/canceltest"
)

// TestCancelLatency cancels 200 ms into the two long phases of the model: the n² similarities of
// 3000 vectors of 200 features (New), and the subset tables of 23 items (2^23 subsets, 23
// weights each, 128 MiB), which the exact trellis builds.
func TestCancelLatency(t *testing.T) {
	const delay = 200 * time.Millisecond
	x := randomVectors(rand.New(rand.NewPCG(1, 2)), 3000, 200)
	t.Run("weights", func(t *testing.T) {
		canceltest.Run(t, "New, 3000 vectors of 200 features", delay, func(ctx context.Context) error {
			_, err := New(ctx, x, Params{Beta: 1})
			return err
		})
	})
	t.Run("subsets", func(t *testing.T) {
		if testing.Short() {
			t.Skip("128 MiB of subset tables")
		}
		m, err := New(t.Context(), x[:23], Params{Beta: 1})
		if err != nil {
			t.Fatal(err)
		}
		canceltest.Run(t, "NewSubsetScorerContext, 23 items", delay, func(ctx context.Context) error {
			_, err := m.NewSubsetScorerContext(ctx)
			return err
		})
	})
}
