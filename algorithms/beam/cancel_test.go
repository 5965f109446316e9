package beam

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/hcbench/hcbench/algorithms/model/ginkgo"
	"github.com/hcbench/hcbench/algorithms/model/ginkgo/ginkgotest"
	"github.com/hcbench/hcbench/internal/canceltest"
)

// TestCancelLatency cancels beam search 200 ms into a run of many seconds: a 30-leaf jet with a
// beam of 10 000, whose levels each rank up to 10 000 candidates per path and build 10 000
// partial hierarchies of up to 435 pairs.
func TestCancelLatency(t *testing.T) {
	m := ginkgotest.Model(t, ginkgotest.RandomJet(t, rand.New(rand.NewPCG(30, 7)), 30), ginkgo.Version2020)
	for _, d := range []Dedup{Structure, Float} {
		canceltest.Run(t, fmt.Sprintf("beam, N = 30, B = 10000, %v", d), 200*time.Millisecond, func(ctx context.Context) error {
			_, err := Run(ctx, m, Options{Size: 10000, Dedup: d})
			return err
		})
	}
}
