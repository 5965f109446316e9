//go:build !unix

package canceltest

import "time"

// cpuTime cannot tell the process's CPU time here: Run then waits in wall time.
func cpuTime() (time.Duration, bool) { return 0, false }
