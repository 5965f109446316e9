//go:build !unix

package limittest

import "os"

// PeakRSS is unknown where the system gives no peak resident memory.
func PeakRSS(*os.ProcessState) (int64, bool) { return 0, false }
