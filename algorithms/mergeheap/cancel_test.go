package mergeheap

import (
	"context"
	"errors"
	"math"
	"testing"
	"time"

	"github.com/hcbench/hcbench/internal/canceltest"
)

// TestNewForestCancel: scoring all pairs of 3000 clusters at about a microsecond a score takes
// seconds; a cancel 200 ms in must stop it.
func TestNewForestCancel(t *testing.T) {
	roots := make([]int, 3000)
	for i := range roots {
		roots[i] = i
	}
	score := func(a, b int) float64 {
		s := float64(a ^ b)
		for range 200 { // about a microsecond, as a marginal likelihood
			s = math.Sqrt(s + 1)
		}
		return s
	}
	canceltest.Run(t, "NewForest of 3000 clusters", 200*time.Millisecond, func(ctx context.Context) error {
		_, err := NewForest(ctx, roots, score)
		return err
	})
}

// TestReplaceCancelled: a merge under a cancelled context fails with its error.
func TestReplaceCancelled(t *testing.T) {
	roots := make([]int, 100)
	for i := range roots {
		roots[i] = i
	}
	score := func(a, b int) float64 { return float64(a * b % 7) }
	f, err := NewForest(t.Context(), roots, score)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if _, err := NewForest(ctx, roots, score); !errors.Is(err, context.Canceled) {
		t.Errorf("NewForest: %v, want context.Canceled", err)
	}
	c, _ := f.Best()
	if err := f.Replace(ctx, int(c.A), int(c.B), 100); !errors.Is(err, context.Canceled) {
		t.Errorf("Replace: %v, want context.Canceled", err)
	}
}
