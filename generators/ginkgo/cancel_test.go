package ginkgo_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/hcbench/hcbench/generators/ginkgo"
	"github.com/hcbench/hcbench/internal/canceltest"
)

// TestConditionedCancel asks for a leaf count a QCD jet at t_cut 16 (mean 7.6 leaves) almost
// never has, 60 to 61, with a billion tries: hours of rejection sampling, cancelled after 200 ms.
// The error names the tries made and wraps context.Canceled.
func TestConditionedCancel(t *testing.T) {
	p := preset(t, ginkgo.QCD, 16, false)
	var tries int
	canceltest.Run(t, "Conditioned, 60 to 61 leaves at t_cut 16", 200*time.Millisecond, func(ctx context.Context) error {
		var err error
		_, tries, err = ginkgo.Conditioned(ctx, newRNG(1), p, 60, 61, 1_000_000_000)
		return err
	})
	t.Logf("%d tries before the cancel", tries)

	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if _, tries, err := ginkgo.Conditioned(ctx, newRNG(1), p, 5, 9, 10); !errors.Is(err, context.Canceled) || tries != 0 {
		t.Errorf("cancelled context: %d tries, error %v; want 0 and context.Canceled", tries, err)
	}
}
