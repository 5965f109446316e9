// Package canceltest measures how soon a long computation stops once its context is cancelled:
// the tests of the algorithm and generator packages start one at a size where it takes seconds,
// cancel its context after a while, and check that it returns context.Canceled.
package canceltest

import (
	"context"
	"errors"
	"testing"
	"time"
)

// Hang is how long after the cancel a computation may run before it counts as hung. It is a
// bound on a hang, not a speed requirement: the latencies measured are logged, not asserted.
const Hang = 10 * time.Second

// Run calls f with a context that is cancelled after delay, and checks that f returns an error
// satisfying errors.Is(err, context.Canceled). It logs the latency from the cancel to f's return
// and returns it. The test fails when f returns another error, returns no error after the cancel,
// or has not returned Hang after the cancel (f then keeps running in the background); it is
// skipped when f finishes before the cancel, which leaves nothing to measure.
func Run(tb testing.TB, what string, delay time.Duration, f func(ctx context.Context) error) time.Duration {
	tb.Helper()
	ctx, cancel := context.WithCancel(tb.Context())
	defer cancel()
	cancelled := make(chan time.Time, 1)
	timer := time.AfterFunc(delay, func() {
		cancelled <- time.Now()
		cancel()
	})
	defer timer.Stop()
	done := make(chan error, 1)
	start := time.Now()
	go func() { done <- f(ctx) }()

	var err error
	var at time.Time
	select {
	case err = <-done:
		select {
		case at = <-cancelled:
		default:
			if err != nil && !errors.Is(err, context.Canceled) {
				tb.Fatalf("%s: error before the cancel: %v", what, err)
			}
			tb.Skipf("%s: finished in %v, before the cancel at %v: nothing to measure", what, time.Since(start).Round(time.Millisecond), delay)
		}
	case at = <-cancelled:
		select {
		case err = <-done:
		case <-time.After(Hang):
			tb.Fatalf("%s: still running %v after its context was cancelled", what, Hang)
		}
	}
	latency := time.Since(at)
	if !errors.Is(err, context.Canceled) {
		tb.Fatalf("%s: returned %v after the cancel, want an error wrapping context.Canceled", what, err)
	}
	tb.Logf("%s: cancelled after %v, returned %v later (%v)", what, delay, latency.Round(10*time.Microsecond), err)
	return latency
}
