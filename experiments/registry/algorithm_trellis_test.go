package registry

import (
	"context"
	"errors"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/hcbench/hcbench/algorithms/model/modeltest"
	"github.com/hcbench/hcbench/algorithms/trellis"
	"github.com/hcbench/hcbench/experiments/item"
)

// TestTrellisWaitsForMemory: a trellis task whose tables fit the run's memory budget, but not what
// other tasks hold of it, waits for them instead of failing, so that whether it fits never depends
// on the number of workers; and it takes what it needs only while it runs.
func TestTrellisWaitsForMemory(t *testing.T) {
	m := modeltest.Constant(10, 0)
	p := &TrellisParams{Mode: "full", CountTrees: true}
	need := trellis.MemoryNeeded(m, trellis.Options{})
	run := Run{Budget: NewBudget(need)}
	task := func() Task { return Task{Item: &item.Item{Model: m}, RNG: rand.New(rand.NewPCG(1, 2))} }
	hold, err := run.Budget.Acquire(context.Background(), 1) // another task holds a byte of the budget
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() {
		_, err := solveTrellis(context.Background(), p, task(), run)
		done <- err
	}()
	select {
	case err := <-done:
		t.Fatalf("the task ran while its memory was held (err %v)", err)
	case <-time.After(50 * time.Millisecond):
	}
	hold()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	if release, err := run.Budget.Acquire(ctx, need); err != nil {
		t.Error("the task kept its memory after it finished")
	} else {
		release()
	}
	// A task whose tables exceed its limit fails at once, naming N, the need and the limit,
	// without waiting for the budget.
	small := &TrellisParams{Mode: "full", CountTrees: true, MemoryLimit: ByteSize(need / 2)}
	_, err = solveTrellis(context.Background(), small, task(), run)
	if !errors.Is(err, trellis.ErrTooLarge) || !strings.Contains(err.Error(), "N = 10") {
		t.Errorf("over its limit: %v, want ErrTooLarge naming N = 10", err)
	}
}

func TestWeightDistances(t *testing.T) {
	// d_ij = max_{i≠j} w − w_ij (AstarTrellis Tree.execute_search), worked by hand. All
	// off-diagonal weights are negative, so a maximum that took in the zero diagonal would give
	// 0 − w instead; the diagonal of w is ignored. d is condensed: d01, d02, d12.
	w := [][]float64{
		{0, -0.25, -1},
		{-0.25, 7, -0.5},
		{-1, -0.5, 0},
	}
	d, err := weightDistances(t.Context(), w)
	if err != nil {
		t.Fatal(err)
	}
	// Exact: one subtraction of numbers exact in binary.
	if want := []float64{0, 0.75, 0.25}; !slices.Equal(d, want) {
		t.Errorf("d = %v, want %v", d, want)
	}
}
