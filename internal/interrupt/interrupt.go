// Package interrupt catches SIGINT and SIGTERM from the first moments of the process, so that a
// command that stops cleanly on them (cli.Main) does so also when one comes before main runs.
//
// Go initialises every package before main. Some of hcbench's dependencies take long to do so:
// go-runewidth (through tablewriter) builds a table of two million bytes, tens of milliseconds,
// hundreds on a loaded machine (GODEBUG=inittrace=1 shows each package's). Until a handler is
// installed, SIGTERM takes its default action (the process ends without a word, its run left
// "running"), and SIGINT sent to a background job (`hcbench run … &`, which the shell starts with
// SIGINT ignored) is dropped, so the run goes on and exits 0. This package installs the handler
// in its own initialiser. Go initialises the packages whose dependencies are initialised in the
// order of their import paths (the Go specification, since Go 1.21), and this one depends only on
// the standard library, whose initialisers are short: it runs among the first, before any slow
// one of another module's (cli's TestInterruptInitialisedFirst checks the order). What is left
// before it is the Go runtime's start and a few standard packages.
//
// Catching SIGINT re-enables it where it was ignored (os/signal.Notify): the background job is
// interrupted as a foreground one is. A program that imports this package and never calls
// Context (a test binary that does not run the command) must call Release, or it would ignore
// both signals.
package interrupt

import (
	"context"
	"os"
	"os/signal"
	"sync"
	"syscall"
)

// Signals are the signals caught: Ctrl-C's SIGINT, and SIGTERM, which batch systems, supervisors
// and kill send.
var Signals = []os.Signal{os.Interrupt, syscall.SIGTERM}

// early receives the first signal; one that comes while one waits is dropped, as
// os/signal.NotifyContext does.
var early = make(chan os.Signal, 1)

func init() {
	signal.Notify(early, Signals...)
}

// once makes Context and Release take the signals over once.
var once sync.Once

// Context returns a context derived from parent that is cancelled at the first SIGINT or SIGTERM
// the process receives, also one that came before the call (since this package was initialised),
// with the cause os/signal.NotifyContext gives ("interrupt signal received"). From then on the
// signals take their default action again: a second one ends the process at once (a SIGINT that
// was ignored when the process started is ignored again). stop does the same without a signal;
// it cancels the context too.
//
// Context may be called once; a later call (or one after Release) returns a context that no
// signal cancels.
func Context(parent context.Context) (ctx context.Context, stop func()) {
	ctx, cancel := context.WithCancelCause(parent)
	taken := false
	once.Do(func() { taken = true })
	if !taken {
		return ctx, func() { cancel(nil) }
	}
	done := make(chan struct{})
	go func() {
		select {
		case s := <-early:
			cancel(signalError(s.String() + " signal received"))
		case <-done:
		case <-ctx.Done():
		}
		signal.Stop(early)
	}()
	var stopOnce sync.Once
	return ctx, func() {
		stopOnce.Do(func() { close(done) })
		cancel(nil)
	}
}

// Release gives the signals their default action back, unless Context has taken them over. A
// program that links this package without running a command calls it, so that Ctrl-C and
// SIGTERM end it as they end other programs.
func Release() {
	once.Do(func() { signal.Stop(early) })
}

// signalError is the cause of a context a signal cancelled; its text is that of
// os/signal.NotifyContext's.
type signalError string

func (s signalError) Error() string { return string(s) }
