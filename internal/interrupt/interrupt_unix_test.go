//go:build unix

package interrupt

import (
	"context"
	"os"
	"os/signal"
	"syscall"
	"testing"
	"time"
)

// TestSignalBeforeContext: a SIGTERM the process received before Context was called cancels the
// context Context returns, with os/signal.NotifyContext's cause.
func TestSignalBeforeContext(t *testing.T) {
	// A channel of the test's own sees the signal delivered; signal.Stop returns once every
	// channel, this package's too, has it.
	seen := make(chan os.Signal, 1)
	signal.Notify(seen, syscall.SIGTERM)
	if err := syscall.Kill(os.Getpid(), syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	<-seen
	signal.Stop(seen)

	ctx, stop := Context(context.Background())
	defer stop()
	select {
	case <-ctx.Done():
	case <-time.After(time.Minute):
		t.Fatal("the SIGTERM received before Context did not cancel its context")
	}
	if got := context.Cause(ctx).Error(); got != "terminated signal received" {
		t.Errorf("cause %q, want %q", got, "terminated signal received")
	}
	// Context takes the signals over once: a later one is not cancelled by any signal.
	later, stopLater := Context(context.Background())
	stopLater()
	if later.Err() != context.Canceled {
		t.Errorf("a second Context's stop left its context %v", later.Err())
	}
}
