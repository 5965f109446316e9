//go:build unix

package limittest

import (
	"os"
	"runtime"
	"syscall"
)

// PeakRSS returns the peak resident memory of an ended process in bytes (Linux counts it in
// KiB, macOS in bytes), and false where the system does not say. It is a bound, not a measure:
// Linux carries the peak of the process that started the program over into the program's
// across exec, so it is at least this test process's own peak at that time.
func PeakRSS(ps *os.ProcessState) (int64, bool) {
	ru, ok := ps.SysUsage().(*syscall.Rusage)
	if !ok {
		return 0, false
	}
	if runtime.GOOS == "darwin" || runtime.GOOS == "ios" {
		return int64(ru.Maxrss), true
	}
	return int64(ru.Maxrss) << 10, true
}
