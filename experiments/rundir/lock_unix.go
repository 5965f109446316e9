//go:build unix

package rundir

import (
	"errors"
	"fmt"
	"os"
	"syscall"
)

// tryLock takes an flock on f without waiting: exclusive, or shared (which conflicts only with
// an exclusive lock). The lock belongs to the open file, so a second open of the same file, in
// this process or another, cannot take a conflicting lock until f is closed. A shared lock
// needs f open for reading only, also on NFS, where Linux emulates flock with POSIX byte-range
// locks and an exclusive one needs f open for writing.
func tryLock(f *os.File, exclusive bool) error {
	how := syscall.LOCK_SH
	if exclusive {
		how = syscall.LOCK_EX
	}
	for {
		err := syscall.Flock(int(f.Fd()), how|syscall.LOCK_NB)
		switch {
		case err == nil:
			return nil
		case errors.Is(err, syscall.EINTR):
			continue
		case errors.Is(err, syscall.EWOULDBLOCK):
			return errBusy
		case errors.Is(err, syscall.ENOLCK), errors.Is(err, syscall.ENOSYS), errors.Is(err, syscall.EOPNOTSUPP):
			return fmt.Errorf("%w (%v)", errNoLocks, err)
		}
		return err
	}
}

// processAlive reports whether a process with the pid runs on this host (one of another user
// counts).
func processAlive(pid int) bool {
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}
