package mixture

import (
	"context"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/hcbench/hcbench/internal/canceltest"
)

// TestDrawCancel cancels 200 ms into a draw of about a second: 100 000 Bernoulli components of
// 100 features (a Beta draw per feature, two Gamma draws each) and a point from each.
func TestDrawCancel(t *testing.T) {
	p := Params{Kind: Bernoulli, Components: 100000, Points: 100000, Dims: 100, Separation: 2}
	canceltest.Run(t, "Draw, 100000 components of 100 features", 200*time.Millisecond, func(ctx context.Context) error {
		_, err := Draw(ctx, rand.New(rand.NewPCG(1, 2)), p)
		return err
	})
}
