//go:build unix

package cli

import (
	"os"
	"syscall"
)

// peakKiB returns the peak resident memory of an ended process (in KiB on Linux; macOS counts
// bytes, which only makes a bound stricter).
func peakKiB(ps *os.ProcessState) (int64, bool) {
	ru, ok := ps.SysUsage().(*syscall.Rusage)
	if !ok {
		return 0, false
	}
	return int64(ru.Maxrss), true
}
