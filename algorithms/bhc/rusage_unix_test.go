//go:build unix

package bhc

import (
	"syscall"
	"testing"
	"time"
)

// rusage returns the process's user + system CPU time and its peak resident set size in bytes
// (getrusage; Linux counts ru_maxrss in KiB). ok is false where getrusage fails.
func rusage(tb testing.TB) (cpu time.Duration, maxRSS int64, ok bool) {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		tb.Logf("getrusage: %v", err)
		return 0, 0, false
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()), int64(ru.Maxrss) * 1024, true
}
