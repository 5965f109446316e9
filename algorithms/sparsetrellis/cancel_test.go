package sparsetrellis

import (
	"context"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/hcbench/hcbench/algorithms/model/ginkgo"
	"github.com/hcbench/hcbench/algorithms/model/ginkgo/ginkgotest"
	"github.com/hcbench/hcbench/internal/canceltest"
)

// TestCancelLatency cancels the sparse trellis 200 ms into a run of about a minute: a 40-leaf jet
// with all_pairs_max_size 20, where one cluster alone has up to 2^19 splits to try.
func TestCancelLatency(t *testing.T) {
	m := ginkgotest.Model(t, ginkgotest.RandomJet(t, rand.New(rand.NewPCG(40, 7)), 40), ginkgo.Version2020)
	sd, _ := seeds(t, m)
	opts := Options{Seeds: sd, AllPairsMaxSize: 20, SplitsTried: 25, SplitsKept: 15, MaxClusters: 100000}
	canceltest.Run(t, "sparse trellis, N = 40, all pairs up to 20 items", 200*time.Millisecond, func(ctx context.Context) error {
		_, err := Run(ctx, m, rand.New(rand.NewPCG(1, 1)), opts)
		return err
	})
}
