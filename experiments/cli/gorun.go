package cli

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"time"
)

// errGoRunEnded is the cause of the cancellation watchGoRun makes.
var errGoRunEnded = errors.New("the go command that started hcbench (go run) ended, as a SIGTERM sent to it ends it")

// goRunPoll is how often watchGoRun looks at the parent process.
const goRunPoll = 200 * time.Millisecond

// watchGoRun makes hcbench stop when it runs under `go run` and the go command ends. go run
// leaves SIGINT to its child (both get a terminal's Ctrl-C) but does not pass SIGTERM on: a
// SIGTERM sent to go run, which is what a batch system or a supervisor sends, ends the go command
// and would leave hcbench running, and holding its run's lock, with nobody waiting for it. A
// binary that go run built lives in the go build cache (Go 1.24 and later:
// GOCACHE/xx/<64 hex digits>-d/NAME) or in the go command's temporary work directory (earlier:
// …/go-build…/b001/exe/NAME); there, hcbench watches its parent process and cancels ctx with
// errGoRunEnded when it changes (the go command ended and hcbench was given to another parent).
// Elsewhere (a built binary, which batch systems should run) it does nothing.
func watchGoRun(ctx context.Context, cancel context.CancelCauseFunc) {
	exe, err := os.Executable()
	if err != nil || !builtByGoRun(exe) {
		return
	}
	watchParent(ctx, cancel, os.Getppid(), goRunPoll)
}

// builtByGoRun reports whether exe is a binary that `go run` built: one in a folder named for its
// build in the go build cache (<64 hex digits>-d, inside a folder named for their first two), or
// in a folder exe inside the go command's work directory, go-build….
func builtByGoRun(exe string) bool {
	dir := filepath.Dir(exe)
	if cached.MatchString(filepath.Base(dir)) && strings.HasPrefix(filepath.Base(dir), filepath.Base(filepath.Dir(dir))) {
		return true
	}
	return filepath.Base(dir) == "exe" && strings.Contains(filepath.ToSlash(exe), "/go-build")
}

// cached matches the folder of an executable in the go build cache.
var cached = regexp.MustCompile(`^[0-9a-f]{64}-d$`)

// watchParent cancels ctx with errGoRunEnded once the parent process is no longer ppid.
func watchParent(ctx context.Context, cancel context.CancelCauseFunc, ppid int, every time.Duration) {
	go func() {
		t := time.NewTicker(every)
		defer t.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-t.C:
				if os.Getppid() != ppid {
					cancel(errGoRunEnded)
					return
				}
			}
		}
	}()
}
