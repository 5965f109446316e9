//go:build !unix

package cli

import "os"

// peakKiB is unknown where the system gives no peak resident memory.
func peakKiB(*os.ProcessState) (int64, bool) { return 0, false }
