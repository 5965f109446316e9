package trellis

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/hcbench/hcbench/algorithms/model"
	"github.com/hcbench/hcbench/algorithms/model/correlation"
	"github.com/hcbench/hcbench/algorithms/model/ginkgo"
	"github.com/hcbench/hcbench/algorithms/model/ginkgo/ginkgotest"
	"github.com/hcbench/hcbench/algorithms/model/modeltest"
	"github.com/hcbench/hcbench/internal/canceltest"
)

// TestCancelLatency cancels each pass 200 ms into a run of seconds: the bottom-up pass over a
// 20-leaf jet (3^20 splits; full and MAP-only, through the Ginkgo kernel and the generic path),
// and, on a trellis of 16 leaves, the outside pass of the marginals, the MAP-tie pass, and
// drawing 20 000 samples. Each would take seconds to minutes.
func TestCancelLatency(t *testing.T) {
	const delay = 200 * time.Millisecond
	rng := rand.New(rand.NewPCG(20, 7))
	jet20 := ginkgotest.Model(t, ginkgotest.RandomJet(t, rng, 20), ginkgo.Version2020)
	for name, o := range map[string]Options{"MAP-only": {MAPOnly: true}, "full": {}, "generic full": {generic: true}} {
		canceltest.Run(t, fmt.Sprintf("Build, 20 leaves, %s", name), delay, func(ctx context.Context) error {
			_, err := Build(ctx, jet20, o)
			return err
		})
	}
	if testing.Short() {
		t.Skip("building a trellis of 16 leaves takes a second")
	}
	m16 := ginkgotest.Model(t, ginkgotest.RandomJet(t, rng, 16), ginkgo.Version2020)
	tr := build(t, m16, Options{})
	canceltest.Run(t, "Marginals, 16 leaves", delay, func(ctx context.Context) error {
		return tr.Marginals(ctx)
	})
	canceltest.Run(t, "MAPTies, 16 leaves", delay, func(ctx context.Context) error {
		_, err := tr.MAPTies(ctx, 1e-9, func(l, r uint32) float64 { return 1 })
		return err
	})
	canceltest.Run(t, "Sample 20000 trees, 16 leaves", delay, func(ctx context.Context) error {
		_, err := tr.Sample(ctx, rand.New(rand.NewPCG(1, 1)), 20000)
		return err
	})
	// TopClusters takes a second or more only at N ≥ 20 with k in the thousands; here it must
	// just see a cancelled context.
	tr = build(t, modeltest.Random(12, 1, 0), Options{})
	if err := tr.Marginals(t.Context()); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if _, err := tr.TopClusters(ctx, 10); !errors.Is(err, context.Canceled) {
		t.Errorf("TopClusters under a cancelled context: %v", err)
	}
}

// TestCancelScorer: the subset tables of a correlation-energy model of 23 items (2^23 subsets, 23
// weights each) are built under the pass's context.
func TestCancelScorer(t *testing.T) {
	if testing.Short() {
		t.Skip("128 MiB of subset tables")
	}
	rng := rand.New(rand.NewPCG(3, 4))
	x := make([][]float64, 23)
	for i := range x {
		x[i] = []float64{rng.NormFloat64(), rng.NormFloat64(), rng.NormFloat64()}
	}
	m, err := correlation.New(t.Context(), x, correlation.Params{Beta: 1})
	if err != nil {
		t.Fatal(err)
	}
	canceltest.Run(t, "the subset scorer of 23 items", 200*time.Millisecond, func(ctx context.Context) error {
		_, err := newSubsetScorer(ctx, model.SubsetModel(m))
		return err
	})
}
