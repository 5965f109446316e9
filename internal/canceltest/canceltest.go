// Package canceltest measures how soon a long computation stops once its context is cancelled:
// the tests of the algorithm and generator packages start one at a size where it takes seconds,
// cancel its context once it has done some work, and check that it returns context.Canceled.
package canceltest

import (
	"context"
	"errors"
	"testing"
	"time"
)

// Hang is how long after the cancel a computation may run before it counts as hung. It is a
// bound on a hang, far beyond any latency measured, so that a loaded machine meets it; the
// latencies are logged, not asserted.
const Hang = time.Minute

// poll is how often Run looks at the CPU time used.
const poll = time.Millisecond

// Run calls f with a context that is cancelled once the process has used work of CPU time since
// the call, and checks that f returns an error satisfying errors.Is(err, context.Canceled). The
// work is CPU time, not wall time, so that f is cancelled at the same point of its computation
// on a loaded machine as on an idle one (a wall-time delay would cancel it the earlier in its
// work the busier the machine, in another phase than the one the test names); where the CPU time
// cannot be read (cpuTime), it is wall time. Run logs the latency from the cancel to f's return
// and returns it. The test fails when f returns another error, returns no error after the
// cancel, or has not returned Hang after the cancel (f then keeps running in the background); it
// is skipped when f finishes before the cancel, which leaves nothing to measure.
func Run(tb testing.TB, what string, work time.Duration, f func(ctx context.Context) error) time.Duration {
	tb.Helper()
	ctx, cancel := context.WithCancel(tb.Context())
	defer cancel()
	done := make(chan error, 1)
	start := time.Now()
	cpu0, cpuKnown := cpuTime()
	go func() { done <- f(ctx) }()

	// Wait for the work to be done, or f to return.
	tick := time.NewTicker(poll)
	defer tick.Stop()
	var err error
	for {
		select {
		case err = <-done:
			if err != nil && !errors.Is(err, context.Canceled) {
				tb.Fatalf("%s: error before the cancel: %v", what, err)
			}
			tb.Skipf("%s: finished in %v, before the cancel after %v of work: nothing to measure", what, time.Since(start).Round(time.Millisecond), work)
		case <-tick.C:
		}
		var used time.Duration
		if cpu, ok := cpuTime(); ok && cpuKnown {
			used = cpu - cpu0
		} else {
			used = time.Since(start)
		}
		if used >= work {
			break
		}
	}
	at := time.Now()
	cancel()
	select {
	case err = <-done:
	case <-time.After(Hang):
		tb.Fatalf("%s: still running %v after its context was cancelled", what, Hang)
	}
	latency := time.Since(at)
	if !errors.Is(err, context.Canceled) {
		tb.Fatalf("%s: returned %v after the cancel, want an error wrapping context.Canceled", what, err)
	}
	tb.Logf("%s: cancelled after %v of work (%v of wall time), returned %v later (%v)", what, work, at.Sub(start).Round(time.Millisecond), latency.Round(10*time.Microsecond), err)
	return latency
}
