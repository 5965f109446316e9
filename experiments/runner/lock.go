package runner

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// errBusy is tryLock's answer when another process holds the lock.
var errBusy = errors.New("locked by another process")

// errNoLocks wraps tryLock's answer on a file system that does not lock files (some network
// file systems); the run then goes on unprotected, with a warning.
var errNoLocks = errors.New("the file system does not support file locks")

// lockRun takes the exclusive lock of one whole run or one shard in dir: its lock file (.lock,
// or .lock-shard-I-of-N) locked with flock (LockFileEx on Windows) and holding the pid. Two
// processes running the same tasks into one results file — what a Slurm requeue or a replaced
// Kubernetes pod does while the first process still runs — would record every task twice; the
// second one is refused instead, with a message naming the first's pid. The lock dies with the
// process that holds it, however it ends, so no stale lock is ever left; the file stays behind.
// On a file system without locks lockRun returns an error wrapping errNoLocks and an open file
// the caller closes as if it were the lock.
func lockRun(dir string, files runFiles) (*os.File, error) {
	path, what := filepath.Join(dir, files.lock), files.what
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, fmt.Errorf("cannot lock %s: %w", what, err)
	}
	switch err := tryLock(f); {
	case errors.Is(err, errBusy):
		f.Close()
		return nil, fmt.Errorf("%s is in use by another hcbench process (%s); wait for it to end", what, lockHolder(path))
	case errors.Is(err, errNoLocks):
		return f, fmt.Errorf("cannot lock %s, so another process running into it would not be noticed: %w", what, err)
	case err != nil:
		f.Close()
		return nil, fmt.Errorf("cannot lock %s (%s): %w", what, path, err)
	}
	// The pid is for the message of a process refused; a failure to write it costs only that.
	if f.Truncate(0) == nil {
		f.WriteAt([]byte(strconv.Itoa(os.Getpid())+"\n"), 0)
	}
	return f, nil
}

// lockHolder names the process holding a lock file, from the pid it wrote.
func lockHolder(path string) string {
	b, err := os.ReadFile(path)
	if pid, perr := strconv.Atoi(strings.TrimSpace(string(b))); err == nil && perr == nil {
		return "pid " + strconv.Itoa(pid)
	}
	return "pid unknown: it has not written it yet"
}

// checkUnlocked reports an error when another process holds the lock of the run or shard of
// files in dir, without taking the lock for long: for readers that must not read a run while it
// is being written. A missing lock file, or a file system without locks, is no error.
func checkUnlocked(dir string, files runFiles) error {
	path, what := filepath.Join(dir, files.lock), files.what
	f, err := os.Open(path) // a lock is taken on a file open for reading too, in a read-only directory
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	defer f.Close() // closing releases the lock if tryLock took it
	switch err := tryLock(f); {
	case errors.Is(err, errBusy):
		return fmt.Errorf("%s is still being written by another hcbench process (%s); wait for it to end", what, lockHolder(path))
	case err != nil && !errors.Is(err, errNoLocks):
		return err
	}
	return nil
}
