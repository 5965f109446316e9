package rundir

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/hcbench/hcbench/experiments/results"
)

// errBusy is tryLock's answer when another process holds a conflicting lock.
var errBusy = errors.New("locked by another process")

// errNoLocks wraps tryLock's answer on a file system that does not lock files (some network
// file systems); the run then goes on unprotected, with a warning.
var errNoLocks = errors.New("the file system does not support file locks")

// Lock takes the exclusive lock of one whole run or one shard in dir: its lock file (.lock,
// or .lock-shard-I-of-N) locked with flock (LockFileEx on Windows) and holding the pid and host.
// Two processes running the same tasks into one results file — what a Slurm requeue or a
// replaced Kubernetes pod does while the first process still runs — would record every task
// twice; the second one is refused instead, with a message naming the first's pid and host (on
// a cluster the holder may run on another node). The lock dies with the process that holds it,
// however it ends, so no stale lock is ever left; the file stays behind. On a file system
// without locks Lock returns an error wrapping errNoLocks and an open file the caller closes
// as if it were the lock. A symbolic link in place of the lock file is refused (a lock taken on
// what it names, and the pid written there, would be another file's).
func Lock(dir string, files Files) (*os.File, error) {
	path, what := filepath.Join(dir, files.Lock), files.What
	f, err := results.OpenNoFollow(path, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, fmt.Errorf("cannot lock %s: %w", what, err)
	}
	switch err := tryLock(f, true); {
	case errors.Is(err, errBusy):
		f.Close()
		return nil, fmt.Errorf("%s is in use by another hcbench process (%s); wait for it to end%s", what, lockHolder(path), holderAdvice(path))
	case errors.Is(err, errNoLocks):
		return f, fmt.Errorf("cannot lock %s, so another process running into it would not be noticed: %w", what, err)
	case err != nil:
		f.Close()
		return nil, fmt.Errorf("cannot lock %s (%s): %w", what, path, err)
	}
	// The pid and host are for the message of a process refused; a failure to write them costs
	// only that.
	if f.Truncate(0) == nil {
		host, _ := os.Hostname()
		f.WriteAt([]byte(strconv.Itoa(os.Getpid())+"\n"+host+"\n"), 0)
	}
	return f, nil
}

// lockHolder names the process holding a lock file, from the pid and host it wrote: "pid 12 on
// host node7".
func lockHolder(path string) string {
	b, err := os.ReadFile(path)
	if err != nil {
		return "pid and host unknown: " + err.Error()
	}
	pidText, host, _ := strings.Cut(string(b), "\n")
	pid, err := strconv.Atoi(strings.TrimSpace(pidText))
	if err != nil {
		return "pid and host unknown: it has not written them yet"
	}
	if host = strings.TrimSpace(host); host == "" {
		return "pid " + strconv.Itoa(pid) + ", host unknown"
	}
	return "pid " + strconv.Itoa(pid) + " on host " + host
}

// checkUnlocked reports an error when another process holds the lock of the run or shard of
// files in dir: for readers that must not read a run while it is being written. It probes with
// a shared lock, which conflicts with the writer's exclusive one and needs the file open for
// reading only, so that it works in a read-only directory and on NFS (see tryLock). A missing
// lock file is no error. When the probe fails otherwise (a file system without locks, an
// unexpected error), it cannot tell, and says so in warning for the caller to log: a reader
// that stopped there would refuse every run on such a file system.
func checkUnlocked(dir string, files Files) (warning string, err error) {
	path, what := filepath.Join(dir, files.Lock), files.What
	f, err := results.OpenNoFollow(path, os.O_RDONLY, 0)
	if errors.Is(err, os.ErrNotExist) {
		return "", nil
	}
	if err == nil {
		defer f.Close() // closing releases the lock if tryLock took it
		err = tryLock(f, false)
	}
	switch {
	case err == nil:
		return "", nil
	case errors.Is(err, errBusy):
		return "", fmt.Errorf("%s is still being written by another hcbench process (%s); wait for it to end", what, lockHolder(path))
	}
	return fmt.Sprintf("cannot tell whether %s is still being written by another hcbench process: probing its lock %s failed: %v; reading it as it is", what, path, err), nil
}

// holderAdvice says what to do about the holder of a busy lock when it runs on this host: a
// process still running (one left behind by a killed `go run`, say) can be stopped, and then
// marks its run interrupted; a lock whose writer has ended is held by a process that has the
// file open. The lock itself is never stale: it ends with the process that holds it.
func holderAdvice(path string) string {
	b, err := os.ReadFile(path)
	if err != nil {
		return ""
	}
	pidText, host, _ := strings.Cut(string(b), "\n")
	pid, err := strconv.Atoi(strings.TrimSpace(pidText))
	me, _ := os.Hostname()
	if err != nil || strings.TrimSpace(host) != me {
		return ""
	}
	if processAlive(pid) {
		return fmt.Sprintf(", or stop it (kill %d: it marks its run interrupted, and the same command resumes it)", pid)
	}
	return fmt.Sprintf("; pid %d has ended, so another process holds %s open (fuser %s names it)", pid, path, path)
}
